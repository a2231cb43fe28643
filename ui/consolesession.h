#pragma once

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
#include <QPointer>
#include <QSet>
#include <QString>

#include <chrono>
#include <deque>
#include <memory>
#include <vector>

class QThreadPool;
class QTimer;

namespace reconscope::controller::cluster {
class BackgroundCluster;
class EmbeddedServer;
} // namespace reconscope::controller::cluster

namespace reconscope::controller::operators {
class CustomAppOperator;
}

namespace reconscope::controller::console {
class ScenarioPlayer;
}

namespace reconscope::controller::reconcile {
class Clock;
class ControllerLoop;
} // namespace reconscope::controller::reconcile

namespace reconscope::ui {

// What the console is connected to and watching, without any widget: the embedded cluster on a
// thread of its own (demo mode) or a kubeconfig's context, one RestClient, discovery, and one
// informer for the chosen resource feeding the lifecycle tracker and the resource table model.
// The embedded cluster is reached exactly like a real one: through the kubeconfig it wrote, over
// mTLS.
class ConsoleSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleSession)

public:
    static const controller::kube::ResourceRef CustomApps;

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
    void setResource(const controller::kube::DiscoveredResource &resource);
    // Demo mode runs the CustomApp operator against the embedded cluster (on by default; tests
    // that play the controller themselves turn it off before startDemo()).
    void setRunReconciler(bool run) { m_runReconciler = run; }
    // The embedded reconciler's loop, null when none runs.
    controller::reconcile::ControllerLoop *controllerLoop() const;
    // Demo mode plays the default scenario once connected (on by default).
    void setPlayScenario(bool play) { m_playScenario = play; }
    // The demo scenario player: loaded with the default scenario, sending through the session's
    // client in demo mode only (a real cluster is never written to by a scenario).
    controller::console::ScenarioPlayer *scenarioPlayer() const { return m_player; }
    // The informer's batch interval, ~30 ms by default.
    void setBatchInterval(int milliseconds) { m_batchIntervalMs = milliseconds; }
    // The time a large batch may hold the UI thread per event-loop turn before it yields, 16 ms
    // by default (0: one chunk of rows per turn, each a sorted run of its own).
    static constexpr qint64 DefaultTurnBudgetNs = 16'000'000;
    void setTurnBudget(std::chrono::nanoseconds budget) { m_turnBudgetNs = budget.count(); }
    // The first list's objects tracked and shown as it streams in (InformerStore::
    // setProgressiveFirstList) rather than once it is complete; for the next informer started.
    // Off by default: measured at 50k objects on two cores (the bench child with
    // RECONSCOPE_BENCH_PROGRESSIVE=1), the UI thread's share then competes with the list's
    // decoding and costs about twice the CPU (hashes and rows grown batch by batch, repaints), so
    // the table was complete later, not sooner, and the UI thread waited for a core longer.
    void setProgressiveFirstList(bool progressive) { m_progressiveFirstList = progressive; }

    bool isDemo() const { return m_demo; }
    bool isConnected() const { return m_client != nullptr; }
    const controller::kube::Kubeconfig &kubeconfig() const { return m_kubeconfig; }
    QString contextName() const { return m_config.contextName; }
    QString namespaceFilter() const { return m_namespace; }
    QString serverUrl() const { return m_config.server.toString(); }
    QString kubeconfigPath() const { return m_kubeconfigPath; }
    const controller::kube::DiscoveredResource &resource() const { return m_resource; }
    const models::LifecycleMapping &mapping() const { return m_mapping; }

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
                     controller::kube::RestClient::JsonCallback callback);

    // Create (POST) and update (PUT, with the resourceVersion the object carries) of an object,
    // refused the same way when writes are off. Namespace and name come from its metadata.
    void createObject(const controller::kube::ResourceRef &resource,
                      const nlohmann::json &object,
                      controller::kube::RestClient::JsonCallback callback);
    void updateObject(const controller::kube::ResourceRef &resource,
                      const nlohmann::json &object,
                      controller::kube::RestClient::JsonCallback callback);
    // Why a write would be refused now (not connected, writes disabled); nullopt when allowed.
    std::optional<controller::kube::ApiError> writeRefusal() const;

    const controller::kube::ClientConfig &clientConfig() const { return m_config; }
    controller::kube::RestClient *client() const { return m_client; }
    controller::kube::DiscoveryClient *discovery() const { return m_discovery; }
    controller::kube::InformerStore *informer() const { return m_informer; }
    controller::cluster::EmbeddedServer *embeddedServer() const;
    // Written by the prepare pool while a first list streams in (within an event-loop turn, while
    // the table model takes the rows before): read it from the session's signals or between
    // turns, never from a slot of the table model's own signals.
    const models::LifecycleTracker &tracker() const { return m_tracker; }
    models::ResourceTableModel *tableModel() const { return m_table; }
    controller::kube::ReflectorState connectionState() const;
    // Watch changes applied per second over the last second.
    double eventsPerSecond() const { return m_eventsPerSecond; }

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
    void connectTo(const controller::kube::ClientConfig &config);
    void restartInformer();
    void stopEmbeddedServer();
    void handleServerStarted(const QString &kubeconfigPath);
    void handleObjectsChanged(const QStringList &upserted, const QStringList &removed);
    void handleSynced();
    void handleRateTick();

    // A batch too large for one event-loop turn (the first list of a big resource): its rows are
    // built over several turns, sorted in the table's preferred order, then inserted a slice per
    // turn, so that the UI thread never stops for long and a sorting proxy places each slice as
    // one block. Later batches wait behind it, in order.
    struct PreparedRow
    {
        models::ResourceRow row;
        // Its upsert moved it, from `from` (-1: [*]) to the row's state at its stateSince: the
        // transition the tracker's log recorded, made again from the row when its slice is
        // inserted.
        bool moved = false;
        qint8 from = -1;
        // Shown and announced (objectsChanged) before: a first-list row taken back out of the
        // table to go in again in order; not announced again.
        bool announced = false;
        models::Transition transition() const;
    };
    struct PendingBatch
    {
        QStringList upserted;
        QStringList removed;
        QList<models::ObjectSummary> superseded; // InformerStore::statesSuperseded, tracked first
        qsizetype prepared = 0; // keys of `upserted` looked at
        std::vector<PreparedRow> rows;
        std::vector<std::uint32_t> order; // indexes of `rows`, in sorted runs
        std::vector<std::size_t> runs{ 0 }; // run boundaries in `order`
        std::size_t mergeAt = 0; // the next pair of runs to merge
        std::size_t inserted = 0; // rows inserted into the table
        // Part of the first list (delivered as it streams in, before the store is synced), and
        // the one that completed it.
        bool listing = false;
        bool closesList = false;
        // A first list into an empty table whose keys come in the order shown (names or
        // namespaces, as a list is ordered): each chunk of rows, derived and tracked on the pool,
        // goes into the table while the pool prepares the next one, instead of all rows being
        // built, then sorted, then inserted (streamInsert). `streamed`: prepared, not yet shown.
        bool streaming = false;
        std::vector<PreparedRow> streamed;
    };
    // Rows per slice of a large batch; a batch of at most this many rows is applied at once.
    static constexpr qsizetype SliceRows = 2000;
    void applyNow(const QStringList &upserted,
                  const QStringList &removed,
                  const QList<models::ObjectSummary> &superseded = {});
    // Runs the superseded states of a batch through the tracker, before its latest states.
    void trackSuperseded(const QList<models::ObjectSummary> &states,
                         const QDateTime &now,
                         QList<models::Transition> *transitions);
    void processPending();
    // Whether a first-list batch, sorted, goes after every row shown (so that the sorted proxy
    // takes it as one block at its end).
    bool listAppends(const PendingBatch &batch) const;
    // The first list's rows would land among those shown: the table gives its rows back and the
    // rest of the list joins the front batch, inserted in order once complete.
    void holdFirstList();
    // What a row of a large batch needs that involves no tracker: the store's entry, its verdict
    // and the row made from both (its times come from the tracker). Pure, so that the next chunk
    // of keys is derived on m_preparePool while this thread records the chunk before it.
    struct DerivedRow
    {
        const controller::kube::InformerEntry *entry = nullptr;
        models::LifecycleVerdict verdict;
        models::ResourceRow row;
    };
    static constexpr qsizetype ChunkRows = 512;
    static constexpr qsizetype FirstChunkRows = 64;
    void deriveRows(const QStringList &keys,
                    qsizetype from,
                    qsizetype to,
                    std::vector<DerivedRow> *out) const;
    // The chunk through the tracker (its transitions) into the batch's rows, in order.
    void recordRows(std::vector<DerivedRow> &derived, const QDateTime &now, PendingBatch *batch);
    // Whether a list's keys ("namespace/name") are in the table's preferred order (by name or
    // namespace; false for the other columns, which need the objects' states).
    bool keysInPreferredOrder(const QStringList &keys) const;
    // A chunk of a streaming batch, on the pool: each object's row derived and recorded by the
    // tracker, in order (the tracker is the pool's until the task is joined).
    void prepareRows(const QStringList &keys,
                     qsizetype from,
                     qsizetype to,
                     const QDateTime &now,
                     std::vector<PreparedRow> *out);
    // The streamed rows into the table, when they go after every row shown in the order shown
    // (false, nothing done, otherwise: the list is then held). Touches the table only, never the
    // tracker: it runs while the pool prepares the next chunk.
    bool streamInsert(PendingBatch &batch,
                      QStringList *announced,
                      QList<models::Transition> *transitions);
    // Rows put into the table announced (their keys, then the transitions they made); false when
    // a listener restarted the informer meanwhile: the batch being applied is gone.
    bool announce(const QStringList &keys, const QList<models::Transition> &transitions);
    // Work handed to the pool for the rest of a turn.
    class JoinedTask;
    // Joins the task the pool runs now, if any: before anything it reads or writes (the
    // informer's store, the mapping, the tracker) changes or goes.
    void joinRunningTask();
    models::ResourceRow buildRow(const controller::kube::InformerEntry &entry,
                                 const QDateTime &now,
                                 std::optional<models::Transition> *transition);

    void startReconciler();

    bool m_demo = false;
    bool m_runReconciler = true;
    bool m_playScenario = true;
    controller::console::ScenarioPlayer *m_player = nullptr;
    std::unique_ptr<controller::reconcile::Clock> m_clock;
    controller::operators::CustomAppOperator *m_operator = nullptr;
    controller::cluster::BackgroundCluster *m_embedded = nullptr;

    QString m_kubeconfigPath;
    controller::kube::Kubeconfig m_kubeconfig;
    controller::kube::ClientConfig m_config;
    controller::kube::RestClient *m_client = nullptr;
    controller::kube::DiscoveryClient *m_discovery = nullptr;
    controller::kube::InformerStore *m_informer = nullptr;
    controller::kube::DiscoveredResource m_resource;
    models::LifecycleMapping m_mapping;
    QString m_namespace;
    int m_batchIntervalMs = 30;
    qint64 m_turnBudgetNs = DefaultTurnBudgetNs;
    bool m_progressiveFirstList = false;
    QSet<QString> m_writableContexts;

    models::LifecycleTracker m_tracker;
    models::ResourceTableModel *m_table;
    QTimer *m_rateTimer;
    QTimer *m_pendingTimer;
    // One thread beside the UI thread for per-object work of large batches, within a turn: pure
    // derivation, and for a streamed first list also the tracker's records.
    QThreadPool *m_preparePool;
    JoinedTask *m_runningTask = nullptr;
    QList<models::ObjectSummary> m_superseded; // of the informer batch whose keys come next
    std::deque<PendingBatch> m_pending;
    quint64 m_informerGeneration = 0; // counts restarts: pending work of an older one is void
    // The first list is arriving (progressively: InformerStore::setProgressiveFirstList); its
    // batches are shown as they come while each goes after the rows shown, else held until
    // complete (m_listHeld).
    bool m_listing = false;
    bool m_listHeld = false;
    // The last first-list row shown, in the order it was sorted in (column, order).
    QString m_listTailKey;
    int m_listTailColumn = -1;
    Qt::SortOrder m_listTailOrder = Qt::AscendingOrder;
    qint64 m_eventsThisSecond = 0;
    double m_eventsPerSecond = 0;
};

} // namespace reconscope::ui
