#include "controller/operator/customappreconciler.h"

#include "controller/kube/informerstore.h"
#include "controller/operator/eventrecorder.h"

#include <spdlog/spdlog.h>

#include <QUuid>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::operators {

namespace resources {
const kube::ResourceRef &customApps()
{
    static const kube::ResourceRef ref{ u"infrastructure.internal.net"_s,
                                        u"v1"_s,
                                        u"customapps"_s };
    return ref;
}
const kube::ResourceRef &deployments()
{
    static const kube::ResourceRef ref{ u"apps"_s, u"v1"_s, u"deployments"_s };
    return ref;
}
const kube::ResourceRef &secrets()
{
    static const kube::ResourceRef ref{ QString(), u"v1"_s, u"secrets"_s };
    return ref;
}
const kube::ResourceRef &pods()
{
    static const kube::ResourceRef ref{ QString(), u"v1"_s, u"pods"_s };
    return ref;
}
const kube::ResourceRef &events()
{
    static const kube::ResourceRef ref{ QString(), u"v1"_s, u"events"_s };
    return ref;
}
const kube::ResourceRef &leases()
{
    static const kube::ResourceRef ref{ u"coordination.k8s.io"_s, u"v1"_s, u"leases"_s };
    return ref;
}
} // namespace resources

namespace {

constexpr const char *NameLabel = "app.kubernetes.io/name";
constexpr const char *InstanceLabel = "app.kubernetes.io/instance";
constexpr const char *ManagedByLabel = "app.kubernetes.io/managed-by";
constexpr const char *NameLabelValue = "customapp";
constexpr const char *ManagedByValue = "reconscope";

QString qstr(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

std::string str(const QString &s)
{
    return s.toStdString();
}

const json &member(const json &object, const char *key)
{
    static const json null;
    if (!object.is_object())
        return null;
    const auto it = object.find(key);
    return it != object.end() ? *it : null;
}

qint64 intOf(const json &value, qint64 fallback = 0)
{
    if (value.is_number_integer())
        return value.get<qint64>();
    return fallback;
}

qint64 generationOf(const json &object)
{
    return intOf(member(member(object, "metadata"), "generation"));
}

// A container as far as the reconciler owns it: name, image, containerPorts, env name/value.
json containerProjection(const json &container)
{
    json ports = json::array();
    for (const auto &port :
         member(container, "ports").is_array() ? member(container, "ports") : json::array())
        ports.push_back(member(port, "containerPort"));
    json env = json::array();
    for (const auto &var :
         member(container, "env").is_array() ? member(container, "env") : json::array())
        env.push_back({ { "name", member(var, "name") }, { "value", member(var, "value") } });
    json envFrom = json::array();
    for (const auto &from :
         member(container, "envFrom").is_array() ? member(container, "envFrom") : json::array())
        envFrom.push_back(member(member(from, "secretRef"), "name"));
    return { { "name", member(container, "name") },
             { "image", member(container, "image") },
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

bool ownedBy(const json &object, const QString &uid)
{
    const json &refs = member(member(object, "metadata"), "ownerReferences");
    if (!refs.is_array())
        return false;
    for (const auto &ref : refs) {
        if (member(ref, "controller") == json(true) && qstr(ref, "uid") == uid)
            return true;
    }
    return false;
}

} // namespace

QString PlannedWrite::toString() const
{
    return verb + u' ' + path + u' ' + QString::fromStdString(diff.dump())
        + (sent ? u""_s : u" (dry-run)"_s);
}

// One reconcile of one key.
struct CustomAppReconciler::Run
{
    QString reconcileId;
    QString key;
    QString ns;
    QString name;
    Completion done;
    json app;
    json deployment;
    qint64 generation = 0;
    bool drift = false;
    QString driftMessage;
    std::optional<qint64> replicas;
    std::optional<qint64> readyReplicas;
    QList<PlannedWrite> writes;
    QStringList conflicts;
    int statusAttempts = 0;
    bool completed = false;
};

CustomAppReconciler::CustomAppReconciler(kube::ClientConfig config,
                                         reconcile::Clock &clock,
                                         Options options,
                                         QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_clock(clock)
    , m_options(std::move(options))
{
    m_client = new kube::RestClient(m_config, this);
    m_events = new EventRecorder(m_client, m_clock, m_options.component, m_options.instance);
    m_events->setRequestHook([this] {
        ++m_requests;
        ++m_writes;
    });
}

CustomAppReconciler::~CustomAppReconciler()
{
    stop();
    delete m_events;
}

void CustomAppReconciler::start()
{
    if (m_appsInformer)
        return;
    auto make = [this](const kube::ResourceRef &resource,
                       void (CustomAppReconciler::*handler)(const QStringList &,
                                                            const QStringList &)) {
        auto *store = new kube::InformerStore(
            m_config, resource, m_options.namespace_, models::LifecycleMapping::defaults(), this);
        store->setBatchInterval(m_options.informerBatchMs);
        store->setBackoff(m_options.informerBackoff);
        connect(store, &kube::InformerStore::objectsChanged, this, handler);
        connect(
            store, &kube::InformerStore::synced, this, &CustomAppReconciler::handleInformerSynced);
        return store;
    };
    m_appsInformer = make(resources::customApps(), &CustomAppReconciler::handleCustomAppsChanged);
    m_deploymentsInformer
        = make(resources::deployments(), &CustomAppReconciler::handleDeploymentsChanged);
    m_secretsInformer = make(resources::secrets(), &CustomAppReconciler::handleSecretsChanged);
    m_podsInformer = make(resources::pods(), &CustomAppReconciler::handlePodsChanged);
    for (auto *store : { m_appsInformer, m_deploymentsInformer, m_secretsInformer, m_podsInformer })
        store->start();
}

void CustomAppReconciler::stop()
{
    for (auto **store :
         { &m_appsInformer, &m_deploymentsInformer, &m_secretsInformer, &m_podsInformer }) {
        if (*store) {
            (*store)->stop();
            delete *store;
            *store = nullptr;
        }
    }
    m_synced = false;
}

void CustomAppReconciler::handleInformerSynced()
{
    if (m_synced)
        return;
    for (auto *store :
         { m_appsInformer, m_deploymentsInformer, m_secretsInformer, m_podsInformer }) {
        if (!store || !store->hasSynced())
            return;
    }
    m_synced = true;
    spdlog::info("customapp reconciler: caches synced ({} CustomApps)", m_appsInformer->size());
    emit cachesSynced();
    for (const auto &key : m_appsInformer->keys())
        enqueue(key, u"initial list"_s);
}

void CustomAppReconciler::enqueue(const QString &key, const QString &trigger)
{
    if (m_synced && m_enqueue)
        m_enqueue(key, trigger);
}

void CustomAppReconciler::handleCustomAppsChanged(const QStringList &upserted,
                                                  const QStringList &removed)
{
    for (const auto &key : upserted) {
        const auto *entry = m_appsInformer->entry(key);
        enqueue(key,
                u"customapp changed rv="_s + (entry ? entry->summary.resourceVersion : QString()));
    }
    for (const auto &key : removed)
        enqueue(key, u"customapp deleted"_s);
}

QString CustomAppReconciler::ownerKeyOfDeployment(const json &deployment) const
{
    const json &meta = member(deployment, "metadata");
    const json &refs = member(meta, "ownerReferences");
    if (!refs.is_array())
        return {};
    for (const auto &ref : refs) {
        if (member(ref, "controller") == json(true) && qstr(ref, "kind") == u"CustomApp"
            && qstr(ref, "apiVersion").startsWith(u"infrastructure.internal.net/"))
            return qstr(meta, "namespace") + u'/' + qstr(ref, "name");
    }
    return {};
}

void CustomAppReconciler::handleDeploymentsChanged(const QStringList &upserted,
                                                   const QStringList &removed)
{
    for (const auto &key : upserted) {
        const auto *entry = m_deploymentsInformer->entry(key);
        if (!entry)
            continue;
        const QString owner = ownerKeyOfDeployment(entry->json());
        if (owner.isEmpty()) {
            m_deploymentOwners.remove(key);
            continue;
        }
        m_deploymentOwners.insert(key, owner);
        enqueue(owner,
                u"owned Deployment "_s + key + u" changed rv="_s + entry->summary.resourceVersion);
    }
    for (const auto &key : removed) {
        const QString owner = m_deploymentOwners.take(key);
        if (!owner.isEmpty())
            enqueue(owner, u"owned Deployment "_s + key + u" deleted"_s);
    }
}

void CustomAppReconciler::handleSecretsChanged(const QStringList &upserted,
                                               const QStringList &removed)
{
    auto notify = [this](const QString &secretKey, const QString &what) {
        const qsizetype slash = secretKey.indexOf(u'/');
        const QString ns = secretKey.left(slash);
        const QString name = secretKey.mid(slash + 1);
        for (auto it = m_appsInformer->entries().cbegin(); it != m_appsInformer->entries().cend();
             ++it) {
            if (it->summary.namespaceName != ns)
                continue;
            const json app = it->json();
            if (qstr(member(member(app, "spec"), "secretRef"), "name") == name)
                enqueue(it.key(), u"referenced Secret "_s + secretKey + u' ' + what);
        }
    };
    for (const auto &key : upserted)
        notify(key, u"changed"_s);
    for (const auto &key : removed)
        notify(key, u"deleted"_s);
}

void CustomAppReconciler::handlePodsChanged(const QStringList &upserted, const QStringList &removed)
{
    // Pods carry the owned template's labels: name=customapp, instance=<CustomApp name>. Removed
    // pods need no reconcile of their own: the Deployment's status change follows.
    for (const auto &key : upserted) {
        const auto *entry = m_podsInformer->entry(key);
        if (!entry)
            continue;
        const json pod = entry->json();
        const json &labels = member(member(pod, "metadata"), "labels");
        if (qstr(labels, NameLabel) != QLatin1StringView(NameLabelValue))
            continue;
        const QString instance = qstr(labels, InstanceLabel);
        if (!instance.isEmpty())
            enqueue(entry->summary.namespaceName + u'/' + instance,
                    u"owned Pod "_s + key + u" changed"_s);
    }
    Q_UNUSED(removed);
}

bool CustomAppReconciler::secretExists(const QString &ns, const QString &name) const
{
    return m_secretsInformer && m_secretsInformer->entry(ns + u'/' + name) != nullptr;
}

QDateTime CustomAppReconciler::now() const
{
    return reconcile::toDateTime(m_clock.now());
}

json CustomAppReconciler::desiredDeployment(const json &app)
{
    const json &meta = member(app, "metadata");
    const json &spec = member(app, "spec");
    const std::string name = qstr(meta, "name").toStdString();
    const json labels = { { NameLabel, NameLabelValue },
                          { InstanceLabel, name },
                          { ManagedByLabel, ManagedByValue } };
    const json selector = { { NameLabel, NameLabelValue }, { InstanceLabel, name } };
    json container = { { "name", "app" }, { "image", member(spec, "image") } };
    if (member(spec, "port").is_number_integer())
        container["ports"]
            = json::array({ { { "name", "http" }, { "containerPort", spec["port"] } } });
    if (member(spec, "configJSON").is_string())
        container["env"]
            = json::array({ { { "name", "CONFIG_JSON" }, { "value", spec["configJSON"] } } });
    const QString secret = qstr(member(spec, "secretRef"), "name");
    if (!secret.isEmpty())
        container["envFrom"] = json::array({ { { "secretRef", { { "name", str(secret) } } } } });
    return {
        { "apiVersion", "apps/v1" },
        { "kind", "Deployment" },
        { "metadata",
          { { "name", name },
            { "namespace", member(meta, "namespace") },
            { "labels", labels },
            { "ownerReferences",
              json::array({ { { "apiVersion", member(app, "apiVersion") },
                              { "kind", "CustomApp" },
                              { "name", name },
                              { "uid", member(meta, "uid") },
                              { "controller", true },
                              { "blockOwnerDeletion", true } } }) } } },
        { "spec",
          { { "replicas", intOf(member(spec, "replicas"), 1) },
            { "selector", { { "matchLabels", selector } } },
            { "template",
              { { "metadata", { { "labels", labels } } },
                { "spec", { { "containers", json::array({ container }) } } } } } } },
    };
}

QString CustomAppReconciler::specProblem(const json &app,
                                         const std::function<bool(const QString &)> &secretExists)
{
    const json &spec = member(app, "spec");
    if (!spec.is_object())
        return u"spec is missing"_s;
    if (!member(spec, "image").is_string() || qstr(spec, "image").isEmpty())
        return u"spec.image is required"_s;
    const json &replicas = member(spec, "replicas");
    if (!replicas.is_null()) {
        if (!replicas.is_number_integer())
            return u"spec.replicas must be an integer"_s;
        const qint64 n = replicas.get<qint64>();
        if (n < 0 || n > MaxReplicas)
            return u"spec.replicas %1 is out of range 0..%2"_s.arg(n).arg(MaxReplicas);
    }
    const json &config = member(spec, "configJSON");
    if (!config.is_null()) {
        if (!config.is_string())
            return u"spec.configJSON must be a string"_s;
        const json parsed = json::parse(config.get<std::string>(), nullptr, false);
        if (parsed.is_discarded())
            return u"spec.configJSON is not valid JSON"_s;
    }
    const json &secretRef = member(spec, "secretRef");
    if (!secretRef.is_null()) {
        const QString name = qstr(secretRef, "name");
        if (name.isEmpty())
            return u"spec.secretRef.name is required"_s;
        if (!secretExists(name))
            return u"Secret \"%1\" referenced by spec.secretRef.name not found"_s.arg(name);
    }
    return {};
}

QString CustomAppReconciler::deploymentDrift(const json &actual, const json &desired)
{
    QStringList differences;
    const json &actualSpec = member(actual, "spec");
    const json &desiredSpec = member(desired, "spec");
    if (member(actualSpec, "replicas") != member(desiredSpec, "replicas"))
        differences << u"spec.replicas %1, want %2"_s.arg(
            describeValue(member(actualSpec, "replicas")),
            describeValue(member(desiredSpec, "replicas")));
    const json &actualTemplate = member(actualSpec, "template");
    const json &desiredTemplate = member(desiredSpec, "template");
    const json &actualLabels = member(member(actualTemplate, "metadata"), "labels");
    for (const auto &[label, value] :
         member(member(desiredTemplate, "metadata"), "labels").items()) {
        if (member(actualLabels, label.c_str()) != value)
            differences << u"template label %1 %2, want %3"_s.arg(
                QString::fromStdString(label),
                describeValue(member(actualLabels, label.c_str())),
                describeValue(value));
    }
    const json &actualContainers = member(member(actualTemplate, "spec"), "containers");
    const json &desiredContainers = member(member(desiredTemplate, "spec"), "containers");
    if (!actualContainers.is_array() || actualContainers.size() != desiredContainers.size()) {
        differences << u"containers differ"_s;
    } else {
        for (size_t i = 0; i < desiredContainers.size(); ++i) {
            const json a = containerProjection(actualContainers[i]);
            const json d = containerProjection(desiredContainers[i]);
            for (const auto &[field, value] : d.items()) {
                if (a[field] != value)
                    differences << u"container %1 %2 %3, want %4"_s.arg(
                        qstr(d, "name"),
                        QString::fromStdString(field),
                        describeValue(a[field]),
                        describeValue(value));
            }
        }
    }
    return differences.join(u"; "_s);
}

// ---- the reconcile ----

void CustomAppReconciler::reconcileAsync(const QString &key, Completion complete)
{
    auto run = std::make_shared<Run>();
    run->reconcileId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    run->key = key;
    const qsizetype slash = key.indexOf(u'/');
    run->ns = slash < 0 ? QString() : key.left(slash);
    run->name = key.mid(slash + 1);
    run->done = std::move(complete);
    spdlog::debug(
        "reconcile {} reconcileID={}: start", key.toStdString(), run->reconcileId.toStdString());
    if (!m_synced) {
        this->complete(run,
                       reconcile::ReconcileOutcome::failure(u"informer caches not synced yet"_s));
        return;
    }
    fetchApp(run);
}

void CustomAppReconciler::complete(const RunPtr &run, reconcile::ReconcileOutcome outcome)
{
    if (run->completed)
        return;
    run->completed = true;
    for (const auto &w : std::as_const(run->writes))
        outcome.writes << w.toString();
    outcome.conflicts += run->conflicts;
    // Objects come and go (and names with them): a gone object with nothing written keeps no entry.
    if (run->writes.isEmpty() && (!m_appsInformer || !m_appsInformer->entry(run->key)))
        m_lastWrites.remove(run->key);
    else
        m_lastWrites.insert(run->key, run->writes);
    const char *result = outcome.error ? (outcome.error->terminal ? "terminal error" : "error")
                                       : (outcome.result.isZero() ? "success" : "requeue");
    if (outcome.error)
        spdlog::info("reconcile {} reconcileID={}: {}: {} ({} writes)",
                     run->key.toStdString(),
                     run->reconcileId.toStdString(),
                     result,
                     outcome.error->message.toStdString(),
                     run->writes.size());
    else
        spdlog::info("reconcile {} reconcileID={}: {} ({} writes)",
                     run->key.toStdString(),
                     run->reconcileId.toStdString(),
                     result,
                     run->writes.size());
    auto done = std::move(run->done);
    if (done)
        done(std::move(outcome));
}

void CustomAppReconciler::write(const RunPtr &run,
                                const QByteArray &verb,
                                const kube::ResourceRef &resource,
                                const QString &name,
                                const json &before,
                                const json &after,
                                const QString &subresource,
                                kube::RestClient::JsonCallback done)
{
    PlannedWrite planned;
    planned.verb = QString::fromLatin1(verb);
    planned.path = verb == "POST" ? resource.collectionPath(run->ns)
                                  : resource.objectPath(run->ns, name, subresource);
    planned.diff = json::diff(before, after);
    planned.sent = !m_options.dryRun;
    run->writes << planned;
    emit writeRecorded(run->key, planned);
    spdlog::info("reconcile {} reconcileID={}: {}",
                 run->key.toStdString(),
                 run->reconcileId.toStdString(),
                 planned.toString().toStdString());
    if (m_options.dryRun) {
        json result = after;
        done(kube::RestClient::JsonResult(std::move(result)));
        return;
    }
    ++m_requests;
    ++m_writes;
    if (verb == "POST")
        m_client->create(resource, run->ns, after, std::move(done));
    else if (verb == "PUT")
        m_client->update(resource, run->ns, name, after, std::move(done), subresource);
    else
        m_client->remove(resource, run->ns, name, kube::DeleteOptions(), std::move(done));
}

void CustomAppReconciler::recordEvent(const RunPtr &run,
                                      const QString &type,
                                      const QString &reason,
                                      const QString &message)
{
    if (m_options.dryRun)
        return;
    m_events->record(run->app, type, reason, message);
}

void CustomAppReconciler::fetchApp(const RunPtr &run)
{
    ++m_requests;
    m_client->get(
        resources::customApps(),
        run->ns,
        run->name,
        [this, run](kube::RestClient::JsonResult result) {
            if (!result) {
                if (result.error().isNotFound()) {
                    complete(run, reconcile::ReconcileOutcome::success()); // gone: nothing to do
                    return;
                }
                complete(run,
                         reconcile::ReconcileOutcome::failure(u"get CustomApp: "_s
                                                              + result.error().toString()));
                return;
            }
            run->app = std::move(result.value());
            run->generation = generationOf(run->app);
            if (member(member(run->app, "metadata"), "deletionTimestamp").is_string())
                handleDeletion(run);
            else
                ensureFinalizer(run);
        });
}

void CustomAppReconciler::handleDeletion(const RunPtr &run)
{
    const json &finalizers = member(member(run->app, "metadata"), "finalizers");
    const bool ours = finalizers.is_array()
        && std::find(finalizers.begin(), finalizers.end(), json(str(m_options.finalizer)))
            != finalizers.end();
    if (!ours) {
        complete(run, reconcile::ReconcileOutcome::success());
        return;
    }
    ++m_requests;
    m_client->get(
        resources::deployments(),
        run->ns,
        run->name,
        [this, run](kube::RestClient::JsonResult result) {
            if (!result) {
                if (result.error().isNotFound()) {
                    removeFinalizer(run);
                    return;
                }
                complete(run,
                         reconcile::ReconcileOutcome::failure(u"get Deployment: "_s
                                                              + result.error().toString()));
                return;
            }
            const json deployment = std::move(result.value());
            const QString uid = qstr(member(run->app, "metadata"), "uid");
            if (!ownedBy(deployment, uid)) {
                removeFinalizer(run); // not ours to clean up
                return;
            }
            if (member(member(deployment, "metadata"), "deletionTimestamp").is_string()) {
                // Its own finalizers hold it: its deletion event requeues us; poll as a fallback.
                complete(run, reconcile::ReconcileOutcome::requeueAfter(std::chrono::seconds(2)));
                return;
            }
            recordEvent(run,
                        u"Normal"_s,
                        u"Deleting"_s,
                        u"Deleting Deployment %1 before removing the finalizer"_s.arg(run->name));
            write(run,
                  "DELETE",
                  resources::deployments(),
                  run->name,
                  deployment,
                  json(),
                  {},
                  [this, run](kube::RestClient::JsonResult deleted) {
                      if (!deleted) {
                          if (deleted.error().isNotFound()) {
                              removeFinalizer(run);
                              return;
                          }
                          complete(run,
                                   reconcile::ReconcileOutcome::failure(
                                       u"delete Deployment: "_s + deleted.error().toString()));
                          return;
                      }
                      // A Status means it is gone; the object means finalizers still hold it.
                      if (m_options.dryRun || qstr(deleted.value(), "kind") == u"Status")
                          removeFinalizer(run);
                      else
                          complete(
                              run,
                              reconcile::ReconcileOutcome::requeueAfter(std::chrono::seconds(2)));
                  });
        });
}

void CustomAppReconciler::removeFinalizer(const RunPtr &run)
{
    json after = run->app;
    json &finalizers = after["metadata"]["finalizers"];
    json kept = json::array();
    for (const auto &f : finalizers) {
        if (f != json(str(m_options.finalizer)))
            kept.push_back(f);
    }
    finalizers = kept;
    writeFinalizers(run, std::move(after), u"remove finalizer: "_s, true, [this, run](json) {
        recordEvent(run,
                    u"Normal"_s,
                    u"FinalizerRemoved"_s,
                    u"Owned objects deleted; finalizer %1 removed"_s.arg(m_options.finalizer));
        complete(run, reconcile::ReconcileOutcome::success());
    });
}

void CustomAppReconciler::ensureFinalizer(const RunPtr &run)
{
    const json &finalizers = member(member(run->app, "metadata"), "finalizers");
    const json ours(str(m_options.finalizer));
    if (finalizers.is_array()
        && std::find(finalizers.begin(), finalizers.end(), ours) != finalizers.end()) {
        reconcileSpec(run);
        return;
    }
    json after = run->app;
    if (!after["metadata"]["finalizers"].is_array())
        after["metadata"]["finalizers"] = json::array();
    after["metadata"]["finalizers"].push_back(ours);
    writeFinalizers(run, std::move(after), u"add finalizer: "_s, false, [this, run](json stored) {
        run->app = std::move(stored);
        reconcileSpec(run);
    });
}

void CustomAppReconciler::writeFinalizers(const RunPtr &run,
                                          json after,
                                          const QString &what,
                                          bool goneIsDone,
                                          std::function<void(json)> onWritten)
{
    write(run,
          "PUT",
          resources::customApps(),
          run->name,
          run->app,
          after,
          {},
          [this, run, what, goneIsDone, onWritten = std::move(onWritten)](
              kube::RestClient::JsonResult result) {
              if (result) {
                  onWritten(std::move(result.value()));
                  return;
              }
              if (goneIsDone && result.error().isNotFound()) {
                  complete(run, reconcile::ReconcileOutcome::success());
                  return;
              }
              if (result.error().isConflict()) {
                  ++m_conflicts;
                  run->conflicts << u"finalizer"_s;
              }
              complete(run, reconcile::ReconcileOutcome::failure(what + result.error().toString()));
          });
}

void CustomAppReconciler::reconcileSpec(const RunPtr &run)
{
    const json &spec = member(run->app, "spec");
    if (member(spec, "paused") == json(true)) {
        finishWithStatus(
            run,
            { condition(
                "Paused",
                "True",
                u"ReconciliationPaused"_s,
                u"spec.paused is true: the reconciler leaves this CustomApp and its Deployment alone"_s,
                run->generation) },
            { u"Reconciling"_s },
            reconcile::ReconcileOutcome::success());
        return;
    }
    const QString problem = specProblem(
        run->app, [this, run](const QString &secret) { return secretExists(run->ns, secret); });
    if (!problem.isEmpty()) {
        finishWithStatus(
            run,
            { condition("Ready", "False", u"InvalidSpec"_s, problem, run->generation),
              condition("Degraded", "True", u"InvalidSpec"_s, problem, run->generation),
              condition("Stalled", "True", u"InvalidSpec"_s, problem, run->generation) },
            { u"Reconciling"_s, u"Paused"_s },
            reconcile::ReconcileOutcome::terminalFailure(problem));
        return;
    }
    reconcileDeployment(run);
}

void CustomAppReconciler::reconcileDeployment(const RunPtr &run)
{
    ++m_requests;
    m_client->get(
        resources::deployments(),
        run->ns,
        run->name,
        [this, run](kube::RestClient::JsonResult result) {
            const json desired = desiredDeployment(run->app);
            if (!result) {
                if (!result.error().isNotFound()) {
                    failTransient(run, u"get Deployment"_s, result.error());
                    return;
                }
                write(run,
                      "POST",
                      resources::deployments(),
                      run->name,
                      json(),
                      desired,
                      {},
                      [this, run](kube::RestClient::JsonResult created) {
                          if (!created) {
                              failTransient(run, u"create Deployment"_s, created.error());
                              return;
                          }
                          run->deployment = std::move(created.value());
                          recordEvent(run,
                                      u"Normal"_s,
                                      u"Created"_s,
                                      u"Created Deployment %1"_s.arg(run->name));
                          reportDeployment(run);
                      });
                return;
            }
            run->deployment = std::move(result.value());
            const QString uid = qstr(member(run->app, "metadata"), "uid");
            if (!ownedBy(run->deployment, uid)) {
                const QString message
                    = u"Deployment %1 exists and is not controlled by this CustomApp"_s.arg(
                        run->name);
                finishWithStatus(
                    run,
                    { condition(
                          "Ready", "False", u"DeploymentNotOwned"_s, message, run->generation),
                      condition(
                          "Degraded", "True", u"DeploymentNotOwned"_s, message, run->generation) },
                    { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
                    reconcile::ReconcileOutcome::failure(message));
                return;
            }
            const QString drift = deploymentDrift(run->deployment, desired);
            if (drift.isEmpty()) {
                reportDeployment(run);
                return;
            }
            // Spec changes show as a stale observedGeneration; anything else changed the Deployment
            // behind our back.
            const json &status = member(run->app, "status");
            run->drift = intOf(member(status, "observedGeneration"), -1) == run->generation;
            run->driftMessage = drift;
            json after = run->deployment;
            after["spec"]["replicas"] = desired["spec"]["replicas"];
            after["spec"]["template"] = desired["spec"]["template"];
            for (const auto &[label, value] : desired["metadata"]["labels"].items())
                after["metadata"]["labels"][label] = value;
            write(
                run,
                "PUT",
                resources::deployments(),
                run->name,
                run->deployment,
                after,
                {},
                [this, run](kube::RestClient::JsonResult updated) {
                    if (!updated) {
                        failTransient(run, u"update Deployment"_s, updated.error());
                        return;
                    }
                    run->deployment = std::move(updated.value());
                    if (run->drift) {
                        const QString message
                            = u"Deployment %1 was changed outside the reconciler (%2); restored"_s
                                  .arg(run->name, run->driftMessage);
                        recordEvent(run, u"Warning"_s, u"DriftDetected"_s, message);
                        const json &st = member(run->deployment, "status");
                        run->replicas = intOf(member(st, "replicas"));
                        run->readyReplicas = intOf(member(st, "readyReplicas"));
                        finishWithStatus(
                            run,
                            { condition("Reconciling",
                                        "True",
                                        u"DriftDetected"_s,
                                        message,
                                        run->generation),
                              condition(
                                  "Ready", "False", u"DriftDetected"_s, message, run->generation),
                              condition("Degraded",
                                        "False",
                                        u"DriftDetected"_s,
                                        u"The Deployment is being restored"_s,
                                        run->generation) },
                            { u"Stalled"_s, u"Paused"_s },
                            reconcile::ReconcileOutcome::success());
                        return;
                    }
                    recordEvent(
                        run,
                        u"Normal"_s,
                        u"Updated"_s,
                        u"Updated Deployment %1 to generation %2 of the spec"_s.arg(run->name).arg(
                            run->generation));
                    reportDeployment(run);
                });
        });
}

void CustomAppReconciler::reportDeployment(const RunPtr &run)
{
    const json &deployment = run->deployment;
    const json &status = member(deployment, "status");
    const qint64 wanted = intOf(member(member(deployment, "spec"), "replicas"), 1);
    const qint64 ready = intOf(member(status, "readyReplicas"));
    run->replicas = intOf(member(status, "replicas"));
    run->readyReplicas = ready;
    const qint64 gen = run->generation;
    const QStringList notDegraded{ u"Stalled"_s, u"Paused"_s };

    // Quota: the Deployment's ReplicaFailure condition (FailedCreate, "exceeded quota").
    const json &conditions = member(status, "conditions");
    if (conditions.is_array()) {
        for (const auto &c : conditions) {
            if (qstr(c, "type") == u"ReplicaFailure" && qstr(c, "status") == u"True") {
                const QString raw = qstr(c, "message");
                const qsizetype quota = raw.indexOf(u"exceeded quota"_s, 0, Qt::CaseInsensitive);
                const QString reason = quota >= 0 ? u"QuotaExceeded"_s : u"ReplicaFailure"_s;
                // Without the pod name each attempt invents, so that retries do not rewrite
                // status: "Deployment web cannot create pods: exceeded quota: pods, ...".
                const QString message = quota >= 0
                    ? u"Deployment %1 cannot create pods: %2"_s.arg(run->name, raw.mid(quota))
                    : raw;
                finishWithStatus(run,
                                 { condition("Ready", "False", reason, message, gen),
                                   condition("Degraded", "True", reason, message, gen) },
                                 { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
                                 reconcile::ReconcileOutcome::failure(reason + u": "_s + message));
                return;
            }
        }
    }
    // Image pulls: waiting reasons of the pods running the current template.
    const QString image = qstr(member(run->app, "spec"), "image");
    if (m_podsInformer) {
        for (auto it = m_podsInformer->entries().cbegin(); it != m_podsInformer->entries().cend();
             ++it) {
            if (it->summary.namespaceName != run->ns)
                continue;
            const json pod = it->json();
            const json &labels = member(member(pod, "metadata"), "labels");
            if (qstr(labels, InstanceLabel) != run->name
                || qstr(labels, NameLabel) != QLatin1StringView(NameLabelValue))
                continue;
            const json &statuses = member(member(pod, "status"), "containerStatuses");
            if (!statuses.is_array())
                continue;
            for (const auto &cs : statuses) {
                const json &waiting = member(member(cs, "state"), "waiting");
                const QString why = qstr(waiting, "reason");
                if ((why == u"ImagePullBackOff" || why == u"ErrImagePull")
                    && qstr(cs, "image") == image) {
                    const QString message
                        = u"Image %1 cannot be pulled (pods waiting in %2)"_s.arg(image, why);
                    finishWithStatus(
                        run,
                        { condition("Ready", "False", u"ImagePullBackOff"_s, message, gen),
                          condition("Degraded", "True", u"ImagePullBackOff"_s, message, gen) },
                        { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
                        reconcile::ReconcileOutcome::failure(u"ImagePullBackOff: "_s + message));
                    return;
                }
            }
        }
    }
    const bool rolledOut = intOf(member(status, "observedGeneration")) >= generationOf(deployment)
        && intOf(member(status, "updatedReplicas"), run->replicas.value_or(0)) >= wanted
        && run->replicas.value_or(0) == wanted;
    if (!rolledOut || ready < wanted) {
        const QString message = u"%1/%2 replicas ready"_s.arg(ready).arg(wanted);
        finishWithStatus(
            run,
            { condition("Reconciling", "True", u"Progressing"_s, message, gen),
              condition("Ready", "False", u"Progressing"_s, message, gen),
              condition("Degraded", "False", u"Progressing"_s, u"No failures"_s, gen) },
            notDegraded,
            reconcile::ReconcileOutcome::success());
        return;
    }
    const QString message = u"%1/%2 replicas ready"_s.arg(ready).arg(wanted);
    finishWithStatus(run,
                     { condition("Ready", "True", u"Synchronized"_s, message, gen),
                       condition("Degraded", "False", u"Synchronized"_s, u"No failures"_s, gen) },
                     { u"Reconciling"_s, u"Stalled"_s, u"Paused"_s },
                     reconcile::ReconcileOutcome::success());
}

void CustomAppReconciler::failTransient(const RunPtr &run,
                                        const QString &step,
                                        const kube::ApiError &error)
{
    const QString message = step + u": "_s + error.toString();
    if (error.isConflict()) {
        ++m_conflicts;
        run->conflicts << step;
        complete(run, reconcile::ReconcileOutcome::failure(message));
        return;
    }
    finishWithStatus(run,
                     { condition("Ready", "False", u"TransientError"_s, message, run->generation) },
                     { u"Stalled"_s },
                     reconcile::ReconcileOutcome::failure(message));
}

void CustomAppReconciler::finishWithStatus(const RunPtr &run,
                                           models::ConditionList conditions,
                                           QStringList removeTypes,
                                           reconcile::ReconcileOutcome outcome)
{
    const json before
        = member(run->app, "status").is_object() ? run->app["status"] : json::object();
    json status = before;
    models::ConditionList list = models::conditionsFromJsonLenient(member(before, "conditions"));
    const models::ConditionList old = list;
    const QDateTime at = now();
    for (auto &c : conditions)
        models::setStatusCondition(list, c, at);
    for (const auto &type : std::as_const(removeTypes))
        models::removeStatusCondition(list, type);
    status["observedGeneration"] = run->generation;
    status["conditions"] = models::conditionsToJson(list);
    if (run->replicas)
        status["replicas"] = *run->replicas;
    if (run->readyReplicas)
        status["readyReplicas"] = *run->readyReplicas;
    if (status == before) {
        complete(run, std::move(outcome));
        return;
    }
    // The summary's transitions are the notable steps `kubectl describe` should show.
    const models::Condition *readyBefore = models::findStatusCondition(old, u"Ready");
    const models::Condition *readyAfter = models::findStatusCondition(list, u"Ready");
    const bool readyChanged = readyAfter
        && (!readyBefore || readyBefore->status != readyAfter->status
            || readyBefore->reason != readyAfter->reason);
    const bool degraded = models::isStatusConditionTrue(list, u"Degraded");
    json after = run->app;
    after["status"] = status;
    auto retry = [this, run, conditions, removeTypes](reconcile::ReconcileOutcome retried) {
        // client-go's RetryOnConflict: read again and reapply the same conditions, as long as
        // the spec (generation) did not change meanwhile; otherwise requeue.
        ++m_requests;
        m_client->get(resources::customApps(),
                      run->ns,
                      run->name,
                      [this, run, conditions, removeTypes, retried = std::move(retried)](
                          kube::RestClient::JsonResult fresh) mutable {
                          if (!fresh || generationOf(fresh.value()) != run->generation) {
                              complete(run,
                                       reconcile::ReconcileOutcome::failure(
                                           u"write status: conflict; requeued"_s));
                              return;
                          }
                          run->app = std::move(fresh.value());
                          finishWithStatus(run, conditions, removeTypes, std::move(retried));
                      });
    };
    write(run,
          "PUT",
          resources::customApps(),
          run->name,
          run->app,
          after,
          u"status"_s,
          [this,
           run,
           outcome = std::move(outcome),
           retry = std::move(retry),
           readyChanged,
           degraded,
           reason = readyAfter ? readyAfter->reason : QString(),
           message = readyAfter ? readyAfter->message
                                : QString()](kube::RestClient::JsonResult result) mutable {
              if (!result) {
                  if (result.error().isConflict()) {
                      ++m_conflicts;
                      run->conflicts << u"status"_s;
                      if (++run->statusAttempts < MaxStatusAttempts) {
                          retry(std::move(outcome));
                          return;
                      }
                  }
                  complete(run,
                           reconcile::ReconcileOutcome::failure(u"write status: "_s
                                                                + result.error().toString()));
                  return;
              }
              run->app = std::move(result.value());
              if (readyChanged && reason != u"DriftDetected")
                  recordEvent(run, degraded ? u"Warning"_s : u"Normal"_s, reason, message);
              complete(run, std::move(outcome));
          });
}

} // namespace reconscope::controller::operators
