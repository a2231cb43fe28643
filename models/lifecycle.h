#pragma once

#include "models/lifecyclemapping.h"
#include "models/lifecyclestate.h"
#include "models/objectsummary.h"

#include <QDateTime>
#include <QString>

namespace reconscope::models {

// What the lifecycle rules say about one object.
struct LifecycleVerdict
{
    LifecycleState state = LifecycleState::Unknown;
    // Human text: "stale status: generation 3, observed 2", a condition's reason, "health:
    // Healthy".
    QString reason;
    // The deciding condition's message, when a condition decided.
    QString message;
    KStatus kstatus = KStatus::Unknown;
    QString kstatusMessage;
    // Which rule of reconciler.md section 4 matched: 1 Terminating, 2 Pending, 3 stale status,
    // 4 Degraded/Stalled, 5 Reconciling, 6 summary condition or health field, 7 Unknown;
    // 0 for NoLifecycle (the CRD declares no status).
    int ruleIndex = 7;
    // When the object says it entered the state: the deciding condition's lastTransitionTime
    // (rules 4 to 6), with that condition's type; invalid (and empty) when no condition decided
    // or it carries no time. What an object observed at connect or across a watch gap shows as
    // its time in state, since nothing was seen of its move.
    QDateTime since;
    QString sinceCondition;

    friend bool operator==(const LifecycleVerdict &, const LifecycleVerdict &) = default;
};

// The lifecycle rules, first match wins:
// 1. metadata.deletionTimestamp -> Terminating;
// 2. no status, an empty status, or a status holding only the CRD default observedGeneration < 0
//    -> Pending (NoLifecycle instead when the mapping says the CRD declares no status);
// 3. status.observedGeneration < metadata.generation -> Reconciling ("stale status");
// 4. a degraded condition (Degraded, Stalled) True -> Degraded;
// 5. a reconciling condition (Reconciling) True -> Reconciling;
// 6. the health field when the mapping has one and the object carries it (value -> state), else
//    the first summary condition present (Ready): True -> Ready, False/Unknown -> Reconciling;
// 7. otherwise Unknown.
// The kstatus value is computed by kstatus' own rules (see computeKStatus).
LifecycleVerdict deriveLifecycle(const ObjectSummary &summary, const LifecycleMapping &mapping);

// kstatus (cli-utils pkg/kstatus/status Compute) for a custom resource: deletionTimestamp ->
// Terminating; metadata.generation and status.observedGeneration both set and different ->
// InProgress; the first of Reconciling=True (InProgress) / Stalled=True (Failed) in condition
// order; then a Ready condition: True -> Current, False/Unknown -> InProgress; otherwise Current.
// Unknown when kstatus could not read the fields it needs (its errors).
std::pair<KStatus, QString> computeKStatus(const ObjectSummary &summary);

} // namespace reconscope::models
