#include "controller/kube/reflector.h"

#include "controller/platform/allocator.h"

#include <spdlog/spdlog.h>

#include <QMutex>
#include <QRandomGenerator>
#include <QSemaphore>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <vector>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;
using apimachinery::ListOptions;
using apimachinery::ResourceRef;
using apimachinery::WatchOptions;

QString ReflectorState::toString() const
{
    switch (phase) {
    case Phase::Idle:
        return u"stopped"_s;
    case Phase::Listing:
        return u"listing"_s;
    case Phase::Watching:
        return u"watching"_s;
    case Phase::Relisting:
        return u"relisting"_s;
    case Phase::Reconnecting:
        return u"reconnecting in %1 s"_s.arg((retryInMs + 999) / 1000);
    }
    return {};
}

Reflector::Reflector(RestClient *client, ResourceRef resource, QString namespace_, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespace_))
    , m_clock([] { return std::chrono::steady_clock::now(); })
    , m_random([] { return QRandomGenerator::global()->generateDouble(); })
{
    m_scheduler = [this](std::chrono::milliseconds delay, std::function<void()> action) {
        QTimer::singleShot(delay, this, std::move(action));
    };
}

// One streaming list with a preparer: items are copied into batches of about 1 MB as they
// arrive, each batch is prepared on the pool, and the results are taken in list order as the
// batches are done (so that little is left to do once the last byte is in).
struct Reflector::ListBatch
{
    QByteArray bytes; // the items back to back, freed once prepared
    QList<qsizetype> ends; // where each item ends in bytes
    QList<ObjectMeta> metas;
    QList<bool> valid; // ObjectMeta::peek accepted the item
    QList<std::shared_ptr<PreparedObject>> results;
    bool done = false; // prepared (set on the reflector's thread)
};

struct Reflector::ListRun
{
    using Batch = ListBatch;
    static constexpr qsizetype BatchBytes = 1 << 20;
    static constexpr qsizetype BatchItems = 256;

    quint64 generation = 0;
    // Batch buffers prepared and handed back for the next batches: a list's batches reuse a few
    // buffers instead of each taking fresh pages from the system (and giving them back).
    struct Spare
    {
        QMutex mutex;
        QList<QByteArray> buffers;
    };
    std::shared_ptr<Spare> spare = std::make_shared<Spare>();
    QByteArray takeBuffer()
    {
        {
            QMutexLocker locker(&spare->mutex);
            if (!spare->buffers.isEmpty())
                return spare->buffers.takeLast();
        }
        QByteArray buffer;
        buffer.reserve(BatchBytes + 64 * 1024);
        return buffer;
    }
    static void giveBack(Spare &spare, QByteArray &&buffer)
    {
        // At most what the pool holds at once; an outsized one (a huge item) is not kept.
        if (buffer.isDetached() && buffer.capacity() <= 4 * BatchBytes) {
            buffer.resize(0);
            QMutexLocker locker(&spare.mutex);
            if (spare.buffers.size() < 16) {
                spare.buffers.append(std::move(buffer));
                return;
            }
        }
        buffer = QByteArray();
    }
    std::vector<std::shared_ptr<Batch>> batches;
    std::shared_ptr<Batch> filling;
    int pending = 0; // batches submitted and not done yet
    size_t taken = 0; // batches[0, taken) are in deltas
    QList<Delta> deltas; // the prepared items so far, in list order
    // The keys and resourceVersions of the items taken so far, in list order: noted as each
    // batch is taken, while the rest of the list streams in, rather than after its last byte.
    QList<KnownEntry> delivered;
    // The first list, delivered as it is taken: `deltas` is emitted after each take(), and
    // `delivered` is then what this attempt delivered (known for good when it is abandoned).
    bool progressive = false;
    std::optional<ListPage> page; // the list's answer, once every page has arrived

    void restart()
    {
        batches.clear();
        filling.reset();
        {
            QMutexLocker locker(&spare->mutex);
            spare->buffers.clear();
        }
        taken = 0;
        deltas.clear();
        delivered.clear();
    }
    // Moves the results of the batches done, in order, into deltas.
    void take()
    {
        while (taken < batches.size() && batches[taken]->done) {
            Batch &batch = *batches[taken];
            for (qsizetype i = 0; i < batch.metas.size(); ++i) {
                if (!batch.valid[i])
                    continue;
                Delta delta;
                delta.meta = std::move(batch.metas[i]);
                delta.prepared = std::move(batch.results[i]);
                delivered.emplaceBack(knownKey(delta.meta), delta.meta.resourceVersion);
                deltas.append(std::move(delta));
            }
            batches[taken].reset();
            ++taken;
        }
    }
};

Reflector::~Reflector()
{
    // Tasks on the pool post back to this object: let them end while it is whole.
    if (m_pool)
        m_pool->waitForDone();
    stop();
}

void Reflector::start()
{
    if (m_running)
        return;
    m_running = true;
    ++m_generation;
    list();
}

void Reflector::stop()
{
    if (!m_running)
        return;
    m_running = false;
    ++m_generation;
    if (m_listRun) {
        // What a progressive first list delivered stays known: listed again after start(), the
        // objects gone meanwhile come as deletes.
        keepDelivered(*m_listRun);
        m_listRun->progressive = false;
        m_listRun.reset();
    }
    if (m_watch) {
        m_watch->stop();
        m_watch->deleteLater();
        m_watch = nullptr;
    }
    setPhase(ReflectorState::Phase::Idle);
}

void Reflector::setPhase(ReflectorState::Phase phase, int retryInMs, const QString &error)
{
    m_state.phase = phase;
    m_state.retryInMs = retryInMs;
    if (!error.isEmpty() || phase == ReflectorState::Phase::Watching)
        m_state.lastError = error;
    spdlog::debug("reflector {}: {}{}{}",
                  m_resource.collectionPath(m_namespace).toStdString(),
                  m_state.toString().toStdString(),
                  error.isEmpty() ? "" : " after: ",
                  error.toStdString());
    emit stateChanged(m_state);
}

void Reflector::list()
{
    if (!m_running)
        return;
    setPhase(m_synced ? ReflectorState::Phase::Relisting : ReflectorState::Phase::Listing,
             0,
             m_state.lastError);
    ListOptions options;
    options.limit = DefaultListPageSize;
    options.labelSelector = m_labelSelector;
    options.fieldSelector = m_fieldSelector;
    // client-go's relistResourceVersion.
    if (m_lastSyncUnavailable)
        options.resourceVersion = QString();
    else if (m_lastSyncResourceVersion.isEmpty())
        options.resourceVersion = u"0"_s;
    else
        options.resourceVersion = m_lastSyncResourceVersion;
    const quint64 generation = m_generation;
    QPointer<Reflector> self(this);
    std::shared_ptr<ListRun> run;
    ListStream stream;
    stream.transport = m_listTransport;
    if (m_preparer) {
        ensurePool();
        run = std::make_shared<ListRun>();
        run->generation = generation;
        stream.onItem = [self, run](QByteArrayView item) {
            if (!self || self->m_generation != run->generation)
                return;
            if (!run->filling) {
                run->filling = std::make_shared<ListRun::Batch>();
                run->filling->bytes = run->takeBuffer();
            }
            run->filling->bytes.append(item.data(), item.size());
            run->filling->ends.append(run->filling->bytes.size());
            if (run->filling->bytes.size() >= ListRun::BatchBytes
                || run->filling->ends.size() >= ListRun::BatchItems) {
                self->submitBatch(run);
            }
        };
        run->progressive = m_progressiveFirstList && !m_synced && m_known.isEmpty();
        m_listRun = run;
        stream.onRestart = [self, run] {
            if (self && self->m_generation == run->generation)
                self->keepDelivered(*run);
            run->restart();
        };
    }
    m_client->list(
        m_resource,
        m_namespace,
        options,
        [self, generation, run](models::Result<ListPage, ApiError> result) {
            if (self && self->m_running && self->m_generation == generation)
                self->handleList(std::move(result), run);
        },
        std::move(stream));
}

void Reflector::ensurePool()
{
    if (m_pool)
        return;
    m_pool = std::make_unique<QThreadPool>();
    m_pool->setObjectName(u"reflector-prepare"_s);
    m_slots = std::make_shared<QSemaphore>(2 * std::max(1, m_pool->maxThreadCount()) + 2);
}

void Reflector::submitBatch(const std::shared_ptr<ListRun> &run)
{
    std::shared_ptr<ListRun::Batch> batch = std::exchange(run->filling, nullptr);
    if (!batch)
        return;
    run->batches.push_back(batch);
    ++run->pending;
    // Backpressure: at most a few batches wait for the pool; past that the client's thread waits
    // here (so it stops reading the socket, and the server stops sending) instead of the list
    // piling up in memory.
    m_slots->acquire();
    m_pool->start(
        [this, run, batch, preparer = m_preparer, freeSlots = m_slots, spare = run->spare] {
            platform::noteAllocationRunStep();
            const QByteArrayView all(batch->bytes);
            const qsizetype count = batch->ends.size();
            batch->metas.resize(count);
            batch->valid.resize(count);
            batch->results.resize(count);
            qsizetype begin = 0;
            for (qsizetype i = 0; i < count; ++i) {
                const QByteArrayView item = all.sliced(begin, batch->ends[i] - begin);
                begin = batch->ends[i];
                batch->results[i] = preparer(item, &batch->metas[i]);
                batch->valid[i] = batch->results[i] || ObjectMeta::peek(item, &batch->metas[i]);
            }
            ListRun::giveBack(*spare, std::move(batch->bytes));
            batch->ends = QList<qsizetype>();
            freeSlots->release();
            // ~Reflector waits for the pool, so `this` outlives the task.
            QMetaObject::invokeMethod(
                this,
                [this, run, batch] { handleBatchPrepared(run, batch); },
                Qt::QueuedConnection);
        });
}

void Reflector::handleBatchPrepared(const std::shared_ptr<ListRun> &run,
                                    const std::shared_ptr<ListBatch> &batch)
{
    --run->pending;
    batch->done = true;
    if (!m_running || m_generation != run->generation)
        return;
    run->take();
    if (run->progressive && !run->deltas.isEmpty()) {
        emit deltasReceived(std::exchange(run->deltas, {}));
        if (!m_running || m_generation != run->generation)
            return; // stopped by a receiver
    }
    if (run->pending > 0 || !run->page)
        return;
    ListPage page = std::move(*run->page);
    run->page.reset();
    completeList(page, run);
}

void Reflector::handleList(models::Result<ListPage, ApiError> result,
                           const std::shared_ptr<ListRun> &run)
{
    if (!result) {
        if (run) {
            m_listRun.reset();
            // The next list is whole (something is known now) or progressive again (nothing
            // was delivered); batches of this run still on the pool deliver nothing.
            keepDelivered(*run);
            run->progressive = false;
        }
        const ApiError &error = result.error();
        if (error.isExpired())
            m_lastSyncUnavailable = true;
        retryLater(
            [this] { list(); }, u"list failed: "_s + error.toString(), error.retryAfterSeconds);
        return;
    }
    ListPage &page = result.value();
    if (run) {
        submitBatch(run);
        if (run->pending > 0) {
            run->page = std::move(page); // completed when the last batch is prepared
            return;
        }
    }
    completeList(page, run);
}

void Reflector::keepDelivered(ListRun &run)
{
    if (!run.progressive)
        return;
    // Everything taken so far was delivered, so `delivered` is exactly what this attempt
    // delivered.
    Known &all = m_known.hash();
    all.reserve(all.size() + run.delivered.size());
    for (const KnownEntry &entry : std::as_const(run.delivered))
        all.insert(entry.first, entry.second);
    run.delivered.clear();
}

void Reflector::completeList(ListPage &page, const std::shared_ptr<ListRun> &run)
{
    QList<Delta> deltas;
    QList<KnownEntry> listed; // the keys the batches had, then those of page.items
    if (run) {
        if (m_listRun == run)
            m_listRun.reset();
        run->take();
        Q_ASSERT(run->taken == run->batches.size());
        deltas = std::move(run->deltas);
        listed = std::move(run->delivered);
        run->restart();
    }
    // Items of a run's batches are in `listed` already (noted as they were taken); page.items
    // has items only when there is no preparer.
    deltas.reserve(deltas.size() + page.items.size());
    listed.reserve(listed.size() + page.items.size());
    for (QByteArray &item : page.items) {
        Delta delta;
        if (!ObjectMeta::peek(item, &delta.meta))
            continue;
        delta.object = std::move(item);
        listed.emplaceBack(knownKey(delta.meta), delta.meta.resourceVersion);
        deltas.append(std::move(delta));
    }
    const Known &previous = m_known.hash();
    Known now; // what the list has, hashed (when something was known before it)
    QList<Delta> vanished;
    if (previous.isEmpty()) {
        // Nothing can have vanished: the keys are hashed later.
        m_known.note(std::move(listed));
    } else {
        now.reserve(listed.size());
        for (const KnownEntry &entry : std::as_const(listed))
            now.insert(entry.first, entry.second);
    }
    for (auto it = previous.cbegin(); it != previous.cend(); ++it) {
        if (now.contains(it.key()))
            continue;
        Delta gone;
        gone.type = Delta::Type::Delete;
        gone.meta.namespace_ = it.key().first;
        gone.meta.name = it.key().second;
        gone.meta.resourceVersion = it.value();
        vanished.append(std::move(gone));
    }
    // Deterministic order for consumers and tests: by key ("ns/name").
    std::sort(vanished.begin(), vanished.end(), [](const Delta &a, const Delta &b) {
        return a.meta.key() < b.meta.key();
    });
    deltas += std::move(vanished);
    if (!previous.isEmpty())
        m_known.assign(std::move(now));
    m_lastSyncUnavailable = false;
    m_lastSyncResourceVersion = page.resourceVersion;
    m_resourceVersion = page.resourceVersion;
    m_synced = true;
    if (m_known.hasNoted()) {
        const quint64 generation = m_generation;
        QTimer::singleShot(HashNotedLaterMs, this, [this, generation] {
            if (m_generation == generation)
                m_known.hash();
        });
    }
    if (!deltas.isEmpty())
        emit deltasReceived(deltas);
    emit listSynced(m_resourceVersion);
    watch();
}

void Reflector::watch()
{
    if (!m_running)
        return;
    if (m_watch) {
        m_watch->stop();
        m_watch->deleteLater();
    }
    WatchOptions options;
    options.labelSelector = m_labelSelector;
    options.fieldSelector = m_fieldSelector;
    options.resourceVersion = m_resourceVersion;
    options.allowWatchBookmarks = true;
    options.timeoutSeconds = 300 + std::min(299, int(m_random() * 300));
    m_watch = m_client->watch(m_resource, m_namespace, options, this);
    connect(m_watch, &WatchConnection::eventsReceived, this, &Reflector::handleEvents);
    connect(m_watch, &WatchConnection::finished, this, &Reflector::handleWatchFinished);
    setPhase(ReflectorState::Phase::Watching);
}

void Reflector::prepareEvents(const QList<WatchEvent> &events,
                              QList<std::shared_ptr<PreparedObject>> &prepared,
                              QList<ObjectMeta> &metas)
{
    const auto eligible = [&events](qsizetype i) {
        return events[i].type == WatchEvent::Type::Added
            || events[i].type == WatchEvent::Type::Modified;
    };
    qsizetype count = 0;
    for (qsizetype i = 0; i < events.size(); ++i)
        count += eligible(i) ? 1 : 0;
    if (count < MinParallelEvents)
        return;
    ensurePool();
    prepared.resize(events.size());
    metas.resize(events.size());
    // This thread and the pool's take the events one by one; this thread waits for its helpers
    // before returning, so the deltas keep the stream's order.
    std::atomic<qsizetype> next{ 0 };
    const auto work = [&] {
        for (;;) {
            const qsizetype i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= events.size())
                return;
            if (eligible(i))
                prepared[i] = m_preparer(events[i].object, &metas[i]);
        }
    };
    const int helpers
        = int(std::min<qsizetype>(std::max(1, m_pool->maxThreadCount() - 1), count / 8));
    QSemaphore done;
    for (int h = 0; h < helpers; ++h) {
        m_pool->start([&work, &done] {
            work();
            done.release();
        });
    }
    work();
    done.acquire(helpers);
}

void Reflector::handleEvents(const QList<WatchEvent> &events)
{
    const quint64 generation = m_generation;
    emit watchEventsReceived(events);
    if (!m_running || m_generation != generation)
        return; // stopped by a receiver
    // Many events at once (a burst of changes): prepared on the pool as well as here.
    QList<std::shared_ptr<PreparedObject>> prepared;
    QList<ObjectMeta> metas;
    if (m_preparer) {
        qsizetype errorAt = events.size();
        for (qsizetype i = 0; i < events.size() && errorAt == events.size(); ++i) {
            if (events[i].type == WatchEvent::Type::Error)
                errorAt = i;
        }
        prepareEvents(errorAt == events.size() ? events : events.first(errorAt), prepared, metas);
    }
    QList<Delta> deltas;
    deltas.reserve(events.size());
    for (qsizetype i = 0; i < events.size(); ++i) {
        const WatchEvent &event = events[i];
        if (event.type == WatchEvent::Type::Error) {
            if (!deltas.isEmpty())
                emit deltasReceived(deltas);
            deltas.clear();
            if (m_watch) {
                m_watch->stop();
                m_watch->deleteLater();
                m_watch = nullptr;
            }
            if (event.status.isExpired()) {
                relistAfterExpiry(event.status.message);
            } else {
                retryLater([this] { list(); }, u"watch error: "_s + event.status.toString());
            }
            return;
        }
        Delta delta;
        if (i < prepared.size() && prepared[i]) {
            delta.meta = std::move(metas[i]);
            delta.prepared = std::move(prepared[i]);
        } else {
            delta.meta = event.meta;
        }
        if (!delta.meta.resourceVersion.isEmpty())
            m_resourceVersion = delta.meta.resourceVersion;
        if (event.type == WatchEvent::Type::Bookmark)
            continue;
        delta.object = event.object;
        if (event.type == WatchEvent::Type::Deleted) {
            delta.type = Delta::Type::Delete;
            m_known.hash().remove(knownKey(delta.meta));
        } else {
            m_known.hash().insert(knownKey(delta.meta), delta.meta.resourceVersion);
        }
        deltas.append(std::move(delta));
    }
    if (!deltas.isEmpty())
        emit deltasReceived(deltas);
}

void Reflector::handleWatchFinished(const std::optional<ApiError> &error)
{
    if (m_watch) {
        m_watch->deleteLater();
        m_watch = nullptr;
    }
    if (!m_running)
        return;
    if (!error) {
        // timeoutSeconds elapsed: resume from the last RV at once.
        watch();
        return;
    }
    if (error->isExpired()) {
        relistAfterExpiry(error->message);
        return;
    }
    if (error->isUnauthorized() || error->isForbidden() || error->code == 404) {
        retryLater([this] { list(); }, u"watch failed: "_s + error->toString());
        return;
    }
    retryLater(
        [this] { watch(); }, u"watch failed: "_s + error->toString(), error->retryAfterSeconds);
}

void Reflector::relistAfterExpiry(const QString &message)
{
    m_lastSyncUnavailable = true;
    setPhase(ReflectorState::Phase::Relisting, 0, u"resource version expired (410): "_s + message);
    list();
}

void Reflector::retryLater(std::function<void()> action,
                           const QString &error,
                           int retryAfterSeconds)
{
    const auto delay = std::max(m_backoff.next(m_clock(), m_random()),
                                std::chrono::milliseconds(retryAfterSeconds * 1000LL));
    setPhase(ReflectorState::Phase::Reconnecting, int(delay.count()), error);
    const quint64 generation = m_generation;
    QPointer<Reflector> self(this);
    m_scheduler(delay, [self, generation, action = std::move(action)] {
        if (self && self->m_running && self->m_generation == generation)
            action();
    });
}

} // namespace reconscope::controller::kube
