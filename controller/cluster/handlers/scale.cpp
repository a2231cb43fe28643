#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/fieldmanagers.h"
#include "controller/cluster/registry/strategicmerge.h"
#include "controller/fieldowner/managedfields.h"
#include "models/gojson.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::PatchType;

namespace {

// The `{.a.b}` path of a scale subresource as JSON keys.
QStringList pathKeys(const QString &path)
{
    return path.split(u'.', Qt::SkipEmptyParts);
}

const json *valueAt(const json &object, const QString &path)
{
    const json *current = &object;
    for (const QString &key : pathKeys(path)) {
        if (!current->is_object())
            return nullptr;
        auto it = current->find(key.toStdString());
        if (it == current->end())
            return nullptr;
        current = &*it;
    }
    return current;
}

// The autoscaling/v1 Scale of an object, by the CRD's scale paths.
json toScale(const ResourceType &rt, const json &object)
{
    const json &metadata = object["metadata"];
    json scaleMetadata = json::object();
    for (const char *key : { "name", "namespace", "uid", "resourceVersion", "creationTimestamp" }) {
        if (metadata.contains(key))
            scaleMetadata[key] = metadata[key];
    }
    json scale = { { "kind", "Scale" },
                   { "apiVersion", "autoscaling/v1" },
                   { "metadata", scaleMetadata } };
    const json *specReplicas = valueAt(object, rt.specReplicasPath);
    scale["spec"]
        = { { "replicas",
              specReplicas && specReplicas->is_number_integer() ? *specReplicas : json(0) } };
    const json *statusReplicas = valueAt(object, rt.statusReplicasPath);
    scale["status"]
        = { { "replicas",
              statusReplicas && statusReplicas->is_number_integer() ? *statusReplicas : json(0) } };
    if (!rt.labelSelectorPath.isEmpty()) {
        const json *selector = valueAt(object, rt.labelSelectorPath);
        if (selector && selector->is_string())
            scale["status"]["selector"] = *selector;
    }
    return scale;
}

// The Scale the request asks for: its body (update) or the current one patched (patch).
ApiResult<json> requestedScale(const ResourceRequest &r, const json &object)
{
    const ApiRequest &request = r.request;
    if (r.verb == u"update")
        return parseBody(request, true, u"Scale"_s);
    if (const auto error = models::goJsonSyntaxError(request.body))
        return ApiError::badRequest(u"error decoding patch: "_s + QString::fromStdString(*error));
    const json patch
        = json::parse(request.body.constBegin(), request.body.constEnd(), nullptr, false);
    if (patch.is_discarded()) // valid to Go, refused by nlohmann's reader
        return ApiError::badRequest(
            u"error decoding patch: the patch is JSON this server cannot read"_s);
    json scale = toScale(r.type->type, object);
    const auto patchType = patchTypeOf(request, r.type->type.builtin, false);
    if (!patchType)
        return patchType.error();
    if (*patchType == PatchType::Merge) {
        scale.merge_patch(patch);
        return scale;
    }
    if (*patchType == PatchType::Strategic) {
        auto document = strategicPatchDocument(patch);
        if (!document)
            return document.error();
        return strategicMergePatch(std::move(scale),
                                   std::move(*document),
                                   strategicSchemaOf(u"autoscaling"_s, u"Scale"_s));
    }
    auto applied = objectjson::applyJsonPatch(scale, patch);
    if (!applied)
        return ApiError::unprocessableGeneric();
    return std::move(*applied);
}

// ScaleHandler.ToParent gives a scale entry the time the parent's entry of that manager had: none
// for a new one. (The parent keeps entries of other managers as the field manager left them.)
void keepScaleEntryTimes(json &object, const json &stored)
{
    json *fields = object.contains("metadata") ? &object["metadata"] : nullptr;
    if (!fields || !fields->contains("managedFields") || !(*fields)["managedFields"].is_array())
        return;
    const json &before
        = objectjson::member(objectjson::member(stored, "metadata"), "managedFields");
    const auto identity = [](const json &entry) {
        return json{ objectjson::member(entry, "manager"),
                     objectjson::member(entry, "operation"),
                     objectjson::member(entry, "apiVersion"),
                     objectjson::member(entry, "subresource") };
    };
    for (json &entry : (*fields)["managedFields"]) {
        if (objectjson::member(entry, "subresource") != "scale")
            continue;
        entry.erase("time");
        if (!before.is_array())
            continue;
        for (const json &old : before) {
            if (identity(old) == identity(entry) && old.contains("time"))
                entry["time"] = old["time"];
        }
    }
    // In upstream's order again, which goes by time.
    if (auto managed = fieldowner::decodeManagedFields((*fields)["managedFields"]))
        fieldowner::setManagedFields(object, *managed);
}

} // namespace

ApiResponse serveScale(const ResourceRequest &r)
{
    const ApiRequest &request = r.request;
    const ResourceType &rt = r.type->type;
    auto record = getRecord(r.store, *r.type, r.ns, r.name);
    if (!record)
        return errorResponse(request, record.error());
    json object = r.store.parseRecord(*r.type, *record);
    if (r.verb == u"get")
        return jsonResponse(request, 200, toScale(rt, object));

    WriteOptions options;
    if (auto error = parseWriteOptions(
            request, r.verb == u"update" ? u"UpdateOptions"_s : u"PatchOptions"_s, options))
        return errorResponse(request, *error);
    auto scale = requestedScale(r, object);
    if (!scale)
        return errorResponse(request, scale.error());
    const json &replicas = objectjson::member(objectjson::member(*scale, "spec"), "replicas");
    if (!replicas.is_number_integer() || replicas.get<qint64>() < 0)
        return errorResponse(
            request,
            invalidError(u"autoscaling"_s,
                         u"Scale"_s,
                         r.name,
                         { { u"FieldValueInvalid"_s,
                             u"spec.replicas"_s,
                             u"Invalid value: %1: must be greater than or equal to 0"_s.arg(
                                 QString::fromStdString(replicas.dump())) } }));
    const QString scaleRv
        = objectjson::string(objectjson::member(*scale, "metadata"), "resourceVersion");
    if (!scaleRv.isEmpty() && scaleRv != QString::number((*record)->resourceVersion))
        return errorResponse(request, ApiError::modified(rt.group, rt.plural, r.name));
    json *target = &object;
    for (const QString &key : pathKeys(rt.specReplicasPath))
        target = &(*target)[key.toStdString()];
    *target = replicas;
    // Entries of writes through /scale name the subresource (upstream's ScaleHandler keeps them
    // on the parent, owning its replicas field).
    const json stored = r.store.parseRecord(*r.type, *record);
    if (r.type->fieldManagers->scale) {
        object = r.type->fieldManagers->scale->update(
            stored, std::move(object), updateManagerOf(options));
        keepScaleEntryTimes(object, stored);
    }
    auto result = updateObject(r.verbs,
                               r.type,
                               r.ns,
                               r.name,
                               std::move(object),
                               false,
                               options,
                               {},
                               nullptr,
                               r.type->fieldManagers->scale ? ManagedFieldsFrom::Given
                                                            : ManagedFieldsFrom::Update);
    if (!result)
        return errorResponse(request, result.error());
    return jsonResponse(request, 200, toScale(rt, result->object));
}

} // namespace reconscope::controller::cluster
