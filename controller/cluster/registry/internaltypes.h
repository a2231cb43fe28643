#pragma once

#include <cstddef>
#include <string_view>

// The Go struct types of kube-apiserver's internal core API (k8s.io/kubernetes pkg/apis/core)
// reachable from PodSpec, as tools/internaltypes/generate.py reads them: what marshalling such a
// value as JSON writes, key by key, in declaration order.
namespace reconscope::controller::cluster {

struct InternalField
{
    const char *goName; // the JSON key encoding/json writes (internal types have no tags)
    // The member of the v1 JSON the field converts from; "" for an embedded struct whose members
    // are inlined; nullptr for a field v1 keeps elsewhere (PodSecurityContext's host fields,
    // which v1 holds in the PodSpec).
    const char *jsonName;
    // The field's Go type: a struct type of this table, a basic type (string, bool, int32, ...),
    // Quantity, IntOrString, Time, Duration, LabelSelector or ObjectMeta, prefixed by *, [] or
    // map[K], and "inline " for an embedded struct.
    const char *type;
};

struct InternalStruct
{
    const char *name;
    const InternalField *fields;
    std::size_t count;
};

// The struct type of that name, or nullptr.
const InternalStruct *internalStruct(std::string_view name);

} // namespace reconscope::controller::cluster
