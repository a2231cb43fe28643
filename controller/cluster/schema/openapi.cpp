#include "controller/cluster/schema/openapi.h"

namespace reconscope::controller::cluster {

nlohmann::json openApiV3Index(const QList<ResourceType> &)
{
    return { { "paths", nlohmann::json::object() } };
}

nlohmann::json openApiV3Document(const QString &, const QList<ResourceType> &)
{
    return { { "openapi", "3.0.0" },
             { "components", { { "schemas", nlohmann::json::object() } } } };
}

nlohmann::json openApiV2(const QList<ResourceType> &)
{
    return { { "swagger", "2.0" }, { "definitions", nlohmann::json::object() } };
}

} // namespace reconscope::controller::cluster
