#include "models/stategraphstats.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

QString stateNodeName(StateNode node)
{
    return node ? lifecycleStateName(*node) : u"[*]"_s;
}

void StateGraphStats::recordTransition(StateNode from,
                                       StateNode to,
                                       const QDateTime &since,
                                       const QDateTime &time)
{
    const qint64 now = time.toMSecsSinceEpoch();
    if (from) {
        const int i = int(*from);
        const qint64 entered = since.toMSecsSinceEpoch();
        m_objects[i] -= 1;
        m_openSinceSum[i] -= entered;
        // An injected clock may go backwards; time in state never does.
        m_closedMsecs[i] += std::max<qint64>(0, now - entered);
    }
    if (to) {
        const int i = int(*to);
        m_objects[i] += 1;
        m_openSinceSum[i] += now;
    }
    m_edges[index(from)][index(to)] += 1;
    ++m_totalTransitions;
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

qint64 StateGraphStats::edgeCount(StateNode from, StateNode to) const
{
    return m_edges[index(from)][index(to)];
}

qint64 StateGraphStats::closedMsecsIn(LifecycleState state) const
{
    return m_closedMsecs[int(state)];
}

qint64 StateGraphStats::msecsIn(LifecycleState state, const QDateTime &now) const
{
    const int i = int(state);
    const qint64 open = qint64(m_objects[i]) * now.toMSecsSinceEpoch() - m_openSinceSum[i];
    return m_closedMsecs[i] + std::max<qint64>(0, open);
}

} // namespace reconscope::models
