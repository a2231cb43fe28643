#include "controller/troubleshoot/explanation.h"

#include "models/condition.h"
#include "models/jsonfields.h"
#include "models/lifecycle.h"
#include "models/objectsummary.h"
#include "models/rfc3339.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using Json = nlohmann::json;

namespace reconscope::controller::troubleshoot {

namespace {

// Container waiting reasons that say the container cannot start (kubelet's words).
const QStringList FailingWaitReasons{ u"ImagePullBackOff"_s,     u"ErrImagePull"_s,
                                      u"CrashLoopBackOff"_s,     u"CreateContainerConfigError"_s,
                                      u"CreateContainerError"_s, u"InvalidImageName"_s,
                                      u"RunContainerError"_s,    u"ErrImageNeverPull"_s };

// "45s", "3m12s", "2h5m".
QString duration(qint64 seconds)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 60)
        return u"%1s"_s.arg(seconds);
    if (seconds < 3600)
        return u"%1m%2s"_s.arg(seconds / 60).arg(seconds % 60);
    return u"%1h%2m"_s.arg(seconds / 3600).arg(seconds % 3600 / 60);
}

QDateTime timeOf(const Json &object, const char *member)
{
    return models::parseRfc3339(models::jsonString(object, member)).value_or(QDateTime());
}

QString nameOf(const Json &object)
{
    return models::jsonString(models::jsonMember(object, "metadata"), "name");
}

QString conditionLine(const models::Condition &condition)
{
    QString line = condition.type + u'=' + condition.status;
    if (!condition.reason.isEmpty())
        line += u": "_s + condition.reason;
    if (!condition.message.isEmpty())
        line += u": "_s + condition.message;
    return line;
}

// The Warning Events about `name` (any kind when empty), newest first, as evidence lines.
QStringList warnings(const QList<Json> &events, const QString &name, const QDateTime &now)
{
    QList<std::pair<QDateTime, QString>> found;
    for (const Json &event : events) {
        if (models::jsonString(event, "type") != u"Warning"_s)
            continue;
        const Json &involved = models::jsonMember(event, "involvedObject");
        if (!name.isEmpty() && models::jsonString(involved, "name") != name)
            continue;
        QDateTime last = timeOf(event, "lastTimestamp");
        if (!last.isValid())
            last = timeOf(event, "eventTime");
        const qint64 count = models::jsonInteger(event, "count", 1);
        QString line = u"Warning %1: %2"_s.arg(models::jsonString(event, "reason"),
                                               models::jsonString(event, "message"));
        if (count > 1)
            line += u" (x%1)"_s.arg(count);
        if (last.isValid())
            line += u" %1 ago"_s.arg(duration(last.secsTo(now)));
        found.append({ last, line });
    }
    std::stable_sort(
        found.begin(), found.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList lines;
    for (const auto &entry : std::as_const(found))
        lines << entry.second;
    return lines;
}

// The managers whose managedFields entries hold the finalizer (who added it, when the server keeps
// managedFields).
QStringList addedBy(const Json &object, const QString &finalizer)
{
    const std::string key = "v:" + Json(finalizer.toStdString()).dump();
    QStringList managers;
    const Json &entries
        = models::jsonMember(models::jsonMember(object, "metadata"), "managedFields");
    if (!entries.is_array())
        return managers;
    for (const Json &entry : entries) {
        const Json &set = models::jsonMember(
            models::jsonMember(models::jsonMember(entry, "fieldsV1"), "f:metadata"),
            "f:finalizers");
        if (set.is_object() && set.contains(key))
            managers << u"%1 (%2 at %3)"_s.arg(models::jsonString(entry, "manager"),
                                               models::jsonString(entry, "operation"),
                                               models::jsonString(entry, "time"));
    }
    return managers;
}

// The command that removes one finalizer, to copy: a JSON patch that tests it is still there.
QString removalCommand(const ExplainInput &input, qsizetype index, const QString &finalizer)
{
    const Json &metadata = models::jsonMember(input.object, "metadata");
    const QString ns = models::jsonString(metadata, "namespace");
    const Json patch = Json::array(
        { { { "op", "test" },
            { "path", "/metadata/finalizers/" + std::to_string(index) },
            { "value", finalizer.toStdString() } },
          { { "op", "remove" }, { "path", "/metadata/finalizers/" + std::to_string(index) } } });
    return u"kubectl patch %1 %2%3 --type=json -p '%4'"_s.arg(
        input.resource.isEmpty() ? models::jsonString(input.object, "kind").toLower()
                                 : input.resource,
        models::jsonString(metadata, "name"),
        ns.isEmpty() ? QString() : u" -n "_s + ns,
        QString::fromStdString(patch.dump()));
}

void deletionCause(const models::ObjectSummary &summary,
                   const ExplainInput &input,
                   QList<Cause> &causes)
{
    if (!summary.markedForDeletion)
        return;
    Cause cause{ Cause::Kind::DeletionWaits, {}, {} };
    const QString waited = summary.deletionTimestamp.isValid()
        ? u" %1 ago"_s.arg(duration(summary.deletionTimestamp.secsTo(input.now)))
        : QString();
    cause.summary = summary.finalizers.isEmpty()
        ? u"deletion requested%1, no finalizer left: the server removes it"_s.arg(waited)
        : u"deletion requested%1 waits for finalizers: %2"_s.arg(waited,
                                                                 summary.finalizers.join(u", "_s));
    for (qsizetype i = 0; i < summary.finalizers.size(); ++i) {
        const QString &finalizer = summary.finalizers[i];
        const QStringList managers = addedBy(input.object, finalizer);
        cause.evidence << u"finalizer %1, added by %2"_s.arg(
            finalizer,
            managers.isEmpty() ? u"an unknown manager (no managedFields say)"_s
                               : managers.join(u", "_s));
    }
    if (input.controllerSigns.isEmpty()) {
        cause.evidence << u"no sign of a controller that would remove them"_s;
    } else {
        for (const QString &sign : input.controllerSigns)
            cause.evidence << u"a controller looks alive: "_s + sign;
    }
    for (const QString &searched : input.controllerSearch)
        cause.evidence << u"looked at: "_s + searched;
    for (const Json &deployment : input.deployments)
        cause.evidence << u"owned Deployment %1 still present"_s.arg(nameOf(deployment));
    for (qsizetype i = 0; i < summary.finalizers.size(); ++i)
        cause.evidence
            << u"to remove %1 by hand (only once its controller is gone for good): %2"_s.arg(
                   summary.finalizers[i], removalCommand(input, i, summary.finalizers[i]));
    causes << cause;
}

// Most specific first: a Deployment that cannot create pods, then pods that cannot run, then
// Deployments unavailable or stalled (which those two explain when they are there).
void workloadCauses(const ExplainInput &input, QList<Cause> &causes)
{
    QList<Cause> unavailable;
    for (const Json &deployment : input.deployments) {
        const QString name = nameOf(deployment);
        const Json &status = models::jsonMember(deployment, "status");
        const Json &conditions = models::jsonMember(status, "conditions");
        if (!conditions.is_array())
            continue;
        for (const Json &json : conditions) {
            const auto condition = models::Condition::fromJsonLenient(json);
            const bool failure = condition.type == u"ReplicaFailure"_s && condition.isTrue();
            const bool notAvailable = condition.type == u"Available"_s && condition.isFalse();
            const bool deadline = condition.type == u"Progressing"_s && condition.isFalse();
            if (!failure && !notAvailable && !deadline)
                continue;
            Cause cause{ Cause::Kind::WorkloadFailing, {}, {} };
            cause.summary = u"Deployment %1 %2: %3"_s.arg(
                name,
                failure ? u"cannot create pods"_s
                        : (notAvailable ? u"is not available"_s : u"stopped progressing"_s),
                condition.reason
                    + (condition.message.isEmpty() ? QString() : u": "_s + condition.message));
            cause.evidence << u"replicas %1, ready %2"_s
                                  .arg(models::jsonInteger(status, "replicas"))
                                  .arg(models::jsonInteger(status, "readyReplicas"));
            cause.evidence << warnings(input.workloadEvents, name, input.now);
            (failure ? causes : unavailable) << cause;
        }
    }
    for (const Json &pod : input.pods) {
        const QString name = nameOf(pod);
        const Json &status = models::jsonMember(pod, "status");
        for (const char *list : { "initContainerStatuses", "containerStatuses" }) {
            const Json &containers = models::jsonMember(status, list);
            if (!containers.is_array())
                continue;
            for (const Json &container : containers) {
                const Json &waiting
                    = models::jsonMember(models::jsonMember(container, "state"), "waiting");
                const QString reason = models::jsonString(waiting, "reason");
                if (!FailingWaitReasons.contains(reason))
                    continue;
                Cause cause{ Cause::Kind::WorkloadFailing, {}, {} };
                const QString message = models::jsonString(waiting, "message");
                cause.summary = u"Pod %1: container %2 waiting: %3%4"_s.arg(
                    name,
                    models::jsonString(container, "name"),
                    reason,
                    message.isEmpty() ? QString() : u": "_s + message);
                cause.evidence << warnings(input.workloadEvents, name, input.now);
                causes << cause;
            }
        }
    }
    causes << unavailable;
}

} // namespace

Explanation explain(const ExplainInput &input, const ExplainThresholds &thresholds)
{
    Explanation out;
    const Json &metadata = models::jsonMember(input.object, "metadata");
    const QString ns = models::jsonString(metadata, "namespace");
    out.key = ns.isEmpty() ? nameOf(input.object) : ns + u'/' + nameOf(input.object);
    out.kind = models::jsonString(input.object, "kind");
    const auto read = models::ObjectSummary::fromJson(input.object, input.mapping);
    if (!read) {
        out.causes << Cause{ Cause::Kind::ConditionFailing,
                             u"the object cannot be read: %1"_s.arg(read.error().message),
                             {} };
        return out;
    }
    const models::ObjectSummary &summary = read.value();
    const models::LifecycleVerdict verdict = models::deriveLifecycle(summary, input.mapping);
    out.state = verdict.state;
    out.stateReason = verdict.reason;
    const qint64 generation = summary.generation.value_or(0);
    const auto staleFor = [generation](const models::Condition &c) {
        return c.observedGeneration > 0 && generation > 0 && c.observedGeneration < generation;
    };

    deletionCause(summary, input, out.causes);
    workloadCauses(input, out.causes);

    QList<Cause> staleConditions;
    const auto addCondition = [&](Cause::Kind kind, const models::Condition &condition) {
        Cause cause{ kind, conditionLine(condition), {} };
        if (condition.lastTransitionTime.isValid())
            cause.evidence << u"since %1 (%2 ago)"_s.arg(
                condition.lastTransitionTime.toString(Qt::ISODate),
                duration(condition.lastTransitionTime.secsTo(input.now)));
        if (staleFor(condition)) {
            cause.summary += u" (written for generation %1; the object is at %2)"_s
                                 .arg(condition.observedGeneration)
                                 .arg(generation);
            staleConditions << cause;
        } else {
            out.causes << cause;
        }
    };
    for (const models::Condition &condition : summary.conditions) {
        if (condition.type == u"Stalled"_s && condition.isTrue())
            addCondition(Cause::Kind::Stalled, condition);
    }
    for (const models::Condition &condition : summary.conditions) {
        const bool degraded = input.mapping.degradedConditions.contains(condition.type)
            && condition.type != u"Stalled"_s && condition.isTrue();
        const bool notReady
            = input.mapping.readyConditions.contains(condition.type) && !condition.isTrue();
        if (degraded || notReady)
            addCondition(Cause::Kind::ConditionFailing, condition);
    }

    const std::optional<qint64> observed = summary.observedGeneration;
    if (observed && generation > 0 && *observed < generation) {
        Cause cause{
            Cause::Kind::StaleStatus,
            u"the status is stale: generation %1, observed %2"_s.arg(generation).arg(*observed),
            {}
        };
        cause.evidence << u"the controller has not caught up with the latest spec (it is "
                          u"counted stale after %1)"_s.arg(duration(thresholds.stale.count()));
        out.causes << cause;
    }
    out.causes << staleConditions;

    const bool noStatus = verdict.state == models::LifecycleState::Pending;
    if (noStatus && summary.creationTimestamp.isValid()
        && summary.creationTimestamp.secsTo(input.now) <= thresholds.pending.count()) {
        out.causes << Cause{ Cause::Kind::NoController,
                             u"no status yet, %1 after creation (no controller acting is said "
                             u"after %2)"_s.arg(
                                 duration(summary.creationTimestamp.secsTo(input.now)),
                                 duration(thresholds.pending.count())),
                             input.controllerSigns };
    } else if (noStatus && summary.creationTimestamp.isValid()) {
        const QString age = duration(summary.creationTimestamp.secsTo(input.now));
        Cause cause{ Cause::Kind::NoController, {}, {} };
        if (input.controllerSigns.isEmpty()) {
            cause.summary = u"no controller is acting: no status written in the %1 since "
                            u"creation, and none was found"_s.arg(age);
        } else {
            cause.summary = u"no status written in the %1 since creation, though a controller "
                            u"seems to run"_s.arg(age);
            cause.evidence << input.controllerSigns;
        }
        for (const QString &searched : input.controllerSearch)
            cause.evidence << u"looked at: "_s + searched;
        out.causes << cause;
    }

    for (const QString &line : warnings(input.events, {}, input.now))
        out.causes << Cause{ Cause::Kind::WarningEvent, line, {} };
    if (!input.reconcilerVerdict.isEmpty())
        out.causes << Cause{ Cause::Kind::ReconcilerVerdict, input.reconcilerVerdict, {} };
    return out;
}

QString causeKindName(Cause::Kind kind)
{
    switch (kind) {
    case Cause::Kind::DeletionWaits:
        return u"deletion-waits"_s;
    case Cause::Kind::WorkloadFailing:
        return u"workload-failing"_s;
    case Cause::Kind::Stalled:
        return u"stalled"_s;
    case Cause::Kind::ConditionFailing:
        return u"condition-failing"_s;
    case Cause::Kind::StaleStatus:
        return u"stale-status"_s;
    case Cause::Kind::NoController:
        return u"no-controller"_s;
    case Cause::Kind::WarningEvent:
        return u"warning-event"_s;
    case Cause::Kind::ReconcilerVerdict:
        return u"reconciler-verdict"_s;
    }
    return {};
}

Json toJson(const Explanation &explanation)
{
    Json causes = Json::array();
    for (const Cause &cause : explanation.causes) {
        Json evidence = Json::array();
        for (const QString &line : cause.evidence)
            evidence.push_back(line.toStdString());
        causes.push_back({ { "kind", causeKindName(cause.kind).toStdString() },
                           { "summary", cause.summary.toStdString() },
                           { "evidence", evidence } });
    }
    Json lookedAt = Json::array();
    for (const QString &line : explanation.lookedAt)
        lookedAt.push_back(line.toStdString());
    return { { "key", explanation.key.toStdString() },
             { "kind", explanation.kind.toStdString() },
             { "state", models::lifecycleStateName(explanation.state).toStdString() },
             { "stateReason", explanation.stateReason.toStdString() },
             { "causes", causes },
             { "lookedAt", lookedAt } };
}

QString toText(const Explanation &explanation)
{
    QString text = u"%1 %2: %3 (%4)\n"_s.arg(explanation.kind,
                                             explanation.key,
                                             models::lifecycleStateName(explanation.state),
                                             explanation.stateReason);
    if (explanation.causes.isEmpty())
        text += u"  nothing found wrong\n"_s;
    for (qsizetype i = 0; i < explanation.causes.size(); ++i) {
        const Cause &cause = explanation.causes[i];
        text += u"%1. [%2] %3\n"_s.arg(i + 1).arg(causeKindName(cause.kind), cause.summary);
        for (const QString &line : cause.evidence)
            text += u"     %1\n"_s.arg(line);
    }
    if (!explanation.lookedAt.isEmpty())
        text += u"looked at: %1\n"_s.arg(explanation.lookedAt.join(u"; "_s));
    return text;
}

} // namespace reconscope::controller::troubleshoot
