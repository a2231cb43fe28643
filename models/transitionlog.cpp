#include "models/transitionlog.h"

#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

QString observedName(Observed observed)
{
    switch (observed) {
    case Observed::Live:
        return u"live"_s;
    case Observed::AtConnect:
        return u"connect"_s;
    case Observed::AcrossGap:
        return u"gap"_s;
    }
    return {};
}

nlohmann::json Transition::toJson() const
{
    const auto generationJson = [](std::optional<qint64> value) {
        return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    const nlohmann::json sinceJson
        = since.isValid() ? nlohmann::json(formatRfc3339(since).toStdString()) : nlohmann::json();
    if (observed == Observed::AtConnect) {
        return nlohmann::json{
            { "type", "census" },
            { "key", key.toStdString() },
            { "time", formatRfc3339(time).toStdString() },
            { "state", stateNodeName(to).toStdString() },
            { "reason", reason.toStdString() },
            { "generation", generationJson(generation) },
            { "observedGeneration", generationJson(observedGeneration) },
            { "since", sinceJson },
        };
    }
    nlohmann::json json{
        { "type", "transition" },
        { "key", key.toStdString() },
        { "time", formatRfc3339(time).toStdString() },
        { "from", stateNodeName(from).toStdString() },
        { "to", stateNodeName(to).toStdString() },
        { "reason", reason.toStdString() },
        { "generation", generationJson(generation) },
        { "observedGeneration", generationJson(observedGeneration) },
        { "onDesign", onDesign },
        { "acrossGap", observed == Observed::AcrossGap },
    };
    if (observed == Observed::AcrossGap)
        json["since"] = sinceJson;
    return json;
}

bool isDesignedTransition(StateNode from, StateNode to)
{
    using S = LifecycleState;
    if (!from)
        return to == S::Pending;
    if (!to)
        return *from == S::Terminating;
    switch (*from) {
    case S::Pending:
        return *to == S::Reconciling;
    case S::Reconciling:
        return *to == S::Ready || *to == S::Degraded;
    case S::Degraded:
        return *to == S::Reconciling;
    case S::Ready:
        return *to == S::Reconciling || *to == S::Terminating;
    case S::Terminating:
    case S::Unknown:
    case S::NoLifecycle:
        return false;
    }
    return false;
}

bool isReachableByDesign(StateNode from, StateNode to)
{
    // A breadth-first walk of the designed edges; [*] as a target is the end, as a start the
    // beginning.
    QList<StateNode> targets{ std::nullopt };
    for (int i = 0; i < LifecycleStateCount; ++i)
        targets.append(LifecycleState(i));
    QList<StateNode> frontier{ from };
    QList<StateNode> seen;
    while (!frontier.isEmpty()) {
        const StateNode at = frontier.takeFirst();
        for (const StateNode &next : std::as_const(targets)) {
            if (!isDesignedTransition(at, next) || seen.contains(next))
                continue;
            if (next == to)
                return true;
            seen.append(next);
            if (next) // [*] as a target ends the walk
                frontier.append(next);
        }
    }
    return false;
}

TransitionLog::TransitionLog(int historyLimit)
    : m_historyLimit(std::max(1, historyLimit))
{ }

TransitionLog::Step TransitionLog::makeStep(StateNode from, const Seen &seen, Observed observed)
{
    Step step;
    step.validTime = seen.time.isValid();
    step.timeMs = step.validTime ? seen.time.toMSecsSinceEpoch() : 0;
    // A live move's start is when it was seen; another's is the object's word, if any.
    const QDateTime &since = observed == Observed::Live ? seen.time : seen.enters;
    step.validSince = since.isValid();
    step.sinceMs = step.validSince ? since.toMSecsSinceEpoch() : 0;
    step.observed = observed;
    step.reason = seen.reason;
    step.generation = seen.generation.value_or(0);
    step.observedGeneration = seen.observedGeneration.value_or(0);
    step.hasGeneration = seen.generation.has_value();
    step.hasObservedGeneration = seen.observedGeneration.has_value();
    step.from = from ? qint8(*from) : qint8(-1);
    step.to = qint8(seen.state);
    return step;
}

StateNode TransitionLog::node(qint8 value)
{
    return value < 0 ? StateNode() : StateNode(LifecycleState(value));
}

QDateTime TransitionLog::timeOf(const Step &step)
{
    return step.validTime ? QDateTime::fromMSecsSinceEpoch(step.timeMs, Qt::UTC) : QDateTime();
}

QDateTime TransitionLog::sinceOf(const Step &step)
{
    return step.validSince ? QDateTime::fromMSecsSinceEpoch(step.sinceMs, Qt::UTC) : QDateTime();
}

Transition TransitionLog::transition(const QString &key, const Step &step)
{
    const StateNode from = node(step.from);
    const StateNode to = node(step.to);
    const bool onDesign = step.observed == Observed::AtConnect ? true
        : step.observed == Observed::AcrossGap                 ? isReachableByDesign(from, to)
                                                               : isDesignedTransition(from, to);
    return Transition{ key,
                       timeOf(step),
                       from,
                       to,
                       step.reason,
                       step.hasGeneration ? std::optional<qint64>(step.generation) : std::nullopt,
                       step.hasObservedGeneration ? std::optional<qint64>(step.observedGeneration)
                                                  : std::nullopt,
                       onDesign,
                       step.observed,
                       sinceOf(step) };
}

std::optional<Transition> TransitionLog::observe(const QString &key,
                                                 LifecycleState newState,
                                                 const QString &reason,
                                                 std::optional<qint64> generation,
                                                 std::optional<qint64> observedGeneration,
                                                 const QDateTime &time,
                                                 Observed observed,
                                                 const QDateTime &enters,
                                                 QDateTime *since)
{
    // One look into the hash, also for a new key (most keys of a first list).
    const qsizetype known = m_objects.size();
    Track &track = m_objects[key];
    const Seen seen{ newState, reason, generation, observedGeneration, time, observed, enters };
    if (!record(track, m_objects.size() != known, seen, since))
        return std::nullopt;
    return transition(key, track.latest);
}

std::optional<Transition> TransitionLog::observe(const QString &key,
                                                 LifecycleVerdict verdict,
                                                 std::optional<qint64> generation,
                                                 std::optional<qint64> observedGeneration,
                                                 const QDateTime &time,
                                                 Observed observed,
                                                 QDateTime *since)
{
    bool moved = false;
    const Track &track = observeVerdict(
        key, std::move(verdict), generation, observedGeneration, time, observed, since, &moved);
    if (!moved)
        return std::nullopt;
    return transition(key, track.latest);
}

bool TransitionLog::observeMove(const QString &key,
                                LifecycleVerdict verdict,
                                std::optional<qint64> generation,
                                std::optional<qint64> observedGeneration,
                                const QDateTime &time,
                                Observed observed,
                                QDateTime *since,
                                StateNode *from,
                                Observed *how)
{
    bool moved = false;
    const Track &track = observeVerdict(
        key, std::move(verdict), generation, observedGeneration, time, observed, since, &moved);
    if (moved && from)
        *from = node(track.latest.from);
    if (moved && how)
        *how = track.latest.observed;
    return moved;
}

const TransitionLog::Track &TransitionLog::observeVerdict(const QString &key,
                                                          LifecycleVerdict verdict,
                                                          std::optional<qint64> generation,
                                                          std::optional<qint64> observedGeneration,
                                                          const QDateTime &time,
                                                          Observed observed,
                                                          QDateTime *since,
                                                          bool *moved)
{
    const qsizetype known = m_objects.size();
    Track &track = m_objects[key];
    const Seen seen{ verdict.state, verdict.reason, generation,   observedGeneration,
                     time,          observed,       verdict.since };
    *moved = record(track, m_objects.size() != known, seen, since);
    track.verdict = std::move(verdict);
    return track;
}

bool TransitionLog::record(Track &track, bool added, const Seen &seen, QDateTime *since)
{
    if (added) {
        // A new object: in the census when the watch connects, else [*] -> its state.
        track.latest = makeStep(std::nullopt, seen, seen.observed);
        switch (seen.observed) {
        case Observed::AtConnect:
            m_stats.recordCensus(seen.state, sinceOf(track.latest));
            break;
        case Observed::AcrossGap:
            m_stats.recordGapTransition(
                std::nullopt, seen.state, QDateTime(), seen.time, sinceOf(track.latest));
            break;
        case Observed::Live:
            m_stats.recordTransition(std::nullopt, seen.state, QDateTime(), seen.time);
            break;
        }
        if (since)
            *since = sinceOf(track.latest);
        return true;
    }
    const StateNode from = node(track.latest.to);
    if (from == seen.state) {
        if (since)
            *since = sinceOf(track.latest);
        return false;
    }
    // A known object a list finds in another state moved while nothing was watched.
    const Observed observed
        = seen.observed == Observed::Live ? Observed::Live : Observed::AcrossGap;
    Step step = makeStep(from, seen, observed);
    if (observed == Observed::Live)
        m_stats.recordTransition(from, seen.state, sinceOf(track.latest), seen.time);
    else
        m_stats.recordGapTransition(
            from, seen.state, sinceOf(track.latest), seen.time, sinceOf(step));
    // The newest historyLimit steps: the latest and historyLimit - 1 older ones.
    if (m_historyLimit > 1) {
        track.older.push_back(std::move(track.latest));
        if (track.older.size() > qsizetype(m_historyLimit - 1))
            track.older.removeFirst();
    }
    track.latest = std::move(step);
    if (since)
        *since = sinceOf(track.latest);
    return true;
}

std::optional<Transition> TransitionLog::remove(const QString &key,
                                                const QDateTime &time,
                                                const QString &reason,
                                                Observed observed)
{
    const auto it = m_objects.find(key);
    if (it == m_objects.end())
        return std::nullopt;
    const Step &latest = it->latest;
    const StateNode from = node(latest.to);
    const bool live = observed == Observed::Live;
    Transition transition{
        key,
        time,
        from,
        std::nullopt,
        reason,
        latest.hasGeneration ? std::optional<qint64>(latest.generation) : std::nullopt,
        latest.hasObservedGeneration ? std::optional<qint64>(latest.observedGeneration)
                                     : std::nullopt,
        live ? isDesignedTransition(from, std::nullopt) : isReachableByDesign(from, std::nullopt),
        live ? Observed::Live : Observed::AcrossGap,
        live ? time : QDateTime()
    };
    if (live)
        m_stats.recordTransition(from, std::nullopt, sinceOf(latest), time);
    else
        m_stats.recordGapTransition(from, std::nullopt, sinceOf(latest), time, QDateTime());
    m_objects.erase(it);
    return transition;
}

void TransitionLog::clear()
{
    m_objects = {};
    m_stats.clear();
}

QList<Transition> TransitionLog::history(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    if (it == m_objects.cend())
        return {};
    QList<Transition> transitions;
    transitions.reserve(it->older.size() + 1);
    for (const Step &step : it->older)
        transitions.append(transition(it.key(), step));
    transitions.append(transition(it.key(), it->latest));
    return transitions;
}

std::optional<Transition> TransitionLog::lastTransition(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    if (it == m_objects.cend())
        return std::nullopt;
    return transition(it.key(), it->latest);
}

qsizetype TransitionLog::historySize(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() ? 0 : it->older.size() + 1;
}

std::optional<LifecycleState> TransitionLog::state(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    if (it == m_objects.cend())
        return std::nullopt;
    return node(it->latest.to);
}

LifecycleVerdict TransitionLog::verdict(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() ? LifecycleVerdict() : it->verdict;
}

QDateTime TransitionLog::stateSince(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() ? QDateTime() : sinceOf(it->latest);
}

QDateTime TransitionLog::lastTransitionTime(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() ? QDateTime() : timeOf(it->latest);
}

} // namespace reconscope::models
