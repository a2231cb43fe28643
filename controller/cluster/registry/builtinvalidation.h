#pragma once

#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <QList>

// The validation kube-apiserver's registry strategies run for the built-in kinds the embedded
// cluster serves (pkg/registry/*/strategy.go: Validate on create, ValidateUpdate on update),
// on the defaulted object before it is stored, dry runs included: ConfigMaps and Secrets (keys,
// sizes, the keys each Secret type needs, immutability), Events, Leases, ResourceQuotas,
// Namespaces, Services and ServiceAccounts (their metadata), Pods (podvalidation.h) and the pod
// templates, selectors and strategies of Deployments and ReplicaSets. Field paths and messages
// are upstream's; the common metadata checks rest.BeforeCreate and BeforeUpdate add are
// Admission's. CustomResourceDefinitions are validated elsewhere (schema/crd.h).
namespace reconscope::controller::cluster {

// strategy.Validate of a new object of built-in `type` (its ObjectMeta checks included).
QList<FieldError> validateBuiltinCreate(const ResourceType &type, const nlohmann::json &object);

// strategy.ValidateUpdate of `object` replacing `old` (both defaulted, in the same version).
QList<FieldError> validateBuiltinUpdate(const ResourceType &type,
                                        const nlohmann::json &object,
                                        const nlohmann::json &old);

} // namespace reconscope::controller::cluster
