#pragma once

#include "controller/cluster/schema/fielderror.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// The tree behind StructuralSchema and the walks over it, one file each: parsing, pruning,
// defaulting, validation (list types apart). Internal to reconscope_schema.
namespace reconscope::controller::cluster {

// One node of a structural schema, with the value validations that may hang off it.
struct SchemaNode
{
    std::string type; // "", object, array, string, integer, number, boolean
    bool nullable = false;
    bool preserveUnknownFields = false;
    bool embeddedResource = false;
    bool intOrString = false;

    std::map<std::string, std::shared_ptr<const SchemaNode>> properties;
    bool hasAdditionalProperties = false;
    std::shared_ptr<const SchemaNode> additionalProperties; // null with the flag set: `true`
    std::shared_ptr<const SchemaNode> items;

    bool hasDefault = false;
    nlohmann::json defaultValue;

    std::vector<std::string> required;
    std::optional<nlohmann::json> enumValues;
    std::optional<nlohmann::json> minimum;
    std::optional<nlohmann::json> maximum;
    bool exclusiveMinimum = false;
    bool exclusiveMaximum = false;
    std::optional<nlohmann::json> multipleOf;
    std::optional<std::int64_t> minLength, maxLength, minItems, maxItems, minProperties,
        maxProperties;
    std::string pattern;
    QRegularExpression regex;
    std::string format;
    std::string listType;
    std::vector<std::string> listMapKeys;

    std::vector<std::shared_ptr<const SchemaNode>> allOf, anyOf, oneOf;
    std::shared_ptr<const SchemaNode> notSchema;
};

namespace structural {

using NodePtr = std::shared_ptr<const SchemaNode>;

// The node tree of an openAPIV3Schema; fails on malformed or absurdly nested input with the
// path of the offending node (rooted at `path`).
models::Result<NodePtr> parse(const nlohmann::json &schema, const QString &path);

// Field paths of custom-resource values as upstream prints them: "spec.items[0].name"; the
// root is the empty path.
std::string childPath(const std::string &parent, const std::string &key);
std::string indexPath(const std::string &parent, std::size_t index);
// apiVersion, kind or metadata.
bool isMetaField(const std::string &key);

// Prunes `x` against `s` (null: nothing is declared); `embedded`: `x` is an object whose
// apiVersion, kind and metadata are kept. Appends the removed fields' paths to `pruned`.
void prune(nlohmann::json &x,
           const SchemaNode *s,
           bool embedded,
           const std::string &path,
           std::vector<std::string> &pruned);

// StructuralSchema::applyDefaults() below `root`.
void applyDefaults(nlohmann::json &x, const SchemaNode &root, bool pruneNulls = true);
// Removes the nulls of fields that are not nullable and have no default (what applyDefaults()
// does before defaulting).
void pruneNonNullableNulls(nlohmann::json &x, const SchemaNode &root);
// Whether every default under `s` is free of nulls and left alone by pruning.
bool canonicalDefaults(const SchemaNode &s);

// The value validation of `x` at `path` against `s`; `old` is the correlated value of the
// previous object on an update (null on create), whose unchanged values are not validated again.
QList<FieldError> validate(const SchemaNode &s,
                           const nlohmann::json &x,
                           const std::string &path,
                           const nlohmann::json *old);

} // namespace structural

} // namespace reconscope::controller::cluster
