#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

// JSON values as Go holds them after decoding into interface{} (map[string]interface{},
// []interface{}, int64, float64, ...): their kinds, Go's == and fmt's %v and %s, which upstream's
// error messages print.
namespace reconscope::controller::cluster {

inline constexpr std::string_view kGoMapType = "map[string]interface {}";
inline constexpr std::string_view kGoSliceType = "[]interface {}";

// The dynamic type a value has in the map[string]interface{} kube-apiserver decodes JSON into
// (integers int64, other numbers float64), which decides whether two values merge.
enum class GoKind { Nil, Bool, Int, Float, String, Map, Slice };

GoKind goKind(const nlohmann::json &value);
// Go's == on two such values: the same type and value. Maps and slices are not comparable (Go
// panics where this answers false).
bool goEqual(const nlohmann::json &a, const nlohmann::json &b);
// fmt's %v and %s of a value. %s marks what is not a string: %!s(int64=1); a nil inside a map
// or slice prints as <nil>.
std::string formatV(const nlohmann::json &value);
std::string formatS(const nlohmann::json &value);
// %T of the value, as mergepatch's errors name it ("%!s(<nil>)" for nil, as %s prints it).
std::string goTypeName(const nlohmann::json &value);

// The capacity of a []interface{} that Go's JSON decoder built by appending `length` items one at
// a time (runtime.growslice with 16-byte elements and the allocator's size classes). Upstream's
// merge appends to and deletes from the decoded lists in place, so what a later step reads through
// the original slice depends on whether an append still fit.
std::size_t goDecodedSliceCap(std::size_t length);

} // namespace reconscope::controller::cluster
