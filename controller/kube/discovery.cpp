#include "controller/kube/discovery.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;
using apimachinery::ResourceRef;

namespace {

// A CRD as listed: a typed list's items carry no apiVersion and kind (kube-apiserver's list
// encoder drops them); the CRD is kept with them, as a document that says what it is.
QByteArray withCrdTypeMeta(const QByteArray &crd)
{
    auto object = nlohmann::json::parse(crd.constBegin(), crd.constEnd(), nullptr, false);
    if (!object.is_object() || object.contains("kind"))
        return crd;
    object["apiVersion"] = "apiextensions.k8s.io/v1";
    object["kind"] = "CustomResourceDefinition";
    return QByteArray::fromStdString(object.dump());
}

using models::jsonMember;
using models::jsonStrings;
using models::Result;
using ResourcesResult = Result<QList<DiscoveredResource>>;

nlohmann::json parse(const QByteArray &body)
{
    return nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
}

// Kubernetes version priority (v1 > v1beta2 > v1beta1 > v1alpha1 > foo): lower rank sorts first.
std::tuple<int, int, int, QString> versionRank(const QString &version)
{
    static const QRegularExpression pattern(u"^v(\\d+)(?:(alpha|beta)(\\d+))?$"_s);
    const auto match = pattern.match(version);
    if (!match.hasMatch())
        return { 3, 0, 0, version };
    const int major = match.captured(1).toInt();
    const QString stage = match.captured(2);
    const int minor = match.captured(3).toInt();
    const int stageRank = stage.isEmpty() ? 0 : stage == u"beta" ? 1 : 2;
    return { stageRank, -major, -minor, QString() };
}

} // namespace

namespace discovery {

bool isAggregated(const QByteArray &contentType)
{
    const QList<QByteArray> parts = contentType.toLower().split(';');
    bool group = false;
    bool list = false;
    bool version = false;
    for (const QByteArray &raw : parts) {
        const QByteArray part = raw.trimmed();
        group = group || part == "g=apidiscovery.k8s.io";
        list = list || part == "as=apigroupdiscoverylist";
        version = version || part == "v=v2" || part == "v=v2beta1";
    }
    return group && list && version;
}

ResourcesResult parseAggregated(const QByteArray &body)
{
    const auto json = parse(body);
    if (json.is_discarded() || !json.is_object())
        return ResourcesResult::failure(u"aggregated discovery: not JSON"_s);
    if (models::jsonString(json, "kind") != u"APIGroupDiscoveryList")
        return ResourcesResult::failure(
            u"aggregated discovery: kind is not APIGroupDiscoveryList"_s);
    QList<DiscoveredResource> out;
    const auto &items = jsonMember(json, "items");
    if (!items.is_array())
        return out;
    for (const auto &item : items) {
        const QString group = models::jsonString(jsonMember(item, "metadata"), "name");
        const auto &versions = jsonMember(item, "versions");
        if (!versions.is_array())
            continue;
        bool first = true;
        for (const auto &version : versions) {
            const QString versionName = models::jsonString(version, "version");
            const auto &resources = jsonMember(version, "resources");
            if (versionName.isEmpty() || !resources.is_array())
                continue;
            for (const auto &resource : resources) {
                const auto &responseKind = jsonMember(resource, "responseKind");
                if (!responseKind.is_object())
                    continue; // client-go drops these
                DiscoveredResource entry;
                entry.group = group;
                entry.version = versionName;
                entry.plural = models::jsonString(resource, "resource");
                entry.singular = models::jsonString(resource, "singularResource");
                entry.kind = models::jsonString(responseKind, "kind");
                entry.namespaced = models::jsonString(resource, "scope") == u"Namespaced";
                entry.verbs = jsonStrings(jsonMember(resource, "verbs"));
                entry.shortNames = jsonStrings(jsonMember(resource, "shortNames"));
                entry.categories = jsonStrings(jsonMember(resource, "categories"));
                entry.preferredVersion = first;
                const auto &subresources = jsonMember(resource, "subresources");
                if (subresources.is_array()) {
                    for (const auto &subresource : subresources) {
                        const QString name = models::jsonString(subresource, "subresource");
                        entry.statusSubresource = entry.statusSubresource || name == u"status";
                        entry.scaleSubresource = entry.scaleSubresource || name == u"scale";
                    }
                }
                if (!entry.plural.isEmpty() && !entry.kind.isEmpty())
                    out << entry;
            }
            first = false;
        }
    }
    return out;
}

ResourcesResult parseResourceList(const QByteArray &body,
                                  const QString &group,
                                  const QString &version,
                                  bool preferred)
{
    const auto json = parse(body);
    if (json.is_discarded() || !json.is_object())
        return ResourcesResult::failure(u"discovery of %1: not JSON"_s.arg(version));
    QList<DiscoveredResource> out;
    QHash<QString, qsizetype> index;
    QList<std::pair<QString, QString>> subresources;
    const auto &resources = jsonMember(json, "resources");
    if (!resources.is_array())
        return out;
    for (const auto &resource : resources) {
        const QString name = models::jsonString(resource, "name");
        const auto slash = name.indexOf(u'/');
        if (slash >= 0) {
            subresources.append({ name.left(slash), name.mid(slash + 1) });
            continue;
        }
        DiscoveredResource entry;
        entry.group = group;
        entry.version = version;
        entry.plural = name;
        entry.singular = models::jsonString(resource, "singularName");
        entry.kind = models::jsonString(resource, "kind");
        const auto &namespaced = jsonMember(resource, "namespaced");
        entry.namespaced = namespaced.is_boolean() && namespaced.get<bool>();
        entry.verbs = jsonStrings(jsonMember(resource, "verbs"));
        entry.shortNames = jsonStrings(jsonMember(resource, "shortNames"));
        entry.categories = jsonStrings(jsonMember(resource, "categories"));
        entry.preferredVersion = preferred;
        if (entry.singular.isEmpty())
            entry.singular = entry.kind.toLower();
        index.insert(name, out.size());
        out << entry;
    }
    for (const auto &[parent, subresource] : subresources) {
        const auto it = index.constFind(parent);
        if (it == index.cend())
            continue;
        out[*it].statusSubresource = out[*it].statusSubresource || subresource == u"status";
        out[*it].scaleSubresource = out[*it].scaleSubresource || subresource == u"scale";
    }
    return out;
}

QList<DiscoveredResource> fromCrd(const QByteArray &crdJson)
{
    QList<DiscoveredResource> out;
    const auto json = parse(crdJson);
    if (json.is_discarded())
        return out;
    const auto &conditions = jsonMember(jsonMember(json, "status"), "conditions");
    if (conditions.is_array() && !conditions.empty()) {
        bool established = false;
        for (const auto &condition : conditions) {
            established = established
                || (models::jsonString(condition, "type") == u"Established"
                    && models::jsonString(condition, "status") == u"True");
        }
        if (!established)
            return out;
    }
    const auto &spec = jsonMember(json, "spec");
    const auto &names = jsonMember(spec, "names");
    DiscoveredResource base;
    base.group = models::jsonString(spec, "group");
    base.plural = models::jsonString(names, "plural");
    base.kind = models::jsonString(names, "kind");
    base.singular = models::jsonString(names, "singular");
    if (base.singular.isEmpty())
        base.singular = base.kind.toLower();
    base.shortNames = jsonStrings(jsonMember(names, "shortNames"));
    base.categories = jsonStrings(jsonMember(names, "categories"));
    base.namespaced = models::jsonString(spec, "scope") != u"Cluster";
    base.verbs = { u"delete"_s, u"deletecollection"_s, u"get"_s,    u"list"_s,
                   u"patch"_s,  u"create"_s,           u"update"_s, u"watch"_s };
    base.fromCrd = true;
    if (base.group.isEmpty() || base.plural.isEmpty() || base.kind.isEmpty())
        return out;
    const auto &versions = jsonMember(spec, "versions");
    if (!versions.is_array())
        return out;
    for (const auto &version : versions) {
        const auto &served = jsonMember(version, "served");
        if (!served.is_boolean() || !served.get<bool>())
            continue;
        DiscoveredResource entry = base;
        entry.version = models::jsonString(version, "name");
        const auto &subresources = jsonMember(version, "subresources");
        entry.statusSubresource = jsonMember(subresources, "status").is_object();
        entry.scaleSubresource = jsonMember(subresources, "scale").is_object();
        if (!entry.version.isEmpty())
            out << entry;
    }
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        return versionRank(a.version) < versionRank(b.version);
    });
    for (qsizetype i = 0; i < out.size(); ++i)
        out[i].preferredVersion = i == 0;
    return out;
}

Result<DiscoveredResource> resolve(const QList<DiscoveredResource> &resources,
                                   const QString &argument)
{
    const QString arg = argument.trimmed().toLower();
    auto notFound = [&] {
        return Result<DiscoveredResource>::failure(
            u"the server doesn't have a resource type \"%1\""_s.arg(argument.trimmed()));
    };
    if (arg.isEmpty())
        return notFound();

    struct Query
    {
        QString resource;
        std::optional<QString> group;
        std::optional<QString> version;
    };
    QList<Query> queries;
    const QStringList parts = arg.split(u'.');
    if (parts.size() >= 3) // resource.version.group
        queries.append({ parts[0], parts.mid(2).join(u'.'), parts[1] });
    if (parts.size() >= 2) // resource.group
        queries.append({ parts[0], parts.mid(1).join(u'.'), std::nullopt });
    else
        queries.append({ arg, std::nullopt, std::nullopt });

    for (const Query &query : queries) {
        auto pick = [&](auto matches) -> std::optional<DiscoveredResource> {
            std::optional<DiscoveredResource> firstMatch;
            for (const DiscoveredResource &resource : resources) {
                if (query.group && resource.group.toLower() != *query.group)
                    continue;
                if (query.version && resource.version.toLower() != *query.version)
                    continue;
                if (!matches(resource))
                    continue;
                if (!firstMatch) {
                    firstMatch = resource;
                    if (resource.preferredVersion || query.version)
                        return firstMatch;
                    continue;
                }
                // Same group, preferred version: better than the first (non-preferred) match.
                if (resource.group == firstMatch->group && resource.preferredVersion)
                    return resource;
            }
            return firstMatch;
        };
        // kubectl expands short names first, then matches plural, singular and kind.
        auto byShortName = pick([&](const DiscoveredResource &resource) {
            for (const QString &shortName : resource.shortNames) {
                if (shortName.toLower() == query.resource)
                    return true;
            }
            return false;
        });
        if (byShortName)
            return *byShortName;
        auto byName = pick([&](const DiscoveredResource &resource) {
            return resource.plural.toLower() == query.resource
                || resource.singular.toLower() == query.resource
                || resource.kind.toLower() == query.resource;
        });
        if (byName)
            return *byName;
    }
    return notFound();
}

} // namespace discovery

const ResourceRef DiscoveryClient::CustomResourceDefinitions{
    u"apiextensions.k8s.io"_s, u"v1"_s, u"customresourcedefinitions"_s, false
};

const QByteArray DiscoveryClient::AggregatedAccept
    = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
      "application/json";

DiscoveryClient::DiscoveryClient(RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_refreshTimer(new QTimer(this))
{
    // CRD changes come in bursts (create, then Established): discover once per burst.
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(200);
    connect(m_refreshTimer, &QTimer::timeout, this, &DiscoveryClient::refresh);
}

DiscoveryClient::~DiscoveryClient() = default;

void DiscoveryClient::refresh()
{
    const quint64 round = ++m_round;
    m_pending = 2;
    m_roundError.reset();
    m_coreResources.clear();
    m_groupResources.clear();
    for (const bool core : { true, false }) {
        m_client->request("GET",
                          core ? u"/api"_s : u"/apis"_s,
                          {},
                          {},
                          {},
                          AggregatedAccept,
                          [this, round, core](Result<RawResponse, ApiError> response) {
                              if (round == m_round)
                                  handleRoot(core, std::move(response));
                          });
    }
}

void DiscoveryClient::handleRoot(bool core, Result<RawResponse, ApiError> response)
{
    if (!response) {
        // /apis must succeed; /api may be missing on a server without the core group.
        if (!core)
            m_roundError = response.error();
        finishPart(std::nullopt);
        return;
    }
    if (discovery::isAggregated(response->contentType)) {
        m_aggregated = true;
        auto parsed = discovery::parseAggregated(response->body);
        if (!parsed) {
            finishPart(ApiError::make(ApiError::Category::Decode, parsed.error().message));
            return;
        }
        for (auto &resource : parsed.value())
            resource.group = core ? QString() : resource.group;
        (core ? m_coreResources : m_groupResources) = std::move(parsed.value());
        finishPart(std::nullopt);
        return;
    }
    m_aggregated = false;
    const auto json
        = nlohmann::json::parse(response->body.begin(), response->body.end(), nullptr, false);
    if (core) {
        // APIVersions: {"versions":["v1"]}
        for (const QString &version : jsonStrings(jsonMember(json, "versions")))
            requestGroupVersion(QString(), version, version == u"v1");
    } else {
        // APIGroupList
        const auto &groups = jsonMember(json, "groups");
        if (groups.is_array()) {
            for (const auto &group : groups) {
                const QString name = models::jsonString(group, "name");
                const QString preferred
                    = models::jsonString(jsonMember(group, "preferredVersion"), "version");
                const auto &versions = jsonMember(group, "versions");
                if (!versions.is_array())
                    continue;
                for (const auto &version : versions) {
                    const QString versionName = models::jsonString(version, "version");
                    requestGroupVersion(name, versionName, versionName == preferred);
                }
            }
        }
    }
    finishPart(std::nullopt);
}

void DiscoveryClient::requestGroupVersion(const QString &group,
                                          const QString &version,
                                          bool preferred)
{
    ++m_pending;
    const quint64 round = m_round;
    const QString path
        = group.isEmpty() ? u"/api/"_s + version : u"/apis/"_s + group + u'/' + version;
    // Keep discovery order: reserve the slot now, fill it when the answer comes.
    QList<DiscoveredResource> &target = group.isEmpty() ? m_coreResources : m_groupResources;
    DiscoveredResource placeholder;
    placeholder.group = group;
    placeholder.version = version;
    target << placeholder; // a placeholder has no plural and is removed when filled
    m_client->request(
        "GET",
        path,
        {},
        {},
        {},
        "application/json",
        [this, round, group, version, preferred](Result<RawResponse, ApiError> response) {
            if (round != m_round)
                return;
            QList<DiscoveredResource> &list = group.isEmpty() ? m_coreResources : m_groupResources;
            const auto slot = std::find_if(list.begin(), list.end(), [&](const auto &r) {
                return r.plural.isEmpty() && r.group == group && r.version == version;
            });
            const qsizetype at = slot - list.begin();
            if (slot != list.end())
                list.removeAt(at);
            if (!response) {
                finishPart(response.error());
                return;
            }
            auto parsed = discovery::parseResourceList(response->body, group, version, preferred);
            if (!parsed) {
                finishPart(ApiError::make(ApiError::Category::Decode, parsed.error().message));
                return;
            }
            for (qsizetype i = 0; i < parsed->size(); ++i)
                list.insert(std::min(at + i, list.size()), parsed->at(i));
            finishPart(std::nullopt);
        });
}

void DiscoveryClient::finishPart(const std::optional<ApiError> &error)
{
    if (error && !m_roundError)
        m_roundError = error;
    if (--m_pending > 0)
        return;
    const bool rootFailed = m_coreResources.isEmpty() && m_groupResources.isEmpty() && m_roundError;
    if (!rootFailed) {
        m_discovered = m_coreResources + m_groupResources;
        m_discovered.removeIf([](const auto &r) { return r.plural.isEmpty(); });
        emit resourcesChanged();
    }
    if (m_roundError)
        emit discoveryFailed(*m_roundError);
}

QList<DiscoveredResource> DiscoveryClient::resources() const
{
    QList<DiscoveredResource> all = m_discovered;
    QSet<QString> seen;
    for (const auto &resource : all)
        seen.insert(resource.groupVersion() + u'/' + resource.plural);
    for (const QByteArray &crd : m_crds) {
        for (const auto &resource : discovery::fromCrd(crd)) {
            if (!seen.contains(resource.groupVersion() + u'/' + resource.plural))
                all << resource;
        }
    }
    return all;
}

Result<DiscoveredResource> DiscoveryClient::resolve(const QString &argument) const
{
    return discovery::resolve(resources(), argument);
}

void DiscoveryClient::watchCrds()
{
    if (m_crdReflector)
        return;
    m_crdReflector = new Reflector(m_client, CustomResourceDefinitions, QString(), this);
    connect(m_crdReflector, &Reflector::deltasReceived, this, &DiscoveryClient::handleCrdDeltas);
    m_crdReflector->start();
}

void DiscoveryClient::stop()
{
    if (m_crdReflector)
        m_crdReflector->stop();
    m_refreshTimer->stop();
    ++m_round;
}

void DiscoveryClient::handleCrdDeltas(const QList<Delta> &deltas)
{
    QStringList upserted;
    QStringList removed;
    for (const Delta &delta : deltas) {
        const QString name = delta.meta.name;
        if (delta.type == Delta::Type::Delete) {
            if (m_crds.remove(name))
                removed << name;
            continue;
        }
        const QByteArray crd = withCrdTypeMeta(delta.object);
        if (m_crds.value(name) == crd)
            continue;
        m_crds.insert(name, crd);
        upserted << name;
    }
    if (upserted.isEmpty() && removed.isEmpty())
        return;
    emit crdsChanged(upserted, removed);
    // Resources of new CRDs are usable at once (from the CRD); discovery confirms them.
    emit resourcesChanged();
    m_refreshTimer->start();
}

} // namespace reconscope::controller::kube
