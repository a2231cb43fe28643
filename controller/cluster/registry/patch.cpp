#include "controller/cluster/registry/verbs.h"

#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/statuspatch.h"
#include "controller/cluster/registry/strategicmerge.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::PatchType;

namespace {

// The patch body decoded as kube-apiserver's patcher decodes it, with its wording of refusals.
ApiResult<json> decodePatch(PatchType patchType, const QByteArray &patchBody)
{
    if (const QString error = objectjson::nestingError(patchBody); !error.isEmpty())
        return ApiError::badRequest(u"error decoding patch: "_s + error);
    // The value json::parse gives (fuzz_objectjson), quicker for compact, key-sorted text.
    json patchDocument = objectjson::parseStored(patchBody);
    if (patchDocument.is_discarded() && !QUtf8StringView(patchBody).isValidUtf8()) {
        // Go's decoder turns invalid UTF-8 in strings into U+FFFD instead of refusing it.
        const QByteArray replaced = QString::fromUtf8(patchBody).toUtf8();
        patchDocument = json::parse(replaced.constBegin(), replaced.constEnd(), nullptr, false);
    }
    if (patchDocument.is_discarded())
        return ApiError::badRequest(u"error decoding patch: invalid JSON"_s);
    if (patchType == PatchType::Json) {
        if (!patchDocument.is_array())
            return ApiError::badRequest(
                u"json: cannot unmarshal object into Go value of type jsonpatch.Patch"_s);
        for (const json &operation : patchDocument) {
            if (!operation.is_object()) {
                // encoding/json decoding jsonpatch.Patch ([]Operation, each a map).
                const char *type = operation.is_array() ? "array"
                    : operation.is_string()             ? "string"
                    : operation.is_number()             ? "number"
                    : operation.is_boolean()            ? "bool"
                                                        : nullptr;
                if (type)
                    return ApiError::badRequest(
                        u"json: cannot unmarshal %1 into Go value of type jsonpatch.Operation"_s
                            .arg(QLatin1String(type)));
            }
        }
        if (patchDocument.size() > 10000)
            return ApiError::requestEntityTooLarge(
                u"The allowed maximum operations in a JSON patch is 10000, got %1"_s.arg(
                    patchDocument.size()));
    } else if (patchType == PatchType::Strategic) {
        return strategicPatchDocument(std::move(patchDocument));
    } else if (!patchDocument.is_object()) {
        return ApiError::badRequest(
            u"error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}"_s);
    }
    return patchDocument;
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
    auto decoded = decodePatch(patchType, patchBody);
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
    // A resourceVersion the patch leaves or sets acts as a precondition; none means unconditional.
    const json &rv = objectjson::member(metadata, "resourceVersion");
    if (rv.is_null() || (rv.is_string() && rv.get<std::string>().empty()))
        metadata["resourceVersion"] = std::to_string(existing->resourceVersion);
    return updateObject(
        context, typePtr, ns, name, std::move(patched), status, options, existing, &current);
}

} // namespace reconscope::controller::cluster
