#pragma once

#include <nlohmann/json.hpp>

#include <string>

// The fixed parts of kube-apiserver's OpenAPI documents, kept as data: the apimachinery meta/v1
// models and the query parameters of each operation. Internal to reconscope_schema.
namespace reconscope::controller::cluster::openapitables {

// The model-name prefix of apimachinery's meta/v1 kinds.
inline const std::string metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// A reference to the model `name`: {"$ref": "#/definitions/<name>"} in v2, {"allOf": [{"$ref":
// "#/components/schemas/<name>"}]} in v3, with `description` when given.
nlohmann::json refSchema(const std::string &name, bool v2, const char *description = nullptr);
// Adds the meta/v1 models every GroupVersion document refers to (ObjectMeta, ListMeta, Status,
// DeleteOptions, Patch and what they reference).
void addMetaSchemas(nlohmann::json &schemas, bool v2);
// The query parameters of an operation by its x-kubernetes-action ("post", "put", "patch",
// "list", "deletecollection", "delete"; any other has none), in kube-apiserver's order.
nlohmann::json optionParameters(const std::string &action);

} // namespace reconscope::controller::cluster::openapitables
