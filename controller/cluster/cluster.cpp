#include "controller/cluster/cluster.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/clusterwatch.h"
#include "controller/cluster/registry/listing.h"
#include "controller/cluster/yamldocuments.h"

#include <QFile>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::DeleteOptions;
using apimachinery::ListOptions;
using apimachinery::PatchType;
using apimachinery::ResourceRef;
using apimachinery::WatchOptions;

namespace {

ApiError unknownResource(const ResourceRef &ref)
{
    return ApiError::notFound(ref.group, ref.plural, {});
}

} // namespace

Cluster::Cluster(QObject *parent, bool installCustomAppCrd)
    : QObject(parent)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
    , m_store([this] { emit resourceTypesChanged(); })
    , m_admission(m_store)
    , m_controllers(m_store, m_clock)
    , m_verbs{ m_store, m_admission, m_controllers, m_statusInPlace, m_clock, m_lastRead }
{
    m_store.setClock(&m_clock);
    installBuiltins();
    if (installCustomAppCrd) {
        QFile file(u":/crds/customapps.infrastructure.internal.net.yaml"_s);
        if (file.open(QIODevice::ReadOnly)) {
            auto documents = yamlDocumentsToJson(file.readAll());
            if (documents && !documents->isEmpty())
                installCrdObject(documents->first());
        }
    }
}

Cluster::~Cluster()
{
    m_store.endWatches();
}

void Cluster::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

void Cluster::installBuiltins()
{
    for (const ResourceType &type : builtinResourceTypes())
        m_store.registerTypes({ type });
    // Created by kube-apiserver itself, as its managedFields say.
    WriteOptions byApiServer;
    byApiServer.fieldManager = u"kube-apiserver"_s;
    for (const QString &name :
         { u"default"_s, u"kube-node-lease"_s, u"kube-public"_s, u"kube-system"_s }) {
        auto result = create(ResourceRef{ {}, u"v1"_s, u"namespaces"_s },
                             {},
                             json{ { "apiVersion", "v1" },
                                   { "kind", "Namespace" },
                                   { "metadata", { { "name", name.toStdString() } } } },
                             byApiServer);
        Q_ASSERT(result.ok());
    }
}

void Cluster::installCrdObject(const json &crd)
{
    // As reconscope's client would install it (its User-Agent names the manager).
    WriteOptions options;
    options.fieldManager = u"reconscope"_s;
    auto result
        = create(ResourceRef{ u"apiextensions.k8s.io"_s, u"v1"_s, u"customresourcedefinitions"_s },
                 {},
                 crd,
                 options);
    if (!result)
        qWarning("cluster: cannot install CRD: %s", qPrintable(result.error().message));
}

QList<ResourceType> Cluster::servedTypes() const
{
    QList<ResourceType> types;
    for (const TypePtr &entry : m_store.types()) {
        if (entry->type.served)
            types.append(entry->type);
    }
    return types;
}

std::optional<ResourceType> Cluster::findType(const ResourceRef &ref) const
{
    if (TypePtr entry = m_store.lookup(ref))
        return entry->type;
    return std::nullopt;
}

ApiResult<json> Cluster::get(const ResourceRef &ref, const QString &ns, const QString &name) const
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    auto record = getRecord(m_store, *type, ns, name);
    if (!record)
        return record.error();
    json object = m_store.parseRecord(*type, *record);
    m_lastRead = LastRead{ *record, type, object };
    return object;
}

ApiResult<json>
Cluster::list(const ResourceRef &ref, const QString &ns, const ListOptions &options) const
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    auto page = listRecords(m_store, *type, ns, options);
    if (!page)
        return page.error();
    json items = json::array();
    for (const RecordPtr &record : page->items)
        items.push_back(m_store.parseRecord(*type, record));
    json metadata = { { "continue", page->continueToken.toStdString() },
                      { "resourceVersion", std::to_string(page->resourceVersion) } };
    if (page->remainingItemCount)
        metadata["remainingItemCount"] = *page->remainingItemCount;
    return json{ { "apiVersion", type->type.groupVersion().toStdString() },
                 { "items", std::move(items) },
                 { "kind", type->type.listKind.toStdString() },
                 { "metadata", std::move(metadata) } };
}

ApiResult<WriteResult>
Cluster::create(const ResourceRef &ref, const QString &ns, json object, const WriteOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    return createObject(m_verbs, type, ns, std::move(object), options);
}

ApiResult<WriteResult> Cluster::update(const ResourceRef &ref,
                                       const QString &ns,
                                       const QString &name,
                                       json object,
                                       const WriteOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    return updateObject(m_verbs, type, ns, name, std::move(object), false, options);
}

ApiResult<WriteResult> Cluster::updateStatus(const ResourceRef &ref,
                                             const QString &ns,
                                             const QString &name,
                                             json object,
                                             const WriteOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type || !type->type.statusSubresource)
        return unknownResource(ref);
    return updateObject(m_verbs, type, ns, name, std::move(object), true, options);
}

ApiResult<WriteResult> Cluster::patch(const ResourceRef &ref,
                                      const QString &ns,
                                      const QString &name,
                                      PatchType patchType,
                                      const QByteArray &patchBody,
                                      bool statusSubresource,
                                      const WriteOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type || (statusSubresource && !type->type.statusSubresource))
        return unknownResource(ref);
    return patchObject(m_verbs, type, ns, name, patchType, patchBody, statusSubresource, options);
}

ApiResult<WriteResult> Cluster::remove(const ResourceRef &ref,
                                       const QString &ns,
                                       const QString &name,
                                       const DeleteOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    return deleteObject(m_verbs, type, ns, name, options);
}

ApiResult<std::shared_ptr<WatchStream>>
Cluster::watch(const ResourceRef &ref, const QString &ns, const WatchOptions &options)
{
    TypePtr type = m_store.lookup(ref);
    if (!type)
        return unknownResource(ref);
    return ClusterWatch::open(this, type, ns, options);
}

int Cluster::subscribe(std::function<void(const ClusterEvent &)> callback)
{
    return m_store.subscribe(std::move(callback));
}

void Cluster::unsubscribe(int id)
{
    m_store.unsubscribe(id);
}

void Cluster::setHistoryWindow(int events)
{
    m_store.setHistoryWindow(events);
}

void Cluster::compact()
{
    m_store.compact();
}

qsizetype Cluster::objectCount() const
{
    return m_store.objectCount();
}

} // namespace reconscope::controller::cluster
