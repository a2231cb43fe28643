#include "controller/reconcile/workqueue.h"
#include "reconciletestutil.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace reconscope::controller::reconcile;

namespace {

std::unique_ptr<RateLimiter> backoffOnly()
{
    return std::make_unique<ItemExponentialFailureRateLimiter>();
}

QStringList drain(WorkQueue &queue)
{
    QStringList keys;
    while (const auto key = queue.get())
        keys << *key;
    return keys;
}

} // namespace

class tst_WorkQueue : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void addDedupsAndKeepsFifoOrder();
    void getOnEmptyQueueReturnsNothing();
    void processingKeyIsNeverHandedOutTwice();
    void addDuringProcessingIsRequeuedOnceOnDone();
    void doneWithoutAddDoesNotRequeue();
    void doneOfUnknownKeyIsIgnored();
    void twoWorkers();
    void takeSpecificKey();
    void addAfterBecomesReadyAtItsTime();
    void addAfterEarlierReadyTimeWins_data();
    void addAfterEarlierReadyTimeWins();
    void addAfterWhileReadyDedupsWhenItFires();
    void addAfterNonPositiveAddsNow();
    void onlyOneClockTimerForManyWaitingKeys();
    void addRateLimitedBacksOff();
    void forgetResetsBackoff();
    void tokenBucketSpreadsABurstOfRetries();
    void shutDown();
    void snapshotStates();

private:
    std::unique_ptr<FakeClock> m_clock;
};

void tst_WorkQueue::init()
{
    m_clock = std::make_unique<FakeClock>();
}

void tst_WorkQueue::cleanup()
{
    m_clock.reset();
}

void tst_WorkQueue::addDedupsAndKeepsFifoOrder()
{
    WorkQueue queue(*m_clock, backoffOnly());
    QSignalSpy ready(&queue, &WorkQueue::readyToGet);
    queue.add(u"ns/a"_s);
    queue.add(u"ns/b"_s);
    queue.add(u"ns/a"_s);
    queue.add(u"ns/c"_s);
    queue.add(u"ns/b"_s);
    QCOMPARE(queue.len(), 3);
    QCOMPARE(ready.count(), 3);
    QCOMPARE(queue.addsTotal(), quint64(3));
    QCOMPARE(drain(queue), QStringList({ u"ns/a"_s, u"ns/b"_s, u"ns/c"_s }));
}

void tst_WorkQueue::getOnEmptyQueueReturnsNothing()
{
    WorkQueue queue(*m_clock, backoffOnly());
    QVERIFY(!queue.get().has_value());
    queue.add(u"a"_s);
    QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
    QVERIFY(!queue.get().has_value());
}

void tst_WorkQueue::processingKeyIsNeverHandedOutTwice()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
    QVERIFY(queue.isProcessing(u"a"_s));
    QSignalSpy ready(&queue, &WorkQueue::readyToGet);
    queue.add(u"a"_s);
    QCOMPARE(queue.len(), 0);
    QVERIFY(!queue.get().has_value());
    QVERIFY(!queue.take(u"a"_s).has_value());
    QCOMPARE(ready.count(), 0);
}

void tst_WorkQueue::addDuringProcessingIsRequeuedOnceOnDone()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    queue.add(u"b"_s);
    QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
    queue.add(u"a"_s);
    queue.add(u"a"_s);
    queue.add(u"a"_s);
    QSignalSpy ready(&queue, &WorkQueue::readyToGet);
    queue.done(u"a"_s);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(ready.at(0).at(0).toString(), u"a"_s);
    QVERIFY(!queue.isProcessing(u"a"_s));
    // Re-queued behind b, exactly once.
    QCOMPARE(drain(queue), QStringList({ u"b"_s, u"a"_s }));
}

void tst_WorkQueue::doneWithoutAddDoesNotRequeue()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    QVERIFY(queue.get());
    queue.done(u"a"_s);
    QCOMPARE(queue.len(), 0);
    QCOMPARE(queue.processingCount(), 0);
    // And it can be added again afterwards.
    queue.add(u"a"_s);
    QCOMPARE(queue.len(), 1);
}

void tst_WorkQueue::doneOfUnknownKeyIsIgnored()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    queue.done(u"a"_s); // ready, not processing: done() must not disturb it
    queue.done(u"zzz"_s);
    QCOMPARE(drain(queue), QStringList({ u"a"_s }));
}

void tst_WorkQueue::twoWorkers()
{
    WorkQueue queue(*m_clock, backoffOnly());
    for (const QString &k : { u"a"_s, u"b"_s, u"c"_s })
        queue.add(k);
    const auto w1 = queue.get();
    const auto w2 = queue.get();
    QCOMPARE(*w1, u"a"_s);
    QCOMPARE(*w2, u"b"_s);
    QCOMPARE(queue.processingCount(), 2);
    queue.add(u"a"_s); // while worker 1 still holds it
    const auto w2next = [&] {
        queue.done(*w2);
        return queue.get();
    }();
    QCOMPARE(*w2next, u"c"_s); // not a: worker 1 has it
    QVERIFY(!queue.get().has_value());
    queue.done(*w1);
    QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
}

void tst_WorkQueue::takeSpecificKey()
{
    WorkQueue queue(*m_clock, backoffOnly());
    for (const QString &k : { u"a"_s, u"b"_s, u"c"_s })
        queue.add(k);
    QCOMPARE(queue.take(u"b"_s), std::optional<QString>(u"b"_s));
    QVERIFY(queue.isProcessing(u"b"_s));
    QVERIFY(!queue.take(u"b"_s).has_value());
    QVERIFY(!queue.take(u"nope"_s).has_value());
    QCOMPARE(drain(queue), QStringList({ u"a"_s, u"c"_s }));
}

void tst_WorkQueue::addAfterBecomesReadyAtItsTime()
{
    WorkQueue queue(*m_clock, backoffOnly());
    QSignalSpy ready(&queue, &WorkQueue::readyToGet);
    QSignalSpy fired(&queue, &WorkQueue::delayedAddFired);
    const TimePoint t0 = m_clock->now();
    queue.addAfter(u"a"_s, 50ms);
    QCOMPARE(queue.len(), 0);
    QCOMPARE(queue.waitingCount(), 1);
    QCOMPARE(queue.waitingUntil(u"a"_s), std::optional<TimePoint>(t0 + 50ms));
    QCOMPARE(queue.retriesTotal(), quint64(1));
    m_clock->step(49ms);
    QCOMPARE(queue.len(), 0);
    QCOMPARE(ready.count(), 0);
    m_clock->step(1ms);
    QCOMPARE(fired.count(), 1);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(queue.len(), 1);
    QCOMPARE(queue.waitingCount(), 0);
    QVERIFY(!queue.waitingUntil(u"a"_s));
}

void tst_WorkQueue::addAfterEarlierReadyTimeWins_data()
{
    QTest::addColumn<int>("firstMs");
    QTest::addColumn<int>("secondMs");
    QTest::newRow("later request is earlier") << 1000 << 100;
    QTest::newRow("later request is later") << 100 << 1000;
    QTest::newRow("equal") << 300 << 300;
}

void tst_WorkQueue::addAfterEarlierReadyTimeWins()
{
    QFETCH(int, firstMs);
    QFETCH(int, secondMs);
    WorkQueue queue(*m_clock, backoffOnly());
    QSignalSpy ready(&queue, &WorkQueue::readyToGet);
    const TimePoint t0 = m_clock->now();
    const auto earliest = std::chrono::milliseconds(qMin(firstMs, secondMs));
    queue.addAfter(u"a"_s, std::chrono::milliseconds(firstMs));
    queue.addAfter(u"a"_s, std::chrono::milliseconds(secondMs));
    QCOMPARE(queue.waitingCount(), 1);
    QCOMPARE(queue.waitingUntil(u"a"_s), std::optional<TimePoint>(t0 + earliest));
    m_clock->step(earliest - 1ms);
    QCOMPARE(ready.count(), 0);
    m_clock->step(1ms);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
    queue.done(u"a"_s);
    // Nothing is left waiting for the later time.
    m_clock->step(10s);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(queue.len(), 0);
}

void tst_WorkQueue::addAfterWhileReadyDedupsWhenItFires()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    queue.addAfter(u"a"_s, 10ms);
    QCOMPARE(queue.len(), 1);
    m_clock->step(10ms);
    QCOMPARE(queue.len(), 1); // still once
    // While processing, the delayed add marks it for a re-run after done().
    queue.addAfter(u"a"_s, 10ms);
    QVERIFY(queue.get());
    m_clock->step(10ms);
    QCOMPARE(queue.len(), 0);
    queue.done(u"a"_s);
    QCOMPARE(queue.len(), 1);
}

void tst_WorkQueue::addAfterNonPositiveAddsNow()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.addAfter(u"a"_s, 0ms);
    queue.addAfter(u"b"_s, -1s);
    QCOMPARE(queue.len(), 2);
    QCOMPARE(queue.waitingCount(), 0);
    QCOMPARE(queue.retriesTotal(), quint64(2));
}

void tst_WorkQueue::onlyOneClockTimerForManyWaitingKeys()
{
    WorkQueue queue(*m_clock, backoffOnly());
    for (int i = 0; i < 500; ++i)
        queue.addAfter(u"k%1"_s.arg(i), std::chrono::milliseconds(1000 - i));
    QCOMPARE(queue.waitingCount(), 500);
    QCOMPARE(m_clock->pendingTimers(), 1);
    m_clock->step(600ms);
    QCOMPARE(queue.len(), 100); // delays 501..600ms, in ready-time order
    QCOMPARE(queue.get(), std::optional<QString>(u"k499"_s));
    QCOMPARE(m_clock->pendingTimers(), 1);
    m_clock->step(1s);
    QCOMPARE(queue.len(), 499);
    QCOMPARE(m_clock->pendingTimers(), 0);
}

void tst_WorkQueue::addRateLimitedBacksOff()
{
    WorkQueue queue(*m_clock, backoffOnly());
    const QList<Duration> expected = { 5ms, 10ms, 20ms, 40ms, 80ms, 160ms };
    for (int attempt = 0; attempt < expected.size(); ++attempt) {
        const TimePoint before = m_clock->now();
        QCOMPARE(queue.addRateLimited(u"a"_s), expected[attempt]);
        QCOMPARE(queue.numRequeues(u"a"_s), attempt + 1);
        QCOMPARE(queue.waitingUntil(u"a"_s), std::optional<TimePoint>(before + expected[attempt]));
        m_clock->step(expected[attempt] - 1ns);
        QCOMPARE(queue.len(), 0);
        m_clock->step(1ns);
        QCOMPARE(queue.get(), std::optional<QString>(u"a"_s));
        queue.done(u"a"_s);
    }
    QCOMPARE(queue.retriesTotal(), quint64(expected.size()));
}

void tst_WorkQueue::forgetResetsBackoff()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.addRateLimited(u"a"_s);
    queue.addRateLimited(u"a"_s);
    QCOMPARE(queue.addRateLimited(u"a"_s), Duration(20ms));
    queue.forget(u"a"_s);
    QCOMPARE(queue.numRequeues(u"a"_s), 0);
    QCOMPARE(queue.addRateLimited(u"a"_s), Duration(5ms));
}

void tst_WorkQueue::tokenBucketSpreadsABurstOfRetries()
{
    WorkQueue queue(*m_clock); // the default: exponential max'ed with 10 qps / burst 100
    for (int i = 0; i < 120; ++i)
        queue.addRateLimited(u"k%1"_s.arg(i));
    m_clock->step(5ms);
    QCOMPARE(queue.len(), 100); // the burst, after each key's own 5ms
    m_clock->step(95ms);
    QCOMPARE(queue.len(), 101); // then one every 100ms
    m_clock->step(1s);
    QCOMPARE(queue.len(), 111);
    m_clock->step(1s);
    QCOMPARE(queue.len(), 120);
    QCOMPARE(drain(queue).at(100), u"k100"_s);
}

void tst_WorkQueue::shutDown()
{
    WorkQueue queue(*m_clock, backoffOnly());
    queue.add(u"a"_s);
    queue.add(u"b"_s);
    queue.addAfter(u"w"_s, 1s);
    QVERIFY(queue.get());
    queue.add(u"a"_s); // dirty while processing
    queue.shutDown();
    QVERIFY(queue.isShuttingDown());
    QCOMPARE(queue.waitingCount(), 0);
    QCOMPARE(m_clock->pendingTimers(), 0);
    queue.add(u"c"_s);
    queue.addAfter(u"d"_s, 1ms);
    queue.addRateLimited(u"e"_s);
    m_clock->step(10s);
    QCOMPARE(queue.len(), 1);
    // Ready keys drain; a key added before the shutdown still comes back after done().
    queue.done(u"a"_s);
    QCOMPARE(drain(queue), QStringList({ u"b"_s, u"a"_s }));
    queue.shutDown(); // twice is harmless
}

void tst_WorkQueue::snapshotStates()
{
    WorkQueue queue(*m_clock, backoffOnly());
    const TimePoint t0 = m_clock->now();
    queue.add(u"p"_s);
    QVERIFY(queue.get()); // p processing
    queue.add(u"p"_s); // ...and queued again
    m_clock->step(1ms);
    queue.add(u"r"_s);
    queue.addRateLimited(u"w"_s);
    queue.addRateLimited(u"w"_s); // earlier (5ms) wins over 10ms; two retries counted
    queue.addAfter(u"v"_s, 2s);
    const QList<QueueEntry> entries = queue.snapshot();
    QCOMPARE(entries.size(), 4);
    QCOMPARE(entries[0].key, u"p"_s);
    QCOMPARE(entries[0].state, QueueEntry::State::Processing);
    QVERIFY(entries[0].queuedAgain);
    QCOMPARE(entries[1].key, u"r"_s);
    QCOMPARE(entries[1].state, QueueEntry::State::Ready);
    QCOMPARE(entries[1].readyAt, std::optional<TimePoint>(t0 + 1ms));
    QCOMPARE(entries[2].key, u"w"_s);
    QCOMPARE(entries[2].state, QueueEntry::State::Waiting);
    QCOMPARE(entries[2].retries, 2);
    QCOMPARE(entries[2].readyAt, std::optional<TimePoint>(t0 + 6ms));
    QCOMPARE(entries[3].key, u"v"_s);
    QCOMPARE(entries[3].readyAt, std::optional<TimePoint>(t0 + 1ms + 2s));
    QCOMPARE(stateName(entries[3].state), u"waiting"_s);
}

QTEST_GUILESS_MAIN(tst_WorkQueue)
#include "tst_workqueue.moc"
