#include "controller/cluster/schema/openapitables.h"

#include <map>
#include <string_view>
#include <vector>

using json = nlohmann::json;

namespace reconscope::controller::cluster::openapitables {

namespace {

// The meta/v1 models as the v3 document carries them. {"$model": name} stands for a reference
// to another model; v2 documents carry no list types (x-kubernetes-list-type, -list-map-keys).
constexpr const char *metaSchemasJson = R"json(
{
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {
    "type": "string",
    "format": "date-time",
    "description": "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON. Wrappers are provided for many of the factory methods that the time package offers."
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": {
    "type": "object",
    "description": "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format."
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry": {
    "type": "object",
    "description": "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.",
    "properties": {
      "apiVersion": { "type": "string" },
      "fieldsType": { "type": "string" },
      "fieldsV1": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1" },
      "manager": { "type": "string" },
      "operation": { "type": "string" },
      "subresource": { "type": "string" },
      "time": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.Time" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {
    "type": "object",
    "description": "OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.",
    "required": ["apiVersion", "kind", "name", "uid"],
    "properties": {
      "apiVersion": { "type": "string" },
      "blockOwnerDeletion": { "type": "boolean" },
      "controller": { "type": "boolean" },
      "kind": { "type": "string" },
      "name": { "type": "string" },
      "uid": { "type": "string" }
    },
    "x-kubernetes-map-type": "atomic"
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
    "type": "object",
    "description": "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
    "properties": {
      "annotations": { "type": "object", "additionalProperties": { "type": "string" } },
      "creationTimestamp": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.Time" },
      "deletionGracePeriodSeconds": { "type": "integer", "format": "int64" },
      "deletionTimestamp": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.Time" },
      "finalizers": {
        "type": "array",
        "items": { "type": "string" },
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-list-type": "set"
      },
      "generateName": { "type": "string" },
      "generation": { "type": "integer", "format": "int64" },
      "labels": { "type": "object", "additionalProperties": { "type": "string" } },
      "managedFields": {
        "type": "array",
        "items": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry" },
        "x-kubernetes-list-type": "atomic"
      },
      "name": { "type": "string" },
      "namespace": { "type": "string" },
      "ownerReferences": {
        "type": "array",
        "items": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference" },
        "x-kubernetes-patch-merge-key": "uid",
        "x-kubernetes-patch-strategy": "merge",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["uid"]
      },
      "resourceVersion": { "type": "string" },
      "selfLink": { "type": "string" },
      "uid": { "type": "string" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {
    "type": "object",
    "description": "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
    "properties": {
      "continue": { "type": "string" },
      "remainingItemCount": { "type": "integer", "format": "int64" },
      "resourceVersion": { "type": "string" },
      "selfLink": { "type": "string" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause": {
    "type": "object",
    "properties": {
      "field": { "type": "string" },
      "message": { "type": "string" },
      "reason": { "type": "string" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails": {
    "type": "object",
    "properties": {
      "causes": {
        "type": "array",
        "items": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause" }
      },
      "group": { "type": "string" },
      "kind": { "type": "string" },
      "name": { "type": "string" },
      "retryAfterSeconds": { "type": "integer", "format": "int32" },
      "uid": { "type": "string" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Status": {
    "type": "object",
    "description": "Status is a return value for calls that don't return other objects.",
    "properties": {
      "apiVersion": { "type": "string" },
      "code": { "type": "integer", "format": "int32" },
      "details": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails" },
      "kind": { "type": "string" },
      "message": { "type": "string" },
      "metadata": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta" },
      "reason": { "type": "string" },
      "status": { "type": "string" }
    },
    "x-kubernetes-group-version-kind": [{ "group": "", "kind": "Status", "version": "v1" }]
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions": {
    "type": "object",
    "properties": {
      "resourceVersion": { "type": "string" },
      "uid": { "type": "string" }
    }
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions": {
    "type": "object",
    "description": "DeleteOptions may be provided when deleting an API object.",
    "properties": {
      "apiVersion": { "type": "string" },
      "dryRun": { "type": "array", "items": { "type": "string" } },
      "gracePeriodSeconds": { "type": "integer", "format": "int64" },
      "ignoreStoreReadErrorWithClusterBreakingPotential": { "type": "boolean" },
      "kind": { "type": "string" },
      "orphanDependents": { "type": "boolean" },
      "preconditions": { "$model": "io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions" },
      "propagationPolicy": { "type": "string" }
    },
    "x-kubernetes-group-version-kind": [{ "group": "", "kind": "DeleteOptions", "version": "v1" }]
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Patch": {
    "type": "object",
    "description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."
  }
}
)json";

json resolve(const json &schema, bool v2)
{
    if (schema.is_array()) {
        json out = json::array();
        for (const json &item : schema)
            out.push_back(resolve(item, v2));
        return out;
    }
    if (!schema.is_object())
        return schema;
    if (auto model = schema.find("$model"); model != schema.end())
        return refSchema(model->get<std::string>(), v2);
    json out = json::object();
    for (auto it = schema.begin(); it != schema.end(); ++it) {
        if (v2
            && (it.key() == "x-kubernetes-list-type" || it.key() == "x-kubernetes-list-map-keys"))
            continue;
        out[it.key()] = resolve(it.value(), v2);
    }
    return out;
}

struct QueryOption
{
    const char *type;
    const char *description;
};

const std::map<std::string_view, QueryOption> &queryOptions()
{
    static const std::map<std::string_view, QueryOption> options = {
        { "allowWatchBookmarks",
          { "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"." } },
        { "continue",
          { "string",
            "The continue option should be set when retrieving more results from the server." } },
        { "dryRun",
          { "string",
            "When present, indicates that modifications should not be persisted. An invalid or "
            "unrecognized dryRun directive will result in an error response and no further "
            "processing of the request. Valid values are: - All: all dry run stages will be "
            "processed" } },
        { "fieldManager",
          { "string",
            "fieldManager is a name associated with the actor or entity that is making these "
            "changes. The value must be less than or 128 characters long, and only contain "
            "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint." } },
        { "fieldSelector",
          { "string",
            "A selector to restrict the list of returned objects by their fields. Defaults to "
            "everything." } },
        { "fieldValidation",
          { "string",
            "fieldValidation instructs the server on how to handle objects in the request "
            "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - "
            "Ignore: This will ignore any unknown fields that are silently dropped from the "
            "object, and will ignore all but the last duplicate field that the decoder "
            "encounters. - Warn: This will send a warning via the standard warning response "
            "header for each unknown field that is dropped from the object, and for each "
            "duplicate field that is encountered. The request will still succeed if there are no "
            "other errors, and will only persist the last of any duplicate fields. This is the "
            "default in v1.23+ - Strict: This will fail the request with a BadRequest error if "
            "any unknown fields would be dropped from the object, or if any duplicate fields are "
            "present. The error returned from the server will contain all unknown and duplicate "
            "fields encountered." } },
        { "force",
          { "boolean",
            "Force is going to \"force\" Apply requests. It means user will re-acquire "
            "conflicting fields owned by other people. Force flag must be unset for non-apply "
            "patch requests." } },
        { "gracePeriodSeconds",
          { "integer", "The duration in seconds before the object should be deleted." } },
        { "ignoreStoreReadErrorWithClusterBreakingPotential",
          { "boolean",
            "if set to true, it will trigger an unsafe deletion of the resource in case the "
            "normal deletion flow fails with a corrupt object error." } },
        { "labelSelector",
          { "string",
            "A selector to restrict the list of returned objects by their labels. Defaults to "
            "everything." } },
        { "limit",
          { "integer", "limit is a maximum number of responses to return for a list call." } },
        { "orphanDependents",
          { "boolean",
            "Deprecated: please use the PropagationPolicy, this field will be deprecated in "
            "1.7." } },
        { "propagationPolicy",
          { "string", "Whether and how garbage collection will be performed." } },
        { "resourceVersion",
          { "string",
            "resourceVersion sets a constraint on what resource versions a request may be served "
            "from." } },
        { "resourceVersionMatch",
          { "string",
            "resourceVersionMatch determines how resourceVersion is applied to list calls." } },
        { "sendInitialEvents",
          { "boolean", "`sendInitialEvents=true` may be set together with `watch=true`." } },
        { "timeoutSeconds", { "integer", "Timeout for the list/watch call." } },
        { "watch",
          { "boolean",
            "Watch for changes to the described resources and return them as a stream of add, "
            "update, and remove notifications." } },
    };
    return options;
}

const std::vector<std::string_view> &optionNames(const std::string &action)
{
    using Names = std::vector<std::string_view>;
    static const std::map<std::string, Names> actions = [] {
        const Names write = { "dryRun", "fieldManager", "fieldValidation" };
        const Names list = { "allowWatchBookmarks",
                             "continue",
                             "fieldSelector",
                             "labelSelector",
                             "limit",
                             "resourceVersion",
                             "resourceVersionMatch",
                             "sendInitialEvents",
                             "timeoutSeconds",
                             "watch" };
        Names patch = write;
        patch.push_back("force");
        Names deleteCollection = list;
        deleteCollection.insert(deleteCollection.end(),
                                { "dryRun", "gracePeriodSeconds", "propagationPolicy" });
        const Names deleteOne = { "dryRun",
                                  "gracePeriodSeconds",
                                  "ignoreStoreReadErrorWithClusterBreakingPotential",
                                  "orphanDependents",
                                  "propagationPolicy" };
        return std::map<std::string, Names>{ { "post", write },
                                             { "put", write },
                                             { "patch", patch },
                                             { "list", list },
                                             { "deletecollection", deleteCollection },
                                             { "delete", deleteOne } };
    }();
    static const Names none;
    const auto it = actions.find(action);
    return it == actions.end() ? none : it->second;
}

} // namespace

json refSchema(const std::string &name, bool v2, const char *description)
{
    const std::string ref = (v2 ? "#/definitions/" : "#/components/schemas/") + name;
    json schema;
    if (v2)
        schema = { { "$ref", ref } };
    else
        schema = { { "allOf", json::array({ { { "$ref", ref } } }) } };
    if (description)
        schema["description"] = description;
    return schema;
}

void addMetaSchemas(json &schemas, bool v2)
{
    static const json table = json::parse(metaSchemasJson);
    for (auto it = table.begin(); it != table.end(); ++it)
        schemas[it.key()] = resolve(it.value(), v2);
}

json optionParameters(const std::string &action)
{
    json parameters = json::array();
    for (std::string_view name : optionNames(action)) {
        const QueryOption &option = queryOptions().at(name);
        parameters.push_back(
            { { "name", std::string(name) },
              { "in", "query" },
              { "description", option.description },
              { "schema", { { "type", option.type }, { "uniqueItems", true } } } });
    }
    return parameters;
}

} // namespace reconscope::controller::cluster::openapitables
