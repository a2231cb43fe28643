#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"

#include <algorithm>
#include <charconv>
#include <cmath>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

// Go's json.Marshal of apiextensions' internal CRD types, which have no json tags: members under
// their Go names in declaration order, nil pointers and slices as null, as field.Error prints a
// bad value of such a type.
namespace reconscope::controller::cluster::crdvalidation {

namespace {

// A struct's members in declaration order, each already rendered.
class GoStruct
{
public:
    GoStruct &add(const char *name, const QString &rendered)
    {
        m_parts.append(u'"' + QLatin1StringView(name) + u"\":"_s + rendered);
        return *this;
    }
    QString text() const { return u'{' + m_parts.join(u',') + u'}'; }

private:
    QStringList m_parts;
};

// encoding/json's float64: shortest form, exponent only below 1e-6 or from 1e21 ("1e-7").
QString goFloat(double value)
{
    const double magnitude = std::fabs(value);
    const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
    char buffer[64];
    const auto result
        = std::to_chars(buffer,
                        buffer + sizeof buffer,
                        value,
                        exponent ? std::chars_format::scientific : std::chars_format::fixed);
    QString text = QString::fromLatin1(buffer, result.ptr - buffer);
    if (const qsizetype e = text.indexOf(u"e-0"_s); e >= 0 && e + 4 == text.size())
        text.remove(e + 2, 1);
    return text;
}

QString string(const json &object, const char *key)
{
    const json &value = jsonMember(object, key);
    return gofmt::marshal(value.is_string() ? value : json(""));
}

QString boolean(const json &object, const char *key)
{
    return jsonBool(object, key) ? u"true"_s : u"false"_s;
}

// A pointer to a string or a bool: null when absent.
QString optional(const json &object, const char *key)
{
    const json &value = jsonMember(object, key);
    return value.is_string() || value.is_boolean() ? gofmt::marshal(value) : u"null"_s;
}

QString integer(const json &object, const char *key)
{
    const json &value = jsonMember(object, key);
    if (!value.is_number())
        return u"null"_s;
    return QString::number(value.is_number_float() ? qint64(value.get<double>())
                                                   : value.get<qint64>());
}

QString number(const json &object, const char *key)
{
    const json &value = jsonMember(object, key);
    return value.is_number() ? goFloat(value.get<double>()) : u"null"_s;
}

// A JSON value decoded into interface{}: numbers are float64.
QString anyValue(const json &value)
{
    if (value.is_number())
        return goFloat(value.get<double>());
    if (value.is_array()) {
        QStringList items;
        for (const json &item : value)
            items.append(anyValue(item));
        return u'[' + items.join(u',') + u']';
    }
    if (value.is_object()) {
        QStringList members;
        for (auto it = value.begin(); it != value.end(); ++it)
            members.append(gofmt::marshal(json(it.key())) + u':' + anyValue(it.value()));
        return u'{' + members.join(u',') + u'}';
    }
    return gofmt::marshal(value);
}

// A slice: null when absent (or not an array), each item rendered by `item`.
template<typename Render>
QString sliceOf(const json &value, Render item)
{
    if (!value.is_array())
        return u"null"_s;
    QStringList items;
    for (const json &entry : value)
        items.append(item(entry));
    return u'[' + items.join(u',') + u']';
}

template<typename Render>
QString slice(const json &object, const char *key, Render item)
{
    return sliceOf(jsonMember(object, key), item);
}

QString stringItem(const json &item)
{
    return gofmt::marshal(item);
}

QString schemaProps(const json &s);

QString schemaPointer(const json &value)
{
    return value.is_object() ? schemaProps(value) : u"null"_s;
}

// A map[string]T: null when absent, keys sorted (as nlohmann keeps them).
template<typename Render>
QString goMap(const json &object, const char *key, Render item)
{
    const json &value = jsonMember(object, key);
    if (!value.is_object())
        return u"null"_s;
    QStringList members;
    for (auto it = value.begin(); it != value.end(); ++it)
        members.append(gofmt::marshal(json(it.key())) + u':' + item(it.value()));
    return u'{' + members.join(u',') + u'}';
}

QString propsOrBool(const json &value)
{
    if (value.is_boolean())
        return GoStruct()
            .add("Allows", value.get<bool>() ? u"true"_s : u"false"_s)
            .add("Schema", u"null"_s)
            .text();
    if (value.is_object())
        return GoStruct().add("Allows", u"true"_s).add("Schema", schemaProps(value)).text();
    return u"null"_s;
}

QString validationRule(const json &rule)
{
    return GoStruct()
        .add("Rule", string(rule, "rule"))
        .add("Message", string(rule, "message"))
        .add("MessageExpression", string(rule, "messageExpression"))
        .add("Reason", optional(rule, "reason"))
        .add("FieldPath", string(rule, "fieldPath"))
        .add("OptionalOldSelf", optional(rule, "optionalOldSelf"))
        .text();
}

QString schemaProps(const json &s)
{
    const json &items = jsonMember(s, "items");
    const QString itemsText = items.is_object()
        ? GoStruct().add("Schema", schemaProps(items)).add("JSONSchemas", u"null"_s).text()
        : items.is_array() ? GoStruct()
                                 .add("Schema", u"null"_s)
                                 .add("JSONSchemas", slice(s, "items", schemaProps))
                                 .text()
                           : u"null"_s;
    const json &docs = jsonMember(s, "externalDocs");
    const auto present = [&s](const char *key) {
        return s.contains(key) ? anyValue(s[key]) : u"null"_s;
    };
    return GoStruct()
        .add("ID", string(s, "id"))
        .add("Schema", string(s, "$schema"))
        .add("Ref", optional(s, "$ref"))
        .add("Description", string(s, "description"))
        .add("Type", string(s, "type"))
        .add("Nullable", boolean(s, "nullable"))
        .add("Format", string(s, "format"))
        .add("Title", string(s, "title"))
        .add("Default", present("default"))
        .add("Maximum", number(s, "maximum"))
        .add("ExclusiveMaximum", boolean(s, "exclusiveMaximum"))
        .add("Minimum", number(s, "minimum"))
        .add("ExclusiveMinimum", boolean(s, "exclusiveMinimum"))
        .add("MaxLength", integer(s, "maxLength"))
        .add("MinLength", integer(s, "minLength"))
        .add("Pattern", string(s, "pattern"))
        .add("MaxItems", integer(s, "maxItems"))
        .add("MinItems", integer(s, "minItems"))
        .add("UniqueItems", boolean(s, "uniqueItems"))
        .add("MultipleOf", number(s, "multipleOf"))
        .add("Enum", slice(s, "enum", anyValue))
        .add("MaxProperties", integer(s, "maxProperties"))
        .add("MinProperties", integer(s, "minProperties"))
        .add("Required", slice(s, "required", stringItem))
        .add("Items", itemsText)
        .add("AllOf", slice(s, "allOf", schemaProps))
        .add("OneOf", slice(s, "oneOf", schemaProps))
        .add("AnyOf", slice(s, "anyOf", schemaProps))
        .add("Not", schemaPointer(jsonMember(s, "not")))
        .add("Properties", goMap(s, "properties", schemaProps))
        .add("AdditionalProperties", propsOrBool(jsonMember(s, "additionalProperties")))
        .add("PatternProperties", goMap(s, "patternProperties", schemaProps))
        .add("Dependencies",
             goMap(s,
                   "dependencies",
                   [&](const json &d) {
                       return GoStruct()
                           .add("Schema", schemaPointer(d))
                           .add("Property", sliceOf(d, stringItem))
                           .text();
                   }))
        .add("AdditionalItems", propsOrBool(jsonMember(s, "additionalItems")))
        .add("Definitions", goMap(s, "definitions", schemaProps))
        .add("ExternalDocs",
             docs.is_object() ? GoStruct()
                                    .add("Description", string(docs, "description"))
                                    .add("URL", string(docs, "url"))
                                    .text()
                              : u"null"_s)
        .add("Example", present("example"))
        .add("XPreserveUnknownFields", optional(s, "x-kubernetes-preserve-unknown-fields"))
        .add("XEmbeddedResource", boolean(s, "x-kubernetes-embedded-resource"))
        .add("XIntOrString", boolean(s, "x-kubernetes-int-or-string"))
        .add("XListMapKeys", slice(s, "x-kubernetes-list-map-keys", stringItem))
        .add("XListType", optional(s, "x-kubernetes-list-type"))
        .add("XMapType", optional(s, "x-kubernetes-map-type"))
        .add("XValidations", slice(s, "x-kubernetes-validations", validationRule))
        .text();
}

QString versionSchema(const json &version)
{
    const json &schema = jsonMember(version, "schema");
    if (!schema.is_object())
        return u"null"_s;
    return GoStruct()
        .add("OpenAPIV3Schema", schemaPointer(jsonMember(schema, "openAPIV3Schema")))
        .text();
}

QString subresources(const json &version)
{
    const json &value = jsonMember(version, "subresources");
    if (!value.is_object())
        return u"null"_s;
    const json &scale = jsonMember(value, "scale");
    return GoStruct()
        .add("Status", jsonMember(value, "status").is_object() ? u"{}"_s : u"null"_s)
        .add("Scale",
             scale.is_object() ? GoStruct()
                                     .add("SpecReplicasPath", string(scale, "specReplicasPath"))
                                     .add("StatusReplicasPath", string(scale, "statusReplicasPath"))
                                     .add("LabelSelectorPath", optional(scale, "labelSelectorPath"))
                                     .text()
                               : u"null"_s)
        .text();
}

QString printerColumn(const json &column)
{
    return GoStruct()
        .add("Name", string(column, "name"))
        .add("Type", string(column, "type"))
        .add("Format", string(column, "format"))
        .add("Description", string(column, "description"))
        .add("Priority",
             jsonMember(column, "priority").is_number() ? integer(column, "priority") : u"0"_s)
        .add("JSONPath", string(column, "jsonPath"))
        .text();
}

QString selectableField(const json &field)
{
    return GoStruct().add("JSONPath", string(field, "jsonPath")).text();
}

// apimachinery's semantic equality of two versions' member: a missing slice equals an empty one.
bool sameMember(const json &a, const json &b, const char *key, bool slice)
{
    const json &x = jsonMember(a, key);
    const json &y = jsonMember(b, key);
    if (slice) {
        const auto empty = [](const json &v) {
            return !v.is_array() || v.empty();
        };
        if (empty(x) && empty(y))
            return true;
    }
    return x == y;
}

} // namespace

QString internalVersions(const json &versions)
{
    if (!versions.is_array())
        return u"null"_s;
    // The v1 to internal conversion moves a member that every version has alike up to the spec.
    const auto hoisted = [&](const char *key, bool isSlice) {
        return std::all_of(versions.begin(), versions.end(), [&](const json &version) {
            return sameMember(version, versions.front(), key, isSlice);
        });
    };
    const bool schemaHoisted = hoisted("schema", false);
    const bool subresourcesHoisted = hoisted("subresources", false);
    const bool columnsHoisted = hoisted("additionalPrinterColumns", true);
    const bool fieldsHoisted = hoisted("selectableFields", true);
    QStringList items;
    for (const json &version : versions) {
        items.append(
            GoStruct()
                .add("Name", string(version, "name"))
                .add("Served", boolean(version, "served"))
                .add("Storage", boolean(version, "storage"))
                .add("Deprecated", boolean(version, "deprecated"))
                .add("DeprecationWarning", optional(version, "deprecationWarning"))
                .add("Schema", schemaHoisted ? u"null"_s : versionSchema(version))
                .add("Subresources", subresourcesHoisted ? u"null"_s : subresources(version))
                .add("AdditionalPrinterColumns",
                     columnsHoisted ? u"null"_s
                                    : slice(version, "additionalPrinterColumns", printerColumn))
                .add("SelectableFields",
                     fieldsHoisted ? u"null"_s
                                   : slice(version, "selectableFields", selectableField))
                .text());
    }
    return u'[' + items.join(u',') + u']';
}

} // namespace reconscope::controller::cluster::crdvalidation
