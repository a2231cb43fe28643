#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/operator/customappreconciler.h"
#include "controller/reconcile/clock.h"

#include <QObject>
#include <QStringList>

namespace reconscope::controller::console {

// What the CustomApp reconciler would write for one object, without writing it: a reconciler of its
// own in dry-run mode (its own informers, same credentials as the console) run on demand for a key.
// Plans asked for before its caches have synced run once they have.
class DryRunPlanner final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DryRunPlanner)

public:
    explicit DryRunPlanner(kube::ClientConfig config, QObject *parent = nullptr);
    ~DryRunPlanner() override;

    // Computes the writes for key ("namespace/name"); planned() follows.
    void plan(const QString &key);
    bool isReady() const;

signals:
    // The writes the reconciler would send, and its verdict in words ("would requeue after
    // 5s", "terminal error: ...", "nothing left to do").
    void planned(const QString &key,
                 const QList<reconscope::controller::operators::PlannedWrite> &writes,
                 const QString &outcome);

private:
    void runPending();

    reconcile::RealClock m_clock;
    operators::CustomAppReconciler *m_reconciler;
    QStringList m_pending;
};

} // namespace reconscope::controller::console
