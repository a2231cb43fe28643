#pragma once

#include <span>
#include <string_view>

// The patch strategies strategicMergePatch() follows: the patchStrategy and patchMergeKey tags of
// the Go types of the built-in kinds (strategicSchemaOf() in strategicmerge.h picks one).
namespace reconscope::controller::cluster {

struct StrategicSchema;

// The patchStrategy and patchMergeKey tags of one field. ("retainKeys" strategies are left out:
// they steer how clients compute patches; applying one honours a "$retainKeys" directive
// wherever it stands.)
struct StrategicField
{
    std::string_view name;
    bool merge = false; // patchStrategy:"merge"
    std::string_view mergeKey;
    const StrategicSchema *schema = nullptr; // the field's struct, or its items' struct
    std::string_view itemKind = "struct"; // Go's kind of its items, as an error names it
};

struct StrategicSchema
{
    std::span<const StrategicField> fields;
};

// The field `name` of `schema` (null for none, or for no schema: an untagged field).
const StrategicField *strategicFieldOf(const StrategicSchema *schema, std::string_view name);

} // namespace reconscope::controller::cluster
