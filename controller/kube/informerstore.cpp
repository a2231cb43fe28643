#include "controller/kube/informerstore.h"

#include <QThread>
#include <QTimer>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

nlohmann::json InformerEntry::json() const
{
    auto parsed = nlohmann::json::parse(raw.begin(), raw.end(), nullptr, false);
    if (parsed.is_discarded())
        return nullptr;
    return parsed;
}

// --- InformerWorker ------------------------------------------------------------------------

InformerWorker::InformerWorker(ClientConfig config,
                               ResourceRef resource,
                               QString namespace_,
                               models::LifecycleMapping mapping,
                               int batchIntervalMs)
    : m_config(std::move(config))
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespace_))
    , m_mapping(std::move(mapping))
    , m_batchIntervalMs(batchIntervalMs)
{ }

InformerWorker::~InformerWorker() = default;

void InformerWorker::start()
{
    if (m_client)
        return;
    // Created here, on the worker's thread, so that the network and decoding live there.
    m_client = new RestClient(m_config, this);
    m_reflector = new Reflector(m_client, m_resource, m_namespace, this);
    if (m_backoff)
        m_reflector->setBackoff(*m_backoff);
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
    for (const Delta &delta : deltas) {
        const QString key = delta.meta.key();
        if (delta.type == Delta::Type::Delete) {
            if (m_pendingUpserts.remove(key))
                m_pendingOrder.removeOne(key);
            if (m_sent.contains(key))
                m_pendingRemovals.insert(key);
            continue;
        }
        // A relist repeats unchanged objects: skip what the store already has.
        if (m_sent.value(key) == delta.meta.resourceVersion && !m_pendingRemovals.contains(key)
            && !m_pendingUpserts.contains(key)) {
            continue;
        }
        auto summary = models::ObjectSummary::fromBytes(delta.object, m_mapping);
        if (!summary)
            continue; // no metadata.name: nothing a table could show
        InformerEntry entry{ std::move(summary.value()), delta.object };
        m_pendingRemovals.remove(key);
        if (!m_pendingUpserts.contains(key))
            m_pendingOrder << key;
        m_pendingUpserts.insert(key, std::move(entry));
    }
    if (!m_timer->isActive())
        m_timer->start();
}

void InformerWorker::handleSynced(const QString &resourceVersion)
{
    m_resourceVersion = resourceVersion;
    if (!m_synced) {
        m_synced = true;
        m_syncedPending = true;
    }
    if (!m_timer->isActive())
        m_timer->start();
}

void InformerWorker::flush()
{
    InformerBatch batch;
    batch.upserts.reserve(m_pendingOrder.size());
    for (const QString &key : std::as_const(m_pendingOrder)) {
        InformerEntry entry = m_pendingUpserts.take(key);
        m_sent.insert(key, entry.summary.resourceVersion);
        batch.upserts.append(std::move(entry));
    }
    for (const QString &key : std::as_const(m_pendingRemovals)) {
        m_sent.remove(key);
        batch.removals << key;
    }
    batch.removals.sort();
    m_pendingOrder.clear();
    m_pendingUpserts.clear();
    m_pendingRemovals.clear();
    batch.synced = m_synced;
    batch.resourceVersion = m_reflector ? m_reflector->resourceVersion() : m_resourceVersion;
    const bool announceSync = std::exchange(m_syncedPending, false);
    if (batch.upserts.isEmpty() && batch.removals.isEmpty() && !announceSync)
        return;
    emit batchReady(batch);
#ifdef __GLIBC__
    // The first list's buffers (the response, its split items) are freed by now but stay in
    // the heap's free lists; give them back, here on the worker's thread rather than the UI's.
    if (announceSync) {
        batch = {};
        malloc_trim(0);
    }
#endif
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
    qRegisterMetaType<InformerBatch>();
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
    m_worker = new InformerWorker(m_config, m_resource, m_namespace, m_mapping, m_batchIntervalMs);
    m_worker->setBackoff(m_backoff);
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

void InformerStore::handleBatch(const InformerBatch &batch)
{
    QStringList upserted;
    upserted.reserve(batch.upserts.size());
    for (const InformerEntry &entry : batch.upserts) {
        upserted << entry.summary.key;
        m_entries.insert(entry.summary.key, entry);
    }
    for (const QString &key : batch.removals)
        m_entries.remove(key);
    m_resourceVersion = batch.resourceVersion;
    const bool newlySynced = batch.synced && !m_synced;
    m_synced = m_synced || batch.synced;
    if (!upserted.isEmpty() || !batch.removals.isEmpty())
        emit objectsChanged(upserted, batch.removals);
    if (newlySynced)
        emit synced();
}

} // namespace reconscope::controller::kube
