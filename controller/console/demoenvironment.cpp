#include "controller/console/demoenvironment.h"

#include "controller/cluster/sim/backgroundcluster.h"
#include "controller/console/scenarioplayer.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

DemoEnvironment::DemoEnvironment(QObject *parent)
    : QObject(parent)
    , m_player(new ScenarioPlayer(this))
{
    if (auto scenario = ScenarioPlayer::defaultScenario(); scenario.ok())
        m_player->setScenario(scenario.value());
}

DemoEnvironment::~DemoEnvironment()
{
    m_player->pause();
    m_player->setClient(nullptr);
    stopReconciler();
    delete m_cluster;
    m_cluster = nullptr;
}

models::Status<> DemoEnvironment::startCluster()
{
    if (m_cluster)
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_cluster = new cluster::BackgroundCluster({}, u"embedded-cluster"_s, this);
    connect(m_cluster, &cluster::BackgroundCluster::started, this, &DemoEnvironment::started);
    connect(m_cluster, &cluster::BackgroundCluster::failed, this, &DemoEnvironment::failed);
    return m_cluster->start();
}

cluster::EmbeddedServer *DemoEnvironment::embeddedServer() const
{
    return m_cluster ? m_cluster->server() : nullptr;
}

void DemoEnvironment::startReconciler(const kube::ClientConfig &config)
{
    stopReconciler();
    m_clock = std::make_unique<reconcile::RealClock>();
    m_operator = new operators::CustomAppOperator(config, *m_clock, {}, this);
    m_operator->start();
    emit reconcilerChanged();
}

void DemoEnvironment::stopReconciler()
{
    delete m_operator;
    m_operator = nullptr;
}

reconcile::ControllerLoop *DemoEnvironment::controllerLoop() const
{
    return m_operator ? &m_operator->loop() : nullptr;
}

void DemoEnvironment::setScenarioClient(kube::RestClient *client)
{
    m_player->setClient(client);
}

} // namespace reconscope::controller::console
