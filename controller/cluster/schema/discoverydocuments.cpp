#include "controller/cluster/schema/discoverydocuments.h"

#include <QCryptographicHash>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

const json resourceVerbs
    = { "delete", "deletecollection", "get", "list", "patch", "create", "update", "watch" };
const json subresourceVerbs = { "get", "patch", "update" };

// apimachinery's version.CompareKubeAwareVersionStrings: GA before beta before alpha before
// anything else; higher numbers first.
bool kubeAwareLess(const QString &a, const QString &b)
{
    static const QRegularExpression re(u"\\Av(\\d+)(?:(alpha|beta)(\\d+))?\\z"_s);
    const auto ma = re.match(a), mb = re.match(b);
    if (!ma.hasMatch() || !mb.hasMatch()) {
        if (ma.hasMatch() != mb.hasMatch())
            return ma.hasMatch();
        return a < b;
    }
    const auto rank = [](const QRegularExpressionMatch &m) {
        const QString kind = m.captured(2);
        return kind.isEmpty() ? 0 : (kind == u"beta"_s ? 1 : 2);
    };
    if (rank(ma) != rank(mb))
        return rank(ma) < rank(mb);
    const int majorA = ma.captured(1).toInt(), majorB = mb.captured(1).toInt();
    if (majorA != majorB)
        return majorA > majorB;
    return ma.captured(3).toInt() > mb.captured(3).toInt();
}

struct GroupVersions
{
    QString group;
    QStringList versions; // kube-aware order, preferred first
};

// The served groups, in the order of their first appearance, with their served versions.
QList<GroupVersions> servedGroups(const QList<ResourceType> &types)
{
    QList<GroupVersions> groups;
    for (const ResourceType &type : types) {
        if (!type.served)
            continue;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const GroupVersions &g) {
            return g.group == type.group;
        });
        if (it == groups.end()) {
            groups.append({ type.group, {} });
            it = groups.end() - 1;
        }
        if (!it->versions.contains(type.version))
            it->versions.append(type.version);
    }
    for (GroupVersions &g : groups)
        std::stable_sort(g.versions.begin(), g.versions.end(), kubeAwareLess);
    return groups;
}

QList<ResourceType>
resourcesOf(const QList<ResourceType> &types, const QString &group, const QString &version)
{
    QList<ResourceType> out;
    for (const ResourceType &type : types) {
        if (type.served && type.group == group && type.version == version)
            out.append(type);
    }
    std::stable_sort(out.begin(), out.end(), [](const ResourceType &a, const ResourceType &b) {
        return a.plural < b.plural;
    });
    return out;
}

json strings(const QStringList &list)
{
    json out = json::array();
    for (const QString &s : list)
        out.push_back(s.toStdString());
    return out;
}

json groupVersionEntry(const QString &group, const QString &version)
{
    const QString gv = group.isEmpty() ? version : group + u'/' + version;
    return { { "groupVersion", gv.toStdString() }, { "version", version.toStdString() } };
}

json groupEntry(const GroupVersions &g)
{
    json versions = json::array();
    for (const QString &version : g.versions)
        versions.push_back(groupVersionEntry(g.group, version));
    return { { "name", g.group.toStdString() },
             { "versions", std::move(versions) },
             { "preferredVersion", groupVersionEntry(g.group, g.versions.first()) } };
}

// apiserver's discovery.StorageVersionHash: base64 of the first 8 bytes of
// sha256("group/version/kind") of the storage version.
QString storageVersionHash(const ResourceType &type, const QList<ResourceType> &types)
{
    QString version = type.version;
    for (const ResourceType &other : types) {
        if (other.group == type.group && other.plural == type.plural && other.storage) {
            version = other.version;
            break;
        }
    }
    const QByteArray digest = QCryptographicHash::hash(
        (type.group + u'/' + version + u'/' + type.kind).toUtf8(), QCryptographicHash::Sha256);
    return QString::fromLatin1(digest.left(8).toBase64());
}

} // namespace

json aggregatedDiscovery(const QList<ResourceType> &types, bool coreGroup)
{
    json items = json::array();
    for (const GroupVersions &g : servedGroups(types)) {
        if (g.group.isEmpty() != coreGroup)
            continue;
        json versions = json::array();
        for (const QString &version : g.versions) {
            json resources = json::array();
            for (const ResourceType &type : resourcesOf(types, g.group, version)) {
                const json responseKind = { { "group", type.group.toStdString() },
                                            { "version", type.version.toStdString() },
                                            { "kind", type.kind.toStdString() } };
                json resource = { { "resource", type.plural.toStdString() },
                                  { "responseKind", responseKind },
                                  { "scope", type.namespaced ? "Namespaced" : "Cluster" },
                                  { "singularResource", type.singular.toStdString() },
                                  { "verbs", resourceVerbs } };
                if (!type.shortNames.isEmpty())
                    resource["shortNames"] = strings(type.shortNames);
                if (!type.categories.isEmpty())
                    resource["categories"] = strings(type.categories);
                json subresources = json::array();
                // Status before scale, as the apiextensions discovery controller lists them.
                if (type.statusSubresource)
                    subresources.push_back({ { "subresource", "status" },
                                             { "responseKind", responseKind },
                                             { "verbs", subresourceVerbs } });
                if (type.scaleSubresource)
                    subresources.push_back({ { "subresource", "scale" },
                                             { "responseKind",
                                               { { "group", "autoscaling" },
                                                 { "version", "v1" },
                                                 { "kind", "Scale" } } },
                                             { "verbs", subresourceVerbs } });
                if (!subresources.empty())
                    resource["subresources"] = std::move(subresources);
                resources.push_back(std::move(resource));
            }
            versions.push_back({ { "version", version.toStdString() },
                                 { "resources", std::move(resources) },
                                 { "freshness", "Current" } });
        }
        json metadata = { { "creationTimestamp", nullptr } };
        if (!g.group.isEmpty())
            metadata["name"] = g.group.toStdString();
        items.push_back(
            { { "metadata", std::move(metadata) }, { "versions", std::move(versions) } });
    }
    return { { "kind", "APIGroupDiscoveryList" },
             { "apiVersion", "apidiscovery.k8s.io/v2" },
             { "metadata", json::object() },
             { "items", std::move(items) } };
}

json apiVersions()
{
    return { { "kind", "APIVersions" },
             { "versions", { "v1" } },
             { "serverAddressByClientCIDRs", json::array() } };
}

json apiGroupList(const QList<ResourceType> &types)
{
    json groups = json::array();
    for (const GroupVersions &g : servedGroups(types)) {
        if (!g.group.isEmpty())
            groups.push_back(groupEntry(g));
    }
    return { { "kind", "APIGroupList" }, { "apiVersion", "v1" }, { "groups", std::move(groups) } };
}

json apiGroup(const QString &group, const QList<ResourceType> &types)
{
    for (const GroupVersions &g : servedGroups(types)) {
        if (g.group == group && !group.isEmpty()) {
            json entry = groupEntry(g);
            return { { "kind", "APIGroup" },
                     { "apiVersion", "v1" },
                     { "name", entry["name"] },
                     { "versions", entry["versions"] },
                     { "preferredVersion", entry["preferredVersion"] } };
        }
    }
    return nullptr;
}

json apiResourceList(const QString &groupVersion, const QList<ResourceType> &types)
{
    const qsizetype slash = groupVersion.indexOf(u'/');
    const QString group = slash < 0 ? QString() : groupVersion.left(slash);
    const QString version = slash < 0 ? groupVersion : groupVersion.mid(slash + 1);
    const QList<ResourceType> resources = resourcesOf(types, group, version);
    if (resources.isEmpty())
        return nullptr;
    json list = json::array();
    for (const ResourceType &type : resources) {
        json resource = { { "name", type.plural.toStdString() },
                          { "singularName", type.singular.toStdString() },
                          { "namespaced", type.namespaced },
                          { "kind", type.kind.toStdString() },
                          { "verbs", resourceVerbs } };
        if (!type.shortNames.isEmpty())
            resource["shortNames"] = strings(type.shortNames);
        if (!type.categories.isEmpty())
            resource["categories"] = strings(type.categories);
        resource["storageVersionHash"] = storageVersionHash(type, types).toStdString();
        list.push_back(std::move(resource));
        if (type.statusSubresource)
            list.push_back({ { "name", (type.plural + u"/status"_s).toStdString() },
                             { "singularName", "" },
                             { "namespaced", type.namespaced },
                             { "kind", type.kind.toStdString() },
                             { "verbs", subresourceVerbs } });
        if (type.scaleSubresource)
            list.push_back({ { "name", (type.plural + u"/scale"_s).toStdString() },
                             { "singularName", "" },
                             { "namespaced", type.namespaced },
                             { "group", "autoscaling" },
                             { "version", "v1" },
                             { "kind", "Scale" },
                             { "verbs", subresourceVerbs } });
    }
    return { { "kind", "APIResourceList" },
             { "apiVersion", "v1" },
             { "groupVersion", groupVersion.toStdString() },
             { "resources", std::move(list) } };
}

} // namespace reconscope::controller::cluster
