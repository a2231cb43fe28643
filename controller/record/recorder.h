#pragma once

#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/record/recordingformat.h"
#include "models/result.h"

#include <QElapsedTimer>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QSemaphore;
class QThread;
class QTimer;

namespace reconscope::controller::record {

class RecordingWorker;

// What a recording took in, for the summary line and the End record.
struct RecorderStats
{
    int resources = 0;
    qint64 listItems = 0;
    qint64 events = 0; // ADDED, MODIFIED, DELETED
    qint64 bookmarks = 0;
    qint64 receivedBytes = 0; // the objects' JSON as received
    qint64 records = 0;
    qint64 fileBytes = 0;
    qint64 durationUs = 0;
    QString reason; // why it ended: "interrupted", "duration", ...
    QString error; // a write that failed, which ended it

    nlohmann::json toJson() const;
};

// Records what the client watches: one Reflector per resource (the client's list and watch, with
// its reconnects and relists), whose lists and watch events become records stamped with their
// receive time (microseconds since open()). Records are gathered on this thread and handed to a
// worker thread every 200 ms, which compresses and writes them (RecordingWriter); no more than
// 64 MiB of them wait for the worker at once: past that this thread waits (and the sockets stop
// being read) rather than the backlog growing.
class Recorder final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Recorder)

public:
    explicit Recorder(kube::RestClient *client, QObject *parent = nullptr);
    ~Recorder() override;

    // Creates the file and writes its header (the start time is now).
    models::Status<> open(const QString &path, const nlohmann::json &metadata);
    void recordDiscovery(const QByteArray &json);
    void recordCrd(const QByteArray &json);
    // Declares a resource and makes its reflector (started by start()); its id.
    int addResource(const RecordedResource &resource);
    void start();
    // Stops the reflectors and writes the rest and the End record; finished() follows (queued).
    void stop(const QString &reason);
    bool isRunning() const { return m_running; }
    RecorderStats stats() const;

signals:
    void finished(const reconscope::controller::record::RecorderStats &stats);

private:
    struct Watched;
    void handleDeltas(Watched &watched, const QList<kube::Delta> &deltas);
    void handleListSynced(Watched &watched, const QString &resourceVersion);
    void handleEvents(Watched &watched, const QList<kube::WatchEvent> &events);
    void handleState(Watched &watched, const kube::ReflectorState &state);
    void handleWorkerFailed(const QString &message);
    void append(Record record);
    void post();
    qint64 now() const;

    kube::RestClient *m_client;
    std::vector<std::unique_ptr<Watched>> m_watched;
    QThread *m_thread = nullptr;
    RecordingWorker *m_worker = nullptr; // lives on m_thread
    std::shared_ptr<QSemaphore> m_room; // KiB the worker may still be handed
    QTimer *m_postTimer = nullptr;
    QElapsedTimer m_clock;
    QList<Record> m_batch;
    qint64 m_batchBytes = 0;
    RecorderStats m_stats;
    bool m_running = false;
    bool m_stopping = false;
};

} // namespace reconscope::controller::record

Q_DECLARE_METATYPE(reconscope::controller::record::RecorderStats)
