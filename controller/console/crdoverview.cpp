#include "controller/console/crdoverview.h"

#include "controller/console/consolesession.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/informertransform.h"

#include <nlohmann/json.hpp>

#include <QMap>

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

struct CrdOverview::Watched
{
    OverviewResource resource;
    kube::InformerStore *informer = nullptr; // owned (deleted with the entry)
    models::LifecycleTracker tracker{ 1 }; // counts and edges; one step of history per object
    bool listing = true; // the first list is arriving: its objects are the census
    bool relisted = false; // the batch whose keys come next is a relist's

    ~Watched() { delete informer; }
};

models::LifecycleMapping lifecycleMappingFor(const kube::DiscoveredResource &resource,
                                             const QHash<QString, QByteArray> &crds)
{
    if (resource.qualifiedName()
        == ConsoleSession::CustomApps.plural + u'.' + ConsoleSession::CustomApps.group)
        return models::LifecycleMapping::forCustomApp();
    const auto crd = crds.constFind(resource.qualifiedName());
    if (crd == crds.cend())
        return models::LifecycleMapping::defaults();
    const auto json = nlohmann::json::parse(crd->begin(), crd->end(), nullptr, false);
    return json.is_discarded() ? models::LifecycleMapping::defaults()
                               : models::LifecycleMapping::forCrd(json);
}

QList<OverviewResource> servedCustomResources(const kube::DiscoveryClient &discovery)
{
    QMap<QString, kube::DiscoveredResource> chosen;
    const auto &crds = discovery.crds();
    for (const auto &resource : discovery.resources()) {
        if (!resource.fromCrd && !crds.contains(resource.qualifiedName()))
            continue;
        const auto it = chosen.constFind(resource.qualifiedName());
        if (it == chosen.cend() || (resource.preferredVersion && !it->preferredVersion))
            chosen.insert(resource.qualifiedName(), resource);
    }
    QList<OverviewResource> served;
    for (const auto &resource : std::as_const(chosen))
        served.append({ resource, lifecycleMappingFor(resource, crds) });
    return served;
}

CrdOverview::CrdOverview(QObject *parent)
    : QObject(parent)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{ }

CrdOverview::CrdOverview(ConsoleSession *session, QObject *parent)
    : CrdOverview(parent)
{
    m_session = session;
    connect(session, &ConsoleSession::connected, this, [this] {
        stop();
        if (m_session->discovery())
            connect(m_session->discovery(),
                    &kube::DiscoveryClient::resourcesChanged,
                    this,
                    &CrdOverview::followSession);
    });
}

CrdOverview::~CrdOverview() = default;

void CrdOverview::followSession()
{
    if (m_session && m_session->discovery())
        watch(m_session->clientConfig(),
              servedCustomResources(*m_session->discovery()),
              m_session->namespaceFilter());
}

void CrdOverview::watch(const kube::ClientConfig &config,
                        const QList<OverviewResource> &resources,
                        const QString &namespace_)
{
    const bool sameServer = config.contextName == m_config.contextName
        && config.server == m_config.server && namespace_ == m_namespace;
    if (!sameServer)
        stop();
    m_config = config;
    m_namespace = namespace_;
    QSet<QString> wanted;
    for (const OverviewResource &resource : resources)
        wanted.insert(resource.resource.qualifiedName());
    bool changed = false;
    for (auto it = m_watched.begin(); it != m_watched.end();) {
        if (wanted.contains(it->first)) {
            ++it;
            continue;
        }
        m_problems.removeResource(it->first);
        it = m_watched.erase(it);
        changed = true;
    }
    for (const OverviewResource &resource : resources) {
        const QString name = resource.resource.qualifiedName();
        if (m_watched.contains(name))
            continue;
        auto watched = std::make_unique<Watched>();
        watched->resource = resource;
        start(*watched);
        m_watched.emplace(name, std::move(watched));
        m_syncAnnounced = false;
        changed = true;
    }
    if (changed)
        emit resourcesChanged();
}

void CrdOverview::stop()
{
    const bool had = !m_watched.empty();
    m_watched.clear();
    m_problems.clear();
    m_latency.clear();
    m_syncAnnounced = false;
    if (had)
        emit resourcesChanged();
}

void CrdOverview::start(Watched &watched)
{
    const auto &resource = watched.resource.resource;
    watched.informer = new kube::InformerStore(m_config,
                                               resource.ref(),
                                               resource.namespaced ? m_namespace : QString(),
                                               watched.resource.mapping);
    watched.informer->setTransform(kube::summaryTransform());
    watched.informer->setBatchInterval(m_batchIntervalMs);
    Watched *entry = &watched; // stable: owned by a unique_ptr in m_watched
    connect(watched.informer, &kube::InformerStore::relisted, this, [entry] {
        entry->relisted = true;
    });
    connect(watched.informer,
            &kube::InformerStore::objectsChanged,
            this,
            [this, entry](const QStringList &upserted, const QStringList &removed) {
                handleObjectsChanged(*entry, upserted, removed);
            });
    connect(watched.informer, &kube::InformerStore::synced, this, [this, entry] {
        entry->listing = false;
        if (!m_syncAnnounced && hasSynced()) {
            m_syncAnnounced = true;
            emit synced();
        }
    });
    watched.informer->start();
}

void CrdOverview::handleObjectsChanged(Watched &watched,
                                       const QStringList &upserted,
                                       const QStringList &removed)
{
    const models::Observed observed = watched.listing
        ? models::Observed::AtConnect
        : (watched.relisted ? models::Observed::AcrossGap : models::Observed::Live);
    watched.relisted = false;
    const QDateTime now = m_clock();
    const QString name = watched.resource.resource.qualifiedName();
    if (observed == models::Observed::AtConnect)
        watched.tracker.reserve(upserted.size());
    for (const QString &key : upserted) {
        const kube::InformerEntry *entry = watched.informer->entry(key);
        if (!entry)
            continue;
        models::LifecycleVerdict verdict;
        watched.tracker.upsert(
            entry->summary, watched.resource.mapping, now, observed, &verdict, nullptr);
        m_problems.observe(name, entry->summary, verdict, now);
        m_latency.observe(name, entry->summary, verdict.state, now);
    }
    for (const QString &key : removed) {
        watched.tracker.remove(key, now, observed);
        m_problems.remove(name, key);
        m_latency.remove(name, key);
    }
    emit countsChanged({ name });
}

QStringList CrdOverview::resources() const
{
    QStringList names;
    for (const auto &[name, watched] : m_watched)
        names << name;
    return names;
}

const OverviewResource *CrdOverview::resource(const QString &qualifiedName) const
{
    const auto it = m_watched.find(qualifiedName);
    return it == m_watched.end() ? nullptr : &it->second->resource;
}

bool CrdOverview::hasSynced() const
{
    for (const auto &[name, watched] : m_watched) {
        if (!watched->informer->hasSynced())
            return false;
    }
    return true;
}

CrdOverview::Counts CrdOverview::counts(const QString &qualifiedName) const
{
    Counts counts{};
    const auto it = m_watched.find(qualifiedName);
    if (it == m_watched.end())
        return counts;
    for (int i = 0; i < models::LifecycleStateCount; ++i)
        counts[i] = it->second->tracker.stats().objectsIn(models::LifecycleState(i));
    return counts;
}

int CrdOverview::objectCount(const QString &qualifiedName) const
{
    const auto it = m_watched.find(qualifiedName);
    return it == m_watched.end() ? 0 : it->second->tracker.stats().objectCount();
}

int CrdOverview::totalObjects() const
{
    int total = 0;
    for (const auto &[name, watched] : m_watched)
        total += watched->tracker.stats().objectCount();
    return total;
}

models::StateGraphStats CrdOverview::stats(const QString &qualifiedName) const
{
    const auto it = m_watched.find(qualifiedName);
    return it == m_watched.end() ? models::StateGraphStats() : it->second->tracker.stats();
}

models::StateGraphStats CrdOverview::aggregatedStats() const
{
    models::StateGraphStats sum;
    for (const auto &[name, watched] : m_watched)
        sum += watched->tracker.stats();
    return sum;
}

} // namespace reconscope::controller::console
