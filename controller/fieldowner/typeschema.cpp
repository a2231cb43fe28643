#include "controller/fieldowner/typeschema.h"

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

const StructField *MapAtom::field(const std::string &name) const
{
    auto it = fields.find(name);
    return it == fields.end() ? nullptr : &it->second;
}

TypeRef MapAtom::typeOf(const std::string &key) const
{
    const StructField *f = field(key);
    return f ? f->type : elementType;
}

namespace types {

namespace {

TypeRef scalarType(ScalarKind kind = ScalarKind::Untyped)
{
    auto n = std::make_shared<TypeNode>();
    n->scalar = true;
    n->scalarKind = kind;
    return n;
}

ScalarKind scalarKindOf(const std::string &type, const std::string &format)
{
    if (type == "integer" || type == "number")
        return ScalarKind::Numeric;
    if (type == "boolean")
        return ScalarKind::Boolean;
    if (type == "string" && (format.empty() || format == "byte"))
        return ScalarKind::String;
    return ScalarKind::Untyped;
}

// The untyped nodes refer to themselves; they live as long as the process.
struct Untyped
{
    std::shared_ptr<TypeNode> atomic = std::make_shared<TypeNode>();
    std::shared_ptr<TypeNode> deduced = std::make_shared<TypeNode>();

    Untyped()
    {
        atomic->scalar = true;
        atomic->list = ListAtom{ atomic, Relationship::Atomic, {} };
        atomic->map = MapAtom{ {}, atomic, Relationship::Atomic };
        deduced->scalar = true;
        deduced->list = ListAtom{ atomic, Relationship::Atomic, {} };
        deduced->map = MapAtom{ {}, deduced, Relationship::Separable };
    }
};

const Untyped &untyped()
{
    static const Untyped *u = new Untyped; // self-referencing: never freed
    return *u;
}

bool flag(const json &schema, const char *key)
{
    const auto it = schema.find(key);
    return it != schema.end() && it->is_boolean() && it->get<bool>();
}

std::string text(const json &schema, const char *key)
{
    const auto it = schema.find(key);
    return it != schema.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Relationship mapRelationship(const json &schema)
{
    const auto it = schema.find("x-kubernetes-map-type");
    if (it == schema.end() || !it->is_string())
        return Relationship::Unset;
    return *it == "atomic"  ? Relationship::Atomic
        : *it == "granular" ? Relationship::Separable
                            : Relationship::Unset;
}

struct Converter
{
    int depth = 0;

    TypeRef convert(const json &schema, bool preserve)
    {
        if (!schema.is_object() || ++depth > 200) {
            --depth;
            return deduced();
        }
        if (flag(schema, "x-kubernetes-preserve-unknown-fields"))
            preserve = true;
        auto node = std::make_shared<TypeNode>();
        const std::string type = text(schema, "type");
        if (type == "object" || type.empty())
            node->map = object(schema, preserve);
        if (type == "array" || type.empty())
            node->list = array(schema, preserve);
        if (type != "object" && type != "array") {
            node->scalar = true;
            node->scalarKind = scalarKindOf(type, text(schema, "format"));
        }
        --depth;
        return node;
    }

    MapAtom object(const json &schema, bool preserve)
    {
        MapAtom map;
        map.relationship = mapRelationship(schema);
        const json *properties = nullptr;
        if (auto it = schema.find("properties"); it != schema.end() && it->is_object())
            properties = &*it;
        if (properties) {
            for (const auto &[name, member] : properties->items()) {
                StructField field{ convert(member, preserve), std::nullopt };
                if (member.is_object() && member.contains("default"))
                    field.defaultValue = member["default"];
                map.fields.emplace(name, std::move(field));
            }
        }
        if (flag(schema, "x-kubernetes-embedded-resource"))
            addResourceFields(map);
        const auto additional = schema.find("additionalProperties");
        if (additional == schema.end() || additional->is_null())
            map.elementType
                = (preserve || !properties || properties->empty()) ? deduced() : nullptr;
        else if (additional->is_object())
            map.elementType = convert(*additional, preserve);
        else if (additional->is_boolean() && additional->get<bool>())
            map.elementType = deduced();
        return map;
    }

    ListAtom array(const json &schema, bool preserve)
    {
        ListAtom list;
        const std::string listType = text(schema, "x-kubernetes-list-type");
        if (listType == "set" || listType == "map")
            list.relationship = Relationship::Associative;
        const auto keys = schema.find("x-kubernetes-list-map-keys");
        if (listType == "map" && keys != schema.end() && keys->is_array()) {
            for (const json &key : *keys) {
                if (key.is_string())
                    list.keys.push_back(key.get<std::string>());
            }
        }
        const auto items = schema.find("items");
        list.elementType = items != schema.end() && items->is_object() ? convert(*items, preserve)
                                                                       : untypedAtomic();
        return list;
    }

    static void addResourceFields(MapAtom &map)
    {
        map.fields.try_emplace("apiVersion",
                               StructField{ scalarType(ScalarKind::String), std::nullopt });
        map.fields.try_emplace("kind", StructField{ scalarType(ScalarKind::String), std::nullopt });
        map.fields.insert_or_assign("metadata", StructField{ objectMeta(), std::nullopt });
    }
};

TypeRef makeMap(std::map<std::string, TypeRef> fields,
                Relationship relationship = Relationship::Unset)
{
    auto node = std::make_shared<TypeNode>();
    node->map = MapAtom{};
    node->map->relationship = relationship;
    for (auto &[name, type] : fields)
        node->map->fields.emplace(name, StructField{ std::move(type), std::nullopt });
    return node;
}

TypeRef makeList(TypeRef element, Relationship relationship, std::vector<std::string> keys = {})
{
    auto node = std::make_shared<TypeNode>();
    node->list = ListAtom{ std::move(element), relationship, std::move(keys) };
    return node;
}

TypeRef stringMap()
{
    auto node = std::make_shared<TypeNode>();
    node->map = MapAtom{ {}, scalarType(ScalarKind::String), Relationship::Unset };
    return node;
}

} // namespace

TypeRef untypedAtomic()
{
    return untyped().atomic;
}

TypeRef deduced()
{
    return untyped().deduced;
}

TypeRef objectMeta()
{
    static const TypeRef meta = [] {
        const TypeRef s = scalarType(ScalarKind::String);
        const TypeRef number = scalarType(ScalarKind::Numeric);
        const TypeRef boolean = scalarType(ScalarKind::Boolean);
        const TypeRef time = scalarType(ScalarKind::Untyped); // date-time
        const TypeRef ownerReference = makeMap({ { "apiVersion", s },
                                                 { "kind", s },
                                                 { "name", s },
                                                 { "uid", s },
                                                 { "controller", boolean },
                                                 { "blockOwnerDeletion", boolean } },
                                               Relationship::Atomic);
        const TypeRef managedFieldsEntry = makeMap({ { "manager", s },
                                                     { "operation", s },
                                                     { "apiVersion", s },
                                                     { "time", time },
                                                     { "fieldsType", s },
                                                     { "fieldsV1", deduced() },
                                                     { "subresource", s } });
        return makeMap(
            { { "name", s },
              { "generateName", s },
              { "namespace", s },
              { "selfLink", s },
              { "uid", s },
              { "resourceVersion", s },
              { "generation", number },
              { "creationTimestamp", time },
              { "deletionTimestamp", time },
              { "deletionGracePeriodSeconds", number },
              { "labels", stringMap() },
              { "annotations", stringMap() },
              { "ownerReferences", makeList(ownerReference, Relationship::Associative, { "uid" }) },
              { "finalizers", makeList(s, Relationship::Associative) },
              { "managedFields", makeList(managedFieldsEntry, Relationship::Atomic) } });
    }();
    return meta;
}

TypeRef fromOpenApi(const json &schema, bool preserveUnknownFields)
{
    Converter converter;
    return converter.convert(schema, preserveUnknownFields);
}

TypeRef fromCrdSchema(const json &openAPIV3Schema, bool preserveUnknownFields)
{
    if (!openAPIV3Schema.is_object())
        return deduced();
    Converter converter;
    json root = openAPIV3Schema;
    root["type"] = "object";
    auto node = std::make_shared<TypeNode>();
    node->map = converter.object(
        root, preserveUnknownFields || flag(root, "x-kubernetes-preserve-unknown-fields"));
    Converter::addResourceFields(*node->map);
    return node;
}

} // namespace types

} // namespace reconscope::controller::fieldowner
