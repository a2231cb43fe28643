#include "controller/cluster/registry/deletion.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/listing.h"
#include "controller/cluster/registry/verbs.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::DeleteOptions;
using apimachinery::ListOptions;

namespace {

// propagationPolicy, else what the deprecated orphanDependents says.
QString propagationPolicyOf(const DeleteOptions &options)
{
    if (options.propagationPolicy.isEmpty() && options.orphanDependents)
        return *options.orphanDependents ? u"Orphan"_s : u"Background"_s;
    return options.propagationPolicy;
}

// The Success Status of an immediate deletion, members in upstream's order.
json successStatus(const TypeEntry &type, const RecordPtr &existing)
{
    nlohmann::ordered_json statusBody = nlohmann::ordered_json::object();
    statusBody["kind"] = "Status";
    statusBody["apiVersion"] = "v1";
    statusBody["metadata"] = nlohmann::ordered_json::object();
    statusBody["status"] = "Success";
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
    details["name"] = existing->name.toStdString();
    if (!type.type.group.isEmpty())
        details["group"] = type.type.group.toStdString();
    details["kind"] = type.type.plural.toStdString();
    details["uid"] = existing->uid.toStdString();
    statusBody["details"] = details;
    return json::parse(statusBody.dump());
}

} // namespace

ApiResult<WriteResult> deleteObject(VerbContext &context,
                                    const TypePtr &typePtr,
                                    const QString &ns,
                                    const QString &name,
                                    const DeleteOptions &options)
{
    const TypeEntry &type = *typePtr;
    RecordPtr existing = context.store.find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    // NamespaceLifecycle admission: the immortal namespaces.
    if (isNamespaceType(type.type)
        && (name == u"default" || name == u"kube-system" || name == u"kube-public"))
        return ApiError::forbidden(
            {}, type.type.plural, name, u"this namespace may not be deleted"_s);
    // rest.BeforeDelete's checks: conflicts named by the Kind, not the resource.
    if (!options.preconditionUid.isEmpty() && options.preconditionUid != existing->uid)
        return ApiError::conflict(type.type.group,
                                  type.type.kind,
                                  name,
                                  u"the UID in the precondition (%1) does not match the UID in "
                                  "record (%2). The object might have been deleted and then "
                                  "recreated"_s.arg(options.preconditionUid, existing->uid));
    if (!options.preconditionResourceVersion.isEmpty()
        && options.preconditionResourceVersion != QString::number(existing->resourceVersion))
        return ApiError::conflict(
            type.type.group,
            type.type.kind,
            name,
            u"the ResourceVersion in the precondition (%1) does not match the ResourceVersion in "
            "record (%2). The object might have been modified"_s
                .arg(options.preconditionResourceVersion)
                .arg(existing->resourceVersion));
    const QString policy = propagationPolicyOf(options);
    auto result
        = deleteRecord(context.store, context.clock, typePtr, existing, policy, options.dryRun);
    if (result && !options.dryRun)
        context.controllers.run();
    return result;
}

ApiResult<WriteResult> deleteRecord(Store &store,
                                    const ClusterClock &clock,
                                    const TypePtr &typePtr,
                                    const RecordPtr &existing,
                                    const QString &policy,
                                    bool dryRun)
{
    const TypeEntry &type = *typePtr;
    json object = store.parseRecord(type, existing);
    json &metadata = object["metadata"];
    QStringList finalizers = objectjson::strings(objectjson::member(metadata, "finalizers"));
    if (policy == u"Orphan") {
        finalizers.removeAll(kForegroundFinalizer);
        if (!finalizers.contains(kOrphanFinalizer))
            finalizers.append(kOrphanFinalizer);
    } else if (policy == u"Foreground") {
        finalizers.removeAll(kOrphanFinalizer);
        if (!finalizers.contains(kForegroundFinalizer))
            finalizers.append(kForegroundFinalizer);
    } else if (policy == u"Background") {
        finalizers.removeAll(kOrphanFinalizer);
        finalizers.removeAll(kForegroundFinalizer);
    }
    // Kinds whose deletion is always finalized by a controller of the cluster.
    if (isNamespaceType(type.type) && !existing->deleting) {
        if (!object["status"].is_object())
            object["status"] = json::object();
        object["status"]["phase"] = "Terminating";
    }
    if (isCrdType(type.type) && !finalizers.contains(kCrdCleanupFinalizer) && !existing->deleting)
        finalizers.append(kCrdCleanupFinalizer);
    const bool namespaceHeld = isNamespaceType(type.type);

    WriteResult result;
    if (finalizers.isEmpty() && !namespaceHeld) {
        // A dry run answers as the real deletion does (the Success Status), storing nothing.
        if (!dryRun)
            store.commitDelete(type, existing);
        result.object = successStatus(type, existing);
        if (isCrdType(type.type) && !dryRun)
            store.unregisterGroupResource(objectjson::string(object["spec"], "group"),
                                          objectjson::string(object["spec"]["names"], "plural"));
        return result;
    }
    if (finalizers.isEmpty())
        metadata.erase("finalizers");
    else
        metadata["finalizers"] = objectjson::array(finalizers);
    if (!existing->deleting) {
        metadata["deletionTimestamp"] = timestampNow(clock).toStdString();
        // The generic store marks an object deleting with a grace period of 0; the namespace
        // registry's own Delete sets the timestamp alone.
        if (!namespaceHeld)
            metadata["deletionGracePeriodSeconds"] = 0;
        if (tracksGeneration(type.type))
            metadata["generation"] = metadata.value("generation", 0) + 1;
    }
    if (isCrdType(type.type) && !existing->deleting) {
        json &conditions = object["status"]["conditions"];
        if (!conditions.is_array())
            conditions = json::array();
        conditions.push_back({ { "type", "Terminating" },
                               { "status", "True" },
                               { "lastTransitionTime", timestampNow(clock).toStdString() },
                               { "reason", "InstanceDeletionInProgress" },
                               { "message", "CustomResource deletion is in progress" } });
    }
    if (dryRun) {
        result.object = std::move(object);
        return result;
    }
    if (objectjson::dump(object) == store.renderRecord(type, existing)) {
        result.object = std::move(object);
        return result;
    }
    RecordPtr record = store.commitPut(type, std::move(object), existing);
    result.object = store.parseRecord(type, record);
    return result;
}

ApiResult<json> deleteCollection(VerbContext &context,
                                 const TypePtr &typePtr,
                                 const QString &ns,
                                 const ListOptions &listOptions,
                                 const DeleteOptions &options)
{
    const TypeEntry &type = *typePtr;
    ListOptions all = listOptions;
    all.limit = 0;
    all.continueToken.clear();
    auto page = listRecords(context.store, type, ns, all);
    if (!page)
        return page.error();
    const QString policy = propagationPolicyOf(options);
    // The answer is the list the deletion worked through, its items as listed (upstream's
    // DeleteCollection returns that list, not the objects its deletes left behind).
    json items = json::array();
    for (const RecordPtr &record : page->items) {
        json item = context.store.parseRecord(type, record);
        Store::dropListItemTypeMeta(type, item);
        items.push_back(std::move(item));
        // Gone meanwhile (collected with an owner deleted before it): not found is no error.
        RecordPtr current = context.store.find(type, record->ns, record->name);
        if (!current)
            continue;
        auto result
            = deleteRecord(context.store, context.clock, typePtr, current, policy, options.dryRun);
        if (!result)
            return result.error();
    }
    if (!options.dryRun)
        context.controllers.run();
    // Typed lists omit an empty continue token; unstructured ones write it.
    json metadata = { { "resourceVersion", std::to_string(context.store.revision()) } };
    if (!type.type.builtin)
        metadata["continue"] = "";
    return json{ { "apiVersion", type.type.groupVersion().toStdString() },
                 { "items", std::move(items) },
                 { "kind", type.type.listKind.toStdString() },
                 { "metadata", std::move(metadata) } };
}

void removeFinalizer(Store &store,
                     const TypeEntry &type,
                     const RecordPtr &record,
                     const QString &finalizer)
{
    json object = store.parseRecord(type, record);
    QStringList finalizers
        = objectjson::strings(objectjson::member(object["metadata"], "finalizers"));
    if (!finalizers.removeAll(finalizer))
        return;
    if (finalizers.isEmpty()) {
        object["metadata"].erase("finalizers");
        if (isCrdType(type.type)) {
            const QString group = objectjson::string(object["spec"], "group");
            const QString plural = objectjson::string(object["spec"]["names"], "plural");
            store.commitDelete(type, record);
            store.unregisterGroupResource(group, plural);
        } else {
            store.commitDelete(type, record);
        }
        return;
    }
    object["metadata"]["finalizers"] = objectjson::array(finalizers);
    store.commitPut(type, std::move(object), record);
}

} // namespace reconscope::controller::cluster
