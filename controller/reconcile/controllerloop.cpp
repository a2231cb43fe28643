#include "controllerloop.h"

#include <QPointer>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;

namespace reconscope::controller::reconcile {

QString resultName(ReconcileRecord::Result result)
{
    switch (result) {
    case ReconcileRecord::Result::InProgress:
        return u"in_progress"_s;
    case ReconcileRecord::Result::Success:
        return u"success"_s;
    case ReconcileRecord::Result::Requeue:
        return u"requeue"_s;
    case ReconcileRecord::Result::RequeueAfter:
        return u"requeue_after"_s;
    case ReconcileRecord::Result::Error:
        return u"error"_s;
    case ReconcileRecord::Result::TerminalError:
        return u"terminal_error"_s;
    }
    return {};
}

namespace {

std::unique_ptr<RateLimiter> makeRateLimiter(const ControllerLoop::Options &o)
{
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(
        std::make_unique<ItemExponentialFailureRateLimiter>(o.baseDelay, o.maxDelay));
    if (o.tokenBucket)
        limiters.push_back(std::make_unique<BucketRateLimiter>(o.qps, o.burst));
    return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

QString resultText(const ReconcileResult &r)
{
    if (r.requeueAfter > Duration::zero())
        return u"RequeueAfter=%1"_s.arg(formatDuration(r.requeueAfter));
    return u"Requeue=true"_s;
}

} // namespace

ControllerLoop::ControllerLoop(Clock &clock,
                               Reconciler &reconciler,
                               Options options,
                               QObject *parent)
    : ControllerLoop(clock, &reconciler, nullptr, std::move(options), parent)
{ }

ControllerLoop::ControllerLoop(Clock &clock,
                               AsyncReconciler &reconciler,
                               Options options,
                               QObject *parent)
    : ControllerLoop(clock, nullptr, &reconciler, std::move(options), parent)
{ }

ControllerLoop::ControllerLoop(
    Clock &clock, Reconciler *sync, AsyncReconciler *async, Options options, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_sync(sync)
    , m_async(async)
    , m_options(std::move(options))
    , m_paused(m_options.startPaused)
{
    m_options.maxConcurrentReconciles = std::max(1, m_options.maxConcurrentReconciles);
    m_options.historyPerKey = std::max(1, m_options.historyPerKey);
    m_options.historyKeys = std::max(1, m_options.historyKeys);
    m_options.triggersPerRecord = std::max(1, m_options.triggersPerRecord);
    m_queue = new WorkQueue(clock, makeRateLimiter(m_options), this);
    connect(m_queue, &WorkQueue::readyToGet, this, &ControllerLoop::handleReadyToGet);
    connect(m_queue, &WorkQueue::delayedAddFired, this, &ControllerLoop::handleDelayedAddFired);
    connect(m_queue, &WorkQueue::changed, this, &ControllerLoop::handleQueueChanged);

    using Type = Metrics::Type;
    m_metrics.declare(QString::fromLatin1(ReconcileTotal),
                      Type::Counter,
                      u"Total number of reconciliations per controller"_s);
    m_metrics.declare(QString::fromLatin1(ReconcileErrors),
                      Type::Counter,
                      u"Total number of reconciliation errors per controller"_s);
    m_metrics.declare(QString::fromLatin1(TerminalErrors),
                      Type::Counter,
                      u"Total number of terminal reconciliation errors per controller"_s);
    m_metrics.declare(QString::fromLatin1(ReconcileTime),
                      Type::Histogram,
                      u"Length of time per reconciliation per controller"_s,
                      reconcileTimeBuckets());
    m_metrics.declare(u"controller_runtime_max_concurrent_reconciles"_s,
                      Type::Gauge,
                      u"Maximum number of concurrent reconciles per controller"_s);
    m_metrics.declare(u"controller_runtime_active_workers"_s,
                      Type::Gauge,
                      u"Number of currently used workers per controller"_s);
    m_metrics.declare(
        QString::fromLatin1(WorkqueueDepth), Type::Gauge, u"Current depth of workqueue"_s);
    m_metrics.declare(QString::fromLatin1(WorkqueueAdds),
                      Type::Counter,
                      u"Total number of adds handled by workqueue"_s);
    m_metrics.declare(QString::fromLatin1(WorkqueueRetries),
                      Type::Counter,
                      u"Total number of retries handled by workqueue"_s);
    // client-go's workqueue latency buckets: ExponentialBuckets(10e-9, 10, 12), 10ns .. 1000s.
    std::vector<double> latencyBuckets;
    for (double b = 1e-8; latencyBuckets.size() < 12; b *= 10)
        latencyBuckets.push_back(b);
    m_metrics.declare(QString::fromLatin1(WorkqueueQueueDuration),
                      Type::Histogram,
                      u"How long in seconds an item stays in workqueue before being requested"_s,
                      latencyBuckets);
    m_metrics.declare(QString::fromLatin1(WorkqueueWorkDuration),
                      Type::Histogram,
                      u"How long in seconds processing an item from workqueue takes."_s,
                      latencyBuckets);
    m_metrics.declare(QString::fromLatin1(WorkqueueUnfinished),
                      Type::Gauge,
                      u"How many seconds of work has been done that is in progress and hasn't been "
                      "observed by work_duration. Large values indicate stuck threads. One can "
                      "deduce the number of stuck threads by observing the rate at which this "
                      "increases."_s);
    m_metrics.declare(QString::fromLatin1(WorkqueueLongestRunning),
                      Type::Gauge,
                      u"How many seconds has the longest running processor for workqueue been "
                      "running."_s);
    m_metrics.declare(QString::fromLatin1(Conflicts),
                      Type::Counter,
                      u"Writes answered with 409 Conflict, per controller and writer"_s);
    m_metrics.declare(
        QString::fromLatin1(IgnoredResults),
        Type::Counter,
        u"Reconciles that returned an error together with a non-zero Result (the Result is ignored)"_s);

    m_metrics.declare(QString::fromLatin1(EndToEndLatency),
                      Type::Histogram,
                      u"Time from a spec change (generation bump) seen in the watch until the "
                      "status caught up (stage observed) and until the object was Ready or "
                      "Degraded (stage settled), per controller"_s,
                      reconcileTimeBuckets());

    // Every series exists from the start, as controller-runtime's initMetrics does.
    const MetricLabels controller = controllerLabel();
    for (const QString &result : { u"error"_s, u"requeue_after"_s, u"requeue"_s, u"success"_s }) {
        MetricLabels labels = controller;
        labels.append({ u"result"_s, result });
        m_metrics.ensure(QString::fromLatin1(ReconcileTotal), labels);
    }
    m_metrics.ensure(QString::fromLatin1(ReconcileErrors), controller);
    m_metrics.ensure(QString::fromLatin1(TerminalErrors), controller);
    m_metrics.ensure(QString::fromLatin1(IgnoredResults), controller);
    m_metrics.ensure(QString::fromLatin1(ReconcileTime), controller);
    for (const QString &stage : { u"observed"_s, u"settled"_s }) {
        MetricLabels labels = controller;
        labels.append({ u"stage"_s, stage });
        m_metrics.ensure(QString::fromLatin1(EndToEndLatency), labels);
    }
    m_metrics.ensure(u"controller_runtime_active_workers"_s, controller);
    m_metrics.ensure(QString::fromLatin1(WorkqueueQueueDuration), queueLabels());
    m_metrics.ensure(QString::fromLatin1(WorkqueueWorkDuration), queueLabels());
    m_metrics.set(u"controller_runtime_max_concurrent_reconciles"_s,
                  controller,
                  m_options.maxConcurrentReconciles);
    handleQueueChanged();
    refreshMetrics();
}

ControllerLoop::~ControllerLoop()
{
    if (m_dispatchTimer != 0)
        m_clock.cancel(m_dispatchTimer);
}

void ControllerLoop::recordEndToEnd(double observedSeconds, double settledSeconds)
{
    for (const auto &[stage, seconds] : { std::pair{ u"observed"_s, observedSeconds },
                                          std::pair{ u"settled"_s, settledSeconds } }) {
        MetricLabels labels = controllerLabel();
        labels.append({ u"stage"_s, stage });
        m_metrics.observe(QString::fromLatin1(EndToEndLatency), labels, seconds);
    }
}

MetricLabels ControllerLoop::controllerLabel() const
{
    return { { u"controller"_s, m_options.name } };
}

MetricLabels ControllerLoop::queueLabels() const
{
    return { { u"name"_s, m_options.name }, { u"controller"_s, m_options.name } };
}

void ControllerLoop::notePending(const QString &key, const QString &trigger, TimePoint at)
{
    Pending &pending = m_pending[key];
    if (!pending.queuedAt)
        pending.queuedAt = at;
    ++pending.count;
    if (pending.triggers.size() < m_options.triggersPerRecord)
        pending.triggers.append(trigger);
}

void ControllerLoop::enqueue(const QString &key, const QString &trigger)
{
    if (m_stopped)
        return;
    notePending(key, trigger, m_clock.now());
    m_queue->add(key);
}

void ControllerLoop::enqueueAfter(const QString &key, Duration delay, const QString &trigger)
{
    if (delay <= Duration::zero()) {
        enqueue(key, trigger);
        return;
    }
    requeueAfter(key, delay, trigger);
}

void ControllerLoop::requeueAfter(const QString &key, Duration delay, const QString &trigger)
{
    if (m_stopped)
        return;
    const TimePoint now = m_clock.now();
    if (delay <= Duration::zero())
        notePending(key, trigger, now);
    m_queue->addAfter(key, delay);
    if (delay > Duration::zero() && m_queue->waitingUntil(key) == now + delay)
        m_delayed.insert(key, { trigger, now }); // this request is the one that will fire
}

Duration ControllerLoop::requeueRateLimited(const QString &key, const QString &trigger)
{
    if (m_stopped)
        return Duration::zero();
    const Duration delay = m_queue->rateLimiter().when(key, m_clock.now());
    requeueAfter(key, delay, u"%1 (backoff %2)"_s.arg(trigger, formatDuration(delay)));
    return delay;
}

void ControllerLoop::handleDelayedAddFired(const QString &key)
{
    const Delayed delayed = m_delayed.contains(key) ? m_delayed.take(key)
                                                    : Delayed{ u"delayed add"_s, m_clock.now() };
    notePending(key, delayed.trigger, delayed.requestedAt);
}

void ControllerLoop::handleReadyToGet(const QString &key)
{
    Pending &pending = m_pending[key];
    if (!pending.readyAt)
        pending.readyAt = m_clock.now();
    scheduleDispatch();
}

void ControllerLoop::handleQueueChanged()
{
    m_metrics.set(QString::fromLatin1(WorkqueueDepth), queueLabels(), m_queue->len());
    m_metrics.set(QString::fromLatin1(WorkqueueAdds), queueLabels(), double(m_queue->addsTotal()));
    m_metrics.set(
        QString::fromLatin1(WorkqueueRetries), queueLabels(), double(m_queue->retriesTotal()));
    emit queueChanged();
}

void ControllerLoop::setPaused(bool paused)
{
    if (m_paused == paused)
        return;
    m_paused = paused;
    if (!paused)
        scheduleDispatch();
    emit pausedChanged(paused);
}

bool ControllerLoop::step(const QString &key)
{
    if (!m_paused || m_stopped || inFlight() >= m_options.maxConcurrentReconciles)
        return false;
    const std::optional<QString> next = key.isEmpty() ? m_queue->get() : m_queue->take(key);
    if (!next)
        return false;
    startReconcile(*next, true);
    return true;
}

void ControllerLoop::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    if (m_dispatchTimer != 0)
        m_clock.cancel(m_dispatchTimer);
    m_dispatchTimer = 0;
    m_delayed.clear();
    m_queue->shutDown();
}

void ControllerLoop::scheduleDispatch()
{
    if (m_paused || m_stopped || m_dispatchTimer != 0)
        return;
    // Never reconcile inside the caller's stack (an informer handler, a timer of the queue): the
    // clock runs the dispatch from the event loop (or from FakeClock::step in tests).
    m_dispatchTimer = m_clock.callAfter(Duration::zero(), [this] {
        m_dispatchTimer = 0;
        dispatch();
    });
}

void ControllerLoop::dispatch()
{
    if (m_paused || m_stopped || inFlight() >= m_options.maxConcurrentReconciles)
        return;
    const std::optional<QString> key = m_queue->get();
    if (!key)
        return;
    startReconcile(*key, false);
    // One reconcile per turn so that a busy queue does not starve the rest of the event loop.
    if (m_queue->len() > 0)
        scheduleDispatch();
}

void ControllerLoop::startReconcile(const QString &key, bool stepped)
{
    const TimePoint now = m_clock.now();
    const Pending pending = m_pending.take(key);

    ReconcileRecord record;
    record.id = m_nextId++;
    record.key = key;
    record.queuedAt = pending.queuedAt.value_or(pending.readyAt.value_or(now));
    record.triggers = pending.triggers;
    record.triggerCount = pending.count;
    if (record.triggers.isEmpty()) {
        record.triggers.append(u"queue add"_s); // added to queue() directly
        record.triggerCount = 1;
    }
    record.readyAt = pending.readyAt;
    record.startedAt = now;
    record.waitTime = pending.readyAt ? now - *pending.readyAt : Duration::zero();
    record.failuresBefore = m_queue->numRequeues(key);
    record.stepped = stepped;
    m_running.insert(record.id, record);
    m_metrics.observe(
        QString::fromLatin1(WorkqueueQueueDuration), queueLabels(), toSeconds(record.waitTime));
    storeRecord(record);
    m_metrics.set(u"controller_runtime_active_workers"_s, controllerLabel(), inFlight());
    emit reconcileStarted(key, record.id);

    const quint64 id = record.id;
    auto called = std::make_shared<bool>(false);
    QPointer<ControllerLoop> self(this);
    AsyncReconciler::Completion complete = [self, id, key, called](ReconcileOutcome outcome) {
        if (*called) {
            spdlog::warn("reconciler completed {} twice; the second outcome is ignored",
                         key.toStdString());
            return;
        }
        *called = true;
        if (self)
            self->finishReconcile(id, key, std::move(outcome));
    };
    if (m_sync)
        complete(m_sync->reconcile(key));
    else
        m_async->reconcileAsync(key, std::move(complete));
}

void ControllerLoop::finishReconcile(quint64 id, const QString &key, ReconcileOutcome outcome)
{
    const auto running = m_running.find(id);
    if (running == m_running.end())
        return;
    ReconcileRecord record = running.value();
    m_running.erase(running);

    const TimePoint now = m_clock.now();
    record.duration = now - record.startedAt;
    record.writes = outcome.writes;
    record.conflicts = outcome.conflicts;
    const MetricLabels controller = controllerLabel();
    m_metrics.observe(QString::fromLatin1(ReconcileTime), controller, toSeconds(record.duration));
    m_metrics.observe(
        QString::fromLatin1(WorkqueueWorkDuration), queueLabels(), toSeconds(record.duration));
    auto countResult = [&](const QString &label) {
        MetricLabels labels = controller;
        labels.append({ u"result"_s, label });
        m_metrics.add(QString::fromLatin1(ReconcileTotal), labels);
    };

    if (outcome.error) {
        record.error = outcome.error->message;
        m_metrics.add(QString::fromLatin1(ReconcileErrors), controller);
        countResult(u"error"_s);
        if (outcome.error->terminal) {
            record.result = ReconcileRecord::Result::TerminalError;
            m_metrics.add(QString::fromLatin1(TerminalErrors), controller);
            record.explanation
                = u"Terminal error: not retried. It runs again when the object, or something it "
                  "watches, changes."_s;
        } else {
            record.result = ReconcileRecord::Result::Error;
            const int failure = m_queue->numRequeues(key) + 1;
            record.retryDelay
                = requeueRateLimited(key, u"retry after error, failure %1"_s.arg(failure));
            record.explanation
                = u"Error: retried through the rate limiter in %1 (failure %2); "
                  "the backoff resets after a success."_s.arg(formatDuration(record.retryDelay))
                      .arg(failure);
        }
        if (!outcome.result.isZero()) {
            record.resultIgnored = true;
            m_metrics.add(QString::fromLatin1(IgnoredResults), controller);
            record.explanation
                += u" The reconciler also returned %1: when an error is returned "
                   "the Result is ignored (controller-runtime logs a warning). Return "
                   "either an error (backoff) or a Result with a nil error."_s.arg(
                       resultText(outcome.result));
            spdlog::warn("reconcile {}: returned both an error and {}; the result is ignored",
                         key.toStdString(),
                         resultText(outcome.result).toStdString());
        }
        spdlog::debug("reconcile {}: {}error: {}",
                      key.toStdString(),
                      outcome.error->terminal ? "terminal " : "",
                      outcome.error->message.toStdString());
    } else if (outcome.result.requeueAfter > Duration::zero()) {
        record.result = ReconcileRecord::Result::RequeueAfter;
        m_queue->forget(key);
        record.retryDelay = outcome.result.requeueAfter;
        requeueAfter(key,
                     outcome.result.requeueAfter,
                     u"requeueAfter %1"_s.arg(formatDuration(outcome.result.requeueAfter)));
        countResult(u"requeue_after"_s);
        record.explanation = u"RequeueAfter: the backoff was reset and it runs again in %1."_s.arg(
            formatDuration(outcome.result.requeueAfter));
    } else if (outcome.result.requeue) {
        record.result = ReconcileRecord::Result::Requeue;
        record.retryDelay = requeueRateLimited(key, u"requeue (rate limited)"_s);
        countResult(u"requeue"_s);
        record.explanation = u"Requeue: runs again through the rate limiter in %1."_s.arg(
            formatDuration(record.retryDelay));
    } else {
        record.result = ReconcileRecord::Result::Success;
        m_queue->forget(key);
        countResult(u"success"_s);
        record.explanation = u"Success: the backoff was reset; it runs again on the next change."_s;
    }
    if (record.result != ReconcileRecord::Result::Success
        && record.result != ReconcileRecord::Result::TerminalError && !m_stopped) {
        if (const auto waiting = m_queue->waitingUntil(key))
            record.nextRetryAt = *waiting;
        else
            record.nextRetryAt = now + record.retryDelay;
    }
    for (const QString &writer : std::as_const(outcome.conflicts))
        recordConflict(writer);

    m_queue->done(key);
    m_metrics.set(u"controller_runtime_active_workers"_s, controllerLabel(), inFlight());
    storeRecord(record);
    emit reconcileFinished(record);
    if (m_queue->len() > 0)
        scheduleDispatch();
}

void ControllerLoop::refreshMetrics()
{
    const TimePoint now = m_clock.now();
    double unfinished = 0;
    double longest = 0;
    for (const ReconcileRecord &running : std::as_const(m_running)) {
        const double seconds = toSeconds(now - running.startedAt);
        unfinished += seconds;
        longest = std::max(longest, seconds);
    }
    m_metrics.set(QString::fromLatin1(WorkqueueUnfinished), queueLabels(), unfinished);
    m_metrics.set(QString::fromLatin1(WorkqueueLongestRunning), queueLabels(), longest);
}

QByteArray ControllerLoop::metricsText()
{
    refreshMetrics();
    return m_metrics.renderText();
}

void ControllerLoop::recordConflict(const QString &writer)
{
    MetricLabels labels = controllerLabel();
    labels.append({ u"writer"_s, writer });
    m_metrics.add(QString::fromLatin1(Conflicts), labels);
}

void ControllerLoop::storeRecord(const ReconcileRecord &record)
{
    auto it = m_history.find(record.key);
    if (it == m_history.end()) {
        if (m_history.size() >= m_options.historyKeys) {
            // Forget the key whose history was touched least recently.
            auto oldest = m_historyTouched.constBegin();
            for (auto t = m_historyTouched.constBegin(); t != m_historyTouched.constEnd(); ++t) {
                if (t.value() < oldest.value())
                    oldest = t;
            }
            m_history.remove(oldest.key());
            m_historyTouched.remove(oldest.key());
        }
        it = m_history.insert(record.key, {});
    }
    m_historyTouched.insert(record.key, ++m_touch);
    std::deque<ReconcileRecord> &records = it.value();
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
        if (r->id == record.id) {
            *r = record;
            return;
        }
    }
    records.push_back(record);
    while (int(records.size()) > m_options.historyPerKey)
        records.pop_front();
}

QList<ReconcileRecord> ControllerLoop::history(const QString &key) const
{
    const auto it = m_history.constFind(key);
    if (it == m_history.constEnd())
        return {};
    return QList<ReconcileRecord>(it->begin(), it->end());
}

QStringList ControllerLoop::historyKeys() const
{
    QStringList keys = m_history.keys();
    keys.sort();
    return keys;
}

std::optional<ReconcileRecord> ControllerLoop::lastRecord(const QString &key) const
{
    const auto it = m_history.constFind(key);
    if (it == m_history.constEnd() || it->empty())
        return std::nullopt;
    return it->back();
}

} // namespace reconscope::controller::reconcile
