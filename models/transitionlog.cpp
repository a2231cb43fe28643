#include "models/transitionlog.h"

#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace reconscope::models {

nlohmann::json Transition::toJson() const
{
    const auto generationJson = [](std::optional<qint64> value) {
        return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    return nlohmann::json{
        { "key", key.toStdString() },
        { "time", formatRfc3339(time).toStdString() },
        { "from", stateNodeName(from).toStdString() },
        { "to", stateNodeName(to).toStdString() },
        { "reason", reason.toStdString() },
        { "generation", generationJson(generation) },
        { "observedGeneration", generationJson(observedGeneration) },
        { "onDesign", onDesign },
    };
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

TransitionLog::TransitionLog(int historyLimit)
    : m_historyLimit(std::max(1, historyLimit))
{ }

TransitionLog::Step TransitionLog::makeStep(StateNode from,
                                            StateNode to,
                                            const QString &reason,
                                            std::optional<qint64> generation,
                                            std::optional<qint64> observedGeneration,
                                            const QDateTime &time)
{
    Step step;
    step.validTime = time.isValid();
    step.timeMs = step.validTime ? time.toMSecsSinceEpoch() : 0;
    step.reason = reason;
    step.generation = generation.value_or(0);
    step.observedGeneration = observedGeneration.value_or(0);
    step.hasGeneration = generation.has_value();
    step.hasObservedGeneration = observedGeneration.has_value();
    step.from = from ? qint8(*from) : qint8(-1);
    step.to = to ? qint8(*to) : qint8(-1);
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

Transition TransitionLog::transition(const QString &key, const Step &step)
{
    const StateNode from = node(step.from);
    const StateNode to = node(step.to);
    return Transition{ key,
                       timeOf(step),
                       from,
                       to,
                       step.reason,
                       step.hasGeneration ? std::optional<qint64>(step.generation) : std::nullopt,
                       step.hasObservedGeneration ? std::optional<qint64>(step.observedGeneration)
                                                  : std::nullopt,
                       isDesignedTransition(from, to) };
}

std::optional<Transition> TransitionLog::observe(const QString &key,
                                                 LifecycleState newState,
                                                 const QString &reason,
                                                 std::optional<qint64> generation,
                                                 std::optional<qint64> observedGeneration,
                                                 const QDateTime &time,
                                                 QDateTime *since)
{
    // One look into the hash, also for a new key (most keys of a first list).
    const qsizetype known = m_objects.size();
    Track &track = m_objects[key];
    if (!record(track,
                m_objects.size() != known,
                newState,
                reason,
                generation,
                observedGeneration,
                time,
                since))
        return std::nullopt;
    return transition(key, track.latest);
}

std::optional<Transition> TransitionLog::observe(const QString &key,
                                                 LifecycleVerdict verdict,
                                                 std::optional<qint64> generation,
                                                 std::optional<qint64> observedGeneration,
                                                 const QDateTime &time,
                                                 QDateTime *since)
{
    bool moved = false;
    const Track &track = observeVerdict(
        key, std::move(verdict), generation, observedGeneration, time, since, &moved);
    if (!moved)
        return std::nullopt;
    return transition(key, track.latest);
}

bool TransitionLog::observeMove(const QString &key,
                                LifecycleVerdict verdict,
                                std::optional<qint64> generation,
                                std::optional<qint64> observedGeneration,
                                const QDateTime &time,
                                QDateTime *since,
                                StateNode *from)
{
    bool moved = false;
    const Track &track = observeVerdict(
        key, std::move(verdict), generation, observedGeneration, time, since, &moved);
    if (moved && from)
        *from = node(track.latest.from);
    return moved;
}

const TransitionLog::Track &TransitionLog::observeVerdict(const QString &key,
                                                          LifecycleVerdict verdict,
                                                          std::optional<qint64> generation,
                                                          std::optional<qint64> observedGeneration,
                                                          const QDateTime &time,
                                                          QDateTime *since,
                                                          bool *moved)
{
    const qsizetype known = m_objects.size();
    Track &track = m_objects[key];
    *moved = record(track,
                    m_objects.size() != known,
                    verdict.state,
                    verdict.reason,
                    generation,
                    observedGeneration,
                    time,
                    since);
    track.verdict = std::move(verdict);
    return track;
}

bool TransitionLog::record(Track &track,
                           bool added,
                           LifecycleState newState,
                           const QString &reason,
                           std::optional<qint64> generation,
                           std::optional<qint64> observedGeneration,
                           const QDateTime &time,
                           QDateTime *since)
{
    if (added) {
        track.latest
            = makeStep(std::nullopt, newState, reason, generation, observedGeneration, time);
        m_stats.recordTransition(std::nullopt, newState, QDateTime(), time);
        if (since)
            *since = timeOf(track.latest);
        return true;
    }
    const StateNode from = node(track.latest.to);
    if (from == newState) {
        if (since)
            *since = timeOf(track.latest);
        return false;
    }
    m_stats.recordTransition(from, newState, timeOf(track.latest), time);
    Step step = makeStep(from, newState, reason, generation, observedGeneration, time);
    // The newest historyLimit steps: the latest and historyLimit - 1 older ones.
    if (m_historyLimit > 1) {
        track.older.push_back(std::move(track.latest));
        if (track.older.size() > qsizetype(m_historyLimit - 1))
            track.older.removeFirst();
    }
    track.latest = std::move(step);
    if (since)
        *since = timeOf(track.latest);
    return true;
}

std::optional<Transition>
TransitionLog::remove(const QString &key, const QDateTime &time, const QString &reason)
{
    const auto it = m_objects.find(key);
    if (it == m_objects.end())
        return std::nullopt;
    const Step &latest = it->latest;
    const StateNode from = node(latest.to);
    Transition transition{ key,
                           time,
                           from,
                           std::nullopt,
                           reason,
                           latest.hasGeneration ? std::optional<qint64>(latest.generation)
                                                : std::nullopt,
                           latest.hasObservedGeneration
                               ? std::optional<qint64>(latest.observedGeneration)
                               : std::nullopt,
                           isDesignedTransition(from, std::nullopt) };
    m_stats.recordTransition(from, std::nullopt, timeOf(latest), time);
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
    return it == m_objects.cend() ? QDateTime() : timeOf(it->latest);
}

QDateTime TransitionLog::lastTransitionTime(const QString &key) const
{
    return stateSince(key);
}

} // namespace reconscope::models
