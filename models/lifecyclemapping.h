#pragma once

#include "models/lifecyclestate.h"
#include "models/result.h"

#include <nlohmann/json_fwd.hpp>

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace reconscope::models {

// How the lifecycle rules read one CRD's objects: which conditions mean ready / degraded /
// reconciling, an optional plain health field (Argo CD's status.health.status) with its values
// mapped to states, and which plain status fields the object summary keeps.
struct LifecycleMapping
{
    // False when the CRD declares no status (no status subresource, no status in any schema):
    // its objects have no lifecycle and are never shown as Pending.
    bool hasStatus = true;
    // Summary condition types, in order of preference: the first one present on an object decides
    // rule 6 (True -> Ready, False/Unknown -> Reconciling).
    QStringList readyConditions{ QStringLiteral("Ready") };
    // Any of these True -> Degraded (rule 4).
    QStringList degradedConditions{ QStringLiteral("Degraded"), QStringLiteral("Stalled") };
    // Any of these True -> Reconciling (rule 5).
    QStringList reconcilingConditions{ QStringLiteral("Reconciling") };
    // Dotted path of a plain health field (e.g. "status.health.status"); empty = none. When the
    // object has it, it replaces the ready conditions in rule 6.
    QString healthPath;
    // Health value -> state; a value not listed gives Unknown.
    QMap<QString, LifecycleState> healthStates;
    // Further plain fields the summary keeps (dotted paths such as "status.phase").
    QStringList statusFields;
    // Why this mapping was chosen, for the UI ("default", "argoproj.io Application health", ...).
    QString origin = QStringLiteral("default");

    friend bool operator==(const LifecycleMapping &, const LifecycleMapping &) = default;

    // statusFields plus healthPath: every path the object summary must keep.
    QStringList projectedPaths() const;

    // The default mapping: Ready / Degraded, Stalled / Reconciling, no health field.
    static LifecycleMapping defaults();
    // The mapping for the project's CustomApp (infrastructure.internal.net/v1 customapps).
    static LifecycleMapping forCustomApp();
    // Derives a mapping from a CRD (apiextensions.k8s.io/v1 or v1beta1 JSON): whether it declares
    // a status at all, summary conditions named by its printer columns, and what is known about
    // well-known groups (argoproj.io Applications' health field, crossplane.io's Healthy,
    // cluster.x-k8s.io's Ready/Available and phase, cert-manager.io's Issuing).
    static LifecycleMapping forCrd(const nlohmann::json &crd);
    // Whether a resource of this API group is read by its CRD's mapping (a custom resource: a dot
    // in its group) rather than by the defaults (a built-in one).
    static bool readsCrd(const QString &group);

    // {"hasStatus", "readyConditions", "degradedConditions", "reconcilingConditions",
    //  "healthPath", "healthStates": {value: state}, "statusFields", "origin"}; missing keys keep
    // their defaults.
    static Result<LifecycleMapping> fromJson(const nlohmann::json &json);
    nlohmann::json toJson() const;
};

} // namespace reconscope::models
