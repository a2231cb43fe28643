#include "controller/cluster/schema/openapi.h"

#include "controller/cluster/schema/openapitables.h"
#include "models/jsonfields.h"

#include <QCryptographicHash>
#include <QStringList>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

using models::jsonBool;
using openapitables::addMetaSchemas;
using openapitables::metaPrefix;
using openapitables::optionParameters;
using openapitables::refSchema;

const char *const apiVersionDescription
    = "APIVersion defines the versioned schema of this representation of an object. Servers "
      "should convert recognized schemas to the latest internal value, and may reject "
      "unrecognized values. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#resources";
const char *const kindDescription
    = "Kind is a string value representing the REST resource this object represents. Servers may "
      "infer this from the endpoint the client submits requests to. Cannot be updated. In "
      "CamelCase. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#types-kinds";
const char *const metadataDescription
    = "Standard object's metadata. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#metadata";
const char *const listMetadataDescription
    = "Standard list metadata. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#types-kinds";

json typed(const char *type, const char *format = nullptr)
{
    json schema = { { "type", type } };
    if (format)
        schema["format"] = format;
    return schema;
}

json gvkList(const std::string &group, const std::string &version, const std::string &kind)
{
    return json::array({ { { "group", group }, { "kind", kind }, { "version", version } } });
}

void addScaleSchemas(json &schemas, bool v2)
{
    schemas["io.k8s.api.autoscaling.v1.ScaleSpec"]
        = { { "type", "object" }, { "properties", { { "replicas", typed("integer", "int32") } } } };
    schemas["io.k8s.api.autoscaling.v1.ScaleStatus"]
        = { { "type", "object" },
            { "required", { "replicas" } },
            { "properties",
              { { "replicas", typed("integer", "int32") }, { "selector", typed("string") } } } };
    schemas["io.k8s.api.autoscaling.v1.Scale"] = {
        { "type", "object" },
        { "description", "Scale represents a scaling request for a resource." },
        { "properties",
          { { "apiVersion", { { "type", "string" }, { "description", apiVersionDescription } } },
            { "kind", { { "type", "string" }, { "description", kindDescription } } },
            { "metadata", refSchema(metaPrefix + "ObjectMeta", v2, metadataDescription) },
            { "spec", refSchema("io.k8s.api.autoscaling.v1.ScaleSpec", v2) },
            { "status", refSchema("io.k8s.api.autoscaling.v1.ScaleStatus", v2) } } },
        { "x-kubernetes-group-version-kind", gvkList("autoscaling", "v1", "Scale") },
    };
}

std::string reversedGroup(const QString &group)
{
    QStringList parts = group.split(u'.');
    std::reverse(parts.begin(), parts.end());
    return parts.join(u'.').toStdString();
}

// The OpenAPI model name of a kind: kube-openapi's ToRESTFriendlyName("group/version.Kind") for
// CRDs, the Go package path for built-in kinds.
std::string modelName(const ResourceType &type, const QString &kind)
{
    const std::string suffix = "." + type.version.toStdString() + "." + kind.toStdString();
    if (!type.builtin)
        return reversedGroup(type.group) + suffix;
    if (type.group.isEmpty())
        return "io.k8s.api.core" + suffix;
    if (type.group == u"apiextensions.k8s.io"_s)
        return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions" + suffix;
    if (type.group.endsWith(u".k8s.io"_s))
        return "io.k8s.api." + type.group.chopped(7).toStdString() + suffix;
    if (!type.group.contains(u'.'))
        return "io.k8s.api." + type.group.toStdString() + suffix;
    return reversedGroup(type.group) + suffix;
}

// ToStructuralOpenAPIV2: what kubectl's OpenAPI v2 validation can digest.
void toV2(json &schema)
{
    if (!schema.is_object())
        return;
    for (const char *key :
         { "nullable", "anyOf", "oneOf", "allOf", "not", "x-kubernetes-validations" })
        schema.erase(key);
    if (jsonBool(schema, "x-kubernetes-int-or-string"))
        schema.erase("type");
    if (jsonBool(schema, "x-kubernetes-preserve-unknown-fields")) {
        schema.erase("properties");
        schema.erase("items");
        schema.erase("additionalProperties");
        return;
    }
    if (auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (auto &child : *it)
            toV2(child);
    }
    if (auto it = schema.find("items"); it != schema.end())
        toV2(*it);
    if (auto it = schema.find("additionalProperties"); it != schema.end())
        toV2(*it);
}

// Embedded resources get TypeMeta/ObjectMeta properties, int-or-string nodes their anyOf (v3).
void unfold(json &schema, bool v2)
{
    if (!schema.is_object())
        return;
    if (auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (auto &child : *it)
            unfold(child, v2);
    }
    if (auto it = schema.find("items"); it != schema.end())
        unfold(*it, v2);
    if (auto it = schema.find("additionalProperties"); it != schema.end())
        unfold(*it, v2);
    if (!v2 && jsonBool(schema, "x-kubernetes-int-or-string") && !schema.contains("anyOf"))
        schema["anyOf"] = json::array({ { { "type", "integer" } }, { { "type", "string" } } });
    if (jsonBool(schema, "x-kubernetes-embedded-resource")) {
        if (!schema["properties"].is_object())
            schema["properties"] = json::object();
        json &properties = schema["properties"];
        properties["apiVersion"]
            = { { "type", "string" }, { "description", apiVersionDescription } };
        properties["kind"] = { { "type", "string" }, { "description", kindDescription } };
        properties["metadata"] = refSchema(metaPrefix + "ObjectMeta", v2, metadataDescription);
    }
}

json kindSchema(const ResourceType &type, bool v2)
{
    json schema;
    const bool permissive = type.schema.is_null() || !type.schema.is_object()
        || (v2 && jsonBool(type.schema, "x-kubernetes-preserve-unknown-fields"));
    if (permissive) {
        schema = { { "type", "object" } };
        if (!v2)
            schema["x-kubernetes-preserve-unknown-fields"] = true;
    } else {
        schema = type.schema;
        unfold(schema, v2);
        if (v2)
            toV2(schema);
        if (!schema["properties"].is_object())
            schema["properties"] = json::object();
        json &properties = schema["properties"];
        properties["apiVersion"]
            = { { "type", "string" }, { "description", apiVersionDescription } };
        properties["kind"] = { { "type", "string" }, { "description", kindDescription } };
        properties["metadata"] = refSchema(metaPrefix + "ObjectMeta", v2, metadataDescription);
        if (!schema.contains("type"))
            schema["type"] = "object";
    }
    schema["x-kubernetes-group-version-kind"]
        = gvkList(type.group.toStdString(), type.version.toStdString(), type.kind.toStdString());
    return schema;
}

json listSchema(const ResourceType &type, bool v2)
{
    return {
        { "type", "object" },
        { "description", (type.listKind + u" is a list of "_s + type.kind).toStdString() },
        { "required", { "items" } },
        { "properties",
          { { "apiVersion", { { "type", "string" }, { "description", apiVersionDescription } } },
            { "items",
              { { "type", "array" },
                { "description",
                  ("List of " + type.plural.toLower().toStdString()
                   + ". More info: "
                     "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                     "api-conventions.md") },
                { "items", refSchema(modelName(type, type.kind), v2) } } },
            { "kind", { { "type", "string" }, { "description", kindDescription } } },
            { "metadata", refSchema(metaPrefix + "ListMeta", v2, listMetadataDescription) } } },
        { "x-kubernetes-group-version-kind",
          gvkList(
              type.group.toStdString(), type.version.toStdString(), type.listKind.toStdString()) },
    };
}

std::string title(const QString &text)
{
    return text.isEmpty() ? std::string() : (text.left(1).toUpper() + text.mid(1)).toStdString();
}

// "infrastructure.internal.net" + "v1" -> "InfrastructureInternalNetV1" (operation ids, tags).
std::string groupVersionId(const ResourceType &type)
{
    QString id;
    for (const QString &part : type.group.split(u'.', Qt::SkipEmptyParts))
        id += QString::fromStdString(title(part));
    if (type.group.isEmpty())
        id = u"Core"_s;
    return (id + QString::fromStdString(title(type.version))).toStdString();
}

// The apiextensions builder's descriptionFor: "list objects of kind CustomApp", "create a
// CustomApp", "partially update status of the specified CustomApp", ...
std::string
describe(const std::string &verb, const std::string &subresource, const std::string &kind)
{
    const std::string of = subresource.empty() ? std::string() : " " + subresource + " of";
    if (verb == "list")
        return "list" + of + " objects of kind " + kind;
    if (verb == "create" || verb == "delete") {
        const bool vowel
            = !kind.empty() && std::string("AEIOUaeiou").find(kind.front()) != std::string::npos;
        return verb + of + (vowel ? " an " : " a ") + kind;
    }
    if (verb == "deletecollection")
        return "delete collection of" + (of.empty() ? std::string() : of + " a") + " " + kind;
    if (verb == "patch")
        return "partially update" + of + " the specified " + kind;
    return verb + of + " the specified " + kind;
}

json operation(const ResourceType &type,
               const std::string &action,
               const std::string &verb,
               const std::string &subresource,
               const std::string &responseModel,
               const std::string &kind,
               bool scale,
               bool v2)
{
    const std::string namespaced = type.namespaced ? "Namespaced" : "";
    const std::string operationVerb = verb == "get" ? "read" : (verb == "put" ? "replace" : verb);
    json op;
    op["description"] = describe(operationVerb, subresource, kind);
    op["operationId"] = operationVerb + groupVersionId(type) + namespaced + kind
        + title(QString::fromStdString(subresource));
    QString tag = type.group.isEmpty() ? u"core"_s : QString();
    for (const QString &part : type.group.split(u'.', Qt::SkipEmptyParts))
        tag += tag.isEmpty() ? part : QString::fromStdString(title(part));
    op["tags"] = { tag.toStdString() + "_" + type.version.toStdString() };
    op["parameters"] = optionParameters(action);
    json okSchema = refSchema(responseModel, v2);
    okSchema.erase("description");
    if (v2) {
        op["consumes"] = action == "patch" ? json{ "application/json-patch+json",
                                                   "application/merge-patch+json",
                                                   "application/apply-patch+yaml" }
                                           : json{ "*/*" };
        op["produces"] = { "application/json", "application/yaml" };
        op["responses"] = { { "200", { { "description", "OK" }, { "schema", okSchema } } } };
    } else {
        op["responses"] = { { "200",
                              { { "description", "OK" },
                                { "content",
                                  { { "application/json", { { "schema", okSchema } } },
                                    { "application/yaml", { { "schema", okSchema } } } } } } } };
    }
    if (action == "post" || action == "put") {
        op["responses"]["201"] = op["responses"]["200"];
        op["responses"]["201"]["description"] = "Created";
    }
    const std::string bodyModel = action == "patch" ? metaPrefix + "Patch"
        : action == "delete"                        ? metaPrefix + "DeleteOptions"
                                                    : responseModel;
    if (action == "post" || action == "put" || action == "patch" || action == "delete") {
        json bodySchema = refSchema(bodyModel, v2);
        if (v2) {
            op["parameters"].push_back({ { "name", "body" },
                                         { "in", "body" },
                                         { "required", action != "delete" },
                                         { "schema", bodySchema } });
        } else {
            json content = json::object();
            const std::vector<std::string> types = action == "patch"
                ? std::vector<std::string>{ "application/apply-patch+yaml",
                                            "application/json-patch+json",
                                            "application/merge-patch+json" }
                : std::vector<std::string>{ "*/*" };
            for (const std::string &mediaType : types)
                content[mediaType] = { { "schema", bodySchema } };
            op["requestBody"] = { { "content", content }, { "required", action != "delete" } };
        }
    }
    op["x-kubernetes-action"] = action;
    op["x-kubernetes-group-version-kind"]
        = { { "group", scale ? "autoscaling" : type.group.toStdString() },
            { "version", scale ? "v1" : type.version.toStdString() },
            { "kind", scale ? "Scale" : type.kind.toStdString() } };
    return op;
}

json pathParameter(const char *name, const std::string &description, bool v2)
{
    json p = {
        { "name", name }, { "in", "path" }, { "description", description }, { "required", true }
    };
    if (v2) {
        p["type"] = "string";
        p["uniqueItems"] = true;
    } else {
        p["schema"] = { { "type", "string" }, { "uniqueItems", true } };
    }
    return p;
}

json prettyParameter(bool v2)
{
    json p = { { "name", "pretty" },
               { "in", "query" },
               { "description",
                 "If 'true', then the output is pretty printed. Defaults to 'false' unless the "
                 "user-agent indicates a browser or command-line HTTP tool (curl and wget)." } };
    if (v2) {
        p["type"] = "string";
        p["uniqueItems"] = true;
    } else {
        p["schema"] = { { "type", "string" }, { "uniqueItems", true } };
    }
    return p;
}

void addPaths(json &paths, const ResourceType &type, bool v2)
{
    const std::string kindModel = modelName(type, type.kind);
    const std::string listModel = modelName(type, type.listKind);
    const std::string statusModel = metaPrefix + "Status";
    const std::string prefix = type.group.isEmpty() ? "/api/" + type.version.toStdString()
                                                    : "/apis/" + type.groupVersion().toStdString();
    const std::string plural = type.plural.toStdString();
    const std::string kind = type.kind.toStdString();
    std::string root = prefix + "/" + plural;
    if (type.namespaced) {
        json allNamespaces = { { "parameters", { prettyParameter(v2) } } };
        allNamespaces["get"] = operation(type, "list", "list", "", listModel, kind, false, v2);
        allNamespaces["get"]["operationId"]
            = "list" + groupVersionId(type) + kind + "ForAllNamespaces";
        paths[root] = std::move(allNamespaces);
        root = prefix + "/namespaces/{namespace}/" + plural;
    }
    const auto scoped = [&](json item, bool withName) {
        item["parameters"] = json::array();
        if (withName)
            item["parameters"].push_back(pathParameter("name", "name of the " + kind, v2));
        if (type.namespaced)
            item["parameters"].push_back(pathParameter(
                "namespace", "object name and auth scope, such as for teams and projects", v2));
        item["parameters"].push_back(prettyParameter(v2));
        return item;
    };
    json collection = scoped(json::object(), false);
    collection["get"] = operation(type, "list", "list", "", listModel, kind, false, v2);
    collection["post"] = operation(type, "post", "create", "", kindModel, kind, false, v2);
    collection["delete"]
        = operation(type, "deletecollection", "deletecollection", "", statusModel, kind, false, v2);
    paths[root] = std::move(collection);

    json item = scoped(json::object(), true);
    item["get"] = operation(type, "get", "get", "", kindModel, kind, false, v2);
    item["put"] = operation(type, "put", "put", "", kindModel, kind, false, v2);
    item["patch"] = operation(type, "patch", "patch", "", kindModel, kind, false, v2);
    item["delete"] = operation(type, "delete", "delete", "", statusModel, kind, false, v2);
    paths[root + "/{name}"] = std::move(item);

    const auto subresource = [&](const std::string &name, const std::string &model, bool scale) {
        json sub = scoped(json::object(), true);
        sub["get"] = operation(type, "get", "get", name, model, kind, scale, v2);
        sub["put"] = operation(type, "put", "put", name, model, kind, scale, v2);
        sub["patch"] = operation(type, "patch", "patch", name, model, kind, scale, v2);
        paths[root + "/{name}/" + name] = std::move(sub);
    };
    if (type.statusSubresource)
        subresource("status", kindModel, false);
    if (type.scaleSubresource)
        subresource("scale", "io.k8s.api.autoscaling.v1.Scale", true);
}

QList<ResourceType> servedIn(const QString &groupVersion, const QList<ResourceType> &types)
{
    QList<ResourceType> out;
    for (const ResourceType &type : types) {
        if (type.served && type.groupVersion() == groupVersion)
            out.append(type);
    }
    return out;
}

json buildDocument(const QList<ResourceType> &types, bool v2)
{
    json paths = json::object();
    json schemas = json::object();
    addMetaSchemas(schemas, v2);
    bool scale = false;
    for (const ResourceType &type : types) {
        schemas[modelName(type, type.kind)] = kindSchema(type, v2);
        schemas[modelName(type, type.listKind)] = listSchema(type, v2);
        addPaths(paths, type, v2);
        scale = scale || type.scaleSubresource;
    }
    if (scale)
        addScaleSchemas(schemas, v2);
    if (v2)
        return { { "swagger", "2.0" },
                 { "info", { { "title", "Kubernetes" }, { "version", "v1.32.0" } } },
                 { "paths", std::move(paths) },
                 { "definitions", std::move(schemas) } };
    return { { "openapi", "3.0.0" },
             { "info", { { "title", "Kubernetes" }, { "version", "v1.32.0" } } },
             { "paths", std::move(paths) },
             { "components", { { "schemas", std::move(schemas) } } } };
}

} // namespace

json openApiV3Index(const QList<ResourceType> &types)
{
    json paths = json::object();
    QStringList seen;
    for (const ResourceType &type : types) {
        const QString gv = type.groupVersion();
        if (!type.served || seen.contains(gv))
            continue;
        seen.append(gv);
        const QString key = type.group.isEmpty() ? u"api/"_s + gv : u"apis/"_s + gv;
        const QByteArray hash = QCryptographicHash::hash(
                                    QByteArray::fromStdString(openApiV3Document(gv, types).dump()),
                                    QCryptographicHash::Sha512)
                                    .toHex()
                                    .toUpper();
        paths[key.toStdString()] = {
            { "serverRelativeURL",
              (u"/openapi/v3/"_s + key + u"?hash="_s + QString::fromLatin1(hash)).toStdString() }
        };
    }
    return { { "paths", std::move(paths) } };
}

json openApiV3Document(const QString &groupVersion, const QList<ResourceType> &types)
{
    const QList<ResourceType> served = servedIn(groupVersion, types);
    if (served.isEmpty())
        return nullptr;
    return buildDocument(served, false);
}

json openApiV2(const QList<ResourceType> &types)
{
    QList<ResourceType> served;
    for (const ResourceType &type : types) {
        if (type.served)
            served.append(type);
    }
    return buildDocument(served, true);
}

} // namespace reconscope::controller::cluster
