#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/record/recorder.h"
#include "controller/record/recordsession.h"

#include <QObject>
#include <QString>
#include <QStringList>

class QThread;

namespace reconscope::controller::console {

class ConsoleSession;

// File → Record in the console: what the console watches (its resource in its namespace, with
// their Events, discovery and the CRDs) recorded into a file by a RecordSession, as `reconscope
// record` does. The session and a client of its own run on a thread of their own (the lists,
// watch events and their decoding never touch the UI thread; the Recorder compresses and writes
// on its worker); progress comes back twice a second as value types over queued signals.
class ConsoleRecording final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleRecording)

public:
    explicit ConsoleRecording(QObject *parent = nullptr);
    // Stops a recording still running and waits for its thread (the file is then cut short).
    ~ConsoleRecording() override;

    // What `reconscope record` would be told to record what the session watches now.
    static record::RecordOptions optionsFor(const ConsoleSession &session, const QString &path);

    // Starts recording through `config` (the session's); recording() or failed() follows.
    void start(const kube::ClientConfig &config, const record::RecordOptions &options);
    // Ends it: the rest and the End record are written; finished() follows.
    void stop();
    bool isRecording() const { return m_thread != nullptr; }
    QString path() const { return m_path; }

signals:
    void recording(const QStringList &resources);
    void progress(const reconscope::controller::record::RecorderStats &stats);
    void failed(const QString &message);
    void finished(const reconscope::controller::record::RecorderStats &stats);

private:
    void handleEnded();

    QThread *m_thread = nullptr;
    QObject *m_job = nullptr; // lives on m_thread
    QString m_path;
};

} // namespace reconscope::controller::console
