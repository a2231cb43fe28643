#include "controller/reconcile/clock.h"
#include "reconciletestutil.h"

#include <QtTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace reconscope::controller::reconcile;
namespace rc = reconscope::controller::reconcile;

class tst_Clock : public QObject
{
    Q_OBJECT

private slots:
    void formatDuration_data();
    void formatDuration();
    void fakeClockFiresInDeadlineOrder();
    void fakeClockTiesFireInSchedulingOrder();
    void fakeClockRunsTimersScheduledWhileStepping();
    void fakeClockCancel();
    void fakeClockStepZeroFiresDueNow();
    void fakeClockStepToNextTimer();
    void realClockFiresAndCancels();
    void realClockZeroDelayIsQueuedAndCancellable();
    void realClockNowIsWallTime();
};

void tst_Clock::formatDuration_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zero") << qint64(0) << u"0s"_s;
    QTest::newRow("ns") << qint64(999) << u"999ns"_s;
    QTest::newRow("us") << qint64(1500) << u"1.5µs"_s;
    QTest::newRow("5ms") << qint64(5'000'000) << u"5ms"_s;
    QTest::newRow("1.25ms") << qint64(1'250'000) << u"1.25ms"_s;
    QTest::newRow("1s") << qint64(1'000'000'000) << u"1s"_s;
    QTest::newRow("1.5s") << qint64(1'500'000'000) << u"1.5s"_s;
    QTest::newRow("1m0s") << qint64(60'000'000'000) << u"1m0s"_s;
    QTest::newRow("1000s") << qint64(1000'000'000'000) << u"16m40s"_s;
    QTest::newRow("655.36s") << qint64(655'360'000'000) << u"10m55.36s"_s;
    QTest::newRow("1h") << qint64(3600'000'000'000) << u"1h0m0s"_s;
    QTest::newRow("negative") << qint64(-5'000'000) << u"-5ms"_s;
}

void tst_Clock::formatDuration()
{
    QFETCH(qint64, ns);
    QFETCH(QString, expected);
    QCOMPARE(rc::formatDuration(Duration(ns)), expected);
}

void tst_Clock::fakeClockFiresInDeadlineOrder()
{
    FakeClock clock;
    const TimePoint start = clock.now();
    QList<int> order;
    QList<TimePoint> firedAt;
    clock.callAfter(30ms, [&] {
        order << 3;
        firedAt << clock.now();
    });
    clock.callAfter(10ms, [&] {
        order << 1;
        firedAt << clock.now();
    });
    clock.callAfter(20ms, [&] {
        order << 2;
        firedAt << clock.now();
    });
    QCOMPARE(clock.pendingTimers(), 3);
    QCOMPARE(clock.step(15ms), 1);
    QCOMPARE(order, QList<int>({ 1 }));
    QCOMPARE(clock.now(), start + 15ms);
    QCOMPARE(clock.step(1s), 2);
    QCOMPARE(order, QList<int>({ 1, 2, 3 }));
    // Each callback saw its own deadline as now().
    QCOMPARE(firedAt, QList<TimePoint>({ start + 10ms, start + 20ms, start + 30ms }));
    QCOMPARE(clock.now(), start + 1015ms);
    QCOMPARE(clock.pendingTimers(), 0);
}

void tst_Clock::fakeClockTiesFireInSchedulingOrder()
{
    FakeClock clock;
    QString order;
    for (const char c : { 'a', 'b', 'c', 'd' })
        clock.callAfter(5ms, [&order, c] { order += QLatin1Char(c); });
    clock.step(5ms);
    QCOMPARE(order, u"abcd"_s);
}

void tst_Clock::fakeClockRunsTimersScheduledWhileStepping()
{
    FakeClock clock;
    const TimePoint start = clock.now();
    QList<TimePoint> ticks;
    std::function<void()> tick = [&] {
        ticks << clock.now();
        if (ticks.size() < 5)
            clock.callAfter(100ms, tick);
    };
    clock.callAfter(100ms, tick);
    QCOMPARE(clock.step(350ms), 3);
    QCOMPARE(ticks.size(), 3);
    QCOMPARE(ticks.last(), start + 300ms);
    QCOMPARE(clock.step(10s), 2);
    QCOMPARE(ticks.last(), start + 500ms);
}

void tst_Clock::fakeClockCancel()
{
    FakeClock clock;
    int fired = 0;
    const auto a = clock.callAfter(10ms, [&] { ++fired; });
    clock.callAfter(10ms, [&] { fired += 10; });
    clock.cancel(a);
    clock.cancel(a); // twice is harmless
    clock.cancel(12345); // unknown ids are ignored
    QCOMPARE(clock.pendingTimers(), 1);
    clock.step(1s);
    QCOMPARE(fired, 10);
}

void tst_Clock::fakeClockStepZeroFiresDueNow()
{
    FakeClock clock;
    bool fired = false;
    clock.callAfter(0ms, [&] { fired = true; });
    clock.callAfter(-5ms, [&] { QVERIFY(fired); }); // negative means now, in order
    QVERIFY(!fired); // never synchronously inside callAfter
    QCOMPARE(clock.step(0ms), 2);
    QVERIFY(fired);
}

void tst_Clock::fakeClockStepToNextTimer()
{
    FakeClock clock;
    const TimePoint start = clock.now();
    QCOMPARE(clock.stepToNextTimer(), 0);
    clock.callAfter(1000s, [] {});
    QCOMPARE(clock.nextDeadline(), start + 1000s);
    QCOMPARE(clock.stepToNextTimer(), 1);
    QCOMPARE(clock.now(), start + 1000s);
}

void tst_Clock::realClockFiresAndCancels()
{
    RealClock clock;
    int fired = 0;
    int cancelled = 0;
    const TimePoint start = clock.now();
    TimePoint firedAt{};
    clock.callAfter(20ms, [&] {
        ++fired;
        firedAt = clock.now();
    });
    const auto id = clock.callAfter(10ms, [&] { ++cancelled; });
    clock.cancel(id);
    QTRY_COMPARE(fired, 1);
    QVERIFY2(firedAt - start >= 20ms, qPrintable(rc::formatDuration(firedAt - start)));
    // The cancelled one had its chance (10ms < 20ms) and did not fire.
    QCOMPARE(cancelled, 0);
}

void tst_Clock::realClockZeroDelayIsQueuedAndCancellable()
{
    RealClock clock;
    QStringList order;
    clock.callAfter(0ms, [&] { order << u"first"_s; });
    const auto cancelled = clock.callAfter(-1s, [&] { order << u"cancelled"_s; });
    clock.callAfter(0ms, [&] {
        order << u"second"_s;
        clock.callAfter(0ms, [&] { order << u"nested"_s; });
    });
    clock.cancel(cancelled);
    QVERIFY(order.isEmpty()); // never inside callAfter()
    QTRY_COMPARE(order, QStringList({ u"first"_s, u"second"_s, u"nested"_s }));
}

void tst_Clock::realClockNowIsWallTime()
{
    RealClock clock;
    const TimePoint a = clock.now();
    const TimePoint b = clock.now();
    QVERIFY(b >= a);
    const qint64 skewMs
        = qAbs(toDateTime(a).toMSecsSinceEpoch() - QDateTime::currentMSecsSinceEpoch());
    QVERIFY2(skewMs < 1000, qPrintable(QString::number(skewMs)));
    QCOMPARE(toDateTime(FakeClock::defaultStart()).toString(Qt::ISODate),
             u"2026-01-01T00:00:00Z"_s);
}

QTEST_GUILESS_MAIN(tst_Clock)
#include "tst_clock.moc"
