#include "controller/operator/customappreconciler.h"

#include "controller/kube/informerstore.h"
#include "controller/operator/eventrecorder.h"
#include "models/customappview.h"
#include "models/jsonfields.h"

#include <spdlog/spdlog.h>

#include <QUuid>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::models::jsonInteger;
using reconscope::models::jsonMember;
using reconscope::models::jsonString;

namespace reconscope::controller::operators {

namespace resources {
const apimachinery::ResourceRef &customApps()
{
    static const apimachinery::ResourceRef ref{ u"infrastructure.internal.net"_s,
                                                u"v1"_s,
                                                u"customapps"_s };
    return ref;
}
const apimachinery::ResourceRef &deployments()
{
    static const apimachinery::ResourceRef ref{ u"apps"_s, u"v1"_s, u"deployments"_s };
    return ref;
}
const apimachinery::ResourceRef &secrets()
{
    static const apimachinery::ResourceRef ref{ QString(), u"v1"_s, u"secrets"_s };
    return ref;
}
const apimachinery::ResourceRef &pods()
{
    static const apimachinery::ResourceRef ref{ QString(), u"v1"_s, u"pods"_s };
    return ref;
}
const apimachinery::ResourceRef &events()
{
    static const apimachinery::ResourceRef ref{ QString(), u"v1"_s, u"events"_s };
    return ref;
}
const apimachinery::ResourceRef &leases()
{
    static const apimachinery::ResourceRef ref{ u"coordination.k8s.io"_s, u"v1"_s, u"leases"_s };
    return ref;
}
} // namespace resources

QString PlannedWrite::toString() const
{
    return verb + u' ' + path + u' ' + QString::fromStdString(diff.dump())
        + (sent ? u""_s : u" (dry-run)"_s);
}

// One reconcile of one key: what its steps read, and what it wrote.
struct CustomAppReconciler::Run
{
    QString reconcileId;
    QString key;
    QString ns;
    QString name;
    Completion done;
    json app;
    qint64 generation = 0;
    json deployment;
    bool deploymentFound = false;
    bool deploymentCreated = false;
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
    auto make = [this](const apimachinery::ResourceRef &resource,
                       void (CustomAppReconciler::*handler)(const QStringList &,
                                                            const QStringList &)) {
        auto *store = new kube::InformerStore(
            m_config, resource, m_options.namespace_, models::LifecycleMapping::defaults(), this);
        store->setBatchInterval(m_options.informerBatchMs);
        store->setBackoff(m_options.informerBackoff);
        // The reconciler reads whole objects of these stores on every reconcile: kept as they
        // came, not compressed (InformerStore's default is for the console's large tables).
        store->setTransform(kube::plainTransform());
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
        if (entry)
            emit customAppObserved(entry->summary);
    }
    for (const auto &key : removed) {
        enqueue(key, u"customapp deleted"_s);
        emit customAppRemoved(key);
    }
}

void CustomAppReconciler::handleDeploymentsChanged(const QStringList &upserted,
                                                   const QStringList &removed)
{
    for (const auto &key : upserted) {
        const auto *entry = m_deploymentsInformer->entry(key);
        if (!entry)
            continue;
        const QString owner = customapp::ownerKeyOfDeployment(entry->json());
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
            if (models::CustomAppSpecView(app).secretName() == name)
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
        const QString instance = customapp::instanceOfPod(entry->json());
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

// ---- the reconcile ----

reconcile::Step
CustomAppReconciler::step(const char *name, const RunPtr &run, StepFunction function)
{
    return { QString::fromLatin1(name),
             [this, run, function](const reconcile::StepControl &control) {
                 (this->*function)(run, control);
             } };
}

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
    reconcile::StepSequence::run(
        {
            step("get CustomApp", run, &CustomAppReconciler::fetchApp),
            step("handle deletion", run, &CustomAppReconciler::handleDeletion),
            step("ensure finalizer", run, &CustomAppReconciler::ensureFinalizer),
            step("check spec", run, &CustomAppReconciler::checkSpec),
            step("get Deployment", run, &CustomAppReconciler::getDeployment),
            step("create Deployment", run, &CustomAppReconciler::createDeployment),
            step("check ownership", run, &CustomAppReconciler::checkOwnership),
            step("restore Deployment", run, &CustomAppReconciler::restoreDeployment),
            step("report status", run, &CustomAppReconciler::reportStatus),
        },
        [this, run](reconcile::ReconcileOutcome outcome) {
            this->complete(run, std::move(outcome));
        });
}

void CustomAppReconciler::fetchApp(const RunPtr &run, const reconcile::StepControl &control)
{
    ++m_requests;
    m_client->get(resources::customApps(),
                  run->ns,
                  run->name,
                  [run, control](kube::RestClient::JsonResult result) {
                      if (!result && result.error().isNotFound())
                          return control.finish(reconcile::ReconcileOutcome::success()); // gone
                      if (!result)
                          return control.finish(reconcile::ReconcileOutcome::failure(
                              u"get CustomApp: "_s + result.error().toString()));
                      run->app = std::move(result.value());
                      run->generation = jsonInteger(jsonMember(run->app, "metadata"), "generation");
                      control.proceed();
                  });
}

bool CustomAppReconciler::hasFinalizer(const RunPtr &run) const
{
    const json &finalizers = jsonMember(jsonMember(run->app, "metadata"), "finalizers");
    return finalizers.is_array()
        && std::find(finalizers.begin(), finalizers.end(), json(m_options.finalizer.toStdString()))
        != finalizers.end();
}

void CustomAppReconciler::handleDeletion(const RunPtr &run, const reconcile::StepControl &control)
{
    if (!jsonMember(jsonMember(run->app, "metadata"), "deletionTimestamp").is_string())
        return control.proceed();
    if (!hasFinalizer(run))
        return control.finish(reconcile::ReconcileOutcome::success());
    // Deleting ends the reconcile: clean up what we own, then let the CustomApp go.
    reconcile::StepSequence::run(
        {
            step("get owned Deployment", run, &CustomAppReconciler::getOwnedDeployment),
            step("delete Deployment", run, &CustomAppReconciler::deleteDeployment),
            step("remove finalizer", run, &CustomAppReconciler::removeFinalizer),
        },
        control.finisher());
}

void CustomAppReconciler::getOwnedDeployment(const RunPtr &run,
                                             const reconcile::StepControl &control)
{
    ++m_requests;
    m_client->get(
        resources::deployments(),
        run->ns,
        run->name,
        [run, control](kube::RestClient::JsonResult result) {
            if (!result && result.error().isNotFound())
                return control.proceed();
            if (!result)
                return control.finish(reconcile::ReconcileOutcome::failure(
                    u"get Deployment: "_s + result.error().toString()));
            const QString uid = jsonString(jsonMember(run->app, "metadata"), "uid");
            if (!customapp::ownedBy(result.value(), uid))
                return control.proceed(); // not ours to clean up
            // Its own finalizers hold it: its deletion event requeues us; poll as a fallback.
            if (jsonMember(jsonMember(result.value(), "metadata"), "deletionTimestamp").is_string())
                return control.finish(
                    reconcile::ReconcileOutcome::requeueAfter(std::chrono::seconds(2)));
            run->deployment = std::move(result.value());
            run->deploymentFound = true;
            control.proceed();
        });
}

void CustomAppReconciler::deleteDeployment(const RunPtr &run, const reconcile::StepControl &control)
{
    if (!run->deploymentFound)
        return control.proceed();
    recordEvent(run,
                u"Normal"_s,
                u"Deleting"_s,
                u"Deleting Deployment %1 before removing the finalizer"_s.arg(run->name));
    write(run,
          "DELETE",
          resources::deployments(),
          run->name,
          run->deployment,
          json(),
          {},
          [this, control](kube::RestClient::JsonResult deleted) {
              if (!deleted && deleted.error().isNotFound())
                  return control.proceed();
              if (!deleted)
                  return control.finish(reconcile::ReconcileOutcome::failure(
                      u"delete Deployment: "_s + deleted.error().toString()));
              // A Status means it is gone; the object means finalizers still hold it.
              if (m_options.dryRun || jsonString(deleted.value(), "kind") == u"Status")
                  return control.proceed();
              control.finish(reconcile::ReconcileOutcome::requeueAfter(std::chrono::seconds(2)));
          });
}

void CustomAppReconciler::removeFinalizer(const RunPtr &run, const reconcile::StepControl &control)
{
    json after = run->app;
    json &finalizers = after["metadata"]["finalizers"];
    json kept = json::array();
    for (const auto &f : finalizers) {
        if (f != json(m_options.finalizer.toStdString()))
            kept.push_back(f);
    }
    finalizers = kept;
    writeFinalizers(
        run, std::move(after), u"remove finalizer: "_s, true, control, [this, run, control](json) {
            recordEvent(run,
                        u"Normal"_s,
                        u"FinalizerRemoved"_s,
                        u"Owned objects deleted; finalizer %1 removed"_s.arg(m_options.finalizer));
            control.proceed();
        });
}

void CustomAppReconciler::ensureFinalizer(const RunPtr &run, const reconcile::StepControl &control)
{
    if (hasFinalizer(run))
        return control.proceed();
    json after = run->app;
    if (!after["metadata"]["finalizers"].is_array())
        after["metadata"]["finalizers"] = json::array();
    after["metadata"]["finalizers"].push_back(m_options.finalizer.toStdString());
    writeFinalizers(
        run, std::move(after), u"add finalizer: "_s, false, control, [run, control](json stored) {
            run->app = std::move(stored);
            control.proceed();
        });
}

void CustomAppReconciler::writeFinalizers(const RunPtr &run,
                                          json after,
                                          const QString &what,
                                          bool goneIsDone,
                                          const reconcile::StepControl &control,
                                          std::function<void(json)> onWritten)
{
    write(run,
          "PUT",
          resources::customApps(),
          run->name,
          run->app,
          after,
          {},
          [this, run, what, goneIsDone, control, onWritten = std::move(onWritten)](
              kube::RestClient::JsonResult result) {
              if (result)
                  return onWritten(std::move(result.value()));
              if (goneIsDone && result.error().isNotFound())
                  return control.finish(reconcile::ReconcileOutcome::success());
              if (result.error().isConflict()) {
                  ++m_conflicts;
                  run->conflicts << u"finalizer"_s;
              }
              control.finish(
                  reconcile::ReconcileOutcome::failure(what + result.error().toString()));
          });
}

void CustomAppReconciler::checkSpec(const RunPtr &run, const reconcile::StepControl &control)
{
    if (models::CustomAppSpecView(run->app).paused())
        return writeStatus(run, customapp::pausedReport(run->generation), control);
    const QString problem = customapp::specProblem(
        run->app, [this, run](const QString &secret) { return secretExists(run->ns, secret); });
    if (!problem.isEmpty())
        return writeStatus(run, customapp::invalidSpecReport(problem, run->generation), control);
    control.proceed();
}

void CustomAppReconciler::getDeployment(const RunPtr &run, const reconcile::StepControl &control)
{
    ++m_requests;
    m_client->get(resources::deployments(),
                  run->ns,
                  run->name,
                  [this, run, control](kube::RestClient::JsonResult result) {
                      if (!result && !result.error().isNotFound())
                          return failTransient(run, u"get Deployment"_s, result.error(), control);
                      if (result) {
                          run->deployment = std::move(result.value());
                          run->deploymentFound = true;
                      }
                      control.proceed();
                  });
}

void CustomAppReconciler::createDeployment(const RunPtr &run, const reconcile::StepControl &control)
{
    if (run->deploymentFound)
        return control.proceed();
    write(run,
          "POST",
          resources::deployments(),
          run->name,
          json(),
          customapp::desiredDeployment(run->app),
          {},
          [this, run, control](kube::RestClient::JsonResult created) {
              if (!created)
                  return failTransient(run, u"create Deployment"_s, created.error(), control);
              run->deployment = std::move(created.value());
              run->deploymentCreated = true;
              recordEvent(
                  run, u"Normal"_s, u"Created"_s, u"Created Deployment %1"_s.arg(run->name));
              control.proceed();
          });
}

void CustomAppReconciler::checkOwnership(const RunPtr &run, const reconcile::StepControl &control)
{
    const QString uid = jsonString(jsonMember(run->app, "metadata"), "uid");
    if (!run->deploymentCreated && !customapp::ownedBy(run->deployment, uid))
        return writeStatus(run, customapp::notOwnedReport(run->name, run->generation), control);
    control.proceed();
}

void CustomAppReconciler::restoreDeployment(const RunPtr &run,
                                            const reconcile::StepControl &control)
{
    if (run->deploymentCreated)
        return control.proceed();
    const json desired = customapp::desiredDeployment(run->app);
    const QString drift = customapp::deploymentDrift(run->deployment, desired);
    if (drift.isEmpty())
        return control.proceed();
    // Spec changes show as a stale observedGeneration; anything else changed the Deployment
    // behind our back.
    const bool outside
        = models::CustomAppStatusView(run->app).observedGeneration(-1) == run->generation;
    json after = run->deployment;
    after["spec"]["replicas"] = desired["spec"]["replicas"];
    after["spec"]["template"] = desired["spec"]["template"];
    for (const auto &[label, value] : desired["metadata"]["labels"].items())
        after["metadata"]["labels"][label] = value;
    write(run,
          "PUT",
          resources::deployments(),
          run->name,
          run->deployment,
          after,
          {},
          [this, run, control, outside, drift](kube::RestClient::JsonResult updated) {
              if (!updated)
                  return failTransient(run, u"update Deployment"_s, updated.error(), control);
              run->deployment = std::move(updated.value());
              if (outside) {
                  const QString message
                      = u"Deployment %1 was changed outside the reconciler (%2); restored"_s.arg(
                          run->name, drift);
                  recordEvent(run, u"Warning"_s, u"DriftDetected"_s, message);
                  return writeStatus(
                      run,
                      customapp::driftReport(message, run->deployment, run->generation),
                      control);
              }
              recordEvent(
                  run,
                  u"Normal"_s,
                  u"Updated"_s,
                  u"Updated Deployment %1 to generation %2 of the spec"_s.arg(run->name).arg(
                      run->generation));
              control.proceed();
          });
}

void CustomAppReconciler::reportStatus(const RunPtr &run, const reconcile::StepControl &control)
{
    // The pods of this CustomApp from the informer cache, read only when the report needs them.
    auto pods = [this, run] {
        QList<json> found;
        if (!m_podsInformer)
            return found;
        for (auto it = m_podsInformer->entries().cbegin(); it != m_podsInformer->entries().cend();
             ++it) {
            if (it->summary.namespaceName != run->ns)
                continue;
            json pod = it->json();
            if (customapp::instanceOfPod(pod) == run->name)
                found << std::move(pod);
        }
        return found;
    };
    writeStatus(
        run,
        customapp::deploymentReport(run->name, run->app, run->deployment, run->generation, pods),
        control);
}

void CustomAppReconciler::failTransient(const RunPtr &run,
                                        const QString &step,
                                        const apimachinery::ApiError &error,
                                        const reconcile::StepControl &control)
{
    const QString message = step + u": "_s + error.toString();
    if (error.isConflict()) {
        ++m_conflicts;
        run->conflicts << step;
        return control.finish(reconcile::ReconcileOutcome::failure(message));
    }
    writeStatus(run, customapp::transientErrorReport(message, run->generation), control);
}

void CustomAppReconciler::writeStatus(const RunPtr &run,
                                      customapp::StatusReport report,
                                      const reconcile::StepControl &control)
{
    const customapp::StatusUpdate update
        = customapp::statusUpdate(run->app, report, run->generation, now());
    if (!update.changed)
        return control.finish(std::move(report.outcome));
    json after = run->app;
    after["status"] = update.status;
    write(run,
          "PUT",
          resources::customApps(),
          run->name,
          run->app,
          after,
          u"status"_s,
          [this, run, control, update, report = std::move(report)](
              kube::RestClient::JsonResult result) mutable {
              if (!result && result.error().isConflict()) {
                  ++m_conflicts;
                  run->conflicts << u"status"_s;
                  if (++run->statusAttempts < MaxStatusAttempts)
                      return retryStatus(run, std::move(report), control);
              }
              if (!result)
                  return control.finish(reconcile::ReconcileOutcome::failure(
                      u"write status: "_s + result.error().toString()));
              run->app = std::move(result.value());
              if (update.readyChanged && update.readyReason != u"DriftDetected")
                  recordEvent(run,
                              update.degraded ? u"Warning"_s : u"Normal"_s,
                              update.readyReason,
                              update.readyMessage);
              control.finish(std::move(report.outcome));
          });
}

void CustomAppReconciler::retryStatus(const RunPtr &run,
                                      customapp::StatusReport report,
                                      const reconcile::StepControl &control)
{
    // client-go's RetryOnConflict: read again and reapply the same conditions, as long as the
    // spec (generation) did not change meanwhile; otherwise requeue.
    ++m_requests;
    m_client->get(resources::customApps(),
                  run->ns,
                  run->name,
                  [this, run, control, report = std::move(report)](
                      kube::RestClient::JsonResult fresh) mutable {
                      if (!fresh
                          || jsonInteger(jsonMember(fresh.value(), "metadata"), "generation")
                              != run->generation)
                          return control.finish(reconcile::ReconcileOutcome::failure(
                              u"write status: conflict; requeued"_s));
                      run->app = std::move(fresh.value());
                      writeStatus(run, std::move(report), control);
                  });
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
                                const apimachinery::ResourceRef &resource,
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
        m_client->remove(resource,
                         run->ns,
                         name,
                         apimachinery::DeleteOptions{ .propagationPolicy = u"Background"_s },
                         std::move(done));
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

} // namespace reconscope::controller::operators
