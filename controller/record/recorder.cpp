#include "controller/record/recorder.h"

#include "controller/record/recordingwriter.h"

#include <QSemaphore>
#include <QThread>
#include <QTimer>

#include <atomic>

using namespace Qt::StringLiterals;

namespace reconscope::controller::record {

namespace {

// How much (in KiB) may wait for the worker, and how often records are handed over.
constexpr int RoomKiB = 64 * 1024;
constexpr int PostIntervalMs = 200;
constexpr qint64 PostBytes = 4 << 20;
// Pending records are written as a block at least this often, so that a recorder killed loses
// no more than this much.
constexpr int FlushIntervalMs = 1000;

} // namespace

nlohmann::json RecorderStats::toJson() const
{
    return { { "resources", resources },
             { "listItems", listItems },
             { "events", events },
             { "bookmarks", bookmarks },
             { "receivedBytes", receivedBytes },
             { "durationUs", durationUs },
             { "reason", reason.toStdString() } };
}

// The writer on a thread of its own. Its functions run on that thread; what the recorder reads of
// it is atomic.
class RecordingWorker final : public QObject
{
public:
    // After its thread has ended: what was appended stays in the file (cut short, readable).
    ~RecordingWorker() override { flush(); }

    QString open(const QString &path, const RecordingHeader &header)
    {
        auto created = RecordingWriter::create(path, header);
        if (!created)
            return created.error().message;
        m_writer = std::move(created).value();
        m_flushTimer = new QTimer(this);
        m_flushTimer->setInterval(FlushIntervalMs);
        connect(m_flushTimer, &QTimer::timeout, this, [this] { flush(); });
        m_flushTimer->start();
        return {};
    }

    // False once a write has failed (the message is then in error()).
    bool write(const QList<Record> &batch)
    {
        for (const Record &record : batch) {
            if (!m_error.isEmpty())
                return false;
            if (auto appended = m_writer->append(record); !appended)
                m_error = appended.error().message;
        }
        m_fileBytes = m_writer->fileBytes();
        m_records = m_writer->records();
        return m_error.isEmpty();
    }

    void flush()
    {
        if (!m_writer || !m_error.isEmpty() || !m_writer->hasPending())
            return;
        if (auto flushed = m_writer->flush(); !flushed)
            m_error = flushed.error().message;
        m_fileBytes = m_writer->fileBytes();
    }

    void finish(const nlohmann::json &summary)
    {
        if (m_flushTimer)
            m_flushTimer->stop();
        if (m_writer && m_error.isEmpty()) {
            if (auto finished = m_writer->finish(summary); !finished)
                m_error = finished.error().message;
            m_fileBytes = m_writer->fileBytes();
            m_records = m_writer->records();
        }
        m_writer.reset();
    }

    QString error() const { return m_error; }
    qint64 fileBytes() const { return m_fileBytes; }
    qint64 records() const { return m_records; }

private:
    std::unique_ptr<RecordingWriter> m_writer;
    QTimer *m_flushTimer = nullptr;
    QString m_error; // set on the worker's thread; read after it is done
    std::atomic<qint64> m_fileBytes{ 0 };
    std::atomic<qint64> m_records{ 0 };
};

struct Recorder::Watched
{
    int id = 0;
    RecordedResource resource;
    std::unique_ptr<kube::Reflector> reflector;
    bool listOpen = false;
};

Recorder::Recorder(kube::RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_room(std::make_shared<QSemaphore>(RoomKiB))
{
    qRegisterMetaType<RecorderStats>();
}

Recorder::~Recorder()
{
    if (m_thread) {
        m_thread->quit();
        m_thread->wait();
        delete m_worker;
    }
}

qint64 Recorder::now() const
{
    return m_clock.nsecsElapsed() / 1000;
}

models::Status<> Recorder::open(const QString &path, const nlohmann::json &metadata)
{
    RecordingHeader header;
    header.startMicros = QDateTime::currentMSecsSinceEpoch() * 1000;
    header.metadata = metadata;
    m_clock.start();
    m_thread = new QThread(this);
    m_thread->setObjectName(u"recording-writer"_s);
    m_worker = new RecordingWorker;
    m_worker->moveToThread(m_thread);
    m_thread->start();
    QString error;
    QMetaObject::invokeMethod(
        m_worker,
        [this, path, header, &error] { error = m_worker->open(path, header); },
        Qt::BlockingQueuedConnection);
    if (!error.isEmpty())
        return models::Status<>::failure(error);
    m_postTimer = new QTimer(this);
    m_postTimer->setInterval(PostIntervalMs);
    connect(m_postTimer, &QTimer::timeout, this, [this] { post(); });
    return {};
}

void Recorder::append(Record record)
{
    record.time = now();
    m_batchBytes += record.data.size();
    m_batch.append(std::move(record));
    if (m_batchBytes >= PostBytes)
        post();
}

void Recorder::post()
{
    if (m_batch.isEmpty() || !m_worker)
        return;
    const int permits = int(std::clamp<qint64>(m_batchBytes / 1024 + 1, 1, RoomKiB));
    // Backpressure: wait while the worker has this much to write already.
    m_room->acquire(permits);
    QMetaObject::invokeMethod(
        m_worker,
        [this, worker = m_worker, room = m_room, permits, batch = std::exchange(m_batch, {})] {
            const bool ok = worker->write(batch);
            room->release(permits);
            if (!ok)
                QMetaObject::invokeMethod(
                    this,
                    [this, error = worker->error()] { handleWorkerFailed(error); },
                    Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
    m_batchBytes = 0;
}

void Recorder::recordDiscovery(const QByteArray &json)
{
    append({ RecordType::Discovery, 0, false, -1, EventType::Added, json });
}

void Recorder::recordCrd(const QByteArray &json)
{
    append({ RecordType::Crd, 0, false, -1, EventType::Added, json });
}

int Recorder::addResource(const RecordedResource &resource)
{
    auto watched = std::make_unique<Watched>();
    watched->id = int(m_watched.size());
    watched->resource = resource;
    watched->reflector = std::make_unique<kube::Reflector>(
        m_client, resource.ref(), resource.namespaced ? resource.namespace_ : QString());
    if (!resource.fieldSelector.isEmpty())
        watched->reflector->setFieldSelector(resource.fieldSelector);
    Watched *w = watched.get();
    connect(w->reflector.get(),
            &kube::Reflector::deltasReceived,
            this,
            [this, w](const QList<kube::Delta> &deltas) { handleDeltas(*w, deltas); });
    connect(w->reflector.get(),
            &kube::Reflector::listSynced,
            this,
            [this, w](const QString &resourceVersion) { handleListSynced(*w, resourceVersion); });
    connect(w->reflector.get(),
            &kube::Reflector::watchEventsReceived,
            this,
            [this, w](const QList<kube::WatchEvent> &events) { handleEvents(*w, events); });
    connect(w->reflector.get(),
            &kube::Reflector::stateChanged,
            this,
            [this, w](const kube::ReflectorState &state) { handleState(*w, state); });
    append({ RecordType::Resource,
             0,
             false,
             w->id,
             EventType::Added,
             QByteArray::fromStdString(resource.toJson().dump()) });
    m_watched.push_back(std::move(watched));
    ++m_stats.resources;
    return w->id;
}

void Recorder::start()
{
    if (m_running || !m_worker)
        return;
    m_running = true;
    m_postTimer->start();
    for (const auto &watched : m_watched)
        watched->reflector->start();
}

void Recorder::handleDeltas(Watched &watched, const QList<kube::Delta> &deltas)
{
    // The reflector's own deltas of watch events are taken whole from watchEventsReceived; only
    // a list's are kept here. What a relist lacks is not: the list's end says it.
    const auto phase = watched.reflector->state().phase;
    if (!m_running
        || (phase != kube::ReflectorState::Phase::Listing
            && phase != kube::ReflectorState::Phase::Relisting))
        return;
    for (const kube::Delta &delta : deltas) {
        if (delta.type != kube::Delta::Type::Upsert)
            continue;
        if (!std::exchange(watched.listOpen, true))
            append({ RecordType::ListStart, 0, false, watched.id, EventType::Added, {} });
        append({ RecordType::ListItem, 0, false, watched.id, EventType::Added, delta.object });
        ++m_stats.listItems;
        m_stats.receivedBytes += delta.object.size();
    }
}

void Recorder::handleListSynced(Watched &watched, const QString &resourceVersion)
{
    if (!m_running)
        return;
    if (!std::exchange(watched.listOpen, true))
        append({ RecordType::ListStart, 0, false, watched.id, EventType::Added, {} });
    append(
        { RecordType::ListEnd, 0, false, watched.id, EventType::Added, resourceVersion.toUtf8() });
    watched.listOpen = false;
}

void Recorder::handleEvents(Watched &watched, const QList<kube::WatchEvent> &events)
{
    if (!m_running)
        return;
    for (const kube::WatchEvent &event : events) {
        Record record{ RecordType::Event, 0, false, watched.id, EventType::Added, event.object };
        switch (event.type) {
        case kube::WatchEvent::Type::Added:
            break;
        case kube::WatchEvent::Type::Modified:
            record.event = EventType::Modified;
            break;
        case kube::WatchEvent::Type::Deleted:
            record.event = EventType::Deleted;
            break;
        case kube::WatchEvent::Type::Bookmark:
            record.event = EventType::Bookmark;
            ++m_stats.bookmarks;
            break;
        case kube::WatchEvent::Type::Error:
            append({ RecordType::Note,
                     0,
                     false,
                     watched.id,
                     EventType::Added,
                     (u"watch error: "_s + event.status.toString()).toUtf8() });
            continue;
        }
        if (record.event != EventType::Bookmark)
            ++m_stats.events;
        m_stats.receivedBytes += event.object.size();
        append(std::move(record));
    }
}

void Recorder::handleState(Watched &watched, const kube::ReflectorState &state)
{
    using Phase = kube::ReflectorState::Phase;
    if (!m_running || (state.phase != Phase::Reconnecting && state.phase != Phase::Relisting))
        return;
    QString text = state.toString();
    if (!state.lastError.isEmpty())
        text += u" after: "_s + state.lastError;
    append({ RecordType::Note, 0, false, watched.id, EventType::Added, text.toUtf8() });
}

void Recorder::handleWorkerFailed(const QString &message)
{
    if (m_stats.error.isEmpty())
        m_stats.error = message;
    stop(u"error"_s);
}

void Recorder::stop(const QString &reason)
{
    if (m_stopping || !m_worker)
        return;
    m_stopping = true;
    m_running = false;
    m_postTimer->stop();
    for (const auto &watched : m_watched)
        watched->reflector->stop();
    m_stats.reason = reason;
    m_stats.durationUs = now();
    post();
    const nlohmann::json summary = m_stats.toJson();
    QMetaObject::invokeMethod(
        m_worker,
        [this, worker = m_worker, summary] {
            worker->finish(summary);
            QMetaObject::invokeMethod(
                this,
                [this, worker] {
                    if (m_stats.error.isEmpty())
                        m_stats.error = worker->error();
                    m_stats.fileBytes = worker->fileBytes();
                    m_stats.records = worker->records();
                    m_thread->quit();
                    m_thread->wait();
                    delete m_worker;
                    delete m_thread;
                    m_worker = nullptr;
                    m_thread = nullptr;
                    emit finished(m_stats);
                },
                Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

RecorderStats Recorder::stats() const
{
    RecorderStats stats = m_stats;
    if (m_worker) {
        stats.fileBytes = m_worker->fileBytes();
        stats.records = m_worker->records();
    }
    if (m_running)
        stats.durationUs = now();
    return stats;
}

} // namespace reconscope::controller::record
