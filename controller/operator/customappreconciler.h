#pragma once

#include "controller/kube/backoff.h"
#include "controller/kube/clientconfig.h"
#include "controller/kube/restclient.h"
#include "controller/operator/customappstate.h"
#include "controller/reconcile/clock.h"
#include "controller/reconcile/reconciler.h"
#include "controller/reconcile/stepsequence.h"
#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace reconscope::controller::kube {
class InformerStore;
}

namespace reconscope::controller::operators {

class EventRecorder;

// The resources the CustomApp operator reads and writes.
namespace resources {
const apimachinery::ResourceRef &customApps();
const apimachinery::ResourceRef &deployments();
const apimachinery::ResourceRef &secrets();
const apimachinery::ResourceRef &pods();
const apimachinery::ResourceRef &events();
const apimachinery::ResourceRef &leases();
} // namespace resources

// One write the reconciler sent, or (dry-run) would have sent: the verb, the path, and the change
// as an RFC 6902 JSON patch from the object it read to the object it writes (nlohmann::json::diff;
// from null for a create).
struct PlannedWrite
{
    QString verb; // POST, PUT, DELETE
    QString path;
    nlohmann::json diff;
    bool sent = false;

    QString toString() const; // "PUT /apis/.../web/status [{"op":"replace",...}]"
};

// The CustomApp reconciler of reconciler.md section 1, in controller-runtime's shape: level-based
// (every pass reads the CustomApp and its Deployment fresh from the API server, Secrets and Pods
// from informer caches), writes only through the RestClient, status only via PUT /status with the
// resourceVersion it read, and only when something changed.
//
// Watches (informers) CustomApps, Deployments, Secrets and Pods; every event is mapped to the key
// of the CustomApp it concerns (a Deployment through its controller ownerReference, a Secret to
// the CustomApps naming it in spec.secretRef, a Pod through the labels of the owned template) and
// handed to the enqueue function (a ControllerLoop's enqueue). Nothing is enqueued before all
// caches have synced; then every cached CustomApp is.
class CustomAppReconciler final : public QObject, public reconcile::AsyncReconciler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CustomAppReconciler)

public:
    struct Options
    {
        QString namespace_; // empty: all namespaces
        bool dryRun = false; // compute the writes (PlannedWrite diffs) without sending them
        QString finalizer = QStringLiteral("infrastructure.internal.net/finalizer");
        QString component = QStringLiteral("reconscope-customapp"); // Events' source
        QString instance; // Events' reportingInstance (the leader identity)
        int informerBatchMs = 10;
        // The informers' reconnect backoff (client-go's when unset); fault tests use short ones.
        std::optional<kube::Backoff::Parameters> informerBackoff;
    };
    using Enqueue = std::function<void(const QString &key, const QString &trigger)>;

    static constexpr int MaxReplicas = customapp::MaxReplicas;
    // Status writes answered 409 are retried in place (fresh read, same conditions) this many
    // times in all, as client-go's DefaultRetry (5 steps), while the generation is unchanged.
    static constexpr int MaxStatusAttempts = 5;

    // The clock supplies condition and Event times; it must outlive the reconciler.
    CustomAppReconciler(kube::ClientConfig config,
                        reconcile::Clock &clock,
                        Options options,
                        QObject *parent = nullptr);
    ~CustomAppReconciler() override;

    void setEnqueue(Enqueue enqueue) { m_enqueue = std::move(enqueue); }
    void start(); // starts the informers
    void stop();
    bool hasSynced() const { return m_synced; }

    void reconcileAsync(const QString &key, Completion complete) override;

    const Options &options() const { return m_options; }
    kube::RestClient *client() const { return m_client; }
    // API requests the reconciles sent (reads and writes, Events included) and the writes alone.
    qint64 requestCount() const { return m_requests; }
    qint64 writeCount() const { return m_writes; }
    qint64 conflictCount() const { return m_conflicts; }
    // The writes of the last reconcile of key (sent, or planned in dry-run mode).
    QList<PlannedWrite> lastWrites(const QString &key) const { return m_lastWrites.value(key); }
    bool hasLastWrites(const QString &key) const { return m_lastWrites.contains(key); }

    // Pure parts (customappstate.h), public for tests.
    static nlohmann::json desiredDeployment(const nlohmann::json &app)
    {
        return customapp::desiredDeployment(app);
    }
    static QString specProblem(const nlohmann::json &app,
                               const std::function<bool(const QString &)> &secretExists)
    {
        return customapp::specProblem(app, secretExists);
    }
    static QString deploymentDrift(const nlohmann::json &actual, const nlohmann::json &desired)
    {
        return customapp::deploymentDrift(actual, desired);
    }

signals:
    void cachesSynced();
    // Each CustomApp version its informer delivers, and each one deleted (the operator measures
    // end-to-end latency from them).
    void customAppObserved(const reconscope::models::ObjectSummary &summary);
    void customAppRemoved(const QString &key);
    // After every write sent or planned.
    void writeRecorded(const QString &key,
                       const reconscope::controller::operators::PlannedWrite &w);

private:
    struct Run;
    using RunPtr = std::shared_ptr<Run>;

    void handleCustomAppsChanged(const QStringList &upserted, const QStringList &removed);
    void handleDeploymentsChanged(const QStringList &upserted, const QStringList &removed);
    void handleSecretsChanged(const QStringList &upserted, const QStringList &removed);
    void handlePodsChanged(const QStringList &upserted, const QStringList &removed);
    void handleInformerSynced();
    void enqueue(const QString &key, const QString &trigger);

    // The steps of a reconcile, in the order they run (reconcileAsync lists them). Each reads and
    // writes through run and either proceeds or ends the reconcile with one outcome.
    using StepFunction
        = void (CustomAppReconciler::*)(const RunPtr &, const reconcile::StepControl &);
    reconcile::Step step(const char *name, const RunPtr &run, StepFunction function);
    void fetchApp(const RunPtr &run, const reconcile::StepControl &control);
    void handleDeletion(const RunPtr &run, const reconcile::StepControl &control);
    void getOwnedDeployment(const RunPtr &run, const reconcile::StepControl &control);
    void deleteDeployment(const RunPtr &run, const reconcile::StepControl &control);
    void removeFinalizer(const RunPtr &run, const reconcile::StepControl &control);
    void ensureFinalizer(const RunPtr &run, const reconcile::StepControl &control);
    void checkSpec(const RunPtr &run, const reconcile::StepControl &control);
    void getDeployment(const RunPtr &run, const reconcile::StepControl &control);
    void createDeployment(const RunPtr &run, const reconcile::StepControl &control);
    void checkOwnership(const RunPtr &run, const reconcile::StepControl &control);
    void restoreDeployment(const RunPtr &run, const reconcile::StepControl &control);
    void reportStatus(const RunPtr &run, const reconcile::StepControl &control);

    bool hasFinalizer(const RunPtr &run) const;
    // PUTs `after` (run->app with its finalizers changed). On success onWritten gets the stored
    // object; a 409 is counted; a 404 ends the run with success when goneIsDone, other errors
    // end it with a failure.
    void writeFinalizers(const RunPtr &run,
                         nlohmann::json after,
                         const QString &what,
                         bool goneIsDone,
                         const reconcile::StepControl &control,
                         std::function<void(nlohmann::json)> onWritten);
    // A 409 ends the run (counted); other errors are reported in status first.
    void failTransient(const RunPtr &run,
                       const QString &step,
                       const apimachinery::ApiError &error,
                       const reconcile::StepControl &control);
    // Applies the report's conditions, writes status when it changed (retrying a 409 up to
    // MaxStatusAttempts in all), then ends the run with the report's outcome.
    void writeStatus(const RunPtr &run,
                     customapp::StatusReport report,
                     const reconcile::StepControl &control);
    void retryStatus(const RunPtr &run,
                     customapp::StatusReport report,
                     const reconcile::StepControl &control);
    void complete(const RunPtr &run, reconcile::ReconcileOutcome outcome);

    // Sends (or, dry-run, only records) a write; `done` gets the server's answer, or in dry-run
    // the object as it would be.
    void write(const RunPtr &run,
               const QByteArray &verb,
               const apimachinery::ResourceRef &resource,
               const QString &name,
               const nlohmann::json &before,
               const nlohmann::json &after,
               const QString &subresource,
               kube::RestClient::JsonCallback done);
    void recordEvent(const RunPtr &run,
                     const QString &type,
                     const QString &reason,
                     const QString &message);
    QDateTime now() const;
    bool secretExists(const QString &ns, const QString &name) const;

    kube::ClientConfig m_config;
    reconcile::Clock &m_clock;
    Options m_options;
    Enqueue m_enqueue;
    kube::RestClient *m_client = nullptr;
    EventRecorder *m_events = nullptr;
    kube::InformerStore *m_appsInformer = nullptr;
    kube::InformerStore *m_deploymentsInformer = nullptr;
    kube::InformerStore *m_secretsInformer = nullptr;
    kube::InformerStore *m_podsInformer = nullptr;
    bool m_synced = false;
    QHash<QString, QString> m_deploymentOwners; // deployment key -> CustomApp key
    QHash<QString, QList<PlannedWrite>> m_lastWrites;
    quint64 m_nextRunId = 1;
    qint64 m_requests = 0;
    qint64 m_writes = 0;
    qint64 m_conflicts = 0;
};

} // namespace reconscope::controller::operators
