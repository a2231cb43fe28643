#pragma once

#include "controller/cluster/registry/store.h"

namespace reconscope::controller::cluster {

// The garbage collector of owner references (kube-controller-manager's garbagecollector):
// an owner deleted with the orphan finalizer has the references to it stripped from its
// dependents, then loses the finalizer; one deleted with foregroundDeletion has its dependents
// deleted (in the foreground too) and loses the finalizer once none is left; when an owner is
// gone, dependents without any owner left are deleted and the others lose the dangling
// references.
class GarbageCollector final : public StoreObserver
{
    Q_DISABLE_COPY_MOVE(GarbageCollector)

public:
    GarbageCollector(Store &store, const ClusterClock &clock);

    // Handles one queued owner, those deleting with a finalizer first; false when none is queued.
    bool processNext();

    void recordStored(const TypeEntry &type,
                      const RecordPtr &record,
                      const RecordPtr &previous) override;
    void recordDeleted(const TypeEntry &type, const RecordPtr &last) override;

private:
    void handleDeletingOwner(const QString &uid);
    void orphanDependents(const QString &uid, const QStringList &dependents);
    void deleteDependentsFirst(const QString &uid, const QStringList &dependents);
    void handleRemovedOwner(const QString &uid);

    Store &m_store;
    const ClusterClock &m_clock;
    QStringList m_deletingOwners; // uids of owners deleting with orphan/foregroundDeletion
    QStringList m_removedOwners; // uids of removed owners that had dependents
};

} // namespace reconscope::controller::cluster
