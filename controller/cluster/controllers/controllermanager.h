#pragma once

#include "controller/cluster/controllers/crdcontroller.h"
#include "controller/cluster/controllers/garbagecollector.h"
#include "controller/cluster/controllers/namespacecontroller.h"
#include "controller/cluster/registry/store.h"

namespace reconscope::controller::cluster {

// The embedded cluster's controller manager. Each controller queues work as the store commits
// (StoreObserver); run(), which every committed verb calls after its own commit, drains the
// queues synchronously, so a verb returns with the cluster settled: the garbage collector one
// queued owner at a time first, then, once it is idle and anything was committed since the last
// pass, a pass of namespace deletion and then of CRD cleanup; until nothing is left to do.
// Writes made by the controllers (and by subscribers they wake) call run() again, which returns
// at once: the outer run() picks their work up.
class ControllerManager final : public StoreObserver
{
    Q_DISABLE_COPY_MOVE(ControllerManager)

public:
    ControllerManager(Store &store, const ClusterClock &clock);

    void run();
    // A CRD was created or updated (and committed): establish its names and serve its types.
    void crdWritten(const RecordPtr &crd) { m_crds.establish(crd); }

    void recordStored(const TypeEntry &, const RecordPtr &, const RecordPtr &) override
    {
        m_pending = true;
    }
    void recordDeleted(const TypeEntry &, const RecordPtr &) override { m_pending = true; }

private:
    GarbageCollector m_garbageCollector;
    NamespaceController m_namespaces;
    CrdController m_crds;
    bool m_running = false;
    bool m_pending = false; // a commit since the last pass of the namespace and CRD controllers
};

} // namespace reconscope::controller::cluster
