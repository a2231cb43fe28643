#pragma once

#include "models/lifecyclestate.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArrayView>
#include <QList>
#include <QString>

#include <optional>

namespace reconscope::models {

// One step of a demo scenario: after `afterMs` (scenario time, scaled by the player's speed) since
// the previous step finished, one API call — create, merge-patch, delete —, a pause ("wait"), or
// a wait for an object to reach a lifecycle state ("waitFor", up to `timeoutMs` of playing time).
struct ScenarioStep
{
    enum class Verb { Create, Patch, Delete, Wait, WaitFor };
    static constexpr qint64 DefaultWaitTimeoutMs = 60000;

    qint64 afterMs = 0;
    QString title;
    QString expect; // what should happen next, in words ("Pending -> Reconciling -> Ready")
    Verb verb = Verb::Wait;
    QString group; // empty: core
    QString version;
    QString plural;
    QString namespaceName; // empty: a cluster-scoped resource
    QString name;
    nlohmann::json body; // the object (create) or the merge patch (patch)
    bool ignoreAlreadyExists = false; // a create answered AlreadyExists counts as done
    bool ignoreNotFound = false; // a delete/patch answered NotFound counts as done

    // waitFor: the state the object (group/version/plural, namespaceName/name) must reach; none
    // means gone (deleted, or never there). An empty waitReason accepts any reason.
    std::optional<LifecycleState> waitState;
    QString waitReason;
    qint64 timeoutMs = DefaultWaitTimeoutMs;

    // "tour/shop", or "shop" for a cluster-scoped object.
    QString objectKey() const;
    // "Ready", "Degraded (QuotaExceeded)", "gone".
    QString waitTargetText() const;
};

QString scenarioVerbName(ScenarioStep::Verb verb);

// A demo scenario as stored in resources/scenarios/*.json:
// { "name", "description", "loop": bool, "steps": [ { "after": ms, "title", "expect", "verb":
//   "create"|"patch"|"delete"|"wait"|"waitFor", "apiVersion": "G/V"|"v1", "resource": plural,
//   "namespace", "name", "object"|"patch", "ignoreAlreadyExists", "ignoreNotFound",
//   "waitFor": { "object": "NAMESPACE/NAME", "state": "Ready"|...|"Gone", "reason",
//                "timeoutSeconds" } } ] }
// A create takes its name and namespace from the object's metadata when the step names none. A
// step with a "waitFor" member is a waitFor (its "verb" may be left out); its apiVersion and
// resource default to CustomApps (infrastructure.internal.net/v1 customapps), its title to
// "Wait until tour/shop is Ready", its timeout to 60 s.
struct Scenario
{
    QString name;
    QString description;
    bool loop = false;
    QList<ScenarioStep> steps;

    // Scenario time at which each step starts (the sum of the `after`s up to it), and the total.
    qint64 startOf(qsizetype index) const;
    qint64 durationMs() const;
};

Result<Scenario> parseScenario(QByteArrayView json);

} // namespace reconscope::models
