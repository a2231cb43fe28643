#pragma once

#include "models/lifecycle.h"
#include "models/transitionlog.h"

namespace reconscope::models {

// Lifecycle rules and transition log together: feed it object summaries as they change and it
// returns the transitions they cause. Each observation says how it was made: the list made when
// the watch connects is a census (objects enter their state as observed at connect, counted
// apart, never transitions), a relist after a watch gap finds at most one move per object
// (marked across a gap; an unchanged object is nothing), watch events are live moves. Not
// thread-safe; one per object stream.
class LifecycleTracker
{
public:
    explicit LifecycleTracker(int historyLimit = TransitionLog::DefaultHistoryLimit);

    // Derives the object's state with the mapping and records a transition when it changed (or
    // its census entry).
    std::optional<Transition> upsert(const ObjectSummary &summary,
                                     const LifecycleMapping &mapping,
                                     const QDateTime &now,
                                     Observed observed = Observed::Live);
    // The same, also giving the verdict it stored and when the object entered its state (what a
    // table row shows; invalid when unknown) without looking the object up again.
    std::optional<Transition> upsert(const ObjectSummary &summary,
                                     const LifecycleMapping &mapping,
                                     const QDateTime &now,
                                     Observed observed,
                                     LifecycleVerdict *verdict,
                                     QDateTime *since);
    // The same with the verdict derived already (deriveLifecycle(summary, mapping), which needs
    // no tracker: a large batch derives its verdicts on another thread while this one records),
    // without making the transition: whether the object moved (or entered the census), and then
    // from where (`from`; nullopt = [*]) and as what (`how`). The log holds the transition.
    bool upsertDerived(const ObjectSummary &summary,
                       LifecycleVerdict verdict,
                       const QDateTime &now,
                       Observed observed,
                       QDateTime *since,
                       StateNode *from,
                       Observed *how);
    // The object was deleted (seen live, or found gone by a relist: across a gap).
    std::optional<Transition>
    remove(const QString &key, const QDateTime &now, Observed observed = Observed::Live);
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
