#include "ui/consolesession.h"

#include "controller/cluster/sim/backgroundcluster.h"
#include "controller/console/scenarioplayer.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "models/resourcetablemodel.h"

#include <nlohmann/json.hpp>

#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using namespace controller::kube;

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
    , m_resource(customAppResource())
    , m_mapping(models::LifecycleMapping::forCustomApp())
    , m_table(new models::ResourceTableModel(this))
    , m_rateTimer(new QTimer(this))
{
    m_player = new controller::console::ScenarioPlayer(this);
    if (auto scenario = controller::console::ScenarioPlayer::defaultScenario(); scenario.ok())
        m_player->setScenario(scenario.value());
    m_rateTimer->setInterval(1000);
    connect(m_rateTimer, &QTimer::timeout, this, &ConsoleSession::handleRateTick);
    m_rateTimer->start();
}

ConsoleSession::~ConsoleSession()
{
    // The player, the reconciler, the informer's thread and the client go before the server they
    // talk to.
    m_player->pause();
    m_player->setClient(nullptr);
    delete m_operator;
    m_operator = nullptr;
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    delete m_client;
    m_client = nullptr;
    stopEmbeddedServer();
}

models::Status<> ConsoleSession::startDemo()
{
    if (m_embedded)
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_demo = true;
    m_embedded = new controller::cluster::BackgroundCluster({}, u"embedded-cluster"_s, this);
    connect(m_embedded,
            &controller::cluster::BackgroundCluster::started,
            this,
            &ConsoleSession::handleServerStarted);
    connect(m_embedded,
            &controller::cluster::BackgroundCluster::failed,
            this,
            [this](const QString &message) {
                emit connectionFailed(tr("the embedded cluster did not start: %1").arg(message));
            });
    return m_embedded->start();
}

void ConsoleSession::stopEmbeddedServer()
{
    delete m_embedded;
    m_embedded = nullptr;
}

controller::cluster::EmbeddedServer *ConsoleSession::embeddedServer() const
{
    return m_embedded ? m_embedded->server() : nullptr;
}

void ConsoleSession::handleServerStarted(const QString &kubeconfigPath)
{
    const auto status = openKubeconfig(kubeconfigPath);
    if (!status.ok()) {
        emit connectionFailed(status.error().message);
        return;
    }
    if (m_runReconciler)
        startReconciler();
    if (m_playScenario)
        m_player->play();
}

void ConsoleSession::startReconciler()
{
    // The operator is a client like any other: it gets the same kubeconfig credentials.
    m_clock = std::make_unique<controller::reconcile::RealClock>();
    m_operator = new controller::operators::CustomAppOperator(m_config, *m_clock, {}, this);
    m_operator->start();
    emit reconcilerChanged();
}

controller::reconcile::ControllerLoop *ConsoleSession::controllerLoop() const
{
    return m_operator ? &m_operator->loop() : nullptr;
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
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    m_player->setClient(nullptr);
    delete m_client;
    m_config = config;
    m_client = new RestClient(m_config, this);
    m_player->setClient(m_demo ? m_client : nullptr);
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
    if (resource.qualifiedName() == customAppResource().qualifiedName()) {
        m_mapping = models::LifecycleMapping::forCustomApp();
    } else if (m_discovery && m_discovery->crds().contains(resource.qualifiedName())) {
        const auto crd = nlohmann::json::parse(
            m_discovery->crds().value(resource.qualifiedName()).toStdString(), nullptr, false);
        m_mapping = crd.is_discarded() ? models::LifecycleMapping::defaults()
                                       : models::LifecycleMapping::forCrd(crd);
    } else {
        m_mapping = models::LifecycleMapping::defaults();
    }
    emit resourceChanged(m_resource);
    if (m_client)
        restartInformer();
}

void ConsoleSession::restartInformer()
{
    delete m_informer;
    m_informer = nullptr;
    m_tracker.clear();
    m_table->clear();
    emit trackerReset();
    const QString namespace_ = m_resource.namespaced ? m_namespace : QString();
    m_informer = new InformerStore(m_config, m_resource.ref(), namespace_, m_mapping, this);
    m_informer->setBatchInterval(m_batchIntervalMs);
    connect(
        m_informer, &InformerStore::objectsChanged, this, &ConsoleSession::handleObjectsChanged);
    connect(m_informer,
            &InformerStore::connectionStateChanged,
            this,
            &ConsoleSession::connectionStateChanged);
    m_informer->start();
}

void ConsoleSession::handleObjectsChanged(const QStringList &upserted, const QStringList &removed)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<models::Transition> transitions;
    QList<models::ResourceRow> rows;
    rows.reserve(upserted.size());
    for (const QString &key : upserted) {
        const InformerEntry *entry = m_informer->entry(key);
        if (!entry)
            continue;
        if (auto transition = m_tracker.upsert(entry->summary, m_mapping, now))
            transitions.append(std::move(*transition));
        models::ResourceRow row;
        row.summary = entry->summary;
        row.verdict = m_tracker.verdict(key);
        row.stateSince = m_tracker.log().stateSince(key);
        const auto history = m_tracker.log().history(key);
        row.lastTransition = history.isEmpty() ? QDateTime() : history.last().time;
        rows.append(std::move(row));
    }
    for (const QString &key : removed) {
        if (auto transition = m_tracker.remove(key, now))
            transitions.append(std::move(*transition));
    }
    // Ages move on once a second (handleRateTick), not per batch: a dataChanged over every row
    // would make a sorted proxy look at all of them each tick.
    m_table->applyBatch(rows, removed);
    m_eventsThisSecond += upserted.size() + removed.size();
    emit objectsChanged(upserted, removed);
    if (!transitions.isEmpty())
        emit transitionsObserved(transitions);
}

void ConsoleSession::handleRateTick()
{
    m_eventsPerSecond = double(m_eventsThisSecond);
    m_eventsThisSecond = 0;
    m_table->setNow(QDateTime::currentDateTimeUtc());
    emit eventRateChanged(m_eventsPerSecond);
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

void ConsoleSession::createObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    const auto meta = object.find("metadata");
    const QString namespace_ = meta != object.end() && meta->is_object()
        ? QString::fromStdString(meta->value("namespace", std::string()))
        : QString();
    m_client->create(resource, namespace_, object, std::move(callback));
}

void ConsoleSession::updateObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    const auto meta = object.find("metadata");
    const auto text = [&](const char *key) {
        return meta != object.end() && meta->is_object()
            ? QString::fromStdString(meta->value(key, std::string()))
            : QString();
    };
    m_client->update(resource, text("namespace"), text("name"), object, std::move(callback));
}

void ConsoleSession::patchObject(const QString &namespace_,
                                 const QString &name,
                                 const QByteArray &mergePatch,
                                 const QString &subresource,
                                 RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    m_client->patch(m_resource.ref(),
                    namespace_,
                    name,
                    PatchType::Merge,
                    mergePatch,
                    std::move(callback),
                    subresource);
}

} // namespace reconscope::ui
