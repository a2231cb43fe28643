#include "controller/operator/customappstate.h"

#include "models/customappview.h"
#include "models/jsonfields.h"
#include "models/objectmetaview.h"

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::models::jsonInteger;
using reconscope::models::jsonMember;
using reconscope::models::jsonString;

namespace reconscope::controller::operators::customapp {

namespace {

constexpr const char *ManagedByLabel = "app.kubernetes.io/managed-by";
constexpr const char *ManagedByValue = "reconscope";

const json &arrayOr(const json &value)
{
    static const json empty = json::array();
    return value.is_array() ? value : empty;
}

// A container as far as the reconciler owns it: name, image, containerPorts, env name/value.
json containerProjection(const json &container)
{
    json ports = json::array();
    for (const auto &port : arrayOr(jsonMember(container, "ports")))
        ports.push_back(jsonMember(port, "containerPort"));
    json env = json::array();
    for (const auto &var : arrayOr(jsonMember(container, "env")))
        env.push_back(
            { { "name", jsonMember(var, "name") }, { "value", jsonMember(var, "value") } });
    json envFrom = json::array();
    for (const auto &from : arrayOr(jsonMember(container, "envFrom")))
        envFrom.push_back(jsonMember(jsonMember(from, "secretRef"), "name"));
    return { { "name", jsonMember(container, "name") },
             { "image", jsonMember(container, "image") },
             { "ports", ports },
             { "env", env },
             { "envFrom", envFrom } };
}

QString describeValue(const json &value)
{
    return value.is_null() ? u"<none>"_s : QString::fromStdString(value.dump());
}

models::Condition condition(const char *type,
                            const char *status,
                            const QString &reason,
                            const QString &message,
                            qint64 generation)
{
    models::Condition c;
    c.type = QString::fromLatin1(type);
    c.status = QString::fromLatin1(status);
    c.reason = reason;
    c.message = message.left(32768);
    c.observedGeneration = generation;
    return c;
}

// Ready False and Degraded True for one reason: the reconcile failed with it.
StatusReport degradedReport(const QString &reason,
                            const QString &message,
                            qint64 generation,
                            reconcile::ReconcileOutcome outcome)
{
    return { { condition("Ready", "False", reason, message, generation),
               condition("Degraded", "True", reason, message, generation) },
             { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
             std::move(outcome),
             std::nullopt,
             std::nullopt };
}

// The first container of pods waiting to pull image, as "Image ... cannot be pulled" or empty.
QString imagePullProblem(const QList<json> &pods, const QString &image)
{
    for (const json &pod : pods) {
        for (const auto &cs : arrayOr(jsonMember(jsonMember(pod, "status"), "containerStatuses"))) {
            const json &waiting = jsonMember(jsonMember(cs, "state"), "waiting");
            const QString why = jsonString(waiting, "reason");
            if ((why == u"ImagePullBackOff" || why == u"ErrImagePull")
                && jsonString(cs, "image") == image)
                return u"Image %1 cannot be pulled (pods waiting in %2)"_s.arg(image, why);
        }
    }
    return {};
}

} // namespace

json desiredDeployment(const json &app)
{
    const models::ObjectMetaView meta(app);
    const models::CustomAppSpecView spec(app);
    const std::string name = meta.name().toStdString();
    const json labels = { { NameLabel, NameLabelValue },
                          { InstanceLabel, name },
                          { ManagedByLabel, ManagedByValue } };
    const json selector = { { NameLabel, NameLabelValue }, { InstanceLabel, name } };
    json container = { { "name", "app" }, { "image", spec.imageValue() } };
    if (spec.portValue().is_number_integer())
        container["ports"]
            = json::array({ { { "name", "http" }, { "containerPort", spec.portValue() } } });
    if (spec.configJSONValue().is_string())
        container["env"]
            = json::array({ { { "name", "CONFIG_JSON" }, { "value", spec.configJSONValue() } } });
    const QString secret = spec.secretName();
    if (!secret.isEmpty())
        container["envFrom"]
            = json::array({ { { "secretRef", { { "name", secret.toStdString() } } } } });
    return {
        { "apiVersion", "apps/v1" },
        { "kind", "Deployment" },
        { "metadata",
          { { "name", name },
            { "namespace", jsonMember(meta.json(), "namespace") },
            { "labels", labels },
            { "ownerReferences",
              json::array({ { { "apiVersion", jsonMember(app, "apiVersion") },
                              { "kind", "CustomApp" },
                              { "name", name },
                              { "uid", jsonMember(meta.json(), "uid") },
                              { "controller", true },
                              { "blockOwnerDeletion", true } } }) } } },
        { "spec",
          { { "replicas", spec.replicas(1) },
            { "selector", { { "matchLabels", selector } } },
            { "template",
              { { "metadata", { { "labels", labels } } },
                { "spec", { { "containers", json::array({ container }) } } } } } } },
    };
}

QString specProblem(const json &app, const std::function<bool(const QString &)> &secretExists)
{
    const models::CustomAppSpecView spec(app);
    if (!spec.isObject())
        return u"spec is missing"_s;
    if (spec.image().isEmpty())
        return u"spec.image is required"_s;
    const json &replicas = spec.replicasValue();
    if (!replicas.is_null()) {
        if (!replicas.is_number_integer())
            return u"spec.replicas must be an integer"_s;
        const qint64 n = replicas.get<qint64>();
        if (n < 0 || n > MaxReplicas)
            return u"spec.replicas %1 is out of range 0..%2"_s.arg(n).arg(MaxReplicas);
    }
    const json &config = spec.configJSONValue();
    if (!config.is_null()) {
        if (!config.is_string())
            return u"spec.configJSON must be a string"_s;
        const json parsed = json::parse(config.get<std::string>(), nullptr, false);
        if (parsed.is_discarded())
            return u"spec.configJSON is not valid JSON"_s;
    }
    if (!spec.secretRef().is_null()) {
        const QString name = spec.secretName();
        if (name.isEmpty())
            return u"spec.secretRef.name is required"_s;
        if (!secretExists(name))
            return u"Secret \"%1\" referenced by spec.secretRef.name not found"_s.arg(name);
    }
    return {};
}

QString deploymentDrift(const json &actual, const json &desired)
{
    QStringList differences;
    const json &actualSpec = jsonMember(actual, "spec");
    const json &desiredSpec = jsonMember(desired, "spec");
    if (jsonMember(actualSpec, "replicas") != jsonMember(desiredSpec, "replicas"))
        differences << u"spec.replicas %1, want %2"_s.arg(
            describeValue(jsonMember(actualSpec, "replicas")),
            describeValue(jsonMember(desiredSpec, "replicas")));
    const json &actualTemplate = jsonMember(actualSpec, "template");
    const json &desiredTemplate = jsonMember(desiredSpec, "template");
    const json &actualLabels = jsonMember(jsonMember(actualTemplate, "metadata"), "labels");
    for (const auto &[label, value] :
         jsonMember(jsonMember(desiredTemplate, "metadata"), "labels").items()) {
        if (jsonMember(actualLabels, label.c_str()) != value)
            differences << u"template label %1 %2, want %3"_s.arg(
                QString::fromStdString(label),
                describeValue(jsonMember(actualLabels, label.c_str())),
                describeValue(value));
    }
    const json &actualContainers = jsonMember(jsonMember(actualTemplate, "spec"), "containers");
    const json &desiredContainers = jsonMember(jsonMember(desiredTemplate, "spec"), "containers");
    if (!actualContainers.is_array() || actualContainers.size() != desiredContainers.size()) {
        differences << u"containers differ"_s;
    } else {
        for (size_t i = 0; i < desiredContainers.size(); ++i) {
            const json a = containerProjection(actualContainers[i]);
            const json d = containerProjection(desiredContainers[i]);
            for (const auto &[field, value] : d.items()) {
                if (a[field] != value)
                    differences << u"container %1 %2 %3, want %4"_s.arg(
                        jsonString(d, "name"),
                        QString::fromStdString(field),
                        describeValue(a[field]),
                        describeValue(value));
            }
        }
    }
    return differences.join(u"; "_s);
}

bool ownedBy(const json &object, const QString &uid)
{
    for (const auto &ref : arrayOr(jsonMember(jsonMember(object, "metadata"), "ownerReferences"))) {
        if (jsonMember(ref, "controller") == json(true) && jsonString(ref, "uid") == uid)
            return true;
    }
    return false;
}

QString ownerKeyOfDeployment(const json &deployment)
{
    const json &meta = jsonMember(deployment, "metadata");
    for (const auto &ref : arrayOr(jsonMember(meta, "ownerReferences"))) {
        if (jsonMember(ref, "controller") == json(true) && jsonString(ref, "kind") == u"CustomApp"
            && jsonString(ref, "apiVersion").startsWith(u"infrastructure.internal.net/"))
            return jsonString(meta, "namespace") + u'/' + jsonString(ref, "name");
    }
    return {};
}

QString instanceOfPod(const json &pod)
{
    const json &labels = jsonMember(jsonMember(pod, "metadata"), "labels");
    if (jsonString(labels, NameLabel) != QLatin1StringView(NameLabelValue))
        return {};
    return jsonString(labels, InstanceLabel);
}

StatusReport pausedReport(qint64 generation)
{
    return {
        { condition(
            "Paused",
            "True",
            u"ReconciliationPaused"_s,
            u"spec.paused is true: the reconciler leaves this CustomApp and its Deployment alone"_s,
            generation) },
        { u"Reconciling"_s },
        reconcile::ReconcileOutcome::success(),
        std::nullopt,
        std::nullopt
    };
}

StatusReport invalidSpecReport(const QString &problem, qint64 generation)
{
    return { { condition("Ready", "False", u"InvalidSpec"_s, problem, generation),
               condition("Degraded", "True", u"InvalidSpec"_s, problem, generation),
               condition("Stalled", "True", u"InvalidSpec"_s, problem, generation) },
             { u"Reconciling"_s, u"Paused"_s },
             reconcile::ReconcileOutcome::terminalFailure(problem),
             std::nullopt,
             std::nullopt };
}

StatusReport notOwnedReport(const QString &name, qint64 generation)
{
    const QString message
        = u"Deployment %1 exists and is not controlled by this CustomApp"_s.arg(name);
    return degradedReport(u"DeploymentNotOwned"_s,
                          message,
                          generation,
                          reconcile::ReconcileOutcome::failure(message));
}

StatusReport transientErrorReport(const QString &message, qint64 generation)
{
    return { { condition("Ready", "False", u"TransientError"_s, message, generation) },
             { u"Stalled"_s },
             reconcile::ReconcileOutcome::failure(message),
             std::nullopt,
             std::nullopt };
}

StatusReport driftReport(const QString &message, const json &deployment, qint64 generation)
{
    const json &status = jsonMember(deployment, "status");
    return { { condition("Reconciling", "True", u"DriftDetected"_s, message, generation),
               condition("Ready", "False", u"DriftDetected"_s, message, generation),
               condition("Degraded",
                         "False",
                         u"DriftDetected"_s,
                         u"The Deployment is being restored"_s,
                         generation) },
             { u"Stalled"_s, u"Paused"_s },
             reconcile::ReconcileOutcome::success(),
             jsonInteger(status, "replicas"),
             jsonInteger(status, "readyReplicas") };
}

StatusReport deploymentReport(const QString &name,
                              const json &app,
                              const json &deployment,
                              qint64 generation,
                              const std::function<QList<json>()> &pods)
{
    const json &status = jsonMember(deployment, "status");
    const qint64 wanted = jsonInteger(jsonMember(deployment, "spec"), "replicas", 1);
    const qint64 ready = jsonInteger(status, "readyReplicas");
    const qint64 replicas = jsonInteger(status, "replicas");
    auto withCounts = [replicas, ready](StatusReport report) {
        report.replicas = replicas;
        report.readyReplicas = ready;
        return report;
    };

    // Quota: the Deployment's ReplicaFailure condition (FailedCreate, "exceeded quota").
    for (const auto &c : arrayOr(jsonMember(status, "conditions"))) {
        if (jsonString(c, "type") == u"ReplicaFailure" && jsonString(c, "status") == u"True") {
            const QString raw = jsonString(c, "message");
            const qsizetype quota = raw.indexOf(u"exceeded quota"_s, 0, Qt::CaseInsensitive);
            const QString reason = quota >= 0 ? u"QuotaExceeded"_s : u"ReplicaFailure"_s;
            // Without the pod name each attempt invents, so that retries do not rewrite
            // status: "Deployment web cannot create pods: exceeded quota: pods, ...".
            const QString message = quota >= 0
                ? u"Deployment %1 cannot create pods: %2"_s.arg(name, raw.mid(quota))
                : raw;
            return withCounts(
                degradedReport(reason,
                               message,
                               generation,
                               reconcile::ReconcileOutcome::failure(reason + u": "_s + message)));
        }
    }
    // Image pulls: waiting reasons of the pods running the current template.
    const QString image = models::CustomAppSpecView(app).image();
    const QString pullProblem = imagePullProblem(pods(), image);
    if (!pullProblem.isEmpty())
        return withCounts(degradedReport(
            u"ImagePullBackOff"_s,
            pullProblem,
            generation,
            reconcile::ReconcileOutcome::failure(u"ImagePullBackOff: "_s + pullProblem)));
    const bool rolledOut = jsonInteger(status, "observedGeneration")
            >= jsonInteger(jsonMember(deployment, "metadata"), "generation")
        && jsonInteger(status, "updatedReplicas", replicas) >= wanted && replicas == wanted;
    const QString message = u"%1/%2 replicas ready"_s.arg(ready).arg(wanted);
    if (!rolledOut || ready < wanted)
        return withCounts(
            { { condition("Reconciling", "True", u"Progressing"_s, message, generation),
                condition("Ready", "False", u"Progressing"_s, message, generation),
                condition("Degraded", "False", u"Progressing"_s, u"No failures"_s, generation) },
              { u"Stalled"_s, u"Paused"_s },
              reconcile::ReconcileOutcome::success(),
              std::nullopt,
              std::nullopt });
    return withCounts(
        { { condition("Ready", "True", u"Synchronized"_s, message, generation),
            condition("Degraded", "False", u"Synchronized"_s, u"No failures"_s, generation) },
          { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
          reconcile::ReconcileOutcome::success(),
          std::nullopt,
          std::nullopt });
}

StatusUpdate
statusUpdate(const json &app, const StatusReport &report, qint64 generation, const QDateTime &at)
{
    const models::CustomAppStatusView status(app);
    const json before = status.isObject() ? status.json() : json::object();
    StatusUpdate update;
    update.status = before;
    models::ConditionList list = models::conditionsFromJsonLenient(status.conditions());
    const models::ConditionList old = list;
    for (const auto &c : report.conditions)
        models::setStatusCondition(list, c, at);
    for (const auto &type : report.removeTypes)
        models::removeStatusCondition(list, type);
    update.status["observedGeneration"] = generation;
    update.status["conditions"] = models::conditionsToJson(list);
    if (report.replicas)
        update.status["replicas"] = *report.replicas;
    if (report.readyReplicas)
        update.status["readyReplicas"] = *report.readyReplicas;
    update.changed = update.status != before;
    const models::Condition *readyBefore = models::findStatusCondition(old, u"Ready");
    const models::Condition *readyAfter = models::findStatusCondition(list, u"Ready");
    update.readyChanged = readyAfter
        && (!readyBefore || readyBefore->status != readyAfter->status
            || readyBefore->reason != readyAfter->reason);
    update.degraded = models::isStatusConditionTrue(list, u"Degraded");
    if (readyAfter) {
        update.readyReason = readyAfter->reason;
        update.readyMessage = readyAfter->message;
    }
    return update;
}

} // namespace reconscope::controller::operators::customapp
