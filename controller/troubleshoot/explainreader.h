#pragma once

#include "controller/apimachinery/resourceref.h"
#include "controller/apimachinery/status.h"
#include "controller/troubleshoot/explanation.h"
#include "models/result.h"

#include <QObject>

#include <functional>
#include <memory>

namespace reconscope::controller::kube {
class RestClient;
}

namespace reconscope::controller::troubleshoot {

// Reads what explain() needs about one object, through a client, one request after another:
// - the object;
// - its Events (core/v1, field selector involvedObject.name, then its kind and uid);
// - the Deployments of its namespace it owns (a controller ownerReference to its uid), the Pods
//   of each (by its selector) and the Warning Events of the namespace about either;
// - when it has no status: the Leases of all namespaces and the Deployments of all namespaces
//   whose names carry the first label of its API group or its kind in lower case (a Lease
//   renewed within twice its duration, a Deployment with a ready replica, is a sign of a
//   controller).
// What cannot be read (forbidden, say) is said in lookedAt and left out; only the object itself
// must be read.
class ExplainReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExplainReader)

public:
    using Done = std::function<void(models::Result<Explanation, apimachinery::ApiError>)>;

    ExplainReader(kube::RestClient *client, QObject *parent = nullptr);
    ~ExplainReader() override;

    // `now` and the thresholds are the rules' (a test injects them).
    void explain(const apimachinery::ResourceRef &resource,
                 const QString &namespace_,
                 const QString &name,
                 const models::LifecycleMapping &mapping,
                 const QDateTime &now,
                 const ExplainThresholds &thresholds,
                 Done done);

private:
    struct Run;
    void readEvents(std::shared_ptr<Run> run);
    void readDeployments(std::shared_ptr<Run> run);
    void readPods(std::shared_ptr<Run> run, qsizetype deployment);
    void readWorkloadEvents(std::shared_ptr<Run> run);
    void readControllerLeases(std::shared_ptr<Run> run);
    void readControllerDeployments(std::shared_ptr<Run> run);
    void finish(std::shared_ptr<Run> run);

    kube::RestClient *m_client;
};

} // namespace reconscope::controller::troubleshoot
