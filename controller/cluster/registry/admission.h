#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace reconscope::controller::cluster {

// etcd refuses a write above its --max-request-bytes (1.5 MiB by default) with "etcdserver:
// request is too large", which kube-apiserver passes on as a 500 Status without a reason
// (kubernetes/kubernetes#112152); request bodies above 3 MiB are refused before, with 413.
std::optional<apimachinery::ApiError> storageSizeError(qsizetype bytes);

// The checks and mutations a write goes through before it is stored, in the order the verbs call
// them: type meta, the request's namespace, schema pruning and defaulting, namespace lifecycle,
// the built-in kinds' create strategy, then validation of the whole object.
class Admission final
{
    Q_DISABLE_COPY_MOVE(Admission)

public:
    explicit Admission(const Store &store)
        : m_store(store)
    { }

    // apiVersion and kind against the type (defaulted for built-ins), metadata an object.
    std::optional<apimachinery::ApiError>
    checkTypeMeta(const TypeEntry &type, nlohmann::json &object, const QString &name) const;
    // The object's namespace against the request's: defaulted from the URL, a mismatch refused,
    // dropped for cluster-scoped kinds (create and update alike).
    static std::optional<apimachinery::ApiError>
    adoptRequestNamespace(const ResourceType &type, nlohmann::json &metadata, const QString &ns);
    // Prunes unknown fields (warned of or refused by options.fieldValidation) and applies the
    // schema's defaults. `patch`: the object is a patch's result, whose refusal names no kind.
    // `applied`: a server-side apply's result, which upstream's field manager defaults without
    // decoding it again: nothing pruned, nulls kept for validation.
    std::optional<apimachinery::ApiError> applySchema(const TypeEntry &type,
                                                      nlohmann::json &object,
                                                      const WriteOptions &options,
                                                      QStringList &warnings,
                                                      bool patch = false,
                                                      bool applied = false) const;
    // Defaults the object as the type's schema (custom resources) or the built-in kind's Go
    // type (builtindefaults.h) does; `keepNulls` for an apply's result (applySchema).
    static void
    applyDefaults(const TypeEntry &type, nlohmann::json &object, bool keepNulls = false);
    // The defaults upstream sets when it decodes a create's body that the embedded cluster sets
    // in the create strategy (prepareBuiltinForCreate): a Namespace's kubernetes.io/metadata.name
    // label, a CRD's names and conversion strategy. The field manager sees them set.
    static void applyDecodeDefaults(const TypeEntry &type, nlohmann::json &object);
    // NamespaceLifecycle: the namespace exists and is not terminating.
    std::optional<apimachinery::ApiError>
    admitNamespace(const TypeEntry &type, const QString &ns, const QString &name) const;
    // The create strategy of Namespaces, CRDs and Pods (with the Pod admission plugins): their
    // spec and status as the cluster sets them.
    void prepareBuiltinForCreate(const TypeEntry &type, nlohmann::json &object) const;
    // What rest.BeforeCreate and BeforeUpdate validate: the built-in kind's strategy
    // (builtinvalidation.h) or the custom resource's schema, and the common metadata checks, each
    // error repeated as often as upstream's layers report it. `old` and `previous` (the stored
    // object in the request's version) are given for updates, `old` null for a status write,
    // whose metadata checks are skipped (it changes no metadata). `previous` also enables schema
    // validation ratcheting: unchanged invalid values do not block an update, as upstream since
    // 1.30.
    std::optional<apimachinery::ApiError> validateObject(const TypeEntry &type,
                                                         const nlohmann::json &object,
                                                         bool create,
                                                         const RecordPtr &old,
                                                         const nlohmann::json *previous
                                                         = nullptr) const;

private:
    QList<FieldError>
    validateMetadata(const TypeEntry &type, const nlohmann::json &object, bool create) const;

    const Store &m_store;
};

} // namespace reconscope::controller::cluster
