#include "controller/cluster/schema/schemanode.h"

#include "controller/cluster/schema/gofmt.h"
#include "models/jsonfields.h"

#include <set>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::structural {

namespace {

using models::jsonBool;

// Schemas arrive from API clients; bound the recursion (real CRDs nest a few dozen levels).
constexpr int maxSchemaDepth = 1000;

std::optional<std::int64_t> intField(const json &schema, const char *key)
{
    auto it = schema.find(key);
    if (it == schema.end() || !it->is_number())
        return std::nullopt;
    if (it->is_number_float())
        return static_cast<std::int64_t>(it->get<double>());
    return it->get<std::int64_t>();
}

std::string stringField(const json &schema, const char *key)
{
    auto it = schema.find(key);
    return it != schema.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Everything of a node but its sub-schemas. Kept out of parseNode so that the recursion's frames
// stay small: a schema nested a thousand levels deep must not exhaust a thread's stack (nor an
// instrumented build's, whose frames are several times larger).
[[gnu::noinline]] std::optional<models::Error>
parseScalars(const json &schema, const QString &path, SchemaNode *node)
{
    if (auto it = schema.find("type"); it != schema.end()) {
        if (!it->is_string())
            return models::Error{ path + u".type: must be a string"_s };
        node->type = it->get<std::string>();
        static const std::set<std::string> known
            = { "", "object", "array", "string", "integer", "number", "boolean" };
        if (!known.contains(node->type))
            return models::Error{ path + u".type: Unsupported value: "_s
                                  + gofmt::quote(node->type) };
    }
    node->nullable = jsonBool(schema, "nullable");
    node->preserveUnknownFields = jsonBool(schema, "x-kubernetes-preserve-unknown-fields");
    node->embeddedResource = jsonBool(schema, "x-kubernetes-embedded-resource");
    node->intOrString = jsonBool(schema, "x-kubernetes-int-or-string");

    if (auto it = schema.find("default"); it != schema.end()) {
        node->hasDefault = true;
        node->defaultValue = *it;
    }
    if (auto it = schema.find("required"); it != schema.end() && it->is_array()) {
        for (const json &name : *it) {
            if (name.is_string())
                node->required.push_back(name.get<std::string>());
        }
    }
    if (auto it = schema.find("enum"); it != schema.end() && it->is_array())
        node->enumValues = *it;
    if (auto it = schema.find("minimum"); it != schema.end() && it->is_number())
        node->minimum = *it;
    if (auto it = schema.find("maximum"); it != schema.end() && it->is_number())
        node->maximum = *it;
    if (auto it = schema.find("multipleOf"); it != schema.end() && it->is_number())
        node->multipleOf = *it;
    node->exclusiveMinimum = jsonBool(schema, "exclusiveMinimum");
    node->exclusiveMaximum = jsonBool(schema, "exclusiveMaximum");
    node->minLength = intField(schema, "minLength");
    node->maxLength = intField(schema, "maxLength");
    node->minItems = intField(schema, "minItems");
    node->maxItems = intField(schema, "maxItems");
    node->minProperties = intField(schema, "minProperties");
    node->maxProperties = intField(schema, "maxProperties");
    node->pattern = stringField(schema, "pattern");
    if (!node->pattern.empty()) {
        node->regex = QRegularExpression(QString::fromStdString(node->pattern));
        if (!node->regex.isValid())
            return models::Error{ path + u".pattern: Invalid value: "_s
                                  + gofmt::quote(node->pattern)
                                  + u": must be a valid regular expression, but isn't: "_s
                                  + node->regex.errorString() };
    }
    node->format = stringField(schema, "format");
    node->listType = stringField(schema, "x-kubernetes-list-type");
    if (auto it = schema.find("x-kubernetes-list-map-keys"); it != schema.end() && it->is_array()) {
        for (const json &key : *it) {
            if (key.is_string())
                node->listMapKeys.push_back(key.get<std::string>());
        }
    }
    return std::nullopt;
}

models::Result<NodePtr> parseNode(const json &schema, const QString &path, int depth)
{
    using R = models::Result<NodePtr>;
    if (!schema.is_object())
        return R::failure(path + u": must be an object"_s);
    if (depth > maxSchemaDepth)
        return R::failure(path + u": must not be nested more than "_s
                          + QString::number(maxSchemaDepth) + u" levels deep"_s);
    auto node = std::make_shared<SchemaNode>();
    if (auto error = parseScalars(schema, path, node.get()))
        return R(*error);
    if (auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (auto p = it->begin(); p != it->end(); ++p) {
            auto child
                = parseNode(p.value(),
                            path + u".properties["_s + QString::fromStdString(p.key()) + u']',
                            depth + 1);
            if (!child)
                return R(child.error());
            node->properties.emplace(p.key(), std::move(child).value());
        }
    }
    if (auto it = schema.find("additionalProperties"); it != schema.end()) {
        if (it->is_boolean()) {
            node->hasAdditionalProperties = it->get<bool>();
        } else {
            auto child = parseNode(*it, path + u".additionalProperties"_s, depth + 1);
            if (!child)
                return R(child.error());
            node->hasAdditionalProperties = true;
            node->additionalProperties = std::move(child).value();
        }
    }
    if (auto it = schema.find("items"); it != schema.end() && !it->is_null()) {
        auto child = parseNode(
            it->is_array() && !it->empty() ? it->front() : *it, path + u".items"_s, depth + 1);
        if (!child)
            return R(child.error());
        node->items = std::move(child).value();
    }
    const auto parseList
        = [&](const char *key, std::vector<NodePtr> &out) -> std::optional<models::Error> {
        auto it = schema.find(key);
        if (it == schema.end() || !it->is_array())
            return std::nullopt;
        for (std::size_t i = 0; i < it->size(); ++i) {
            auto child = parseNode((*it)[i],
                                   path + u'.' + QString::fromLatin1(key) + u'['
                                       + QString::number(i) + u']',
                                   depth + 1);
            if (!child)
                return child.error();
            out.push_back(std::move(child).value());
        }
        return std::nullopt;
    };
    if (auto error = parseList("allOf", node->allOf))
        return R(*error);
    if (auto error = parseList("anyOf", node->anyOf))
        return R(*error);
    if (auto error = parseList("oneOf", node->oneOf))
        return R(*error);
    if (auto it = schema.find("not"); it != schema.end()) {
        auto child = parseNode(*it, path + u".not"_s, depth + 1);
        if (!child)
            return R(child.error());
        node->notSchema = std::move(child).value();
    }
    return NodePtr(std::move(node));
}

} // namespace

models::Result<NodePtr> parse(const json &schema, const QString &path)
{
    return parseNode(schema, path, 0);
}

} // namespace reconscope::controller::cluster::structural
