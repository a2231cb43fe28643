#include "controller/cluster/schema/structuralschema.h"

#include "controller/cluster/schema/formats.h"
#include "controller/cluster/schema/gofmt.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

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
    json defaultValue;

    std::vector<std::string> required;
    std::optional<json> enumValues;
    std::optional<json> minimum;
    std::optional<json> maximum;
    bool exclusiveMinimum = false;
    bool exclusiveMaximum = false;
    std::optional<json> multipleOf;
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

namespace {

using NodePtr = std::shared_ptr<const SchemaNode>;

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

bool boolField(const json &schema, const char *key)
{
    auto it = schema.find(key);
    return it != schema.end() && it->is_boolean() && it->get<bool>();
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
    node->nullable = boolField(schema, "nullable");
    node->preserveUnknownFields = boolField(schema, "x-kubernetes-preserve-unknown-fields");
    node->embeddedResource = boolField(schema, "x-kubernetes-embedded-resource");
    node->intOrString = boolField(schema, "x-kubernetes-int-or-string");

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
    node->exclusiveMinimum = boolField(schema, "exclusiveMinimum");
    node->exclusiveMaximum = boolField(schema, "exclusiveMaximum");
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

// ---- pruning ----------------------------------------------------------------------------------

bool isMetaField(const std::string &key)
{
    return key == "apiVersion" || key == "kind" || key == "metadata";
}

std::string childPath(const std::string &parent, const std::string &key)
{
    return parent.empty() ? key : parent + '.' + key;
}

std::string indexPath(const std::string &parent, std::size_t index)
{
    return parent + '[' + std::to_string(index) + ']';
}

void pruneValue(json &x,
                const SchemaNode *s,
                bool embedded,
                const std::string &path,
                std::vector<std::string> &pruned);

// objectmeta.Coerce for x-kubernetes-embedded-resource objects below the root: apiVersion and
// kind that are not strings are dropped, metadata keeps ObjectMeta's fields only (unknown ones
// are reported like pruned fields, malformed ones dropped silently).
void coerceEmbeddedMeta(json &x, const std::string &path, std::vector<std::string> &pruned)
{
    for (const char *key : { "apiVersion", "kind" }) {
        auto it = x.find(key);
        if (it != x.end() && !it->is_string())
            x.erase(it);
    }
    auto metadata = x.find("metadata");
    if (metadata == x.end())
        return;
    if (!metadata->is_object()) {
        x.erase(metadata);
        return;
    }
    const auto isStringMap = [](const json &v) {
        return v.is_object()
            && std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_string(); });
    };
    const auto isArrayOf = [](const json &v, bool strings) {
        return v.is_array() && std::all_of(v.begin(), v.end(), [strings](const json &e) {
                   return strings ? e.is_string() : e.is_object();
               });
    };
    static const std::set<std::string> strings
        = { "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion" };
    static const std::set<std::string> integers = { "generation", "deletionGracePeriodSeconds" };
    static const std::set<std::string> times = { "creationTimestamp", "deletionTimestamp" };
    for (auto it = metadata->begin(); it != metadata->end();) {
        const std::string &key = it.key();
        const json &v = it.value();
        bool known = true, wellFormed = true;
        if (strings.contains(key))
            wellFormed = v.is_string() || v.is_null();
        else if (integers.contains(key))
            wellFormed = v.is_number_integer() || v.is_null();
        else if (times.contains(key))
            wellFormed = v.is_string() || v.is_null();
        else if (key == "labels" || key == "annotations")
            wellFormed = isStringMap(v) || v.is_null();
        else if (key == "finalizers")
            wellFormed = isArrayOf(v, true) || v.is_null();
        else if (key == "ownerReferences" || key == "managedFields")
            wellFormed = isArrayOf(v, false) || v.is_null();
        else
            known = false;
        if (!known)
            pruned.push_back(childPath(childPath(path, "metadata"), key));
        if (!known || !wellFormed)
            it = metadata->erase(it);
        else
            ++it;
    }
}

void skipPrune(json &x,
               const SchemaNode *s,
               const std::string &path,
               std::vector<std::string> &pruned)
{
    if (!s)
        return;
    if (x.is_object()) {
        if (s->embeddedResource && !path.empty())
            coerceEmbeddedMeta(x, path, pruned);
        for (auto it = x.begin(); it != x.end(); ++it) {
            if (s->embeddedResource && isMetaField(it.key()))
                continue;
            const std::string child = childPath(path, it.key());
            if (auto p = s->properties.find(it.key()); p != s->properties.end())
                pruneValue(it.value(), p->second.get(), false, child, pruned);
            else if (s->hasAdditionalProperties)
                pruneValue(it.value(), s->additionalProperties.get(), false, child, pruned);
        }
    } else if (x.is_array()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            skipPrune(x[i], s->items.get(), indexPath(path, i), pruned);
    }
}

void pruneValue(json &x,
                const SchemaNode *s,
                bool embedded,
                const std::string &path,
                std::vector<std::string> &pruned)
{
    if (s && s->preserveUnknownFields) {
        if (embedded && !s->embeddedResource) {
            SchemaNode clone = *s;
            clone.embeddedResource = true;
            skipPrune(x, &clone, path, pruned);
        } else {
            skipPrune(x, s, path, pruned);
        }
        return;
    }
    if (x.is_object()) {
        if (!s) {
            for (auto it = x.begin(); it != x.end(); ++it)
                pruned.push_back(childPath(path, it.key()));
            x = json::object();
            return;
        }
        const bool keepMeta = embedded || s->embeddedResource;
        if (s->embeddedResource && !path.empty())
            coerceEmbeddedMeta(x, path, pruned);
        for (auto it = x.begin(); it != x.end();) {
            const std::string child = childPath(path, it.key());
            if (keepMeta && isMetaField(it.key())) {
                ++it;
            } else if (auto p = s->properties.find(it.key()); p != s->properties.end()) {
                pruneValue(it.value(), p->second.get(), false, child, pruned);
                ++it;
            } else if (s->hasAdditionalProperties) {
                pruneValue(it.value(), s->additionalProperties.get(), false, child, pruned);
                ++it;
            } else {
                pruned.push_back(child);
                it = x.erase(it);
            }
        }
    } else if (x.is_array()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            pruneValue(x[i], s ? s->items.get() : nullptr, false, indexPath(path, i), pruned);
    }
}

// ---- defaulting -------------------------------------------------------------------------------

bool isNonNullableNull(const json &x, const SchemaNode *s)
{
    return x.is_null() && s && !s->nullable;
}

const SchemaNode *schemaForField(const std::string &key, const SchemaNode *s)
{
    if (!s)
        return nullptr;
    if (auto p = s->properties.find(key); p != s->properties.end())
        return p->second.get();
    return s->hasAdditionalProperties ? s->additionalProperties.get() : nullptr;
}

void pruneNonNullableNullsWithoutDefaults(json &x, const SchemaNode *s)
{
    if (x.is_object()) {
        for (auto it = x.begin(); it != x.end();) {
            const SchemaNode *child = schemaForField(it.key(), s);
            if (isNonNullableNull(it.value(), child) && !child->hasDefault) {
                it = x.erase(it);
            } else {
                pruneNonNullableNullsWithoutDefaults(it.value(), child);
                ++it;
            }
        }
    } else if (x.is_array()) {
        for (json &item : x)
            pruneNonNullableNullsWithoutDefaults(item, s ? s->items.get() : nullptr);
    }
}

void defaultValue(json &x, const SchemaNode *s)
{
    if (!s)
        return;
    if (x.is_object()) {
        for (const auto &[key, prop] : s->properties) {
            if (!prop->hasDefault)
                continue;
            auto it = x.find(key);
            if (it == x.end() || isNonNullableNull(*it, prop.get()))
                x[key] = prop->defaultValue;
        }
        for (auto it = x.begin(); it != x.end(); ++it) {
            if (auto p = s->properties.find(it.key()); p != s->properties.end()) {
                defaultValue(it.value(), p->second.get());
            } else if (s->hasAdditionalProperties && s->additionalProperties) {
                const SchemaNode *additional = s->additionalProperties.get();
                if (isNonNullableNull(it.value(), additional) && additional->hasDefault)
                    it.value() = additional->defaultValue;
                defaultValue(it.value(), additional);
            }
        }
    } else if (x.is_array()) {
        for (json &item : x) {
            if (s->items && isNonNullableNull(item, s->items.get()) && s->items->hasDefault)
                item = s->items->defaultValue;
            defaultValue(item, s->items.get());
        }
    }
}

// ---- validation -------------------------------------------------------------------------------

QString fieldOf(const std::string &path)
{
    return QString::fromStdString(path);
}

// The name kube-openapi puts into its messages ("spec.replicas in body ...").
QString nameOf(const std::string &path)
{
    return QString::fromStdString(path);
}

FieldError invalid(const std::string &path, const QString &value, const QString &detail)
{
    return { u"FieldValueInvalid"_s,
             fieldOf(path),
             u"Invalid value: "_s + value + u": "_s + detail };
}

FieldError typeInvalid(const std::string &path, const QString &value, const QString &detail)
{
    return { u"FieldValueTypeInvalid"_s,
             fieldOf(path),
             u"Invalid value: "_s + value + u": "_s + detail };
}

// The JSON type of a decoded value as kube-openapi names it.
std::string jsonType(const json &x)
{
    switch (x.type()) {
    case json::value_t::object:
        return "object";
    case json::value_t::array:
        return "array";
    case json::value_t::string:
        return "string";
    case json::value_t::boolean:
        return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "integer";
    case json::value_t::number_float:
        return "number";
    default:
        return "null";
    }
}

bool isIntegral(const json &x)
{
    if (x.is_number_integer())
        return true;
    if (!x.is_number_float())
        return false;
    const double d = x.get<double>();
    return std::isfinite(d) && d == std::floor(d);
}

// -1, 0, 1; exact for integers, through double only when a float is involved.
int compareNumbers(const json &a, const json &b)
{
    if (a.is_number_integer() && b.is_number_integer()) {
        if (a.is_number_unsigned() || b.is_number_unsigned()) {
            if (a.is_number_unsigned() && b.is_number_unsigned()) {
                const auto x = a.get<std::uint64_t>(), y = b.get<std::uint64_t>();
                return x < y ? -1 : (x > y ? 1 : 0);
            }
            if (a.is_number_unsigned()) // b is a signed integer
                return b.get<std::int64_t>() < 0 ? 1
                                                 : compareNumbers(a, json(b.get<std::uint64_t>()));
            return a.get<std::int64_t>() < 0 ? -1 : compareNumbers(json(a.get<std::uint64_t>()), b);
        }
        const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    const double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : (x > y ? 1 : 0);
}

QString typeNames(const SchemaNode &s)
{
    return s.intOrString ? u"integer,string"_s : QString::fromStdString(s.type);
}

// Ratcheting correlation: the same key of the old object.
const json *member(const json *old, const std::string &key)
{
    if (!old || !old->is_object())
        return nullptr;
    auto it = old->find(key);
    return it == old->end() ? nullptr : &*it;
}

// Ratcheting correlation inside arrays: list-type=map items by their keys, plain lists by index;
// sets and atomic lists do not correlate.
const json *
correlatedItem(const SchemaNode &s, const json &item, std::size_t index, const json *old)
{
    if (!old || !old->is_array())
        return nullptr;
    if (s.listType.empty())
        return index < old->size() ? &(*old)[index] : nullptr;
    if (s.listType != "map" || s.listMapKeys.empty() || !item.is_object())
        return nullptr;
    for (const json &candidate : *old) {
        if (!candidate.is_object())
            continue;
        bool same = true;
        for (const std::string &key : s.listMapKeys) {
            auto a = item.find(key), b = candidate.find(key);
            if ((a == item.end()) != (b == candidate.end()) || (a != item.end() && *a != *b)) {
                same = false;
                break;
            }
        }
        if (same)
            return &candidate;
    }
    return nullptr;
}

class Validator
{
public:
    QList<FieldError> errors;

    // `old` is the correlated value of the previous object on an update (null on create, or
    // where no correlation exists): CRD validation ratcheting skips unchanged values.
    void
    validate(const SchemaNode &s, const json &x, const std::string &path, const json *old = nullptr)
    {
        if (old && *old == x)
            return;
        const auto name = [&path] {
            return nameOf(path);
        };
        if (x.is_null()) {
            if ((!s.type.empty() || s.intOrString) && !s.nullable)
                errors.append(typeInvalid(path,
                                          u"\"null\""_s,
                                          name() + u" in body must be of type "_s + typeNames(s)
                                              + u": \"null\""_s));
            return;
        }
        const std::string actual = jsonType(x);
        bool typeOk = true;
        if (s.intOrString)
            typeOk = actual == "string" || actual == "integer"
                || (actual == "number" && isIntegral(x));
        else if (!s.type.empty())
            typeOk = s.type == actual || (s.type == "number" && actual == "integer")
                || (s.type == "integer" && actual == "number" && isIntegral(x));
        if (!typeOk) {
            errors.append(typeInvalid(path,
                                      gofmt::quote(actual),
                                      name() + u" in body must be of type "_s + typeNames(s)
                                          + u": "_s + gofmt::quote(actual)));
            validateEnum(s, x, path);
            return;
        }

        validateCombinators(s, x, path, old);
        if (x.is_string())
            validateString(s, x, path);
        if (x.is_number())
            validateNumber(s, x, path);
        if (x.is_array())
            validateArray(s, x, path, old);
        validateEnum(s, x, path);
        if (x.is_object())
            validateObject(s, x, path, old);
    }

private:
    static QList<FieldError>
    validateOnly(const SchemaNode &s, const json &x, const std::string &path, const json *old)
    {
        Validator v;
        v.validate(s, x, path, old);
        return v.errors;
    }

    // kube-openapi reports combinator failures as composite errors, which the apiextensions
    // apiserver turns into field.Invalid(<nil path>, "", message): the field reads "<nil>".
    void composite(const QString &message)
    {
        errors.append({ u"FieldValueInvalid"_s, u"<nil>"_s, u"Invalid value: \"\": "_s + message });
    }

    void validateCombinators(const SchemaNode &s,
                             const json &x,
                             const std::string &path,
                             const json *old)
    {
        // Only a failing combinator names the path (most nodes have none).
        const auto quoted = [&path] {
            return gofmt::quote(path);
        };
        if (!s.anyOf.empty()) {
            std::optional<QList<FieldError>> best;
            bool matched = false;
            for (const NodePtr &branch : s.anyOf) {
                QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
                if (branchErrors.isEmpty()) {
                    matched = true;
                    break;
                }
                if (!best || branchErrors.size() < best->size())
                    best = std::move(branchErrors);
            }
            if (!matched) {
                composite(quoted() + u" must validate at least one schema (anyOf)"_s);
                errors.append(*best);
            }
        }
        if (!s.oneOf.empty()) {
            int valid = 0;
            std::optional<QList<FieldError>> best;
            for (const NodePtr &branch : s.oneOf) {
                QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
                if (branchErrors.isEmpty())
                    ++valid;
                else if (valid == 0 && (!best || branchErrors.size() < best->size()))
                    best = std::move(branchErrors);
            }
            if (valid != 1) {
                composite(quoted() + u" must validate one and only one schema (oneOf). "_s
                          + (valid == 0 ? u"Found none valid"_s
                                        : u"Found "_s + QString::number(valid)
                                     + u" valid alternatives"_s));
                if (valid == 0 && best)
                    errors.append(*best);
            }
        }
        if (!s.allOf.empty()) {
            int valid = 0;
            for (const NodePtr &branch : s.allOf) {
                const QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
                if (branchErrors.isEmpty())
                    ++valid;
                errors.append(branchErrors);
            }
            if (valid != int(s.allOf.size()))
                composite(quoted() + u" must validate all the schemas (allOf)"_s
                          + (valid == 0 ? u". None validated"_s : QString()));
        }
        if (s.notSchema && validateOnly(*s.notSchema, x, path, nullptr).isEmpty())
            composite(quoted() + u" must not validate the schema (not)"_s);
    }

    void validateString(const SchemaNode &s, const json &x, const std::string &path)
    {
        const auto name = [&path] {
            return nameOf(path);
        };
        const std::string &text = x.get_ref<const std::string &>();
        // Characters, not bytes: count the UTF-8 sequences' lead bytes.
        const auto runes = static_cast<std::int64_t>(
            std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
        if (s.maxLength && runes > *s.maxLength) {
            errors.append({ u"FieldValueTooLong"_s,
                            fieldOf(path),
                            u"Too long: may not be more than "_s + QString::number(*s.maxLength)
                                + (*s.maxLength == 1 ? u" byte"_s : u" bytes"_s) });
        }
        if (s.minLength && runes < *s.minLength)
            errors.append(invalid(path,
                                  gofmt::quote(text),
                                  name() + u" in body should be at least "_s
                                      + QString::number(*s.minLength) + u" chars long"_s));
        if (!s.pattern.empty() && !s.regex.match(QString::fromStdString(text)).hasMatch())
            errors.append(invalid(path,
                                  gofmt::quote(text),
                                  name() + u" in body should match '"_s
                                      + QString::fromStdString(s.pattern) + u'\''));
        if (!s.format.empty() && !formats::isValid(s.format, text))
            errors.append(typeInvalid(path,
                                      gofmt::quote(text),
                                      name() + u" in body must be of type "_s
                                          + QString::fromStdString(s.format) + u": "_s
                                          + gofmt::quote(text)));
    }

    void validateNumber(const SchemaNode &s, const json &x, const std::string &path)
    {
        const auto name = [&path] {
            return nameOf(path);
        };
        const auto value = [&x] {
            return gofmt::plain(x);
        };
        if (s.multipleOf) {
            const double factor = s.multipleOf->get<double>();
            bool multiple;
            if (x.is_number_integer() && s.multipleOf->is_number_integer()
                && s.multipleOf->get<std::int64_t>() > 0)
                multiple = x.get<std::int64_t>() % s.multipleOf->get<std::int64_t>() == 0;
            else {
                const double q = x.get<double>() / factor;
                multiple = factor != 0 && std::fabs(q - std::round(q)) < 1e-9;
            }
            if (!multiple)
                errors.append(invalid(path,
                                      value(),
                                      name() + u" in body should be a multiple of "_s
                                          + gofmt::plain(*s.multipleOf)));
        }
        if (s.maximum) {
            const int c = compareNumbers(x, *s.maximum);
            if (c > 0 || (s.exclusiveMaximum && c == 0))
                errors.append(invalid(path,
                                      value(),
                                      name()
                                          + (s.exclusiveMaximum
                                                 ? u" in body should be less than "_s
                                                 : u" in body should be less than or equal to "_s)
                                          + gofmt::plain(*s.maximum)));
        }
        if (s.minimum) {
            const int c = compareNumbers(x, *s.minimum);
            if (c < 0 || (s.exclusiveMinimum && c == 0))
                errors.append(invalid(
                    path,
                    value(),
                    name()
                        + (s.exclusiveMinimum ? u" in body should be greater than "_s
                                              : u" in body should be greater than or equal to "_s)
                        + gofmt::plain(*s.minimum)));
        }
    }

    void validateArray(const SchemaNode &s, const json &x, const std::string &path, const json *old)
    {
        const auto name = [&path] {
            return nameOf(path);
        };
        const auto size = static_cast<std::int64_t>(x.size());
        if (s.minItems && size < *s.minItems)
            errors.append(invalid(path,
                                  QString::number(size),
                                  name() + u" in body should have at least "_s
                                      + QString::number(*s.minItems) + u" items"_s));
        if (s.maxItems && size > *s.maxItems)
            errors.append({ u"FieldValueTooMany"_s,
                            fieldOf(path),
                            u"Too many: "_s + QString::number(size) + u": must have at most "_s
                                + QString::number(*s.maxItems) + u" items"_s });
        if (s.items) {
            for (std::size_t i = 0; i < x.size(); ++i)
                validate(*s.items, x[i], indexPath(path, i), correlatedItem(s, x[i], i, old));
        }
        if (s.listType == "set")
            validateSet(x, path);
        else if (s.listType == "map")
            validateListMap(s, x, path);
    }

    void duplicates(const std::vector<json> &keys,
                    const std::string &path,
                    const std::function<json(std::size_t)> &shown)
    {
        std::map<std::string, int> seen;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (++seen[keys[i].dump()] == 2)
                errors.append({ u"FieldValueDuplicate"_s,
                                fieldOf(indexPath(path, i)),
                                u"Duplicate value: "_s + gofmt::badValue(shown(i)) });
        }
    }

    void validateSet(const json &x, const std::string &path)
    {
        std::vector<json> keys(x.begin(), x.end());
        duplicates(keys, path, [&](std::size_t i) { return x[i]; });
    }

    void validateListMap(const SchemaNode &s, const json &x, const std::string &path)
    {
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!x[i].is_null() && !x[i].is_object()) {
                errors.append(invalid(indexPath(path, i),
                                      gofmt::badValue(x[i]),
                                      u"must be an object for an array of list-type map"_s));
                return;
            }
        }
        std::vector<json> keys;
        for (const json &item : x) {
            json key = json::object();
            for (const std::string &field : s.listMapKeys) {
                if (item.is_object()) {
                    if (auto it = item.find(field); it != item.end())
                        key[field] = *it;
                }
            }
            keys.push_back(key);
        }
        duplicates(keys, path, [&](std::size_t i) { return keys[i]; });
    }

    void validateEnum(const SchemaNode &s, const json &x, const std::string &path)
    {
        if (!s.enumValues)
            return;
        for (const json &allowed : *s.enumValues) {
            if (allowed == x
                || (allowed.is_number() && x.is_number() && compareNumbers(allowed, x) == 0))
                return;
        }
        QStringList supported;
        for (const json &allowed : *s.enumValues)
            supported.append(
                gofmt::quote(allowed.is_string() ? allowed.get<std::string>() : allowed.dump()));
        errors.append(
            { u"FieldValueNotSupported"_s,
              fieldOf(path),
              u"Unsupported value: "_s + gofmt::badValue(x)
                  + (supported.isEmpty() ? QString()
                                         : u": supported values: "_s + supported.join(u", "_s)) });
    }

    // objectmeta.Validate for x-kubernetes-embedded-resource objects: apiVersion and kind are
    // required and well-formed (metadata is not checked here).
    void validateEmbeddedTypeMeta(const json &x, const std::string &path)
    {
        const std::string apiVersionPath = childPath(path, "apiVersion");
        const std::string kindPath = childPath(path, "kind");
        const auto required = [this](const std::string &field) {
            errors.append({ u"FieldValueRequired"_s, fieldOf(field), u"Required value"_s });
        };
        auto apiVersion = x.find("apiVersion");
        if (apiVersion == x.end()) {
            required(apiVersionPath);
        } else if (!apiVersion->is_string()) {
            errors.append(
                invalid(apiVersionPath, gofmt::badValue(*apiVersion), u"must be a string"_s));
        } else if (apiVersion->get_ref<const std::string &>().empty()) {
            required(apiVersionPath);
        } else {
            const std::string &text = apiVersion->get_ref<const std::string &>();
            if (std::count(text.begin(), text.end(), '/') > 1)
                errors.append(
                    invalid(apiVersionPath,
                            gofmt::quote(text),
                            u"unexpected GroupVersion string: "_s + QString::fromStdString(text)));
        }
        auto kind = x.find("kind");
        if (kind == x.end()) {
            required(kindPath);
        } else if (!kind->is_string()) {
            errors.append(invalid(kindPath, gofmt::badValue(*kind), u"must be a string"_s));
        } else if (kind->get_ref<const std::string &>().empty()) {
            required(kindPath);
        } else {
            static const QRegularExpression dns1035(u"\\A[a-z]([-a-z0-9]*[a-z0-9])?\\z"_s);
            const QString text = QString::fromStdString(kind->get<std::string>());
            if (text.size() > 63 || !dns1035.match(text.toLower()).hasMatch())
                errors.append(invalid(
                    kindPath,
                    gofmt::quote(text),
                    u"may have mixed case, but should otherwise match: "_s
                        + (text.size() > 63
                               ? u"must be no more than 63 characters"_s
                               : u"a DNS-1035 label must consist of lower case "
                                 u"alphanumeric characters or '-', start with an "
                                 u"alphabetic character, and end with an alphanumeric "
                                 u"character (e.g. 'my-name',  or 'abc-123', regex "
                                 u"used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"_s)));
        }
    }

    void
    validateObject(const SchemaNode &s, const json &x, const std::string &path, const json *old)
    {
        const auto name = [&path] {
            return nameOf(path);
        };
        if (s.embeddedResource && !path.empty())
            validateEmbeddedTypeMeta(x, path);
        const auto count = static_cast<std::int64_t>(x.size());
        if (s.minProperties && count < *s.minProperties) {
            errors.append(invalid(path,
                                  QString::number(*s.minProperties),
                                  name() + u" in body should have at least "_s
                                      + QString::number(*s.minProperties) + u" properties"_s));
            return;
        }
        if (s.maxProperties && count > *s.maxProperties) {
            errors.append({ u"FieldValueTooMany"_s,
                            fieldOf(path),
                            u"Too many: "_s + QString::number(count) + u": must have at most "_s
                                + QString::number(*s.maxProperties) + u" items"_s });
            return;
        }
        for (auto it = x.begin(); it != x.end(); ++it) {
            if (s.embeddedResource && isMetaField(it.key()) && !s.properties.contains(it.key()))
                continue;
            const std::string child = childPath(path, it.key());
            if (auto p = s.properties.find(it.key()); p != s.properties.end())
                validate(*p->second, it.value(), child, member(old, it.key()));
            else if (s.hasAdditionalProperties && s.additionalProperties)
                validate(*s.additionalProperties, it.value(), child, member(old, it.key()));
        }
        for (const std::string &key : s.required) {
            if (!x.contains(key))
                errors.append({ u"FieldValueRequired"_s,
                                fieldOf(childPath(path, key)),
                                u"Required value"_s });
        }
    }
};

} // namespace

StructuralSchema::StructuralSchema() = default;

namespace {

bool holdsNull(const json &value)
{
    if (value.is_null())
        return true;
    if (value.is_structured()) {
        for (const json &item : value) {
            if (holdsNull(item))
                return true;
        }
    }
    return false;
}

// Whether every default under `s` is free of nulls and left alone by pruning.
bool canonicalDefaults(const SchemaNode &s)
{
    if (s.hasDefault) {
        if (holdsNull(s.defaultValue))
            return false;
        json pruned = s.defaultValue;
        std::vector<std::string> paths;
        pruneValue(pruned, &s, false, std::string(), paths);
        if (!paths.empty()
            || pruned.dump(-1, ' ', false, json::error_handler_t::replace)
                != s.defaultValue.dump(-1, ' ', false, json::error_handler_t::replace))
            return false;
    }
    const auto all = [](const auto &nodes) {
        return std::all_of(nodes.begin(), nodes.end(), [](const NodePtr &node) {
            return !node || canonicalDefaults(*node);
        });
    };
    for (const auto &[key, node] : s.properties) {
        if (!canonicalDefaults(*node))
            return false;
    }
    return (!s.additionalProperties || canonicalDefaults(*s.additionalProperties))
        && (!s.items || canonicalDefaults(*s.items)) && all(s.allOf) && all(s.anyOf) && all(s.oneOf)
        && (!s.notSchema || canonicalDefaults(*s.notSchema));
}

} // namespace

StructuralSchema::StructuralSchema(std::shared_ptr<const SchemaNode> root)
    : m_root(std::move(root))
{
    const SchemaNode &r = *m_root;
    m_checksMembersAlone = (r.type.empty() || r.type == "object") && !r.intOrString
        && r.allOf.empty() && r.anyOf.empty() && r.oneOf.empty() && !r.notSchema && !r.enumValues
        && !r.minProperties && !r.maxProperties && canonicalDefaults(r);
}

models::Result<StructuralSchema> StructuralSchema::fromJson(const json &openAPIV3Schema)
{
    if (openAPIV3Schema.is_null())
        return StructuralSchema();
    auto root = parseNode(openAPIV3Schema, u"openAPIV3Schema"_s, 0);
    if (!root)
        return models::Result<StructuralSchema>(root.error());
    return StructuralSchema(std::move(root).value());
}

QStringList StructuralSchema::prune(json &object) const
{
    if (!m_root)
        return {};
    std::vector<std::string> pruned;
    pruneValue(object, m_root.get(), true, std::string(), pruned);
    std::sort(pruned.begin(), pruned.end());
    QStringList paths;
    paths.reserve(qsizetype(pruned.size()));
    for (const std::string &path : pruned)
        paths.append(QString::fromStdString(path));
    return paths;
}

void StructuralSchema::applyDefaults(json &object) const
{
    if (!m_root)
        return;
    pruneNonNullableNullsWithoutDefaults(object, m_root.get());
    defaultValue(object, m_root.get());
}

QList<FieldError> StructuralSchema::validate(const json &object) const
{
    if (!m_root)
        return {};
    Validator validator;
    // The root's metadata is ObjectMeta: its schema only constrains name/generateName.
    validator.validate(*m_root, object, std::string());
    return validator.errors;
}

QList<FieldError> StructuralSchema::validateUpdate(const json &object, const json &old) const
{
    if (!m_root)
        return {};
    Validator validator;
    validator.validate(*m_root, object, std::string(), &old);
    return validator.errors;
}

bool StructuralSchema::declaresStatus() const
{
    return m_root && m_root->properties.contains("status");
}

bool StructuralSchema::checksMembersAlone() const
{
    return m_checksMembersAlone;
}

const std::vector<std::string> &StructuralSchema::requiredMembers() const
{
    static const std::vector<std::string> none;
    return m_root ? m_root->required : none;
}

QList<FieldError> StructuralSchema::validateMemberUpdate(const std::string &key,
                                                         const json &value,
                                                         const json *old) const
{
    if (!m_root)
        return {};
    const SchemaNode *node = nullptr;
    if (auto p = m_root->properties.find(key); p != m_root->properties.end())
        node = p->second.get();
    else if (m_root->hasAdditionalProperties)
        node = m_root->additionalProperties.get();
    if (!node)
        return {};
    Validator validator;
    validator.validate(*node, value, key, old);
    return validator.errors;
}

} // namespace reconscope::controller::cluster
