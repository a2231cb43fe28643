#include "models/stategraphstats.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

QString stateNodeName(StateNode node)
{
    return node ? lifecycleStateName(*node) : u"[*]"_s;
}

void StateGraphStats::leave(StateNode from, const QDateTime &entered, const QDateTime &time)
{
    if (!from)
        return;
    const int i = int(*from);
    m_objects[i] -= 1;
    if (!entered.isValid())
        return;
    const qint64 since = entered.toMSecsSinceEpoch();
    m_timedObjects[i] -= 1;
    m_openSinceSum[i] -= since;
    // An injected clock may go backwards; time in state never does.
    m_closedMsecs[i] += std::max<qint64>(0, time.toMSecsSinceEpoch() - since);
}

void StateGraphStats::enter(StateNode to, const QDateTime &enters)
{
    if (!to)
        return;
    const int i = int(*to);
    m_objects[i] += 1;
    if (!enters.isValid())
        return;
    m_timedObjects[i] += 1;
    m_openSinceSum[i] += enters.toMSecsSinceEpoch();
    m_timedVisits[i] += 1;
}

void StateGraphStats::recordTransition(StateNode from,
                                       StateNode to,
                                       const QDateTime &entered,
                                       const QDateTime &time)
{
    leave(from, entered, time);
    enter(to, time);
    m_edges[index(from)][index(to)] += 1;
    ++m_totalTransitions;
}

void StateGraphStats::recordGapTransition(StateNode from,
                                          StateNode to,
                                          const QDateTime &entered,
                                          const QDateTime &time,
                                          const QDateTime &enters)
{
    // It left `from` when it entered `to`, by its own word, else at the latest when relisted.
    leave(from, entered, enters.isValid() ? enters : time);
    enter(to, enters);
    m_gapEdges[index(from)][index(to)] += 1;
    ++m_totalTransitions;
    ++m_gapTransitions;
}

void StateGraphStats::recordCensus(LifecycleState state, const QDateTime &enters)
{
    enter(state, enters);
    m_census[int(state)] += 1;
}

void StateGraphStats::clear()
{
    *this = StateGraphStats();
}

int StateGraphStats::objectsIn(LifecycleState state) const
{
    return m_objects[int(state)];
}

int StateGraphStats::objectCount() const
{
    int count = 0;
    for (const int n : m_objects)
        count += n;
    return count;
}

int StateGraphStats::censusIn(LifecycleState state) const
{
    return m_census[int(state)];
}

int StateGraphStats::censusCount() const
{
    int count = 0;
    for (const int n : m_census)
        count += n;
    return count;
}

qint64 StateGraphStats::edgeCount(StateNode from, StateNode to) const
{
    return m_edges[index(from)][index(to)];
}

qint64 StateGraphStats::gapEdgeCount(StateNode from, StateNode to) const
{
    return m_gapEdges[index(from)][index(to)];
}

qint64 StateGraphStats::timedVisitsTo(LifecycleState state) const
{
    return m_timedVisits[int(state)];
}

qint64 StateGraphStats::closedMsecsIn(LifecycleState state) const
{
    return m_closedMsecs[int(state)];
}

qint64 StateGraphStats::msecsIn(LifecycleState state, const QDateTime &now) const
{
    const int i = int(state);
    const qint64 open = qint64(m_timedObjects[i]) * now.toMSecsSinceEpoch() - m_openSinceSum[i];
    return m_closedMsecs[i] + std::max<qint64>(0, open);
}

StateGraphStats &StateGraphStats::operator+=(const StateGraphStats &other)
{
    for (int from = 0; from < NodeCount; ++from) {
        for (int to = 0; to < NodeCount; ++to) {
            m_edges[from][to] += other.m_edges[from][to];
            m_gapEdges[from][to] += other.m_gapEdges[from][to];
        }
    }
    for (int i = 0; i < LifecycleStateCount; ++i) {
        m_objects[i] += other.m_objects[i];
        m_census[i] += other.m_census[i];
        m_timedVisits[i] += other.m_timedVisits[i];
        m_closedMsecs[i] += other.m_closedMsecs[i];
        m_timedObjects[i] += other.m_timedObjects[i];
        m_openSinceSum[i] += other.m_openSinceSum[i];
    }
    m_totalTransitions += other.m_totalTransitions;
    m_gapTransitions += other.m_gapTransitions;
    return *this;
}

} // namespace reconscope::models
