#pragma once

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>

// The Pod rules of k8s.io/kubernetes pkg/apis/core/validation that the embedded cluster checks
// (ValidatePodCreate, ValidatePodTemplateSpec, ValidatePodUpdate), on defaulted v1 objects, with
// each field and message as upstream words them. What is checked: volumes (names, one source,
// the names of secret, configMap and claim sources), containers and init containers (names,
// images, ports, env names, volume mounts, pull and termination message policies, resources,
// probes), restart and DNS policies, node selector, names of the node, service account, host,
// subdomain and priority class, the active deadline and tolerations. Security contexts,
// affinity, topology spread and the other members pass unchecked.
namespace reconscope::controller::cluster::podvalidation {

// ValidatePodSpec of `spec` at `path` ("spec", "spec.template.spec").
QList<FieldError> validatePodSpec(const nlohmann::json &spec, const QString &path);
// ValidatePodTemplateSpec: the template's labels and annotations, then its spec.
QList<FieldError> validatePodTemplate(const nlohmann::json &templ, const QString &path);
// ValidatePodCreate: the metadata of a core object, the spec, what only Pods must hold.
QList<FieldError> validatePodCreate(const nlohmann::json &pod);
// ValidatePodUpdate: the metadata update, the new Pod as on create, then the spec against the
// old one: only images, the active deadline (lowered), added tolerations and a negative grace
// period set to 1 may change; anything else is refused with the difference upstream prints.
QList<FieldError> validatePodUpdate(const nlohmann::json &pod, const nlohmann::json &old);

// ValidateResourceQuantityValue: not negative, whole for the integer resources.
QList<FieldError> validateQuantityValue(const QString &resource,
                                        const apimachinery::Quantity &value,
                                        const QString &path);
// validateResourceName: a qualified name, a standard resource unless it has a prefix.
QList<FieldError> validateResourceName(const QString &resource, const QString &path);
// IsStandardQuotaResourceName.
bool isStandardQuotaResource(const QString &resource);

} // namespace reconscope::controller::cluster::podvalidation
