#pragma once

#include "controller/cluster/registry/store.h"

#include <QSet>

namespace reconscope::controller::cluster {

// The apiextensions controllers: establishing (a written CRD's versions become served types and
// its status gets acceptedNames, storedVersions and the NamesAccepted and Established
// conditions) and cleanup (a terminating CRD has its custom resources deleted, then loses the
// cleanup finalizer, which removes it with its types).
class CrdController final : public StoreObserver
{
    Q_DISABLE_COPY_MOVE(CrdController)

public:
    CrdController(Store &store, const ClusterClock &clock);

    // Called by the verbs right after a CRD's create or update is committed.
    void establish(const RecordPtr &crd);
    // One pass over the terminating CRDs.
    void sync();

    void recordStored(const TypeEntry &type,
                      const RecordPtr &record,
                      const RecordPtr &previous) override;
    void recordDeleted(const TypeEntry &, const RecordPtr &) override { }

private:
    TypePtr crdType() const;

    Store &m_store;
    const ClusterClock &m_clock;
    QSet<QString> m_terminating; // CRD names
};

} // namespace reconscope::controller::cluster
