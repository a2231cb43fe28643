#include "controller/cluster/registry/verbs.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/admission.h"
#include "controller/cluster/registry/builtindecode.h"
#include "controller/cluster/registry/fieldmanagers.h"
#include "controller/cluster/registry/listing.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;

namespace {

// Whether two objects differ in nothing but metadata (what an update's generation follows): as
// comparing them with "metadata" erased from both.
bool equalApartFromMetadata(const json &a, const json &b)
{
    if (!a.is_object() || !b.is_object())
        return a == b;
    auto ia = a.begin();
    auto ib = b.begin();
    for (;;) {
        if (ia != a.end() && ia.key() == "metadata")
            ++ia;
        if (ib != b.end() && ib.key() == "metadata")
            ++ib;
        if (ia == a.end() || ib == b.end())
            return ia == a.end() && ib == b.end();
        if (ia.key() != ib.key() || *ia != *ib)
            return false;
        ++ia;
        ++ib;
    }
}

// The key kube-apiserver keeps the object under in etcd (its default --etcd-prefix and
// resource prefixes), which its storage errors name.
QString etcdKey(const ResourceType &type, const QString &ns, const QString &name)
{
    QString prefix = u"/registry/"_s;
    if (!type.builtin || type.group == u"apiextensions.k8s.io")
        prefix += type.group + u'/';
    prefix += type.plural == u"services" ? u"services/specs"_s : type.plural;
    return prefix + (type.namespaced ? u'/' + ns : QString()) + u'/' + name;
}

// The request's resourceVersion and uid against the stored object's. A patch's result has no
// uid precondition (upstream's patcher passes no object to take one from): a uid it changes is
// refused by validation as an immutable field.
std::optional<ApiError> checkPreconditions(const TypeEntry &type,
                                           const json &metadata,
                                           const RecordPtr &existing,
                                           const QString &name,
                                           bool patch)
{
    const json &rvValue = objectjson::member(metadata, "resourceVersion");
    const QString rvText
        = rvValue.is_string() ? QString::fromStdString(rvValue.get<std::string>()) : QString();
    // Unconditional updates: every built-in strategy the embedded cluster serves allows them
    // except CustomResourceDefinition's; custom resources' never do.
    if (rvText.isEmpty() || rvText == u"0") {
        if (!type.type.builtin || isCrdType(type.type))
            return invalidError(type.type.group,
                                type.type.plural,
                                name,
                                { { u"FieldValueInvalid"_s,
                                    u"metadata.resourceVersion"_s,
                                    u"Invalid value: 0: must be specified for an update"_s } });
    } else {
        const auto requestRv = parseResourceVersion(rvText);
        if (!requestRv)
            return ApiError::badRequest(u"invalid resourceVersion: %1"_s.arg(rvText));
        if (*requestRv != existing->resourceVersion)
            return ApiError::modified(type.type.group, type.type.plural, name);
    }
    const QString uid = objectjson::string(metadata, "uid");
    if (!patch && !uid.isEmpty() && uid != existing->uid)
        return ApiError::conflict(
            type.type.group,
            type.type.plural,
            name,
            u"StorageError: invalid object, Code: 4, Key: %1, ResourceVersion: 0, "
            "AdditionalErrorMsg: Precondition failed: UID in precondition: %2, UID in object "
            "meta: %3"_s.arg(etcdKey(type.type, objectjson::string(metadata, "namespace"), name),
                             uid,
                             existing->uid));
    return std::nullopt;
}

// A status write: the stored object with the request's status and managedFields (as upstream's
// status strategy keeps them). Built from the request's object, which mostly holds the stored
// members already (a patch's result does): only those that differ are copied over from the
// stored object.
json statusWrite(json object, const json &stored)
{
    json managedFields;
    if (auto metadata = object.find("metadata"); metadata != object.end() && metadata->is_object())
        if (auto fields = metadata->find("managedFields"); fields != metadata->end())
            managedFields = std::move(*fields);
    for (auto it = object.begin(); it != object.end();) {
        if (it.key() != "status" && !stored.contains(it.key()))
            it = object.erase(it);
        else
            ++it;
    }
    for (auto it = stored.begin(); it != stored.end(); ++it) {
        if (it.key() == "status")
            continue;
        auto member = object.find(it.key());
        if (member == object.end())
            object[it.key()] = *it;
        else if (!objectjson::identical(*member, *it))
            *member = *it;
    }
    json &metadata = object["metadata"];
    if (managedFields.is_null())
        metadata.erase("managedFields");
    else
        metadata["managedFields"] = std::move(managedFields);
    return object;
}

// A main-resource write: the request's object with the system fields, the status (with a
// status subresource) and a Namespace's spec kept as stored, the generation bumped when
// anything but metadata changed.
json mainWrite(const TypeEntry &type, json updated, const json &stored)
{
    json &m = updated["metadata"];
    const json &old = stored["metadata"];
    // rest.BeforeUpdate keeps a uid the request sets, for validation to refuse a changed one.
    if (objectjson::string(m, "uid").isEmpty() && old.contains("uid"))
        m["uid"] = old["uid"];
    for (const char *key :
         { "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation" }) {
        if (old.contains(key))
            m[key] = old[key];
        else
            m.erase(key);
    }
    m.erase("selfLink");
    if (type.type.statusSubresource) {
        if (stored.contains("status"))
            updated["status"] = stored["status"];
        else
            updated.erase("status");
    }
    if (isNamespaceType(type.type) && stored.contains("spec"))
        updated["spec"] = stored["spec"]; // spec.finalizers are changed only through /finalize
    // A Deployment's annotations bump it too: they are copied to its ReplicaSets (upstream's
    // deploymentStrategy.PrepareForUpdate).
    const bool annotationsCount = type.type.builtin && type.type.group == u"apps"
        && type.type.kind == u"Deployment"
        && objectjson::member(m, "annotations") != objectjson::member(old, "annotations");
    if (tracksGeneration(type.type)
        && (annotationsCount || !equalApartFromMetadata(stored, updated)))
        m["generation"] = old.value("generation", 0) + 1;
    return updated;
}

// Stores a validated update (or answers the no-op, the dry run, the finalized deletion).
ApiResult<WriteResult> commitUpdate(VerbContext &context,
                                    const TypeEntry &type,
                                    json updated,
                                    const RecordPtr &existing,
                                    bool status,
                                    const WriteOptions &options,
                                    QStringList warnings)
{
    Store &store = context.store;
    store.coerceForStorage(type, updated);
    WriteResult result;
    result.warnings = std::move(warnings);
    json &resourceVersion = updated["metadata"]["resourceVersion"];
    SerializedObject serialized;
    serialized.bytes = objectjson::dump(updated,
                                        &resourceVersion,
                                        &serialized.resourceVersionAt,
                                        &serialized.resourceVersionLength);
    const QByteArray &bytes = serialized.bytes;
    if (bytes == store.renderRecord(type, existing)) { // no-op: nothing written, no event
        result.object = std::move(updated);
        return result;
    }
    const bool finalized = !status && existing->deleting
        && objectjson::strings(objectjson::member(updated["metadata"], "finalizers")).isEmpty();
    if (options.dryRun) {
        result.object = std::move(updated);
        return result;
    }
    if (auto error = storageSizeError(bytes.size()))
        return *error;
    if (finalized) {
        RecordPtr deleted = store.commitDelete(type, existing);
        updated["metadata"]["resourceVersion"] = std::to_string(deleted->resourceVersion);
        result.object = std::move(updated);
    } else {
        // An update's members were pruned and defaulted by this type's schema (applySchema, then
        // applyDefaults in updateObject); a status write keeps the stored ones but the status,
        // which applyDefaults leaves alone when this schema made them.
        const quint64 stamp
            = !status || existing->schemaStamp == type.serial ? type.serial : quint64(0);
        RecordPtr record = store.commitPut(type, std::move(updated), existing, &serialized, stamp);
        store.setCommittedObject(result, type, record, options);
        if (isCrdType(type.type))
            context.controllers.crdWritten(record);
    }
    context.controllers.run();
    return result;
}

} // namespace

ApiResult<RecordPtr>
getRecord(const Store &store, const TypeEntry &type, const QString &ns, const QString &name)
{
    RecordPtr record = store.find(type, ns, name);
    if (!record)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    return record;
}

json VerbContext::takeParsed(const TypePtr &type, const RecordPtr &record) const
{
    if (lastRead.record != record || lastRead.type != type)
        return store.parseRecord(*type, record);
    json object = std::move(lastRead.object);
    lastRead = {};
    return object;
}

ApiResult<WriteResult> updateObject(VerbContext &context,
                                    const TypePtr &typePtr,
                                    const QString &ns,
                                    const QString &name,
                                    json object,
                                    bool status,
                                    const WriteOptions &options,
                                    const RecordPtr &patchedFrom,
                                    json *patchedFromObject,
                                    ManagedFieldsFrom from)
{
    const TypeEntry &type = *typePtr;
    if (!object.is_object())
        return ApiError::badRequest(u"the body of the request must be a JSON object"_s);
    // A patch's result is not decoded from a request body.
    if (auto error = patchedFrom ? std::nullopt : builtinDecodeError(type.type, object))
        return *error;
    if (auto error = context.admission.checkTypeMeta(type, object, name))
        return *error;
    json &metadata = object["metadata"];
    const QString bodyName = objectjson::string(metadata, "name");
    if (bodyName != name)
        return ApiError::badRequest(
            u"the name of the object (%1) does not match the name on the URL (%2)"_s.arg(bodyName,
                                                                                         name));
    if (auto error = Admission::adoptRequestNamespace(type.type, metadata, ns))
        return *error;

    QStringList warnings;
    const bool applied = from == ManagedFieldsFrom::Apply;
    if (auto error = context.admission.applySchema(
            type, object, options, warnings, bool(patchedFrom), applied))
        return *error;

    RecordPtr existing = patchedFrom ? patchedFrom : context.store.find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    if (auto error = checkPreconditions(type, metadata, existing, name, bool(patchedFrom)))
        return *error;

    // The stored object in the request's version (patchObject has parsed it already).
    const json stored
        = patchedFromObject ? std::move(*patchedFromObject) : context.takeParsed(typePtr, existing);
    // The field manager sees the decoded (pruned, defaulted) object against the stored one,
    // before the strategy's resets, as upstream's update handler and patcher run it.
    if (from == ManagedFieldsFrom::Update)
        object = recordUpdate(
            type.type, type.fieldManagers->of(status), stored, std::move(object), options);
    json updated = status ? statusWrite(std::move(object), stored)
                          : mainWrite(type, std::move(object), stored);
    // Defaulting a second time (applySchema defaulted the body) is deliberate: kube-apiserver
    // defaults the decoded request and again the object it reads back from storage, and the
    // merged object holds stored members the first pass did not see.
    Admission::applyDefaults(type, updated, applied);
    updated["metadata"]["resourceVersion"] = std::to_string(existing->resourceVersion);

    if (auto error = context.admission.validateObject(
            type, updated, false, status ? RecordPtr() : existing, &stored))
        return *error;
    // A write that changes nothing but the times of managedFields entries changes nothing.
    if (differsInManagedFieldsTimesAlone(stored, updated))
        updated = stored;
    return commitUpdate(context, type, std::move(updated), existing, status, options, warnings);
}

} // namespace reconscope::controller::cluster
