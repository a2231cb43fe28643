#include "controller/cluster/registry/store.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/clusterwatch.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/fieldmanagers.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ResourceRef;

QString timestampNow(const ClusterClock &clock)
{
    QDateTime now = clock().toUTC();
    now.setTime(QTime(now.time().hour(), now.time().minute(), now.time().second()));
    return now.toString(Qt::ISODate);
}

QString storageKeyOf(const QString &group, const QString &plural)
{
    return group + u'/' + plural;
}

bool isCrdType(const ResourceType &type)
{
    return type.builtin && type.plural == u"customresourcedefinitions";
}

bool isNamespaceType(const ResourceType &type)
{
    return type.builtin && type.group.isEmpty() && type.plural == u"namespaces";
}

Store::Store(std::function<void()> typesChanged)
    : m_typesChanged(std::move(typesChanged))
{ }

Store::~Store() = default;

// ---------------------------------------------------------------------------------------------
// registry

TypePtr Store::lookup(const QString &group, const QString &version, const QString &plural) const
{
    for (const TypePtr &entry : m_types) {
        if (entry->type.served && entry->type.plural == plural && entry->type.group == group
            && entry->type.version == version)
            return entry;
    }
    return {};
}

TypePtr Store::lookup(const ResourceRef &ref) const
{
    return lookup(ref.group, ref.version, ref.plural);
}

TypePtr Store::storageTypeFor(const QString &storageKey) const
{
    TypePtr any;
    for (const TypePtr &entry : m_types) {
        if (entry->storageKey != storageKey)
            continue;
        if (entry->type.storage)
            return entry;
        if (!any)
            any = entry;
    }
    return any;
}

void Store::registerTypes(const QList<ResourceType> &types)
{
    if (types.isEmpty())
        return;
    QString storageVersion;
    for (const ResourceType &type : types) {
        if (type.storage || types.size() == 1)
            storageVersion = type.version;
    }
    const QString group = types.first().group;
    const QString plural = types.first().plural;
    const QString storageKey = storageKeyOf(group, plural);
    // Replace any earlier registration of this group/resource, keeping its position.
    QList<TypePtr> earlier;
    qsizetype position = -1;
    for (qsizetype i = 0; i < m_types.size(); ++i) {
        if (m_types[i]->storageKey == storageKey) {
            if (position < 0)
                position = i;
            earlier.append(m_types[i]);
            m_types.removeAt(i--);
        }
    }
    if (position < 0)
        position = m_types.size();
    Bucket &target = m_buckets[storageKey];
    target.storageKey = storageKey;
    target.group = group;
    target.plural = plural;
    target.namespaced = types.first().namespaced;
    target.storageApiVersion = group.isEmpty() ? storageVersion : group + u'/' + storageVersion;
    target.selectableFields.clear();
    if (types.first().builtin)
        target.selectableFields = builtinSelectableFields(types.first());
    for (const ResourceType &type : types) {
        auto entry = std::make_shared<TypeEntry>();
        entry->type = type;
        entry->storageKey = storageKey;
        entry->storageVersion = storageVersion;
        if (!type.schema.is_null()) {
            auto schema = StructuralSchema::fromJson(type.schema);
            if (schema)
                entry->schema = *schema;
        }
        for (const TypePtr &before : earlier) {
            if (before->type.version == type.version && before->storageVersion == storageVersion
                && before->type.kind == type.kind
                && before->type.schema.dump(-1, ' ', false, json::error_handler_t::replace)
                    == type.schema.dump(-1, ' ', false, json::error_handler_t::replace))
                entry->serial = before->serial;
        }
        for (const TypePtr &before : earlier) {
            if (entry->serial != 0 && before->serial == entry->serial
                && before->type.statusSubresource == type.statusSubresource)
                entry->fieldManagers = before->fieldManagers;
        }
        if (entry->serial == 0)
            entry->serial = ++m_lastTypeSerial;
        if (!entry->fieldManagers) {
            const ClusterClock *const *clock = &m_clock;
            entry->fieldManagers = makeFieldManagers(type, [clock]() {
                return *clock && **clock ? (**clock)() : QDateTime::currentDateTimeUtc();
            });
        }
        // Writes in another version are coerced to the storage version's schema first.
        entry->statusInPlace = !type.builtin && type.statusSubresource && !type.schema.is_null()
            && type.version == storageVersion && entry->schema.checksMembersAlone();
        for (const QString &field : type.selectableFields) {
            if (!target.selectableFields.contains(field))
                target.selectableFields.append(field);
        }
        m_types.insert(position++, entry);
    }
    if (m_typesChanged)
        m_typesChanged();
}

void Store::unregisterGroupResource(const QString &group, const QString &plural)
{
    const QString storageKey = storageKeyOf(group, plural);
    m_types.removeIf([&](const TypePtr &entry) { return entry->storageKey == storageKey; });
    const std::vector<ClusterWatch *> watches = m_watches;
    for (ClusterWatch *watch : watches) {
        if (watch->storageKey() == storageKey)
            watch->end(true);
    }
    m_buckets.remove(storageKey);
    if (m_typesChanged)
        m_typesChanged();
}

// ---------------------------------------------------------------------------------------------
// objects

const Bucket *Store::findBucket(const QString &storageKey) const
{
    auto it = m_buckets.constFind(storageKey);
    return it == m_buckets.constEnd() ? nullptr : &it.value();
}

std::string Store::objectKey(const QString &ns, const QString &name)
{
    return ns.isEmpty() ? name.toStdString() : (ns + u'/' + name).toStdString();
}

RecordPtr Store::find(const TypeEntry &type, const QString &ns, const QString &name) const
{
    const Bucket *b = findBucket(type.storageKey);
    if (!b)
        return {};
    auto it = b->objects.find(objectKey(type.type.namespaced ? ns : QString(), name));
    return it == b->objects.end() ? RecordPtr() : it->second;
}

std::pair<TypePtr, RecordPtr> Store::locate(const QString &uid) const
{
    auto it = m_uidIndex.constFind(uid);
    if (it == m_uidIndex.constEnd())
        return {};
    TypePtr type = storageTypeFor(it->first);
    const Bucket *b = findBucket(it->first);
    if (!type || !b)
        return {};
    auto object = b->objects.find(it->second);
    if (object == b->objects.end())
        return {};
    return { type, object->second };
}

qsizetype Store::objectCount() const
{
    qsizetype count = 0;
    for (const Bucket &b : m_buckets)
        count += qsizetype(b.objects.size());
    return count;
}

std::shared_ptr<ObjectRecord>
Store::makeRecord(const Bucket &b, const json &object, qint64 rv, QByteArray bytes) const
{
    auto record = std::make_shared<ObjectRecord>();
    const json &metadata = objectjson::member(object, "metadata");
    record->ns = objectjson::string(metadata, "namespace");
    record->name = objectjson::string(metadata, "name");
    record->uid = objectjson::string(metadata, "uid");
    record->key = objectKey(b.namespaced ? record->ns : QString(), record->name);
    record->resourceVersion = rv;
    record->json = bytes.isNull() ? objectjson::dump(object) : std::move(bytes);
    const json &labels = objectjson::member(metadata, "labels");
    if (labels.is_object()) {
        for (auto it = labels.begin(); it != labels.end(); ++it) {
            record->labels.emplace_back(
                QString::fromStdString(it.key()),
                it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString());
        }
        std::sort(record->labels.begin(), record->labels.end());
    }
    for (const QString &field : b.selectableFields)
        record->fields.emplace_back(field.mid(1), objectjson::fieldValue(object, field));
    const json &owners = objectjson::member(metadata, "ownerReferences");
    if (owners.is_array()) {
        for (const json &owner : owners) {
            const QString uid = objectjson::string(owner, "uid");
            if (!uid.isEmpty())
                record->ownerUids.append(uid);
        }
    }
    record->finalizers = objectjson::strings(objectjson::member(metadata, "finalizers"));
    record->deleting
        = metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null();
    return record;
}

RecordPtr Store::commitPut(const TypeEntry &type,
                           json object,
                           const RecordPtr &previous,
                           const SerializedObject *serialized,
                           quint64 schemaStamp)
{
    Bucket &b = bucket(type);
    const qint64 rv = ++m_revision;
    const std::string rvText = std::to_string(rv);
    const std::string storageApiVersion = b.storageApiVersion.toStdString();
    QByteArray bytes;
    if (serialized && serialized->resourceVersionAt >= 0
        && objectjson::member(object, "apiVersion") == storageApiVersion) {
        // The same serialization with the new resourceVersion string in place of the old one.
        const QByteArrayView before(serialized->bytes);
        const qsizetype end = serialized->resourceVersionAt + serialized->resourceVersionLength;
        bytes.reserve(before.size() + qsizetype(rvText.size()));
        bytes.append(before.first(serialized->resourceVersionAt))
            .append('"')
            .append(rvText.data(), qsizetype(rvText.size()))
            .append('"')
            .append(before.sliced(end));
    }
    object["metadata"]["resourceVersion"] = rvText;
    object["apiVersion"] = storageApiVersion;
    auto made = makeRecord(b, object, rv, std::move(bytes));
    made->schemaStamp = schemaStamp;
    storeRecord(type, made, previous);
    return made;
}

void Store::storeRecord(const TypeEntry &type, const RecordPtr &record, const RecordPtr &previous)
{
    Bucket &b = bucket(type);
    const qint64 rv = record->resourceVersion;
    if (!previous && b.namespaced)
        ++b.namespaceCounts[record->ns];
    b.objects[record->key] = record;
    if (previous) {
        for (const QString &owner : previous->ownerUids)
            m_dependents.remove(owner, previous->uid);
    }
    for (const QString &owner : record->ownerUids)
        m_dependents.insert(owner, record->uid);
    // Unchanged for a new version of the same object (the entry is its previous version's).
    if (!previous || previous->uid != record->uid || previous->key != record->key)
        m_uidIndex.insert(record->uid, { b.storageKey, record->key });

    for (StoreObserver *observer : m_observers)
        observer->recordStored(type, record, previous);

    appendEvent(ClusterEvent{
        rv, previous ? EventType::Modified : EventType::Added, b.storageKey, record, previous });
}

RecordPtr Store::commitDelete(const TypeEntry &type, const RecordPtr &last)
{
    Bucket &b = bucket(type);
    const qint64 rv = ++m_revision;
    if (b.objects.erase(last->key) && b.namespaced && --b.namespaceCounts[last->ns] <= 0)
        b.namespaceCounts.remove(last->ns);
    m_uidIndex.remove(last->uid);
    for (const QString &owner : last->ownerUids)
        m_dependents.remove(owner, last->uid);
    for (StoreObserver *observer : m_observers)
        observer->recordDeleted(type, last);

    json object = objectjson::parseStored(last->json);
    object["metadata"]["resourceVersion"] = std::to_string(rv);
    auto record = std::make_shared<ObjectRecord>(*last);
    record->resourceVersion = rv;
    record->json = objectjson::dump(object);
    appendEvent(ClusterEvent{ rv, EventType::Deleted, b.storageKey, record, last });
    return record;
}

void Store::appendEvent(ClusterEvent event)
{
    m_history.push_back(event);
    trimHistory();
    // Keep each watch alive while it writes: a sink may drop its stream from inside send().
    std::vector<std::shared_ptr<ClusterWatch>> watches;
    watches.reserve(m_watches.size());
    for (ClusterWatch *watch : m_watches) {
        if (auto alive = watch->weak_from_this().lock())
            watches.push_back(std::move(alive));
    }
    for (const auto &watch : watches) {
        if (std::find(m_watches.begin(), m_watches.end(), watch.get()) != m_watches.end())
            watch->deliver(event);
    }
    const auto subscribers = m_subscribers;
    for (const auto &[id, callback] : subscribers) {
        if (m_subscribers.contains(id))
            callback(event);
    }
}

// ---------------------------------------------------------------------------------------------
// revisions and history

void Store::trimHistory()
{
    while (qsizetype(m_history.size()) > std::max(0, m_historyWindow)) {
        m_compactedRevision = m_history.front().resourceVersion;
        m_history.pop_front();
    }
}

void Store::setHistoryWindow(int events)
{
    m_historyWindow = std::max(0, events);
    trimHistory();
}

void Store::compact()
{
    m_history.clear();
    m_compactedRevision = m_revision;
}

void Store::forEachAt(const Bucket &b,
                      qint64 rv,
                      const std::string &startKey,
                      const std::function<bool(const RecordPtr &)> &visit) const
{
    auto current = b.objects.lower_bound(startKey);
    if (rv >= m_revision) {
        for (; current != b.objects.end(); ++current) {
            if (!visit(current->second))
                return;
        }
        return;
    }
    // The state at `rv`: objects changed later are replaced by what they were before the first
    // later change (nothing, if that change created them).
    std::map<std::string, RecordPtr> overlay;
    for (auto it = m_history.rbegin(); it != m_history.rend() && it->resourceVersion > rv; ++it) {
        if (it->storageKey == b.storageKey)
            overlay[it->object->key] = it->previous;
    }
    auto changed = overlay.lower_bound(startKey);
    while (current != b.objects.end() || changed != overlay.end()) {
        const bool takeChanged = changed != overlay.end()
            && (current == b.objects.end() || changed->first <= current->first);
        if (takeChanged) {
            if (current != b.objects.end() && current->first == changed->first)
                ++current;
            const RecordPtr record = changed->second;
            ++changed;
            if (record && !visit(record))
                return;
        } else {
            if (!visit(current->second))
                return;
            ++current;
        }
    }
}

void Store::coerceForStorage(const TypeEntry &type, json &object) const
{
    if (type.type.builtin || type.type.version == type.storageVersion)
        return;
    const TypePtr storage = storageTypeFor(type.storageKey);
    if (storage && storage->type.version == type.storageVersion)
        storage->schema.coerce(object);
}

QByteArray Store::renderRecord(const TypeEntry &type, const RecordPtr &record) const
{
    // Stored JSON is key-sorted, so it starts with the apiVersion it was written with (the
    // storage version at the time; a CRD update may have moved it since).
    if (objectjson::hasApiVersion(record->json, type.type.groupVersion()))
        return record->json;
    json object = objectjson::parseStored(record->json);
    object["apiVersion"] = type.type.groupVersion().toStdString();
    return objectjson::dump(object);
}

json Store::parseRecord(const TypeEntry &type, const RecordPtr &record) const
{
    json object = objectjson::parseStored(record->json);
    object["apiVersion"] = type.type.groupVersion().toStdString();
    return object;
}

QByteArray Store::renderListItem(const TypeEntry &type, const RecordPtr &record) const
{
    if (!type.type.builtin)
        return renderRecord(type, record);
    json object = objectjson::parseStored(record->json);
    dropListItemTypeMeta(type, object);
    return objectjson::dump(object);
}

void Store::dropListItemTypeMeta(const TypeEntry &type, json &item)
{
    if (!type.type.builtin)
        return;
    item.erase("apiVersion");
    item.erase("kind");
}

void Store::setCommittedObject(WriteResult &result,
                               const TypeEntry &type,
                               const RecordPtr &record,
                               const WriteOptions &options) const
{
    result.objectJson = renderRecord(type, record);
    if (options.returnObject)
        result.object = objectjson::parseStored(result.objectJson);
}

int Store::subscribe(std::function<void(const ClusterEvent &)> callback)
{
    const int id = m_nextSubscriber++;
    m_subscribers.emplace(id, std::move(callback));
    return id;
}

void Store::unsubscribe(int id)
{
    m_subscribers.erase(id);
}

void Store::addWatch(ClusterWatch *watch)
{
    m_watches.push_back(watch);
}

void Store::removeWatch(ClusterWatch *watch)
{
    m_watches.erase(std::remove(m_watches.begin(), m_watches.end(), watch), m_watches.end());
}

void Store::endWatches()
{
    const std::vector<ClusterWatch *> watches = m_watches;
    for (ClusterWatch *watch : watches)
        watch->end(false);
    m_watches.clear();
}

} // namespace reconscope::controller::cluster
