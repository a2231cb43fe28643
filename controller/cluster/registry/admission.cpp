#include "controller/cluster/registry/admission.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/builtindefaults.h"
#include "controller/cluster/registry/builtinvalidation.h"
#include "controller/cluster/registry/metavalidation.h"
#include "controller/cluster/schema/crd.h"
#include "models/dnsnames.h"

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
    errors.append(metavalidation::validateLabels(objectjson::member(metadata, "labels"),
                                                 u"metadata.labels"_s));
    return errors;
}

std::optional<ApiError> Admission::applySchema(const TypeEntry &type,
                                               json &object,
                                               const WriteOptions &options,
                                               QStringList &warnings,
                                               bool patch,
                                               bool applied) const
{
    if (type.type.schema.is_null()) {
        applyBuiltinDefaults(type.type, object);
        return std::nullopt;
    }
    if (applied) {
        type.schema.applyDefaults(object, false);
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

void Admission::applyDefaults(const TypeEntry &type, json &object, bool keepNulls)
{
    if (type.type.schema.is_null())
        applyBuiltinDefaults(type.type, object);
    else
        type.schema.applyDefaults(object, !keepNulls);
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

void Admission::applyDecodeDefaults(const TypeEntry &type, json &object)
{
    if (!type.type.builtin || !object.is_object())
        return;
    if (isNamespaceType(type.type)) {
        json &metadata = object["metadata"];
        if (!metadata.is_object())
            return;
        if (!metadata.contains("labels") || metadata["labels"].is_null())
            metadata["labels"] = json::object();
        if (metadata["labels"].is_object() && metadata.contains("name"))
            metadata["labels"]["kubernetes.io/metadata.name"] = metadata["name"];
    } else if (isCrdType(type.type)) {
        applyCrdDefaults(object);
    }
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
    using metavalidation::NameRule;
    const json &metadata = objectjson::member(object, "metadata");
    static const json none;
    const json &oldMetadata = previous ? objectjson::member(*previous, "metadata") : none;
    // A status write (no `old` record) changes nothing that the metadata checks look at.
    const bool mainUpdate = !create && old && previous;
    QList<FieldError> errors;
    if (isCrdType(type.type)) {
        errors = validateMetadata(type, object, create);
        if (mainUpdate)
            errors.append(metavalidation::validateObjectMetaUpdate(metadata, oldMetadata));
        errors.append(validateCrd(object));
        // On an update the stored status is kept as the CRD controller maintains it.
        if (create)
            errors.append(validateCrdStoredVersions(object));
        if (old) {
            const json stored = objectjson::parseStored(old->json);
            const auto member = [](const json &crd, const char *key) {
                return objectjson::string(objectjson::member(crd, "spec"), key);
            };
            if (member(stored, "group") != member(object, "group"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.group"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "group")) });
            if (member(stored, "scope") != member(object, "scope"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.scope"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "scope")) });
        }
    } else if (type.type.builtin) {
        // rest.BeforeCreate: the strategy's Validate, then (when it passed) the common metadata
        // check; rest.BeforeUpdate: the common checks, then the strategy's ValidateUpdate.
        if (create) {
            errors = validateBuiltinCreate(type.type, object);
            if (errors.isEmpty())
                errors = metavalidation::validateObjectMeta(
                    metadata, type.type.namespaced, NameRule::PathSegment);
        } else if (mainUpdate) {
            errors = metavalidation::validateObjectMeta(
                metadata, type.type.namespaced, NameRule::PathSegment);
            errors.append(metavalidation::validateObjectMetaUpdate(metadata, oldMetadata));
            errors.append(validateBuiltinUpdate(type.type, object, *previous));
        }
    } else {
        // The custom resource strategy: on create its validator's metadata check; on update the
        // common checks and the validator's update check, which repeats the metadata update one.
        if (create) {
            errors = metavalidation::validateObjectMeta(
                metadata, type.type.namespaced, NameRule::DnsSubdomain);
        } else if (mainUpdate) {
            errors = metavalidation::validateObjectMeta(
                metadata, type.type.namespaced, NameRule::PathSegment);
            const QList<FieldError> update
                = metavalidation::validateObjectMetaUpdate(metadata, oldMetadata);
            errors.append(update);
            errors.append(update);
        }
        if (!create && !old && previous) {
            // A status write: apiextensions validates the status alone, against its own schema.
            if (const auto status = object.find("status"); status != object.end())
                errors.append(type.schema.validateMemberUpdate(
                    "status", *status, &objectjson::member(*previous, "status")));
        } else {
            errors.append(previous ? type.schema.validateUpdate(object, *previous)
                                   : type.schema.validate(object));
        }
    }
    if (errors.isEmpty())
        return std::nullopt;
    return invalidError(
        type.type.group, type.type.kind, objectjson::string(metadata, "name"), errors);
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
