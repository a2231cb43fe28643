#include "controller/cluster/sim/workloadsimulator.h"

#include "models/jsonfields.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiResult;
using apimachinery::ResourceRef;

namespace {

// The writers the simulator stands in for, as managedFields name them: the Deployment and
// ResourceQuota controllers of kube-controller-manager, and the kubelet for pod status.
WriteOptions writtenBy(const char *manager)
{
    WriteOptions options;
    options.fieldManager = QString::fromLatin1(manager);
    return options;
}

const ResourceRef deployments{ u"apps"_s, u"v1"_s, u"deployments"_s };
const ResourceRef pods{ QString(), u"v1"_s, u"pods"_s };
const ResourceRef quotas{ QString(), u"v1"_s, u"resourcequotas"_s };

const QString deploymentsKey = u"apps/deployments"_s;
const QString podsKey = u"/pods"_s;
const QString quotasKey = u"/resourcequotas"_s;

json parse(const QByteArray &bytes)
{
    return json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
}

QString nowTimestamp()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
}

// The controller owner reference of an object, if any: (kind, uid).
std::pair<QString, QString> controllerOf(const json &object)
{
    const auto &meta = object.value("metadata", json::object());
    const auto refs = meta.value("ownerReferences", json::array());
    for (const auto &ref : refs) {
        if (ref.value("controller", false))
            return { models::jsonString(ref, "kind"), models::jsonString(ref, "uid") };
    }
    return {};
}

// Pod template hash as the Deployment controller labels pods (a stable hash of spec.template).
QString templateHash(const json &deployment)
{
    const auto tmpl = deployment.value("spec", json::object()).value("template", json::object());
    const auto digest = QCryptographicHash::hash(QByteArray::fromStdString(tmpl.dump()),
                                                 QCryptographicHash::Sha256);
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString hash;
    for (int i = 0; i < 10; ++i)
        hash += QLatin1Char(alphabet[static_cast<unsigned char>(digest.at(i)) % 27]);
    return hash;
}

// Five characters as the ReplicaSet controller appends to pod names.
QString randomSuffix()
{
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString suffix;
    for (int i = 0; i < 5; ++i)
        suffix += QLatin1Char(alphabet[QRandomGenerator::global()->bounded(27)]);
    return suffix;
}

QString firstImage(const json &podSpec)
{
    const auto containers = podSpec.value("containers", json::array());
    return containers.empty() ? QString() : models::jsonString(containers.front(), "image");
}

bool podReady(const json &pod)
{
    const auto conditions = pod.value("status", json::object()).value("conditions", json::array());
    for (const auto &c : conditions) {
        if (c.value("type", "") == "Ready")
            return c.value("status", "") == "True";
    }
    return false;
}

bool isTerminating(const json &object)
{
    return object.value("metadata", json::object()).contains("deletionTimestamp");
}

// Upsert a condition into a status conditions array, keeping lastTransitionTime while the status
// stays the same (as the Deployment controller does).
void setCondition(json &conditions,
                  const char *type,
                  const char *status,
                  const QString &reason,
                  const QString &message)
{
    // The deployment controller's SetDeploymentCondition: a condition whose status and reason are
    // unchanged is left as it is, message included (a quota failure names a new pod each attempt;
    // rewriting it would churn the Deployment's status, and its watchers, on every sync).
    const auto now = nowTimestamp().toStdString();
    for (auto &c : conditions) {
        if (c.value("type", "") != type)
            continue;
        if (c.value("status", "") == status && c.value("reason", "") == reason.toStdString())
            return;
        if (c.value("status", "") != status) {
            c["status"] = status;
            c["lastTransitionTime"] = now;
        }
        c["reason"] = reason.toStdString();
        c["message"] = message.toStdString();
        c["lastUpdateTime"] = now;
        return;
    }
    conditions.push_back({ { "type", type },
                           { "status", status },
                           { "lastUpdateTime", now },
                           { "lastTransitionTime", now },
                           { "reason", reason.toStdString() },
                           { "message", message.toStdString() } });
}

void removeCondition(json &conditions, const char *type)
{
    for (auto it = conditions.begin(); it != conditions.end(); ++it) {
        if (it->value("type", "") == type) {
            conditions.erase(it);
            return;
        }
    }
}

json containerStatuses(const json &podSpec,
                       bool ready,
                       const QString &waitingReason,
                       const QString &message)
{
    json statuses = json::array();
    for (const auto &container : podSpec.value("containers", json::array())) {
        json status{ { "name", container.value("name", "") },
                     { "image", container.value("image", "") },
                     { "imageID", "" },
                     { "ready", ready },
                     { "restartCount", 0 },
                     { "started", ready } };
        if (ready)
            status["state"] = { { "running", { { "startedAt", nowTimestamp().toStdString() } } } };
        else
            status["state"] = { { "waiting",
                                  { { "reason", waitingReason.toStdString() },
                                    { "message", message.toStdString() } } } };
        statuses.push_back(status);
    }
    return statuses;
}

// A pod of the Deployment's template as the ReplicaSet controller makes it: the template's labels
// plus pod-template-hash, the Deployment as its controller owner.
json newPod(const json &tmpl,
            const QString &ns,
            const QString &podName,
            const QString &hash,
            const QString &deploymentName,
            const QString &deploymentUid)
{
    json labels = tmpl.value("metadata", json::object()).value("labels", json::object());
    labels["pod-template-hash"] = hash.toStdString();
    const auto podSpec = tmpl.value("spec", json::object());
    json pod{ { "apiVersion", "v1" },
              { "kind", "Pod" },
              { "metadata",
                { { "name", podName.toStdString() },
                  { "namespace", ns.toStdString() },
                  { "labels", labels },
                  { "ownerReferences",
                    json::array({ { { "apiVersion", "apps/v1" },
                                    { "kind", "Deployment" },
                                    { "name", deploymentName.toStdString() },
                                    { "uid", deploymentUid.toStdString() },
                                    { "controller", true },
                                    { "blockOwnerDeletion", true } } }) } } },
              { "spec", podSpec } };
    return pod;
}

// The status of Deployment `name` whose current template (hash) has the pods `current`: replica
// counts, observedGeneration, and the Available, Progressing and ReplicaFailure conditions
// (`failure`: why a pod could not be created; empty when none failed).
json deploymentStatus(const json &deployment,
                      const QString &name,
                      const QString &hash,
                      qint64 desired,
                      const std::vector<json> &current,
                      const QString &failure)
{
    qint64 ready = 0;
    for (const auto &pod : current) {
        if (podReady(pod))
            ++ready;
    }
    json status = deployment.value("status", json::object());
    json conditions = status.value("conditions", json::array());
    status["observedGeneration"] = deployment["metadata"].value("generation", json(1));
    status["replicas"] = qint64(current.size());
    status["updatedReplicas"] = qint64(current.size());
    status["readyReplicas"] = ready;
    status["availableReplicas"] = ready;
    if (desired - ready > 0)
        status["unavailableReplicas"] = desired - ready;
    else
        status.erase("unavailableReplicas");
    if (ready == 0)
        status.erase("readyReplicas");
    if (ready == 0)
        status.erase("availableReplicas");
    if (ready >= desired)
        setCondition(conditions,
                     "Available",
                     "True",
                     u"MinimumReplicasAvailable"_s,
                     u"Deployment has minimum availability."_s);
    else
        setCondition(conditions,
                     "Available",
                     "False",
                     u"MinimumReplicasUnavailable"_s,
                     u"Deployment does not have minimum availability."_s);
    if (ready >= desired)
        setCondition(conditions,
                     "Progressing",
                     "True",
                     u"NewReplicaSetAvailable"_s,
                     u"ReplicaSet \"%1-%2\" has successfully progressed."_s.arg(name, hash));
    else
        setCondition(conditions,
                     "Progressing",
                     "True",
                     u"ReplicaSetUpdated"_s,
                     u"ReplicaSet \"%1-%2\" is progressing."_s.arg(name, hash));
    if (!failure.isEmpty())
        setCondition(conditions, "ReplicaFailure", "True", u"FailedCreate"_s, failure);
    else
        removeCondition(conditions, "ReplicaFailure");
    status["conditions"] = conditions;
    return status;
}

} // namespace

WorkloadSimulator::WorkloadSimulator(Cluster *cluster, QObject *parent)
    : WorkloadSimulator(cluster, Options{}, parent)
{ }

WorkloadSimulator::WorkloadSimulator(Cluster *cluster, Options options, QObject *parent)
    : QObject(parent)
    , m_cluster(cluster)
    , m_options(std::move(options))
{
    if (!m_options.imagePullable)
        m_options.imagePullable = &WorkloadSimulator::defaultImagePullable;
    m_syncTimer.setSingleShot(true);
    m_syncTimer.setInterval(0);
    connect(&m_syncTimer, &QTimer::timeout, this, &WorkloadSimulator::syncAll);
    m_subscription
        = m_cluster->subscribe([this](const ClusterEvent &event) { handleEvent(event); });

    // Deployments that exist before the simulator starts.
    const auto existing = m_cluster->list(deployments, QString());
    if (existing.ok()) {
        for (const auto &item : existing->value("items", json::array())) {
            const auto &meta = item.value("metadata", json::object());
            scheduleSync(models::jsonString(meta, "namespace"), models::jsonString(meta, "name"));
        }
    }
}

WorkloadSimulator::~WorkloadSimulator()
{
    if (m_cluster)
        m_cluster->unsubscribe(m_subscription);
}

bool WorkloadSimulator::defaultImagePullable(const QString &image)
{
    const auto lastSlash = image.lastIndexOf(u'/');
    const auto colon = image.indexOf(u':', lastSlash + 1);
    const auto tag = colon < 0 ? QString() : image.mid(colon + 1);
    return tag != u"missing"_s && !image.contains(u"does-not-exist"_s) && !image.isEmpty();
}

void WorkloadSimulator::handleEvent(const ClusterEvent &event)
{
    if (event.storageKey == deploymentsKey) {
        if (event.type != EventType::Deleted)
            scheduleSync(event.object->ns, event.object->name);
        return;
    }
    if (event.storageKey == podsKey) {
        // A pod change concerns its owning Deployment and the namespace's quotas.
        const auto pod = parse(event.object->json);
        const auto [kind, uid] = controllerOf(pod);
        if (kind == u"Deployment"_s) {
            for (const auto &ref : pod["metadata"]["ownerReferences"]) {
                if (models::jsonString(ref, "uid") == uid)
                    scheduleSync(event.object->ns, models::jsonString(ref, "name"));
            }
        }
        m_dirtyQuotaNamespaces.insert(event.object->ns);
        m_syncTimer.start();
        return;
    }
    if (event.storageKey == quotasKey) {
        // A quota raised or removed may unblock any Deployment of the namespace.
        if (event.type == EventType::Modified && event.previous
            && parse(event.previous->json).value("spec", json())
                == parse(event.object->json).value("spec", json()))
            return; // only its status changed
        m_dirtyQuotaNamespaces.insert(event.object->ns);
        const auto all = m_cluster->list(deployments, event.object->ns);
        if (all.ok()) {
            for (const auto &item : all->value("items", json::array()))
                scheduleSync(event.object->ns, models::jsonString(item["metadata"], "name"));
        }
        m_syncTimer.start();
    }
}

void WorkloadSimulator::scheduleSync(const QString &ns, const QString &name)
{
    m_dirty.insert(ns + u'/' + name);
    m_syncTimer.start();
}

void WorkloadSimulator::syncAll()
{
    const auto dirty = std::exchange(m_dirty, {});
    for (const auto &key : dirty) {
        const auto slash = key.indexOf(u'/');
        syncDeployment(key.left(slash), key.mid(slash + 1));
    }
    const auto namespaces = std::exchange(m_dirtyQuotaNamespaces, {});
    for (const auto &ns : namespaces)
        syncQuotas(ns);
}

QString WorkloadSimulator::quotaViolation(const QString &ns, const QString &podName) const
{
    const auto quotaList = m_cluster->list(quotas, ns);
    if (!quotaList.ok())
        return {};
    const auto podList = m_cluster->list(pods, ns);
    qint64 used = 0;
    if (podList.ok()) {
        for (const auto &pod : podList->value("items", json::array())) {
            const auto phase = pod.value("status", json::object()).value("phase", "");
            if (!isTerminating(pod) && phase != "Succeeded" && phase != "Failed")
                ++used;
        }
    }
    for (const auto &quota : quotaList->value("items", json::array())) {
        const auto hard = quota.value("spec", json::object()).value("hard", json::object());
        if (!hard.contains("pods"))
            continue;
        const auto &limit = hard["pods"];
        const qint64 limited = limit.is_number_integer()
            ? limit.get<qint64>()
            : models::jsonString(hard, "pods").toLongLong();
        if (used + 1 > limited) {
            return u"pods \"%1\" is forbidden: exceeded quota: %2, requested: pods=1, used: "
                   u"pods=%3, "
                   u"limited: pods=%4"_s.arg(podName, models::jsonString(quota["metadata"], "name"))
                       .arg(used)
                       .arg(limited);
        }
    }
    return {};
}

void WorkloadSimulator::syncDeployment(const QString &ns, const QString &name)
{
    const auto got = m_cluster->get(deployments, ns, name);
    if (!got.ok())
        return; // deleted: the garbage collector removes its pods
    const json deployment = got.value();
    if (isTerminating(deployment))
        return;
    const auto &meta = deployment["metadata"];
    const auto uid = models::jsonString(meta, "uid");
    const auto spec = deployment.value("spec", json::object());
    const qint64 desired = models::jsonInteger(spec, "replicas", 1);
    const auto hash = templateHash(deployment);
    const auto tmpl = spec.value("template", json::object());

    std::vector<json> current = removeOutdatedPods(ns, hash, ownedPods(ns, uid));
    scaleDown(ns, desired, current);

    // Scale up, as far as the namespace's quotas allow.
    QString failure;
    while (qint64(current.size()) < desired) {
        const auto podName = name + u'-' + hash + u'-' + randomSuffix();
        failure = quotaViolation(ns, podName);
        if (!failure.isEmpty())
            break;
        const auto created = createPod(ns, podName, newPod(tmpl, ns, podName, hash, name, uid));
        if (!created.ok()) {
            failure = created.error().message;
            break;
        }
        current.push_back(created.value());
    }

    // Status, written only when it changed.
    const json status = deploymentStatus(deployment, name, hash, desired, current, failure);
    if (status != deployment.value("status", json::object())) {
        json updated = deployment;
        updated["status"] = status;
        (void)m_cluster->updateStatus(
            deployments, ns, name, updated, writtenBy("kube-controller-manager"));
    }
    Q_EMIT deploymentSynced(ns, name);
}

// The pods this Deployment (`uid`) controls, those being deleted left out.
std::vector<json> WorkloadSimulator::ownedPods(const QString &ns, const QString &uid) const
{
    std::vector<json> owned;
    const auto podList = m_cluster->list(pods, ns);
    if (podList.ok()) {
        for (const auto &pod : podList->value("items", json::array())) {
            if (controllerOf(pod).second == uid && !isTerminating(pod))
                owned.push_back(pod);
        }
    }
    return owned;
}

// Rolling update, simplified: pods of an older template are replaced at once. Deletes the owned
// pods whose pod-template-hash is not `hash` and returns the others.
std::vector<json> WorkloadSimulator::removeOutdatedPods(const QString &ns,
                                                        const QString &hash,
                                                        const std::vector<json> &owned)
{
    std::vector<json> current;
    for (const auto &pod : owned) {
        const auto labels = pod["metadata"].value("labels", json::object());
        if (models::jsonString(labels, "pod-template-hash") == hash) {
            current.push_back(pod);
        } else {
            (void)m_cluster->remove(pods, ns, models::jsonString(pod["metadata"], "name"));
            ++m_podsDeleted;
        }
    }
    return current;
}

// Scale down to `desired` pods: newest first.
void WorkloadSimulator::scaleDown(const QString &ns, qint64 desired, std::vector<json> &current)
{
    std::sort(current.begin(), current.end(), [](const json &a, const json &b) {
        return models::jsonString(a["metadata"], "creationTimestamp")
            < models::jsonString(b["metadata"], "creationTimestamp");
    });
    while (qint64(current.size()) > desired) {
        (void)m_cluster->remove(pods, ns, models::jsonString(current.back()["metadata"], "name"));
        current.pop_back();
        ++m_podsDeleted;
    }
}

// Creates `pod` and writes the status the scheduler leaves it in (Pending, containers creating);
// the kubelet's part follows after podStartDelayMs. Returns the created pod.
ApiResult<json>
WorkloadSimulator::createPod(const QString &ns, const QString &podName, const json &pod)
{
    const auto created = m_cluster->create(pods, ns, pod, writtenBy("kube-controller-manager"));
    if (!created.ok())
        return created.error();
    ++m_podsCreated;
    const auto createdPod = created->object;
    json status{ { "phase", "Pending" },
                 { "conditions",
                   json::array({ { { "type", "PodScheduled" },
                                   { "status", "True" },
                                   { "lastTransitionTime", nowTimestamp().toStdString() } } }) },
                 { "containerStatuses",
                   containerStatuses(pod.at("spec"), false, u"ContainerCreating"_s, QString()) },
                 { "startTime", nowTimestamp().toStdString() } };
    json withStatus = createdPod;
    withStatus["status"] = status;
    (void)m_cluster->updateStatus(pods, ns, podName, withStatus, writtenBy("kubelet"));
    const auto podUid = models::jsonString(createdPod["metadata"], "uid");
    QTimer::singleShot(m_options.podStartDelayMs, this, [this, ns, podName, podUid] {
        startPod(ns, podName, podUid);
    });
    return createdPod;
}

void WorkloadSimulator::startPod(const QString &ns, const QString &name, const QString &uid)
{
    const auto got = m_cluster->get(pods, ns, name);
    if (!got.ok() || models::jsonString(got->at("metadata"), "uid") != uid
        || isTerminating(got.value()))
        return;
    json pod = got.value();
    const auto podSpec = pod.value("spec", json::object());
    const auto image = firstImage(podSpec);
    json &status = pod["status"];
    if (m_options.imagePullable(image)) {
        status["phase"] = "Running";
        status["podIP"] = "10.244.0." + std::to_string(2 + m_podsCreated % 250);
        status["containerStatuses"] = containerStatuses(podSpec, true, QString(), QString());
        status["conditions"]
            = json::array({ { { "type", "PodScheduled" },
                              { "status", "True" },
                              { "lastTransitionTime", nowTimestamp().toStdString() } },
                            { { "type", "Initialized" },
                              { "status", "True" },
                              { "lastTransitionTime", nowTimestamp().toStdString() } },
                            { { "type", "ContainersReady" },
                              { "status", "True" },
                              { "lastTransitionTime", nowTimestamp().toStdString() } },
                            { { "type", "Ready" },
                              { "status", "True" },
                              { "lastTransitionTime", nowTimestamp().toStdString() } } });
    } else {
        status["containerStatuses"]
            = containerStatuses(podSpec,
                                false,
                                u"ErrImagePull"_s,
                                u"failed to pull and unpack image \"%1\": not found"_s.arg(image));
        QTimer::singleShot(m_options.imagePullBackOffDelayMs, this, [this, ns, name, uid] {
            backOffPod(ns, name, uid);
        });
    }
    (void)m_cluster->updateStatus(pods, ns, name, pod, writtenBy("kubelet"));
}

void WorkloadSimulator::backOffPod(const QString &ns, const QString &name, const QString &uid)
{
    const auto got = m_cluster->get(pods, ns, name);
    if (!got.ok() || models::jsonString(got->at("metadata"), "uid") != uid
        || isTerminating(got.value()))
        return;
    json pod = got.value();
    const auto podSpec = pod.value("spec", json::object());
    pod["status"]["containerStatuses"]
        = containerStatuses(podSpec,
                            false,
                            u"ImagePullBackOff"_s,
                            u"Back-off pulling image \"%1\""_s.arg(firstImage(podSpec)));
    (void)m_cluster->updateStatus(pods, ns, name, pod, writtenBy("kubelet"));
}

void WorkloadSimulator::syncQuotas(const QString &ns)
{
    const auto quotaList = m_cluster->list(quotas, ns);
    if (!quotaList.ok())
        return;
    const auto podList = m_cluster->list(pods, ns);
    qint64 used = 0;
    if (podList.ok()) {
        for (const auto &pod : podList->value("items", json::array())) {
            if (!isTerminating(pod))
                ++used;
        }
    }
    for (const auto &quota : quotaList->value("items", json::array())) {
        const auto hard = quota.value("spec", json::object()).value("hard", json::object());
        json status{ { "hard", hard }, { "used", json::object() } };
        if (hard.contains("pods"))
            status["used"]["pods"] = std::to_string(used);
        if (quota.value("status", json::object()) == status)
            continue;
        json updated = quota;
        updated["status"] = status;
        (void)m_cluster->updateStatus(quotas,
                                      ns,
                                      models::jsonString(quota["metadata"], "name"),
                                      updated,
                                      writtenBy("kube-controller-manager"));
    }
}

} // namespace reconscope::controller::cluster
