#include "workqueue.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::reconcile {

QString stateName(QueueEntry::State state)
{
    switch (state) {
    case QueueEntry::State::Waiting:
        return u"waiting"_s;
    case QueueEntry::State::Ready:
        return u"ready"_s;
    case QueueEntry::State::Processing:
        return u"processing"_s;
    }
    return {};
}

WorkQueue::WorkQueue(Clock &clock, std::unique_ptr<RateLimiter> rateLimiter, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_rateLimiter(rateLimiter ? std::move(rateLimiter) : defaultControllerRateLimiter())
{ }

WorkQueue::~WorkQueue()
{
    if (m_timer != 0)
        m_clock.cancel(m_timer);
}

void WorkQueue::add(const QString &key)
{
    if (m_shuttingDown || m_dirty.contains(key))
        return;
    m_dirty.insert(key);
    ++m_addsTotal;
    if (m_processing.contains(key)) {
        // Re-queued by done(): never hand a key to two workers at once.
        emit changed();
        return;
    }
    push(key);
}

void WorkQueue::push(const QString &key)
{
    m_queue.push_back(key);
    m_readySince.insert(key, m_clock.now());
    emit readyToGet(key);
    emit changed();
}

void WorkQueue::addAfter(const QString &key, Duration delay)
{
    if (m_shuttingDown)
        return;
    ++m_retriesTotal;
    if (delay <= Duration::zero()) {
        add(key);
        return;
    }
    const TimePoint at = m_clock.now() + delay;
    const auto existing = m_waitingByKey.constFind(key);
    if (existing != m_waitingByKey.constEnd()) {
        if (existing->at <= at)
            return; // the earlier ready time wins
        m_waiting.erase(*existing);
    }
    const WaitKey wait{ at, m_waitSeq++ };
    m_waiting.emplace(wait, key);
    m_waitingByKey.insert(key, wait);
    rescheduleTimer();
    emit changed();
}

Duration WorkQueue::addRateLimited(const QString &key)
{
    if (m_shuttingDown)
        return Duration::zero();
    const Duration delay = m_rateLimiter->when(key, m_clock.now());
    addAfter(key, delay);
    return delay;
}

void WorkQueue::forget(const QString &key)
{
    m_rateLimiter->forget(key);
    emit changed();
}

int WorkQueue::numRequeues(const QString &key) const
{
    return m_rateLimiter->numRequeues(key);
}

std::optional<QString> WorkQueue::get()
{
    if (m_queue.empty())
        return std::nullopt;
    QString key = m_queue.front();
    m_queue.pop_front();
    m_readySince.remove(key);
    m_processing.insert(key);
    m_dirty.remove(key);
    emit changed();
    return key;
}

std::optional<QString> WorkQueue::take(const QString &key)
{
    const auto it = std::find(m_queue.begin(), m_queue.end(), key);
    if (it == m_queue.end())
        return std::nullopt;
    m_queue.erase(it);
    m_readySince.remove(key);
    m_processing.insert(key);
    m_dirty.remove(key);
    emit changed();
    return key;
}

void WorkQueue::done(const QString &key)
{
    if (!m_processing.remove(key))
        return;
    if (m_dirty.contains(key))
        push(key);
    else
        emit changed();
}

void WorkQueue::shutDown()
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    if (m_timer != 0)
        m_clock.cancel(m_timer);
    m_timer = 0;
    m_timerAt.reset();
    m_waiting.clear();
    m_waitingByKey.clear();
    emit changed();
}

bool WorkQueue::isReady(const QString &key) const
{
    return m_readySince.contains(key);
}

std::optional<TimePoint> WorkQueue::waitingUntil(const QString &key) const
{
    const auto it = m_waitingByKey.constFind(key);
    if (it == m_waitingByKey.constEnd())
        return std::nullopt;
    return it->at;
}

void WorkQueue::rescheduleTimer()
{
    if (m_waiting.empty()) {
        if (m_timer != 0)
            m_clock.cancel(m_timer);
        m_timer = 0;
        m_timerAt.reset();
        return;
    }
    const TimePoint next = m_waiting.begin()->first.at;
    if (m_timer != 0 && m_timerAt == next)
        return;
    if (m_timer != 0)
        m_clock.cancel(m_timer);
    m_timerAt = next;
    m_timer = m_clock.callAfter(next - m_clock.now(), [this] { handleTimer(); });
}

void WorkQueue::handleTimer()
{
    m_timer = 0;
    m_timerAt.reset();
    while (!m_waiting.empty() && !m_shuttingDown) {
        const auto first = m_waiting.begin();
        if (first->first.at > m_clock.now())
            break;
        const QString key = first->second;
        m_waiting.erase(first);
        m_waitingByKey.remove(key);
        emit delayedAddFired(key);
        add(key);
    }
    rescheduleTimer();
    emit changed();
}

QList<QueueEntry> WorkQueue::snapshot() const
{
    QList<QueueEntry> entries;
    entries.reserve(m_processing.size() + qsizetype(m_queue.size()) + m_waitingByKey.size());
    QStringList processing = m_processing.values();
    processing.sort();
    for (const QString &key : std::as_const(processing)) {
        QueueEntry entry{ key,
                          QueueEntry::State::Processing,
                          numRequeues(key),
                          waitingUntil(key),
                          m_dirty.contains(key) };
        entries.append(entry);
    }
    for (const QString &key : m_queue)
        entries.append(
            { key, QueueEntry::State::Ready, numRequeues(key), m_readySince.value(key), false });
    for (const auto &[wait, key] : m_waiting) {
        if (m_processing.contains(key) || m_readySince.contains(key))
            continue; // shown with its stronger state
        entries.append({ key, QueueEntry::State::Waiting, numRequeues(key), wait.at, false });
    }
    return entries;
}

} // namespace reconscope::controller::reconcile
