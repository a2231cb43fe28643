#include "controller/cluster/sim/backgroundcluster.h"

#include <QThread>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

BackgroundCluster::BackgroundCluster(EmbeddedClusterOptions options,
                                     const QString &threadName,
                                     QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_threadName(threadName)
{ }

BackgroundCluster::~BackgroundCluster()
{
    stop();
}

QString BackgroundCluster::kubeconfigPath() const
{
    return m_dir ? m_dir->filePath(u"kubeconfig"_s) : QString();
}

models::Status<> BackgroundCluster::start()
{
    if (m_thread)
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid())
        return models::Status<>::failure(
            tr("cannot create a temporary directory: %1").arg(m_dir->errorString()));
    EmbeddedServerOptions options;
    options.kubeconfigPath = kubeconfigPath();
    m_thread = new QThread(this);
    m_thread->setObjectName(m_threadName);
    m_server = new EmbeddedServer(embeddedClusterFactory(m_options), options);
    m_server->moveToThread(m_thread);
    connect(
        m_server,
        &EmbeddedServer::started,
        this,
        [this] { emit started(kubeconfigPath()); },
        Qt::QueuedConnection);
    connect(m_server,
            &EmbeddedServer::startFailed,
            this,
            &BackgroundCluster::failed,
            Qt::QueuedConnection);
    m_thread->start();
    auto *server = m_server;
    QMetaObject::invokeMethod(server, [server] { (void)server->start(); });
    return {};
}

void BackgroundCluster::stop()
{
    if (!m_thread)
        return;
    // The server and everything it created are destroyed on their own thread while its event
    // loop still runs, before the thread ends; a helper object receives the call so that the
    // server is not deleted from inside its own event handler.
    if (m_server && m_thread->isRunning()) {
        auto *server = m_server;
        auto *reaper = new QObject;
        reaper->moveToThread(m_thread);
        QMetaObject::invokeMethod(
            reaper,
            [server, reaper] {
                delete server;
                reaper->deleteLater();
            },
            Qt::BlockingQueuedConnection);
    }
    m_server = nullptr;
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

} // namespace reconscope::controller::cluster
