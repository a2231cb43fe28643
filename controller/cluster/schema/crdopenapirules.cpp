#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::crdvalidation {

namespace {

// apimachinery's %#v of a []string.
QString goStringSlice(const QStringList &values)
{
    QStringList quoted;
    for (const QString &value : values)
        quoted.append(gofmt::quote(value));
    return u"[]string{"_s + quoted.join(u", "_s) + u'}';
}

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
        if (!noDefaults.isEmpty() && !jsonMember(s, "default").is_null())
            errors.append(forbidden(child(path, u"default"_s), u"must not be set "_s + noDefaults));
        if (jsonBool(s, "uniqueItems"))
            errors.append(forbidden(
                child(path, u"uniqueItems"_s),
                u"uniqueItems cannot be set to true since the runtime complexity becomes quadratic"_s));
        const json &additional = jsonMember(s, "additionalProperties");
        const json &properties = jsonMember(s, "properties");
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
        if (jsonMember(s, "not").is_object())
            check(s["not"], child(path, u"not"_s), false, noDefaults);
        for (const char *junctor : { "allOf", "oneOf", "anyOf" }) {
            const json &list = jsonMember(s, junctor);
            for (std::size_t i = 0; list.is_array() && i < list.size(); ++i)
                check(list[i], index(path, junctor, i), false, noDefaults);
        }
        if (jsonMember(s, "items").is_object())
            check(s["items"], child(path, u"items"_s), false, noDefaults);
        const json &preserve = jsonMember(s, "x-kubernetes-preserve-unknown-fields");
        if (preserve.is_boolean() && !preserve.get<bool>())
            errors.append(invalid(child(path, u"x-kubernetes-preserve-unknown-fields"_s),
                                  u"false"_s,
                                  u"must be true or undefined"_s));
        listType(s, path);
        mapType(s, path);
        const QStringList mapKeys = jsonStrings(jsonMember(s, "x-kubernetes-list-map-keys"));
        const json &listTypeValue = jsonMember(s, "x-kubernetes-list-type");
        if (!mapKeys.isEmpty()) {
            if (listTypeValue.is_null())
                errors.append(
                    required(child(path, u"x-kubernetes-list-type"_s),
                             u"must be map if x-kubernetes-list-map-keys is non-empty"_s));
            else if (jsonString(s, "x-kubernetes-list-type") != u"map"_s)
                errors.append(invalid(child(path, u"x-kubernetes-list-type"_s),
                                      gofmt::quote(jsonString(s, "x-kubernetes-list-type")),
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
        const QString type = jsonString(s, "type");
        static const QStringList types
            = { u"array"_s, u"boolean"_s, u"integer"_s, u"number"_s, u"object"_s, u"string"_s };
        if (type == u"null"_s)
            forbid("type", "type cannot be set to null, use nullable as an alternative");
        else if (!type.isEmpty() && !types.contains(type))
            errors.append(notSupported(child(path, u"type"_s), type, types));
        if (!jsonString(s, "id").isEmpty())
            forbid("id", "id is not supported");
        if (!jsonMember(s, "additionalItems").is_null())
            forbid("additionalItems", "additionalItems is not supported");
        if (jsonMember(s, "patternProperties").is_object() && !s["patternProperties"].empty())
            forbid("patternProperties", "patternProperties is not supported");
        if (jsonMember(s, "definitions").is_object() && !s["definitions"].empty())
            forbid("definitions", "definitions is not supported");
        if (!jsonMember(s, "dependencies").is_null())
            forbid("dependencies", "dependencies is not supported");
        if (!jsonMember(s, "$ref").is_null())
            forbid("$ref", "$ref is not supported");
        if (jsonMember(s, "items").is_array())
            forbid("items", "items must be a schema object and not an array");
        if (jsonBool(s, "x-kubernetes-int-or-string") && !type.isEmpty())
            errors.append(invalid(child(path, u"type"_s),
                                  gofmt::quote(type),
                                  u"must be empty if x-kubernetes-int-or-string is true"_s));
    }

    void listType(const json &s, const QString &path)
    {
        if (jsonMember(s, "x-kubernetes-list-type").is_null())
            return;
        const QString listType = jsonString(s, "x-kubernetes-list-type");
        const QString type = jsonString(s, "type");
        requireType(type,
                    u"array"_s,
                    path,
                    u"must be array if x-kubernetes-list-type is specified"_s,
                    errors);
        static const QStringList listTypes = { u"atomic"_s, u"set"_s, u"map"_s };
        const json &items = jsonMember(s, "items");
        if (type == u"array"_s && listType == u"set"_s && items.is_object())
            setItems(items, path);
        if (!listTypes.contains(listType))
            errors.append(
                notSupported(child(path, u"x-kubernetes-list-type"_s), listType, listTypes));
        if (listType != u"map"_s)
            return;
        const QStringList keys = jsonStrings(jsonMember(s, "x-kubernetes-list-map-keys"));
        if (keys.isEmpty())
            errors.append(required(child(path, u"x-kubernetes-list-map-keys"_s),
                                   u"must not be empty if x-kubernetes-list-type is map"_s));
        if (items.is_null()) {
            errors.append(required(child(path, u"items"_s),
                                   u"must have a schema if x-kubernetes-list-type is map"_s));
            return;
        }
        if (!items.is_object() || jsonString(items, "type") != u"object"_s) {
            if (items.is_object())
                errors.append(
                    invalid(child(path, u"items.type"_s),
                            gofmt::quote(jsonString(items, "type")),
                            u"must be object if parent array's x-kubernetes-list-type is map"_s));
            return;
        }
        mapKeys(items, keys, path);
    }

    // Items of a set must be atomic (upstream shows the items' list type as the value).
    void setItems(const json &items, const QString &path)
    {
        const QString shown = jsonMember(items, "x-kubernetes-list-type").is_string()
            ? gofmt::quote(jsonString(items, "x-kubernetes-list-type"))
            : u"null"_s;
        const QString itemType = jsonString(items, "type");
        const QString itemListType = jsonString(items, "x-kubernetes-list-type");
        if (itemType == u"array"_s && !itemListType.isEmpty() && itemListType != u"atomic"_s)
            errors.append(
                invalid(child(path, u"items.x-kubernetes-list-type"_s),
                        shown,
                        u"must be atomic as item of a list with x-kubernetes-list-type=set"_s));
        if (itemType == u"object"_s && jsonString(items, "x-kubernetes-map-type") != u"atomic"_s)
            errors.append(
                invalid(child(path, u"items.x-kubernetes-map-type"_s),
                        shown,
                        u"must be atomic as item of a list with x-kubernetes-list-type=set"_s));
    }

    // The keys of a list-type map name scalar item properties, once each, that are required or
    // defaulted and not nullable.
    void mapKeys(const json &items, const QStringList &keys, const QString &path)
    {
        QStringList seen;
        for (const QString &k : keys) {
            const json &property
                = jsonMember(jsonMember(items, "properties"), k.toStdString().c_str());
            const QString propertyPath
                = key(child(path, u"items"_s), "properties", k.toStdString());
            if (property.is_object()) {
                const QString keyType = jsonString(property, "type");
                if (keyType == u"array"_s || keyType == u"object"_s)
                    errors.append(invalid(
                        child(propertyPath, u"type"_s),
                        u"\"object\""_s,
                        u"must be a scalar type if parent array's x-kubernetes-list-type is map"_s));
                mapKeyProperty(items, property, k, propertyPath);
            } else {
                errors.append(invalid(child(path, u"x-kubernetes-list-map-keys"_s),
                                      goStringSlice(keys),
                                      u"entries must all be names of item properties"_s));
            }
            if (seen.contains(k))
                errors.append(invalid(child(path, u"x-kubernetes-list-map-keys"_s),
                                      goStringSlice(keys),
                                      u"must not contain duplicate entries"_s));
            seen.append(k);
        }
    }

    // validateMapListKeysMapSet's errors for one key property, reported after the others.
    void mapKeyProperty(const json &items,
                        const json &property,
                        const QString &name,
                        const QString &propertyPath)
    {
        if (!jsonStrings(jsonMember(items, "required")).contains(name)
            && jsonMember(property, "default").is_null())
            mapKeyErrors.append(required(
                child(propertyPath, u"default"_s),
                u"this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"_s));
        if (jsonBool(property, "nullable"))
            mapKeyErrors.append(forbidden(
                child(propertyPath, u"nullable"_s),
                u"this property is in x-kubernetes-list-map-keys, so it cannot be nullable"_s));
    }

    void mapType(const json &s, const QString &path)
    {
        if (jsonMember(s, "x-kubernetes-map-type").is_null())
            return;
        const QString type = jsonString(s, "type");
        requireType(type,
                    u"object"_s,
                    path,
                    u"must be object if x-kubernetes-map-type is specified"_s,
                    errors);
        const QString mapType = jsonString(s, "x-kubernetes-map-type");
        if (mapType != u"atomic"_s && mapType != u"granular"_s)
            errors.append(notSupported(
                child(path, u"x-kubernetes-map-type"_s), mapType, { u"atomic"_s, u"granular"_s }));
    }

    // The static checks of x-kubernetes-validations; the CEL rules themselves are not compiled.
    void celRules(const json &s, const QString &path)
    {
        const json &rules = jsonMember(s, "x-kubernetes-validations");
        for (std::size_t i = 0; rules.is_array() && i < rules.size(); ++i) {
            const QString rulePath = index(path, "x-kubernetes-validations", i);
            const QString rule = jsonString(rules[i], "rule").trimmed();
            const QString rawMessage = jsonString(rules[i], "message");
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

} // namespace

QList<FieldError> openApiSchemaRuleErrors(const json &schema, const QString &path)
{
    OpenApiSchemaRules rules;
    rules.check(schema, path, true);
    return rules.errors;
}

} // namespace reconscope::controller::cluster::crdvalidation
