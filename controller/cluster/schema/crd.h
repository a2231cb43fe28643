#pragma once

#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::cluster {

// One ResourceType per spec.versions[] entry (served or not), in the CRD's order. Applies the CRD
// defaults first; fails with the formatted FieldErrors of validateCrd().
models::Result<QList<ResourceType>> resourceTypesFromCrd(const nlohmann::json &crd);
// CRD validation as the apiextensions-apiserver does it on create/update: name == plural.group,
// group has a dot, names are DNS labels, exactly one storage version, structural schemas...
QList<FieldError> validateCrd(const nlohmann::json &crd);
// The defaults the API server sets on a CRD: singular/listKind, conversion None, served/storage
// flags left as given, schema defaults inside each version.
void applyCrdDefaults(nlohmann::json &crd);

} // namespace reconscope::controller::cluster
