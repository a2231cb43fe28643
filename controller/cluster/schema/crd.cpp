#include "controller/cluster/schema/crd.h"

#include "controller/cluster/schema/crdvalidation.h"
#include "controller/cluster/schema/gofmt.h"

#include <map>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using models::jsonMember;
using models::jsonString;
using models::jsonStrings;

namespace crdvalidation {

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

bool hasStatus(const json &version)
{
    return jsonMember(version, "subresources").is_object()
        && jsonMember(jsonMember(version, "subresources"), "status").is_object();
}

void requireType(const QString &type,
                 const QString &expected,
                 const QString &path,
                 const QString &detail,
                 QList<FieldError> &errors)
{
    if (type == expected)
        return;
    if (type.isEmpty())
        errors.append(required(child(path, u"type"_s), detail));
    else
        errors.append(invalid(child(path, u"type"_s), gofmt::quote(type), detail));
}

} // namespace crdvalidation

void applyCrdDefaults(json &crd)
{
    if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].is_object())
        return;
    json &spec = crd["spec"];
    if (spec.contains("names") && spec["names"].is_object()) {
        json &names = spec["names"];
        const QString kind = jsonString(names, "kind");
        if (jsonString(names, "singular").isEmpty() && !kind.isEmpty())
            names["singular"] = kind.toLower().toStdString();
        if (jsonString(names, "listKind").isEmpty() && !kind.isEmpty())
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
    const json &spec = jsonMember(crd, "spec");
    crdvalidation::validateIdentity(crd, errors);
    crdvalidation::validateVersions(jsonMember(spec, "versions"), errors);
    crdvalidation::validateNames(jsonMember(spec, "names"), errors);
    crdvalidation::validateConversion(spec, errors);
    return errors;
}

QList<FieldError> validateCrdStoredVersions(const json &crd)
{
    const json &stored = jsonMember(jsonMember(crd, "status"), "storedVersions");
    const QStringList storedNames = jsonStrings(stored);
    const QString path = u"status.storedVersions"_s;
    // A nil []string, as the create strategy leaves it without a storage version, prints null.
    if (storedNames.isEmpty())
        return { fielderrors::invalid(
            path, u"null"_s, u"must have at least one stored version"_s) };
    std::map<QString, qsizetype> unmatched; // name -> its (last) index
    for (qsizetype i = 0; i < storedNames.size(); ++i)
        unmatched[storedNames[i]] = i;
    QList<FieldError> errors;
    const json &versions = jsonMember(jsonMember(crd, "spec"), "versions");
    for (std::size_t i = 0; versions.is_array() && i < versions.size(); ++i) {
        const QString name = jsonString(versions[i], "name");
        const bool listed = unmatched.erase(name) > 0;
        if (!listed && models::jsonBool(versions[i], "storage"))
            errors.append(fielderrors::invalid(
                path, gofmt::marshal(stored), u"must have the storage version "_s + name));
    }
    for (const auto &[name, i] : unmatched)
        errors.append(fielderrors::invalid(
            path + u'[' + QString::number(i) + u']',
            gofmt::quote(name),
            u"missing from spec.versions; %1 was previously a storage version, and must remain in "
            "spec.versions until a storage migration ensures no data remains persisted in %1 and "
            "removes %1 from status.storedVersions"_s.arg(name)));
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
                          + gofmt::quote(jsonString(jsonMember(crd, "metadata"), "name"))
                          + u" is invalid: "_s + formatFieldErrors(errors));
    QList<ResourceType> types;
    const json &spec = crd["spec"];
    const json &names = spec["names"];
    for (const json &version : spec["versions"]) {
        ResourceType type;
        type.group = jsonString(spec, "group");
        type.version = jsonString(version, "name");
        type.plural = jsonString(names, "plural");
        type.singular = jsonString(names, "singular");
        type.kind = jsonString(names, "kind");
        type.listKind = jsonString(names, "listKind");
        type.namespaced = jsonString(spec, "scope") == u"Namespaced"_s;
        type.shortNames = jsonStrings(jsonMember(names, "shortNames"));
        type.categories = jsonStrings(jsonMember(names, "categories"));
        type.served = jsonMember(version, "served").is_boolean() && version["served"].get<bool>();
        type.storage
            = jsonMember(version, "storage").is_boolean() && version["storage"].get<bool>();
        type.statusSubresource = crdvalidation::hasStatus(version);
        const json &scale = jsonMember(jsonMember(version, "subresources"), "scale");
        if (scale.is_object()) {
            type.scaleSubresource = true;
            type.specReplicasPath = jsonString(scale, "specReplicasPath");
            type.statusReplicasPath = jsonString(scale, "statusReplicasPath");
            type.labelSelectorPath = jsonString(scale, "labelSelectorPath");
        }
        type.schema = jsonMember(jsonMember(version, "schema"), "openAPIV3Schema");
        const json &columns = jsonMember(version, "additionalPrinterColumns");
        if (columns.is_array()) {
            for (const json &column : columns) {
                PrinterColumn printerColumn;
                printerColumn.name = jsonString(column, "name");
                printerColumn.type = jsonString(column, "type");
                printerColumn.format = jsonString(column, "format");
                printerColumn.description = jsonString(column, "description");
                const json &priority = jsonMember(column, "priority");
                printerColumn.priority = priority.is_number_integer() ? priority.get<int>() : 0;
                printerColumn.jsonPath = jsonString(column, "jsonPath");
                type.printerColumns.append(printerColumn);
            }
        }
        const json &selectable = jsonMember(version, "selectableFields");
        if (selectable.is_array()) {
            for (const json &field : selectable)
                type.selectableFields.append(jsonString(field, "jsonPath"));
        }
        types.append(type);
    }
    return types;
}

} // namespace reconscope::controller::cluster
