#include "controller/cluster/registry/fieldmanagers.h"

#include "controller/cluster/registry/strategicmerge.h"
#include "controller/cluster/registry/strategicschema.h"
#include "controller/fieldowner/managedfields.h"

#include <string_view>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace fo = fieldowner;

namespace {

fo::TypeRef stringScalar()
{
    static const fo::TypeRef node = [] {
        auto n = std::make_shared<fo::TypeNode>();
        n->scalar = true;
        n->scalarKind = fo::ScalarKind::String;
        return n;
    }();
    return node;
}

// The keys of the list-map fields whose OpenAPI has more than the patch merge key
// (+listMapKey markers of k8s.io/api v0.36).
std::vector<std::string> listMapKeys(std::string_view field, std::string_view mergeKey)
{
    if (field == "ports" && mergeKey == "containerPort")
        return { "containerPort", "protocol" };
    if (field == "ports" && mergeKey == "port")
        return { "port", "protocol" };
    if (field == "topologySpreadConstraints")
        return { "topologyKey", "whenUnsatisfiable" };
    return { std::string(mergeKey) };
}

// A member of a Go struct the types do not spell out: a scalar, an atomic list, or a struct
// whose members are such members again (deduced, but with struct fields rather than map keys,
// as a typed object's are; maps of k8s.io/api that hold keys, such as a ConfigMap's data, own
// their scalar values the same either way).
fo::TypeRef deducedStruct()
{
    static const fo::TypeRef node = [] {
        auto n = std::make_shared<fo::TypeNode>(); // refers to itself: never freed
        n->scalar = true;
        n->list = fo::ListAtom{ fo::types::untypedAtomic(), fo::Relationship::Atomic, {} };
        n->map = fo::MapAtom{ {}, n, fo::Relationship::Separable, true };
        return n;
    }();
    return node;
}

// A struct of k8s.io/api marked +structType=atomic (owned whole).
fo::TypeRef atomicStruct()
{
    static const fo::TypeRef node = [] {
        auto n = std::make_shared<fo::TypeNode>();
        n->map = fo::MapAtom{ {}, fo::types::deduced(), fo::Relationship::Atomic };
        return n;
    }();
    return node;
}

// A struct whose members are deduced but for `atomic` ones.
fo::TypeRef structWithAtomic(std::initializer_list<const char *> atomic,
                             std::map<std::string, fo::TypeRef> others = {})
{
    auto node = std::make_shared<fo::TypeNode>();
    node->map = fo::MapAtom{ {}, deducedStruct(), fo::Relationship::Separable, true };
    for (const char *name : atomic)
        node->map->fields.emplace(name, fo::StructField{ atomicStruct(), std::nullopt });
    for (auto &[name, type] : others)
        node->map->fields.emplace(name, fo::StructField{ std::move(type), std::nullopt });
    return node;
}

// An EnvVar: its valueFrom's selectors are atomic structs.
fo::TypeRef envVarType()
{
    return structWithAtomic(
        {},
        { { "valueFrom",
            structWithAtomic(
                { "fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef" }) } });
}

// A Go struct whose tagged fields the strategic schema lists: those typed, the others deduced.
fo::TypeRef structType(const StrategicSchema *schema, bool atomicSelector)
{
    auto node = std::make_shared<fo::TypeNode>();
    node->map = fo::MapAtom{ {}, deducedStruct(), fo::Relationship::Separable, true };
    if (!schema)
        return node;
    for (const StrategicField &field : schema->fields) {
        const std::string name(field.name);
        fo::TypeRef type;
        if (name == "metadata") {
            type = fo::types::objectMeta();
        } else if (field.merge) {
            auto list = std::make_shared<fo::TypeNode>();
            fo::TypeRef element = field.schema ? structType(field.schema, false)
                : name == "env"                ? envVarType()
                : field.itemKind == "string"   ? stringScalar()
                : !field.mergeKey.empty()      ? structType(nullptr, false)
                                               : fo::types::deduced();
            list->list
                = fo::ListAtom{ std::move(element),
                                fo::Relationship::Associative,
                                field.mergeKey.empty() ? std::vector<std::string>()
                                                       : listMapKeys(field.name, field.mergeKey) };
            type = std::move(list);
        } else {
            type = structType(field.schema, name == "spec" && atomicSelector);
        }
        node->map->fields.emplace(name, fo::StructField{ std::move(type), std::nullopt });
    }
    // metav1.LabelSelector is +structType=atomic.
    if (atomicSelector) {
        auto selector = std::make_shared<fo::TypeNode>();
        selector->map = fo::MapAtom{ {}, deducedStruct(), fo::Relationship::Atomic };
        node->map->fields.insert_or_assign("selector", fo::StructField{ selector, std::nullopt });
    }
    return node;
}

fo::FieldSet paths(std::initializer_list<std::initializer_list<const char *>> list)
{
    fo::FieldSet set;
    for (const auto &path : list) {
        fo::Path p;
        for (const char *element : path)
            p.push_back(fo::PathElement::field(element));
        set.insert(p);
    }
    return set;
}

// The fields the built-in kind's strategy resets (GetResetFields of its registry strategy).
fo::FieldSet builtinResetFields(const ResourceType &type, bool status)
{
    const QString &kind = type.kind;
    if (kind == u"Pod")
        return status ? paths({ { "spec" },
                                { "metadata", "deletionTimestamp" },
                                { "metadata", "ownerReferences" } })
                      : paths({ { "status" } });
    if (kind == u"Deployment" || kind == u"ReplicaSet")
        return status ? paths({ { "spec" }, { "metadata", "labels" } }) : paths({ { "status" } });
    if (kind == u"CustomResourceDefinition")
        return status ? paths({ { "metadata" }, { "spec" } }) : paths({ { "status" } });
    if (type.statusSubresource) // Namespace, ResourceQuota, Service
        return status ? paths({ { "spec" } }) : paths({ { "status" } });
    return {};
}

} // namespace

fo::TypeRef builtinFieldTypes(const ResourceType &type)
{
    const bool workload = type.group == u"apps";
    fo::TypeRef root = structType(&strategicSchemaOf(type.group, type.kind), workload);
    if (type.kind == u"Event" && type.group.isEmpty()) {
        // ObjectReference is +structType=atomic.
        auto node = std::make_shared<fo::TypeNode>(*root);
        for (const char *name : { "involvedObject", "related" })
            node->map->fields.insert_or_assign(name,
                                               fo::StructField{ atomicStruct(), std::nullopt });
        root = node;
    } else if (type.kind == u"CustomResourceDefinition") {
        // CustomResourceDefinitionStatus.conditions: +listType=map +listMapKey=type.
        auto node = std::make_shared<fo::TypeNode>(*root);
        auto status = std::make_shared<fo::TypeNode>(*structType(nullptr, false));
        auto conditions = std::make_shared<fo::TypeNode>();
        conditions->list
            = fo::ListAtom{ structType(nullptr, false), fo::Relationship::Associative, { "type" } };
        status->map->fields.emplace("conditions", fo::StructField{ conditions, std::nullopt });
        node->map->fields.insert_or_assign("status", fo::StructField{ status, std::nullopt });
        root = node;
    }
    return root;
}

json createdFrom(const ResourceType &type)
{
    if (!type.builtin)
        return json();
    json zero = { { "apiVersion", type.groupVersion().toStdString() },
                  { "kind", type.kind.toStdString() },
                  { "metadata", { { "creationTimestamp", nullptr } } } };
    const json podTemplate
        = json::parse(R"({"metadata":{"creationTimestamp":null},"spec":{"containers":null}})");
    const QString &kind = type.kind;
    if (kind == u"Pod") {
        zero["spec"] = { { "containers", nullptr } };
        zero["status"] = json::object();
    } else if (kind == u"Deployment") {
        zero["spec"] = { { "selector", nullptr },
                         { "template", podTemplate },
                         { "strategy", json::object() } };
        zero["status"] = json::object();
    } else if (kind == u"ReplicaSet") {
        zero["spec"] = { { "selector", nullptr }, { "template", podTemplate } };
        zero["status"] = { { "replicas", 0 } };
    } else if (kind == u"Namespace" || kind == u"ResourceQuota") {
        zero["spec"] = json::object();
        zero["status"] = json::object();
    } else if (kind == u"Service") {
        zero["spec"] = json::object();
        zero["status"] = { { "loadBalancer", json::object() } };
    } else if (kind == u"Lease") {
        zero["spec"] = json::object();
    } else if (kind == u"Event") {
        for (const char *key : { "involvedObject", "source" })
            zero[key] = json::object();
        for (const char *key : { "firstTimestamp", "lastTimestamp", "eventTime" })
            zero[key] = nullptr;
        zero["reportingComponent"] = "";
        zero["reportingInstance"] = "";
    } else if (kind == u"CustomResourceDefinition") {
        zero["spec"] = json::parse(
            R"({"group":"","names":{"plural":"","kind":""},"scope":"","versions":null})");
        zero["status"] = json::parse(
            R"({"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":null})");
    }
    return zero;
}

std::shared_ptr<const TypeFieldManagers> makeFieldManagers(const ResourceType &type,
                                                           std::function<QDateTime()> clock)
{
    const fo::TypeRef types
        = type.builtin ? builtinFieldTypes(type) : fo::types::fromCrdSchema(type.schema);
    const std::string apiVersion = type.groupVersion().toStdString();
    const std::string kind = type.kind.toStdString();
    const auto resetFields = [&](bool status) {
        return type.builtin
            ? builtinResetFields(type, status)
            : fo::customResourceResetFields(type.statusSubresource, status ? "status" : "");
    };
    std::optional<fo::FieldManager> status, scale;
    if (type.statusSubresource)
        status.emplace(types, apiVersion, kind, "status", resetFields(true), clock);
    if (type.scaleSubresource)
        scale.emplace(types, apiVersion, kind, "scale", fo::FieldSet(), clock);
    return std::make_shared<const TypeFieldManagers>(
        TypeFieldManagers{ fo::FieldManager(types, apiVersion, kind, {}, resetFields(false), clock),
                           std::move(status),
                           std::move(scale) });
}

std::string updateManagerOf(const WriteOptions &options)
{
    return fo::updateManagerName(options.fieldManager.toStdString(),
                                 options.userAgent.toStdString());
}

json recordUpdate(const ResourceType &type,
                  const fo::FieldManager &manager,
                  const json &live,
                  json object,
                  const WriteOptions &options)
{
    if (!type.builtin && object.is_object()) {
        if (auto metadata = object.find("metadata");
            metadata != object.end() && metadata->is_object()) {
            if (auto fields = metadata->find("managedFields");
                fields != metadata->end() && fields->is_array() && fields->empty())
                metadata->erase(fields);
        }
    }
    return manager.update(live, std::move(object), updateManagerOf(options));
}

bool differsInManagedFieldsTimesAlone(const json &stored, const json &updated)
{
    if (!stored.is_object() || !updated.is_object() || stored.size() != updated.size())
        return false;
    const auto storedMeta = stored.find("metadata");
    const auto updatedMeta = updated.find("metadata");
    if (storedMeta == stored.end() || updatedMeta == updated.end() || !storedMeta->is_object()
        || !updatedMeta->is_object() || storedMeta->size() != updatedMeta->size())
        return false;
    const auto storedFields = storedMeta->find("managedFields");
    const auto updatedFields = updatedMeta->find("managedFields");
    if (storedFields == storedMeta->end() || updatedFields == updatedMeta->end()
        || !storedFields->is_array() || !updatedFields->is_array()
        || storedFields->size() != updatedFields->size() || *storedFields == *updatedFields)
        return false;
    for (std::size_t i = 0; i < storedFields->size(); ++i) {
        const json &a = (*storedFields)[i];
        const json &b = (*updatedFields)[i];
        if (!a.is_object() || !b.is_object() || a.size() != b.size())
            return false;
        for (auto it = a.begin(); it != a.end(); ++it) {
            const auto other = b.find(it.key());
            if (other == b.end() || (it.key() != "time" && *other != *it))
                return false;
        }
    }
    for (auto it = storedMeta->begin(); it != storedMeta->end(); ++it) {
        const auto other = updatedMeta->find(it.key());
        if (other == updatedMeta->end() || (it.key() != "managedFields" && *other != *it))
            return false;
    }
    for (auto it = stored.begin(); it != stored.end(); ++it) {
        const auto other = updated.find(it.key());
        if (other == updated.end() || (it.key() != "metadata" && *other != *it))
            return false;
    }
    return true;
}

} // namespace reconscope::controller::cluster
