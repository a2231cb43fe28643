#include "models/lifecycletracker.h"

namespace reconscope::models {

LifecycleTracker::LifecycleTracker(int historyLimit)
    : m_log(historyLimit)
{ }

std::optional<Transition> LifecycleTracker::upsert(const ObjectSummary &summary,
                                                   const LifecycleMapping &mapping,
                                                   const QDateTime &now)
{
    LifecycleVerdict verdict = deriveLifecycle(summary, mapping);
    auto transition = m_log.observe(summary.key,
                                    verdict.state,
                                    verdict.reason,
                                    summary.generation,
                                    summary.observedGeneration,
                                    now);
    m_verdicts.insert(summary.key, std::move(verdict));
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
