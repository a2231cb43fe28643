#include "controller/cluster/server/faultinjector.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace std::chrono_literals;

class tst_FaultInjector : public QObject
{
    Q_OBJECT

private slots:
    void noFaultsByDefault();
    void latencyWithinJitter_data();
    void latencyWithinJitter();
    void errorRates_data();
    void errorRates();
    void throttleResponse();
    void serverErrorResponses();
    void watchDrops();
    void settingsAreClamped();
    void historyWindowHook();
    void concurrentAdjustment();
};

void tst_FaultInjector::noFaultsByDefault()
{
    FaultInjector faults(1);
    QCOMPARE(faults.nextLatency(), 0ms);
    for (int i = 0; i < 100; ++i)
        QVERIFY(!faults.nextInjectedError().has_value());
    QVERIFY(!faults.dropWatchBeforeEvent());
    QVERIFY(!faults.watchEventLimitReached(1'000'000));
    QCOMPARE(faults.injectedErrors(), 0);
}

void tst_FaultInjector::latencyWithinJitter_data()
{
    QTest::addColumn<int>("latency");
    QTest::addColumn<int>("jitter");
    QTest::newRow("fixed") << 250 << 0;
    QTest::newRow("jitter only") << 0 << 40;
    QTest::newRow("both") << 100 << 50;
}

void tst_FaultInjector::latencyWithinJitter()
{
    QFETCH(int, latency);
    QFETCH(int, jitter);
    FaultInjector faults(7);
    faults.setLatency(std::chrono::milliseconds(latency), std::chrono::milliseconds(jitter));
    std::int64_t minimum = INT64_MAX;
    std::int64_t maximum = 0;
    for (int i = 0; i < 2000; ++i) {
        const auto value = faults.nextLatency().count();
        minimum = std::min<std::int64_t>(minimum, value);
        maximum = std::max<std::int64_t>(maximum, value);
    }
    QVERIFY(minimum >= latency);
    QVERIFY(maximum <= latency + jitter);
    if (jitter > 0)
        QVERIFY(maximum > minimum); // it does vary
    else
        QCOMPARE(maximum, latency);
}

void tst_FaultInjector::errorRates_data()
{
    QTest::addColumn<double>("serverErrorRate");
    QTest::addColumn<double>("throttleRate");
    QTest::addColumn<double>("expectedFraction");
    QTest::newRow("none") << 0.0 << 0.0 << 0.0;
    QTest::newRow("all 5xx") << 1.0 << 0.0 << 1.0;
    QTest::newRow("all 429") << 0.0 << 1.0 << 1.0;
    QTest::newRow("a fifth 5xx") << 0.2 << 0.0 << 0.2;
    QTest::newRow("a tenth 429 plus a tenth of the rest 5xx") << 0.1 << 0.1 << 0.19;
}

void tst_FaultInjector::errorRates()
{
    QFETCH(double, serverErrorRate);
    QFETCH(double, throttleRate);
    QFETCH(double, expectedFraction);
    FaultInjector faults(99);
    faults.setServerErrorRate(serverErrorRate);
    faults.setThrottleRate(throttleRate, 3);
    const int total = 20000;
    int failed = 0;
    for (int i = 0; i < total; ++i) {
        if (faults.nextInjectedError())
            ++failed;
    }
    const double fraction = double(failed) / total;
    QVERIFY2(std::abs(fraction - expectedFraction) < 0.02,
             qPrintable(u"fraction %1, expected %2"_s.arg(fraction).arg(expectedFraction)));
    QCOMPARE(faults.injectedErrors(), failed);
}

void tst_FaultInjector::throttleResponse()
{
    FaultInjector faults(3);
    faults.setThrottleRate(1.0, 5);
    const auto response = faults.nextInjectedError();
    QVERIFY(response.has_value());
    QCOMPARE(response->status, 429);
    QCOMPARE(response->headers.size(), 1);
    QCOMPARE(response->headers.first().first, QByteArray("Retry-After"));
    QCOMPARE(response->headers.first().second, QByteArray("5"));
    QVERIFY(response->body.endsWith('\n'));
    QCOMPARE(
        response->body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":5},"code":429})"
            "\n"));
}

void tst_FaultInjector::serverErrorResponses()
{
    FaultInjector faults(11);
    faults.setServerErrorRate(1.0);
    QSet<int> seen;
    for (int i = 0; i < 50; ++i) {
        const auto response = faults.nextInjectedError();
        QVERIFY(response.has_value());
        seen.insert(response->status);
        const auto status = nlohmann::json::parse(response->body.toStdString(), nullptr, false);
        QVERIFY(!status.is_discarded());
        QCOMPARE(status["code"].get<int>(), response->status);
        QCOMPARE(QString::fromStdString(status["status"].get<std::string>()), u"Failure"_s);
        QVERIFY(response->headers.isEmpty());
    }
    QCOMPARE(seen, QSet<int>({ 500, 503 }));
}

void tst_FaultInjector::watchDrops()
{
    FaultInjector faults(5);
    faults.setDropWatchAfterEvents(3);
    QVERIFY(!faults.watchEventLimitReached(2));
    QVERIFY(faults.watchEventLimitReached(3));
    faults.setWatchDropRate(0.25);
    int drops = 0;
    for (int i = 0; i < 4000; ++i)
        drops += faults.dropWatchBeforeEvent() ? 1 : 0;
    QVERIFY2(drops > 850 && drops < 1150, qPrintable(QString::number(drops)));
    faults.reset();
    QVERIFY(!faults.watchEventLimitReached(100));
    QVERIFY(!faults.dropWatchBeforeEvent());
}

void tst_FaultInjector::settingsAreClamped()
{
    FaultInjector faults(1);
    FaultSettings settings;
    settings.serverErrorRate = 7;
    settings.throttleRate = -1;
    settings.watchDropRate = 2;
    settings.latency = -5ms;
    settings.retryAfterSeconds = 0;
    faults.setSettings(settings);
    const FaultSettings applied = faults.settings();
    QCOMPARE(applied.serverErrorRate, 1.0);
    QCOMPARE(applied.throttleRate, 0.0);
    QCOMPARE(applied.watchDropRate, 1.0);
    QCOMPARE(applied.latency, 0ms);
    QCOMPARE(applied.retryAfterSeconds, 1);
}

void tst_FaultInjector::historyWindowHook()
{
    FaultInjector faults(1);
    QVERIFY(!faults.setHistoryWindow(10));
    std::int64_t window = -1;
    faults.setHistoryWindowHook([&window](std::int64_t events) { window = events; });
    QVERIFY(faults.setHistoryWindow(25));
    QCOMPARE(window, 25);
}

void tst_FaultInjector::concurrentAdjustment()
{
    // Adjusting from one thread while the server thread asks must be safe (run under TSan/ASan
    // to see a race; here: no crash, consistent settings at the end).
    FaultInjector faults(1);
    std::atomic<bool> asking{ false };
    std::atomic<bool> stop{ false };
    std::thread adjuster([&] {
        // Adjust while the other thread asks (on a loaded machine this thread could otherwise
        // be done before that one asked once).
        while (!asking)
            std::this_thread::yield();
        for (int i = 0; i < 20000; ++i) {
            faults.setLatency(std::chrono::milliseconds(i % 10), 2ms);
            faults.setServerErrorRate((i % 3) / 2.0);
            faults.setThrottleRate((i % 5) / 4.0, i % 4 + 1);
        }
        faults.reset();
        faults.setLatency(4ms);
        stop = true;
    });
    std::int64_t asked = 0;
    bool inRange = true; // checked after the join: a failed QVERIFY here would skip it
    do {
        const auto latency = faults.nextLatency();
        inRange = inRange && latency >= 0ms && latency <= 11ms;
        (void)faults.nextInjectedError();
        ++asked;
        asking = true;
    } while (!stop);
    adjuster.join();
    QVERIFY(inRange);
    QVERIFY(asked > 0);
    QCOMPARE(faults.nextLatency(), 4ms);
    QCOMPARE(faults.settings().serverErrorRate, 0.0);
}

QTEST_GUILESS_MAIN(tst_FaultInjector)
#include "tst_faultinjector.moc"
