#include "controller/reconcile/controllerloop.h"
#include "reconciletestutil.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace reconscope::controller::reconcile;

namespace {

// Answers from a per-key script (then a per-key default, then success) and records every call.
class ScriptedReconciler final : public Reconciler
{
public:
    explicit ScriptedReconciler(Clock &clock)
        : m_clock(clock)
    { }

    ReconcileOutcome reconcile(const QString &key) override
    {
        calls.append({ key, m_clock.now() });
        if (!script[key].isEmpty())
            return script[key].takeFirst();
        return fallback.value(key, ReconcileOutcome::success());
    }

    // Offsets from `since` of the calls for key made at or after it.
    QList<Duration> callTimes(const QString &key, TimePoint since) const
    {
        QList<Duration> times;
        for (const auto &[k, at] : calls) {
            if (k == key && at >= since)
                times.append(at - since);
        }
        return times;
    }
    int callCount(const QString &key) const { return int(callTimes(key, TimePoint{}).size()); }

    QHash<QString, QList<ReconcileOutcome>> script;
    QHash<QString, ReconcileOutcome> fallback;
    QList<QPair<QString, TimePoint>> calls;

private:
    Clock &m_clock;
};

// Keeps the completions so that the test decides when (and how) each reconcile ends.
class ManualReconciler final : public AsyncReconciler
{
public:
    void reconcileAsync(const QString &key, Completion complete) override
    {
        ++running[key];
        maxRunningPerKey = qMax(maxRunningPerKey, running[key]);
        pending.append({ key, std::move(complete) });
    }
    void complete(int index, ReconcileOutcome outcome)
    {
        auto [key, done] = pending.takeAt(index);
        --running[key];
        done(std::move(outcome));
    }

    QList<QPair<QString, Completion>> pending;
    QHash<QString, int> running;
    int maxRunningPerKey = 0;
};

ReconcileOutcome errorWithRequeueAfter(Duration d)
{
    ReconcileOutcome o = ReconcileOutcome::failure(u"deployment not ready"_s);
    o.result.requeueAfter = d;
    return o;
}

ControllerLoop::Options defaults()
{
    return ControllerLoop::Options{};
}

ControllerLoop::Options paused()
{
    ControllerLoop::Options o;
    o.startPaused = true;
    return o;
}

double metric(const ControllerLoop &loop, const char *name, MetricLabels labels = {})
{
    MetricLabels all = { { u"controller"_s, u"customapp"_s } };
    all.append(labels);
    return loop.metrics().value(QString::fromLatin1(name), all);
}

double resultTotal(const ControllerLoop &loop, const QString &result)
{
    return metric(loop, ControllerLoop::ReconcileTotal, { { u"result"_s, result } });
}

double queueMetric(const ControllerLoop &loop, const char *name)
{
    return loop.metrics().value(
        QString::fromLatin1(name),
        { { u"name"_s, u"customapp"_s }, { u"controller"_s, u"customapp"_s } });
}

} // namespace

class tst_ControllerLoop : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void resultHandling_data();
    void resultHandling();
    void reconcileNeverRunsInsideEnqueue();
    void successForgetsAndStaysQuiet();
    void errorBacksOffExponentially();
    void backoffReachesTheCapInSimulatedTime();
    void terminalErrorIsNotRetriedForMinutes();
    void requeueAfterForgetsThenWaits();
    void errorWithRequeueAfterIgnoresTheResult();
    void pauseAndStep();
    void stepSpecificKey();
    void historyRecordsAReconcile();
    void historyCoalescesTriggers();
    void historyIsBounded();
    void asyncKeyIsNeverReconciledTwiceAtOnce();
    void asyncCompletionTwiceOrAfterDestructionIsIgnored();
    void resumeFillsEveryWorker();
    void queueSnapshotShowsStates();
    void metricsText();
    void stuckWorkShowsInTheGauges();
    void stopFinishesInFlightAndStartsNothing();
    void realClockRunsTheLoop();

private:
    std::unique_ptr<FakeClock> m_clock;
    TimePoint m_t0{};
};

void tst_ControllerLoop::init()
{
    m_clock = std::make_unique<FakeClock>();
    m_t0 = m_clock->now();
}

void tst_ControllerLoop::cleanup()
{
    m_clock.reset();
}

void tst_ControllerLoop::resultHandling_data()
{
    QTest::addColumn<ReconcileOutcome>("outcome");
    QTest::addColumn<QString>("resultLabel");
    QTest::addColumn<ReconcileRecord::Result>("recorded");
    QTest::addColumn<qint64>("nextCallAfterMs"); // -1: never again on its own
    QTest::addColumn<int>("requeuesAfter"); // numRequeues once handled (two earlier failures)
    QTest::addColumn<int>("terminalErrors");
    QTest::addColumn<bool>("ignored");

    // Two earlier failures make numRequeues 2, so the next backoff is 20ms and Forget is visible.
    QTest::newRow("success: Forget")
        << ReconcileOutcome::success() << u"success"_s << ReconcileRecord::Result::Success
        << qint64(-1) << 0 << 0 << false;
    QTest::newRow("RequeueAfter: Forget, AddAfter")
        << ReconcileOutcome::requeueAfter(30s) << u"requeue_after"_s
        << ReconcileRecord::Result::RequeueAfter << qint64(30000) << 0 << 0 << false;
    QTest::newRow("Requeue: AddRateLimited")
        << ReconcileOutcome::requeueRateLimited() << u"requeue"_s
        << ReconcileRecord::Result::Requeue << qint64(20) << 3 << 0 << false;
    QTest::newRow("error: AddRateLimited, no Forget")
        << ReconcileOutcome::failure(u"timeout"_s) << u"error"_s << ReconcileRecord::Result::Error
        << qint64(20) << 3 << 0 << false;
    QTest::newRow("terminal: no requeue")
        << ReconcileOutcome::terminalFailure(u"invalid configJSON"_s) << u"error"_s
        << ReconcileRecord::Result::TerminalError << qint64(-1) << 2 << 1 << false;
    QTest::newRow("error + RequeueAfter: Result ignored")
        << errorWithRequeueAfter(5s) << u"error"_s << ReconcileRecord::Result::Error << qint64(20)
        << 3 << 0 << true;
    QTest::newRow("terminal + RequeueAfter: Result ignored, no requeue") <<
        [] {
            ReconcileOutcome o = ReconcileOutcome::terminalFailure(u"bad spec"_s);
            o.result.requeueAfter = 1min;
            return o;
        }() << u"error"_s << ReconcileRecord::Result::TerminalError << qint64(-1)
                                                                         << 2 << 1 << true;
}

void tst_ControllerLoop::resultHandling()
{
    QFETCH(ReconcileOutcome, outcome);
    QFETCH(QString, resultLabel);
    QFETCH(ReconcileRecord::Result, recorded);
    QFETCH(qint64, nextCallAfterMs);
    QFETCH(int, requeuesAfter);
    QFETCH(int, terminalErrors);
    QFETCH(bool, ignored);

    ScriptedReconciler reconciler(*m_clock);
    reconciler.script[u"ns/a"_s] = { ReconcileOutcome::failure(u"first"_s),
                                     ReconcileOutcome::failure(u"second"_s),
                                     outcome };
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"ns/a"_s, u"test"_s);
    m_clock->step(0ms); // first failure, retry in 5ms
    m_clock->step(5ms); // second failure, retry in 10ms
    QCOMPARE(loop.queue().numRequeues(u"ns/a"_s), 2);
    const TimePoint third = m_clock->now() + 10ms;
    m_clock->step(10ms); // the outcome under test
    QCOMPARE(reconciler.callCount(u"ns/a"_s), 3);

    const auto record = loop.lastRecord(u"ns/a"_s);
    QVERIFY(record);
    QCOMPARE(record->result, recorded);
    QCOMPARE(record->resultIgnored, ignored);
    QCOMPARE(loop.queue().numRequeues(u"ns/a"_s), requeuesAfter);
    QCOMPARE(resultTotal(loop, resultLabel), resultLabel == u"error"_s ? 3.0 : 1.0);
    QCOMPARE(metric(loop, ControllerLoop::ReconcileErrors), resultLabel == u"error"_s ? 3.0 : 2.0);
    QCOMPARE(metric(loop, ControllerLoop::TerminalErrors), double(terminalErrors));
    QCOMPARE(metric(loop, ControllerLoop::IgnoredResults), ignored ? 1.0 : 0.0);
    if (ignored)
        QVERIFY2(record->explanation.contains(u"ignored"_s), qPrintable(record->explanation));

    m_clock->step(10min);
    const QList<Duration> calls = reconciler.callTimes(u"ns/a"_s, third);
    if (nextCallAfterMs < 0) {
        QCOMPARE(calls.size(), 1);
        QVERIFY(!record->nextRetryAt);
    } else {
        QVERIFY(calls.size() >= 2);
        QCOMPARE(calls[1], Duration(std::chrono::milliseconds(nextCallAfterMs)));
        QCOMPARE(record->nextRetryAt,
                 std::optional<TimePoint>(third + std::chrono::milliseconds(nextCallAfterMs)));
    }
}

void tst_ControllerLoop::reconcileNeverRunsInsideEnqueue()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    QCOMPARE(reconciler.calls.size(), 0);
    m_clock->step(0ms);
    QCOMPARE(reconciler.calls.size(), 1);
}

void tst_ControllerLoop::successForgetsAndStaysQuiet()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(1h);
    QCOMPARE(reconciler.calls.size(), 1);
    QCOMPARE(resultTotal(loop, u"success"_s), 1.0);
    QCOMPARE(m_clock->pendingTimers(), 0);
    loop.enqueue(u"a"_s, u"MODIFIED"_s);
    m_clock->step(0ms);
    QCOMPARE(reconciler.calls.size(), 2);
}

void tst_ControllerLoop::errorBacksOffExponentially()
{
    ScriptedReconciler reconciler(*m_clock);
    reconciler.fallback[u"a"_s] = ReconcileOutcome::failure(u"503 from the API server"_s);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(1s);
    // 0, then +5, +10, +20, +40, +80, +160, +320 ms (cumulative 635ms), next one at 1275ms.
    const QList<Duration> expected = { 0ms, 5ms, 15ms, 35ms, 75ms, 155ms, 315ms, 635ms };
    QCOMPARE(reconciler.callTimes(u"a"_s, m_t0), expected);
    QCOMPARE(loop.queue().numRequeues(u"a"_s), 8);
    QCOMPARE(resultTotal(loop, u"error"_s), 8.0);
    QCOMPARE(metric(loop, ControllerLoop::ReconcileErrors), 8.0);
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueRetries), 8.0);
    // A success resets the backoff.
    reconciler.fallback.remove(u"a"_s);
    m_clock->step(1s);
    QCOMPARE(loop.queue().numRequeues(u"a"_s), 0);
    QCOMPARE(resultTotal(loop, u"success"_s), 1.0);
    reconciler.fallback[u"a"_s] = ReconcileOutcome::failure(u"again"_s);
    const TimePoint restart = m_clock->now();
    loop.enqueue(u"a"_s, u"MODIFIED"_s);
    m_clock->step(20ms);
    QCOMPARE(reconciler.callTimes(u"a"_s, restart), QList<Duration>({ 0ms, 5ms, 15ms }));
}

void tst_ControllerLoop::backoffReachesTheCapInSimulatedTime()
{
    ScriptedReconciler reconciler(*m_clock);
    reconciler.fallback[u"a"_s] = ReconcileOutcome::failure(u"connection refused"_s);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(30min);
    // 5ms * (2^18 - 1) = 1310.715s after the first call, the 18 uncapped retries are done; the
    // 19th failure waits the full 1000s, beyond 30 minutes.
    QList<Duration> calls = reconciler.callTimes(u"a"_s, m_t0);
    QCOMPARE(calls.size(), 19);
    QCOMPARE(calls.last(), Duration(1310'715ms));
    m_clock->step(10min);
    calls = reconciler.callTimes(u"a"_s, m_t0);
    QCOMPARE(calls.size(), 20);
    QCOMPARE(calls[19] - calls[18], Duration(1000s));
    QCOMPARE(loop.lastRecord(u"a"_s)->retryDelay, Duration(1000s));
}

void tst_ControllerLoop::terminalErrorIsNotRetriedForMinutes()
{
    ScriptedReconciler reconciler(*m_clock);
    reconciler.fallback[u"a"_s] = ReconcileOutcome::terminalFailure(u"spec.replicas: 500 > 100"_s);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(30min);
    QCOMPARE(reconciler.callCount(u"a"_s), 1);
    QCOMPARE(metric(loop, ControllerLoop::TerminalErrors), 1.0);
    QCOMPARE(metric(loop, ControllerLoop::ReconcileErrors), 1.0);
    QCOMPARE(resultTotal(loop, u"error"_s), 1.0);
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueRetries), 0.0);
    QCOMPARE(m_clock->pendingTimers(), 0);
    const auto record = loop.lastRecord(u"a"_s);
    QCOMPARE(record->result, ReconcileRecord::Result::TerminalError);
    QCOMPARE(record->error, u"spec.replicas: 500 > 100"_s);
    QVERIFY(!record->nextRetryAt);
    // A new event (the generation changed) runs it again.
    reconciler.fallback.remove(u"a"_s);
    loop.enqueue(u"a"_s, u"MODIFIED generation 2"_s);
    m_clock->step(0ms);
    QCOMPARE(reconciler.callCount(u"a"_s), 2);
}

void tst_ControllerLoop::requeueAfterForgetsThenWaits()
{
    ScriptedReconciler reconciler(*m_clock);
    reconciler.script[u"a"_s]
        = { ReconcileOutcome::failure(u"x"_s), ReconcileOutcome::requeueAfter(30s) };
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(5ms);
    QCOMPARE(loop.queue().numRequeues(u"a"_s), 0); // forgotten by RequeueAfter
    QCOMPARE(loop.lastRecord(u"a"_s)->nextRetryAt, std::optional<TimePoint>(m_t0 + 5ms + 30s));
    m_clock->step(30s - 1ns);
    QCOMPARE(reconciler.callCount(u"a"_s), 2);
    m_clock->step(1ns);
    QCOMPARE(reconciler.callCount(u"a"_s), 3);
    QCOMPARE(loop.lastRecord(u"a"_s)->triggers, QStringList({ u"requeueAfter 30s"_s }));
    QCOMPARE(loop.lastRecord(u"a"_s)->queuedAt, m_t0 + 5ms);
    QCOMPARE(resultTotal(loop, u"requeue_after"_s), 1.0);
}

void tst_ControllerLoop::errorWithRequeueAfterIgnoresTheResult()
{
    // The seed's sample code: `return ctrl.Result{RequeueAfter: 5s}, err`.
    ScriptedReconciler reconciler(*m_clock);
    reconciler.fallback[u"a"_s] = errorWithRequeueAfter(5s);
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(4s);
    // The rate limiter decides: 0, 5ms, 15ms, ... not every 5s.
    const QList<Duration> calls = reconciler.callTimes(u"a"_s, m_t0);
    QCOMPARE(calls.mid(0, 4), QList<Duration>({ 0ms, 5ms, 15ms, 35ms }));
    QCOMPARE(calls.size(), 10); // 5ms * (2^9 - 1) = 2.555s; the 11th would be at 5.115s
    QCOMPARE(metric(loop, ControllerLoop::IgnoredResults), 10.0);
    QCOMPARE(resultTotal(loop, u"requeue_after"_s), 0.0);
    const auto record = loop.lastRecord(u"a"_s);
    QVERIFY(record->resultIgnored);
    QVERIFY2(record->explanation.contains(u"RequeueAfter=5s"_s), qPrintable(record->explanation));
    QVERIFY2(record->explanation.contains(u"ignored"_s), qPrintable(record->explanation));
    QCOMPARE(record->retryDelay, Duration(2560ms));
}

void tst_ControllerLoop::pauseAndStep()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop loop(*m_clock, reconciler, paused());
    QSignalSpy pausedSpy(&loop, &ControllerLoop::pausedChanged);
    QVERIFY(loop.isPaused());
    for (const QString &k : { u"a"_s, u"b"_s, u"c"_s })
        loop.enqueue(k, u"ADDED"_s);
    loop.enqueue(u"a"_s, u"MODIFIED"_s);
    m_clock->step(5min);
    QCOMPARE(reconciler.calls.size(), 0);
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueDepth), 3.0);

    QVERIFY(loop.step());
    QCOMPARE(reconciler.calls.size(), 1);
    QCOMPARE(reconciler.calls[0].first, u"a"_s);
    m_clock->step(1min);
    QCOMPARE(reconciler.calls.size(), 1); // exactly one per step
    QVERIFY(loop.lastRecord(u"a"_s)->stepped);
    QCOMPARE(loop.lastRecord(u"a"_s)->waitTime, Duration(5min));

    loop.setPaused(false);
    QCOMPARE(pausedSpy.count(), 1);
    QVERIFY(!loop.step()); // stepping is for a paused loop
    m_clock->step(0ms);
    QCOMPARE(reconciler.calls.size(), 3);
    QCOMPARE(reconciler.calls[1].first, u"b"_s);
    QCOMPARE(reconciler.calls[2].first, u"c"_s);
    QVERIFY(!loop.lastRecord(u"b"_s)->stepped);

    loop.setPaused(true);
    QVERIFY(!loop.step()); // nothing ready
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueDepth), 0.0);
}

void tst_ControllerLoop::stepSpecificKey()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop loop(*m_clock, reconciler, paused());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    loop.enqueue(u"b"_s, u"ADDED"_s);
    loop.enqueueAfter(u"c"_s, 1min, u"resync"_s);
    QVERIFY(!loop.step(u"c"_s)); // waiting, not ready
    QVERIFY(loop.step(u"b"_s));
    QCOMPARE(reconciler.calls.size(), 1);
    QCOMPARE(reconciler.calls[0].first, u"b"_s);
    QVERIFY(!loop.step(u"b"_s));
    QCOMPARE(loop.queue().len(), 1);
}

void tst_ControllerLoop::historyRecordsAReconcile()
{
    ManualReconciler reconciler;
    ControllerLoop loop(*m_clock, reconciler, paused());
    QSignalSpy finished(&loop, &ControllerLoop::reconcileFinished);
    loop.enqueue(u"default/web"_s, u"ADDED customapps default/web rv=12"_s);
    m_clock->step(2s); // paused: it waits ready
    QVERIFY(loop.step());
    QCOMPARE(reconciler.pending.size(), 1);
    auto running = loop.lastRecord(u"default/web"_s);
    QCOMPARE(running->result, ReconcileRecord::Result::InProgress);
    QCOMPARE(loop.inFlight(), 1);

    m_clock->step(150ms); // the reconciler's network round trips
    ReconcileOutcome outcome = ReconcileOutcome::failure(u"409 Conflict on status"_s);
    outcome.writes = { u"PUT customapps/default/web/status rv=12"_s };
    outcome.conflicts = { u"status"_s };
    reconciler.complete(0, outcome);

    QCOMPARE(finished.count(), 1);
    const ReconcileRecord record = loop.lastRecord(u"default/web"_s).value();
    QCOMPARE(record.key, u"default/web"_s);
    QCOMPARE(record.queuedAt, m_t0);
    QCOMPARE(record.readyAt, std::optional<TimePoint>(m_t0));
    QCOMPARE(record.triggers, QStringList({ u"ADDED customapps default/web rv=12"_s }));
    QCOMPARE(record.startedAt, m_t0 + 2s);
    QCOMPARE(record.waitTime, Duration(2s));
    QCOMPARE(record.duration, Duration(150ms));
    QCOMPARE(record.result, ReconcileRecord::Result::Error);
    QCOMPARE(resultName(record.result), u"error"_s);
    QCOMPARE(record.error, u"409 Conflict on status"_s);
    QCOMPARE(record.writes, outcome.writes);
    QCOMPARE(record.conflicts, QStringList({ u"status"_s }));
    QCOMPARE(record.failuresBefore, 0);
    QCOMPARE(record.retryDelay, Duration(5ms));
    QCOMPARE(record.nextRetryAt, std::optional<TimePoint>(m_t0 + 2150ms + 5ms));
    QCOMPARE(finished.at(0).at(0).value<ReconcileRecord>().id, record.id);
    QCOMPARE(metric(loop, ControllerLoop::Conflicts, { { u"writer"_s, u"status"_s } }), 1.0);

    // The retry carries its reason.
    m_clock->step(5ms);
    QVERIFY(loop.step());
    const auto retry = loop.lastRecord(u"default/web"_s);
    QCOMPARE(retry->triggers, QStringList({ u"retry after error, failure 1 (backoff 5ms)"_s }));
    QCOMPARE(retry->failuresBefore, 1);
    QCOMPARE(retry->waitTime, Duration::zero());
    QCOMPARE(loop.history(u"default/web"_s).size(), 2);
}

void tst_ControllerLoop::historyCoalescesTriggers()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop::Options options;
    options.triggersPerRecord = 3;
    ControllerLoop loop(*m_clock, reconciler, options);
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(1ms);
    QCOMPARE(reconciler.calls.size(), 1);
    loop.enqueue(u"a"_s, u"MODIFIED rv=2"_s);
    loop.enqueue(u"a"_s, u"owned Deployment changed"_s);
    loop.enqueue(u"a"_s, u"MODIFIED rv=3"_s);
    loop.enqueue(u"a"_s, u"MODIFIED rv=4"_s);
    m_clock->step(0ms);
    QCOMPARE(reconciler.calls.size(), 2); // four events, one reconcile
    const auto record = loop.lastRecord(u"a"_s);
    QCOMPARE(
        record->triggers,
        QStringList({ u"MODIFIED rv=2"_s, u"owned Deployment changed"_s, u"MODIFIED rv=3"_s }));
    QCOMPARE(record->triggerCount, 4);
    QCOMPARE(record->queuedAt, m_t0 + 1ms);
}

void tst_ControllerLoop::historyIsBounded()
{
    ScriptedReconciler reconciler(*m_clock);
    ControllerLoop::Options options;
    options.historyPerKey = 3;
    options.historyKeys = 2;
    ControllerLoop loop(*m_clock, reconciler, options);
    for (int i = 0; i < 5; ++i) {
        loop.enqueue(u"a"_s, u"event %1"_s.arg(i));
        m_clock->step(1s);
    }
    const QList<ReconcileRecord> history = loop.history(u"a"_s);
    QCOMPARE(history.size(), 3);
    QCOMPARE(history.first().triggers, QStringList({ u"event 2"_s }));
    QCOMPARE(history.last().triggers, QStringList({ u"event 4"_s }));
    QVERIFY(history[0].id < history[1].id && history[1].id < history[2].id);
    loop.enqueue(u"b"_s, u"x"_s);
    m_clock->step(1s);
    loop.enqueue(u"c"_s, u"x"_s);
    m_clock->step(1s);
    // Two keys at most: the least recently touched one (a) went.
    QCOMPARE(loop.historyKeys(), QStringList({ u"b"_s, u"c"_s }));
}

void tst_ControllerLoop::asyncKeyIsNeverReconciledTwiceAtOnce()
{
    ManualReconciler reconciler;
    ControllerLoop::Options options;
    options.maxConcurrentReconciles = 2;
    ControllerLoop loop(*m_clock, reconciler, options);
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(0ms);
    loop.enqueue(u"a"_s, u"MODIFIED"_s); // while a runs
    loop.enqueue(u"b"_s, u"ADDED"_s);
    loop.enqueue(u"c"_s, u"ADDED"_s);
    m_clock->step(1s);
    QCOMPARE(reconciler.pending.size(), 2); // a and b: two workers
    QCOMPARE(reconciler.pending[1].first, u"b"_s);
    QCOMPARE(loop.inFlight(), 2);
    reconciler.complete(0, ReconcileOutcome::success()); // a done: a is re-queued behind c
    m_clock->step(0ms);
    QCOMPARE(reconciler.pending.size(), 2);
    QCOMPARE(reconciler.pending[1].first, u"c"_s);
    reconciler.complete(0, ReconcileOutcome::success()); // b
    m_clock->step(0ms);
    QCOMPARE(reconciler.pending[1].first, u"a"_s);
    QCOMPARE(reconciler.maxRunningPerKey, 1);
    QCOMPARE(loop.lastRecord(u"a"_s)->triggers, QStringList({ u"MODIFIED"_s }));
}

void tst_ControllerLoop::asyncCompletionTwiceOrAfterDestructionIsIgnored()
{
    ManualReconciler reconciler;
    auto loop = std::make_unique<ControllerLoop>(*m_clock, reconciler, defaults());
    loop->enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(0ms);
    AsyncReconciler::Completion complete = reconciler.pending[0].second;
    complete(ReconcileOutcome::success());
    complete(ReconcileOutcome::failure(u"late"_s));
    QCOMPARE(loop->history(u"a"_s).size(), 1);
    QCOMPARE(loop->lastRecord(u"a"_s)->result, ReconcileRecord::Result::Success);
    QCOMPARE(resultTotal(*loop, u"error"_s), 0.0);

    loop->enqueue(u"a"_s, u"MODIFIED"_s);
    m_clock->step(0ms);
    AsyncReconciler::Completion orphan = reconciler.pending[1].second;
    loop.reset();
    orphan(ReconcileOutcome::success()); // the loop is gone: nothing happens
    m_clock->step(1min);
}

void tst_ControllerLoop::resumeFillsEveryWorker()
{
    ManualReconciler reconciler;
    ControllerLoop::Options options = paused();
    options.maxConcurrentReconciles = 3;
    ControllerLoop loop(*m_clock, reconciler, options);
    for (const QString &k : { u"a"_s, u"b"_s, u"c"_s, u"d"_s })
        loop.enqueue(k, u"ADDED"_s);
    loop.setPaused(false);
    m_clock->step(0ms);
    QCOMPARE(reconciler.pending.size(), 3);
    QCOMPARE(metric(loop, "controller_runtime_active_workers"), 3.0);
    QCOMPARE(loop.queue().len(), 1);
    reconciler.complete(1, ReconcileOutcome::success());
    m_clock->step(0ms);
    QCOMPARE(reconciler.pending.size(), 3);
    QCOMPARE(reconciler.pending[2].first, u"d"_s);
}

void tst_ControllerLoop::queueSnapshotShowsStates()
{
    ManualReconciler reconciler;
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"p"_s, u"ADDED"_s);
    m_clock->step(0ms);
    loop.setPaused(true);
    loop.enqueue(u"r"_s, u"ADDED"_s);
    loop.enqueueAfter(u"w"_s, 30s, u"resync"_s);
    const QList<QueueEntry> snapshot = loop.queueSnapshot();
    QCOMPARE(snapshot.size(), 3);
    QCOMPARE(snapshot[0].key, u"p"_s);
    QCOMPARE(snapshot[0].state, QueueEntry::State::Processing);
    QCOMPARE(snapshot[1].state, QueueEntry::State::Ready);
    QCOMPARE(snapshot[2].state, QueueEntry::State::Waiting);
    QCOMPARE(snapshot[2].readyAt, std::optional<TimePoint>(m_t0 + 30s));
    // The delayed trigger shows up when it fires.
    m_clock->step(30s);
    reconciler.complete(0, ReconcileOutcome::success());
    QVERIFY(loop.step(u"w"_s));
    QCOMPARE(loop.lastRecord(u"w"_s)->triggers, QStringList({ u"resync"_s }));
    QCOMPARE(loop.lastRecord(u"w"_s)->queuedAt, m_t0);
}

void tst_ControllerLoop::metricsText()
{
    ScriptedReconciler reconciler(*m_clock);
    reconciler.script[u"a"_s] = { ReconcileOutcome::failure(u"x"_s) };
    reconciler.script[u"b"_s] = { ReconcileOutcome::terminalFailure(u"y"_s) };
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    loop.enqueue(u"b"_s, u"ADDED"_s);
    m_clock->step(1s);
    loop.recordConflict(u"patch-lab"_s);
    loop.recordConflict(u"patch-lab"_s);
    const QByteArray text = loop.metricsText();
    const QList<QByteArray> expectedLines = {
        "# TYPE controller_runtime_reconcile_total counter",
        "controller_runtime_reconcile_total{controller=\"customapp\",result=\"error\"} 2",
        "controller_runtime_reconcile_total{controller=\"customapp\",result=\"requeue\"} 0",
        "controller_runtime_reconcile_total{controller=\"customapp\",result=\"requeue_after\"} 0",
        "controller_runtime_reconcile_total{controller=\"customapp\",result=\"success\"} 1",
        "controller_runtime_reconcile_errors_total{controller=\"customapp\"} 2",
        "controller_runtime_terminal_reconcile_errors_total{controller=\"customapp\"} 1",
        "# TYPE controller_runtime_reconcile_time_seconds histogram",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"customapp\",le=\"0.005\"} 3",
        "controller_runtime_reconcile_time_seconds_count{controller=\"customapp\"} 3",
        "controller_runtime_max_concurrent_reconciles{controller=\"customapp\"} 1",
        "controller_runtime_active_workers{controller=\"customapp\"} 0",
        "workqueue_depth{name=\"customapp\",controller=\"customapp\"} 0",
        "workqueue_adds_total{name=\"customapp\",controller=\"customapp\"} 3",
        "workqueue_retries_total{name=\"customapp\",controller=\"customapp\"} 1",
        "reconscope_write_conflicts_total{controller=\"customapp\",writer=\"patch-lab\"} 2",
        "reconscope_reconcile_ignored_results_total{controller=\"customapp\"} 0",
        "workqueue_queue_duration_seconds_count{name=\"customapp\",controller=\"customapp\"} 3",
        "workqueue_work_duration_seconds_bucket{name=\"customapp\",controller=\"customapp\",le="
        "\"1e-08\"} 3",
        "workqueue_unfinished_work_seconds{name=\"customapp\",controller=\"customapp\"} 0",
    };
    QString bad;
    QVERIFY2(isValidPrometheusText(text, &bad), qPrintable(bad));
    const QList<QByteArray> lines = text.split('\n');
    for (const QByteArray &line : expectedLines)
        QVERIFY2(lines.contains(line), (line + "\n--- in ---\n" + text).constData());
}

void tst_ControllerLoop::stuckWorkShowsInTheGauges()
{
    ManualReconciler reconciler;
    ControllerLoop::Options options;
    options.maxConcurrentReconciles = 2;
    ControllerLoop loop(*m_clock, reconciler, options);
    loop.enqueue(u"a"_s, u"ADDED"_s);
    m_clock->step(3s);
    loop.enqueue(u"b"_s, u"ADDED"_s);
    m_clock->step(1s);
    loop.refreshMetrics();
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueLongestRunning), 4.0);
    QCOMPARE(queueMetric(loop, ControllerLoop::WorkqueueUnfinished), 5.0);
    reconciler.complete(0, ReconcileOutcome::success());
    const QByteArray text = loop.metricsText();
    QVERIFY2(text.contains("workqueue_longest_running_processor_seconds{name=\"customapp\","
                           "controller=\"customapp\"} 1\n"),
             text.constData());
    const auto work = loop.metrics().histogram(
        QString::fromLatin1(ControllerLoop::WorkqueueWorkDuration),
        { { u"name"_s, u"customapp"_s }, { u"controller"_s, u"customapp"_s } });
    QCOMPARE(work.count, quint64(1));
    QCOMPARE(work.sum, 4.0);
}

void tst_ControllerLoop::stopFinishesInFlightAndStartsNothing()
{
    ManualReconciler reconciler;
    ControllerLoop loop(*m_clock, reconciler, defaults());
    loop.enqueue(u"a"_s, u"ADDED"_s);
    loop.enqueue(u"b"_s, u"ADDED"_s);
    m_clock->step(0ms);
    QCOMPARE(reconciler.pending.size(), 1);
    loop.stop();
    QVERIFY(loop.isStopped());
    reconciler.complete(0, ReconcileOutcome::failure(u"x"_s));
    loop.enqueue(u"c"_s, u"ADDED"_s);
    m_clock->step(1h);
    QCOMPARE(reconciler.pending.size(), 0);
    QCOMPARE(loop.lastRecord(u"a"_s)->result, ReconcileRecord::Result::Error);
    QVERIFY(!loop.lastRecord(u"a"_s)->nextRetryAt);
    QVERIFY(!loop.lastRecord(u"b"_s));
    QVERIFY(!loop.lastRecord(u"c"_s));
}

void tst_ControllerLoop::realClockRunsTheLoop()
{
    RealClock clock;
    ScriptedReconciler reconciler(clock);
    reconciler.script[u"a"_s]
        = { ReconcileOutcome::failure(u"x"_s), ReconcileOutcome::failure(u"x"_s) };
    ControllerLoop loop(clock, reconciler, defaults());
    QSignalSpy finished(&loop, &ControllerLoop::reconcileFinished);
    loop.enqueue(u"a"_s, u"ADDED"_s);
    QCOMPARE(reconciler.calls.size(), 0);
    QTRY_COMPARE(finished.count(), 3); // error, error after >= 5ms, success after >= 10ms
    const QList<Duration> calls = reconciler.callTimes(u"a"_s, reconciler.calls[0].second);
    QVERIFY(calls[1] >= 5ms);
    QVERIFY(calls[2] - calls[1] >= 10ms);
    QCOMPARE(loop.lastRecord(u"a"_s)->result, ReconcileRecord::Result::Success);
}

QTEST_GUILESS_MAIN(tst_ControllerLoop)
#include "tst_controllerloop.moc"
