// The churn mutator: status writes at a given rate through the cluster's write path, each a real
// watch event with a new resourceVersion and its send time; its /debug/reconscope/churn endpoint.
#include "apitestsupport.h"

#include "controller/cluster/churn.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using namespace reconscope::controller::cluster::testsupport;

class tst_Churn final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void sentAt_data();
    void sentAt();
    void watcherSeesTheRateWithIncreasingResourceVersions();
    void keepsOtherConditionsAndFollowsCreatesAndDeletes();
    void namespaceLimitsTheTargets();
    void refusesUnknownResourcesAndBadRates();
    void endpoint();

private:
    void createApps(int count, const QString &ns = u"default"_s);

    std::unique_ptr<Cluster> m_cluster;
    std::unique_ptr<ApiServer> m_api;
    std::unique_ptr<ChurnMutator> m_churn;
    const ResourceRef m_apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
};

void tst_Churn::init()
{
    m_cluster = std::make_unique<Cluster>();
    m_api = std::make_unique<ApiServer>(m_cluster.get());
    m_churn = std::make_unique<ChurnMutator>(m_cluster.get());
}

void tst_Churn::cleanup()
{
    m_churn.reset();
    m_api.reset();
    m_cluster.reset();
}

void tst_Churn::createApps(int count, const QString &ns)
{
    for (int i = 0; i < count; ++i) {
        const auto created = m_cluster->create(m_apps, ns, customApp("app-" + std::to_string(i)));
        QVERIFY2(created.ok(), qPrintable(created ? QString() : created.error().message));
    }
}

void tst_Churn::sentAt_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<qint64>("expected"); // -1: not a churn message
    QTest::newRow("with sequence") << u"churn-ts 123456789 seq 7"_s << qint64(123456789);
    QTest::newRow("bare") << u"churn-ts 42"_s << qint64(42);
    QTest::newRow("other message") << u"all replicas ready"_s << qint64(-1);
    QTest::newRow("not a number") << u"churn-ts soon seq 1"_s << qint64(-1);
}

void tst_Churn::sentAt()
{
    QFETCH(QString, message);
    QFETCH(qint64, expected);
    const auto sent = ChurnMutator::sentAt(message);
    QCOMPARE(sent.value_or(-1), expected);
}

void tst_Churn::watcherSeesTheRateWithIncreasingResourceVersions()
{
    createApps(50);
    const auto response
        = m_api->handle(request("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion())));
    QCOMPARE(response.status, 200);
    const auto sink = startWatch(response);

    const double rate = 400;
    QVERIFY(m_churn->start(u"customapps"_s, rate).ok());
    QVERIFY(m_churn->isRunning());
    QCOMPARE(m_churn->targetCount(), 50);
    QElapsedTimer elapsed;
    elapsed.start();
    QTRY_VERIFY_WITH_TIMEOUT(sink->events.size() >= 600, 20000);
    m_churn->stop();
    const double seconds = double(elapsed.nsecsElapsed()) / 1e9;
    QVERIFY(!m_churn->isRunning());
    const qsizetype seen = qsizetype(sink->events.size());
    // Never ahead of the rate (its clock starts a moment before ours); behind only when the
    // machine cannot keep up (then it skips).
    QVERIFY2(double(seen) <= rate * (seconds + 0.05) + 1,
             qPrintable(u"%1 in %2 s; mutator state %3"_s.arg(seen).arg(seconds).arg(
                 QString::fromStdString(m_churn->state().dump()))));
    QCOMPARE(m_churn->applied() + m_churn->failed(), seen);
    QCOMPARE(m_churn->failed(), 0);

    qint64 previousRv = 0;
    QSet<QString> names;
    const qint64 now = ChurnMutator::monotonicNs();
    for (const json &event : sink->events) {
        QCOMPARE(str(event["type"]), u"MODIFIED"_s);
        const json &object = event["object"];
        const qint64 rv = str(object["metadata"]["resourceVersion"]).toLongLong();
        QVERIFY2(rv > previousRv, qPrintable(u"%1 after %2"_s.arg(rv).arg(previousRv)));
        previousRv = rv;
        names.insert(str(object["metadata"]["name"]));
        std::optional<qint64> sent;
        for (const json &condition : object["status"]["conditions"]) {
            if (str(condition["type"]) == u"Churn") {
                QCOMPARE(str(condition["status"]), u"True"_s);
                QCOMPARE(str(condition["reason"]), u"Churn"_s);
                QVERIFY(condition["observedGeneration"] == json(1));
                sent = ChurnMutator::sentAt(str(condition["message"]));
            }
        }
        QVERIFY(sent);
        QVERIFY(*sent <= now && *sent > now - qint64(120) * 1000000000);
    }
    // Round robin: every object was changed.
    QCOMPARE(names.size(), 50);
    // Each object's first change reads it and writes its status; the later ones patch the Churn
    // condition, which the cluster applies to the stored status alone.
    QCOMPARE(m_cluster->statusPatchesInPlace(), m_churn->applied() - 50);
    // The rate made: the offered one times the share of the changes due that were made; the
    // running time stops with the churn.
    const json state = m_churn->state();
    const double made = state["appliedPerSecond"].get<double>();
    QVERIFY2(made > 0 && made <= rate, qPrintable(QString::number(made)));
    QVERIFY(state["seconds"].get<double>() > 0);
    QTest::qWait(20);
    QCOMPARE(m_churn->state()["seconds"].get<double>(), state["seconds"].get<double>());

    // Stopped means stopped.
    const qsizetype atStop = qsizetype(sink->events.size());
    QTest::qWait(100);
    QCOMPARE(qsizetype(sink->events.size()), atStop);
}

void tst_Churn::keepsOtherConditionsAndFollowsCreatesAndDeletes()
{
    createApps(2);
    const QByteArray ready
        = R"({"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized","message":"ok","lastTransitionTime":"2026-11-29T10:00:00Z"}]}})";
    QVERIFY(m_cluster->patch(m_apps, u"default"_s, u"app-0"_s, PatchType::Merge, ready, true).ok());
    QVERIFY(m_churn->start(u"customapps.infrastructure.internal.net"_s, 200).ok());
    QTRY_VERIFY_WITH_TIMEOUT(m_churn->applied() >= 4, 20000);
    // Another writer moves the conditions: the next change finds its condition again.
    const QByteArray moved
        = R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"Synchronized","message":"ok","lastTransitionTime":"2026-11-29T10:00:00Z"},{"type":"Available","status":"True","reason":"Synchronized","message":"up","lastTransitionTime":"2026-11-29T10:00:00Z"}]}})";
    QVERIFY(m_cluster->patch(m_apps, u"default"_s, u"app-0"_s, PatchType::Merge, moved, true).ok());
    // An object created while it runs joins the round robin; a deleted one leaves it.
    QVERIFY(m_cluster->create(m_apps, u"default"_s, customApp("late")).ok());
    QVERIFY(m_cluster->remove(m_apps, u"default"_s, u"app-1"_s).ok());
    const qint64 before = m_churn->applied();
    QTRY_VERIFY_WITH_TIMEOUT(m_churn->applied() >= before + 4, 20000);
    m_churn->stop();
    QCOMPARE(m_churn->targetCount(), 2);
    QCOMPARE(m_churn->failed(), 0);

    const auto app0 = m_cluster->get(m_apps, u"default"_s, u"app-0"_s);
    QVERIFY(app0.ok());
    const json &conditions = app0.value()["status"]["conditions"];
    QCOMPARE(conditions.size(), std::size_t(3));
    QCOMPARE(str(conditions[0]["type"]), u"Ready"_s);
    QCOMPARE(str(conditions[0]["message"]), u"ok"_s);
    QCOMPARE(str(conditions[1]["type"]), u"Available"_s);
    QCOMPARE(str(conditions[1]["message"]), u"up"_s);
    QVERIFY(app0.value()["status"]["observedGeneration"] == json(1));
    QCOMPARE(str(conditions[2]["type"]), u"Churn"_s);
    QVERIFY(ChurnMutator::sentAt(str(conditions[2]["message"])));
    // Status writes never touch the spec's generation.
    QVERIFY(app0.value()["metadata"]["generation"] == json(1));
    const auto late = m_cluster->get(m_apps, u"default"_s, u"late"_s);
    QVERIFY(late.ok());
    QVERIFY(late.value()["status"]["conditions"].is_array());
}

void tst_Churn::namespaceLimitsTheTargets()
{
    QVERIFY(m_cluster
                ->create({ {}, u"v1"_s, u"namespaces"_s },
                         {},
                         json{ { "apiVersion", "v1" },
                               { "kind", "Namespace" },
                               { "metadata", { { "name", "other" } } } })
                .ok());
    createApps(3);
    createApps(2, u"other"_s);
    // Objects that existed before the mutator are found by a list when it starts.
    ChurnMutator late(m_cluster.get());
    QVERIFY(late.start(u"customapps"_s, 200, u"other"_s).ok());
    QCOMPARE(late.targetCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(late.applied() >= 6, 20000);
    late.stop();
    const auto untouched = m_cluster->get(m_apps, u"default"_s, u"app-0"_s);
    QVERIFY(untouched.ok());
    QVERIFY(!untouched.value().contains("status"));
    const auto touched = m_cluster->get(m_apps, u"other"_s, u"app-1"_s);
    QVERIFY(touched.ok());
    QVERIFY(touched.value().contains("status"));
}

void tst_Churn::refusesUnknownResourcesAndBadRates()
{
    QVERIFY(!m_churn->start(u"widgets"_s, 10).ok());
    QVERIFY(!m_churn->start(u"customapps.example.com"_s, 10).ok());
    // ConfigMaps have no status subresource.
    QVERIFY(!m_churn->start(u"configmaps"_s, 10).ok());
    QVERIFY(!m_churn->start(u"customapps"_s, 0).ok());
    QVERIFY(!m_churn->start(u"customapps"_s, -5).ok());
    QVERIFY(!m_churn->isRunning());
}

void tst_Churn::endpoint()
{
    createApps(5);
    QPointer<ChurnMutator> mutator(m_churn.get());
    int inner = 0;
    const ApiHandler handler = withChurnEndpoint(
        [this, &inner](const ApiRequest &request) {
            ++inner;
            return m_api->handle(request);
        },
        mutator);

    // Other paths (including other /debug/ ones) go to the API.
    QCOMPARE(handler(request("GET", customApps)).status, 200);
    QCOMPARE(handler(request("GET", u"/debug/pprof"_s)).status, 404);
    QCOMPARE(inner, 2);

    auto answer
        = handler(request("POST", u"/debug/reconscope/churn?rate=300&resource=customapps"_s));
    QCOMPARE(answer.status, 200);
    json state = parse(answer.body);
    QVERIFY(state["running"] == json(true));
    QVERIFY(state["rate"] == json(300.0));
    QCOMPARE(str(state["resource"]), u"customapps.infrastructure.internal.net"_s);
    QVERIFY(state["objects"] == json(5));
    QTRY_VERIFY_WITH_TIMEOUT(m_churn->applied() >= 10, 20000);

    answer = handler(request("GET", u"/debug/reconscope/churn"_s));
    QCOMPARE(answer.status, 200);
    QVERIFY(parse(answer.body)["applied"].get<qint64>() >= 10);

    // Viewers may not, and neither may anything but GET and POST.
    answer = handler(request("POST", u"/debug/reconscope/churn?rate=0"_s, {}, {}, viewer()));
    QCOMPARE(answer.status, 403);
    QCOMPARE(str(parse(answer.body)["reason"]), u"Forbidden"_s);
    QVERIFY(m_churn->isRunning());
    QCOMPARE(handler(request("DELETE", u"/debug/reconscope/churn"_s)).status, 405);
    QCOMPARE(handler(request("POST", u"/debug/reconscope/churn?rate=fast"_s)).status, 400);
    QCOMPARE(
        handler(request("POST", u"/debug/reconscope/churn?rate=5&resource=configmaps"_s)).status,
        400);

    answer = handler(request("POST", u"/debug/reconscope/churn?rate=0"_s));
    QCOMPARE(answer.status, 200);
    QVERIFY(parse(answer.body)["running"] == json(false));
    QVERIFY(!m_churn->isRunning());
    QCOMPARE(inner, 2);
}

QTEST_GUILESS_MAIN(tst_Churn)
#include "tst_churn.moc"
