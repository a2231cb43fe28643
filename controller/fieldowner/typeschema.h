#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// What field ownership needs to know of a schema: for every node whether it holds a scalar, a
// map (struct fields, the type of other keys, atomic or granular) or a list (atomic, a set, or
// a map keyed by some fields), as structured-merge-diff's schema.Atom says it. Built from a CRD
// version's openAPIV3Schema as kube-openapi's schemaconv does, or by hand in tests.
namespace reconscope::controller::fieldowner {

struct TypeNode;
// A node; null where upstream's schema has no type ("no type found matching"), e.g. a field a
// struct does not declare.
using TypeRef = std::shared_ptr<const TypeNode>;

// How the items of a list or map relate (schema.ElementRelationship): Unset behaves as
// Separable for maps; Associative lists are sets (no keys) or maps (keys).
enum class Relationship { Unset, Atomic, Associative, Separable };

struct StructField
{
    TypeRef type;
    std::optional<nlohmann::json> defaultValue; // a list-map key's default stands in for it
};

struct MapAtom
{
    std::map<std::string, StructField> fields;
    TypeRef elementType; // the type of keys fields does not declare; null: none allowed
    Relationship relationship = Relationship::Unset;
    // Keys `fields` does not declare are struct fields all the same (of elementType): a Go
    // struct whose members the types do not spell out (the embedded cluster's built-in kinds).
    // A struct field is owned through its members; a map key is owned itself.
    bool undeclaredAreFields = false;

    const StructField *field(const std::string &name) const;
    TypeRef typeOf(const std::string &key) const;
    // Whether `key` is a struct field (declared, or taken for one) rather than a map key.
    bool isField(const std::string &key) const { return undeclaredAreFields || field(key); }
};

struct ListAtom
{
    TypeRef elementType;
    Relationship relationship = Relationship::Atomic;
    std::vector<std::string> keys; // list-type=map
};

// The kind of a scalar (schema.Scalar): integer and number are numeric; strings with a format
// other than byte, and schemas without a type, take any scalar.
enum class ScalarKind { Untyped, Numeric, String, Boolean };

struct TypeNode
{
    bool scalar = false;
    ScalarKind scalarKind = ScalarKind::Untyped;
    std::optional<MapAtom> map;
    std::optional<ListAtom> list;
};

namespace types {

// A value of any shape, compared whole (schemaconv's __untyped_atomic_).
TypeRef untypedAtomic();
// A value of any shape whose maps are granular and lists atomic (__untyped_deduced_): what
// x-kubernetes-preserve-unknown-fields and schemaless objects hold.
TypeRef deduced();
// metav1.ObjectMeta as kube-apiserver's OpenAPI gives it: labels and annotations granular
// maps, finalizers a set, ownerReferences a map keyed by uid (each reference atomic),
// managedFields atomic.
TypeRef objectMeta();
// The type of a custom resource of a CRD version with this openAPIV3Schema: its properties
// beside apiVersion, kind and metadata (ObjectMeta), lists atomic unless x-kubernetes-list-type
// says otherwise, maps granular unless x-kubernetes-map-type: atomic. A null schema gives
// deduced(), as upstream does without OpenAPI models.
TypeRef fromCrdSchema(const nlohmann::json &openAPIV3Schema, bool preserveUnknownFields = false);
// One node of an OpenAPI v3 structural schema, without the custom-resource root's additions.
TypeRef fromOpenApi(const nlohmann::json &schema, bool preserveUnknownFields = false);

} // namespace types

} // namespace reconscope::controller::fieldowner
