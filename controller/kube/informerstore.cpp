#include "controller/kube/informerstore.h"

#include "controller/platform/allocator.h"

#include <QThread>
#include <QTimer>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ResourceRef;

namespace {

// A listed object made ready on the reflector's pool: summarised and compressed.
struct PreparedEntry final : PreparedObject
{
    InformerEntry entry;
};

} // namespace

// --- InformerWorker ------------------------------------------------------------------------

InformerWorker::InformerWorker(ClientConfig config,
                               ResourceRef resource,
                               QString namespace_,
                               models::LifecycleMapping mapping,
                               int batchIntervalMs,
                               InformerTransformFactory transform)
    : m_config(std::move(config))
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespace_))
    , m_mapping(std::move(mapping))
    , m_batchIntervalMs(batchIntervalMs)
    , m_makeTransform(std::move(transform))
{ }

InformerWorker::~InformerWorker() = default;

void InformerWorker::start()
{
    if (m_client)
        return;
    // Created here, on the worker's thread, so that the network and decoding live there.
    m_client = new RestClient(m_config, this);
    m_reflector = new Reflector(m_client, m_resource, m_namespace, this);
    m_transform = m_makeTransform(m_mapping);
    m_reflector->setListTransport(m_transform->listTransport());
    m_reflector->setPreparer(
        [transform = m_transform](QByteArrayView object,
                                  ObjectMeta *meta) -> std::shared_ptr<PreparedObject> {
            auto prepared = std::make_shared<PreparedEntry>();
            if (!transform->make(object, prepared->entry))
                return nullptr;
            const models::ObjectSummary &read = prepared->entry.summary;
            // The metadata the reflector needs, sharing the summary's strings.
            meta->name = read.name;
            meta->namespace_ = read.namespaceName;
            meta->uid = read.uid;
            meta->resourceVersion = read.resourceVersion;
            meta->generation = read.generation.value_or(0);
            meta->deleting = read.markedForDeletion;
            return prepared;
        });
    if (m_backoff)
        m_reflector->setBackoff(*m_backoff);
    // The first list's objects come over batch by batch as the pool prepares them, so that the
    // reflector's work on them (and freeing its batches) is done while the list streams in
    // rather than after its last byte. They reach the store batch by batch only when it asked for
    // that (the timer runs before the first sync only then), else all at once with the sync, as
    // a whole list (hashed then, at its exact size: hashFirstList).
    m_reflector->setProgressiveFirstList(true);
    m_timer = new QTimer(this);
    m_timer->setInterval(m_batchIntervalMs);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &InformerWorker::flush);
    connect(m_reflector, &Reflector::deltasReceived, this, &InformerWorker::handleDeltas);
    connect(m_reflector, &Reflector::listSynced, this, &InformerWorker::handleSynced);
    connect(m_reflector, &Reflector::stateChanged, this, &InformerWorker::stateChanged);
    m_reflector->start();
}

void InformerWorker::stop()
{
    if (m_reflector)
        m_reflector->stop();
    if (m_timer)
        m_timer->stop();
}

void InformerWorker::handleDeltas(const QList<Delta> &deltas)
{
    // Before the first sync, for a store that takes the first list whole: what arrives is that
    // list, batch by batch, and nothing of it is sent before the sync. A state it replaces came
    // from an attempt of the list that started over, never shown: not kept as superseded.
    const bool firstListWhole = !m_synced && !m_progressiveFirstList;
    if (firstListWhole) {
        if (holdFirstListPart(deltas))
            return;
        // Deletes before the sync (objects an abandoned attempt of the list delivered that the
        // list lacks): against the hash.
        hashFirstList();
    }
    // A relist's changes go in a batch of their own: live changes pending before it are sent
    // first, and the relist's as soon as it completes (handleSynced).
    if (m_synced && !m_relisting && m_reflector
        && m_reflector->state().phase == ReflectorState::Phase::Relisting) {
        if (m_timer->isActive()) {
            m_timer->stop();
            flush();
        }
        m_relisting = true;
    }
    // Grown by doubling, each growth one allocation instead of rehashing as it fills up.
    if (m_pendingUpserts.capacity() < m_pendingUpserts.size() + deltas.size()) {
        const qsizetype wanted
            = std::max(m_pendingUpserts.size() + deltas.size(), 2 * m_pendingUpserts.size());
        m_pendingUpserts.reserve(wanted);
        m_pendingOrder.reserve(wanted);
    }
    const QHash<QString, QString> &sentKeys = m_sent.hash();
    // Keys to take out of m_pendingOrder, all in one pass (a restarted list can delete many).
    QSet<QString> unordered;
    const auto dropUnordered = [this, &unordered] {
        if (unordered.isEmpty())
            return;
        m_pendingOrder.removeIf(
            [&unordered](const QString &key) { return unordered.contains(key); });
        unordered.clear();
    };
    for (const Delta &delta : deltas) {
        // A prepared entry's summary has the key already (the preparer filled meta from it).
        const QString key = delta.prepared
                && !static_cast<const PreparedEntry &>(*delta.prepared).entry.summary.key.isEmpty()
            ? static_cast<const PreparedEntry &>(*delta.prepared).entry.summary.key
            : delta.meta.key();
        if (delta.type == Delta::Type::Delete) {
            const bool sent = sentKeys.contains(key);
            if (const auto pending = m_pendingUpserts.constFind(key);
                pending != m_pendingUpserts.cend()) {
                // A state the store never got: kept for transition followers when the removal
                // will be sent; an object created and deleted within one tick is not shown, nor
                // are the states of it superseded earlier in the tick.
                if (sent) {
                    m_pendingSuperseded.append(pending->summary);
                } else if (!m_pendingSuperseded.isEmpty()) {
                    m_pendingSuperseded.removeIf(
                        [&key](const models::ObjectSummary &state) { return state.key == key; });
                }
                m_pendingUpserts.erase(pending);
                unordered.insert(key);
            }
            if (sent)
                m_pendingRemovals.insert(key);
            continue;
        }
        // A relist repeats unchanged objects: skip what the store already has.
        // (An object the store does not have is never skipped, even without a resourceVersion.)
        if (const auto sent = sentKeys.constFind(key); sent != sentKeys.cend()
            && *sent == delta.meta.resourceVersion && !m_pendingRemovals.contains(key)
            && !m_pendingUpserts.contains(key)) {
            continue;
        }
        // A prepared entry (made by the transform on the pool) is moved once, into the pending
        // hash.
        InformerEntry built;
        InformerEntry *entry
            = delta.prepared ? &static_cast<PreparedEntry &>(*delta.prepared).entry : &built;
        if (!delta.prepared && !m_transform->make(delta.object, built))
            continue; // no metadata.name: nothing a table could show
        if (entry->summary.key.isEmpty())
            continue; // the preparer could not summarise it
        // The summary's key (equal to the delta's) so that the hashes share one string.
        const QString stored = entry->summary.key == key ? entry->summary.key : key;
        m_pendingRemovals.remove(stored);
        if (unordered.contains(stored))
            dropUnordered(); // before the key goes back in at the end
        // One lookup: the slot is made empty when the key is new, else it holds the state this
        // one supersedes.
        const qsizetype pendingBefore = m_pendingUpserts.size();
        InformerEntry &slot = m_pendingUpserts[stored];
        if (m_pendingUpserts.size() != pendingBefore)
            m_pendingOrder << stored;
        else if (!firstListWhole)
            m_pendingSuperseded.append(std::move(slot.summary));
        slot = std::move(*entry); // moved: insert() would copy
    }
    dropUnordered();
    if (!m_timer->isActive() && !firstListWhole)
        m_timer->start();
}

bool InformerWorker::holdFirstListPart(const QList<Delta> &deltas)
{
    // Its objects wait in list order, moved out of the pool's prepared objects (whose memory goes
    // back meanwhile) into chunks, to be hashed once at the sync at their exact number: hashing
    // them here as they come would rehash the growing hash again and again (each entry moved and
    // its key hashed once more per doubling), more work than the tail it would save.
    const bool deletes = std::any_of(deltas.cbegin(), deltas.cend(), [](const Delta &delta) {
        return delta.type == Delta::Type::Delete;
    });
    if (deletes)
        return false;
    for (const Delta &delta : deltas) {
        // Not made on the pool (no prepared object): nothing a table could show.
        if (!delta.prepared)
            continue;
        InformerEntry &entry = static_cast<PreparedEntry &>(*delta.prepared).entry;
        if (entry.summary.key.isEmpty())
            continue;
        if (m_firstList.isEmpty() || m_firstList.last().size() == FirstListChunk) {
            m_firstList.emplaceBack();
            m_firstList.last().reserve(FirstListChunk);
        }
        m_firstList.last().emplaceBack(std::move(entry));
    }
    return true;
}

void InformerWorker::hashFirstList()
{
    QList<QList<InformerEntry>> chunks = std::exchange(m_firstList, {});
    if (chunks.isEmpty())
        return;
    qsizetype count = 0;
    for (const QList<InformerEntry> &chunk : std::as_const(chunks))
        count += chunk.size();
    // Reserved once at the size it will have (at most: a key can come twice when the list
    // started over), then each entry moved in with one lookup; a key met again keeps its first
    // place and takes the later state (no superseded state: the store never had the first).
    m_pendingUpserts.reserve(m_pendingUpserts.size() + count);
    m_pendingOrder.reserve(m_pendingOrder.size() + count);
    // The keys' characters (hashed first) are fetched a few entries ahead.
    constexpr qsizetype KeyAhead = 4;
    for (QList<InformerEntry> &chunk : chunks) {
        for (qsizetype i = 0; i < chunk.size(); ++i) {
            if (i + KeyAhead < chunk.size())
                __builtin_prefetch(chunk[i + KeyAhead].summary.key.constData());
            InformerEntry &entry = chunk[i];
            const qsizetype before = m_pendingUpserts.size();
            const auto it = m_pendingUpserts.emplace(entry.summary.key, std::move(entry));
            if (m_pendingUpserts.size() != before)
                m_pendingOrder << it.key();
        }
        // Freed at once: the hash's next entries take its memory, written to already, instead
        // of pages the system has to fault in.
        chunk = QList<InformerEntry>();
    }
}

void InformerWorker::handleSynced(const QString &resourceVersion)
{
    m_resourceVersion = resourceVersion;
    if (!m_synced) {
        hashFirstList();
        m_synced = true;
        m_syncedPending = true;
        // The cache is complete: hand it over now rather than at the next tick.
        m_timer->stop();
        flush();
        return;
    }
    if (m_relisting) {
        m_timer->stop();
        flush();
        return;
    }
    if (!m_timer->isActive())
        m_timer->start();
}

void InformerWorker::flush()
{
    InformerBatch batch;
    // The store is empty: hand it a whole hash rather than entries to insert one by one there.
    QHash<QString, QString> &sentKeys = m_sent.hash();
    batch.replaces = sentKeys.isEmpty() && !m_pendingOrder.isEmpty();
    if (batch.replaces) {
        batch.replacement = std::exchange(m_pendingUpserts, {});
        batch.upsertedKeys = std::exchange(m_pendingOrder, {});
    } else {
        batch.upserts.reserve(m_pendingOrder.size());
    }
    for (const QString &key : batch.replaces ? QStringList() : m_pendingOrder) {
        InformerEntry entry = m_pendingUpserts.take(key);
        sentKeys.insert(key, entry.summary.resourceVersion);
        batch.upserts.append(std::move(entry));
    }
    for (const QString &key : std::as_const(m_pendingRemovals)) {
        sentKeys.remove(key);
        batch.removals << key;
    }
    batch.removals.sort();
    batch.superseded = std::exchange(m_pendingSuperseded, {});
    m_pendingOrder.clear();
    m_pendingUpserts.clear();
    m_pendingRemovals.clear();
    batch.synced = m_synced;
    batch.relisted = std::exchange(m_relisting, false);
    batch.resourceVersion = m_reflector ? m_reflector->resourceVersion() : m_resourceVersion;
    const bool announceSync = std::exchange(m_syncedPending, false);
    if (batch.upserts.isEmpty() && batch.removals.isEmpty() && !batch.replaces && !announceSync)
        return;
    // What the store will have, noted after the batch is on its way (the UI thread only reads
    // the hash meanwhile; it is changed again only by a later batch of this thread).
    const QHash<QString, InformerEntry> replacement = batch.replacement;
    auto sent = std::make_shared<InformerBatch>(std::move(batch));
    emit batchReady(sent);
    sent.reset();
    // A whole list (the first) is noted as a list, hashed later (or on first use): hashing it
    // now would take a core from the UI thread applying it.
    if (!replacement.isEmpty()) {
        QList<std::pair<QString, QString>> sentNow;
        sentNow.reserve(replacement.size());
        for (auto it = replacement.cbegin(); it != replacement.cend(); ++it)
            sentNow.emplaceBack(it.key(), it->summary.resourceVersion);
        m_sent.note(std::move(sentNow));
        QTimer::singleShot(HashNotedLaterMs, this, [this] { m_sent.hash(); });
    }
    // The first list's buffers (the response, its split items) are freed by now but stay in
    // the heap's free lists.
    if (announceSync)
        platform::noteLargeBuffersFreed();
}

// --- InformerStore -------------------------------------------------------------------------

InformerStore::InformerStore(ClientConfig config,
                             ResourceRef resource,
                             QString namespace_,
                             models::LifecycleMapping mapping,
                             QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespace_))
    , m_mapping(std::move(mapping))
{
    qRegisterMetaType<std::shared_ptr<InformerBatch>>();
    qRegisterMetaType<ReflectorState>();
}

InformerStore::~InformerStore()
{
    stop();
}

void InformerStore::start()
{
    if (m_thread)
        return;
    m_thread = new QThread(this);
    m_thread->setObjectName(u"informer:"_s + m_resource.plural);
    m_worker = new InformerWorker(
        m_config, m_resource, m_namespace, m_mapping, m_batchIntervalMs, m_transform);
    m_worker->setBackoff(m_backoff);
    m_worker->setProgressiveFirstList(m_progressiveFirstList);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &InformerWorker::batchReady, this, &InformerStore::handleBatch);
    connect(m_worker, &InformerWorker::stateChanged, this, [this](const ReflectorState &state) {
        m_state = state;
        emit connectionStateChanged(state);
    });
    m_thread->start();
    QMetaObject::invokeMethod(m_worker, &InformerWorker::start, Qt::QueuedConnection);
}

void InformerStore::stop()
{
    if (!m_thread)
        return;
    m_worker->disconnect(this);
    QMetaObject::invokeMethod(m_worker, &InformerWorker::stop, Qt::BlockingQueuedConnection);
    m_thread->requestInterruption();
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_worker = nullptr; // deleted by the thread's finished signal
}

const InformerEntry *InformerStore::entry(const QString &key) const
{
    const auto it = m_entries.constFind(key);
    return it == m_entries.cend() ? nullptr : &it.value();
}

void InformerStore::handleBatch(const std::shared_ptr<InformerBatch> &shared)
{
    InformerBatch &batch = *shared;
    // The worker dropped its reference when it sent the batch: the store is its only owner
    // then, and takes the entries instead of copying them (each copy touches every string of a
    // summary).
    const bool owned = shared.use_count() == 1;
    QStringList upserted;
    if (batch.replaces) {
        if (m_entries.isEmpty()) {
            m_entries = owned ? std::move(batch.replacement) : batch.replacement;
        } else {
            m_entries.reserve(m_entries.size() + batch.replacement.size());
            for (auto it = batch.replacement.cbegin(); it != batch.replacement.cend(); ++it)
                m_entries.insert(it.key(), it.value());
        }
        upserted = batch.upsertedKeys;
    }
    upserted.reserve(upserted.size() + batch.upserts.size());
    if (!batch.upserts.isEmpty())
        m_entries.reserve(m_entries.size() + batch.upserts.size());
    for (InformerEntry &entry : batch.upserts) {
        const QString key = entry.summary.key;
        upserted << key;
        if (owned)
            m_entries.emplace(key, std::move(entry)); // (insert() takes a const reference)
        else
            m_entries.insert(key, entry);
    }
    for (const QString &key : std::as_const(batch.removals))
        m_entries.remove(key);
    m_resourceVersion = batch.resourceVersion;
    const bool newlySynced = batch.synced && !m_synced;
    m_synced = m_synced || batch.synced;
    if (!batch.superseded.isEmpty())
        emit statesSuperseded(batch.superseded);
    if (batch.relisted && (!upserted.isEmpty() || !batch.removals.isEmpty()))
        emit relisted();
    if (!upserted.isEmpty() || !batch.removals.isEmpty())
        emit objectsChanged(upserted, batch.removals);
    if (newlySynced)
        emit synced();
}

} // namespace reconscope::controller::kube
