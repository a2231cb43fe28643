#pragma once

#include "controller/cluster/clustertypes.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/structuralschema.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMultiHash>
#include <QPair>
#include <QString>
#include <QStringList>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace reconscope::controller::cluster {

class ClusterWatch;
struct TypeFieldManagers;

using ClusterClock = std::function<QDateTime()>;
// The clock's time in whole seconds, as metadata timestamps carry it.
QString timestampNow(const ClusterClock &clock);

// One served group/version/resource with what writes need of it.
struct TypeEntry
{
    ResourceType type;
    StructuralSchema schema;
    QString storageKey; // "<group>/<plural>"
    QString storageVersion;
    // Unique per registered schema: a re-registration with the same schema keeps it.
    quint64 serial = 0;
    // A status patch may be applied to the stored status alone (StatusPatchInPlace).
    bool statusInPlace = false;
    // managedFields and server-side apply of this version (registry/fieldmanagers.h), kept for
    // as long as the schema is.
    std::shared_ptr<const TypeFieldManagers> fieldManagers;
};
using TypePtr = std::shared_ptr<const TypeEntry>;

// The objects of one group/resource, in every served version, keyed by "namespace/name".
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

QString storageKeyOf(const QString &group, const QString &plural);
bool isCrdType(const ResourceType &type);
bool isNamespaceType(const ResourceType &type);

// An object already serialized by a write (to compare it with the stored one), with where its
// metadata.resourceVersion value sits, so that committing it need not serialize it again.
struct SerializedObject
{
    QByteArray bytes;
    qsizetype resourceVersionAt = -1;
    qsizetype resourceVersionLength = 0;
};

// What reacts to commits before anyone else hears of them: the cluster's controllers queue work
// here, and that work runs after the verb (ControllerManager). Observers must not write.
class StoreObserver
{
public:
    virtual ~StoreObserver() = default;
    // A new version of an object (`previous` null for a creation) is stored.
    virtual void
    recordStored(const TypeEntry &type, const RecordPtr &record, const RecordPtr &previous)
        = 0;
    // `last` is removed; the store's indexes no longer hold it.
    virtual void recordDeleted(const TypeEntry &type, const RecordPtr &last) = 0;
};

// The generic store under every verb (kube-apiserver's registry store over etcd and the watch
// cache): the registry of served types, the objects by type with their uid and owner indexes,
// the cluster-wide revision counter, the bounded event history, and the fan-out of every commit
// to the observers, then the watches, then the subscribers, in that order.
//
// Records are immutable: a write stores a new one. Everything runs on the owning Cluster's thread.
class Store final
{
    Q_DISABLE_COPY_MOVE(Store)

public:
    explicit Store(std::function<void()> typesChanged);
    ~Store();

    // The clock managedFields entries take their time from (the Cluster's, which outlives the
    // store); the current time when none is set.
    void setClock(const ClusterClock *clock) { m_clock = clock; }

    // --- registry ---
    const QList<TypePtr> &types() const { return m_types; } // in registration order
    TypePtr lookup(const QString &group, const QString &version, const QString &plural) const;
    TypePtr lookup(const apimachinery::ResourceRef &ref) const;
    // The storage version's entry of a group/resource (any entry when none is the storage one).
    TypePtr storageTypeFor(const QString &storageKey) const;
    // Registers the versions of one group/resource, replacing an earlier registration in place.
    void registerTypes(const QList<ResourceType> &types);
    // Drops the group/resource with its objects; its watches end.
    void unregisterGroupResource(const QString &group, const QString &plural);

    // --- objects ---
    Bucket &bucket(const TypeEntry &type) { return m_buckets[type.storageKey]; }
    const Bucket *findBucket(const QString &storageKey) const;
    const QHash<QString, Bucket> &buckets() const { return m_buckets; }
    static std::string objectKey(const QString &ns, const QString &name);
    RecordPtr find(const TypeEntry &type, const QString &ns, const QString &name) const;
    // The object with this uid and the storage version's type entry; nulls when there is none.
    std::pair<TypePtr, RecordPtr> locate(const QString &uid) const;
    bool containsUid(const QString &uid) const { return m_uidIndex.contains(uid); }
    // The uids of the objects that name `ownerUid` in their ownerReferences.
    QStringList dependents(const QString &ownerUid) const { return m_dependents.values(ownerUid); }
    bool hasDependents(const QString &ownerUid) const { return m_dependents.contains(ownerUid); }
    void forgetDependents(const QString &ownerUid) { m_dependents.remove(ownerUid); }
    qsizetype objectCount() const;

    std::shared_ptr<ObjectRecord> makeRecord(const Bucket &bucket,
                                             const nlohmann::json &object,
                                             qint64 rv,
                                             QByteArray bytes = {}) const;
    // Writes `object` (metadata.resourceVersion is set here) and emits ADDED/MODIFIED.
    // `serialized`, when given, is `object` as dump() wrote it before the resourceVersion was set.
    // `schemaStamp`: ObjectRecord::schemaStamp of the new record.
    RecordPtr commitPut(const TypeEntry &type,
                        nlohmann::json object,
                        const RecordPtr &previous,
                        const SerializedObject *serialized = nullptr,
                        quint64 schemaStamp = 0);
    // Stores a record whose resourceVersion is the new revision (nextRevision()): indexes,
    // observers, the ADDED/MODIFIED event.
    void storeRecord(const TypeEntry &type, const RecordPtr &record, const RecordPtr &previous);
    // Removes the object and emits DELETED carrying `last` with the deletion's RV.
    RecordPtr commitDelete(const TypeEntry &type, const RecordPtr &last);

    // --- revisions and history ---
    qint64 revision() const { return m_revision; }
    // The revision a write about to be stored gets.
    qint64 nextRevision() { return ++m_revision; }
    qint64 compactedRevision() const { return m_compactedRevision; }
    const std::deque<ClusterEvent> &history() const { return m_history; }
    void setHistoryWindow(int events);
    int historyWindow() const { return m_historyWindow; }
    void compact();
    // The bucket's content at revision `rv` (>= compactedRevision()), in key order from
    // `startKey`, until `visit` returns false.
    void forEachAt(const Bucket &bucket,
                   qint64 rv,
                   const std::string &startKey,
                   const std::function<bool(const RecordPtr &)> &visit) const;

    // What the storage codec does to a custom resource written in a version other than the
    // storage one: converted (strategy None changes the apiVersion alone), it is coerced to the
    // storage version's schema (StructuralSchema::coerce), losing what that version does not
    // declare. `object` keeps the request's apiVersion.
    void coerceForStorage(const TypeEntry &type, nlohmann::json &object) const;

    // --- rendering ---
    // The record in `type`'s version: its stored bytes when stored in it, else re-rendered.
    QByteArray renderRecord(const TypeEntry &type, const RecordPtr &record) const;
    nlohmann::json parseRecord(const TypeEntry &type, const RecordPtr &record) const;
    // The record as an item of a list: a custom resource as renderRecord() gives it (unstructured
    // lists keep each item's apiVersion and kind); a built-in object without them, as the typed
    // list encoder of kube-apiserver writes its items.
    QByteArray renderListItem(const TypeEntry &type, const RecordPtr &record) const;
    static void dropListItemTypeMeta(const TypeEntry &type, nlohmann::json &item);
    // result.objectJson and (unless options.returnObject is false) result.object from a record.
    void setCommittedObject(WriteResult &result,
                            const TypeEntry &type,
                            const RecordPtr &record,
                            const WriteOptions &options) const;

    // --- fan-out ---
    void addObserver(StoreObserver *observer) { m_observers.push_back(observer); }
    void addWatch(ClusterWatch *watch);
    void removeWatch(ClusterWatch *watch);
    int watchCount() const { return int(m_watches.size()); }
    // Ends every watch without notifying its sink (the cluster goes away).
    void endWatches();
    int subscribe(std::function<void(const ClusterEvent &)> callback);
    void unsubscribe(int id);

private:
    void appendEvent(ClusterEvent event);
    void trimHistory();

    std::function<void()> m_typesChanged;
    const ClusterClock *m_clock = nullptr;
    qint64 m_revision = 0;
    qint64 m_compactedRevision = 0;
    int m_historyWindow = 10000;
    std::deque<ClusterEvent> m_history;
    quint64 m_lastTypeSerial = 0;

    QList<TypePtr> m_types; // in registration order
    QHash<QString, Bucket> m_buckets; // by storage key
    QHash<QString, QPair<QString, std::string>> m_uidIndex; // uid -> (storage key, object key)
    QMultiHash<QString, QString> m_dependents; // owner uid -> dependent uid

    std::vector<StoreObserver *> m_observers;
    std::vector<ClusterWatch *> m_watches;
    std::map<int, std::function<void(const ClusterEvent &)>> m_subscribers;
    int m_nextSubscriber = 1;
};

} // namespace reconscope::controller::cluster
