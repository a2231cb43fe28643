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
    auto transition = m_log.observe(summary.key,
                                    derived.state,
                                    derived.reason,
                                    summary.generation,
                                    summary.observedGeneration,
                                    now,
                                    since);
    if (verdict)
        *verdict = derived;
    m_verdicts.emplace(summary.key, std::move(derived)); // (insert() would copy)
    return transition;
}

std::optional<Transition> LifecycleTracker::remove(const QString &key, const QDateTime &now)
{
    m_verdicts.remove(key);
    return m_log.remove(key, now, QStringLiteral("object deleted"));
}

void LifecycleTracker::clear()
{
    m_log.clear();
    m_verdicts = {};
}

void LifecycleTracker::reserve(qsizetype objects)
{
    m_log.reserve(objects);
    m_verdicts.reserve(objects);
}

LifecycleVerdict LifecycleTracker::verdict(const QString &key) const
{
    return m_verdicts.value(key);
}

} // namespace reconscope::models
