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

void TransitionLog::append(Track &track, Transition transition)
{
    track.history.push_back(std::move(transition));
    while (track.history.size() > qsizetype(m_historyLimit))
        track.history.removeFirst();
}

std::optional<Transition> TransitionLog::observe(const QString &key,
                                                 LifecycleState newState,
                                                 const QString &reason,
                                                 std::optional<qint64> generation,
                                                 std::optional<qint64> observedGeneration,
                                                 const QDateTime &time)
{
    auto it = m_objects.find(key);
    StateNode from;
    QDateTime since;
    if (it != m_objects.end()) {
        if (it->state == newState)
            return std::nullopt;
        from = it->state;
        since = it->since;
    } else {
        it = m_objects.insert(key, Track{ newState, time, {} });
    }
    Transition transition{ key,
                           time,
                           from,
                           newState,
                           reason,
                           generation,
                           observedGeneration,
                           isDesignedTransition(from, newState) };
    m_stats.recordTransition(from, newState, since, time);
    it->state = newState;
    it->since = time;
    append(*it, transition);
    return transition;
}

std::optional<Transition>
TransitionLog::remove(const QString &key, const QDateTime &time, const QString &reason)
{
    const auto it = m_objects.find(key);
    if (it == m_objects.end())
        return std::nullopt;
    Transition transition{ key,          time,
                           it->state,    std::nullopt,
                           reason,       std::nullopt,
                           std::nullopt, isDesignedTransition(it->state, std::nullopt) };
    if (!it->history.isEmpty()) {
        transition.generation = it->history.back().generation;
        transition.observedGeneration = it->history.back().observedGeneration;
    }
    m_stats.recordTransition(it->state, std::nullopt, it->since, time);
    m_objects.erase(it);
    return transition;
}

void TransitionLog::clear()
{
    m_objects.clear();
    m_stats.clear();
}

QList<Transition> TransitionLog::history(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    if (it == m_objects.cend())
        return {};
    return it->history;
}

std::optional<LifecycleState> TransitionLog::state(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    if (it == m_objects.cend())
        return std::nullopt;
    return it->state;
}

QDateTime TransitionLog::stateSince(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() ? QDateTime() : it->since;
}

QDateTime TransitionLog::lastTransitionTime(const QString &key) const
{
    const auto it = m_objects.constFind(key);
    return it == m_objects.cend() || it->history.isEmpty() ? QDateTime() : it->history.back().time;
}

} // namespace reconscope::models
