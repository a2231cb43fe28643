#include "controller/apimachinery/options.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::apimachinery {

QByteArray DeleteOptions::toJson() const
{
    nlohmann::json body = { { "kind", "DeleteOptions" }, { "apiVersion", "v1" } };
    if (!propagationPolicy.isEmpty())
        body["propagationPolicy"] = propagationPolicy.toStdString();
    if (gracePeriodSeconds)
        body["gracePeriodSeconds"] = *gracePeriodSeconds;
    if (orphanDependents)
        body["orphanDependents"] = *orphanDependents;
    if (dryRun)
        body["dryRun"] = nlohmann::json::array({ "All" });
    if (!preconditionResourceVersion.isEmpty() || !preconditionUid.isEmpty()) {
        auto &preconditions = body["preconditions"];
        preconditions = nlohmann::json::object();
        if (!preconditionResourceVersion.isEmpty())
            preconditions["resourceVersion"] = preconditionResourceVersion.toStdString();
        if (!preconditionUid.isEmpty())
            preconditions["uid"] = preconditionUid.toStdString();
    }
    return QByteArray::fromStdString(body.dump());
}

QByteArray patchMediaType(PatchType type)
{
    switch (type) {
    case PatchType::Merge:
        return "application/merge-patch+json";
    case PatchType::Json:
        return "application/json-patch+json";
    case PatchType::Strategic:
        return "application/strategic-merge-patch+json";
    case PatchType::Apply:
        return "application/apply-patch+yaml";
    }
    return {};
}

} // namespace reconscope::controller::apimachinery
