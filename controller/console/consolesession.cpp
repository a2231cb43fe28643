#include "controller/console/consolesession.h"

#include "controller/console/crdoverview.h"
#include "controller/console/demoenvironment.h"
#include "controller/console/scenarioplayer.h"
#include "controller/console/tablefeeder.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

using namespace kube;
using apimachinery::ApiError;
using apimachinery::PatchType;
using apimachinery::ResourceRef;

const ResourceRef ConsoleSession::CustomApps{
    u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true
};

namespace {

DiscoveredResource customAppResource()
{
    DiscoveredResource resource;
    resource.group = ConsoleSession::CustomApps.group;
    resource.version = ConsoleSession::CustomApps.version;
    resource.plural = ConsoleSession::CustomApps.plural;
    resource.singular = u"customapp"_s;
    resource.kind = u"CustomApp"_s;
    resource.namespaced = true;
    resource.statusSubresource = true;
    resource.fromCrd = true;
    return resource;
}

} // namespace

ConsoleSession::ConsoleSession(QObject *parent)
    : QObject(parent)
    , m_environment(new DemoEnvironment(this))
    , m_resource(customAppResource())
    , m_feeder(new TableFeeder(this))
{
    m_feeder->setMapping(models::LifecycleMapping::forCustomApp());
    connect(
        m_feeder, &TableFeeder::transitionsObserved, this, &ConsoleSession::transitionsObserved);
    connect(m_feeder, &TableFeeder::objectsChanged, this, &ConsoleSession::objectsChanged);
    connect(m_feeder, &TableFeeder::trackerReset, this, &ConsoleSession::trackerReset);
    connect(m_feeder, &TableFeeder::eventRateChanged, this, &ConsoleSession::eventRateChanged);
    connect(m_environment, &DemoEnvironment::started, this, &ConsoleSession::handleServerStarted);
    connect(m_environment, &DemoEnvironment::failed, this, [this](const QString &message) {
        emit connectionFailed(tr("the embedded cluster did not start: %1").arg(message));
    });
    connect(m_environment,
            &DemoEnvironment::reconcilerChanged,
            this,
            &ConsoleSession::reconcilerChanged);
}

ConsoleSession::~ConsoleSession()
{
    // The feeder lets go of the informer; the player, the reconciler, the informer's thread and
    // the client go before the embedded server they talk to.
    m_feeder->detach();
    m_environment->scenarioPlayer()->pause();
    m_environment->setScenarioClient(nullptr);
    m_environment->stopReconciler();
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    delete m_client;
    m_client = nullptr;
    delete m_environment;
    m_environment = nullptr;
}

models::Status<> ConsoleSession::startDemo()
{
    if (m_environment->clusterRunning())
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_demo = true;
    return m_environment->startCluster();
}

cluster::EmbeddedServer *ConsoleSession::embeddedServer() const
{
    return m_environment->embeddedServer();
}

ScenarioPlayer *ConsoleSession::scenarioPlayer() const
{
    return m_environment->scenarioPlayer();
}

void ConsoleSession::handleServerStarted(const QString &kubeconfigPath)
{
    const auto status = openKubeconfig(kubeconfigPath);
    if (!status.ok()) {
        emit connectionFailed(status.error().message);
        return;
    }
    // The operator is a client like any other: it gets the same kubeconfig credentials.
    if (m_runReconciler)
        m_environment->startReconciler(m_config);
    if (m_playScenario)
        m_environment->scenarioPlayer()->play();
}

reconcile::ControllerLoop *ConsoleSession::controllerLoop() const
{
    return m_environment->controllerLoop();
}

void ConsoleSession::setTurnBudget(std::chrono::nanoseconds budget)
{
    m_feeder->setTurnBudget(budget);
}

const models::LifecycleMapping &ConsoleSession::mapping() const
{
    return m_feeder->mapping();
}

const models::LifecycleTracker &ConsoleSession::tracker() const
{
    return m_feeder->tracker();
}

models::ResourceTableModel *ConsoleSession::tableModel() const
{
    return m_feeder->tableModel();
}

double ConsoleSession::eventsPerSecond() const
{
    return m_feeder->eventsPerSecond();
}

models::Status<> ConsoleSession::openKubeconfig(const QString &path, const QString &context)
{
    auto kubeconfig = Kubeconfig::load(path);
    if (!kubeconfig.ok())
        return models::Status<>::failure(kubeconfig.error().message);
    m_kubeconfig = std::move(kubeconfig.value());
    m_kubeconfigPath = path.isEmpty() ? m_kubeconfig.files().value(0) : path;
    auto config = m_kubeconfig.resolve(context);
    if (!config.ok())
        return models::Status<>::failure(config.error().message);
    if (m_demo)
        m_writableContexts.insert(config->contextName);
    emit contextsChanged(m_kubeconfig.contextNames(), config->contextName);
    connectTo(config.value());
    return {};
}

models::Status<> ConsoleSession::switchContext(const QString &context)
{
    if (context == m_config.contextName && m_client)
        return {};
    auto config = m_kubeconfig.resolve(context);
    if (!config.ok())
        return models::Status<>::failure(config.error().message);
    connectTo(config.value());
    return {};
}

void ConsoleSession::connectTo(const ClientConfig &config)
{
    m_feeder->detach();
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    m_environment->setScenarioClient(nullptr);
    delete m_client;
    m_config = config;
    m_client = new RestClient(m_config, this);
    m_environment->setScenarioClient(m_demo ? m_client : nullptr);
    m_discovery = new DiscoveryClient(m_client, this);
    connect(m_discovery, &DiscoveryClient::discoveryFailed, this, [this](const ApiError &error) {
        emit connectionFailed(tr("discovery: %1").arg(error.toString()));
    });
    m_discovery->watchCrds();
    emit connected(m_config.contextName, m_config.server.toString());
    emit writesEnabledChanged(writesEnabled());
    restartInformer();
}

void ConsoleSession::setNamespaceFilter(const QString &namespace_)
{
    if (namespace_ == m_namespace)
        return;
    m_namespace = namespace_;
    if (m_client)
        restartInformer();
}

void ConsoleSession::setResource(const DiscoveredResource &resource)
{
    m_resource = resource;
    static const QHash<QString, QByteArray> noCrds;
    m_feeder->setMapping(lifecycleMappingFor(resource, m_discovery ? m_discovery->crds() : noCrds));
    emit resourceChanged(m_resource);
    if (m_client)
        restartInformer();
}

void ConsoleSession::restartInformer()
{
    m_feeder->detach();
    delete m_informer;
    const QString namespace_ = m_resource.namespaced ? m_namespace : QString();
    m_informer = new InformerStore(m_config, m_resource.ref(), namespace_, mapping(), this);
    m_informer->setBatchInterval(m_batchIntervalMs);
    m_informer->setProgressiveFirstList(m_progressiveFirstList);
    connect(m_informer,
            &InformerStore::connectionStateChanged,
            this,
            &ConsoleSession::connectionStateChanged);
    m_feeder->attach(m_informer);
    m_informer->start();
}

ReflectorState ConsoleSession::connectionState() const
{
    return m_informer ? m_informer->state() : ReflectorState();
}

bool ConsoleSession::writesEnabled() const
{
    return m_demo || m_writableContexts.contains(m_config.contextName);
}

void ConsoleSession::setWritesEnabled(bool enabled)
{
    if (m_demo || enabled == writesEnabled())
        return;
    if (enabled)
        m_writableContexts.insert(m_config.contextName);
    else
        m_writableContexts.remove(m_config.contextName);
    emit writesEnabledChanged(enabled);
}

std::optional<ApiError> ConsoleSession::writeRefusal() const
{
    if (!m_client)
        return ApiError::make(ApiError::Category::Network, tr("not connected"));
    if (!writesEnabled()) {
        // Refused here, before any request: said as the server says a refusal (403 Forbidden).
        ApiError error = ApiError::make(
            ApiError::Category::Status,
            tr("writes are disabled for context \"%1\": enable them first").arg(contextName()),
            403);
        error.reason = u"Forbidden"_s;
        return error;
    }
    return std::nullopt;
}

bool ConsoleSession::refused(const RestClient::JsonCallback &callback) const
{
    auto refusal = writeRefusal();
    if (refusal)
        callback(*refusal);
    return refusal.has_value();
}

void ConsoleSession::createObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (refused(callback))
        return;
    const nlohmann::json &meta = models::jsonMember(object, "metadata");
    m_client->create(resource, models::jsonString(meta, "namespace"), object, std::move(callback));
}

void ConsoleSession::updateObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (refused(callback))
        return;
    const nlohmann::json &meta = models::jsonMember(object, "metadata");
    m_client->update(resource,
                     models::jsonString(meta, "namespace"),
                     models::jsonString(meta, "name"),
                     object,
                     std::move(callback));
}

void ConsoleSession::patchObject(const QString &namespace_,
                                 const QString &name,
                                 const QByteArray &mergePatch,
                                 const QString &subresource,
                                 RestClient::JsonCallback callback)
{
    if (refused(callback))
        return;
    m_client->patch(m_resource.ref(),
                    namespace_,
                    name,
                    PatchType::Merge,
                    mergePatch,
                    std::move(callback),
                    subresource);
}

} // namespace reconscope::controller::console
