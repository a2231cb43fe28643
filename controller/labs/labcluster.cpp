#include "controller/labs/labcluster.h"

#include "controller/cluster/sim/backgroundcluster.h"
#include "controller/kube/kubeconfig.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::labs {

LabCluster::LabCluster(QObject *parent, bool simulateWorkloads)
    : QObject(parent)
    , m_cluster(new cluster::BackgroundCluster(
          { .demo = false, .simulateWorkloads = simulateWorkloads, .simulator = {} },
          u"lab-cluster"_s,
          this))
{
    connect(m_cluster, &cluster::BackgroundCluster::started, this, &LabCluster::handleStarted);
    connect(m_cluster, &cluster::BackgroundCluster::failed, this, &LabCluster::failed);
}

LabCluster::~LabCluster() = default;

models::Status<> LabCluster::start()
{
    return m_cluster->start();
}

void LabCluster::handleStarted(const QString &kubeconfigPath)
{
    auto kubeconfig = kube::Kubeconfig::load(kubeconfigPath);
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
