// Reconcile latency from the watch stream (issue 23): generation bump -> observedGeneration caught
// up -> Ready or Degraded, per object and per resource. A seeded sequence of known delays, at an
// injected time, gives exact nearest-rank percentiles; the census starts nothing; a newer bump
// restarts the measurement; an object that catches up but is not settled yet completes later.
#include "models/reconcilelatency.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using S = LifecycleState;

namespace {

const QDateTime T0 = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);

ObjectSummary summary(const QString &name, qint64 generation, std::optional<qint64> observed)
{
    ObjectSummary s;
    s.name = name;
    s.namespaceName = u"ns"_s;
    s.key = u"ns/"_s + name;
    s.generation = generation;
    s.observedGeneration = observed;
    return s;
}

} // namespace

class tst_ReconcileLatency final : public QObject
{
    Q_OBJECT

private slots:
    void percentilesOfKnownDelaysAreExact();
    void caughtUpThenSettled();
    void censusStartsNothingAndNewerBumpRestarts();
    void nearestRank_data();
    void nearestRank();
};

void tst_ReconcileLatency::percentilesOfKnownDelaysAreExact()
{
    ReconcileLatency latency;
    // 100 objects of resource a: object i settles i seconds after its bump (observed at i - 0.5 s);
    // 10 of resource b: 10 * i seconds.
    for (int i = 1; i <= 100; ++i) {
        const QString name = u"o%1"_s.arg(i);
        QVERIFY(!latency.observe(u"a"_s, summary(name, 1, 1), S::Ready, T0));
        QVERIFY(!latency.observe(u"a"_s, summary(name, 2, 1), S::Reconciling, T0.addSecs(10)));
        QVERIFY(!latency.observe(
            u"a"_s, summary(name, 2, 2), S::Reconciling, T0.addMSecs(10'000 + i * 1000 - 500)));
        const auto sample
            = latency.observe(u"a"_s, summary(name, 2, 2), S::Ready, T0.addSecs(10 + i));
        QVERIFY(sample);
        QCOMPARE(sample->settledMs, i * 1000);
        QCOMPARE(sample->observedMs, i * 1000 - 500);
        QCOMPARE(sample->generation, 2);
    }
    for (int i = 1; i <= 10; ++i) {
        const QString name = u"b%1"_s.arg(i);
        latency.observe(u"b"_s, summary(name, 1, 1), S::Ready, T0);
        latency.observe(u"b"_s, summary(name, 2, 1), S::Reconciling, T0);
        QVERIFY(latency.observe(u"b"_s, summary(name, 2, 2), S::Degraded, T0.addSecs(10 * i)));
    }
    const LatencySummary a = latency.summary(u"a"_s);
    QCOMPARE(a.count, 100);
    QCOMPARE(a.p50, 50'000);
    QCOMPARE(a.p95, 95'000);
    QCOMPARE(a.p99, 99'000);
    QCOMPARE(a.max, 100'000);
    const LatencySummary b = latency.summary(u"b"_s);
    QCOMPARE(b.count, 10);
    QCOMPARE(b.p50, 50'000);
    QCOMPARE(b.p95, 100'000);
    QCOMPARE(b.p99, 100'000);
    QCOMPARE(latency.resources(), QStringList({ u"a"_s, u"b"_s }));
    const QList<LatencySample> slowest = latency.slowest(3);
    QCOMPARE(slowest.size(), 3);
    QCOMPARE(slowest[0].key, u"ns/o100"_s); // 100 s each: by resource then
    QCOMPARE(slowest[1].key, u"ns/b10"_s);
    QCOMPARE(slowest[1].outcome, S::Degraded);
    QCOMPARE(slowest[2].key, u"ns/o99"_s);
}

void tst_ReconcileLatency::caughtUpThenSettled()
{
    ReconcileLatency latency;
    latency.observe(u"r"_s, summary(u"x"_s, 1, 1), S::Ready, T0);
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 2, 1), S::Reconciling, T0.addSecs(1)));
    // Ready while the status is still stale does not count: it describes the older spec.
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 2, 1), S::Ready, T0.addSecs(2)));
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 2, 2), S::Reconciling, T0.addSecs(4)));
    const auto sample = latency.observe(u"r"_s, summary(u"x"_s, 2, 2), S::Ready, T0.addSecs(9));
    QVERIFY(sample);
    QCOMPARE(sample->observedMs, 3000);
    QCOMPARE(sample->settledMs, 8000);
    // Settled: later events of the same generation add nothing.
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 2, 2), S::Ready, T0.addSecs(20)));
    QCOMPARE(latency.summary(u"r"_s).count, 1);
}

void tst_ReconcileLatency::censusStartsNothingAndNewerBumpRestarts()
{
    ReconcileLatency latency;
    // Found stale at connect: its bump was not seen, so nothing is measured.
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 3, 2), S::Reconciling, T0));
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 3, 3), S::Ready, T0.addSecs(5)));
    QCOMPARE(latency.summary(u"r"_s).count, 0);
    // Bumped twice before catching up: measured from the second bump.
    latency.observe(u"r"_s, summary(u"x"_s, 4, 3), S::Reconciling, T0.addSecs(10));
    latency.observe(u"r"_s, summary(u"x"_s, 5, 3), S::Reconciling, T0.addSecs(12));
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 5, 4), S::Ready, T0.addSecs(13)));
    const auto sample = latency.observe(u"r"_s, summary(u"x"_s, 5, 5), S::Ready, T0.addSecs(15));
    QVERIFY(sample);
    QCOMPARE(sample->settledMs, 3000);
    QCOMPARE(sample->generation, 5);
    // A removed object starts over as census.
    latency.remove(u"r"_s, u"ns/x"_s);
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 6, 5), S::Reconciling, T0.addSecs(20)));
    QVERIFY(!latency.observe(u"r"_s, summary(u"x"_s, 6, 6), S::Ready, T0.addSecs(21)));
}

void tst_ReconcileLatency::nearestRank_data()
{
    QTest::addColumn<QList<qint64>>("values");
    QTest::addColumn<double>("p");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("none") << QList<qint64>{} << 50.0 << qint64(0);
    QTest::newRow("one") << QList<qint64>{ 7 } << 99.0 << qint64(7);
    QTest::newRow("p50 of 4") << QList<qint64>{ 1, 2, 3, 4 } << 50.0 << qint64(2);
    QTest::newRow("p95 of 4") << QList<qint64>{ 1, 2, 3, 4 } << 95.0 << qint64(4);
    QTest::newRow("p100") << QList<qint64>{ 1, 2, 3 } << 100.0 << qint64(3);
}

void tst_ReconcileLatency::nearestRank()
{
    QFETCH(QList<qint64>, values);
    QFETCH(double, p);
    QFETCH(qint64, expected);
    QCOMPARE(nearestRankPercentile(std::vector<qint64>(values.begin(), values.end()), p), expected);
}

QTEST_GUILESS_MAIN(tst_ReconcileLatency)
#include "tst_reconcilelatency.moc"
