#pragma once

#include "controller/cluster/registry/store.h"

#include <QSet>

namespace reconscope::controller::cluster {

// Namespace deletion (kube-controller-manager's namespace controller): a terminating namespace
// has its content deleted, then its spec.finalizers emptied, and is removed once nothing is left.
class NamespaceController final : public StoreObserver
{
    Q_DISABLE_COPY_MOVE(NamespaceController)

public:
    NamespaceController(Store &store, const ClusterClock &clock);

    // One pass over the terminating namespaces.
    void sync();

    void recordStored(const TypeEntry &type,
                      const RecordPtr &record,
                      const RecordPtr &previous) override;
    void recordDeleted(const TypeEntry &, const RecordPtr &) override { }

private:
    // Deletes what the namespace holds; true when it held nothing.
    bool deleteContent(const QString &ns);
    void finalize(const QString &ns);

    Store &m_store;
    const ClusterClock &m_clock;
    QSet<QString> m_terminating; // namespace names
};

} // namespace reconscope::controller::cluster
