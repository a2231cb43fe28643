#pragma once

#include "models/lifecycle.h"
#include "models/lifecyclestate.h"
#include "models/stategraphstats.h"

#include <nlohmann/json_fwd.hpp>

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace reconscope::models {

// How a state was seen: by a live watch event, in the list made when the watch connected (the
// census: the object was already there, its move into the state was not seen), or in a relist
// after a watch gap (what the object became while nothing was watched: one move, whatever it
// went through).
enum class Observed : qint8 { Live, AtConnect, AcrossGap };
QString observedName(Observed observed); // "live", "connect", "gap"

// One observed move of an object in the state graph, or its census entry (observed AtConnect:
// from [*], not a transition).
struct Transition
{
    QString key;
    QDateTime time; // when it was seen
    StateNode from; // nullopt = [*] (first seen)
    StateNode to; // nullopt = [*] (deleted)
    QString reason;
    std::optional<qint64> generation;
    std::optional<qint64> observedGeneration;
    // An edge of the designed graph (reconciler.md section 4); across a gap, a path of it. Never
    // false for the census.
    bool onDesign = false;
    Observed observed = Observed::Live;
    // When the object entered `to`: `time` for a live move; otherwise what the object says (its
    // deciding condition's lastTransitionTime), invalid when it says nothing.
    QDateTime since;

    friend bool operator==(const Transition &, const Transition &) = default;

    // One line of `reconscope watch -o json`. A move: {"type": "transition", "key", "time" (RFC
    // 3339), "from", "to" ("[*]" for the pseudo-state), "reason", "generation",
    // "observedGeneration" (null when unknown), "onDesign", "acrossGap"}, with "since" (RFC 3339
    // or null) across a gap. The census: {"type": "census", "key", "time", "state", "reason",
    // "generation", "observedGeneration", "since"}.
    nlohmann::json toJson() const;
};

// Whether from -> to is an edge of the designed graph: [*]->Pending, Pending->Reconciling,
// Reconciling->Ready, Reconciling->Degraded, Degraded->Reconciling, Ready->Reconciling,
// Ready->Terminating, Terminating->[*].
bool isDesignedTransition(StateNode from, StateNode to);
// Whether the designed graph has a path from -> to (a move across a gap went through states
// nobody saw): every state is reachable from [*] but Unknown, NoLifecycle and, once
// Terminating, anything but [*].
bool isReachableByDesign(StateNode from, StateNode to);

// Per object, the transitions observed between derived lifecycle states, with bounded history,
// feeding StateGraphStats. Kept compact, since it holds an entry for every object of a 50k-object
// list: a step is a small fixed struct (milliseconds, state numbers, generations; its reason
// shares the verdict's string), the latest one inline, older ones in a list only once an object
// has moved more than once; transitions are made from them on request.
class TransitionLog
{
public:
    static constexpr int DefaultHistoryLimit = 200;
    explicit TransitionLog(int historyLimit = DefaultHistoryLimit);

    // The object now is in newState, seen at `time` as `observed`. Returns the transition when
    // its state changed (or it is new: [*] -> newState; AtConnect: its census entry); nothing
    // when the state is unchanged. A known object seen by a list (AtConnect or AcrossGap) in
    // another state moved across a gap. `enters` is when the object says it entered newState
    // (used when its move was not seen live). `since`, when given, receives when the object
    // entered the state it is in now (invalid: unknown).
    std::optional<Transition> observe(const QString &key,
                                      LifecycleState newState,
                                      const QString &reason,
                                      std::optional<qint64> generation,
                                      std::optional<qint64> observedGeneration,
                                      const QDateTime &time,
                                      Observed observed = Observed::Live,
                                      const QDateTime &enters = QDateTime(),
                                      QDateTime *since = nullptr);
    // The same for the verdict that puts the object in its state, which the log keeps with the
    // object (LifecycleTracker's verdict(), without a second hash of every object); `enters` is
    // the verdict's since.
    std::optional<Transition> observe(const QString &key,
                                      LifecycleVerdict verdict,
                                      std::optional<qint64> generation,
                                      std::optional<qint64> observedGeneration,
                                      const QDateTime &time,
                                      Observed observed = Observed::Live,
                                      QDateTime *since = nullptr);
    // The same without making the transition: whether the object moved (its state changed, or it
    // is new), and then from where (`from`; nullopt = [*]) and as what (`how`: a live move, the
    // census, a move across a gap).
    bool observeMove(const QString &key,
                     LifecycleVerdict verdict,
                     std::optional<qint64> generation,
                     std::optional<qint64> observedGeneration,
                     const QDateTime &time,
                     Observed observed,
                     QDateTime *since,
                     StateNode *from,
                     Observed *how);
    // The object is gone: its state -> [*] (a relist that lacks it: across a gap). Nothing for an
    // unknown key.
    std::optional<Transition> remove(const QString &key,
                                     const QDateTime &time,
                                     const QString &reason = QString(),
                                     Observed observed = Observed::Live);
    void clear();
    // Room for this many objects.
    void reserve(qsizetype objects) { m_objects.reserve(objects); }

    // The retained transitions of the object, oldest first (the [*] -> first-state edge, or its
    // census entry, is among them until the history limit drops it; the newest `historyLimit` are
    // kept). Empty for an unknown key. Times are in UTC, to the millisecond.
    QList<Transition> history(const QString &key) const;
    // The newest of them (the one that brought the object into its current state).
    std::optional<Transition> lastTransition(const QString &key) const;
    // The number of retained transitions of the object.
    qsizetype historySize(const QString &key) const;
    std::optional<LifecycleState> state(const QString &key) const;
    // The verdict last observed with the object (Unknown for an unknown key or one observed with
    // a state alone).
    LifecycleVerdict verdict(const QString &key) const;
    // When the object entered its current state; invalid for an unknown key, and when it was not
    // seen to move there (the census, a move across a gap) and says nothing of it.
    QDateTime stateSince(const QString &key) const;
    // When its last retained transition (or census entry) was seen; invalid for an unknown key.
    QDateTime lastTransitionTime(const QString &key) const;
    qsizetype objectCount() const { return m_objects.size(); }
    int historyLimit() const { return m_historyLimit; }

    const StateGraphStats &stats() const { return m_stats; }

private:
    // One retained transition, without its key (the hash's) and with its time in ms since the
    // epoch (QDateTime keeps no more).
    struct Step
    {
        qint64 timeMs = 0;
        qint64 sinceMs = 0; // when it entered `to`
        QString reason;
        qint64 generation = 0;
        qint64 observedGeneration = 0;
        qint8 from = -1; // -1 = [*]
        qint8 to = -1;
        bool hasGeneration = false;
        bool hasObservedGeneration = false;
        bool validTime = false;
        bool validSince = false;
        Observed observed = Observed::Live;
    };
    // The latest step inline (most objects move a few times at most), older ones oldest first.
    struct Track
    {
        Step latest;
        QList<Step> older;
        LifecycleVerdict verdict;
    };
    // The object's track once the verdict is observed, and whether it moved.
    const Track &observeVerdict(const QString &key,
                                LifecycleVerdict verdict,
                                std::optional<qint64> generation,
                                std::optional<qint64> observedGeneration,
                                const QDateTime &time,
                                Observed observed,
                                QDateTime *since,
                                bool *moved);
    // What an observation says of an object, besides its key.
    struct Seen
    {
        LifecycleState state;
        const QString &reason;
        std::optional<qint64> generation;
        std::optional<qint64> observedGeneration;
        const QDateTime &time;
        Observed observed;
        const QDateTime &enters; // the object's word on when it entered `state`
    };
    // Whether it moved (or, new and AtConnect, was counted in the census).
    bool record(Track &track, bool added, const Seen &seen, QDateTime *since);
    static Step makeStep(StateNode from, const Seen &seen, Observed observed);
    static Transition transition(const QString &key, const Step &step);
    static QDateTime timeOf(const Step &step);
    static QDateTime sinceOf(const Step &step);
    static StateNode node(qint8 value);

    int m_historyLimit;
    QHash<QString, Track> m_objects;
    StateGraphStats m_stats;
};

} // namespace reconscope::models
