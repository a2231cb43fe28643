#pragma once

#include "controller/apimachinery/status.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

#include <optional>

// A hand-written reader for the protobuf request bodies kubectl's typed commands send
// (`kubectl create namespace|configmap|secret|deployment`, `kubectl auth can-i`): the "k8s\0"
// runtime.Unknown envelope and the fields of Namespace, ConfigMap, Secret, apps/v1 Deployment and
// authorization/v1 SelfSubjectAccessReview, turned into the JSON object the typed JSON encoder
// would write for the same value, so that the body then takes the JSON path.
namespace reconscope::controller::cluster {

// What upstream's protobuf serializer says of a body before it reads the envelope: no data, no
// "k8s\0" prefix, nothing after it; nullopt when there is an envelope to read.
std::optional<QString> protobufPrefixError(const QByteArray &body);

// The JSON object of `body` (apiVersion and kind from the envelope; an empty kind is
// `defaultKind`, an empty apiVersion that of the kind, as the serializer defaults them from the
// endpoint). A kind or field the tables do not know is a 415 that names it (never silently
// dropped); truncated or malformed wire data is a 400.
apimachinery::ApiResult<nlohmann::json> protobufBodyToJson(const QByteArray &body,
                                                           const QString &defaultKind = {});

} // namespace reconscope::controller::cluster
