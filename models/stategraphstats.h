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

// Statistics of the observed state graph, updated in O(1) per event: objects per state, the
// census (objects found in each state when the watch connected, which are not transitions), the
// count per edge (from, to) of the moves seen live and, apart, of those seen across a watch gap,
// and cumulative time spent in each state (closed intervals plus, on request, the open intervals
// of objects still in the state, also in O(1)). Time in state counts only visits whose start is
// known: an object found at connect without a time of its own adds nothing until it moves.
class StateGraphStats
{
public:
    // An object moved along the edge, seen live at `time`; `entered` is when it entered `from`
    // (invalid: unknown; ignored when `from` is [*]). It enters `to` at `time`.
    void
    recordTransition(StateNode from, StateNode to, const QDateTime &entered, const QDateTime &time);
    // The same for a move found by a relist after a watch gap: it entered `to` at `enters` as the
    // object says (invalid: unknown), somewhere in the gap.
    void recordGapTransition(StateNode from,
                             StateNode to,
                             const QDateTime &entered,
                             const QDateTime &time,
                             const QDateTime &enters);
    // An object found in `state` when the watch connected, in it since `enters` as the object
    // says (invalid: unknown).
    void recordCensus(LifecycleState state, const QDateTime &enters);
    void clear();
    // Adds another's counts, edges and times to these (the statistics of several resources as
    // one graph).
    StateGraphStats &operator+=(const StateGraphStats &other);

    int objectsIn(LifecycleState state) const;
    int objectCount() const;
    // Objects the census found in the state (they may have moved on since).
    int censusIn(LifecycleState state) const;
    int censusCount() const;
    // Moves seen live along the edge.
    qint64 edgeCount(StateNode from, StateNode to) const;
    // Moves found across a watch gap along the edge.
    qint64 gapEdgeCount(StateNode from, StateNode to) const;
    // Every move, live and across a gap (the census is none).
    qint64 totalTransitions() const { return m_totalTransitions; }
    qint64 gapTransitions() const { return m_gapTransitions; }
    // Visits to the state whose start is known (those the time in state is made of).
    qint64 timedVisitsTo(LifecycleState state) const;
    // Milliseconds spent in the state by objects that have left it.
    qint64 closedMsecsIn(LifecycleState state) const;
    // Closed time plus the time objects still in the state have spent there until `now`.
    qint64 msecsIn(LifecycleState state, const QDateTime &now) const;

private:
    static constexpr int NodeCount = LifecycleStateCount + 1; // + [*]
    static int index(StateNode node) { return node ? int(*node) + 1 : 0; }
    void leave(StateNode from, const QDateTime &entered, const QDateTime &time);
    void enter(StateNode to, const QDateTime &enters);

    std::array<std::array<qint64, NodeCount>, NodeCount> m_edges{};
    std::array<std::array<qint64, NodeCount>, NodeCount> m_gapEdges{};
    std::array<int, LifecycleStateCount> m_objects{};
    std::array<int, LifecycleStateCount> m_census{};
    std::array<qint64, LifecycleStateCount> m_timedVisits{};
    std::array<qint64, LifecycleStateCount> m_closedMsecs{};
    // The objects currently in each state whose entry time is known, and the sum of those times
    // (ms since epoch).
    std::array<int, LifecycleStateCount> m_timedObjects{};
    std::array<qint64, LifecycleStateCount> m_openSinceSum{};
    qint64 m_totalTransitions = 0;
    qint64 m_gapTransitions = 0;
};

} // namespace reconscope::models
