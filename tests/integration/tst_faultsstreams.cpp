// Fault scenarios on watches and the server itself (issue 9): dropped watch streams, history
// compaction forcing 410 Gone, the API server killed and restarted, and 409 storms. The operator
// and the console's informer recover on their own (resume, relist, reconnect with backoff, retry
// the write) and end equal to the server's state; the informer's connection states are what the
// console's status bar shows.
//
// A restart is kube-apiserver restarting with etcd intact: same port, certificates, tokens and
// data (EmbeddedServer::stop()/start()); watches are cut, resourceVersions continue.
#include "faultfixture.h"

using namespace faults;
using nlohmann::json;
using Phase = kube::ReflectorState::Phase;

class tst_FaultsStreams final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void droppedWatchStreams();
    void compactionForcesRelist();
    void serverKilledAndRestarted();
    void conflictStorm();
    void concurrentWriterStorm();

private:
    FaultFixture m_fx;
};

void tst_FaultsStreams::init()
{
    const QString error = m_fx.start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void tst_FaultsStreams::cleanup()
{
    m_fx.stop();
}

void tst_FaultsStreams::droppedWatchStreams()
{
    const auto dropsBefore = m_fx.injector().droppedWatches();
    cluster::FaultSettings faults;
    faults.dropWatchAfterEvents = 3;
    faults.watchDropRate = 0.05;
    m_fx.injector().setSettings(faults);
    for (int i = 0; i < 5; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1));
    for (int round = 2; round <= 3; ++round) {
        QTest::qWait(100);
        for (int i = 0; i < 5; i += 2)
            QVERIFY(m_fx.scaleApp(u"app-"_s + QString::number(i), round));
    }
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);
    QVERIFY(m_fx.injector().droppedWatches() > dropsBefore);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(m_fx.informer().size(), 5);
}

void tst_FaultsStreams::compactionForcesRelist()
{
    for (int i = 0; i < 4; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);

    // Every watch is cut at its next event; before the clients can reconnect (nothing here
    // returns to the event loop) objects change and the history is compacted, so resuming
    // answers 410 Gone and they must relist.
    m_fx.injector().setDropWatchAfterEvents(1);
    QVERIFY(m_fx.scaleApp(u"app-0"_s, 2));
    QVERIFY(m_fx.cluster().remove(customApps, u"app-3"_s));
    QVERIFY(m_fx.createApp(u"late"_s, 2));
    m_fx.cluster().cluster()->compact();
    m_fx.injector().setDropWatchAfterEvents(0);

    QTRY_VERIFY_WITH_TIMEOUT(m_fx.sawPhase(Phase::Relisting, u"410"_s), FaultFixture::WaitMs);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(!m_fx.informer().entry(u"default/app-3"_s));
    QVERIFY(m_fx.informer().entry(u"default/late"_s));
    QCOMPARE(m_fx.cluster().get(deployments, u"late"_s)["spec"]["replicas"].get<int>(), 2);
}

void tst_FaultsStreams::serverKilledAndRestarted()
{
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);

    const quint16 port = m_fx.server().port();
    m_fx.server().stop();
    QTRY_COMPARE_WITH_TIMEOUT(
        m_fx.informer().state().phase, Phase::Reconnecting, FaultFixture::WaitMs);
    // What the console's status bar shows meanwhile.
    QVERIFY2(m_fx.informer().state().toString().startsWith(u"reconnecting in "_s),
             qPrintable(m_fx.informer().state().toString()));
    QVERIFY(!m_fx.informer().state().lastError.isEmpty());
    // Changes while the API server is down (written to storage, as etcd would keep them).
    QVERIFY(m_fx.scaleApp(u"app-1"_s, 3));
    QVERIFY(m_fx.cluster().remove(customApps, u"app-2"_s));
    QVERIFY(m_fx.createApp(u"offline"_s, 2));
    QTest::qWait(300); // several failed reconnects (backoff 20 ms .. 400 ms)
    QVERIFY(m_fx.server().start().ok());
    QCOMPARE(m_fx.server().port(), port);

    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(m_fx.sawPhase(Phase::Reconnecting));
    QCOMPARE(m_fx.cluster().get(deployments, u"app-1"_s)["spec"]["replicas"].get<int>(), 3);
    QVERIFY(m_fx.cluster().get(deployments, u"offline"_s).is_object());
    QVERIFY(!m_fx.informer().entry(u"default/app-2"_s));
}

void tst_FaultsStreams::conflictStorm()
{
    // Half of all updates answer 409 as if another writer had won: status writes are retried in
    // place (fresh read) and reconciles requeued, until everything converges.
    const auto conflictsBefore = m_fx.op().reconciler().conflictCount();
    m_fx.injector().setConflictRate(0.5);
    for (int i = 0; i < 4; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1 + i % 2));
    QVERIFY(m_fx.scaleApp(u"app-0"_s, 3));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.injector().injectedConflicts() >= 3, FaultFixture::WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);
    QVERIFY(m_fx.op().reconciler().conflictCount() > conflictsBefore);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void tst_FaultsStreams::concurrentWriterStorm()
{
    // Real conflicts: another writer changes the spec of the same objects as fast as it can while
    // the operator reconciles them; the operator's writes carry stale resourceVersions and fail.
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1));
    int step = 0;
    QTimer writer;
    writer.setInterval(5);
    QObject::connect(&writer, &QTimer::timeout, &writer, [&] {
        const int i = step++;
        if (i >= 120) {
            writer.stop();
            return;
        }
        (void)m_fx.scaleApp(u"app-"_s + QString::number(i % 3), 1 + (i / 3) % 4);
    });
    writer.start();
    QTRY_VERIFY_WITH_TIMEOUT(step >= 120, FaultFixture::WaitMs);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    for (int i = 0; i < 3; ++i) {
        const QString name = u"app-"_s + QString::number(i);
        QCOMPARE(m_fx.cluster().get(deployments, name)["spec"]["replicas"].get<int>(),
                 m_fx.wantedReplicas().value(name));
    }
}

QTEST_GUILESS_MAIN(tst_FaultsStreams)
#include "tst_faultsstreams.moc"
