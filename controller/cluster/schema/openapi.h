#pragma once

#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::cluster {

// GET /openapi/v3: {"paths":{"apis/G/V":{"serverRelativeURL":"/openapi/v3/apis/G/V?hash=<HEX>"}}}
nlohmann::json openApiV3Index(const QList<ResourceType> &types);
// GET /openapi/v3/apis/G/V or /openapi/v3/api/v1 (groupVersion "G/V" or "v1"); null when nothing
// is served there. Component schemas are keyed by kube-openapi's REST-friendly model name
// ("net.internal.infrastructure.v1.CustomApp" for group infrastructure.internal.net; built-ins
// "io.k8s.api.core.v1.Pod"), carry x-kubernetes-group-version-kind, and PATCH operations list the
// fieldValidation parameter, so kubectl 1.32 leaves validation to the server (--validate=strict).
nlohmann::json openApiV3Document(const QString &groupVersion, const QList<ResourceType> &types);
// GET /openapi/v2 (JSON; kubectl asks for protobuf first and needs a 406/JSON fallback). Schemas
// stripped as ToStructuralOpenAPIV2 does (no nullable/anyOf/preserve-unknown-fields properties).
nlohmann::json openApiV2(const QList<ResourceType> &types);

} // namespace reconscope::controller::cluster
