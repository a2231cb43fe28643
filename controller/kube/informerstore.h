#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/kube/compactjson.h"
#include "controller/kube/lazyhash.h"
#include "controller/kube/objectsummarizer.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/kube/stringpool.h"
#include "models/lifecyclemapping.h"
#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

class QThread;
class QTimer;

namespace reconscope::controller::kube {

// One cached object: the summary the UI needs, and the raw JSON for whoever wants the full object
// (kept compressed: it is most of a big list's bytes and read only for detail views and
// reconciles).
struct InformerEntry
{
    models::ObjectSummary summary;
    CompactJson raw;

    // The object's JSON exactly as the server sent it.
    QByteArray rawJson() const { return raw.bytes(); }
    // The full object, parsed on demand (null when the bytes are not valid JSON).
    nlohmann::json json() const;
};

} // namespace reconscope::controller::kube

// Its members (strings, times, optionals of integers, lists, maps, a QByteArray and a shared_ptr)
// may be moved in memory as bytes: the hashes of entries then grow their spans with memcpy instead
// of moving each entry (for a 50k-object first list, a third of the worker's time hashing it was
// entries moved from a span's storage to its grown storage). A member added to ObjectSummary or
// CompactJson that points into itself (std::string, std::map) would have to go before this.
Q_DECLARE_TYPEINFO(reconscope::controller::kube::InformerEntry, Q_RELOCATABLE_TYPE);

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
};

// Runs on the informer's thread: owns the RestClient and the Reflector, projects every object
// into an ObjectSummary there, coalesces changes per key and emits one batch per tick.
class InformerWorker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InformerWorker)

public:
    InformerWorker(ClientConfig config,
                   ResourceRef resource,
                   QString namespace_,
                   models::LifecycleMapping mapping,
                   int batchIntervalMs);
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
    // Moves the first list's objects (m_firstList) into the pending hash.
    void hashFirstList();
    void flush();

    ClientConfig m_config;
    ResourceRef m_resource;
    QString m_namespace;
    models::LifecycleMapping m_mapping;
    int m_batchIntervalMs;
    std::optional<Backoff::Parameters> m_backoff;
    bool m_progressiveFirstList = false;
    RestClient *m_client = nullptr;
    Reflector *m_reflector = nullptr;
    QTimer *m_timer = nullptr;
    std::shared_ptr<const ObjectSummarizer> m_summarizer;
    // The compression dictionary: the first object this informer sees (preparers share it).
    struct DictionarySlot
    {
        std::shared_ptr<const CompactJsonDictionary> get(QByteArrayView sample);
        QMutex mutex;
        bool tried = false;
        std::shared_ptr<const CompactJsonDictionary> dictionary;
    };
    std::shared_ptr<DictionarySlot> m_dictionary;

    // Equal strings of the summaries shared (interned on the pool while a list streams in).
    std::shared_ptr<StringPool> m_strings;
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
                  ResourceRef resource,
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
    void synced();
    void connectionStateChanged(const reconscope::controller::kube::ReflectorState &state);

private:
    void handleBatch(const std::shared_ptr<InformerBatch> &batch);

    ClientConfig m_config;
    ResourceRef m_resource;
    QString m_namespace;
    models::LifecycleMapping m_mapping;
    int m_batchIntervalMs = 33;
    std::optional<Backoff::Parameters> m_backoff;
    bool m_progressiveFirstList = false;
    QThread *m_thread = nullptr;
    InformerWorker *m_worker = nullptr;
    QHash<QString, InformerEntry> m_entries;
    bool m_synced = false;
    QString m_resourceVersion;
    ReflectorState m_state;
};

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(std::shared_ptr<reconscope::controller::kube::InformerBatch>)
