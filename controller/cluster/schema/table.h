#pragma once

#include "controller/cluster/resourcetype.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QStringView>

#include <vector>

namespace reconscope::controller::cluster {

// meta.k8s.io/v1 Table for kubectl get: columnDefinitions from printer columns (default Name +
// Age), rows with cells and `object` as PartialObjectMetadata (includeObject = "Metadata"
// default, "Object", "None").
nlohmann::json renderTable(const ResourceType &type,
                           const std::vector<const nlohmann::json *> &items,
                           const nlohmann::json &listMetadata,
                           QStringView includeObject,
                           const QDateTime &now);

} // namespace reconscope::controller::cluster
