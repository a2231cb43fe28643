#pragma once

#include "controller/reconcile/reconciler.h"
#include "models/condition.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

// The pure parts of the CustomApp reconciler: the Deployment a CustomApp asks for, how an actual
// Deployment drifts from it, whether a spec can be reconciled, and the status each outcome reports.
// No I/O: the reconciler's steps read and write, these functions decide.
namespace reconscope::controller::operators::customapp {

inline constexpr const char *NameLabel = "app.kubernetes.io/name";
inline constexpr const char *InstanceLabel = "app.kubernetes.io/instance";
inline constexpr const char *NameLabelValue = "customapp";
inline constexpr int MaxReplicas = 100;

// The Deployment the CustomApp asks for (name, labels, ownerReference, replicas, template).
nlohmann::json desiredDeployment(const nlohmann::json &app);
// Why the spec cannot be reconciled, or empty. secretExists answers for spec.secretRef.name.
QString specProblem(const nlohmann::json &app,
                    const std::function<bool(const QString &)> &secretExists);
// The Deployment fields the reconciler owns differ: what differs, in words, empty when equal.
QString deploymentDrift(const nlohmann::json &actual, const nlohmann::json &desired);
// object has a controller ownerReference with this uid.
bool ownedBy(const nlohmann::json &object, const QString &uid);
// The "ns/name" key of the CustomApp controlling deployment, or empty.
QString ownerKeyOfDeployment(const nlohmann::json &deployment);
// pod carries the owned template's labels: the name of its CustomApp, or empty.
QString instanceOfPod(const nlohmann::json &pod);

// What a reconcile reports in status.conditions (set these, remove those), the replica counts
// when it read them, and the outcome it ends with once status is written.
struct StatusReport
{
    models::ConditionList conditions;
    QStringList removeTypes;
    reconcile::ReconcileOutcome outcome;
    std::optional<qint64> replicas;
    std::optional<qint64> readyReplicas;
};

StatusReport pausedReport(qint64 generation);
StatusReport invalidSpecReport(const QString &problem, qint64 generation);
StatusReport notOwnedReport(const QString &name, qint64 generation);
StatusReport transientErrorReport(const QString &message, qint64 generation);
// The Deployment was restored after a change outside the reconciler (message says what changed).
StatusReport
driftReport(const QString &message, const nlohmann::json &deployment, qint64 generation);
// The state of a current Deployment: a ReplicaFailure (quota), pods that cannot pull the image
// (pods() lists the CustomApp's pods; it is called only when there is no ReplicaFailure), still
// rolling out, or ready.
StatusReport deploymentReport(const QString &name,
                              const nlohmann::json &app,
                              const nlohmann::json &deployment,
                              qint64 generation,
                              const std::function<QList<nlohmann::json>()> &pods);

// The status app gets from report at time `at`, and whether its Ready condition changed (a
// transition worth an Event: the notable steps `kubectl describe` should show).
struct StatusUpdate
{
    nlohmann::json status;
    bool changed = false; // status differs from app's
    bool readyChanged = false;
    bool degraded = false; // Degraded is True after the update
    QString readyReason;
    QString readyMessage;
};
StatusUpdate statusUpdate(const nlohmann::json &app,
                          const StatusReport &report,
                          qint64 generation,
                          const QDateTime &at);

} // namespace reconscope::controller::operators::customapp
