#pragma once

#include "controller/cluster/cluster.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>

namespace reconscope::controller::cluster {

// Plays the Deployment controller, the ResourceQuota admission and the kubelet for the embedded
// cluster, so that an operator's owned Deployments behave as on kind:
// - a Deployment's pods are created (owned by it, controller=true) and become ready after
//   `podStartDelayMs`; scaling and template changes create and delete pods;
// - an image that cannot be pulled (see `imagePullable`) leaves its pods waiting in ErrImagePull,
//   then ImagePullBackOff;
// - a ResourceQuota with `spec.hard.pods` caps the pods of its namespace; the Deployment reports
//   ReplicaFailure=True reason FailedCreate with the upstream "exceeded quota" message, and the
//   quota's status.used is kept current;
// - Deployment status (replicas, readyReplicas, available/updated/unavailable replicas,
//   observedGeneration, Available/Progressing/ReplicaFailure conditions) is written through /status
//   only when it changes.
// Known divergence: pods are owned by the Deployment directly (no ReplicaSet in between).
class WorkloadSimulator final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkloadSimulator)

public:
    struct Options
    {
        int podStartDelayMs = 1500;
        int imagePullBackOffDelayMs = 2000; // ErrImagePull -> ImagePullBackOff
        // An image whose tag is "missing", or whose name contains "does-not-exist", cannot be
        // pulled.
        std::function<bool(const QString &image)> imagePullable;
    };

    explicit WorkloadSimulator(Cluster *cluster, QObject *parent = nullptr);
    WorkloadSimulator(Cluster *cluster, Options options, QObject *parent = nullptr);
    ~WorkloadSimulator() override;

    static bool defaultImagePullable(const QString &image);

    // Pods created and deleted so far (for tests and the status line).
    int podsCreated() const { return m_podsCreated; }
    int podsDeleted() const { return m_podsDeleted; }

Q_SIGNALS:
    void deploymentSynced(const QString &ns, const QString &name);

private:
    void handleEvent(const ClusterEvent &event);
    void scheduleSync(const QString &ns, const QString &name);
    void syncAll();
    void syncDeployment(const QString &ns, const QString &name);
    std::vector<nlohmann::json> ownedPods(const QString &ns, const QString &uid) const;
    std::vector<nlohmann::json> removeOutdatedPods(const QString &ns,
                                                   const QString &hash,
                                                   const std::vector<nlohmann::json> &owned);
    void scaleDown(const QString &ns, qint64 desired, std::vector<nlohmann::json> &current);
    apimachinery::ApiResult<nlohmann::json>
    createPod(const QString &ns, const QString &podName, const nlohmann::json &pod);
    void startPod(const QString &ns, const QString &name, const QString &uid);
    void backOffPod(const QString &ns, const QString &name, const QString &uid);
    void syncQuotas(const QString &ns);
    // The first quota that a new pod would exceed, as upstream's message; empty when none.
    QString quotaViolation(const QString &ns, const QString &podName) const;

    // Guarded: the simulator may be a child of its Cluster, and is then destroyed after it.
    QPointer<Cluster> m_cluster;
    Options m_options;
    int m_subscription = 0;
    QSet<QString> m_dirty; // "namespace/name" of deployments
    QSet<QString> m_dirtyQuotaNamespaces;
    QTimer m_syncTimer;
    int m_podsCreated = 0;
    int m_podsDeleted = 0;
};

} // namespace reconscope::controller::cluster
