#include "controller/cluster/schema/crd.h"

#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/schema/jsonpath.h"
#include "controller/cluster/schema/structuralschema.h"

#include <QRegularExpression>

#include <QSet>
#include <algorithm>
#include <set>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

const json &member(const json &object, const char *key)
{
    static const json null;
    if (!object.is_object())
        return null;
    auto it = object.find(key);
    return it == object.end() ? null : *it;
}

QString str(const json &object, const char *key)
{
    const json &value = member(object, key);
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
}

QStringList strings(const json &value)
{
    QStringList out;
    if (value.is_array()) {
        for (const json &item : value) {
            if (item.is_string())
                out.append(QString::fromStdString(item.get<std::string>()));
        }
    }
    return out;
}

FieldError required(const QString &field, const QString &detail = {})
{
    return { u"FieldValueRequired"_s,
             field,
             detail.isEmpty() ? u"Required value"_s : u"Required value: "_s + detail };
}

FieldError invalid(const QString &field, const QString &value, const QString &detail)
{
    return { u"FieldValueInvalid"_s, field, u"Invalid value: "_s + value + u": "_s + detail };
}

FieldError forbidden(const QString &field, const QString &detail)
{
    return { u"FieldValueForbidden"_s, field, u"Forbidden: "_s + detail };
}

FieldError notSupported(const QString &field, const QString &value, const QStringList &supported)
{
    QStringList quoted;
    for (const QString &s : supported)
        quoted.append(gofmt::quote(s));
    return { u"FieldValueNotSupported"_s,
             field,
             u"Unsupported value: "_s + gofmt::quote(value) + u": supported values: "_s
                 + quoted.join(u", "_s) };
}

const QString dns1035Message
    = u"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      u"alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      u"'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"_s;

QStringList dns1035LabelErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 63)
        errors.append(u"must be no more than 63 characters"_s);
    static const QRegularExpression re(u"\\A[a-z]([-a-z0-9]*[a-z0-9])?\\z"_s);
    if (!re.match(value).hasMatch())
        errors.append(dns1035Message);
    return errors;
}

QStringList dns1123SubdomainErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 253)
        errors.append(u"must be no more than 253 characters"_s);
    static const QRegularExpression re(
        u"\\A[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\z"_s);
    if (!re.match(value).hasMatch())
        errors.append(
            u"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            u"'-' or '.', and must start and end with an alphanumeric character (e.g. "
            u"'example.com', regex used for validation is "
            u"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s);
    return errors;
}

bool boolOf(const json &schema, const char *key)
{
    const json &value = member(schema, key);
    return value.is_boolean() && value.get<bool>();
}

QString child(const QString &path, const QString &name)
{
    return path + u'.' + name;
}

QString key(const QString &path, const char *field, const std::string &name)
{
    return path + u'.' + QString::fromLatin1(field) + u'[' + QString::fromStdString(name) + u']';
}

QString index(const QString &path, const char *field, std::size_t i)
{
    return path + u'.' + QString::fromLatin1(field) + u'[' + QString::number(i) + u']';
}

bool isIntOrStringAnyOf(const json &anyOf)
{
    return anyOf.is_array() && anyOf.size() == 2 && anyOf[0] == json{ { "type", "integer" } }
    && anyOf[1] == json{ { "type", "string" } };
}

// apimachinery's %#v of a []string.
QString goStringSlice(const QStringList &values)
{
    QStringList quoted;
    for (const QString &value : values)
        quoted.append(gofmt::quote(value));
    return u"[]string{"_s + quoted.join(u", "_s) + u'}';
}

// structuralschema.ValidateStructural: the invariants of a structural schema. Upstream sorts
// these errors by their text.
class StructuralInvariants
{
public:
    QList<FieldError> errors;

    enum class Level { Root, Item, Field };

    void check(const json &s, Level level, const QString &path)
    {
        if (!s.is_object())
            return;
        const QString type = str(s, "type");
        const bool preserve = boolOf(s, "x-kubernetes-preserve-unknown-fields");
        const bool intOrString = boolOf(s, "x-kubernetes-int-or-string");
        const bool embedded = boolOf(s, "x-kubernetes-embedded-resource");
        const json &items = member(s, "items");
        const json &properties = member(s, "properties");
        const json &additional = member(s, "additionalProperties");

        if (type == u"array"_s && items.is_null())
            errors.append(required(child(path, u"items"_s), u"must be specified"_s));
        if (items.is_object())
            check(items, Level::Item, child(path, u"items"_s));
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                check(it.value(), Level::Field, key(path, "properties", it.key()));
        }
        if (!additional.is_null()) {
            if (level == Level::Root)
                errors.append(forbidden(child(path, u"additionalProperties"_s),
                                        u"must not be used at the root"_s));
            if (additional.is_object())
                check(additional, Level::Field, child(path, u"additionalProperties"_s));
        }
        if (intOrString && preserve)
            errors.append(invalid(child(path, u"x-kubernetes-preserve-unknown-fields"_s),
                                  u"true"_s,
                                  u"must be false if x-kubernetes-int-or-string is true"_s));
        if (intOrString && embedded)
            errors.append(invalid(child(path, u"x-kubernetes-embedded-resource"_s),
                                  u"true"_s,
                                  u"must be false if x-kubernetes-int-or-string is true"_s));

        const bool skipAnyOf = intOrString && isIntOrStringAnyOf(member(s, "anyOf"));
        const json &allOf = member(s, "allOf");
        const bool skipFirstAllOfAnyOf = intOrString && allOf.is_array() && !allOf.empty()
            && isIntOrStringAnyOf(member(allOf[0], "anyOf"));
        valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, path);

        const bool checkMetadata = level == Level::Root || embedded;
        if (embedded && type != u"object"_s) {
            if (type.isEmpty())
                errors.append(
                    required(child(path, u"type"_s),
                             u"must be object if x-kubernetes-embedded-resource is true"_s));
            else
                errors.append(
                    invalid(child(path, u"type"_s),
                            gofmt::quote(type),
                            u"must be object if x-kubernetes-embedded-resource is true"_s));
        } else if (type.isEmpty() && !intOrString && !preserve) {
            static const QString messages[]
                = { u"must not be empty at the root"_s,
                    u"must not be empty for specified array items"_s,
                    u"must not be empty for specified object fields"_s };
            errors.append(required(child(path, u"type"_s), messages[int(level)]));
        }
        if (embedded && !additional.is_null())
            errors.append(
                forbidden(child(path, u"additionalProperties"_s),
                          u"must not be used if x-kubernetes-embedded-resource is set"_s));
        if (level == Level::Root && !type.isEmpty() && type != u"object"_s)
            errors.append(invalid(
                child(path, u"type"_s), gofmt::quote(type), u"must be object at the root"_s));
        for (const char *meta : { "kind", "apiVersion" }) {
            const json &property = member(properties, meta);
            if (checkMetadata && property.is_object() && str(property, "type") != u"string"_s)
                errors.append(invalid(child(key(path, "properties", meta), u"type"_s),
                                      gofmt::quote(str(property, "type")),
                                      u"must be string"_s));
        }
        const json &metadata = member(properties, "metadata");
        if (metadata.is_object())
            metadataInvariants(metadata, checkMetadata, level, key(path, "properties", "metadata"));
        if (embedded && !preserve && (!properties.is_object() || properties.empty()))
            errors.append(
                required(child(path, u"properties"_s),
                         u"must not be empty if x-kubernetes-embedded-resource is true without "
                         u"x-kubernetes-preserve-unknown-fields"_s));
    }

private:
    void metadataInvariants(const json &s, bool checkMetadata, Level level, const QString &path)
    {
        if (checkMetadata && str(s, "type") != u"object"_s)
            errors.append(
                invalid(child(path, u"type"_s), gofmt::quote(str(s, "type")), u"must be object"_s));
        if (level != Level::Root)
            return;
        // Only `type`, `default` and properties name/generateName may be said about it.
        bool extra = false;
        for (auto it = s.begin(); it != s.end(); ++it) {
            if (it.key() == "type" || it.key() == "default")
                continue;
            if (it.key() == "properties" && it->is_object()) {
                for (auto p = it->begin(); p != it->end(); ++p)
                    extra = extra || (p.key() != "name" && p.key() != "generateName");
                continue;
            }
            extra = true;
        }
        if (extra)
            errors.append(
                forbidden(path,
                          u"must not specify anything other than name and generateName, but "
                          u"metadata is implicitly specified"_s));
    }

    void
    valueValidation(const json &v, bool skipAnyOf, bool skipFirstAllOfAnyOf, const QString &path)
    {
        const json &anyOf = member(v, "anyOf");
        if (!skipAnyOf && anyOf.is_array()) {
            for (std::size_t i = 0; i < anyOf.size(); ++i)
                nested(anyOf[i], false, index(path, "anyOf", i));
        }
        const json &allOf = member(v, "allOf");
        for (std::size_t i = 0; allOf.is_array() && i < allOf.size(); ++i)
            nested(allOf[i], skipFirstAllOfAnyOf && i == 0, index(path, "allOf", i));
        const json &oneOf = member(v, "oneOf");
        for (std::size_t i = 0; oneOf.is_array() && i < oneOf.size(); ++i)
            nested(oneOf[i], false, index(path, "oneOf", i));
        if (member(v, "not").is_object())
            nested(v["not"], false, child(path, u"not"_s));
        const QString pattern = str(v, "pattern");
        if (!pattern.isEmpty()) {
            const QRegularExpression re(pattern);
            if (!re.isValid())
                errors.append(invalid(child(path, u"pattern"_s),
                                      gofmt::quote(pattern),
                                      u"must be a valid regular expression, but isn't: "_s
                                          + re.errorString()));
        }
    }

    // validateNestedValueValidation: inside allOf/anyOf/oneOf/not only value validations.
    void nested(const json &v, bool skipAnyOf, const QString &path)
    {
        if (!v.is_object())
            return;
        valueValidation(v, skipAnyOf, false, path);
        if (member(v, "items").is_object())
            nested(v["items"], false, child(path, u"items"_s));
        const json &properties = member(v, "properties");
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                nested(it.value(), false, key(path, "properties", it.key()));
        }
        const auto forbid = [&](const char *field, const char *message) {
            errors.append(
                forbidden(child(path, QString::fromLatin1(field)), QString::fromLatin1(message)));
        };
        if (!str(v, "type").isEmpty())
            forbid("type", "must be empty to be structural");
        if (!member(v, "additionalProperties").is_null())
            forbid("additionalProperties", "must be undefined to be structural");
        if (!member(v, "default").is_null())
            forbid("default", "must be undefined to be structural");
        if (!str(v, "title").isEmpty())
            forbid("title", "must be empty to be structural");
        if (!str(v, "description").isEmpty())
            forbid("description", "must be empty to be structural");
        if (boolOf(v, "nullable"))
            forbid("nullable", "must be false to be structural");
        if (!member(v, "externalDocs").is_null())
            forbid("externalDocs", "must be undefined to be structural");
        if (boolOf(v, "x-kubernetes-preserve-unknown-fields"))
            forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
        if (boolOf(v, "x-kubernetes-embedded-resource"))
            forbid("x-kubernetes-embedded-resource", "must be false to be structural");
        if (boolOf(v, "x-kubernetes-int-or-string"))
            forbid("x-kubernetes-int-or-string", "must be false to be structural");
        if (!strings(member(v, "x-kubernetes-list-map-keys")).isEmpty())
            forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
        if (!member(v, "x-kubernetes-list-type").is_null())
            forbid("x-kubernetes-list-type", "must be undefined to be structural");
        if (!member(v, "x-kubernetes-map-type").is_null())
            forbid("x-kubernetes-map-type", "must be undefined to be structural");
        if (member(v, "x-kubernetes-validations").is_array()
            && !v["x-kubernetes-validations"].empty())
            forbid("x-kubernetes-validations", "must be empty to be structural");
        if (properties.is_object() && properties.contains("metadata"))
            errors.append(forbidden(key(path, "properties", "metadata"),
                                    u"must not be specified in a nested context"_s));
    }
};

// validateCustomResourceDefinitionOpenAPISchema: the OpenAPI-level rules of CRD schemas.
class OpenApiSchemaRules
{
public:
    QList<FieldError> errors;
    QList<FieldError> mapKeyErrors; // validateMapListKeysMapSet, reported after the others

    // `noDefaults`: why defaults are forbidden here ("in top-level metadata"), empty if allowed.
    void
    check(const json &s, const QString &path, bool root = false, const QString &noDefaults = {})
    {
        if (!s.is_object())
            return;
        standard(s, path);
        if (!noDefaults.isEmpty() && !member(s, "default").is_null())
            errors.append(forbidden(child(path, u"default"_s), u"must not be set "_s + noDefaults));
        if (boolOf(s, "uniqueItems"))
            errors.append(forbidden(
                child(path, u"uniqueItems"_s),
                u"uniqueItems cannot be set to true since the runtime complexity becomes quadratic"_s));
        const json &additional = member(s, "additionalProperties");
        const json &properties = member(s, "properties");
        if (!additional.is_null()) {
            if (properties.is_object() && !properties.empty()
                && ((additional.is_boolean() && !additional.get<bool>()) || additional.is_object()))
                errors.append(
                    forbidden(child(path, u"additionalProperties"_s),
                              u"additionalProperties and properties are mutual exclusive"_s));
            if (additional.is_object())
                check(additional, child(path, u"additionalProperties"_s), false, noDefaults);
        }
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                check(it.value(),
                      key(path, "properties", it.key()),
                      false,
                      root
                              && (it.key() == "metadata" || it.key() == "apiVersion"
                                  || it.key() == "kind")
                          ? u"in top-level "_s + QString::fromStdString(it.key())
                          : noDefaults);
        }
        if (member(s, "not").is_object())
            check(s["not"], child(path, u"not"_s), false, noDefaults);
        for (const char *junctor : { "allOf", "oneOf", "anyOf" }) {
            const json &list = member(s, junctor);
            for (std::size_t i = 0; list.is_array() && i < list.size(); ++i)
                check(list[i], index(path, junctor, i), false, noDefaults);
        }
        if (member(s, "items").is_object())
            check(s["items"], child(path, u"items"_s), false, noDefaults);
        const json &preserve = member(s, "x-kubernetes-preserve-unknown-fields");
        if (preserve.is_boolean() && !preserve.get<bool>())
            errors.append(invalid(child(path, u"x-kubernetes-preserve-unknown-fields"_s),
                                  u"false"_s,
                                  u"must be true or undefined"_s));
        listType(s, path);
        mapType(s, path);
        const QStringList mapKeys = strings(member(s, "x-kubernetes-list-map-keys"));
        const json &listTypeValue = member(s, "x-kubernetes-list-type");
        if (!mapKeys.isEmpty()) {
            if (listTypeValue.is_null())
                errors.append(
                    required(child(path, u"x-kubernetes-list-type"_s),
                             u"must be map if x-kubernetes-list-map-keys is non-empty"_s));
            else if (str(s, "x-kubernetes-list-type") != u"map"_s)
                errors.append(invalid(child(path, u"x-kubernetes-list-type"_s),
                                      gofmt::quote(str(s, "x-kubernetes-list-type")),
                                      u"must be map if x-kubernetes-list-map-keys is non-empty"_s));
        }
        errors.append(mapKeyErrors);
        mapKeyErrors.clear();
        celRules(s, path);
    }

private:
    void standard(const json &s, const QString &path)
    {
        const auto forbid = [&](const char *field, const char *message) {
            errors.append(
                forbidden(child(path, QString::fromLatin1(field)), QString::fromLatin1(message)));
        };
        const QString type = str(s, "type");
        static const QStringList types
            = { u"array"_s, u"boolean"_s, u"integer"_s, u"number"_s, u"object"_s, u"string"_s };
        if (type == u"null"_s)
            forbid("type", "type cannot be set to null, use nullable as an alternative");
        else if (!type.isEmpty() && !types.contains(type))
            errors.append(notSupported(child(path, u"type"_s), type, types));
        if (!str(s, "id").isEmpty())
            forbid("id", "id is not supported");
        if (!member(s, "additionalItems").is_null())
            forbid("additionalItems", "additionalItems is not supported");
        if (member(s, "patternProperties").is_object() && !s["patternProperties"].empty())
            forbid("patternProperties", "patternProperties is not supported");
        if (member(s, "definitions").is_object() && !s["definitions"].empty())
            forbid("definitions", "definitions is not supported");
        if (!member(s, "dependencies").is_null())
            forbid("dependencies", "dependencies is not supported");
        if (!member(s, "$ref").is_null())
            forbid("$ref", "$ref is not supported");
        if (member(s, "items").is_array())
            forbid("items", "items must be a schema object and not an array");
        if (boolOf(s, "x-kubernetes-int-or-string") && !type.isEmpty())
            errors.append(invalid(child(path, u"type"_s),
                                  gofmt::quote(type),
                                  u"must be empty if x-kubernetes-int-or-string is true"_s));
    }

    void listType(const json &s, const QString &path)
    {
        if (member(s, "x-kubernetes-list-type").is_null())
            return;
        const QString listType = str(s, "x-kubernetes-list-type");
        const QString type = str(s, "type");
        if (type != u"array"_s) {
            if (type.isEmpty())
                errors.append(required(child(path, u"type"_s),
                                       u"must be array if x-kubernetes-list-type is specified"_s));
            else
                errors.append(invalid(child(path, u"type"_s),
                                      gofmt::quote(type),
                                      u"must be array if x-kubernetes-list-type is specified"_s));
        }
        static const QStringList listTypes = { u"atomic"_s, u"set"_s, u"map"_s };
        const json &setItems = member(s, "items");
        if (type == u"array"_s && listType == u"set"_s && setItems.is_object()) {
            // Items of a set must be atomic (upstream shows the items' list type as the value).
            const QString shown = member(setItems, "x-kubernetes-list-type").is_string()
                ? gofmt::quote(str(setItems, "x-kubernetes-list-type"))
                : u"null"_s;
            const QString itemType = str(setItems, "type");
            const QString itemListType = str(setItems, "x-kubernetes-list-type");
            if (itemType == u"array"_s && !itemListType.isEmpty() && itemListType != u"atomic"_s)
                errors.append(
                    invalid(child(path, u"items.x-kubernetes-list-type"_s),
                            shown,
                            u"must be atomic as item of a list with x-kubernetes-list-type=set"_s));
            if (itemType == u"object"_s && str(setItems, "x-kubernetes-map-type") != u"atomic"_s)
                errors.append(
                    invalid(child(path, u"items.x-kubernetes-map-type"_s),
                            shown,
                            u"must be atomic as item of a list with x-kubernetes-list-type=set"_s));
        }
        if (!listTypes.contains(listType))
            errors.append(
                notSupported(child(path, u"x-kubernetes-list-type"_s), listType, listTypes));
        if (listType != u"map"_s)
            return;
        const QStringList keys = strings(member(s, "x-kubernetes-list-map-keys"));
        if (keys.isEmpty())
            errors.append(required(child(path, u"x-kubernetes-list-map-keys"_s),
                                   u"must not be empty if x-kubernetes-list-type is map"_s));
        const json &items = member(s, "items");
        if (items.is_null()) {
            errors.append(required(child(path, u"items"_s),
                                   u"must have a schema if x-kubernetes-list-type is map"_s));
            return;
        }
        if (!items.is_object() || str(items, "type") != u"object"_s) {
            if (items.is_object())
                errors.append(
                    invalid(child(path, u"items.type"_s),
                            gofmt::quote(str(items, "type")),
                            u"must be object if parent array's x-kubernetes-list-type is map"_s));
            return;
        }
        QStringList seen;
        for (const QString &k : keys) {
            const json &property = member(member(items, "properties"), k.toStdString().c_str());
            if (property.is_object()) {
                const QString keyType = str(property, "type");
                if (keyType == u"array"_s || keyType == u"object"_s)
                    errors.append(invalid(
                        child(key(child(path, u"items"_s), "properties", k.toStdString()),
                              u"type"_s),
                        u"\"object\""_s,
                        u"must be a scalar type if parent array's x-kubernetes-list-type is map"_s));
            } else {
                errors.append(invalid(child(path, u"x-kubernetes-list-map-keys"_s),
                                      goStringSlice(keys),
                                      u"entries must all be names of item properties"_s));
            }
            if (property.is_object()) {
                const QStringList required_ = strings(member(items, "required"));
                const QString propertyPath
                    = key(child(path, u"items"_s), "properties", k.toStdString());
                if (!required_.contains(k) && member(property, "default").is_null())
                    mapKeyErrors.append(required(
                        child(propertyPath, u"default"_s),
                        u"this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"_s));
                if (boolOf(property, "nullable"))
                    mapKeyErrors.append(forbidden(
                        child(propertyPath, u"nullable"_s),
                        u"this property is in x-kubernetes-list-map-keys, so it cannot be nullable"_s));
            }
            if (seen.contains(k))
                errors.append(invalid(child(path, u"x-kubernetes-list-map-keys"_s),
                                      goStringSlice(keys),
                                      u"must not contain duplicate entries"_s));
            seen.append(k);
        }
    }

    void mapType(const json &s, const QString &path)
    {
        if (member(s, "x-kubernetes-map-type").is_null())
            return;
        const QString type = str(s, "type");
        if (type != u"object"_s) {
            if (type.isEmpty())
                errors.append(required(child(path, u"type"_s),
                                       u"must be object if x-kubernetes-map-type is specified"_s));
            else
                errors.append(invalid(child(path, u"type"_s),
                                      gofmt::quote(type),
                                      u"must be object if x-kubernetes-map-type is specified"_s));
        }
        const QString mapType = str(s, "x-kubernetes-map-type");
        if (mapType != u"atomic"_s && mapType != u"granular"_s)
            errors.append(notSupported(
                child(path, u"x-kubernetes-map-type"_s), mapType, { u"atomic"_s, u"granular"_s }));
    }

    // The static checks of x-kubernetes-validations; the CEL rules themselves are not compiled.
    void celRules(const json &s, const QString &path)
    {
        const json &rules = member(s, "x-kubernetes-validations");
        for (std::size_t i = 0; rules.is_array() && i < rules.size(); ++i) {
            const QString rulePath = index(path, "x-kubernetes-validations", i);
            const QString rule = str(rules[i], "rule").trimmed();
            const QString rawMessage = str(rules[i], "message");
            const QString message = rawMessage.trimmed();
            if (rule.isEmpty())
                errors.append(required(child(rulePath, u"rule"_s), u"rule is not specified"_s));
            else if (!rawMessage.isEmpty() && message.isEmpty())
                errors.append(invalid(child(rulePath, u"message"_s),
                                      gofmt::quote(rawMessage),
                                      u"message must be non-empty if specified"_s));
            else if (message.contains(u'\n') || message.contains(u'\r'))
                errors.append(invalid(child(rulePath, u"message"_s),
                                      gofmt::quote(rawMessage),
                                      u"message must not contain line breaks"_s));
            else if ((rule.contains(u'\n') || rule.contains(u'\r')) && message.isEmpty())
                errors.append(
                    required(child(rulePath, u"message"_s),
                             u"message must be specified if rule contains line breaks"_s));
        }
    }
};

// Defaults must be pruned and valid against their own schema (apiextensions'
// defaulting.ValidateDefaults with requirePrunedDefaults, as for every v1 CRD). Defaults inside
// the root's metadata are not checked here.
void validateDefaults(const json &schema, const QString &path, bool root, QList<FieldError> &errors)
{
    if (!schema.is_object())
        return;
    if (auto it = schema.find("default"); it != schema.end() && !it->is_null()) {
        const QString defaultPath = path + u".default"_s;
        auto node = StructuralSchema::fromJson(schema);
        if (node) {
            json pruned = *it;
            if (!node->prune(pruned).isEmpty()) {
                errors.append(
                    invalid(defaultPath, gofmt::badValue(*it), u"must not have unknown fields"_s));
            } else {
                for (FieldError error : node->validate(*it)) {
                    error.field = error.field.isEmpty() || error.field == u"<nil>"_s
                        ? defaultPath
                        : defaultPath + u'.' + error.field;
                    errors.append(error);
                }
            }
        }
    }
    // additionalProperties are not followed: defaults are forbidden there.
    if (auto it = schema.find("items"); it != schema.end() && it->is_object())
        validateDefaults(*it, path + u".items"_s, false, errors);
    if (auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (auto p = it->begin(); p != it->end(); ++p) {
            if (root && p.key() == "metadata")
                continue;
            validateDefaults(p.value(),
                             path + u".properties["_s + QString::fromStdString(p.key()) + u']',
                             false,
                             errors);
        }
    }
}

// JSON nesting (objects and arrays) of a value; schema nodes take about two levels each.
constexpr int maxSchemaNesting = 2000;

int nestingDepth(const json &value)
{
    if (!value.is_structured())
        return 0;
    int deepest = 0;
    for (const json &child : value)
        deepest = std::max(deepest, nestingDepth(child));
    return deepest + 1;
}

// ValidateCustomResourceSelectableFields: dot-notation paths to string, boolean or integer
// fields outside metadata, unique, at most eight.
void validateSelectableFields(const json &version,
                              const json &schema,
                              const QString &path,
                              QList<FieldError> &errors)
{
    const json &fields = member(version, "selectableFields");
    if (!fields.is_array() || fields.empty())
        return;
    QStringList unique;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const QString fieldPath = path + u'[' + QString::number(i) + u"].jsonPath"_s;
        const QString jsonPath = str(fields[i], "jsonPath");
        if (jsonPath.isEmpty()) {
            errors.append(required(fieldPath));
            continue;
        }
        const json *node = &schema;
        QStringList segments
            = jsonPath.startsWith(u'.') ? jsonPath.mid(1).split(u'.') : QStringList();
        bool found = !segments.isEmpty();
        for (const QString &segment : segments) {
            const json &next = member(member(*node, "properties"), segment.toStdString().c_str());
            if (segment.isEmpty() || !next.is_object()) {
                found = false;
                break;
            }
            node = &next;
        }
        if (!found) {
            errors.append(invalid(fieldPath,
                                  gofmt::quote(jsonPath),
                                  u"is an invalid path: does not refer to a valid field"_s));
            continue;
        }
        if (segments.first() == u"metadata"_s)
            errors.append(invalid(
                fieldPath, gofmt::quote(jsonPath), u"must not point to fields in metadata"_s));
        const QString type = str(*node, "type");
        if (type != u"string"_s && type != u"boolean"_s && type != u"integer"_s)
            errors.append(
                invalid(fieldPath,
                        gofmt::quote(jsonPath),
                        u"must point to a field of type string, boolean or integer. Enum string "
                        u"fields and strings with formats are allowed."_s));
        const QString normalized = segments.join(u'.');
        if (unique.contains(normalized))
            errors.append({ u"FieldValueDuplicate"_s,
                            fieldPath,
                            u"Duplicate value: "_s + gofmt::quote(jsonPath) });
        else
            unique.append(normalized);
    }
    if (unique.size() > 8)
        errors.append({ u"FieldValueTooMany"_s,
                        path,
                        u"Too many: "_s + QString::number(unique.size())
                            + u": must have at most 8 items"_s });
}

bool hasStatus(const json &version)
{
    return member(version, "subresources").is_object()
        && member(member(version, "subresources"), "status").is_object();
}

} // namespace

void applyCrdDefaults(json &crd)
{
    if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].is_object())
        return;
    json &spec = crd["spec"];
    if (spec.contains("names") && spec["names"].is_object()) {
        json &names = spec["names"];
        const QString kind = str(names, "kind");
        if (str(names, "singular").isEmpty() && !kind.isEmpty())
            names["singular"] = kind.toLower().toStdString();
        if (str(names, "listKind").isEmpty() && !kind.isEmpty())
            names["listKind"] = (kind + u"List"_s).toStdString();
    }
    if (!spec.contains("conversion") || !spec["conversion"].is_object())
        spec["conversion"] = json::object();
    if (!spec["conversion"].contains("strategy"))
        spec["conversion"]["strategy"] = "None";
}

QList<FieldError> validateCrd(const json &crd)
{
    QList<FieldError> errors;
    const json &metadata = member(crd, "metadata");
    const json &spec = member(crd, "spec");
    const json &names = member(spec, "names");
    const QString group = str(spec, "group");
    const QString plural = str(names, "plural");

    const QString name = str(metadata, "name");
    if (name.isEmpty()) {
        errors.append(required(u"metadata.name"_s, u"name or generateName is required"_s));
    } else {
        for (const QString &message : dns1123SubdomainErrors(name))
            errors.append(invalid(u"metadata.name"_s, gofmt::quote(name), message));
        if (name != plural + u'.' + group)
            errors.append(invalid(u"metadata.name"_s,
                                  gofmt::quote(name),
                                  u"must be spec.names.plural+\".\"+spec.group"_s));
    }

    if (group.isEmpty()) {
        errors.append(required(u"spec.group"_s));
    } else if (const QStringList e = dns1123SubdomainErrors(group); !e.isEmpty()) {
        errors.append(invalid(u"spec.group"_s, gofmt::quote(group), e.join(u',')));
    } else if (!group.contains(u'.')) {
        errors.append(invalid(
            u"spec.group"_s, gofmt::quote(group), u"should be a domain with at least one dot"_s));
    }

    const QString scope = str(spec, "scope");
    if (scope.isEmpty())
        errors.append(required(u"spec.scope"_s));
    else if (scope != u"Cluster"_s && scope != u"Namespaced"_s)
        errors.append(notSupported(u"spec.scope"_s, scope, { u"Cluster"_s, u"Namespaced"_s }));

    const json &versions = member(spec, "versions");
    int storageCount = 0;
    QSet<QString> versionNames;
    bool unique = true;
    if (!versions.is_array() || versions.empty())
        errors.append(required(u"spec.versions"_s,
                               u"must have exactly one version marked as storage version"_s));
    for (std::size_t i = 0; versions.is_array() && i < versions.size(); ++i) {
        const json &version = versions[i];
        const QString path = u"spec.versions["_s + QString::number(i) + u']';
        const QString versionName = str(version, "name");
        if (member(version, "storage").is_boolean() && version["storage"].get<bool>())
            ++storageCount;
        if (versionNames.contains(versionName))
            unique = false;
        versionNames.insert(versionName);
        if (const QStringList e = dns1035LabelErrors(versionName); !e.isEmpty())
            errors.append(invalid(path + u".name"_s, gofmt::quote(versionName), e.join(u',')));

        const json &schema = member(member(version, "schema"), "openAPIV3Schema");
        const QString schemaPath = path + u".schema.openAPIV3Schema"_s;
        // Schemas arrive from API clients: refuse absurd nesting before walking it recursively.
        if (nestingDepth(schema) > maxSchemaNesting) {
            errors.append(invalid(schemaPath,
                                  u"\"\""_s,
                                  u"must not be nested more than "_s
                                      + QString::number(maxSchemaNesting) + u" levels deep"_s));
            continue;
        }
        if (!schema.is_object()) {
            errors.append(required(schemaPath, u"schemas are required"_s));
        } else {
            // As ValidateCustomResourceDefinitionValidation: nullable root, then the structural
            // invariants (sorted) or, when those hold, the defaults, then the OpenAPI rules.
            if (hasStatus(version)) {
                // Only these may be said at the root when status is a subresource (upstream
                // reports the first offender, with the whole schema as the value).
                static const std::set<std::string> allowed
                    = { "description",
                        "type",
                        "format",
                        "title",
                        "maximum",
                        "exclusiveMaximum",
                        "minimum",
                        "exclusiveMinimum",
                        "maxLength",
                        "minLength",
                        "pattern",
                        "maxItems",
                        "minItems",
                        "uniqueItems",
                        "multipleOf",
                        "required",
                        "items",
                        "properties",
                        "externalDocs",
                        "example",
                        "x-kubernetes-preserve-unknown-fields",
                        "x-kubernetes-validations" };
                if (member(schema, "type").is_string() && str(schema, "type") != u"object"_s) {
                    errors.append(
                        invalid(schemaPath + u".type"_s,
                                gofmt::quote(str(schema, "type")),
                                u"only \"object\" is allowed as the type at the root of the "
                                u"schema if the status subresource is enabled"_s));
                } else {
                    for (auto it = schema.begin(); it != schema.end(); ++it) {
                        const bool zero = it->is_null() || (it->is_boolean() && !it->get<bool>())
                            || (it->is_string() && it->get_ref<const std::string &>().empty())
                            || (it->is_structured() && it->empty());
                        if (zero || allowed.contains(it.key()))
                            continue;
                        errors.append(invalid(
                            schemaPath,
                            u"..."_s,
                            u"only [Description Type Format Title Maximum ExclusiveMaximum Minimum "
                            u"ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems "
                            u"UniqueItems MultipleOf Required Items Properties ExternalDocs "
                            u"Example "
                            u"XPreserveUnknownFields XValidations] fields are allowed at the root "
                            u"of "
                            u"the schema if the status subresource is enabled"_s));
                        break;
                    }
                }
            }
            if (boolOf(schema, "nullable"))
                errors.append(forbidden(schemaPath + u".nullable"_s,
                                        u"nullable cannot be true at the root"_s));
            StructuralInvariants invariants;
            invariants.check(schema, StructuralInvariants::Level::Root, schemaPath);
            std::sort(invariants.errors.begin(),
                      invariants.errors.end(),
                      [](const FieldError &a, const FieldError &b) {
                          return a.field + u": "_s + a.message < b.field + u": "_s + b.message;
                      });
            errors.append(invariants.errors);
            OpenApiSchemaRules rules;
            rules.check(schema, schemaPath, true);
            if (invariants.errors.isEmpty()) {
                auto parsed = StructuralSchema::fromJson(schema);
                if (parsed)
                    validateDefaults(schema, schemaPath, true, errors);
                else if (rules.errors.isEmpty()) // overlaps with the OpenAPI rules otherwise
                    errors.append(invalid(schemaPath, u"\"\""_s, parsed.error().message));
            }
            errors.append(rules.errors);
        }

        const json &subresources = member(version, "subresources");
        const json &scale = member(subresources, "scale");
        if (scale.is_object()) {
            // ValidateCustomResourceDefinitionSubresources with validateSimpleJSONPath.
            const QString scalePath = path + u".subresources.scale"_s;
            const auto simplePath = [&](const QString &field, const QString &value) {
                if (value.startsWith(u'.'))
                    return true;
                errors.append(invalid(scalePath + u'.' + field,
                                      gofmt::quote(value),
                                      u"must be a simple json path starting with ."_s));
                return false;
            };
            const auto replicasPath = [&](const char *name, const QString &prefix) {
                const QString field = QString::fromLatin1(name);
                const QString value = str(scale, name);
                if (value.isEmpty())
                    errors.append(required(scalePath + u'.' + field));
                else if (simplePath(field, value) && !value.startsWith(prefix))
                    errors.append(invalid(scalePath + u'.' + field,
                                          gofmt::quote(value),
                                          u"should be a json path under "_s + prefix.chopped(1)));
            };
            replicasPath("specReplicasPath", u".spec."_s);
            replicasPath("statusReplicasPath", u".status."_s);
            const QString selector = str(scale, "labelSelectorPath");
            if (!selector.isEmpty() && simplePath(u"labelSelectorPath"_s, selector)
                && !selector.startsWith(u".spec."_s) && !selector.startsWith(u".status."_s))
                errors.append(invalid(scalePath + u".labelSelectorPath"_s,
                                      gofmt::quote(selector),
                                      u"should be a json path under either .spec or .status"_s));
        }

        validateSelectableFields(version, schema, path + u".selectableFields"_s, errors);

        const json &columns = member(version, "additionalPrinterColumns");
        for (std::size_t c = 0; columns.is_array() && c < columns.size(); ++c) {
            const json &column = columns[c];
            const QString columnPath
                = path + u".additionalPrinterColumns["_s + QString::number(c) + u']';
            if (str(column, "name").isEmpty())
                errors.append(required(columnPath + u".name"_s));
            const QString columnType = str(column, "type");
            static const QStringList columnTypes
                = { u"boolean"_s, u"date"_s, u"integer"_s, u"number"_s, u"string"_s };
            if (columnType.isEmpty())
                errors.append(required(columnPath + u".type"_s));
            else if (!columnTypes.contains(columnType))
                errors.append(notSupported(columnPath + u".type"_s, columnType, columnTypes));
            const QString format = str(column, "format");
            static const QStringList columnFormats
                = { u"byte"_s,  u"date"_s,  u"date-time"_s, u"double"_s,  u"float"_s,
                    u"int32"_s, u"int64"_s, u"name"_s,      u"password"_s };
            if (!format.isEmpty() && !columnFormats.contains(format))
                errors.append(notSupported(columnPath + u".format"_s, format, columnFormats));
            const QString jsonPath = str(column, "jsonPath");
            if (jsonPath.isEmpty())
                errors.append(required(columnPath + u".jsonPath"_s));
            else if (!isValidJsonPath(jsonPath))
                errors.append(invalid(columnPath + u".jsonPath"_s,
                                      gofmt::quote(jsonPath),
                                      u"must be a simple json path"_s));
        }
    }
    if (!unique)
        errors.append(
            invalid(u"spec.versions"_s, u"..."_s, u"must contain unique version names"_s));
    if (versions.is_array() && !versions.empty() && storageCount != 1)
        errors.append(invalid(u"spec.versions"_s,
                              u"..."_s,
                              u"must have exactly one version marked as storage version"_s));

    if (plural.isEmpty())
        errors.append(required(u"spec.names.plural"_s));
    if (str(names, "singular").isEmpty())
        errors.append(required(u"spec.names.singular"_s));
    if (str(names, "kind").isEmpty())
        errors.append(required(u"spec.names.kind"_s));
    if (str(names, "listKind").isEmpty())
        errors.append(required(u"spec.names.listKind"_s));
    if (!plural.isEmpty()) {
        if (const QStringList e = dns1035LabelErrors(plural); !e.isEmpty())
            errors.append(invalid(u"spec.names.plural"_s, gofmt::quote(plural), e.join(u',')));
    }
    if (const QString singular = str(names, "singular"); !singular.isEmpty()) {
        if (const QStringList e = dns1035LabelErrors(singular); !e.isEmpty())
            errors.append(invalid(u"spec.names.singular"_s, gofmt::quote(singular), e.join(u',')));
    }
    for (const char *key : { "kind", "listKind" }) {
        const QString value = str(names, key);
        if (value.isEmpty())
            continue;
        if (const QStringList e = dns1035LabelErrors(value.toLower()); !e.isEmpty())
            errors.append(
                invalid(u"spec.names."_s + QString::fromLatin1(key),
                        gofmt::quote(value),
                        u"may have mixed case, but should otherwise match: "_s + e.join(u',')));
    }
    if (!str(names, "kind").isEmpty() && str(names, "kind") == str(names, "listKind"))
        errors.append(invalid(u"spec.names.listKind"_s,
                              gofmt::quote(str(names, "listKind")),
                              u"kind and listKind cannot be the same"_s));
    const QStringList shortNames = strings(member(names, "shortNames"));
    for (qsizetype i = 0; i < shortNames.size(); ++i) {
        if (const QStringList e = dns1035LabelErrors(shortNames[i]); !e.isEmpty())
            errors.append(invalid(u"spec.names.shortNames["_s + QString::number(i) + u']',
                                  gofmt::quote(shortNames[i]),
                                  e.join(u',')));
    }
    const QStringList categories = strings(member(names, "categories"));
    for (qsizetype i = 0; i < categories.size(); ++i) {
        if (const QStringList e = dns1035LabelErrors(categories[i]); !e.isEmpty())
            errors.append(invalid(u"spec.names.categories["_s + QString::number(i) + u']',
                                  gofmt::quote(categories[i]),
                                  e.join(u',')));
    }

    const QString strategy = str(member(spec, "conversion"), "strategy");
    if (!strategy.isEmpty() && strategy != u"None"_s && strategy != u"Webhook"_s)
        errors.append(
            notSupported(u"spec.conversion.strategy"_s, strategy, { u"None"_s, u"Webhook"_s }));
    return errors;
}

models::Result<QList<ResourceType>> resourceTypesFromCrd(const json &input)
{
    using R = models::Result<QList<ResourceType>>;
    json crd = input;
    applyCrdDefaults(crd);
    const QList<FieldError> errors = validateCrd(crd);
    if (!errors.isEmpty())
        return R::failure(u"CustomResourceDefinition.apiextensions.k8s.io "_s
                          + gofmt::quote(str(member(crd, "metadata"), "name")) + u" is invalid: "_s
                          + formatFieldErrors(errors));
    QList<ResourceType> types;
    const json &spec = crd["spec"];
    const json &names = spec["names"];
    for (const json &version : spec["versions"]) {
        ResourceType type;
        type.group = str(spec, "group");
        type.version = str(version, "name");
        type.plural = str(names, "plural");
        type.singular = str(names, "singular");
        type.kind = str(names, "kind");
        type.listKind = str(names, "listKind");
        type.namespaced = str(spec, "scope") == u"Namespaced"_s;
        type.shortNames = strings(member(names, "shortNames"));
        type.categories = strings(member(names, "categories"));
        type.served = member(version, "served").is_boolean() && version["served"].get<bool>();
        type.storage = member(version, "storage").is_boolean() && version["storage"].get<bool>();
        type.statusSubresource = hasStatus(version);
        const json &scale = member(member(version, "subresources"), "scale");
        if (scale.is_object()) {
            type.scaleSubresource = true;
            type.specReplicasPath = str(scale, "specReplicasPath");
            type.statusReplicasPath = str(scale, "statusReplicasPath");
            type.labelSelectorPath = str(scale, "labelSelectorPath");
        }
        type.schema = member(member(version, "schema"), "openAPIV3Schema");
        const json &columns = member(version, "additionalPrinterColumns");
        if (columns.is_array()) {
            for (const json &column : columns) {
                PrinterColumn printerColumn;
                printerColumn.name = str(column, "name");
                printerColumn.type = str(column, "type");
                printerColumn.format = str(column, "format");
                printerColumn.description = str(column, "description");
                const json &priority = member(column, "priority");
                printerColumn.priority = priority.is_number_integer() ? priority.get<int>() : 0;
                printerColumn.jsonPath = str(column, "jsonPath");
                type.printerColumns.append(printerColumn);
            }
        }
        const json &selectable = member(version, "selectableFields");
        if (selectable.is_array()) {
            for (const json &field : selectable)
                type.selectableFields.append(str(field, "jsonPath"));
        }
        types.append(type);
    }
    return types;
}

} // namespace reconscope::controller::cluster
