// Fault scenarios on single requests (issue 9): added latency, 429 and 5xx answers with
// Retry-After, 5xx without. The client honours Retry-After as client-go's rest.Request does
// (429 or 5xx with the header: wait that many seconds, send again, at most 10 times); the operator
// and the console's informer recover on their own and end equal to the server's state.
#include "faultfixture.h"

using namespace faults;
using nlohmann::json;

class tst_FaultsRequests final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void retryAfterIsHonoured_data();
    void retryAfterIsHonoured();
    void addedLatency();
    void throttledWithRetryAfter();
    void serverErrorsWithRetryAfter();
    void serverErrorsWithoutRetryAfter();

private:
    void createApps(int count);
    FaultFixture m_fx;
};

void tst_FaultsRequests::init()
{
    const QString error = m_fx.start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void tst_FaultsRequests::cleanup()
{
    m_fx.stop();
}

void tst_FaultsRequests::createApps(int count)
{
    for (int i = 0; i < count; ++i)
        QVERIFY(m_fx.createApp(u"app-"_s + QString::number(i), 1 + i % 2));
}

void tst_FaultsRequests::retryAfterIsHonoured_data()
{
    QTest::addColumn<cluster::FaultSettings>("faults");
    QTest::addColumn<int>("status");
    QTest::addColumn<QList<qint64>>("delays"); // what the client waited before each retry (ms)
    cluster::FaultSettings throttled;
    throttled.throttleRate = 1;
    throttled.retryAfterSeconds = 3;
    QTest::newRow("429 Retry-After 3: ten retries, then the error")
        << throttled << 429 << QList<qint64>(10, 3000);
    cluster::FaultSettings unavailable;
    unavailable.serverErrorRate = 1;
    unavailable.serverErrorRetryAfterSeconds = 2;
    QTest::newRow("5xx Retry-After 2") << unavailable << 0 << QList<qint64>(10, 2000);
    cluster::FaultSettings bare;
    bare.serverErrorRate = 1;
    QTest::newRow("5xx without Retry-After: no retry") << bare << 0 << QList<qint64>();
}

void tst_FaultsRequests::retryAfterIsHonoured()
{
    QFETCH(cluster::FaultSettings, faults);
    QFETCH(int, status);
    QFETCH(QList<qint64>, delays);
    createApps(1);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);
    kube::RestClient client(m_fx.cluster().clientConfig());
    QList<qint64> waited;
    kube::RestClient::RetryPolicy policy;
    policy.scheduler = [&](std::chrono::milliseconds delay, std::function<void()> action) {
        waited << qint64(delay.count());
        QTimer::singleShot(0, &client, std::move(action)); // recorded, not waited for
    };
    client.setRetryPolicy(policy);
    m_fx.injector().setSettings(faults);
    const auto before = m_fx.injector().injectedErrors();

    std::optional<kube::RestClient::JsonResult> got;
    client.get(CustomAppsRef, u"default"_s, u"app-0"_s, [&](auto result) {
        got.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(got.has_value(), FaultFixture::WaitMs);
    QVERIFY(!*got);
    const apimachinery::ApiError &error = got->error();
    if (status)
        QCOMPARE(error.code, status);
    else
        QVERIFY2(error.code == 500 || error.code == 503, qPrintable(error.toString()));
    QCOMPARE(waited, delays);
    QCOMPARE(client.retriesAfterRetryAfter(), qint64(delays.size()));
    QVERIFY(m_fx.injector().injectedErrors() - before >= qint64(delays.size() + 1));
    QCOMPARE(error.retryAfterSeconds, delays.isEmpty() ? 0 : int(delays.first() / 1000));

    // Once the server recovers, the retried request succeeds.
    std::optional<kube::RestClient::JsonResult> later;
    int calls = 0;
    policy.scheduler = [&](std::chrono::milliseconds, std::function<void()> action) {
        if (++calls == 3)
            m_fx.injector().reset();
        QTimer::singleShot(0, &client, std::move(action));
    };
    client.setRetryPolicy(policy);
    m_fx.injector().setSettings(faults);
    client.get(CustomAppsRef, u"default"_s, u"app-0"_s, [&](auto result) {
        later.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(later.has_value(), FaultFixture::WaitMs);
    QCOMPARE(bool(*later), !delays.isEmpty());
    m_fx.injector().reset();
    QVERIFY2(m_fx.recoveryProblem().isEmpty(), qPrintable(m_fx.recoveryProblem()));
}

void tst_FaultsRequests::addedLatency()
{
    m_fx.injector().setLatency(std::chrono::milliseconds(60), std::chrono::milliseconds(60));
    createApps(4);
    QVERIFY(m_fx.scaleApp(u"app-1"_s, 3));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), FaultFixture::WaitMs);
    // Still slow: the operator converged through it, not after it.
    QVERIFY(m_fx.injector().settings().latency.count() == 60);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(m_fx.informer().size(), 4);
}

void tst_FaultsRequests::throttledWithRetryAfter()
{
    auto *client = m_fx.op().reconciler().client();
    const auto retriesBefore = client->retriesAfterRetryAfter();
    m_fx.injector().setThrottleRate(0.25, 1);
    createApps(3);
    QVERIFY(m_fx.scaleApp(u"app-0"_s, 2));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.injector().injectedErrors() >= 3, FaultFixture::WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), 45000);
    // The operator's client waited and retried instead of failing its reconciles.
    QVERIFY(client->retriesAfterRetryAfter() > retriesBefore);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void tst_FaultsRequests::serverErrorsWithRetryAfter()
{
    auto *client = m_fx.op().reconciler().client();
    cluster::FaultSettings faults;
    faults.serverErrorRate = 0.25;
    faults.serverErrorRetryAfterSeconds = 1;
    m_fx.injector().setSettings(faults);
    createApps(3);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.injector().injectedErrors() >= 3, FaultFixture::WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), 45000);
    QVERIFY(client->retriesAfterRetryAfter() > 0);
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void tst_FaultsRequests::serverErrorsWithoutRetryAfter()
{
    // Nothing to wait for from the server: reconciles fail and are requeued with the loop's
    // backoff, watches reconnect with the reflector's.
    m_fx.injector().setServerErrorRate(0.3);
    m_fx.injector().setDropWatchAfterEvents(4); // so that reconnects meet the errors too
    createApps(4);
    QVERIFY(m_fx.scaleApp(u"app-2"_s, 3));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.injector().injectedErrors() >= 3, FaultFixture::WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(m_fx.convergenceProblem().isEmpty(), 45000);
    int failed = 0;
    for (const QString &name : m_fx.wantedReplicas().keys()) {
        for (const auto &record : m_fx.op().loop().history(u"default/"_s + name))
            failed += record.result == reconcile::ReconcileRecord::Result::Error ? 1 : 0;
    }
    QVERIFY2(failed > 0, "no reconcile met an injected error");
    const QString problem = m_fx.recoveryProblem();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

QTEST_GUILESS_MAIN(tst_FaultsRequests)
#include "tst_faultsrequests.moc"
