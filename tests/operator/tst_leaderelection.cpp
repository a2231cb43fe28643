// Leader election with a coordination.k8s.io/v1 Lease against the embedded cluster over HTTPS,
// with short durations on the real clock (lease 1 s, renew deadline 0.7 s, retry 0.1 s).
#include "controller/operator/customappoperator.h"
#include "controller/operator/leaderelection.h"
#include "operatortestutil.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace optest;
using namespace std::chrono_literals;
namespace operators = reconscope::controller::operators;
namespace reconcile = reconscope::controller::reconcile;

class tst_LeaderElection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void microTime();
    void acquiresAndRenews();
    void followerSeesHolderAndTakesOverOnRelease();
    void expiredLeaseIsTakenOver();
    void twoOperatorsOneActsKillingItHandsOver();

private:
    operators::LeaderElector::Options leaseOptions(const QString &identity) const
    {
        operators::LeaderElector::Options options;
        options.identity = identity;
        options.leaseDuration = 1s;
        options.renewDeadline = 700ms;
        options.retryPeriod = 100ms;
        return options;
    }
    json lease() const { return m_fx->get(leases, u"customapp-operator"_s); }
    QString leaseHolder() const
    {
        return QString::fromStdString(
            lease().value("spec", json::object()).value("holderIdentity", ""));
    }

    std::unique_ptr<ClusterFixture> m_fx;
    std::unique_ptr<reconcile::RealClock> m_clock;
    std::unique_ptr<kube::RestClient> m_client;
};

void tst_LeaderElection::init()
{
    m_fx = std::make_unique<ClusterFixture>(20);
    const QString error = m_fx->start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_clock = std::make_unique<reconcile::RealClock>();
    m_client = std::make_unique<kube::RestClient>(m_fx->clientConfig());
}

void tst_LeaderElection::cleanup()
{
    m_client.reset();
    m_clock.reset();
    m_fx.reset();
}

void tst_LeaderElection::microTime()
{
    const QDateTime t(QDate(2026, 1, 2), QTime(3, 4, 5, 250), Qt::UTC);
    QCOMPARE(operators::formatMicroTime(t), u"2026-01-02T03:04:05.250000Z"_s);
}

void tst_LeaderElection::acquiresAndRenews()
{
    operators::LeaderElector a(m_client.get(), *m_clock, leaseOptions(u"a"_s));
    QSignalSpy started(&a, &operators::LeaderElector::startedLeading);
    a.start();
    QVERIFY(started.wait(5000));
    QVERIFY(a.isLeader());
    QCOMPARE(a.holder(), u"a"_s);
    const json first = lease();
    QCOMPARE_JSON(first["spec"]["holderIdentity"], json("a"));
    QCOMPARE_JSON(first["spec"]["leaseDurationSeconds"], json(1));
    QCOMPARE_JSON(first["spec"]["leaseTransitions"], json(0));
    // Renewals move renewTime (and the resourceVersion) but keep acquireTime and transitions.
    QTRY_VERIFY_WITH_TIMEOUT(lease()["spec"]["renewTime"] != first["spec"]["renewTime"], 5000);
    const json later = lease();
    QCOMPARE_JSON(later["spec"]["acquireTime"], first["spec"]["acquireTime"]);
    QCOMPARE_JSON(later["spec"]["leaseTransitions"], json(0));
    QVERIFY(later["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]);
    QCOMPARE(started.size(), 1);
}

void tst_LeaderElection::followerSeesHolderAndTakesOverOnRelease()
{
    operators::LeaderElector a(m_client.get(), *m_clock, leaseOptions(u"a"_s));
    operators::LeaderElector b(m_client.get(), *m_clock, leaseOptions(u"b"_s));
    QSignalSpy aStarted(&a, &operators::LeaderElector::startedLeading);
    a.start();
    QVERIFY(aStarted.wait(5000));
    QSignalSpy bHolder(&b, &operators::LeaderElector::holderChanged);
    QSignalSpy bStarted(&b, &operators::LeaderElector::startedLeading);
    b.start();
    QTRY_COMPARE(b.holder(), u"a"_s);
    QCOMPARE(bHolder.first().first().toString(), u"a"_s);
    // B keeps trying and keeps failing while A renews.
    const int attempts = b.attempts();
    QTRY_VERIFY(b.attempts() >= attempts + 10);
    QVERIFY(!b.isLeader());
    QCOMPARE(bStarted.size(), 0);
    QSignalSpy aStopped(&a, &operators::LeaderElector::stoppedLeading);
    a.stop(); // releases
    QCOMPARE(aStopped.size(), 1);
    QVERIFY(bStarted.wait(5000));
    QCOMPARE(leaseHolder(), u"b"_s);
    QCOMPARE_JSON(lease()["spec"]["leaseTransitions"], json(1));
}

void tst_LeaderElection::expiredLeaseIsTakenOver()
{
    auto a = std::make_unique<operators::LeaderElector>(
        m_client.get(), *m_clock, leaseOptions(u"a"_s));
    QSignalSpy aStarted(a.get(), &operators::LeaderElector::startedLeading);
    a->start();
    QVERIFY(aStarted.wait(5000));
    operators::LeaderElector b(m_client.get(), *m_clock, leaseOptions(u"b"_s));
    QSignalSpy bStarted(&b, &operators::LeaderElector::startedLeading);
    b.start();
    QTRY_COMPARE(b.holder(), u"a"_s);
    QElapsedTimer sinceKill;
    a.reset(); // a crash: no release
    sinceKill.start();
    QVERIFY(bStarted.wait(5000));
    // Not before A's lease (1 s, judged by B's own clock from the last renewal it saw) expired.
    QVERIFY2(sinceKill.elapsed() >= 700, qPrintable(QString::number(sinceKill.elapsed())));
    QCOMPARE(leaseHolder(), u"b"_s);
    QCOMPARE_JSON(lease()["spec"]["leaseTransitions"], json(1));
}

void tst_LeaderElection::twoOperatorsOneActsKillingItHandsOver()
{
    auto make = [this](const QString &identity) {
        operators::CustomAppOperator::Options options;
        options.reconciler.namespace_ = u"default"_s;
        options.leaderElection = true;
        options.lease = leaseOptions(identity);
        return std::make_unique<operators::CustomAppOperator>(
            m_fx->clientConfig(), *m_clock, options);
    };
    std::unique_ptr<operators::CustomAppOperator> ops[2] = { make(u"one"_s), make(u"two"_s) };
    for (auto &op : ops)
        op->start();
    QTRY_VERIFY_WITH_TIMEOUT(ops[0]->isActive() != ops[1]->isActive(), 5000);
    const int leader = ops[0]->isActive() ? 0 : 1;
    const int follower = 1 - leader;
    QCOMPARE(leaseHolder(), ops[leader]->elector()->identity());
    QTRY_COMPARE(ops[follower]->elector()->holder(), ops[leader]->elector()->identity());

    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"le"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"le"_s), u"Ready"_s, 10000);
    QVERIFY(!ops[leader]->loop().history(u"default/le"_s).isEmpty());
    QVERIFY(ops[follower]->loop().history(u"default/le"_s).isEmpty()); // it never acted
    QCOMPARE(ops[follower]->reconciler().writeCount(), qint64(0));
    QVERIFY(ops[follower]->loop().isPaused());

    ops[leader].reset(); // killed: the lease is not released
    QTRY_VERIFY_WITH_TIMEOUT(ops[follower]->isActive(), 5000);
    QCOMPARE(leaseHolder(), ops[follower]->elector()->identity());
    QVERIFY(m_fx->mergePatch(customApps, u"le"_s, { { "spec", { { "replicas", 2 } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->state(u"le"_s) == u"Ready"_s
                                 && m_fx->get(customApps, u"le"_s)["status"]["readyReplicas"]
                                     == json(2),
                             10000);
    QVERIFY(ops[follower]->reconciler().writeCount() > 0);
}

QTEST_GUILESS_MAIN(tst_LeaderElection)
#include "tst_leaderelection.moc"
