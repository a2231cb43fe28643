#include "controller/cluster/controllers/controllermanager.h"

namespace reconscope::controller::cluster {

ControllerManager::ControllerManager(Store &store, const ClusterClock &clock)
    : m_garbageCollector(store, clock)
    , m_namespaces(store, clock)
    , m_crds(store, clock)
{
    store.addObserver(&m_garbageCollector);
    store.addObserver(&m_namespaces);
    store.addObserver(&m_crds);
    store.addObserver(this);
}

void ControllerManager::run()
{
    if (m_running)
        return;
    m_running = true;
    // Bounded, so that controllers that keep waking each other cannot hang the cluster's thread.
    for (int round = 0; round < 100000; ++round) {
        if (m_garbageCollector.processNext())
            continue;
        if (!m_pending)
            break;
        m_pending = false;
        m_namespaces.sync();
        m_crds.sync();
    }
    m_running = false;
}

} // namespace reconscope::controller::cluster
