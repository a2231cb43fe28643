#pragma once

#include "models/lifecycle.h"
#include "models/transitionlog.h"

namespace reconscope::models {

// Lifecycle rules and transition log together: feed it object summaries as they change and it
// returns the transitions they cause. Not thread-safe; one per object stream.
class LifecycleTracker
{
public:
    explicit LifecycleTracker(int historyLimit = TransitionLog::DefaultHistoryLimit);

    // Derives the object's state with the mapping and records a transition when it changed.
    std::optional<Transition>
    upsert(const ObjectSummary &summary, const LifecycleMapping &mapping, const QDateTime &now);
    // The same, also giving the verdict it stored and when the object entered its state (what a
    // table row shows) without looking the object up again.
    std::optional<Transition> upsert(const ObjectSummary &summary,
                                     const LifecycleMapping &mapping,
                                     const QDateTime &now,
                                     LifecycleVerdict *verdict,
                                     QDateTime *since);
    // The same with the verdict derived already (deriveLifecycle(summary, mapping), which needs
    // no tracker: a large batch derives its verdicts on another thread while this one records),
    // without making the transition: whether the object moved, and then from where (`from`;
    // nullopt = [*]). The log holds the transition.
    bool upsertDerived(const ObjectSummary &summary,
                       LifecycleVerdict verdict,
                       const QDateTime &now,
                       QDateTime *since,
                       StateNode *from);
    // The object was deleted.
    std::optional<Transition> remove(const QString &key, const QDateTime &now);
    void clear();
    // Room for this many objects (a large first list).
    void reserve(qsizetype objects);

    // The last verdict for the object (Unknown state for an unknown key).
    LifecycleVerdict verdict(const QString &key) const;
    const TransitionLog &log() const { return m_log; }
    const StateGraphStats &stats() const { return m_log.stats(); }

private:
    TransitionLog m_log; // also keeps each object's verdict
};

} // namespace reconscope::models
