#include "controller/cluster/schema/crd.h"

#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/schema/jsonpath.h"
#include "controller/cluster/schema/structuralschema.h"

#include <QRegularExpression>

#include <QSet>
#include <algorithm>

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

// The structural-schema rules of apiextensions-apiserver (pkg/apiserver/schema/validation.go and
// the CRD validation of v1 schemas), reported under `path`.
class StructuralCheck
{
public:
    QList<FieldError> errors;

    void checkRoot(const json &schema, const QString &path, bool statusEnabled)
    {
        Q_UNUSED(statusEnabled);
        if (!schema.is_object()) {
            errors.append(required(path, u"schemas are required"_s));
            return;
        }
        const QString type = str(schema, "type");
        if (type.isEmpty() && !boolOf(schema, "x-kubernetes-preserve-unknown-fields")
            && !boolOf(schema, "x-kubernetes-int-or-string"))
            errors.append(required(path + u".type"_s, u"must not be empty at the root"_s));
        else if (!type.isEmpty() && type != u"object"_s)
            errors.append(
                invalid(path + u".type"_s, gofmt::quote(type), u"must be object at the root"_s));
        if (boolOf(schema, "nullable"))
            errors.append(forbidden(path + u".nullable"_s, u"must be false at the root"_s));
        const json &metadata = member(member(schema, "properties"), "metadata");
        if (metadata.is_object()) {
            const QString metaPath = path + u".properties[metadata]"_s;
            const QString metaType = str(metadata, "type");
            if (!metaType.isEmpty() && metaType != u"object"_s)
                errors.append(
                    invalid(metaPath + u".type"_s, gofmt::quote(metaType), u"must be object"_s));
            const json &metaProperties = member(metadata, "properties");
            if (metaProperties.is_object()) {
                for (auto it = metaProperties.begin(); it != metaProperties.end(); ++it) {
                    if (it.key() != "name" && it.key() != "generateName")
                        errors.append(forbidden(metaPath + u".properties["_s
                                                    + QString::fromStdString(it.key()) + u']',
                                                u"must not be specified"_s));
                }
            }
        }
        checkNode(schema, path, false);
    }

private:
    static bool boolOf(const json &schema, const char *key)
    {
        const json &value = member(schema, key);
        return value.is_boolean() && value.get<bool>();
    }

    void checkValueValidation(const json &schema, const QString &path)
    {
        // Inside allOf/anyOf/oneOf/not only value validations are allowed.
        if (!schema.is_object())
            return;
        static const char *forbiddenKeys[] = { "type",
                                               "default",
                                               "nullable",
                                               "additionalProperties",
                                               "x-kubernetes-preserve-unknown-fields",
                                               "x-kubernetes-embedded-resource",
                                               "x-kubernetes-int-or-string" };
        for (const char *key : forbiddenKeys) {
            const json &value = member(schema, key);
            if (value.is_null() || (value.is_boolean() && !value.get<bool>()))
                continue;
            if (std::string(key) == "x-kubernetes-int-or-string")
                continue; // allowed with the anyOf int-or-string pattern
            errors.append(forbidden(path + u'.' + QString::fromLatin1(key),
                                    u"must be empty to be structural"_s));
        }
        const json &properties = member(schema, "properties");
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                checkValueValidation(
                    it.value(), path + u".properties["_s + QString::fromStdString(it.key()) + u']');
        }
        if (member(schema, "items").is_object())
            checkValueValidation(member(schema, "items"), path + u".items"_s);
        for (const char *key : { "allOf", "anyOf", "oneOf" }) {
            const json &list = member(schema, key);
            if (!list.is_array())
                continue;
            for (std::size_t i = 0; i < list.size(); ++i)
                checkValueValidation(list[i],
                                     path + u'.' + QString::fromLatin1(key) + u'['
                                         + QString::number(i) + u']');
        }
        if (member(schema, "not").is_object())
            checkValueValidation(member(schema, "not"), path + u".not"_s);
    }

    void checkNode(const json &schema, const QString &path, bool specifiedField)
    {
        if (!schema.is_object())
            return;
        const QString type = str(schema, "type");
        const bool preserve = boolOf(schema, "x-kubernetes-preserve-unknown-fields");
        const bool intOrString = boolOf(schema, "x-kubernetes-int-or-string");
        const bool embedded = boolOf(schema, "x-kubernetes-embedded-resource");
        if (specifiedField && type.isEmpty() && !preserve && !intOrString)
            errors.append(
                required(path + u".type"_s, u"must not be empty for specified object fields"_s));
        if (intOrString && !type.isEmpty())
            errors.append(invalid(path + u".type"_s,
                                  gofmt::quote(type),
                                  u"must be empty if x-kubernetes-int-or-string is true"_s));
        if (embedded && type != u"object"_s)
            errors.append(required(path + u".type"_s,
                                   u"must be object if x-kubernetes-embedded-resource is true"_s));
        const json &preserveValue = member(schema, "x-kubernetes-preserve-unknown-fields");
        if (preserveValue.is_boolean() && !preserveValue.get<bool>())
            errors.append(invalid(path + u".x-kubernetes-preserve-unknown-fields"_s,
                                  u"false"_s,
                                  u"must be true or undefined"_s));
        if (!member(schema, "$ref").is_null())
            errors.append(forbidden(path + u".$ref"_s, u"$ref is not supported"_s));
        const json &unique = member(schema, "uniqueItems");
        if (unique.is_boolean() && unique.get<bool>())
            errors.append(
                forbidden(path + u".uniqueItems"_s,
                          u"uniqueItems cannot be set to true since the runtime complexity "
                          u"becomes quadratic"_s));
        const json &additional = member(schema, "additionalProperties");
        const json &properties = member(schema, "properties");
        if (additional.is_boolean() && !additional.get<bool>())
            errors.append(forbidden(path + u".additionalProperties"_s,
                                    u"additionalProperties cannot be set to false"_s));
        if (!additional.is_null() && properties.is_object() && !properties.empty())
            errors.append(forbidden(path + u".additionalProperties"_s,
                                    u"additionalProperties and properties are mutual exclusive"_s));
        if (type == u"array"_s && member(schema, "items").is_null())
            errors.append(required(path + u".items"_s, u"must be specified"_s));
        const QString listType = str(schema, "x-kubernetes-list-type");
        if (!listType.isEmpty()) {
            static const QStringList listTypes = { u"atomic"_s, u"map"_s, u"set"_s };
            if (!listTypes.contains(listType))
                errors.append(
                    notSupported(path + u".x-kubernetes-list-type"_s, listType, listTypes));
            if (type != u"array"_s)
                errors.append(invalid(path + u".type"_s,
                                      gofmt::quote(type),
                                      u"must be array if x-kubernetes-list-type is specified"_s));
            if (listType == u"map"_s
                && strings(member(schema, "x-kubernetes-list-map-keys")).isEmpty())
                errors.append(required(path + u".x-kubernetes-list-map-keys"_s,
                                       u"must not be empty if x-kubernetes-list-type is map"_s));
        }
        if (!member(schema, "x-kubernetes-list-map-keys").is_null() && listType != u"map"_s)
            errors.append(required(path + u".x-kubernetes-list-type"_s,
                                   u"must be map if x-kubernetes-list-map-keys is non-empty"_s));

        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                checkNode(it.value(),
                          path + u".properties["_s + QString::fromStdString(it.key()) + u']',
                          true);
        }
        if (additional.is_object())
            checkNode(additional, path + u".additionalProperties"_s, true);
        const json &items = member(schema, "items");
        if (items.is_object()) {
            if (str(items, "type").isEmpty()
                && !boolOf(items, "x-kubernetes-preserve-unknown-fields")
                && !boolOf(items, "x-kubernetes-int-or-string"))
                errors.append(required(path + u".items.type"_s,
                                       u"must not be empty for specified array items"_s));
            checkNode(items, path + u".items"_s, false);
        } else if (items.is_array()) {
            errors.append(
                forbidden(path + u".items"_s, u"items must be a schema object and not an array"_s));
        }
        // x-kubernetes-int-or-string may spell out its types as anyOf [{type: integer},
        // {type: string}], directly or as the first allOf entry.
        const bool skipAnyOf = intOrString && isIntOrStringAnyOf(member(schema, "anyOf"));
        const json &allOf = member(schema, "allOf");
        const bool skipFirstAllOfAnyOf = intOrString && allOf.is_array() && !allOf.empty()
            && allOf[0].is_object() && allOf[0].size() == 1
            && isIntOrStringAnyOf(member(allOf[0], "anyOf"));
        for (const char *key : { "allOf", "anyOf", "oneOf" }) {
            const json &list = member(schema, key);
            if (!list.is_array() || (skipAnyOf && std::string(key) == "anyOf"))
                continue;
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (skipFirstAllOfAnyOf && i == 0 && std::string(key) == "allOf")
                    continue;
                checkValueValidation(list[i],
                                     path + u'.' + QString::fromLatin1(key) + u'['
                                         + QString::number(i) + u']');
            }
        }
        if (member(schema, "not").is_object())
            checkValueValidation(member(schema, "not"), path + u".not"_s);
    }

    static bool isIntOrStringAnyOf(const json &anyOf)
    {
        return anyOf.is_array() && anyOf.size() == 2 && anyOf[0] == json{ { "type", "integer" } }
        && anyOf[1] == json{ { "type", "string" } };
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
        StructuralCheck check;
        check.checkRoot(schema, schemaPath, hasStatus(version));
        errors.append(check.errors);
        if (check.errors.isEmpty()) {
            auto parsed = StructuralSchema::fromJson(schema);
            if (!parsed)
                errors.append(invalid(schemaPath, u"\"\""_s, parsed.error().message));
            else
                validateDefaults(schema, schemaPath, true, errors);
        }

        const json &subresources = member(version, "subresources");
        const json &scale = member(subresources, "scale");
        if (scale.is_object()) {
            const QString scalePath = path + u".subresources.scale"_s;
            const QString specReplicas = str(scale, "specReplicasPath");
            const QString statusReplicas = str(scale, "statusReplicasPath");
            if (specReplicas.isEmpty())
                errors.append(required(scalePath + u".specReplicasPath"_s));
            else if (!specReplicas.startsWith(u".spec."_s))
                errors.append(invalid(scalePath + u".specReplicasPath"_s,
                                      gofmt::quote(specReplicas),
                                      u"should be a json path under .spec"_s));
            if (statusReplicas.isEmpty())
                errors.append(required(scalePath + u".statusReplicasPath"_s));
            else if (!statusReplicas.startsWith(u".status."_s))
                errors.append(invalid(scalePath + u".statusReplicasPath"_s,
                                      gofmt::quote(statusReplicas),
                                      u"should be a json path under .status"_s));
        }

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
