#include "controller/labs/conflictlabcluster.h"

#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/kube/kubeconfig.h"

#include <QThread>

using namespace Qt::StringLiterals;

namespace reconscope::controller::labs {

ConflictLabCluster::ConflictLabCluster(QObject *parent)
    : QObject(parent)
{ }

ConflictLabCluster::~ConflictLabCluster()
{
    if (!m_thread)
        return;
    // The server and what it created are destroyed on their own thread while its loop runs.
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
    m_thread->quit();
    m_thread->wait();
}

models::Status<> ConflictLabCluster::start()
{
    if (m_thread)
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid())
        return models::Status<>::failure(
            tr("cannot create a temporary directory: %1").arg(m_dir->errorString()));
    cluster::EmbeddedClusterOptions clusterOptions;
    clusterOptions.demo = false;
    clusterOptions.simulateWorkloads = false;
    cluster::EmbeddedServerOptions options;
    options.kubeconfigPath = m_dir->filePath(u"kubeconfig"_s);
    m_thread = new QThread(this);
    m_thread->setObjectName(u"conflict-lab-cluster"_s);
    m_server
        = new cluster::EmbeddedServer(cluster::embeddedClusterFactory(clusterOptions), options);
    m_server->moveToThread(m_thread);
    connect(m_server,
            &cluster::EmbeddedServer::started,
            this,
            &ConflictLabCluster::handleStarted,
            Qt::QueuedConnection);
    connect(m_server,
            &cluster::EmbeddedServer::startFailed,
            this,
            &ConflictLabCluster::failed,
            Qt::QueuedConnection);
    m_thread->start();
    auto *server = m_server;
    QMetaObject::invokeMethod(server, [server] { (void)server->start(); });
    return {};
}

void ConflictLabCluster::handleStarted()
{
    auto kubeconfig = kube::Kubeconfig::load(m_dir->filePath(u"kubeconfig"_s));
    if (!kubeconfig.ok()) {
        emit failed(kubeconfig.error().message);
        return;
    }
    auto config = kubeconfig->resolve(u"reconscope-admin"_s);
    if (!config.ok()) {
        emit failed(config.error().message);
        return;
    }
    m_config = config.value();
    emit ready(m_config);
}

} // namespace reconscope::controller::labs
