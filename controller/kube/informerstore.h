#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/kube/fastlist/lazyhash.h"
#include "controller/kube/informertransform.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

class QThread;
class QTimer;

namespace reconscope::controller::kube {

// What changed since the last batch: the latest state of each upserted key and the removed keys.
// A key appears in at most one of the two lists.
struct InformerBatch
{
    QList<InformerEntry> upserts;
    QStringList removals;
    bool synced = false; // the cache is complete (a list finished) as of this batch
    QString resourceVersion;
    // Set when the store was empty (the first list): every upsert is in `replacement`, the hash
    // the store takes as it is (built on the informer's thread, so applying a 50k-object list
    // costs the UI thread no inserts), and upsertedKeys lists them in list order; upserts is empty.
    bool replaces = false;
    QHash<QString, InformerEntry> replacement;
    QStringList upsertedKeys;
    // The states a later change in the same batch replaced (an object created and given a status
    // within one tick), in the order they arrived: the store keeps only the latest, but whoever
    // follows transitions must see each state the watch delivered.
    QList<models::ObjectSummary> superseded;
    // The changes a relist found after a watch gap (410 Gone), alone in their batch: what became
    // of the objects while nothing was watched, not live moves.
    bool relisted = false;
};

// Runs on the informer's thread: owns the RestClient and the Reflector, makes every object's entry
// through the transform (listed objects on the reflector's pool, watch events here), coalesces
// changes per key and emits one batch per tick.
class InformerWorker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InformerWorker)

public:
    InformerWorker(ClientConfig config,
                   apimachinery::ResourceRef resource,
                   QString namespace_,
                   models::LifecycleMapping mapping,
                   int batchIntervalMs,
                   InformerTransformFactory transform);
    ~InformerWorker() override;

    // Before start(): the reflector's retry backoff (client-go's when unset).
    void setBackoff(std::optional<Backoff::Parameters> parameters) { m_backoff = parameters; }
    // Before start(): the first list reaches the store batch by batch as it streams in
    // (Reflector::setProgressiveFirstList).
    void setProgressiveFirstList(bool progressive) { m_progressiveFirstList = progressive; }
    void start();
    void stop();

signals:
    // Shared and not kept by the worker once sent: the store, its only owner by the time it
    // handles the batch, moves the entries out instead of copying them.
    void batchReady(const std::shared_ptr<reconscope::controller::kube::InformerBatch> &batch);
    void stateChanged(const reconscope::controller::kube::ReflectorState &state);

private:
    void handleDeltas(const QList<Delta> &deltas);
    void handleSynced(const QString &resourceVersion);
    // Before the first sync, for a store that takes the first list whole: keeps the deltas'
    // entries in m_firstList, in list order; false (nothing kept) when they include deletes.
    bool holdFirstListPart(const QList<Delta> &deltas);
    // Moves the first list's objects (m_firstList) into the pending hash.
    void hashFirstList();
    void flush();

    ClientConfig m_config;
    apimachinery::ResourceRef m_resource;
    QString m_namespace;
    models::LifecycleMapping m_mapping;
    int m_batchIntervalMs;
    std::optional<Backoff::Parameters> m_backoff;
    bool m_progressiveFirstList = false;
    RestClient *m_client = nullptr;
    Reflector *m_reflector = nullptr;
    QTimer *m_timer = nullptr;
    InformerTransformFactory m_makeTransform;
    std::shared_ptr<const InformerTransform> m_transform; // made by start()
    // key -> resourceVersion the store has (a first list's noted when it is sent, hashed a while
    // later or on first use).
    LazyHash<QString, QString> m_sent;
    // The first list so far (for a store that takes it whole), in list order, in chunks of
    // ~100 KB (each freed as soon as it is hashed, at the sync).
    QList<QList<InformerEntry>> m_firstList;
    static constexpr qsizetype FirstListChunk = 256;
    QHash<QString, InformerEntry> m_pendingUpserts;
    QStringList m_pendingOrder;
    QSet<QString> m_pendingRemovals;
    QList<models::ObjectSummary> m_pendingSuperseded;
    bool m_syncedPending = false;
    bool m_synced = false;
    bool m_relisting = false; // the pending changes are a relist's
    QString m_resourceVersion;
};

// The UI-side cache of one resource (client-go's informer + indexer): started, it lists and
// watches on its own thread and applies changes in batches (one signal per 16-50 ms tick at most),
// so a 50k-object list never blocks the UI thread.
class InformerStore final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InformerStore)

public:
    InformerStore(ClientConfig config,
                  apimachinery::ResourceRef resource,
                  QString namespace_ = {},
                  models::LifecycleMapping mapping = models::LifecycleMapping::defaults(),
                  QObject *parent = nullptr);
    ~InformerStore() override;

    void setBatchInterval(int milliseconds) { m_batchIntervalMs = milliseconds; }
    // Before start(): the reflector's retry backoff (client-go's when unset).
    void setBackoff(std::optional<Backoff::Parameters> parameters) { m_backoff = parameters; }
    // Before start(): objects of the first list appear (objectsChanged) as it streams in, before
    // synced(), instead of all at once with it.
    void setProgressiveFirstList(bool progressive) { m_progressiveFirstList = progressive; }
    // Before start(): what the store keeps of each object (compactTransform() unless set).
    void setTransform(InformerTransformFactory transform) { m_transform = std::move(transform); }
    void start();
    void stop();

    bool hasSynced() const { return m_synced; }
    QString resourceVersion() const { return m_resourceVersion; }
    ReflectorState state() const { return m_state; }
    qsizetype size() const { return m_entries.size(); }
    QStringList keys() const { return m_entries.keys(); }
    const InformerEntry *entry(const QString &key) const;
    const QHash<QString, InformerEntry> &entries() const { return m_entries; }

signals:
    // Just before the objectsChanged of the same batch: states of upserted or removed keys that a
    // later change within the batch replaced, oldest first (InformerBatch::superseded).
    void statesSuperseded(const QList<reconscope::models::ObjectSummary> &states);
    // After the batch is applied to entries(): upserted keys (new or changed) and removed keys.
    void objectsChanged(const QStringList &upserted, const QStringList &removed);
    // Just before the objectsChanged of a batch that a relist after a watch gap found
    // (InformerBatch::relisted): those changes happened while nothing was watched.
    void relisted();
    void synced();
    void connectionStateChanged(const reconscope::controller::kube::ReflectorState &state);

private:
    void handleBatch(const std::shared_ptr<InformerBatch> &batch);

    ClientConfig m_config;
    apimachinery::ResourceRef m_resource;
    QString m_namespace;
    models::LifecycleMapping m_mapping;
    int m_batchIntervalMs = 33;
    std::optional<Backoff::Parameters> m_backoff;
    bool m_progressiveFirstList = false;
    InformerTransformFactory m_transform = compactTransform();
    QThread *m_thread = nullptr;
    InformerWorker *m_worker = nullptr;
    QHash<QString, InformerEntry> m_entries;
    bool m_synced = false;
    QString m_resourceVersion;
    ReflectorState m_state;
};

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(std::shared_ptr<reconscope::controller::kube::InformerBatch>)
