#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "controller/fieldowner/typeschema.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

// kubectl's move from client-side to server-side apply (apimachinery's lastAppliedManager and
// lastAppliedUpdater): the applier named "kubectl" may take, without force, the fields its
// kubectl.kubernetes.io/last-applied-configuration annotation still describes, and the
// annotation then follows what it applies. Internal to the field manager.
namespace reconscope::controller::fieldowner::lastapplied {

inline constexpr const char *annotation = "kubectl.kubernetes.io/last-applied-configuration";

// The fields of the last-applied configuration that the live object still holds as applied;
// nothing when there is no annotation, it is not JSON of this apiVersion, or either object does
// not fit the schema.
std::optional<FieldSet>
allowedConflicts(const nlohmann::json &live, const std::string &apiVersion, const TypeRef &type);

// After a successful apply by kubectl: when `object` carries the annotation, it becomes `config`
// (without the annotation) as Go's JSON encoder writes it, unless that would take the object's
// annotations past 256 KiB, in which case the annotation is dropped.
void follow(nlohmann::json &object, const nlohmann::json &config);

} // namespace reconscope::controller::fieldowner::lastapplied
