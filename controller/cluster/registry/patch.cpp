#include "controller/cluster/registry/verbs.h"

#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/fieldmanagers.h"
#include "controller/cluster/registry/statuspatch.h"
#include "controller/cluster/registry/strategicmerge.h"
#include "controller/cluster/yamldocuments.h"
#include "models/gojson.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::PatchType;

namespace {

// The Go type the patch body is first read into (handlers/patch.go), and the JSON type it takes.
struct PatchTarget
{
    const char *accepts;
    const char *goType;
};

PatchTarget patchTarget(PatchType patchType, FieldValidation validation)
{
    if (patchType != PatchType::Json)
        return { "object", "map[string]interface {}" };
    // Warn and Strict read the operations with kjson.UnmarshalStrict, Ignore with
    // jsonpatch.DecodePatch only.
    return validation == FieldValidation::Ignore ? PatchTarget{ "array", "jsonpatch.Patch" }
                                                 : PatchTarget{ "array", "[]handlers.jsonPatchOp" };
}

// What handlers/patch.go says when it cannot read the patch body: the encoding/json error,
// prefixed "error decoding patch: " where the patcher reads it for field validation (json and
// merge patches unless validation is Ignore); a merge patch that is not JSON under Ignore is
// jsonpatch's ErrBadJSONPatch.
std::optional<ApiError>
patchReadError(PatchType patchType, FieldValidation validation, const QByteArray &patchBody)
{
    const PatchTarget target = patchTarget(patchType, validation);
    const auto error = models::goUnmarshalError(patchBody, target.accepts, target.goType);
    if (!error)
        return std::nullopt;
    const QString message = QString::fromStdString(*error);
    if (patchType == PatchType::Strategic)
        return ApiError::badRequest(message);
    if (validation != FieldValidation::Ignore)
        return ApiError::badRequest(u"error decoding patch: "_s + message);
    if (patchType == PatchType::Merge && models::goJsonSyntaxError(patchBody))
        return ApiError::badRequest(u"Invalid JSON Patch"_s);
    return ApiError::badRequest(message);
}

// The patch body decoded as kube-apiserver's patcher decodes it, with its wording of refusals.
ApiResult<json>
decodePatch(PatchType patchType, const QByteArray &patchBody, FieldValidation validation)
{
    if (auto error = patchReadError(patchType, validation, patchBody))
        return *error;
    // The value json::parse gives (fuzz_objectjson), quicker for compact, key-sorted text.
    json patchDocument = objectjson::parseStored(patchBody);
    if (patchDocument.is_discarded()) {
        // Go's decoder turns invalid UTF-8 in strings into U+FFFD instead of refusing it.
        const QByteArray replaced = QString::fromUtf8(patchBody).toUtf8();
        patchDocument = json::parse(replaced.constBegin(), replaced.constEnd(), nullptr, false);
    }
    if (patchDocument.is_discarded()) // valid to Go, refused by nlohmann's reader
        return ApiError::badRequest(
            u"error decoding patch: the patch is JSON this server cannot read"_s);
    if (patchType == PatchType::Json) {
        for (const json &operation : patchDocument) {
            if (!operation.is_object() && !operation.is_null()) {
                // encoding/json decoding each element (an Operation map, or a jsonPatchOp).
                const QString message = u"json: cannot unmarshal %1 into Go value of type %2"_s.arg(
                    QLatin1String(models::goJsonValueType(objectjson::dump(operation))),
                    validation == FieldValidation::Ignore ? u"jsonpatch.Operation"_s
                                                          : u"handlers.jsonPatchOp"_s);
                return ApiError::badRequest(validation == FieldValidation::Ignore
                                                ? message
                                                : u"error decoding patch: "_s + message);
            }
        }
        if (patchDocument.size() > 10000)
            return ApiError::requestEntityTooLarge(
                u"The allowed maximum operations in a JSON patch is 10000, got %1"_s.arg(
                    patchDocument.size()));
    } else if (patchType == PatchType::Strategic) {
        return strategicPatchDocument(std::move(patchDocument));
    } else if (patchDocument.is_null()) {
        return ApiError::badRequest(u"Invalid JSON Patch"_s); // jsonpatch.MergePatch of null
    }
    return patchDocument;
}

// The apply's refusal as the Status the field manager words (409 with FieldManagerConflict
// causes, 400, or a 500 without a reason).
ApiError applyError(const fieldowner::ApplyError &error)
{
    ApiError out;
    out.code = error.code;
    out.reason = QString::fromStdString(error.reason);
    out.message = QString::fromStdString(error.message);
    for (const fieldowner::ApplyError::Cause &cause : error.causes)
        out.causes.append({ QString::fromStdString(cause.type),
                            QString::fromStdString(cause.message),
                            QString::fromStdString(cause.field) });
    out.hasDetails = !out.causes.isEmpty();
    return out;
}

// An apply patch's body as handlers/patch.go reads it (sigs.k8s.io/yaml into a map): YAML or
// JSON, nothing (or null) an empty object.
ApiResult<json> decodeApplyPatch(const QByteArray &patchBody)
{
    auto documents = yamlDocumentsToJson(patchBody);
    if (!documents)
        return ApiError::badRequest(u"error decoding YAML: error converting YAML to JSON: yaml: "_s
                                    + documents.error().message);
    if (documents->isEmpty() || documents->first().is_null())
        return json::object();
    json config = std::move(documents->first());
    if (!config.is_object())
        return ApiError::badRequest(
            u"error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
            "unmarshal %1 into Go value of type map[string]interface {}"_s.arg(
                QLatin1String(models::goJsonValueType(objectjson::dump(config)))));
    return config;
}

// The checks of a patch's result before the update path: its name and namespace against the
// request's, and the resourceVersion it leaves or sets as a precondition (none: unconditional).
std::optional<ApiError> checkPatched(const TypeEntry &type,
                                     json &patched,
                                     const QString &ns,
                                     const QString &name,
                                     const RecordPtr &existing)
{
    json &metadata = patched["metadata"];
    if (!metadata.is_object())
        return ApiError::badRequest(u"metadata: must be an object"_s);
    if (objectjson::string(metadata, "name") != name)
        return ApiError::badRequest(
            u"the name of the object (%1) does not match the name on the URL (%2)"_s.arg(
                objectjson::string(metadata, "name"), name));
    if (type.type.namespaced && objectjson::string(metadata, "namespace") != ns)
        return ApiError::badRequest(
            u"the namespace of the provided object does not match the namespace sent on the request"_s);
    const json &rv = objectjson::member(metadata, "resourceVersion");
    if (rv.is_null() || (rv.is_string() && rv.get<std::string>().empty()))
        metadata["resourceVersion"] = std::to_string(existing->resourceVersion);
    return std::nullopt;
}

// Server-side apply (handlers/patch.go's applyPatcher): the configuration merged into the stored
// object by the field manager, or the object created from it when there is none (not through a
// subresource).
ApiResult<WriteResult> applyPatch(VerbContext &context,
                                  const TypePtr &typePtr,
                                  const QString &ns,
                                  const QString &name,
                                  const QByteArray &patchBody,
                                  bool status,
                                  const WriteOptions &options)
{
    const TypeEntry &type = *typePtr;
    RecordPtr existing = context.store.find(type, ns, name);
    if (!existing && status)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    auto config = decodeApplyPatch(patchBody);
    if (!config)
        return config.error();
    const fieldowner::FieldManager &manager = type.fieldManagers->of(status);
    const std::string applier = options.fieldManager.toStdString();
    if (!existing) {
        auto created = manager.apply(json(), *config, applier, options.force);
        if (!created)
            return applyError(created.error());
        const QString objectName
            = objectjson::string(objectjson::member(*created, "metadata"), "name");
        if (objectName.isEmpty())
            return ApiError::badRequest(
                u"the name of the object (%1 based on URL) was undeterminable: name must be "
                "provided"_s.arg(name));
        if (objectName != name)
            return ApiError::badRequest(
                u"the name of the object (%1) does not match the name on the URL (%2)"_s.arg(
                    objectName, name));
        return createObject(
            context, typePtr, ns, std::move(*created), options, ManagedFieldsFrom::Apply);
    }
    json current = context.store.parseRecord(type, existing);
    auto applied = manager.apply(current, *config, applier, options.force);
    if (!applied)
        return applyError(applied.error());
    json patched = std::move(*applied);
    if (!patched.is_object())
        return ApiError::unprocessableGeneric();
    if (auto error = checkPatched(type, patched, ns, name, existing))
        return *error;
    return updateObject(context,
                        typePtr,
                        ns,
                        name,
                        std::move(patched),
                        status,
                        options,
                        existing,
                        &current,
                        ManagedFieldsFrom::Apply);
}

} // namespace

ApiResult<WriteResult> patchObject(VerbContext &context,
                                   const TypePtr &typePtr,
                                   const QString &ns,
                                   const QString &name,
                                   PatchType patchType,
                                   const QByteArray &patchBody,
                                   bool status,
                                   const WriteOptions &options)
{
    const TypeEntry &type = *typePtr;
    // strategicpatch's refusal of an object without Go struct tags (HTTP answers the 415 first).
    if (patchType == PatchType::Strategic && !type.type.builtin)
        return ApiError::badRequest(u"strategic merge patch format is not supported"_s);
    if (patchType == PatchType::Apply)
        return applyPatch(context, typePtr, ns, name, patchBody, status, options);
    auto decoded = decodePatch(patchType, patchBody, options.fieldValidation);
    if (!decoded)
        return decoded.error();
    const json patchDocument = std::move(*decoded);
    RecordPtr existing = context.store.find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    if (status) {
        if (auto result = context.statusInPlace.apply(
                context.store, type, existing, patchType, patchDocument, options)) {
            context.controllers.run();
            return std::move(*result);
        }
    }
    json current = context.store.parseRecord(type, existing);
    json patched;
    if (patchType == PatchType::Merge) {
        patched = current;
        patched.merge_patch(patchDocument);
    } else if (patchType == PatchType::Strategic) {
        auto merged = strategicMergePatch(
            current, patchDocument, strategicSchemaOf(type.type.group, type.type.kind));
        if (!merged)
            return merged.error();
        patched = std::move(*merged);
    } else {
        auto applied = objectjson::applyJsonPatch(current, patchDocument);
        if (!applied)
            return ApiError::unprocessableGeneric();
        patched = std::move(*applied);
    }
    if (!patched.is_object())
        return ApiError::unprocessableGeneric();
    if (auto error = checkPatched(type, patched, ns, name, existing))
        return *error;
    return updateObject(
        context, typePtr, ns, name, std::move(patched), status, options, existing, &current);
}

} // namespace reconscope::controller::cluster
