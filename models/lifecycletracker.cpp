#include "models/lifecycletracker.h"

namespace reconscope::models {

LifecycleTracker::LifecycleTracker(int historyLimit)
    : m_log(historyLimit)
{ }

std::optional<Transition> LifecycleTracker::upsert(const ObjectSummary &summary,
                                                   const LifecycleMapping &mapping,
                                                   const QDateTime &now)
{
    return upsert(summary, mapping, now, nullptr, nullptr);
}

std::optional<Transition> LifecycleTracker::upsert(const ObjectSummary &summary,
                                                   const LifecycleMapping &mapping,
                                                   const QDateTime &now,
                                                   LifecycleVerdict *verdict,
                                                   QDateTime *since)
{
    LifecycleVerdict derived = deriveLifecycle(summary, mapping);
    if (verdict)
        *verdict = derived;
    // The log keeps the verdict with the object's transitions: one hash entry per object.
    return m_log.observe(summary.key,
                         std::move(derived),
                         summary.generation,
                         summary.observedGeneration,
                         now,
                         since);
}

bool LifecycleTracker::upsertDerived(const ObjectSummary &summary,
                                     LifecycleVerdict verdict,
                                     const QDateTime &now,
                                     QDateTime *since,
                                     StateNode *from)
{
    return m_log.observeMove(summary.key,
                             std::move(verdict),
                             summary.generation,
                             summary.observedGeneration,
                             now,
                             since,
                             from);
}

std::optional<Transition> LifecycleTracker::remove(const QString &key, const QDateTime &now)
{
    return m_log.remove(key, now, QStringLiteral("object deleted"));
}

void LifecycleTracker::clear()
{
    m_log.clear();
}

void LifecycleTracker::reserve(qsizetype objects)
{
    m_log.reserve(objects);
}

LifecycleVerdict LifecycleTracker::verdict(const QString &key) const
{
    return m_log.verdict(key);
}

} // namespace reconscope::models
