#include "controller/cluster/registry/admission.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/builtindefaults.h"
#include "controller/cluster/schema/crd.h"
#include "models/dnsnames.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;

namespace {

constexpr qsizetype maxStoredObjectBytes = 1536 * 1024;

// apimachinery's NameIsDNSLabel (namespaces) or NameIsDNSSubdomain: one error per message.
QList<FieldError> validateName(const QString &name, bool label)
{
    QList<FieldError> errors;
    if (name.isEmpty())
        return errors;
    for (const QString &message :
         label ? models::isDNS1123Label(name) : models::isDNS1123Subdomain(name))
        errors.append({ u"FieldValueInvalid"_s,
                        u"metadata.name"_s,
                        u"Invalid value: \"%1\": %2"_s.arg(name, message) });
    return errors;
}

QString goStringSlice(const QStringList &values)
{
    QStringList quoted;
    for (const QString &value : values)
        quoted << u'"' + value + u'"';
    return u"[]string{"_s + quoted.join(u", "_s) + u'}';
}

} // namespace

std::optional<ApiError> storageSizeError(qsizetype bytes)
{
    if (bytes <= maxStoredObjectBytes)
        return std::nullopt;
    return ApiError::internal(u"etcdserver: request is too large"_s);
}

std::optional<ApiError>
Admission::checkTypeMeta(const TypeEntry &type, json &object, const QString &name) const
{
    const auto body = [&object] {
        return QString::fromUtf8(objectjson::dump(object));
    };
    const json &apiVersion = objectjson::member(object, "apiVersion");
    const json &kind = objectjson::member(object, "kind");
    if (type.type.builtin) {
        if (apiVersion.is_null()
            || (apiVersion.is_string() && apiVersion.get<std::string>().empty()))
            object["apiVersion"] = type.type.groupVersion().toStdString();
        if (kind.is_null() || (kind.is_string() && kind.get<std::string>().empty()))
            object["kind"] = type.type.kind.toStdString();
    } else {
        if (!kind.is_string() || kind.get<std::string>().empty())
            return ApiError::badRequest(u"Object 'Kind' is missing in '%1'"_s.arg(body()));
        if (!apiVersion.is_string() || apiVersion.get<std::string>().empty())
            return ApiError::badRequest(u"Object 'apiVersion' is missing in '%1'"_s.arg(body()));
    }
    const QString bodyApiVersion = objectjson::string(object, "apiVersion");
    if (bodyApiVersion != type.type.groupVersion())
        return ApiError::badRequest(
            u"the API version in the data (%1) does not match the expected API version (%2)"_s.arg(
                bodyApiVersion, type.type.groupVersion()));
    const QString bodyKind = objectjson::string(object, "kind");
    if (bodyKind != type.type.kind)
        return invalidError(
            type.type.group,
            type.type.kind,
            name,
            { { u"FieldValueInvalid"_s,
                u"kind"_s,
                u"Invalid value: \"%1\": must be %2"_s.arg(bodyKind, type.type.kind) } });
    if (object.contains("metadata") && !object["metadata"].is_object()
        && !object["metadata"].is_null())
        return ApiError::badRequest(u"metadata: must be an object"_s);
    if (!object.contains("metadata") || object["metadata"].is_null())
        object["metadata"] = json::object();
    return std::nullopt;
}

QList<FieldError>
Admission::validateMetadata(const TypeEntry &type, const json &object, bool create) const
{
    QList<FieldError> errors;
    const json &metadata = objectjson::member(object, "metadata");
    const QString name = objectjson::string(metadata, "name");
    if (create && name.isEmpty() && objectjson::string(metadata, "generateName").isEmpty())
        errors.append({ u"FieldValueRequired"_s,
                        u"metadata.name"_s,
                        u"Required value: name or generateName is required"_s });
    errors.append(validateName(name, isNamespaceType(type.type)));
    static const QRegularExpression qualifiedName(u"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"_s);
    const json &labels = objectjson::member(metadata, "labels");
    if (labels.is_object()) {
        for (auto it = labels.begin(); it != labels.end(); ++it) {
            const QString key = QString::fromStdString(it.key());
            const QString keyName = key.section(u'/', -1);
            const QString prefix = key.contains(u'/') ? key.section(u'/', 0, -2) : QString();
            if (keyName.isEmpty() || keyName.size() > 63 || !qualifiedName.match(keyName).hasMatch()
                || (key.contains(u'/')
                    && (prefix.isEmpty() || !models::isDNS1123Subdomain(prefix).isEmpty())))
                errors.append(
                    { u"FieldValueInvalid"_s,
                      u"metadata.labels"_s,
                      u"Invalid value: \"%1\": name part must consist of alphanumeric characters, "
                      "'-', '_' or '.', and must start and end with an alphanumeric character "
                      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"_s.arg(key) });
            if (it->is_string()) {
                const QString value = QString::fromStdString(it->get<std::string>());
                for (const QString &message : models::isValidLabelValue(value))
                    errors.append({ u"FieldValueInvalid"_s,
                                    u"metadata.labels"_s,
                                    u"Invalid value: \"%1\": %2"_s.arg(value, message) });
                continue;
            }
            errors.append(
                { u"FieldValueInvalid"_s,
                  u"metadata.labels"_s,
                  u"Invalid value: \"\": a valid label must be an empty string or consist of "
                  "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                  "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s });
        }
    } else if (!labels.is_null()) {
        errors.append({ u"FieldValueTypeInvalid"_s,
                        u"metadata.labels"_s,
                        u"Invalid value: must be an object"_s });
    }
    return errors;
}

std::optional<ApiError> Admission::applySchema(const TypeEntry &type,
                                               json &object,
                                               const WriteOptions &options,
                                               QStringList &warnings,
                                               bool patch) const
{
    if (type.type.schema.is_null()) {
        applyBuiltinDefaults(type.type, object);
        return std::nullopt;
    }
    const QStringList unknown = type.schema.prune(object);
    if (!unknown.isEmpty()) {
        if (options.fieldValidation == FieldValidation::Strict) {
            QStringList parts;
            for (const QString &field : unknown)
                parts << u"unknown field \"%1\""_s.arg(field);
            // Decoding a create/update body names the kind; a patch result does not.
            const QString prefix = patch
                ? QString()
                : u"%1 in version \"%2\" cannot be handled as a %1: "_s.arg(type.type.kind,
                                                                            type.type.version);
            return ApiError::badRequest(prefix + u"strict decoding error: "_s
                                        + parts.join(u", "_s));
        }
        if (options.fieldValidation == FieldValidation::Warn) {
            for (const QString &field : unknown)
                warnings << u"unknown field \"%1\""_s.arg(field);
        }
    }
    type.schema.applyDefaults(object);
    return std::nullopt;
}

void Admission::applyDefaults(const TypeEntry &type, json &object)
{
    if (type.type.schema.is_null())
        applyBuiltinDefaults(type.type, object);
    else
        type.schema.applyDefaults(object);
}

std::optional<ApiError>
Admission::admitNamespace(const TypeEntry &type, const QString &ns, const QString &name) const
{
    if (!type.type.namespaced)
        return std::nullopt;
    const Bucket *namespaces = m_store.findBucket(u"/namespaces"_s);
    RecordPtr record;
    if (namespaces) {
        auto it = namespaces->objects.find(ns.toStdString());
        if (it != namespaces->objects.end())
            record = it->second;
    }
    if (!record)
        return ApiError::notFound({}, u"namespaces"_s, ns);
    if (record->deleting)
        return ApiError::forbidden(
            type.type.group,
            type.type.plural,
            name,
            u"unable to create new content in namespace %1 because it is being terminated"_s.arg(
                ns));
    return std::nullopt;
}

void Admission::prepareBuiltinForCreate(const TypeEntry &type, json &object) const
{
    if (isNamespaceType(type.type)) {
        json &metadata = object["metadata"];
        if (!metadata.contains("labels") || metadata["labels"].is_null())
            metadata["labels"] = json::object();
        if (metadata["labels"].is_object())
            metadata["labels"]["kubernetes.io/metadata.name"] = metadata["name"];
        if (!object["spec"].is_object())
            object["spec"] = json::object();
        object["spec"]["finalizers"] = json::array({ "kubernetes" });
        object["status"] = { { "phase", "Active" } };
    } else if (type.type.builtin && type.type.group.isEmpty() && type.type.kind == u"Pod") {
        preparePodForCreate(object);
    } else if (isCrdType(type.type)) {
        applyCrdDefaults(object);
        json &spec = object["spec"];
        json storedVersions = json::array();
        if (spec.contains("versions") && spec["versions"].is_array()) {
            for (const json &version : spec["versions"]) {
                if (version.is_object() && version.value("storage", false))
                    storedVersions.push_back(version.value("name", ""));
            }
        }
        // As the typed CRD status encodes before the controller writes it: conditions is a
        // nil slice without omitempty.
        object["status"] = { { "acceptedNames", { { "kind", "" }, { "plural", "" } } },
                             { "conditions", nullptr },
                             { "storedVersions", storedVersions } };
    }
}

std::optional<ApiError> Admission::validateObject(const TypeEntry &type,
                                                  const json &object,
                                                  bool create,
                                                  const RecordPtr &old,
                                                  const json *previous) const
{
    // What validateMetadata checks (name, labels) passed it when the stored object was written:
    // unchanged, it passes again.
    const auto sameNameAndLabels = [&] {
        const json &now = objectjson::member(object, "metadata");
        const json &before = objectjson::member(*previous, "metadata");
        return objectjson::identical(objectjson::member(now, "name"),
                                     objectjson::member(before, "name"))
            && objectjson::identical(objectjson::member(now, "labels"),
                                     objectjson::member(before, "labels"));
    };
    QList<FieldError> errors;
    if (create || !previous || !sameNameAndLabels())
        errors = validateMetadata(type, object, create);
    if (old && old->deleting) {
        QStringList added;
        const QStringList finalizers = objectjson::strings(
            objectjson::member(objectjson::member(object, "metadata"), "finalizers"));
        for (const QString &finalizer : finalizers) {
            if (!old->finalizers.contains(finalizer))
                added << finalizer;
        }
        if (!added.isEmpty())
            errors.append(
                { u"FieldValueForbidden"_s,
                  u"metadata.finalizers"_s,
                  u"Forbidden: no new finalizers can be added if the object is being deleted, "
                  "found new finalizers "_s
                      + goStringSlice(added) });
    }
    if (isCrdType(type.type)) {
        errors.append(validateCrd(object));
        if (old) {
            const json previous = objectjson::parseStored(old->json);
            const auto member = [](const json &crd, const char *key) {
                return objectjson::string(objectjson::member(crd, "spec"), key);
            };
            if (member(previous, "group") != member(object, "group"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.group"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "group")) });
            if (member(previous, "scope") != member(object, "scope"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.scope"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "scope")) });
        }
    } else if (!type.type.schema.is_null()) {
        errors.append(previous ? type.schema.validateUpdate(object, *previous)
                               : type.schema.validate(object));
    }
    if (errors.isEmpty())
        return std::nullopt;
    return invalidError(type.type.group,
                        type.type.kind,
                        objectjson::string(objectjson::member(object, "metadata"), "name"),
                        errors);
}

std::optional<ApiError>
Admission::adoptRequestNamespace(const ResourceType &type, json &metadata, const QString &ns)
{
    const QString bodyNamespace = objectjson::string(metadata, "namespace");
    if (!type.namespaced) {
        metadata.erase("namespace");
        return std::nullopt;
    }
    if (bodyNamespace.isEmpty())
        metadata["namespace"] = ns.toStdString();
    else if (bodyNamespace != ns)
        return ApiError::badRequest(
            u"the namespace of the provided object does not match the namespace sent on the request"_s);
    return std::nullopt;
}

} // namespace reconscope::controller::cluster
