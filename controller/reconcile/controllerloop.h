#pragma once

#include "clock.h"
#include "metrics.h"
#include "reconciler.h"
#include "workqueue.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <deque>
#include <optional>

namespace reconscope::controller::reconcile {

// One reconcile of one key, as the console's per-key history shows it.
struct ReconcileRecord
{
    enum class Result {
        InProgress,
        Success, // no error, zero Result: Forget
        Requeue, // Result.Requeue: rate-limited requeue
        RequeueAfter, // Result.RequeueAfter > 0: Forget, then add after the delay
        Error, // transient error: rate-limited requeue, no Forget
        TerminalError, // terminal error: no requeue
    };

    quint64 id = 0; // increases with every reconcile the loop starts
    QString key;
    TimePoint queuedAt{}; // when the first trigger of this run asked for it
    QStringList triggers; // why: the events coalesced into this run (first ones, capped)
    int triggerCount = 0; // all of them, including those beyond the cap
    std::optional<TimePoint> readyAt; // when it entered the ready queue
    Duration waitTime = Duration::zero(); // startedAt - readyAt: time spent ready but not running
    TimePoint startedAt{};
    Duration duration = Duration::zero();
    Result result = Result::InProgress;
    QString error;
    QStringList writes;
    QStringList conflicts;
    int failuresBefore = 0; // the rate limiter's numRequeues when it started
    std::optional<TimePoint> nextRetryAt; // when the loop will run it again on its own
    Duration retryDelay = Duration::zero();
    // The reconciler returned an error together with a non-zero Result: the Result was ignored
    // and the rate limiter decided the retry, as controller-runtime does.
    bool resultIgnored = false;
    QString explanation; // how the loop handled the outcome, in words
    bool stepped = false; // run by step() while paused
};

QString
resultName(ReconcileRecord::Result result); // "success", "requeue_after", "terminal_error"...

// controller-runtime's controller loop (pkg/internal/controller/controller.go) on a Qt event loop:
// it owns a rate-limited WorkQueue, hands ready keys to the reconciler (at most
// maxConcurrentReconciles at once, never one key twice), and applies reconcileHandler's result
// handling:
// - error (not terminal) -> AddRateLimited, no Forget; with a non-zero Result too, the Result is
//   ignored (counted, and explained in the history: the seed's sample-code mistake);
// - terminal error -> no requeue (counted);
// - RequeueAfter > 0 -> Forget, then AddAfter; Requeue -> AddRateLimited; success -> Forget.
// Debugging aids on top: pause/resume, step one key while paused, per-key history, queue snapshot,
// and controller-runtime's metrics in Prometheus text format.
class ControllerLoop final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControllerLoop)

public:
    struct Options
    {
        QString name = QStringLiteral("customapp"); // the controller/name label of the metrics
        int maxConcurrentReconciles = 1;
        bool startPaused = false;
        // The rate limiter: per-key exponential backoff, max'ed with an overall token bucket.
        Duration baseDelay = ItemExponentialFailureRateLimiter::DefaultBaseDelay;
        Duration maxDelay = ItemExponentialFailureRateLimiter::DefaultMaxDelay;
        bool tokenBucket = true;
        double qps = BucketRateLimiter::DefaultQps;
        int burst = BucketRateLimiter::DefaultBurst;
        // History bounds.
        int historyPerKey = 32;
        int historyKeys = 1000;
        int triggersPerRecord = 16;
    };

    // The clock and the reconciler must outlive the loop.
    ControllerLoop(Clock &clock,
                   Reconciler &reconciler,
                   Options options,
                   QObject *parent = nullptr);
    ControllerLoop(Clock &clock,
                   AsyncReconciler &reconciler,
                   Options options,
                   QObject *parent = nullptr);
    ~ControllerLoop() override;

    // Event sources (informer handlers, the UI) ask for a reconcile; trigger says why
    // ("ADDED customapps default/web rv=12", "owned Deployment changed", "manual").
    void enqueue(const QString &key, const QString &trigger);
    void enqueueAfter(const QString &key, Duration delay, const QString &trigger);

    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    // While paused: runs exactly one ready key (the head of the queue, or `key` if it is ready).
    // Returns false when not paused, nothing (or not that key) is ready, or all workers are busy.
    bool step(const QString &key = {});
    // Shuts the queue down: nothing new starts; reconciles in flight finish and are recorded.
    void stop();
    bool isStopped() const { return m_stopped; }

    int inFlight() const { return int(m_running.size()); }
    const Options &options() const { return m_options; }
    WorkQueue &queue() { return *m_queue; }
    QList<QueueEntry> queueSnapshot() const { return m_queue->snapshot(); }

    // Oldest first; the last one may be InProgress.
    QList<ReconcileRecord> history(const QString &key) const;
    QStringList historyKeys() const;
    std::optional<ReconcileRecord> lastRecord(const QString &key) const;

    // A 409 Conflict outside a reconcile (e.g. the patch lab): counted per writer.
    void recordConflict(const QString &writer);
    // One spec change's end-to-end latency as the watch saw it (generation bump until
    // status.observedGeneration caught up, and until the object was Ready or Degraded after it),
    // beside controller-runtime's reconcile time, which counts one Reconcile() call only.
    void recordEndToEnd(double observedSeconds, double settledSeconds);

    // The registry; the time-dependent workqueue gauges (unfinished work, longest running
    // processor) are brought up to date by metricsText() and refreshMetrics().
    const Metrics &metrics() const { return m_metrics; }
    void refreshMetrics();
    QByteArray metricsText();

    // Metric names, for consumers that read single values.
    static constexpr const char *ReconcileTotal = "controller_runtime_reconcile_total";
    static constexpr const char *ReconcileErrors = "controller_runtime_reconcile_errors_total";
    static constexpr const char *TerminalErrors
        = "controller_runtime_terminal_reconcile_errors_total";
    static constexpr const char *ReconcileTime = "controller_runtime_reconcile_time_seconds";
    static constexpr const char *WorkqueueDepth = "workqueue_depth";
    static constexpr const char *WorkqueueAdds = "workqueue_adds_total";
    static constexpr const char *WorkqueueRetries = "workqueue_retries_total";
    static constexpr const char *WorkqueueQueueDuration = "workqueue_queue_duration_seconds";
    static constexpr const char *WorkqueueWorkDuration = "workqueue_work_duration_seconds";
    static constexpr const char *WorkqueueUnfinished = "workqueue_unfinished_work_seconds";
    static constexpr const char *WorkqueueLongestRunning
        = "workqueue_longest_running_processor_seconds";
    static constexpr const char *Conflicts = "reconscope_write_conflicts_total";
    static constexpr const char *IgnoredResults = "reconscope_reconcile_ignored_results_total";
    // Labelled by controller and stage: "observed" (status caught up) or "settled".
    static constexpr const char *EndToEndLatency = "reconscope_reconcile_end_to_end_seconds";

signals:
    void reconcileStarted(const QString &key, quint64 recordId);
    void reconcileFinished(const reconscope::controller::reconcile::ReconcileRecord &record);
    void queueChanged();
    void pausedChanged(bool paused);

private:
    struct Pending
    {
        std::optional<TimePoint> queuedAt;
        QStringList triggers;
        int count = 0;
        std::optional<TimePoint> readyAt;
    };
    struct Delayed
    {
        QString trigger;
        TimePoint requestedAt;
    };

    ControllerLoop(
        Clock &clock, Reconciler *sync, AsyncReconciler *async, Options options, QObject *parent);
    void notePending(const QString &key, const QString &trigger, TimePoint at);
    void requeueAfter(const QString &key, Duration delay, const QString &trigger);
    Duration requeueRateLimited(const QString &key, const QString &trigger);
    void handleReadyToGet(const QString &key);
    void handleDelayedAddFired(const QString &key);
    void handleQueueChanged();
    void scheduleDispatch();
    void dispatch();
    void startReconcile(const QString &key, bool stepped);
    void finishReconcile(quint64 id, const QString &key, ReconcileOutcome outcome);
    void storeRecord(const ReconcileRecord &record);
    MetricLabels controllerLabel() const;
    MetricLabels queueLabels() const;

    Clock &m_clock;
    Reconciler *m_sync = nullptr;
    AsyncReconciler *m_async = nullptr;
    Options m_options;
    WorkQueue *m_queue = nullptr;
    Metrics m_metrics;
    bool m_paused = false;
    bool m_stopped = false;
    Clock::TimerId m_dispatchTimer = 0;
    quint64 m_nextId = 1;
    quint64 m_touch = 0;
    QHash<QString, Pending> m_pending;
    QHash<QString, Delayed> m_delayed;
    QHash<quint64, ReconcileRecord> m_running;
    QHash<QString, std::deque<ReconcileRecord>> m_history;
    QHash<QString, quint64> m_historyTouched;
};

} // namespace reconscope::controller::reconcile
