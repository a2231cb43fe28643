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

// One observed move of an object in the state graph.
struct Transition
{
    QString key;
    QDateTime time;
    StateNode from; // nullopt = [*] (first seen)
    StateNode to; // nullopt = [*] (deleted)
    QString reason;
    std::optional<qint64> generation;
    std::optional<qint64> observedGeneration;
    bool onDesign = false; // an edge of the designed graph (reconciler.md section 4)

    friend bool operator==(const Transition &, const Transition &) = default;

    // {"key", "time" (RFC 3339), "from", "to" ("[*]" for the pseudo-state), "reason",
    //  "generation", "observedGeneration" (null when unknown), "onDesign"}: one line of
    // `reconscope watch -o json`.
    nlohmann::json toJson() const;
};

// Whether from -> to is an edge of the designed graph: [*]->Pending, Pending->Reconciling,
// Reconciling->Ready, Reconciling->Degraded, Degraded->Reconciling, Ready->Reconciling,
// Ready->Terminating, Terminating->[*].
bool isDesignedTransition(StateNode from, StateNode to);

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

    // The object now is in newState. Returns the transition when its state changed (or it is new:
    // [*] -> newState); nothing when the state is unchanged. `since`, when given, receives when
    // the object entered the state it is in now.
    std::optional<Transition> observe(const QString &key,
                                      LifecycleState newState,
                                      const QString &reason,
                                      std::optional<qint64> generation,
                                      std::optional<qint64> observedGeneration,
                                      const QDateTime &time,
                                      QDateTime *since = nullptr);
    // The same for the verdict that puts the object in its state, which the log keeps with the
    // object (LifecycleTracker's verdict(), without a second hash of every object).
    std::optional<Transition> observe(const QString &key,
                                      LifecycleVerdict verdict,
                                      std::optional<qint64> generation,
                                      std::optional<qint64> observedGeneration,
                                      const QDateTime &time,
                                      QDateTime *since = nullptr);
    // The same without making the transition: whether the object moved (its state changed, or it
    // is new), and then from where (`from`; nullopt = [*]).
    bool observeMove(const QString &key,
                     LifecycleVerdict verdict,
                     std::optional<qint64> generation,
                     std::optional<qint64> observedGeneration,
                     const QDateTime &time,
                     QDateTime *since,
                     StateNode *from);
    // The object is gone: its state -> [*]. Nothing for an unknown key.
    std::optional<Transition>
    remove(const QString &key, const QDateTime &time, const QString &reason = QString());
    void clear();
    // Room for this many objects.
    void reserve(qsizetype objects) { m_objects.reserve(objects); }

    // The retained transitions of the object, oldest first (the [*] -> first-state edge is among
    // them until the history limit drops it; the newest `historyLimit` are kept). Empty for an
    // unknown key. Times are in UTC, to the millisecond.
    QList<Transition> history(const QString &key) const;
    // The newest of them (the one that brought the object into its current state).
    std::optional<Transition> lastTransition(const QString &key) const;
    // The number of retained transitions of the object.
    qsizetype historySize(const QString &key) const;
    std::optional<LifecycleState> state(const QString &key) const;
    // The verdict last observed with the object (Unknown for an unknown key or one observed with
    // a state alone).
    LifecycleVerdict verdict(const QString &key) const;
    // When the object entered its current state; invalid for an unknown key.
    QDateTime stateSince(const QString &key) const;
    // The time of its last retained transition; invalid for an unknown key.
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
        QString reason;
        qint64 generation = 0;
        qint64 observedGeneration = 0;
        qint8 from = -1; // -1 = [*]
        qint8 to = -1;
        bool hasGeneration = false;
        bool hasObservedGeneration = false;
        bool validTime = false;
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
                                QDateTime *since,
                                bool *moved);
    // Whether it moved.
    bool record(Track &track,
                bool added,
                LifecycleState newState,
                const QString &reason,
                std::optional<qint64> generation,
                std::optional<qint64> observedGeneration,
                const QDateTime &time,
                QDateTime *since);
    static Step makeStep(StateNode from,
                         StateNode to,
                         const QString &reason,
                         std::optional<qint64> generation,
                         std::optional<qint64> observedGeneration,
                         const QDateTime &time);
    static Transition transition(const QString &key, const Step &step);
    static QDateTime timeOf(const Step &step);
    static StateNode node(qint8 value);

    int m_historyLimit;
    QHash<QString, Track> m_objects;
    StateGraphStats m_stats;
};

} // namespace reconscope::models
