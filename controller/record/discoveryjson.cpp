#include "controller/record/discoveryjson.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace reconscope::controller::record {

namespace {

json stringsJson(const QStringList &strings)
{
    json array = json::array();
    for (const QString &string : strings)
        array.push_back(string.toStdString());
    return array;
}

using models::jsonBool;
using models::jsonMember;
using models::jsonString;
using models::jsonStrings;

} // namespace

QByteArray discoveryToJson(const QList<kube::DiscoveredResource> &resources)
{
    json array = json::array();
    for (const kube::DiscoveredResource &r : resources) {
        array.push_back({ { "group", r.group.toStdString() },
                          { "version", r.version.toStdString() },
                          { "plural", r.plural.toStdString() },
                          { "singular", r.singular.toStdString() },
                          { "kind", r.kind.toStdString() },
                          { "namespaced", r.namespaced },
                          { "shortNames", stringsJson(r.shortNames) },
                          { "categories", stringsJson(r.categories) },
                          { "verbs", stringsJson(r.verbs) },
                          { "preferredVersion", r.preferredVersion },
                          { "status", r.statusSubresource },
                          { "scale", r.scaleSubresource } });
    }
    return QByteArray::fromStdString(array.dump());
}

QList<kube::DiscoveredResource> discoveryFromJson(QByteArrayView bytes)
{
    QList<kube::DiscoveredResource> resources;
    const json array = json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!array.is_array())
        return resources;
    for (const json &item : array) {
        if (!item.is_object() || jsonString(item, "plural").isEmpty())
            continue;
        kube::DiscoveredResource r;
        r.group = jsonString(item, "group");
        r.version = jsonString(item, "version");
        r.plural = jsonString(item, "plural");
        r.singular = jsonString(item, "singular");
        r.kind = jsonString(item, "kind");
        r.namespaced = jsonBool(item, "namespaced", true);
        r.shortNames = jsonStrings(jsonMember(item, "shortNames"));
        r.categories = jsonStrings(jsonMember(item, "categories"));
        r.verbs = jsonStrings(jsonMember(item, "verbs"));
        r.preferredVersion = jsonBool(item, "preferredVersion", false);
        r.statusSubresource = jsonBool(item, "status", false);
        r.scaleSubresource = jsonBool(item, "scale", false);
        resources.append(r);
    }
    return resources;
}

} // namespace reconscope::controller::record
