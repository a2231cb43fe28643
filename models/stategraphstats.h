#pragma once

#include "models/lifecyclestate.h"

#include <QDateTime>

#include <array>
#include <optional>

namespace reconscope::models {

// A node of the state graph: a lifecycle state, or the pseudo-state [*] (nullopt) an object
// comes from when first seen and goes to when deleted.
using StateNode = std::optional<LifecycleState>;
QString stateNodeName(StateNode node); // "[*]" for the pseudo-state

// Statistics of the observed state graph, updated in O(1) per event: objects per state, count per
// edge (from, to), and cumulative time spent in each state (closed intervals plus, on request,
// the open intervals of objects still in the state, also in O(1)).
class StateGraphStats
{
public:
    // An object moved along the edge at that time; `since` is when it entered `from` (ignored
    // when `from` is [*]).
    void
    recordTransition(StateNode from, StateNode to, const QDateTime &since, const QDateTime &time);
    void clear();

    int objectsIn(LifecycleState state) const;
    int objectCount() const;
    qint64 edgeCount(StateNode from, StateNode to) const;
    qint64 totalTransitions() const { return m_totalTransitions; }
    // Milliseconds spent in the state by objects that have left it.
    qint64 closedMsecsIn(LifecycleState state) const;
    // Closed time plus the time objects still in the state have spent there until `now`.
    qint64 msecsIn(LifecycleState state, const QDateTime &now) const;

private:
    static constexpr int NodeCount = LifecycleStateCount + 1; // + [*]
    static int index(StateNode node) { return node ? int(*node) + 1 : 0; }

    std::array<std::array<qint64, NodeCount>, NodeCount> m_edges{};
    std::array<int, LifecycleStateCount> m_objects{};
    std::array<qint64, LifecycleStateCount> m_closedMsecs{};
    // Sum of the entry times (ms since epoch) of the objects currently in each state.
    std::array<qint64, LifecycleStateCount> m_openSinceSum{};
    qint64 m_totalTransitions = 0;
};

} // namespace reconscope::models
