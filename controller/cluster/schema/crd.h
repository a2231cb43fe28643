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
// group has a dot, scope, names are DNS labels, unique versions with exactly one storage version,
// structural schemas (types, metadata, items, additionalProperties, int-or-string, list types,
// value validations only inside allOf/anyOf/oneOf/not), pruned and valid defaults, scale paths,
// printer columns, selectableFields. Not checked: CEL rule compilation, status.storedVersions.
QList<FieldError> validateCrd(const nlohmann::json &crd);
// status.storedVersions as a create or update must leave it: not empty, holding the storage
// version, naming only versions spec.versions lists
// (ValidateCustomResourceDefinitionStoredVersions).
QList<FieldError> validateCrdStoredVersions(const nlohmann::json &crd);
// The defaults the API server sets on a CRD: names.singular (lower-case kind), names.listKind
// (kind + "List"), spec.conversion.strategy None.
void applyCrdDefaults(nlohmann::json &crd);

} // namespace reconscope::controller::cluster
