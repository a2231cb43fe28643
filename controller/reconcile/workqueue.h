#pragma once

#include "clock.h"
#include "ratelimiter.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <deque>
#include <map>
#include <memory>
#include <optional>

namespace reconscope::controller::reconcile {

// One key as the console shows the queue.
struct QueueEntry
{
    enum class State { Waiting, Ready, Processing };

    QString key;
    State state = State::Ready;
    int retries = 0; // the rate limiter's numRequeues
    // Waiting: when the delayed add fires. Ready: when it entered the queue. Processing: when a
    // delayed add for it fires, if one is pending.
    std::optional<TimePoint> readyAt;
    // Processing only: it was added again meanwhile and is re-queued on done().
    bool queuedAgain = false;
};

QString stateName(QueueEntry::State state); // "waiting", "ready", "processing"

// client-go's rate-limiting delaying work queue (util/workqueue queue.go, delaying_queue.go,
// rate_limiting_queue.go) for one thread's event loop:
// - add() dedups: a key is in the ready queue at most once, and a key that is being processed
//   (between get() and done()) is never handed out again; if it is added meanwhile it is marked
//   dirty and re-queued by done().
// - addAfter(): a delayed add; for a key already waiting, the earlier ready time wins.
// - addRateLimited(): addAfter(rateLimiter.when(key)); forget() resets the key's failures.
// - get() is non-blocking: it returns the next ready key or nothing; readyToGet() is emitted
//   whenever a key becomes available, so several workers (or one) can pull with get()/done().
// - shutDown(): later adds are ignored, waiting keys are dropped, ready keys can still be drained.
class WorkQueue final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkQueue)

public:
    // The clock must outlive the queue. A null limiter means defaultControllerRateLimiter().
    explicit WorkQueue(Clock &clock,
                       std::unique_ptr<RateLimiter> rateLimiter = nullptr,
                       QObject *parent = nullptr);
    ~WorkQueue() override;

    void add(const QString &key);
    void addAfter(const QString &key, Duration delay);
    // Returns the delay the rate limiter chose.
    Duration addRateLimited(const QString &key);
    void forget(const QString &key);
    int numRequeues(const QString &key) const;

    // The next ready key (FIFO), now marked processing; nothing when none is ready.
    std::optional<QString> get();
    // Takes a specific ready key out of FIFO order (a debugging aid: "step this key").
    std::optional<QString> take(const QString &key);
    // Processing of key finished; if it was added meanwhile it goes back to the ready queue.
    void done(const QString &key);

    void shutDown();
    bool isShuttingDown() const { return m_shuttingDown; }

    // Ready keys (client-go's Len(), the workqueue_depth gauge).
    int len() const { return int(m_queue.size()); }
    int waitingCount() const { return int(m_waitingByKey.size()); }
    int processingCount() const { return int(m_processing.size()); }
    bool isReady(const QString &key) const;
    bool isProcessing(const QString &key) const { return m_processing.contains(key); }
    // When a pending delayed add of key fires, if one is pending.
    std::optional<TimePoint> waitingUntil(const QString &key) const;

    // Counters in the sense of client-go's workqueue metrics.
    quint64 addsTotal() const { return m_addsTotal; }
    quint64 retriesTotal() const { return m_retriesTotal; }

    // Processing keys, then ready keys in queue order, then waiting keys by ready time.
    QList<QueueEntry> snapshot() const;

    Clock &clock() const { return m_clock; }
    RateLimiter &rateLimiter() const { return *m_rateLimiter; }

signals:
    // key entered the ready queue (get() will return it in its turn).
    void readyToGet(const QString &key);
    // A delayed add of key came due (emitted before the resulting add()).
    void delayedAddFired(const QString &key);
    // Anything a snapshot shows changed.
    void changed();

private:
    void push(const QString &key);
    void rescheduleTimer();
    void handleTimer();

    Clock &m_clock;
    std::unique_ptr<RateLimiter> m_rateLimiter;
    std::deque<QString> m_queue;
    QHash<QString, TimePoint> m_readySince; // keys in m_queue
    QSet<QString> m_dirty;
    QSet<QString> m_processing;
    // The delayed adds: ordered by (readyAt, sequence), with an index by key.
    struct WaitKey
    {
        TimePoint at;
        quint64 seq;
        bool operator<(const WaitKey &o) const { return at != o.at ? at < o.at : seq < o.seq; }
    };
    std::map<WaitKey, QString> m_waiting;
    QHash<QString, WaitKey> m_waitingByKey;
    quint64 m_waitSeq = 0;
    Clock::TimerId m_timer = 0;
    std::optional<TimePoint> m_timerAt;
    bool m_shuttingDown = false;
    quint64 m_addsTotal = 0;
    quint64 m_retriesTotal = 0;
};

} // namespace reconscope::controller::reconcile
