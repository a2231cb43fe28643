#pragma once

#include "models/lifecycle.h"
#include "models/transitionlog.h"

#include <QHash>

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
    TransitionLog m_log;
    QHash<QString, LifecycleVerdict> m_verdicts;
};

} // namespace reconscope::models
