#pragma once

// The lifecycle rules over one resource's object changes, each transition printed as `reconscope
// watch` prints it, and the field-manager fights the objects' managedFields show: the one piece
// `watch` (live) and `replay` (recorded) share, so that a replay prints what watch printed.
#include "controller/fieldowner/fightdetector.h"
#include "controller/kube/objectsummarizer.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/reconcilelatency.h"

#include <nlohmann/json_fwd.hpp>

#include <QByteArrayView>
#include <QDateTime>
#include <QString>

#include <memory>

namespace reconscope::app {

// How `watch` reads a resource's lifecycle: a custom resource's from its CRD, the defaults for a
// built-in one (no dot in its group) or when the CRD is unknown (null).
bool lifecycleNeedsCrd(const QString &group);
models::LifecycleMapping lifecycleMapping(const nlohmann::json *crd);

class TransitionPrinter
{
public:
    // `command` names the command in the messages on stderr; `json`: one JSON object a line.
    TransitionPrinter(const char *command,
                      models::LifecycleMapping mapping,
                      bool json,
                      controller::fieldowner::FightSettings fights = {});

    // An object added or changed, and when, and how it was seen (a watch event, the list made at
    // connect, a relist after a watch gap); prints the transition it makes, if any, or its census
    // entry, then the fights it starts. A time `estimated` (an untimed kubectl capture's) is
    // marked so.
    void upsert(QByteArrayView object,
                const QString &key,
                const QDateTime &time,
                models::Observed observed = models::Observed::Live,
                bool estimated = false);
    // `watch -o json` also prints a latency record whenever an object settles (Ready or
    // Degraded) after a spec change it saw: that change's latencies and the resource's p50, p95
    // and p99 so far (models::ReconcileLatency). Off by default (a replay's times are not the
    // watch's).
    void setReportLatency(const QString &resource) { m_latencyResource = resource; }
    static QString formatLatency(const models::LatencySample &sample,
                                 const models::LatencySummary &summary);

    void remove(const QString &key,
                const QDateTime &time,
                models::Observed observed = models::Observed::Live,
                bool estimated = false);

    // One transition or census entry as `watch` prints it (no newline). `sinceCondition` names
    // the condition whose lastTransitionTime the census entry's (or gap move's) since is. An
    // estimated time adds "  [time estimated]" to a line, "timeEstimated": true to a JSON object.
    static QString format(const models::Transition &transition,
                          bool json,
                          bool estimated = false,
                          const QString &sinceCondition = QString());

    // A fight as `watch` prints it (no newline): a line, or its JSON record.
    static QString
    format(const controller::fieldowner::Fight &fight, const QDateTime &time, bool json);

private:
    void print(const models::Transition &transition, bool estimated) const;

    const char *m_command;
    models::LifecycleMapping m_mapping;
    std::unique_ptr<controller::kube::ObjectSummarizer> m_summarizer; // for m_mapping
    models::LifecycleTracker m_tracker;
    controller::fieldowner::FightDetector m_fights;
    bool m_json;
    QString m_latencyResource; // empty: no latency records
    models::ReconcileLatency m_latency;
};

} // namespace reconscope::app
