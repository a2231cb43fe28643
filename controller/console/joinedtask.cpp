#include "controller/console/joinedtask.h"

#include <QThreadPool>

namespace reconscope::controller::console {

JoinedTask::JoinedTask(std::function<void()> work)
    : m_work(std::move(work))
{
    setAutoDelete(false);
}

void JoinedTask::start(QThreadPool *pool)
{
    {
        const std::lock_guard lock(m_mutex);
    }
    pool->start(this);
}

void JoinedTask::run()
{
    {
        const std::lock_guard lock(m_mutex);
    }
    m_work();
    const std::lock_guard lock(m_mutex);
    m_done = true;
    m_finished.notify_one();
}

void JoinedTask::join(QThreadPool *pool)
{
    if (m_joined)
        return;
    m_joined = true;
    if (pool->tryTake(this)) {
        m_work();
        return;
    }
    std::unique_lock lock(m_mutex);
    m_finished.wait(lock, [this] { return m_done; });
}

} // namespace reconscope::controller::console
