#pragma once

#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::cluster {

// GET /openapi/v3: {"paths":{"apis/G/V":{"serverRelativeURL":"/openapi/v3/apis/G/V?hash=<HEX>"}}}
nlohmann::json openApiV3Index(const QList<ResourceType> &types);
// GET /openapi/v3/apis/G/V or /openapi/v3/api/v1
nlohmann::json openApiV3Document(const QString &groupVersion, const QList<ResourceType> &types);
// GET /openapi/v2 (JSON)
nlohmann::json openApiV2(const QList<ResourceType> &types);

} // namespace reconscope::controller::cluster
