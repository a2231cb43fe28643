#pragma once

#include "controller/apimachinery/status.h"

#include <nlohmann/json.hpp>

#include <QString>

// Strategic merge patch (application/strategic-merge-patch+json) as kube-apiserver applies it to
// the built-in kinds: k8s.io/apimachinery's strategicpatch.StrategicMergeMapPatch, driven by the
// patchStrategy and patchMergeKey struct tags of the kinds' Go types.
namespace reconscope::controller::cluster {

// The patch strategies of the fields of one object type (the tags of its Go struct, and of the
// structs below it that hold lists with a merge strategy). Fields it does not name have none:
// their objects merge member by member and their lists are replaced, as upstream's for untagged
// fields.
struct StrategicSchema;

// The schema of a built-in kind ("apps", "Deployment"); for a kind the table does not list (the
// CustomResourceDefinition, autoscaling/v1 Scale) the one of any object: its metadata.
const StrategicSchema &strategicSchemaOf(const QString &group, const QString &kind);

// The patch document as kube-apiserver decodes a strategic merge patch (into a Go
// map[string]interface{}): null is the empty patch, anything but an object a 400.
apimachinery::ApiResult<nlohmann::json> strategicPatchDocument(nlohmann::json decoded);

// `original` with `patch` applied. Upstream's semantics, directives included: null deletes a
// member; maps merge recursively; lists with the merge strategy merge by their merge key (lists
// of primitives as sets), items the patch names first and in its order, then the others in the
// original's; other lists are replaced; "$patch" (replace, delete, and on list items merge),
// "$retainKeys", "$setElementOrder/<list>" and "$deleteFromPrimitiveList/<list>". A patch it
// refuses gives the error kube-apiserver answers: 400 for a malformed directive, 422 for a list
// of lists, 500 with upstream's message otherwise (an unknown "$patch" value, a missing merge
// key). Unknown fields are kept (upstream's typed decoding drops them afterwards).
apimachinery::ApiResult<nlohmann::json>
strategicMergePatch(nlohmann::json original, nlohmann::json patch, const StrategicSchema &schema);

} // namespace reconscope::controller::cluster
