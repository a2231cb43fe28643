#pragma once

#include "controller/cluster/apierror.h"
#include "controller/cluster/apitypes.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/structuralschema.h"
#include "controller/cluster/selectors.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reconscope::controller::cluster {

class ApiServer;
class ClusterWatch;

// One stored version of an object: its compact JSON (in the storage version, with
// metadata.resourceVersion) plus the small index that lists, selectors, watches and the garbage
// collector work on. Immutable once stored; shared between the store and the event history.
struct ObjectRecord
{
    std::string key; // "namespace/name", or "name" for cluster-scoped kinds
    QString ns;
    QString name;
    QString uid;
    qint64 resourceVersion = 0;
    QByteArray json;
    LabelSet labels;
    std::vector<std::pair<QString, QString>> fields; // selectable field path -> value
    QStringList ownerUids;
    QStringList finalizers;
    bool deleting = false; // metadata.deletionTimestamp is set
    // The serial of the type entry (Cluster::TypeEntry::serial) whose schema last pruned and
    // defaulted every top-level member but the status, which a status write then keeps as they
    // are; 0 when not known.
    quint64 schemaStamp = 0;
};
using RecordPtr = std::shared_ptr<const ObjectRecord>;

enum class EventType { Added, Modified, Deleted };

// One committed change. DELETED events carry the last stored state with the deletion's RV.
struct ClusterEvent
{
    qint64 resourceVersion = 0;
    EventType type = EventType::Added;
    QString storageKey; // "<group>/<plural>", e.g. "apps/deployments", "/pods"
    RecordPtr object;
    RecordPtr previous; // null for ADDED
    // The watch line ({"type":...,"object":...}\n) of `object` as stored, rendered by the first
    // watcher that sends it and shared by the others (same type, no Table, no re-rendering).
    mutable QByteArray sharedLine;
    mutable const char *sharedLineType = nullptr;
};

// Which resource an in-process call addresses.
struct ResourceRef
{
    QString group; // "" for core
    QString version;
    QString plural;
};

enum class FieldValidation { Ignore, Warn, Strict };
enum class PatchType { Merge, Json };

struct WriteOptions
{
    bool dryRun = false;
    QString fieldManager;
    FieldValidation fieldValidation = FieldValidation::Warn;
    // false: a write that sets WriteResult::objectJson may leave WriteResult::object null, for
    // callers that only need the bytes or the outcome (the HTTP API, the churn mutator).
    bool returnObject = true;
};

struct DeleteOptions
{
    QString propagationPolicy; // "", "Background", "Foreground", "Orphan"
    std::optional<bool> orphanDependents;
    QString preconditionUid;
    QString preconditionResourceVersion;
    bool dryRun = false;
};

struct ListOptions
{
    QString labelSelector;
    QString fieldSelector;
    qint64 limit = 0;
    QString continueToken;
    QString resourceVersion;
    QString resourceVersionMatch;
};

struct WatchOptions
{
    QString labelSelector;
    QString fieldSelector;
    QString resourceVersion; // "" or "0": initial ADDED events first; N: changes after N only
    bool allowBookmarks = false;
    std::optional<bool> sendInitialEvents;
    int timeoutSeconds = 0; // 0: the server's own 30-60 min
    // Set: events carry meta.k8s.io/v1 Tables (Accept as=Table) with this includeObject; only
    // the first carries the column definitions.
    std::optional<QString> tableIncludeObject;
};

struct WriteResult
{
    nlohmann::json object; // the stored (or dry-run) object; for immediate deletes the Status
    QStringList warnings; // e.g. `unknown field "spec.foo"`
    int httpStatus = 200; // 201 for create
    // The committed object as compact JSON in the request's version, set when a create, update
    // or patch stored a new version: `object` serialized, without serializing it again.
    QByteArray objectJson;
};

// A page of a list in storage form; ApiServer renders it without re-parsing the items.
struct ListPage
{
    std::vector<RecordPtr> items;
    qint64 resourceVersion = 0;
    QString continueToken;
    std::optional<qint64> remainingItemCount;
};

// The embedded cluster's state and API semantics (shared/spec/kube-api.md): the registry of served
// resource types (built-ins plus CRDs), the object store with one cluster-wide revision counter,
// a bounded event history for watches and consistent paging, the watch fan-out, and the
// controllers an embedded cluster needs to never leave objects stuck (CRD establishing and
// cleanup, namespace termination, garbage collection of owner references).
//
// Threading: a Cluster and everything it hands out (WatchStreams included) must be used from the
// thread it lives in. The transport calls ApiServer::handle() on that thread.
//
// In-process API (for the workload simulator and demo seeding): get/list/create/update/
// updateStatus/patch/remove take a ResourceRef and behave exactly like the HTTP verbs (the same
// validation, admission, resourceVersion and generation rules, the same ApiError), and subscribe()
// delivers every committed change synchronously after the commit. Callbacks may call back into
// the Cluster. For example:
//
//   Cluster cluster; // built-ins, namespaces default/kube-*, the CustomApp CRD
//   const ResourceRef apps{u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s};
//   auto created = cluster.create(apps, u"default"_s, object); // ApiResult<WriteResult>
//   if (!created) qWarning() << created.error().message;       // e.g. 409 AlreadyExists
//   cluster.patch(apps, u"default"_s, u"web"_s, PatchType::Merge,
//                 R"({"status":{"readyReplicas":2}})", /*statusSubresource=*/true);
//   const int id = cluster.subscribe([](const ClusterEvent &event) {
//       // event.type, event.object->json (compact JSON), event.previous (null for ADDED)
//   });
//
// Fault injection: setHistoryWindow(n) bounds the retained events, compact() drops them all;
// watches and continue tokens from before the window then get 410 Expired.
class Cluster final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Cluster)

public:
    using Clock = std::function<QDateTime()>;

    // Starts with the built-in kinds, namespaces default/kube-system/kube-public/kube-node-lease
    // and, unless installCustomAppCrd is false, the CustomApp CRD from the Qt resources.
    explicit Cluster(QObject *parent = nullptr, bool installCustomAppCrd = true);
    ~Cluster() override;

    void setClock(Clock clock); // for tests; default QDateTime::currentDateTimeUtc

    // --- registry ---
    // Served types (built-ins first, then CRD versions in CRD order).
    QList<ResourceType> servedTypes() const;
    std::optional<ResourceType> findType(const ResourceRef &ref) const;

    // --- in-process verbs ---
    ApiResult<nlohmann::json>
    get(const ResourceRef &ref, const QString &ns, const QString &name) const;
    // A list object ({"apiVersion","items","kind","metadata"}) parsed into JSON.
    ApiResult<nlohmann::json>
    list(const ResourceRef &ref, const QString &ns, const ListOptions &options = {}) const;
    ApiResult<WriteResult> create(const ResourceRef &ref,
                                  const QString &ns,
                                  nlohmann::json object,
                                  const WriteOptions &options = {});
    ApiResult<WriteResult> update(const ResourceRef &ref,
                                  const QString &ns,
                                  const QString &name,
                                  nlohmann::json object,
                                  const WriteOptions &options = {});
    ApiResult<WriteResult> updateStatus(const ResourceRef &ref,
                                        const QString &ns,
                                        const QString &name,
                                        nlohmann::json object,
                                        const WriteOptions &options = {});
    ApiResult<WriteResult> patch(const ResourceRef &ref,
                                 const QString &ns,
                                 const QString &name,
                                 PatchType type,
                                 const QByteArray &patch,
                                 bool statusSubresource = false,
                                 const WriteOptions &options = {});
    // 200 with the object while finalizers hold it, else the Success Status.
    ApiResult<WriteResult> remove(const ResourceRef &ref,
                                  const QString &ns,
                                  const QString &name,
                                  const DeleteOptions &options = {});

    // Watch as over HTTP: events are written as lines to the sink given to start().
    ApiResult<std::shared_ptr<WatchStream>>
    watch(const ResourceRef &ref, const QString &ns, const WatchOptions &options);

    // Every committed change, synchronously after the commit. Returns an id for unsubscribe().
    int subscribe(std::function<void(const ClusterEvent &)> callback);
    void unsubscribe(int id);

    // --- state and fault injection ---
    qint64 currentResourceVersion() const { return m_revision; }
    // The number of events kept for watches and paging (default 10000); older RVs get 410.
    void setHistoryWindow(int events);
    int historyWindow() const { return m_historyWindow; }
    // Drops the whole history: every earlier RV becomes too old.
    void compact();
    qint64 compactedResourceVersion() const { return m_compactedRevision; }
    // Interval of the periodic watch bookmarks (default 60 s).
    void setBookmarkInterval(int milliseconds) { m_bookmarkIntervalMs = milliseconds; }
    int bookmarkInterval() const { return m_bookmarkIntervalMs; }
    // Status patches that touch the status alone are applied to the stored status alone, the
    // rest of the stored text kept as is (the same outcome, checked by tst_writepath and the
    // fuzz_objectjson target against this switch); false sends every write the general way.
    void setWriteShortcuts(bool enabled) { m_writeShortcuts = enabled; }
    // Status patches applied to the stored status alone so far.
    qint64 statusPatchesInPlace() const { return m_statusPatchesInPlace; }
    // Number of live watches.
    int watchCount() const { return int(m_watches.size()); }
    qsizetype objectCount() const;

signals:
    void resourceTypesChanged();

private:
    friend class ApiServer;
    friend class ClusterWatch;

    struct TypeEntry
    {
        ResourceType type;
        StructuralSchema schema;
        QString storageKey; // "<group>/<plural>"
        QString storageVersion;
        // Unique per registered schema: a re-registration with the same schema keeps it.
        quint64 serial = 0;
        // A status patch may be applied to the stored status alone (patchStatusInPlace).
        bool statusInPlace = false;
    };
    using TypePtr = std::shared_ptr<const TypeEntry>;

    struct Bucket
    {
        QString storageKey;
        std::map<std::string, RecordPtr> objects;
        QStringList selectableFields; // union over the versions, paths like ".spec.color"
        QHash<QString, qint64> namespaceCounts; // objects per namespace (namespaced kinds)
        bool namespaced = true;
        QString group;
        QString plural;
        QString storageApiVersion;
    };

    // registry
    TypePtr lookup(const QString &group, const QString &version, const QString &plural) const;
    TypePtr lookup(const ResourceRef &ref) const;
    TypePtr storageTypeFor(const QString &storageKey) const;
    void registerTypes(const QList<ResourceType> &types);
    void unregisterGroupResource(const QString &group, const QString &plural);
    void installBuiltins();
    void installCrdObject(const nlohmann::json &crd);

    // storage
    Bucket &bucket(const TypeEntry &type);
    const Bucket *findBucket(const QString &storageKey) const;
    static std::string objectKey(const QString &ns, const QString &name);
    RecordPtr find(const TypeEntry &type, const QString &ns, const QString &name) const;
    std::shared_ptr<ObjectRecord> makeRecord(const Bucket &bucket,
                                             const nlohmann::json &object,
                                             qint64 rv,
                                             QByteArray bytes = {}) const;
    // An object already serialized by a write (to compare it with the stored one), with where its
    // metadata.resourceVersion value sits, so that committing it need not serialize it again.
    struct Serialized
    {
        QByteArray bytes;
        qsizetype resourceVersionAt = -1;
        qsizetype resourceVersionLength = 0;
    };
    // Writes `object` (metadata.resourceVersion is set here) and emits ADDED/MODIFIED.
    // `serialized`, when given, is `object` as dump() wrote it before the resourceVersion was set.
    // `schemaStamp`: ObjectRecord::schemaStamp of the new record.
    RecordPtr commitPut(const TypeEntry &type,
                        nlohmann::json object,
                        const RecordPtr &previous,
                        const Serialized *serialized = nullptr,
                        quint64 schemaStamp = 0);
    // Stores a record whose resourceVersion is the new revision: indexes, controllers' queues,
    // the ADDED/MODIFIED event.
    void storeRecord(const TypeEntry &type, const RecordPtr &record, const RecordPtr &previous);
    // Removes the object and emits DELETED carrying `last` with the deletion's RV.
    RecordPtr commitDelete(const TypeEntry &type, const RecordPtr &last);
    void appendEvent(ClusterEvent event);
    void trimHistory();
    // The bucket's content at revision `rv` (>= m_compactedRevision), starting at `startKey`.
    void forEachAt(const Bucket &bucket,
                   qint64 rv,
                   const std::string &startKey,
                   const std::function<bool(const RecordPtr &)> &visit) const;
    QByteArray renderRecord(const TypeEntry &type, const RecordPtr &record) const;
    // result.objectJson and (unless options.returnObject is false) result.object from a record.
    void setCommittedObject(WriteResult &result,
                            const TypeEntry &type,
                            const RecordPtr &record,
                            const WriteOptions &options) const;
    nlohmann::json parseRecord(const TypeEntry &type, const RecordPtr &record) const;

    // verbs (type already resolved)
    ApiResult<RecordPtr>
    getRecord(const TypeEntry &type, const QString &ns, const QString &name) const;
    ApiResult<ListPage>
    listRecords(const TypeEntry &type, const QString &ns, const ListOptions &options) const;
    ApiResult<WriteResult> doCreate(const TypePtr &type,
                                    const QString &ns,
                                    nlohmann::json object,
                                    const WriteOptions &options);
    ApiResult<WriteResult> doUpdate(const TypePtr &type,
                                    const QString &ns,
                                    const QString &name,
                                    nlohmann::json object,
                                    bool status,
                                    const WriteOptions &options,
                                    const RecordPtr &patchedFrom = {},
                                    nlohmann::json *patchedFromObject = nullptr);
    ApiResult<WriteResult> doPatch(const TypePtr &type,
                                   const QString &ns,
                                   const QString &name,
                                   PatchType patchType,
                                   const QByteArray &patch,
                                   bool status,
                                   const WriteOptions &options);
    // A status patch (JSON patch operations on paths under /status/ only, or a merge patch of
    // {"status":{...}} only) applied to the stored status alone: its members parsed, patched,
    // pruned, defaulted and validated, the other members' stored text kept, the new
    // resourceVersion spliced in. Only when that provably gives what doPatch's general way
    // commits (the stored members other than the status already pruned and defaulted by this
    // schema, no warnings, no errors, not a no-op, not a dry run); nullopt otherwise, and the
    // caller goes the general way, which then answers errors and warnings as always.
    std::optional<WriteResult> patchStatusInPlace(const TypeEntry &type,
                                                  const RecordPtr &existing,
                                                  PatchType patchType,
                                                  const nlohmann::json &patch,
                                                  const WriteOptions &options);
    ApiResult<WriteResult> doDelete(const TypePtr &type,
                                    const QString &ns,
                                    const QString &name,
                                    const DeleteOptions &options);
    ApiResult<nlohmann::json> doDeleteCollection(const TypePtr &type,
                                                 const QString &ns,
                                                 const ListOptions &listOptions,
                                                 const DeleteOptions &options);
    ApiResult<std::shared_ptr<WatchStream>>
    doWatch(const TypePtr &type, const QString &ns, const WatchOptions &options);

    // admission and strategy helpers
    std::optional<ApiError>
    checkTypeMeta(const TypeEntry &type, nlohmann::json &object, const QString &name) const;
    QList<FieldError>
    validateMetadata(const TypeEntry &type, const nlohmann::json &object, bool create) const;
    std::optional<ApiError> applySchema(const TypeEntry &type,
                                        nlohmann::json &object,
                                        const WriteOptions &options,
                                        QStringList &warnings,
                                        bool patch = false) const;
    // `previous` (the stored object in the request's version, for updates) enables validation
    // ratcheting: unchanged invalid values do not block an update, as upstream since 1.30.
    std::optional<ApiError> validateObject(const TypeEntry &type,
                                           const nlohmann::json &object,
                                           bool create,
                                           const RecordPtr &old,
                                           const nlohmann::json *previous = nullptr) const;
    std::optional<ApiError>
    admitNamespace(const TypeEntry &type, const QString &ns, const QString &name) const;
    void prepareBuiltinForCreate(const TypeEntry &type, nlohmann::json &object) const;
    // What a list, watch or deletecollection selects: namespace, labels, fields.
    struct Selection
    {
        QString ns;
        LabelSelector labels;
        FieldSelector fields;
        bool matches(const ObjectRecord &record) const;
    };
    ApiResult<Selection> parseSelection(const TypeEntry &type,
                                        const QString &ns,
                                        const QString &labelText,
                                        const QString &fieldText) const;
    QString nowTimestamp() const;

    // controllers
    void runControllers();
    void establishCrd(const RecordPtr &crd);
    void deleteNow(const TypeEntry &type, const RecordPtr &record);
    void removeFinalizer(const TypeEntry &type, const RecordPtr &record, const QString &finalizer);
    // Marks the object deleted (deletionTimestamp) or removes it; adds GC finalizers by policy.
    ApiResult<WriteResult> deleteRecord(const TypePtr &type,
                                        const RecordPtr &existing,
                                        const QString &policy,
                                        bool dryRun);

    // watches
    void addWatch(ClusterWatch *watch);
    void removeWatch(ClusterWatch *watch);

    // The object get() parsed last, for the update of it that usually follows (read, modify,
    // write): doUpdate takes it instead of parsing the same record again. Records are immutable,
    // so it stays right for as long as the record and the type entry it was parsed for are those.
    struct LastRead
    {
        RecordPtr record;
        TypePtr type;
        nlohmann::json object;
    };
    mutable LastRead m_lastRead;
    // The stored object of `record` parsed for `type`, from m_lastRead when it holds it.
    nlohmann::json takeParsed(const TypePtr &type, const RecordPtr &record) const;

    Clock m_clock;
    qint64 m_revision = 0;
    qint64 m_compactedRevision = 0;
    int m_historyWindow = 10000;
    int m_bookmarkIntervalMs = 60000;
    std::deque<ClusterEvent> m_history;

    QList<TypePtr> m_types; // in registration order
    QHash<QString, Bucket> m_buckets; // by storage key
    QHash<QString, QPair<QString, std::string>> m_uidIndex; // uid -> (storage key, object key)
    QMultiHash<QString, QString> m_dependents; // owner uid -> dependent uid

    std::vector<ClusterWatch *> m_watches;
    std::map<int, std::function<void(const ClusterEvent &)>> m_subscribers;
    int m_nextSubscriber = 1;
    QStringList m_gcQueue; // uids of owners deleting with the orphan/foregroundDeletion finalizer
    QStringList m_orphanedOwners; // uids of removed owners that had dependents
    QSet<QString> m_terminatingNamespaces;
    QSet<QString> m_terminatingCrds; // CRD names
    bool m_inControllers = false;
    bool m_writeShortcuts = true;
    qint64 m_statusPatchesInPlace = 0;
    quint64 m_lastTypeSerial = 0;
    bool m_controllersPending = false;
};

} // namespace reconscope::controller::cluster
