#pragma once

#include "models/lifecyclemapping.h"
#include "models/lifecyclestate.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>

namespace reconscope::controller::troubleshoot {

// "Why is it not Ready?" (issue 23): what was read of the cluster about one object, and the causes
// the rules below find in it, ranked. The rules are pure: what to read is ExplainReader's, and a
// test gives them any world it likes.

// What was read for one object.
struct ExplainInput
{
    nlohmann::json object; // the object itself
    QString resource; // as kubectl names it: "customapps.infrastructure.internal.net"
    models::LifecycleMapping mapping; // how its lifecycle is read
    QDateTime now; // UTC
    // Its Events (core/v1), any type.
    QList<nlohmann::json> events;
    // Workloads it owns (a controller ownerReference to its uid): Deployments, and the Pods of
    // those (by the Deployment's selector), with the Warning Events of each.
    QList<nlohmann::json> deployments;
    QList<nlohmann::json> pods;
    QList<nlohmann::json> workloadEvents;
    // Signs of a controller for the object's API group, or of one that would remove its
    // finalizers (Leases renewed, Deployments ready), and what was searched to find them
    // ("Leases in all namespaces named like cert-manager").
    QStringList controllerSigns;
    QStringList controllerSearch;
    // What the embedded reconciler last concluded about the object, when it runs (the console).
    QString reconcilerVerdict;
};

struct ExplainThresholds
{
    std::chrono::seconds pending{ 120 }; // status never written this long: no controller acting
    std::chrono::seconds stale{ 60 }; // observedGeneration behind generation this long
};

// One cause, with its evidence.
struct Cause
{
    // In rank order: what the rules look at first.
    enum class Kind {
        DeletionWaits, // 1. deletionTimestamp set, finalizers left
        WorkloadFailing, // 2. an owned Deployment cannot make pods, or its pods cannot run
        Stalled, // 3. a Stalled condition True (the controller gave up: terminal)
        ConditionFailing, // 4. a Degraded condition True, the Ready condition not True
        StaleStatus, // 5. status.observedGeneration behind metadata.generation
        NoController, // 6. no status written long after creation
        WarningEvent, // 7. the object's own Warning Events, newest first
        ReconcilerVerdict, // 8. what the embedded reconciler concluded
    };
    Kind kind = Kind::ConditionFailing;
    QString summary; // one line
    QStringList evidence;
};

struct Explanation
{
    QString key; // "namespace/name"
    QString kind;
    models::LifecycleState state = models::LifecycleState::Unknown;
    QString stateReason;
    QList<Cause> causes; // ranked; empty when nothing is wrong
    QStringList lookedAt; // what was read
};

// The rules, in the order Cause::Kind lists them; within one kind, in the order found (Events
// newest first). A condition written for an older generation than the object's (its own
// observedGeneration) is no evidence of the spec as it is: it ranks with the stale status, not
// before it. Written out in docs/troubleshooting.md and `reconscope explain --help`.
Explanation explain(const ExplainInput &input, const ExplainThresholds &thresholds = {});

QString causeKindName(Cause::Kind kind); // "deletion-waits", "workload-failing", ...
nlohmann::json toJson(const Explanation &explanation);
QString toText(const Explanation &explanation);

} // namespace reconscope::controller::troubleshoot
