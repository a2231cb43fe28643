#include "controller/console/consolerecording.h"

#include "controller/console/consolesession.h"
#include "controller/kube/restclient.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

namespace {

// The recording's objects on its thread: a client of its own, the session and a progress timer,
// all made by start() there (the session's Recorder is no QObject child: made here, it would stay
// on the thread that made it).
class RecordingJob final : public QObject
{
    Q_OBJECT

public:
    RecordingJob(kube::ClientConfig config, record::RecordOptions options)
        : m_config(std::move(config))
        , m_options(std::move(options))
    { }

    void start()
    {
        m_client = new kube::RestClient(m_config, this);
        m_session = new record::RecordSession(m_client, m_options, this);
        m_timer = new QTimer(this);
        m_timer->setInterval(500);
        connect(m_timer, &QTimer::timeout, this, [this] { emit progress(m_session->stats()); });
        connect(m_session, &record::RecordSession::recording, this, &RecordingJob::recording);
        connect(m_session, &record::RecordSession::failed, this, [this](const QString &message) {
            m_timer->stop();
            emit failed(message);
        });
        connect(m_session,
                &record::RecordSession::finished,
                this,
                [this](const record::RecorderStats &stats) {
                    m_timer->stop();
                    emit finished(stats);
                });
        m_timer->start();
        m_session->start();
    }
    void stop()
    {
        if (m_session)
            m_session->stop(u"stopped"_s);
    }

signals:
    void recording(const QStringList &resources);
    void progress(const reconscope::controller::record::RecorderStats &stats);
    void failed(const QString &message);
    void finished(const reconscope::controller::record::RecorderStats &stats);

private:
    kube::ClientConfig m_config;
    record::RecordOptions m_options;
    kube::RestClient *m_client = nullptr;
    record::RecordSession *m_session = nullptr;
    QTimer *m_timer = nullptr;
};

} // namespace

ConsoleRecording::ConsoleRecording(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<record::RecorderStats>();
}

ConsoleRecording::~ConsoleRecording()
{
    if (!m_thread)
        return;
    // The job goes on its own thread; the file is left cut short, which a replay opens.
    QMetaObject::invokeMethod(m_job, &QObject::deleteLater, Qt::QueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

record::RecordOptions ConsoleRecording::optionsFor(const ConsoleSession &session,
                                                   const QString &path)
{
    record::RecordOptions options;
    options.resources = { session.resource().qualifiedName() };
    options.namespace_ = session.resource().namespaced ? session.namespaceFilter() : QString();
    options.events = true;
    options.output = path;
    options.metadata = {
        { "producer", (u"reconscope "_s + QCoreApplication::applicationVersion()).toStdString() },
        { "source", "record" },
        { "recordedBy", "console" },
        { "context", session.contextName().toStdString() },
        { "server", session.serverUrl().toStdString() },
        { "namespace", options.namespace_.toStdString() },
        { "arguments", options.resources.join(u' ').toStdString() },
    };
    return options;
}

void ConsoleRecording::start(const kube::ClientConfig &config, const record::RecordOptions &options)
{
    if (m_thread)
        return;
    m_path = options.output;
    m_thread = new QThread(this);
    m_thread->setObjectName(u"console-recording"_s);
    auto *job = new RecordingJob(config, options);
    job->moveToThread(m_thread);
    m_job = job;
    connect(m_thread, &QThread::finished, job, &QObject::deleteLater);
    connect(job, &RecordingJob::recording, this, &ConsoleRecording::recording);
    connect(job, &RecordingJob::progress, this, &ConsoleRecording::progress);
    connect(job, &RecordingJob::failed, this, [this](const QString &message) {
        handleEnded();
        emit failed(message);
    });
    connect(job, &RecordingJob::finished, this, [this](const record::RecorderStats &stats) {
        handleEnded();
        emit finished(stats);
    });
    m_thread->start();
    QMetaObject::invokeMethod(job, &RecordingJob::start, Qt::QueuedConnection);
}

void ConsoleRecording::stop()
{
    if (m_job)
        QMetaObject::invokeMethod(
            static_cast<RecordingJob *>(m_job), &RecordingJob::stop, Qt::QueuedConnection);
}

void ConsoleRecording::handleEnded()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_job = nullptr;
}

} // namespace reconscope::controller::console

#include "consolerecording.moc"
