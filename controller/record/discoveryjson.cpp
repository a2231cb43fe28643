#include "controller/record/discoveryjson.h"

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

QString stringOf(const json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

QStringList stringsOf(const json &object, const char *key)
{
    QStringList strings;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_array())
        return strings;
    for (const json &item : *it) {
        if (item.is_string())
            strings.append(QString::fromStdString(item.get<std::string>()));
    }
    return strings;
}

bool boolOf(const json &object, const char *key, bool otherwise)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_boolean() ? it->get<bool>() : otherwise;
}

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
        if (!item.is_object() || stringOf(item, "plural").isEmpty())
            continue;
        kube::DiscoveredResource r;
        r.group = stringOf(item, "group");
        r.version = stringOf(item, "version");
        r.plural = stringOf(item, "plural");
        r.singular = stringOf(item, "singular");
        r.kind = stringOf(item, "kind");
        r.namespaced = boolOf(item, "namespaced", true);
        r.shortNames = stringsOf(item, "shortNames");
        r.categories = stringsOf(item, "categories");
        r.verbs = stringsOf(item, "verbs");
        r.preferredVersion = boolOf(item, "preferredVersion", false);
        r.statusSubresource = boolOf(item, "status", false);
        r.scaleSubresource = boolOf(item, "scale", false);
        resources.append(r);
    }
    return resources;
}

} // namespace reconscope::controller::record
