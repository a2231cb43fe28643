#pragma once

#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <QList>

// The ObjectMeta checks of k8s.io/apimachinery/pkg/api/validation (objectmeta.go) and the
// finalizer rule core kinds add (pkg/apis/core/validation): what every kind's create and update
// validation starts with, each message and field as upstream words it.
namespace reconscope::controller::cluster::metavalidation {

// The rule a kind's names follow (its ValidateNameFunc).
enum class NameRule {
    DnsSubdomain, // NameIsDNSSubdomain: most kinds
    DnsLabel, // NameIsDNSLabel: Namespaces
    Dns1035Label, // NameIsDNS1035Label: Services
    PathSegment, // rest's validatePathSegment: the common check, Events
};

// ValidateObjectMetaAccessor: generateName (as a prefix) and name by `rule`, the namespace
// (required when namespaced, forbidden otherwise), generation, labels, annotations, owner
// references and finalizers.
QList<FieldError>
validateObjectMeta(const nlohmann::json &metadata, bool namespaced, NameRule rule);

// ValidateObjectMetaAccessorUpdate: no finalizer added while the old object is being deleted,
// resourceVersion present, generation not decremented, name, namespace, uid and the deletion
// fields unchanged, then labels, annotations and owner references.
QList<FieldError> validateObjectMetaUpdate(const nlohmann::json &metadata,
                                           const nlohmann::json &oldMetadata);

// The finalizer rule of core kinds (validateKubeFinalizerName): a name without a '/' must be a
// standard finalizer ("kubernetes", "orphan", "foregroundDeletion").
QList<FieldError> validateKubeFinalizers(const nlohmann::json &metadata);

// The members of `object[key]`'s labels (or any map of strings, e.g. a nodeSelector) checked
// as ValidateLabels does, each error at `field`.
QList<FieldError> validateLabels(const nlohmann::json &labels, const QString &field);
// ValidateAnnotations: qualified keys (case aside), 256 KiB of keys and values at most.
QList<FieldError> validateAnnotations(const nlohmann::json &annotations, const QString &field);

} // namespace reconscope::controller::cluster::metavalidation
