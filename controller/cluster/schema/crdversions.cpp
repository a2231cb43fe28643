#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/schema/structuralschema.h"
#include "models/dnsnames.h"

#include <QSet>

#include <algorithm>
#include <set>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::crdvalidation {

namespace {

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

// Only these may be said at the root when status is a subresource; upstream reports the first
// offender, with the whole schema as the value.
void validateStatusRoot(const json &schema, const QString &schemaPath, QList<FieldError> &errors)
{
    static const std::set<std::string> allowed = { "description",
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
    if (jsonMember(schema, "type").is_string() && jsonString(schema, "type") != u"object"_s) {
        errors.append(invalid(schemaPath + u".type"_s,
                              gofmt::quote(jsonString(schema, "type")),
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
                u"UniqueItems MultipleOf Required Items Properties ExternalDocs Example "
                u"XPreserveUnknownFields XValidations] fields are allowed at the root of the "
                u"schema if the status subresource is enabled"_s));
            break;
        }
    }
}

// As ValidateCustomResourceDefinitionValidation: nullable root, then the structural invariants
// (sorted) or, when those hold, the defaults, then the OpenAPI rules.
void validateSchema(const json &version,
                    const json &schema,
                    const QString &schemaPath,
                    QList<FieldError> &errors)
{
    if (hasStatus(version))
        validateStatusRoot(schema, schemaPath, errors);
    if (jsonBool(schema, "nullable"))
        errors.append(
            forbidden(schemaPath + u".nullable"_s, u"nullable cannot be true at the root"_s));
    const QList<FieldError> invariants = structuralInvariantErrors(schema, schemaPath);
    errors.append(invariants);
    const QList<FieldError> rules = openApiSchemaRuleErrors(schema, schemaPath);
    if (invariants.isEmpty()) {
        auto parsed = StructuralSchema::fromJson(schema);
        if (parsed)
            validateDefaults(schema, schemaPath, true, errors);
        else if (rules.isEmpty()) // overlaps with the OpenAPI rules otherwise
            errors.append(invalid(schemaPath, u"\"\""_s, parsed.error().message));
    }
    errors.append(rules);
}

} // namespace

void validateVersions(const json &versions, QList<FieldError> &errors)
{
    int storageCount = 0;
    QSet<QString> versionNames;
    bool unique = true;
    if (!versions.is_array() || versions.empty())
        errors.append(required(u"spec.versions"_s,
                               u"must have exactly one version marked as storage version"_s));
    for (std::size_t i = 0; versions.is_array() && i < versions.size(); ++i) {
        const json &version = versions[i];
        const QString versionName = jsonString(version, "name");
        if (jsonMember(version, "storage").is_boolean() && version["storage"].get<bool>())
            ++storageCount;
        if (versionNames.contains(versionName))
            unique = false;
        versionNames.insert(versionName);
        validateVersion(version, u"spec.versions["_s + QString::number(i) + u']', errors);
    }
    if (!unique)
        errors.append(invalid(u"spec.versions"_s,
                              internalVersions(versions),
                              u"must contain unique version names"_s));
    if (versions.is_array() && !versions.empty() && storageCount != 1)
        errors.append(invalid(u"spec.versions"_s,
                              internalVersions(versions),
                              u"must have exactly one version marked as storage version"_s));
}

void validateVersion(const json &version, const QString &path, QList<FieldError> &errors)
{
    const QString versionName = jsonString(version, "name");
    if (const QStringList e = models::isDNS1035Label(versionName); !e.isEmpty())
        errors.append(invalid(path + u".name"_s, gofmt::quote(versionName), e.join(u',')));

    const json &schema = jsonMember(jsonMember(version, "schema"), "openAPIV3Schema");
    const QString schemaPath = path + u".schema.openAPIV3Schema"_s;
    // Schemas arrive from API clients: refuse absurd nesting before walking it recursively.
    if (nestingDepth(schema) > maxSchemaNesting) {
        errors.append(invalid(schemaPath,
                              u"\"\""_s,
                              u"must not be nested more than "_s + QString::number(maxSchemaNesting)
                                  + u" levels deep"_s));
        return;
    }
    if (!schema.is_object())
        errors.append(required(schemaPath, u"schemas are required"_s));
    else
        validateSchema(version, schema, schemaPath, errors);
    validateScale(version, path, errors);
    validateSelectableFields(version, schema, path + u".selectableFields"_s, errors);
    validatePrinterColumns(version, path, errors);
}

} // namespace reconscope::controller::cluster::crdvalidation
