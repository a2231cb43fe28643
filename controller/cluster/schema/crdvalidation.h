#pragma once

#include "controller/cluster/schema/fielderror.h"
#include "controller/cluster/schema/fielderrors.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

#include <QStringList>

#include <string>

// The parts of validateCrd(), one per concern of apiextensions' validation.go. Each appends its
// errors in upstream's order; validateCrd() calls them in the order upstream reports them.
// Internal to reconscope_schema.
namespace reconscope::controller::cluster::crdvalidation {

using fielderrors::forbidden;
using fielderrors::invalid;
using fielderrors::notSupported;
using fielderrors::required;
using models::jsonBool;
using models::jsonMember;
using models::jsonString;
using models::jsonStrings;

// Field paths as apimachinery's field.Path prints them: path.name, path.field[name],
// path.field[i].
QString child(const QString &path, const QString &name);
QString key(const QString &path, const char *field, const std::string &name);
QString index(const QString &path, const char *field, std::size_t i);
// Unless a schema node's `type` is `expected`, reports <path>.type as required (when empty) or
// invalid, with `detail`.
void requireType(const QString &type,
                 const QString &expected,
                 const QString &path,
                 const QString &detail,
                 QList<FieldError> &errors);
// Whether a spec.versions[] entry enables the status subresource.
bool hasStatus(const nlohmann::json &version);

// metadata.name (a DNS subdomain, plural.group), spec.group, spec.scope.
void validateIdentity(const nlohmann::json &crd, QList<FieldError> &errors);
// spec.names: required names, DNS-1035 labels (kinds in mixed case), kind != listKind,
// shortNames and categories.
void validateNames(const nlohmann::json &names, QList<FieldError> &errors);
// spec.conversion.strategy.
void validateConversion(const nlohmann::json &spec, QList<FieldError> &errors);

// spec.versions: each entry (validateVersion), then unique names and one storage version.
void validateVersions(const nlohmann::json &versions, QList<FieldError> &errors);
// spec.versions as field.Error prints them as a bad value (crdinternal.cpp): Go's json.Marshal of
// apiextensions' internal []CustomResourceDefinitionVersion, after the v1 conversion moved the
// members every version has alike (schema, subresources, columns, selectable fields) up to the
// spec.
QString internalVersions(const nlohmann::json &versions);
// One spec.versions[] entry at `path`: name, schema, scale, selectableFields, printer columns.
void validateVersion(const nlohmann::json &version, const QString &path, QList<FieldError> &errors);

// structuralschema.ValidateStructural of a version's openAPIV3Schema at `path`, sorted by text
// as upstream sorts them.
QList<FieldError> structuralInvariantErrors(const nlohmann::json &schema, const QString &path);
// validateCustomResourceDefinitionOpenAPISchema of a version's openAPIV3Schema at `path`.
QList<FieldError> openApiSchemaRuleErrors(const nlohmann::json &schema, const QString &path);

// ValidateCustomResourceDefinitionSubresources' scale paths (validateSimpleJSONPath).
void validateScale(const nlohmann::json &version, const QString &path, QList<FieldError> &errors);
// ValidateCustomResourceSelectableFields against the version's schema.
void validateSelectableFields(const nlohmann::json &version,
                              const nlohmann::json &schema,
                              const QString &path,
                              QList<FieldError> &errors);
// additionalPrinterColumns: name, type, format and a parsable jsonPath.
void validatePrinterColumns(const nlohmann::json &version,
                            const QString &path,
                            QList<FieldError> &errors);

} // namespace reconscope::controller::cluster::crdvalidation
