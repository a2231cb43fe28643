#pragma once

#include "controller/apimachinery/status.h"

#include <nlohmann/json.hpp>

#include <QByteArray>

// A hand-written reader for the protobuf request bodies kubectl's typed commands send
// (`kubectl create namespace|configmap|secret|deployment`, `kubectl auth can-i`): the "k8s\0"
// runtime.Unknown envelope and the fields of Namespace, ConfigMap, Secret, apps/v1 Deployment and
// authorization/v1 SelfSubjectAccessReview, turned into the JSON object the typed JSON encoder
// would write for the same value, so that the body then takes the JSON path.
namespace reconscope::controller::cluster {

// The JSON object of `body` (apiVersion and kind from the envelope). A kind or field the tables do
// not know is a 415 that names it (never silently dropped); truncated or malformed wire data is a
// 400.
apimachinery::ApiResult<nlohmann::json> protobufBodyToJson(const QByteArray &body);

} // namespace reconscope::controller::cluster
