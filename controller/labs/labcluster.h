#pragma once

#include "controller/kube/clientconfig.h"
#include "models/result.h"

#include <QObject>

namespace reconscope::controller::cluster {
class BackgroundCluster;
}

namespace reconscope::controller::labs {

// An embedded cluster of a lab's own (no demo objects, no workload simulator) on a thread of its
// own, reached like a real one: through the kubeconfig it writes (mTLS, context
// reconscope-admin). `reconscope conflict-lab` without --kubeconfig runs on one, and the
// reconciler's dry run over a replay (ReplayDryRun) plays the recording into one.
class LabCluster final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LabCluster)

public:
    // simulateWorkloads: with the workload simulator (Deployments' pods, quota admission), as
    // the demo tour needs.
    explicit LabCluster(QObject *parent = nullptr, bool simulateWorkloads = false);
    ~LabCluster() override;

    // Starts the server; ready() or failed() follows.
    models::Status<> start();
    const kube::ClientConfig &clientConfig() const { return m_config; }

signals:
    void ready(const reconscope::controller::kube::ClientConfig &config);
    void failed(const QString &message);

private:
    void handleStarted(const QString &kubeconfigPath);

    cluster::BackgroundCluster *m_cluster;
    kube::ClientConfig m_config;
};

} // namespace reconscope::controller::labs
