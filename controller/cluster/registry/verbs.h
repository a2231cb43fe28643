#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

namespace reconscope::controller::cluster {

class Admission;
class ControllerManager;
class StatusPatchInPlace;

// The object get() parsed last, for the update of it that usually follows (read, modify, write):
// the update takes it instead of parsing the same record again. Records are immutable, so it
// stays right for as long as the record and the type entry it was parsed for are those.
struct LastRead
{
    RecordPtr record;
    TypePtr type;
    nlohmann::json object;
};

// What the verbs work on (kube-apiserver's generic registry store with its strategies): the
// store, admission, the controllers that run after every committed write, the status fast path,
// the clock. The Cluster owns all of it and hands the same context to every verb.
struct VerbContext
{
    Store &store;
    const Admission &admission;
    ControllerManager &controllers;
    StatusPatchInPlace &statusInPlace;
    const ClusterClock &clock;
    LastRead &lastRead;

    QString now() const { return timestampNow(clock); }
    // The stored object of `record` parsed for `type`, from lastRead when it holds it.
    nlohmann::json takeParsed(const TypePtr &type, const RecordPtr &record) const;
};

// Where a write's managedFields come from.
enum class ManagedFieldsFrom {
    Update, // the field manager records the write as an Update by updateManagerOf(options)
    Given, // the caller computed them (a write through /scale)
    Apply, // a server-side apply's result: computed, defaulted as upstream's apply path does it
           // (nothing pruned, nulls left for validation)
};

// get: the stored record (404 when there is none).
apimachinery::ApiResult<RecordPtr>
getRecord(const Store &store, const TypeEntry &type, const QString &ns, const QString &name);

// create (registry/create.cpp): rest.BeforeCreate, admission, validation, commit; 201. The
// object's managedFields are those of an Update by the write's manager (updateManagerOf) unless
// they come from an apply (`from`).
apimachinery::ApiResult<WriteResult> createObject(VerbContext &context,
                                                  const TypePtr &type,
                                                  const QString &ns,
                                                  nlohmann::json object,
                                                  const WriteOptions &options,
                                                  ManagedFieldsFrom from
                                                  = ManagedFieldsFrom::Update);

// update and the status subresource's (registry/update.cpp). `patchedFrom` and
// `patchedFromObject`: the record a patch was applied to and its parsed object, for patchObject;
// `from`: where the write's managedFields come from.
apimachinery::ApiResult<WriteResult> updateObject(VerbContext &context,
                                                  const TypePtr &type,
                                                  const QString &ns,
                                                  const QString &name,
                                                  nlohmann::json object,
                                                  bool status,
                                                  const WriteOptions &options,
                                                  const RecordPtr &patchedFrom = {},
                                                  nlohmann::json *patchedFromObject = nullptr,
                                                  ManagedFieldsFrom from
                                                  = ManagedFieldsFrom::Update);

// patch (registry/patch.cpp): JSON, merge or strategic merge patch applied to the stored object,
// or a server-side apply (the object created when it does not exist; options.fieldManager and
// options.force), then the update path; a status patch may take StatusPatchInPlace's shortcut,
// with the same outcome.
apimachinery::ApiResult<WriteResult> patchObject(VerbContext &context,
                                                 const TypePtr &type,
                                                 const QString &ns,
                                                 const QString &name,
                                                 apimachinery::PatchType patchType,
                                                 const QByteArray &patch,
                                                 bool status,
                                                 const WriteOptions &options);

// delete and deletecollection (registry/delete.cpp): preconditions, propagation policy,
// finalizers; 200 with the object while finalizers hold it, else the Success Status.
apimachinery::ApiResult<WriteResult> deleteObject(VerbContext &context,
                                                  const TypePtr &type,
                                                  const QString &ns,
                                                  const QString &name,
                                                  const apimachinery::DeleteOptions &options);
apimachinery::ApiResult<nlohmann::json>
deleteCollection(VerbContext &context,
                 const TypePtr &type,
                 const QString &ns,
                 const apimachinery::ListOptions &listOptions,
                 const apimachinery::DeleteOptions &options);

} // namespace reconscope::controller::cluster
