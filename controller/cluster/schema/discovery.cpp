#include "controller/cluster/schema/discovery.h"

namespace reconscope::controller::cluster {

nlohmann::json aggregatedDiscovery(const QList<ResourceType> &, bool)
{
    return { { "kind", "APIGroupDiscoveryList" },
             { "apiVersion", "apidiscovery.k8s.io/v2" },
             { "metadata", nlohmann::json::object() },
             { "items", nlohmann::json::array() } };
}

nlohmann::json apiVersions()
{
    return { { "kind", "APIVersions" }, { "versions", { "v1" } } };
}

nlohmann::json apiGroupList(const QList<ResourceType> &)
{
    return { { "kind", "APIGroupList" },
             { "apiVersion", "v1" },
             { "groups", nlohmann::json::array() } };
}

nlohmann::json apiGroup(const QString &group, const QList<ResourceType> &)
{
    return { { "kind", "APIGroup" }, { "apiVersion", "v1" }, { "name", group.toStdString() } };
}

nlohmann::json apiResourceList(const QString &groupVersion, const QList<ResourceType> &)
{
    return { { "kind", "APIResourceList" },
             { "apiVersion", "v1" },
             { "groupVersion", groupVersion.toStdString() },
             { "resources", nlohmann::json::array() } };
}

} // namespace reconscope::controller::cluster
