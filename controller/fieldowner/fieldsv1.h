#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

// The fieldsV1 format of managedFields entries (structured-merge-diff's Set.ToJSON/FromJSON):
// an object whose keys are path elements ("f:<name>", "k:<json of the key fields>",
// "v:<json value>", "i:<index>") and whose values are the sets below them, with "." marking a
// path that is itself in the set beside paths below it: {"f:spec":{"f:ports":{"k:{\"name\":
// \"http\"}":{".":{},"f:port":{}}}}}.
namespace reconscope::controller::fieldowner {

// "f:replicas", "k:{\"name\":\"http\"}", "v:\"a\"", "i:0" (key and value JSON as Go writes it).
std::string encodePathElement(const PathElement &element);
// The element of a key; nothing for a well-formed key of a type not known (upstream drops
// those), an error for a malformed one.
models::Result<std::optional<PathElement>> decodePathElement(std::string_view key);

// The set as fieldsV1, keys in upstream's order (nlohmann's objects sort keys themselves; the
// order matters only to writers that keep it).
nlohmann::json encodeFieldsV1(const FieldSet &set);
// The set a fieldsV1 value holds (null: empty). Unknown element types are skipped as upstream
// does; anything else malformed (a non-object, a key without its type, bad key JSON, nesting
// deeper than 256) is an error saying where, never a crash.
models::Result<FieldSet> decodeFieldsV1(const nlohmann::json &fields);

} // namespace reconscope::controller::fieldowner
