#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/operator/customappreconciler.h"
#include "controller/operator/leaderelection.h"
#include "controller/reconcile/controllerloop.h"
#include "models/lifecyclemapping.h"
#include "models/reconcilelatency.h"

#include <QObject>

#include <memory>

namespace reconscope::controller::operators {

// The CustomApp operator as a whole: the reconciler (informers + client), the controller loop that
// drives it, and optionally leader election. With leader election the loop stays paused (events
// are queued, nothing is reconciled, nothing is written) until this instance holds the Lease, and
// pauses again when it loses it.
class CustomAppOperator final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CustomAppOperator)

public:
    struct Options
    {
        CustomAppReconciler::Options reconciler;
        reconcile::ControllerLoop::Options loop;
        bool leaderElection = false;
        LeaderElector::Options lease;
    };

    // The clock must outlive the operator.
    CustomAppOperator(kube::ClientConfig config,
                      reconcile::Clock &clock,
                      Options options,
                      QObject *parent = nullptr);
    ~CustomAppOperator() override;

    void start();
    void stop();

    // Whether it reconciles now (it leads, or leader election is off).
    bool isActive() const { return m_active; }
    CustomAppReconciler &reconciler() { return *m_reconciler; }
    reconcile::ControllerLoop &loop() { return *m_loop; }
    LeaderElector *elector() { return m_elector; } // null without leader election

signals:
    void activeChanged(bool active);

private:
    void setActive(bool active);
    void measureLatency(const models::ObjectSummary &summary);

    reconcile::Clock &m_clock;
    // End-to-end latency from the reconciler's own CustomApp informer (no samples kept: each one
    // goes into the loop's histogram).
    models::LifecycleMapping m_mapping = models::LifecycleMapping::forCustomApp();
    models::ReconcileLatency m_latency{ 1 };

    CustomAppReconciler *m_reconciler = nullptr;
    reconcile::ControllerLoop *m_loop = nullptr;
    LeaderElector *m_elector = nullptr;
    bool m_active = false;
};

} // namespace reconscope::controller::operators
