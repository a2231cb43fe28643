#pragma once

#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArrayView>
#include <QList>
#include <QString>

namespace reconscope::models {

// One step of a demo scenario: after `afterMs` (scenario time, scaled by the player's speed) since
// the previous step finished, one API call — create, merge-patch, delete — or a pause ("wait").
struct ScenarioStep
{
    enum class Verb { Create, Patch, Delete, Wait };

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
};

QString scenarioVerbName(ScenarioStep::Verb verb);

// A demo scenario as stored in resources/scenarios/*.json:
// { "name", "description", "loop": bool, "steps": [ { "after": ms, "title", "expect", "verb":
//   "create"|"patch"|"delete"|"wait", "apiVersion": "G/V"|"v1", "resource": plural, "namespace",
//   "name", "object"|"patch", "ignoreAlreadyExists", "ignoreNotFound" } ] }
// A create takes its name and namespace from the object's metadata when the step names none.
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
