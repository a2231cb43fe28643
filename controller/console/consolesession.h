#pragma once

#include "controller/console/tablefeeder.h"
#include "controller/kube/clientconfig.h"
#include "controller/kube/discovery.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/resourcetablemodel.h"
#include "models/result.h"

#include <QObject>
#include <QSet>
#include <QString>

#include <chrono>
#include <optional>

namespace reconscope::controller::cluster {
class EmbeddedServer;
}

namespace reconscope::controller::reconcile {
class ControllerLoop;
}

namespace reconscope::controller::console {

class DemoEnvironment;
class ScenarioPlayer;

// What the console is connected to and watching, without any widget: a kubeconfig's context (or,
// in demo mode, the embedded cluster of a DemoEnvironment), one RestClient, discovery, and one
// informer for the chosen resource, whose batches a TableFeeder puts into the lifecycle tracker
// and the resource table model. The embedded cluster is reached exactly like a real one: through
// the kubeconfig it wrote, over mTLS. Writes go through the session, gated per context.
//
// Threads: the session, its client, informer signals, the feeder, the tracker and the table model
// belong to the thread the session lives on (the UI thread); see TableFeeder for the one pool
// thread that helps it within a turn.
class ConsoleSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleSession)

public:
    static const apimachinery::ResourceRef CustomApps;

    explicit ConsoleSession(QObject *parent = nullptr);
    ~ConsoleSession() override;

    // Starts the embedded cluster (demo objects seeded) and connects to it once it listens.
    models::Status<> startDemo();
    // Loads the kubeconfig (kubectl's precedence when `path` is empty) and connects to `context`
    // (current-context when empty).
    models::Status<> openKubeconfig(const QString &path, const QString &context = {});
    // Another context of the loaded kubeconfig.
    models::Status<> switchContext(const QString &context);
    // "" = all namespaces.
    void setNamespaceFilter(const QString &namespace_);
    // Watches another resource (the browser's selection); the table and the tracker start over.
    void setResource(const kube::DiscoveredResource &resource);
    // Demo mode runs the CustomApp operator against the embedded cluster (on by default; tests
    // that play the controller themselves turn it off before startDemo()).
    void setRunReconciler(bool run) { m_runReconciler = run; }
    // The embedded reconciler's loop, null when none runs.
    reconcile::ControllerLoop *controllerLoop() const;
    // Demo mode plays the default scenario once connected (on by default).
    void setPlayScenario(bool play) { m_playScenario = play; }
    // The demo scenario player: loaded with the default scenario, sending through the session's
    // client in demo mode only (a real cluster is never written to by a scenario).
    ScenarioPlayer *scenarioPlayer() const;
    // The informer's batch interval, ~30 ms by default.
    void setBatchInterval(int milliseconds) { m_batchIntervalMs = milliseconds; }
    // The time a large batch may hold the UI thread per event-loop turn (TableFeeder).
    static constexpr qint64 DefaultTurnBudgetNs = TableFeeder::DefaultTurnBudgetNs;
    void setTurnBudget(std::chrono::nanoseconds budget);
    // The first list's objects tracked and shown as it streams in (InformerStore::
    // setProgressiveFirstList) rather than once it is complete; for the next informer started.
    // Off by default: the UI thread's share then competes with the list's decoding on a small
    // machine and costs about twice the CPU (hashes and rows grown batch by batch, repaints), so
    // the table is complete later, not sooner (docs/performance.md).
    void setProgressiveFirstList(bool progressive) { m_progressiveFirstList = progressive; }

    bool isDemo() const { return m_demo; }
    bool isConnected() const { return m_client != nullptr; }
    const kube::Kubeconfig &kubeconfig() const { return m_kubeconfig; }
    QString contextName() const { return m_config.contextName; }
    QString namespaceFilter() const { return m_namespace; }
    QString serverUrl() const { return m_config.server.toString(); }
    QString kubeconfigPath() const { return m_kubeconfigPath; }
    const kube::DiscoveredResource &resource() const { return m_resource; }
    const models::LifecycleMapping &mapping() const;

    // Writes (patches, creates, deletes) are refused on real clusters until enabled for the
    // context; the embedded cluster is always writable.
    bool writesEnabled() const;
    void setWritesEnabled(bool enabled);
    // A write through the controller layer; refused (with a Forbidden-like error) when writes
    // are not enabled for the current context.
    void patchObject(const QString &namespace_,
                     const QString &name,
                     const QByteArray &mergePatch,
                     const QString &subresource,
                     kube::RestClient::JsonCallback callback);

    // Create (POST) and update (PUT, with the resourceVersion the object carries) of an object,
    // refused the same way when writes are off. Namespace and name come from its metadata.
    void createObject(const apimachinery::ResourceRef &resource,
                      const nlohmann::json &object,
                      kube::RestClient::JsonCallback callback);
    void updateObject(const apimachinery::ResourceRef &resource,
                      const nlohmann::json &object,
                      kube::RestClient::JsonCallback callback);
    // Why a write would be refused now (not connected, writes disabled); nullopt when allowed.
    std::optional<apimachinery::ApiError> writeRefusal() const;

    const kube::ClientConfig &clientConfig() const { return m_config; }
    kube::RestClient *client() const { return m_client; }
    kube::DiscoveryClient *discovery() const { return m_discovery; }
    kube::InformerStore *informer() const { return m_informer; }
    cluster::EmbeddedServer *embeddedServer() const;
    // Read it from the session's signals or between event-loop turns (TableFeeder), never from a
    // slot of the table model's own signals.
    const models::LifecycleTracker &tracker() const;
    models::ResourceTableModel *tableModel() const;
    kube::ReflectorState connectionState() const;
    // Watch changes applied per second over the last second.
    double eventsPerSecond() const;

signals:
    void connected(const QString &contextName, const QString &serverUrl);
    void connectionFailed(const QString &message);
    void contextsChanged(const QStringList &contexts, const QString &current);
    void resourceChanged(const reconscope::controller::kube::DiscoveredResource &resource);
    void connectionStateChanged(const reconscope::controller::kube::ReflectorState &state);
    void writesEnabledChanged(bool enabled);
    // One tick's lifecycle transitions, after the table model was updated.
    void transitionsObserved(const QList<reconscope::models::Transition> &transitions);
    // The objects of one tick (upserted, removed), after the table model was updated.
    void objectsChanged(const QStringList &upserted, const QStringList &removed);
    void trackerReset();
    void eventRateChanged(double eventsPerSecond);
    void reconcilerChanged();

private:
    void connectTo(const kube::ClientConfig &config);
    void restartInformer();
    void handleServerStarted(const QString &kubeconfigPath);
    // Answers `callback` with writeRefusal() when there is one.
    bool refused(const kube::RestClient::JsonCallback &callback) const;

    bool m_demo = false;
    bool m_runReconciler = true;
    bool m_playScenario = true;
    DemoEnvironment *m_environment;

    QString m_kubeconfigPath;
    kube::Kubeconfig m_kubeconfig;
    kube::ClientConfig m_config;
    kube::RestClient *m_client = nullptr;
    kube::DiscoveryClient *m_discovery = nullptr;
    kube::InformerStore *m_informer = nullptr;
    kube::DiscoveredResource m_resource;
    QString m_namespace;
    int m_batchIntervalMs = 30;
    bool m_progressiveFirstList = false;
    QSet<QString> m_writableContexts;
    TableFeeder *m_feeder;
};

} // namespace reconscope::controller::console
