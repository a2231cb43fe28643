#include "models/lifecycletracker.h"

using namespace Qt::StringLiterals;

namespace reconscope::models {

LifecycleTracker::LifecycleTracker(int historyLimit)
    : m_log(historyLimit)
{ }

std::optional<Transition> LifecycleTracker::upsert(const ObjectSummary &summary,
                                                   const LifecycleMapping &mapping,
                                                   const QDateTime &now,
                                                   Observed observed)
{
    return upsert(summary, mapping, now, observed, nullptr, nullptr);
}

std::optional<Transition> LifecycleTracker::upsert(const ObjectSummary &summary,
                                                   const LifecycleMapping &mapping,
                                                   const QDateTime &now,
                                                   Observed observed,
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
                         observed,
                         since);
}

bool LifecycleTracker::upsertDerived(const ObjectSummary &summary,
                                     LifecycleVerdict verdict,
                                     const QDateTime &now,
                                     Observed observed,
                                     QDateTime *since,
                                     StateNode *from,
                                     Observed *how)
{
    return m_log.observeMove(summary.key,
                             std::move(verdict),
                             summary.generation,
                             summary.observedGeneration,
                             now,
                             observed,
                             since,
                             from,
                             how);
}

std::optional<Transition>
LifecycleTracker::remove(const QString &key, const QDateTime &now, Observed observed)
{
    return m_log.remove(key,
                        now,
                        observed == Observed::Live ? u"object deleted"_s
                                                   : u"object gone when relisted after a gap"_s,
                        observed == Observed::Live ? Observed::Live : Observed::AcrossGap);
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
