#pragma once

#include <QRunnable>

#include <condition_variable>
#include <functional>
#include <mutex>

class QThreadPool;

namespace reconscope::controller::console {

// Work handed to a pool for the rest of an event-loop turn: joined before the turn ends, and taken
// back and done by the joining thread when the pool has not started it (its thread busy, or not
// given a core yet), so that the joining thread never waits for work that is not running. Joined
// once; a second join returns at once. Its start and its end go through a mutex of its own: what
// the starting thread wrote before start() is seen by the work, and what the work wrote is seen
// after join() (also by ThreadSanitizer, which does not see through the pool's own locks).
// Ownership of whatever the work touches passes to the pool's thread at start() and back at
// join(); the starting thread must not touch it in between.
class JoinedTask final : public QRunnable
{
public:
    explicit JoinedTask(std::function<void()> work);
    JoinedTask(const JoinedTask &) = delete;
    JoinedTask &operator=(const JoinedTask &) = delete;

    void start(QThreadPool *pool);
    void join(QThreadPool *pool);
    void run() override;

private:
    std::function<void()> m_work;
    std::mutex m_mutex;
    std::condition_variable m_finished;
    bool m_done = false;
    bool m_joined = false;
};

} // namespace reconscope::controller::console
