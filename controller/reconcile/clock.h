#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

class QTimer;

namespace reconscope::controller::reconcile {

// Durations and instants of the reconciler. Nanoseconds, like Go's time.Duration, so that
// client-go's numbers (5ms base delay, 1000s cap, 10 qps) are exact.
using Duration = std::chrono::nanoseconds;
// A wall-clock instant (UTC) that advances monotonically while the program runs (a Go time.Time
// with its monotonic reading).
using TimePoint = std::chrono::sys_time<std::chrono::nanoseconds>;

QDateTime toDateTime(TimePoint t);
// "5ms", "1.5s", "16m40s": Go's time.Duration.String() style, for logs and the console.
QString formatDuration(Duration d);
inline double toSeconds(Duration d)
{
    return std::chrono::duration<double>(d).count();
}

// The time source of the workqueue and the controller loop, injected so that tests can replace the
// wall clock with a FakeClock and simulate minutes of backoff without waiting.
class Clock
{
public:
    using TimerId = std::uint64_t;

    virtual ~Clock() = default;

    virtual TimePoint now() const = 0;
    // Calls fn once, `delay` from now (a non-positive delay means "as soon as possible", never
    // synchronously inside this call). Returns an id for cancel(); ids are never 0.
    virtual TimerId callAfter(Duration delay, std::function<void()> fn) = 0;
    // Cancels a pending timer; unknown or already fired ids are ignored.
    virtual void cancel(TimerId id) = 0;
};

// The real clock: wall time anchored once, advanced by a monotonic timer; timers are QTimers of the
// calling thread's event loop.
class RealClock final : public Clock
{
public:
    RealClock();
    ~RealClock() override;
    RealClock(const RealClock &) = delete;
    RealClock &operator=(const RealClock &) = delete;

    TimePoint now() const override;
    TimerId callAfter(Duration delay, std::function<void()> fn) override;
    void cancel(TimerId id) override;

private:
    TimePoint m_anchor;
    QElapsedTimer m_elapsed;
    TimerId m_nextId = 1;
    QHash<TimerId, QTimer *> m_timers;
    // "As soon as possible" calls are queued events on m_context, not timers; cancel() drops the
    // id so that the event does nothing.
    std::unique_ptr<QObject> m_context;
    QHash<TimerId, std::function<void()>> m_posted;
};

// A manual clock for tests. Time only moves in step(); due timers fire in order of their deadline
// (ties in scheduling order), each with now() equal to its deadline, including timers scheduled by
// callbacks while stepping.
class FakeClock final : public Clock
{
public:
    explicit FakeClock(TimePoint start = defaultStart());

    TimePoint now() const override { return m_now; }
    TimerId callAfter(Duration delay, std::function<void()> fn) override;
    void cancel(TimerId id) override;

    // Advances time by d (0 fires what is due now); returns how many timers fired.
    int step(Duration d);
    // Advances to the next pending deadline (if any) and fires what is due then.
    int stepToNextTimer();
    int pendingTimers() const { return int(m_timers.size()); }
    // Deadline of the earliest pending timer, or now() when none is pending.
    TimePoint nextDeadline() const;

    static TimePoint defaultStart();

private:
    struct Due
    {
        TimePoint at;
        TimerId id;
        bool operator<(const Due &o) const { return at != o.at ? at < o.at : id < o.id; }
    };

    TimePoint m_now;
    TimerId m_nextId = 1;
    std::map<Due, std::function<void()>> m_timers;
    QHash<TimerId, TimePoint> m_deadlines;
};

} // namespace reconscope::controller::reconcile
