#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>

// What decoding a request body into a built-in kind's Go type refuses, before any admission,
// that the embedded cluster (which keeps built-in objects as JSON) checks itself: a body of
// another kind (no conversion between kinds), quantities that do not parse, []byte members
// that are not base64. The 400 names the body's kind, as the codec's "Secret in version "v1"
// cannot be handled as a ConfigMap: ..." does.
namespace reconscope::controller::cluster {

// The decoding error of a create or update body of built-in `type`, or nothing. Objects of
// other kinds (custom resources, CRDs) pass.
std::optional<apimachinery::ApiError> builtinDecodeError(const ResourceType &type,
                                                         const nlohmann::json &object);

// Calls `visit` with each quantity member of a built-in object, in key order: the container
// resources, overhead and emptyDir size limits of a Pod or pod template, a ResourceQuota's hard
// and used amounts.
void forEachQuantity(const ResourceType &type,
                     nlohmann::json &object,
                     const std::function<void(nlohmann::json &)> &visit);

// The message of Go's base64.StdEncoding.Decode refusing `text` ("illegal base64 data at input
// byte 3"), or nothing when it decodes.
std::optional<QString> goBase64Error(const std::string &text);

} // namespace reconscope::controller::cluster
