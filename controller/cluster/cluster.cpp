#include "controller/cluster/cluster.h"

#include "controller/cluster/builtintypes.h"
#include "controller/cluster/clusterwatch.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/crd.h"
#include "controller/cluster/yamldocuments.h"

#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QUuid>

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

// etcd refuses a write above its --max-request-bytes (1.5 MiB by default) with "etcdserver:
// request is too large", which kube-apiserver passes on as a 500 Status without a reason
// (kubernetes/kubernetes#112152); request bodies above 3 MiB are refused before, with 413.
constexpr qsizetype maxStoredObjectBytes = 1536 * 1024;

std::optional<ApiError> storageSizeError(qsizetype bytes)
{
    if (bytes <= maxStoredObjectBytes)
        return std::nullopt;
    return ApiError::internal(u"etcdserver: request is too large"_s);
}

const QString kOrphanFinalizer = u"orphan"_s;
const QString kForegroundFinalizer = u"foregroundDeletion"_s;
const QString kCrdCleanupFinalizer = u"customresourcecleanup.apiextensions.k8s.io"_s;
const QString kNamespaceFinalizer = u"kubernetes"_s;
const char *const kCrdGroup = "apiextensions.k8s.io";

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

QString randomSuffix()
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString suffix;
    for (int i = 0; i < 5; ++i)
        suffix += QChar::fromLatin1(alphabet[QRandomGenerator::global()->bounded(27)]);
    return suffix;
}

const QRegularExpression &dns1123Subdomain()
{
    static const QRegularExpression re(
        u"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"_s);
    return re;
}

const QRegularExpression &dns1123Label()
{
    static const QRegularExpression re(u"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"_s);
    return re;
}

QList<FieldError> validateName(const QString &name, bool label)
{
    if (name.isEmpty())
        return {};
    if (label) {
        if (name.size() > 63)
            return { { u"FieldValueInvalid"_s,
                       u"metadata.name"_s,
                       u"Invalid value: \"%1\": must be no more than 63 characters"_s.arg(name) } };
        if (!dns1123Label().match(name).hasMatch())
            return {
                { u"FieldValueInvalid"_s,
                  u"metadata.name"_s,
                  u"Invalid value: \"%1\": a lowercase RFC 1123 label must consist of lower case "
                  "alphanumeric characters or '-', and must start and end with an alphanumeric "
                  "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"_s.arg(name) }
            };
        return {};
    }
    if (name.size() > 253)
        return { { u"FieldValueInvalid"_s,
                   u"metadata.name"_s,
                   u"Invalid value: \"%1\": must be no more than 253 characters"_s.arg(name) } };
    if (!dns1123Subdomain().match(name).hasMatch())
        return {
            { u"FieldValueInvalid"_s,
              u"metadata.name"_s,
              u"Invalid value: \"%1\": a lowercase RFC 1123 subdomain must consist of lower case "
              "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
              "character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s.arg(name) }
        };
    return {};
}

QString goStringSlice(const QStringList &values)
{
    QStringList quoted;
    for (const QString &value : values)
        quoted << u'"' + value + u'"';
    return u"[]string{"_s + quoted.join(u", "_s) + u'}';
}

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

// The controllers' work queues hold plain values; these identify an object across writes.
struct ObjectId
{
    QString storageKey;
    std::string key;
};

} // namespace

// ---------------------------------------------------------------------------------------------
// construction and registry

Cluster::Cluster(QObject *parent, bool installCustomAppCrd)
    : QObject(parent)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    installBuiltins();
    if (installCustomAppCrd) {
        QFile file(u":/crds/customapps.infrastructure.internal.net.yaml"_s);
        if (file.open(QIODevice::ReadOnly)) {
            auto documents = yamlDocumentsToJson(file.readAll());
            if (documents && !documents->isEmpty())
                installCrdObject(documents->first());
        }
    }
}

Cluster::~Cluster()
{
    const std::vector<ClusterWatch *> watches = m_watches;
    for (ClusterWatch *watch : watches)
        watch->end(false);
    m_watches.clear();
}

void Cluster::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

QString Cluster::nowTimestamp() const
{
    QDateTime now = m_clock().toUTC();
    now.setTime(QTime(now.time().hour(), now.time().minute(), now.time().second()));
    return now.toString(Qt::ISODate);
}

void Cluster::installBuiltins()
{
    for (const ResourceType &type : builtinResourceTypes())
        registerTypes({ type });
    for (const QString &name :
         { u"default"_s, u"kube-node-lease"_s, u"kube-public"_s, u"kube-system"_s }) {
        auto result = create(ResourceRef{ {}, u"v1"_s, u"namespaces"_s },
                             {},
                             json{ { "apiVersion", "v1" },
                                   { "kind", "Namespace" },
                                   { "metadata", { { "name", name.toStdString() } } } });
        Q_ASSERT(result.ok());
    }
}

void Cluster::installCrdObject(const json &crd)
{
    auto result = create(
        ResourceRef{ u"apiextensions.k8s.io"_s, u"v1"_s, u"customresourcedefinitions"_s }, {}, crd);
    if (!result)
        qWarning("cluster: cannot install CRD: %s", qPrintable(result.error().message));
}

QList<ResourceType> Cluster::servedTypes() const
{
    QList<ResourceType> types;
    for (const TypePtr &entry : m_types) {
        if (entry->type.served)
            types.append(entry->type);
    }
    return types;
}

std::optional<ResourceType> Cluster::findType(const ResourceRef &ref) const
{
    if (TypePtr entry = lookup(ref))
        return entry->type;
    return std::nullopt;
}

Cluster::TypePtr
Cluster::lookup(const QString &group, const QString &version, const QString &plural) const
{
    for (const TypePtr &entry : m_types) {
        if (entry->type.served && entry->type.plural == plural && entry->type.group == group
            && entry->type.version == version)
            return entry;
    }
    return {};
}

Cluster::TypePtr Cluster::lookup(const ResourceRef &ref) const
{
    return lookup(ref.group, ref.version, ref.plural);
}

Cluster::TypePtr Cluster::storageTypeFor(const QString &storageKey) const
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

void Cluster::registerTypes(const QList<ResourceType> &types)
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
        if (entry->serial == 0)
            entry->serial = ++m_lastTypeSerial;
        entry->statusInPlace = !type.builtin && type.statusSubresource && !type.schema.is_null()
            && entry->schema.checksMembersAlone();
        for (const QString &field : type.selectableFields) {
            if (!target.selectableFields.contains(field))
                target.selectableFields.append(field);
        }
        m_types.insert(position++, entry);
    }
    emit resourceTypesChanged();
}

void Cluster::unregisterGroupResource(const QString &group, const QString &plural)
{
    const QString storageKey = storageKeyOf(group, plural);
    m_types.removeIf([&](const TypePtr &entry) { return entry->storageKey == storageKey; });
    const std::vector<ClusterWatch *> watches = m_watches;
    for (ClusterWatch *watch : watches) {
        if (watch->storageKey() == storageKey)
            watch->end(true);
    }
    m_buckets.remove(storageKey);
    emit resourceTypesChanged();
}

// ---------------------------------------------------------------------------------------------
// storage

Cluster::Bucket &Cluster::bucket(const TypeEntry &type)
{
    return m_buckets[type.storageKey];
}

const Cluster::Bucket *Cluster::findBucket(const QString &storageKey) const
{
    auto it = m_buckets.constFind(storageKey);
    return it == m_buckets.constEnd() ? nullptr : &it.value();
}

std::string Cluster::objectKey(const QString &ns, const QString &name)
{
    return ns.isEmpty() ? name.toStdString() : (ns + u'/' + name).toStdString();
}

RecordPtr Cluster::find(const TypeEntry &type, const QString &ns, const QString &name) const
{
    const Bucket *b = findBucket(type.storageKey);
    if (!b)
        return {};
    auto it = b->objects.find(objectKey(type.type.namespaced ? ns : QString(), name));
    return it == b->objects.end() ? RecordPtr() : it->second;
}

qsizetype Cluster::objectCount() const
{
    qsizetype count = 0;
    for (const Bucket &b : m_buckets)
        count += qsizetype(b.objects.size());
    return count;
}

std::shared_ptr<ObjectRecord>
Cluster::makeRecord(const Bucket &b, const json &object, qint64 rv, QByteArray bytes) const
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

RecordPtr Cluster::commitPut(const TypeEntry &type,
                             json object,
                             const RecordPtr &previous,
                             const Serialized *serialized,
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

void Cluster::storeRecord(const TypeEntry &type, const RecordPtr &record, const RecordPtr &previous)
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

    if (record->deleting
        && (record->finalizers.contains(kOrphanFinalizer)
            || record->finalizers.contains(kForegroundFinalizer)))
        m_gcQueue.append(record->uid);
    if (record->deleting && isNamespaceType(type.type))
        m_terminatingNamespaces.insert(record->name);
    if (record->deleting && isCrdType(type.type))
        m_terminatingCrds.insert(record->name);

    appendEvent(ClusterEvent{
        rv, previous ? EventType::Modified : EventType::Added, b.storageKey, record, previous });
}

RecordPtr Cluster::commitDelete(const TypeEntry &type, const RecordPtr &last)
{
    Bucket &b = bucket(type);
    const qint64 rv = ++m_revision;
    if (b.objects.erase(last->key) && b.namespaced && --b.namespaceCounts[last->ns] <= 0)
        b.namespaceCounts.remove(last->ns);
    m_uidIndex.remove(last->uid);
    for (const QString &owner : last->ownerUids) {
        m_dependents.remove(owner, last->uid);
        m_gcQueue.append(owner); // a foreground owner may be waiting for this dependent
    }
    if (m_dependents.contains(last->uid))
        m_orphanedOwners.append(last->uid);
    if (!last->ns.isEmpty() && m_terminatingNamespaces.contains(last->ns))
        m_controllersPending = true;

    json object = objectjson::parseStored(last->json);
    object["metadata"]["resourceVersion"] = std::to_string(rv);
    auto record = std::make_shared<ObjectRecord>(*last);
    record->resourceVersion = rv;
    record->json = objectjson::dump(object);
    appendEvent(ClusterEvent{ rv, EventType::Deleted, b.storageKey, record, last });
    return record;
}

void Cluster::appendEvent(ClusterEvent event)
{
    m_history.push_back(event);
    trimHistory();
    m_controllersPending = true;
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

void Cluster::trimHistory()
{
    while (qsizetype(m_history.size()) > std::max(0, m_historyWindow)) {
        m_compactedRevision = m_history.front().resourceVersion;
        m_history.pop_front();
    }
}

void Cluster::setHistoryWindow(int events)
{
    m_historyWindow = std::max(0, events);
    trimHistory();
}

void Cluster::compact()
{
    m_history.clear();
    m_compactedRevision = m_revision;
}

void Cluster::forEachAt(const Bucket &b,
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

QByteArray Cluster::renderRecord(const TypeEntry &type, const RecordPtr &record) const
{
    // Stored JSON is key-sorted, so it starts with the apiVersion it was written with (the
    // storage version at the time; a CRD update may have moved it since).
    if (objectjson::hasApiVersion(record->json, type.type.groupVersion()))
        return record->json;
    json object = objectjson::parseStored(record->json);
    object["apiVersion"] = type.type.groupVersion().toStdString();
    return objectjson::dump(object);
}

json Cluster::parseRecord(const TypeEntry &type, const RecordPtr &record) const
{
    json object = objectjson::parseStored(record->json);
    object["apiVersion"] = type.type.groupVersion().toStdString();
    return object;
}

void Cluster::setCommittedObject(WriteResult &result,
                                 const TypeEntry &type,
                                 const RecordPtr &record,
                                 const WriteOptions &options) const
{
    result.objectJson = renderRecord(type, record);
    if (options.returnObject)
        result.object = objectjson::parseStored(result.objectJson);
}

int Cluster::subscribe(std::function<void(const ClusterEvent &)> callback)
{
    const int id = m_nextSubscriber++;
    m_subscribers.emplace(id, std::move(callback));
    return id;
}

void Cluster::unsubscribe(int id)
{
    m_subscribers.erase(id);
}

// ---------------------------------------------------------------------------------------------
// in-process verbs

namespace {

ApiError unknownResource(const ResourceRef &ref)
{
    return ApiError::notFound(ref.group, ref.plural, {});
}

} // namespace

ApiResult<json> Cluster::get(const ResourceRef &ref, const QString &ns, const QString &name) const
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    auto record = getRecord(*type, ns, name);
    if (!record)
        return record.error();
    json object = parseRecord(*type, *record);
    m_lastRead = LastRead{ *record, type, object };
    return object;
}

json Cluster::takeParsed(const TypePtr &type, const RecordPtr &record) const
{
    if (m_lastRead.record != record || m_lastRead.type != type)
        return parseRecord(*type, record);
    json object = std::move(m_lastRead.object);
    m_lastRead = {};
    return object;
}

ApiResult<json>
Cluster::list(const ResourceRef &ref, const QString &ns, const ListOptions &options) const
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    auto page = listRecords(*type, ns, options);
    if (!page)
        return page.error();
    json items = json::array();
    for (const RecordPtr &record : page->items)
        items.push_back(parseRecord(*type, record));
    json metadata = { { "continue", page->continueToken.toStdString() },
                      { "resourceVersion", std::to_string(page->resourceVersion) } };
    if (page->remainingItemCount)
        metadata["remainingItemCount"] = *page->remainingItemCount;
    return json{ { "apiVersion", type->type.groupVersion().toStdString() },
                 { "items", std::move(items) },
                 { "kind", type->type.listKind.toStdString() },
                 { "metadata", std::move(metadata) } };
}

ApiResult<WriteResult>
Cluster::create(const ResourceRef &ref, const QString &ns, json object, const WriteOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    return doCreate(type, ns, std::move(object), options);
}

ApiResult<WriteResult> Cluster::update(const ResourceRef &ref,
                                       const QString &ns,
                                       const QString &name,
                                       json object,
                                       const WriteOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    return doUpdate(type, ns, name, std::move(object), false, options);
}

ApiResult<WriteResult> Cluster::updateStatus(const ResourceRef &ref,
                                             const QString &ns,
                                             const QString &name,
                                             json object,
                                             const WriteOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type || !type->type.statusSubresource)
        return unknownResource(ref);
    return doUpdate(type, ns, name, std::move(object), true, options);
}

ApiResult<WriteResult> Cluster::patch(const ResourceRef &ref,
                                      const QString &ns,
                                      const QString &name,
                                      PatchType patchType,
                                      const QByteArray &patchBody,
                                      bool statusSubresource,
                                      const WriteOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type || (statusSubresource && !type->type.statusSubresource))
        return unknownResource(ref);
    return doPatch(type, ns, name, patchType, patchBody, statusSubresource, options);
}

ApiResult<WriteResult> Cluster::remove(const ResourceRef &ref,
                                       const QString &ns,
                                       const QString &name,
                                       const DeleteOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    return doDelete(type, ns, name, options);
}

ApiResult<std::shared_ptr<WatchStream>>
Cluster::watch(const ResourceRef &ref, const QString &ns, const WatchOptions &options)
{
    TypePtr type = lookup(ref);
    if (!type)
        return unknownResource(ref);
    return doWatch(type, ns, options);
}

// ---------------------------------------------------------------------------------------------
// reads

ApiResult<RecordPtr>
Cluster::getRecord(const TypeEntry &type, const QString &ns, const QString &name) const
{
    RecordPtr record = find(type, ns, name);
    if (!record)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    return record;
}

ApiResult<Cluster::Selection> Cluster::parseSelection(const TypeEntry &type,
                                                      const QString &ns,
                                                      const QString &labelText,
                                                      const QString &fieldText) const
{
    Selection selection;
    selection.ns = type.type.namespaced ? ns : QString();
    auto labels = LabelSelector::parse(labelText);
    if (!labels)
        return ApiError::badRequest(labels.error().message);
    selection.labels = *labels;
    auto fields = FieldSelector::parse(fieldText);
    if (!fields)
        return ApiError::badRequest(fields.error().message);
    const Bucket *b = findBucket(type.storageKey);
    for (const FieldSelector::Term &term : fields->terms()) {
        const bool known = term.field == u"metadata.name"
            || (term.field == u"metadata.namespace" && type.type.namespaced)
            || (b && b->selectableFields.contains(u'.' + term.field));
        if (!known)
            return ApiError::badRequest(u"field label not supported: "_s + term.field);
    }
    selection.fields = *fields;
    return selection;
}

bool Cluster::Selection::matches(const ObjectRecord &record) const
{
    if (!ns.isEmpty() && record.ns != ns)
        return false;
    if (!labels.isEmpty() && !labels.matches(record.labels))
        return false;
    if (!fields.isEmpty()) {
        return fields.matches([&](const QString &field) -> QString {
            if (field == u"metadata.name")
                return record.name;
            if (field == u"metadata.namespace")
                return record.ns;
            for (const auto &[path, value] : record.fields) {
                if (path == field)
                    return value;
            }
            return {};
        });
    }
    return true;
}

namespace {

struct ContinueToken
{
    qint64 rv = 0;
    std::string start;
    qint64 served = 0; // items returned by the earlier pages (for remainingItemCount)
};

QString encodeContinue(qint64 rv, const std::string &start, qint64 served = 0)
{
    json token = { { "v", "meta.k8s.io/v1" }, { "rv", rv }, { "start", start } };
    if (served > 0)
        token["n"] = served;
    return QString::fromLatin1(
        QByteArray::fromStdString(token.dump())
            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

models::Result<ContinueToken> decodeContinue(const QString &text)
{
    using R = models::Result<ContinueToken>;
    auto decoded = QByteArray::fromBase64Encoding(
        text.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return R::failure(u"continue key is not valid: illegal base64 data"_s);
    json token
        = json::parse(decoded.decoded.constBegin(), decoded.decoded.constEnd(), nullptr, false);
    if (token.is_discarded() || !token.is_object())
        return R::failure(u"continue key is not valid: invalid character in token"_s);
    if (objectjson::string(token, "v") != u"meta.k8s.io/v1")
        return R::failure(
            u"continue key is not valid: server does not recognize this encoded version"_s);
    const json &rv = objectjson::member(token, "rv");
    if (!rv.is_number_integer() || rv.get<qint64>() == 0)
        return R::failure(
            u"continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"_s);
    const json &start = objectjson::member(token, "start");
    if (!start.is_string() || start.get<std::string>().empty())
        return R::failure(u"continue key is not valid: encoded start key empty"_s);
    const json &served = objectjson::member(token, "n");
    return ContinueToken{ rv.get<qint64>(),
                          start.get<std::string>(),
                          served.is_number_integer() ? served.get<qint64>() : 0 };
}

std::optional<qint64> parseResourceVersion(const QString &text)
{
    bool ok = false;
    const qulonglong value = text.toULongLong(&ok);
    if (!ok || text.startsWith(u'+') || text.startsWith(u' '))
        return std::nullopt;
    return qint64(value);
}

QString invalidRvMessage(const QString &text)
{
    return u"resourceVersion: Invalid value: \"%1\": strconv.ParseUint: parsing \"%1\": invalid syntax"_s
        .arg(text);
}

} // namespace

ApiResult<ListPage>
Cluster::listRecords(const TypeEntry &type, const QString &ns, const ListOptions &options) const
{
    auto selection = parseSelection(type, ns, options.labelSelector, options.fieldSelector);
    if (!selection)
        return selection.error();
    const bool hasSelector = !selection->labels.isEmpty() || !selection->fields.isEmpty();

    qint64 readRv = m_revision;
    std::string startKey;
    qint64 limit = options.limit > 0 ? options.limit : 0;
    const QString &rvText = options.resourceVersion;
    std::optional<qint64> requestedRv;
    qint64 servedBefore = 0;
    if (!rvText.isEmpty()) {
        requestedRv = parseResourceVersion(rvText);
        if (!requestedRv)
            return ApiError::badRequest(u"invalid resource version: "_s + invalidRvMessage(rvText));
    }
    if (!options.continueToken.isEmpty()) {
        if (!rvText.isEmpty() && rvText != u"0")
            return ApiError::badRequest(
                u"specifying resource version is not allowed when using continue"_s);
        auto token = decodeContinue(options.continueToken);
        if (!token)
            return ApiError::badRequest(u"invalid continue token: "_s + token.error().message);
        startKey = token->start;
        servedBefore = token->served;
        if (token->rv > 0) {
            if (token->rv < m_compactedRevision) {
                ApiError error = ApiError::expired(
                    u"The provided continue parameter is too old to display a consistent list "
                    u"result. "
                    "You can start a new list without the continue parameter, or use the continue "
                    "token in this response to retrieve the remainder of the results. Continuing "
                    "with the provided token results in an inconsistent list - objects that were "
                    "created, modified, or deleted between the time the first chunk was returned "
                    "and now may show up in the list."_s);
                error.metadata["continue"] = encodeContinue(-1, token->start).toStdString();
                return error;
            }
            readRv = std::min(token->rv, m_revision);
        }
    } else if (requestedRv && *requestedRv == 0) {
        limit = 0; // "any": served whole from the cache
    } else if (requestedRv) {
        const bool exact = options.resourceVersionMatch == u"Exact"
            || (options.resourceVersionMatch.isEmpty() && limit > 0);
        if (*requestedRv > m_revision)
            return ApiError::timeout(
                u"Too large resource version: %1, current: %2"_s.arg(*requestedRv).arg(m_revision),
                1);
        if (exact) {
            if (*requestedRv < m_compactedRevision)
                return ApiError::expired(
                    u"The resourceVersion for the provided list is too old."_s);
            readRv = *requestedRv;
        }
    }

    ListPage page;
    page.resourceVersion = readRv;
    const Bucket *b = findBucket(type.storageKey);
    if (!b)
        return page;
    std::string prefix;
    if (!selection->ns.isEmpty() && type.type.namespaced) {
        prefix = selection->ns.toStdString() + '/';
        if (startKey < prefix)
            startKey = prefix;
    }
    qint64 remaining = 0;
    bool more = false;
    if (limit == 0 && !hasSelector && prefix.empty())
        page.items.reserve(b->objects.size());
    forEachAt(*b, readRv, startKey, [&](const RecordPtr &record) {
        if (!prefix.empty() && record->key.compare(0, prefix.size(), prefix) != 0)
            return false;
        if (!selection->matches(*record))
            return true;
        if (limit > 0 && qint64(page.items.size()) >= limit) {
            more = true;
            // Without selectors every later object counts; at the latest revision they are
            // counted below straight from the map.
            if (hasSelector || readRv >= m_revision)
                return false;
            ++remaining;
            return true;
        }
        page.items.push_back(record);
        return true;
    });
    const qint64 served = servedBefore + qint64(page.items.size());
    if (more && !hasSelector && readRv >= m_revision) {
        // Nothing changed since the first page: the rest is what the scope holds minus what the
        // pages have returned so far.
        const qint64 total
            = prefix.empty() ? qint64(b->objects.size()) : b->namespaceCounts.value(selection->ns);
        remaining = std::max<qint64>(0, total - served);
    }
    if (more) {
        // `more` is only set once an item was taken (limit > 0): the last one is where to go on.
        page.continueToken = encodeContinue(readRv, page.items.back()->key + '\0', served);
        if (!hasSelector)
            page.remainingItemCount = remaining;
    }
    return page;
}

// ---------------------------------------------------------------------------------------------
// write helpers

std::optional<ApiError>
Cluster::checkTypeMeta(const TypeEntry &type, json &object, const QString &name) const
{
    const auto body = [&object] {
        return QString::fromUtf8(objectjson::dump(object));
    };
    const json &apiVersion = objectjson::member(object, "apiVersion");
    const json &kind = objectjson::member(object, "kind");
    if (type.type.builtin) {
        if (apiVersion.is_null()
            || (apiVersion.is_string() && apiVersion.get<std::string>().empty()))
            object["apiVersion"] = type.type.groupVersion().toStdString();
        if (kind.is_null() || (kind.is_string() && kind.get<std::string>().empty()))
            object["kind"] = type.type.kind.toStdString();
    } else {
        if (!kind.is_string() || kind.get<std::string>().empty())
            return ApiError::badRequest(u"Object 'Kind' is missing in '%1'"_s.arg(body()));
        if (!apiVersion.is_string() || apiVersion.get<std::string>().empty())
            return ApiError::badRequest(u"Object 'apiVersion' is missing in '%1'"_s.arg(body()));
    }
    const QString bodyApiVersion = objectjson::string(object, "apiVersion");
    if (bodyApiVersion != type.type.groupVersion())
        return ApiError::badRequest(
            u"the API version in the data (%1) does not match the expected API version (%2)"_s.arg(
                bodyApiVersion, type.type.groupVersion()));
    const QString bodyKind = objectjson::string(object, "kind");
    if (bodyKind != type.type.kind)
        return ApiError::invalid(
            type.type.group,
            type.type.kind,
            name,
            { { u"FieldValueInvalid"_s,
                u"kind"_s,
                u"Invalid value: \"%1\": must be %2"_s.arg(bodyKind, type.type.kind) } });
    if (object.contains("metadata") && !object["metadata"].is_object()
        && !object["metadata"].is_null())
        return ApiError::badRequest(u"metadata: must be an object"_s);
    if (!object.contains("metadata") || object["metadata"].is_null())
        object["metadata"] = json::object();
    return std::nullopt;
}

QList<FieldError>
Cluster::validateMetadata(const TypeEntry &type, const json &object, bool create) const
{
    QList<FieldError> errors;
    const json &metadata = objectjson::member(object, "metadata");
    const QString name = objectjson::string(metadata, "name");
    if (create && name.isEmpty() && objectjson::string(metadata, "generateName").isEmpty())
        errors.append({ u"FieldValueRequired"_s,
                        u"metadata.name"_s,
                        u"Required value: name or generateName is required"_s });
    errors.append(validateName(name, isNamespaceType(type.type)));
    static const QRegularExpression labelValue(u"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"_s);
    static const QRegularExpression qualifiedName(u"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"_s);
    const json &labels = objectjson::member(metadata, "labels");
    if (labels.is_object()) {
        for (auto it = labels.begin(); it != labels.end(); ++it) {
            const QString key = QString::fromStdString(it.key());
            const QString keyName = key.section(u'/', -1);
            const QString prefix = key.contains(u'/') ? key.section(u'/', 0, -2) : QString();
            if (keyName.isEmpty() || keyName.size() > 63 || !qualifiedName.match(keyName).hasMatch()
                || (key.contains(u'/')
                    && (prefix.isEmpty() || !dns1123Subdomain().match(prefix).hasMatch())))
                errors.append(
                    { u"FieldValueInvalid"_s,
                      u"metadata.labels"_s,
                      u"Invalid value: \"%1\": name part must consist of alphanumeric characters, "
                      "'-', '_' or '.', and must start and end with an alphanumeric character "
                      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"_s.arg(key) });
            const QString value
                = it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
            if (!it->is_string() || value.size() > 63 || !labelValue.match(value).hasMatch())
                errors.append(
                    { u"FieldValueInvalid"_s,
                      u"metadata.labels"_s,
                      u"Invalid value: \"%1\": a valid label must be an empty string or consist of "
                      "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                      "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s.arg(
                          value) });
        }
    } else if (!labels.is_null()) {
        errors.append({ u"FieldValueTypeInvalid"_s,
                        u"metadata.labels"_s,
                        u"Invalid value: must be an object"_s });
    }
    return errors;
}

std::optional<ApiError> Cluster::applySchema(const TypeEntry &type,
                                             json &object,
                                             const WriteOptions &options,
                                             QStringList &warnings,
                                             bool patch) const
{
    if (type.type.schema.is_null())
        return std::nullopt;
    const QStringList unknown = type.schema.prune(object);
    if (!unknown.isEmpty()) {
        if (options.fieldValidation == FieldValidation::Strict) {
            QStringList parts;
            for (const QString &field : unknown)
                parts << u"unknown field \"%1\""_s.arg(field);
            // Decoding a create/update body names the kind; a patch result does not.
            const QString prefix = patch
                ? QString()
                : u"%1 in version \"%2\" cannot be handled as a %1: "_s.arg(type.type.kind,
                                                                            type.type.version);
            return ApiError::badRequest(prefix + u"strict decoding error: "_s
                                        + parts.join(u", "_s));
        }
        if (options.fieldValidation == FieldValidation::Warn) {
            for (const QString &field : unknown)
                warnings << u"unknown field \"%1\""_s.arg(field);
        }
    }
    type.schema.applyDefaults(object);
    return std::nullopt;
}

std::optional<ApiError>
Cluster::admitNamespace(const TypeEntry &type, const QString &ns, const QString &name) const
{
    if (!type.type.namespaced)
        return std::nullopt;
    const Bucket *namespaces = findBucket(u"/namespaces"_s);
    RecordPtr record;
    if (namespaces) {
        auto it = namespaces->objects.find(ns.toStdString());
        if (it != namespaces->objects.end())
            record = it->second;
    }
    if (!record)
        return ApiError::notFound({}, u"namespaces"_s, ns);
    if (record->deleting)
        return ApiError::forbidden(
            type.type.group,
            type.type.plural,
            name,
            u"unable to create new content in namespace %1 because it is being terminated"_s.arg(
                ns));
    return std::nullopt;
}

void Cluster::prepareBuiltinForCreate(const TypeEntry &type, json &object) const
{
    if (isNamespaceType(type.type)) {
        json &metadata = object["metadata"];
        if (!metadata.contains("labels") || metadata["labels"].is_null())
            metadata["labels"] = json::object();
        if (metadata["labels"].is_object())
            metadata["labels"]["kubernetes.io/metadata.name"] = metadata["name"];
        if (!object["spec"].is_object())
            object["spec"] = json::object();
        object["spec"]["finalizers"] = json::array({ "kubernetes" });
        object["status"] = { { "phase", "Active" } };
    } else if (isCrdType(type.type)) {
        applyCrdDefaults(object);
        json &spec = object["spec"];
        json storedVersions = json::array();
        if (spec.contains("versions") && spec["versions"].is_array()) {
            for (const json &version : spec["versions"]) {
                if (version.is_object() && version.value("storage", false))
                    storedVersions.push_back(version.value("name", ""));
            }
        }
        object["status"] = { { "acceptedNames", { { "kind", "" }, { "plural", "" } } },
                             { "storedVersions", storedVersions } };
    }
}

std::optional<ApiError> Cluster::validateObject(const TypeEntry &type,
                                                const json &object,
                                                bool create,
                                                const RecordPtr &old,
                                                const json *previous) const
{
    // What validateMetadata checks (name, labels) passed it when the stored object was written:
    // unchanged, it passes again.
    const auto sameNameAndLabels = [&] {
        const json &now = objectjson::member(object, "metadata");
        const json &before = objectjson::member(*previous, "metadata");
        return objectjson::identical(objectjson::member(now, "name"),
                                     objectjson::member(before, "name"))
            && objectjson::identical(objectjson::member(now, "labels"),
                                     objectjson::member(before, "labels"));
    };
    QList<FieldError> errors;
    if (create || !previous || !sameNameAndLabels())
        errors = validateMetadata(type, object, create);
    if (old && old->deleting) {
        QStringList added;
        const QStringList finalizers = objectjson::strings(
            objectjson::member(objectjson::member(object, "metadata"), "finalizers"));
        for (const QString &finalizer : finalizers) {
            if (!old->finalizers.contains(finalizer))
                added << finalizer;
        }
        if (!added.isEmpty())
            errors.append(
                { u"FieldValueForbidden"_s,
                  u"metadata.finalizers"_s,
                  u"Forbidden: no new finalizers can be added if the object is being deleted, "
                  "found new finalizers "_s
                      + goStringSlice(added) });
    }
    if (isCrdType(type.type)) {
        errors.append(validateCrd(object));
        if (old) {
            const json previous = objectjson::parseStored(old->json);
            const auto member = [](const json &crd, const char *key) {
                return objectjson::string(objectjson::member(crd, "spec"), key);
            };
            if (member(previous, "group") != member(object, "group"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.group"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "group")) });
            if (member(previous, "scope") != member(object, "scope"))
                errors.append({ u"FieldValueInvalid"_s,
                                u"spec.scope"_s,
                                u"Invalid value: \"%1\": field is immutable"_s.arg(
                                    member(object, "scope")) });
        }
    } else if (!type.type.schema.is_null()) {
        errors.append(previous ? type.schema.validateUpdate(object, *previous)
                               : type.schema.validate(object));
    }
    if (errors.isEmpty())
        return std::nullopt;
    return ApiError::invalid(type.type.group,
                             type.type.kind,
                             objectjson::string(objectjson::member(object, "metadata"), "name"),
                             errors);
}

namespace {

// The object's namespace against the request's: defaulted from the URL, a mismatch refused,
// dropped for cluster-scoped kinds (create and update alike).
std::optional<ApiError>
adoptRequestNamespace(const ResourceType &type, json &metadata, const QString &ns)
{
    const QString bodyNamespace = objectjson::string(metadata, "namespace");
    if (!type.namespaced) {
        metadata.erase("namespace");
        return std::nullopt;
    }
    if (bodyNamespace.isEmpty())
        metadata["namespace"] = ns.toStdString();
    else if (bodyNamespace != ns)
        return ApiError::badRequest(
            u"the namespace of the provided object does not match the namespace sent on the request"_s);
    return std::nullopt;
}
} // namespace

// ---------------------------------------------------------------------------------------------
// create

ApiResult<WriteResult> Cluster::doCreate(const TypePtr &typePtr,
                                         const QString &ns,
                                         json object,
                                         const WriteOptions &options)
{
    const TypeEntry &type = *typePtr;
    if (!object.is_object())
        return ApiError::badRequest(u"the body of the request must be a JSON object"_s);
    QString name = objectjson::string(objectjson::member(object, "metadata"), "name");
    if (auto error = checkTypeMeta(type, object, name))
        return *error;
    json &metadata = object["metadata"];

    // Namespace of the object against the request's.
    if (auto error = adoptRequestNamespace(type.type, metadata, ns))
        return *error;

    QStringList warnings;
    if (auto error = applySchema(type, object, options, warnings))
        return *error;

    if (auto error = admitNamespace(type, ns, name))
        return *error;

    // rest.BeforeCreate: system fields, generateName, status subresource.
    for (const char *key : { "uid",
                             "creationTimestamp",
                             "deletionTimestamp",
                             "deletionGracePeriodSeconds",
                             "selfLink",
                             "managedFields" })
        metadata.erase(key);
    const QString generateName = objectjson::string(metadata, "generateName");
    if (name.isEmpty() && !generateName.isEmpty()) {
        name = generateName.left(58) + randomSuffix();
        metadata["name"] = name.toStdString();
    }
    metadata["uid"] = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
    metadata["creationTimestamp"] = nowTimestamp().toStdString();
    if (tracksGeneration(type.type))
        metadata["generation"] = 1;
    else
        metadata.erase("generation");
    if (type.type.statusSubresource && !isNamespaceType(type.type))
        object.erase("status");
    prepareBuiltinForCreate(type, object);
    if (!type.type.schema.is_null())
        type.schema.applyDefaults(object);

    if (auto error = validateObject(type, object, true, {}))
        return *error;

    if (find(type, ns, name))
        return ApiError::alreadyExists(type.type.group, type.type.plural, name);
    const json &rv = objectjson::member(metadata, "resourceVersion");
    const bool rvSet = !rv.is_null() && !(rv.is_string() && rv.get<std::string>().empty());

    WriteResult result;
    result.warnings = warnings;
    result.httpStatus = 201;
    if (options.dryRun) {
        // Upstream's dry-run storage only checks existence and echoes the prepared object: the
        // resourceVersion check lives in etcd3's Create, which a dry run never reaches, so a
        // client's resourceVersion is echoed and an unset one stays unset.
        if (!rvSet)
            metadata.erase("resourceVersion");
        result.object = std::move(object);
        return result;
    }
    if (rvSet)
        return ApiError::internal(u"resourceVersion should not be set on objects to be created"_s);
    if (auto error = storageSizeError(objectjson::dump(object).size()))
        return *error;
    // Every member was pruned and defaulted by this type's schema above.
    RecordPtr record = commitPut(type, std::move(object), {}, nullptr, type.serial);
    if (isCrdType(type.type))
        establishCrd(record);
    // The response is the created object (for a CRD: before the establishing controller's status).
    setCommittedObject(result, type, record, options);
    runControllers();
    return result;
}

// ---------------------------------------------------------------------------------------------
// update, status, patch

ApiResult<WriteResult> Cluster::doUpdate(const TypePtr &typePtr,
                                         const QString &ns,
                                         const QString &name,
                                         json object,
                                         bool status,
                                         const WriteOptions &options,
                                         const RecordPtr &patchedFrom,
                                         json *patchedFromObject)
{
    const TypeEntry &type = *typePtr;
    if (!object.is_object())
        return ApiError::badRequest(u"the body of the request must be a JSON object"_s);
    if (auto error = checkTypeMeta(type, object, name))
        return *error;
    json &metadata = object["metadata"];
    const QString bodyName = objectjson::string(metadata, "name");
    if (bodyName != name)
        return ApiError::badRequest(
            u"the name of the object (%1) does not match the name on the URL (%2)"_s.arg(bodyName,
                                                                                         name));
    if (auto error = adoptRequestNamespace(type.type, metadata, ns))
        return *error;

    QStringList warnings;
    if (auto error = applySchema(type, object, options, warnings, bool(patchedFrom)))
        return *error;

    RecordPtr existing = patchedFrom ? patchedFrom : find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);

    const json &rvValue = objectjson::member(metadata, "resourceVersion");
    const QString rvText
        = rvValue.is_string() ? QString::fromStdString(rvValue.get<std::string>()) : QString();
    if (rvText.isEmpty() || rvText == u"0")
        return ApiError::invalid(type.type.group,
                                 type.type.plural,
                                 name,
                                 { { u"FieldValueInvalid"_s,
                                     u"metadata.resourceVersion"_s,
                                     u"Invalid value: 0x0: must be specified for an update"_s } });
    const auto requestRv = parseResourceVersion(rvText);
    if (!requestRv)
        return ApiError::badRequest(u"invalid resourceVersion: %1"_s.arg(rvText));
    if (*requestRv != existing->resourceVersion)
        return ApiError::modified(type.type.group, type.type.plural, name);
    const QString uid = objectjson::string(metadata, "uid");
    if (!uid.isEmpty() && uid != existing->uid)
        return ApiError::conflict(
            type.type.group,
            type.type.plural,
            name,
            u"Precondition failed: UID in precondition: %1, UID in object meta: %2"_s.arg(
                uid, existing->uid));

    // The stored object in the request's version (doPatch has parsed it already).
    const json stored
        = patchedFromObject ? std::move(*patchedFromObject) : takeParsed(typePtr, existing);
    json updated;
    if (status) {
        // The stored object with the request's status. Built from the request's object, which
        // mostly holds the stored members already (a patch's result does): only those that
        // differ are copied over from the stored object.
        updated = std::move(object);
        for (auto it = updated.begin(); it != updated.end();) {
            if (it.key() != "status" && !stored.contains(it.key()))
                it = updated.erase(it);
            else
                ++it;
        }
        for (auto it = stored.begin(); it != stored.end(); ++it) {
            if (it.key() == "status")
                continue;
            auto member = updated.find(it.key());
            if (member == updated.end())
                updated[it.key()] = *it;
            else if (!objectjson::identical(*member, *it))
                *member = *it;
        }
    } else {
        updated = std::move(object);
        json &m = updated["metadata"];
        const json &old = stored["metadata"];
        for (const char *key : { "uid",
                                 "creationTimestamp",
                                 "deletionTimestamp",
                                 "deletionGracePeriodSeconds",
                                 "generation" }) {
            if (old.contains(key))
                m[key] = old[key];
            else
                m.erase(key);
        }
        m.erase("selfLink");
        m.erase("managedFields");
        if (type.type.statusSubresource) {
            if (stored.contains("status"))
                updated["status"] = stored["status"];
            else
                updated.erase("status");
        }
        if (isNamespaceType(type.type) && stored.contains("spec"))
            updated["spec"] = stored["spec"]; // spec.finalizers are changed only through /finalize
        // Generation: +1 when anything but metadata changed.
        if (tracksGeneration(type.type) && !equalApartFromMetadata(stored, updated))
            m["generation"] = old.value("generation", 0) + 1;
    }
    if (!type.type.schema.is_null())
        type.schema.applyDefaults(updated);
    json &resourceVersion = updated["metadata"]["resourceVersion"];
    resourceVersion = std::to_string(existing->resourceVersion);

    if (auto error = validateObject(type, updated, false, status ? RecordPtr() : existing, &stored))
        return *error;

    WriteResult result;
    result.warnings = warnings;
    Serialized serialized;
    serialized.bytes = objectjson::dump(updated,
                                        &resourceVersion,
                                        &serialized.resourceVersionAt,
                                        &serialized.resourceVersionLength);
    const QByteArray &bytes = serialized.bytes;
    if (bytes == renderRecord(type, existing)) { // no-op: nothing written, no event
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
        RecordPtr deleted = commitDelete(type, existing);
        updated["metadata"]["resourceVersion"] = std::to_string(deleted->resourceVersion);
        result.object = std::move(updated);
    } else {
        // An update's members were pruned and defaulted by this type's schema (applySchema, then
        // applyDefaults above); a status write keeps the stored ones but the status, which
        // applyDefaults above leaves alone when this schema made them.
        const quint64 stamp
            = !status || existing->schemaStamp == type.serial ? type.serial : quint64(0);
        RecordPtr record = commitPut(type, std::move(updated), existing, &serialized, stamp);
        setCommittedObject(result, type, record, options);
        if (isCrdType(type.type))
            establishCrd(record);
    }
    runControllers();
    return result;
}

ApiResult<WriteResult> Cluster::doPatch(const TypePtr &typePtr,
                                        const QString &ns,
                                        const QString &name,
                                        PatchType patchType,
                                        const QByteArray &patchBody,
                                        bool status,
                                        const WriteOptions &options)
{
    const TypeEntry &type = *typePtr;
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
    } else if (!patchDocument.is_object()) {
        return ApiError::badRequest(
            u"error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}"_s);
    }
    RecordPtr existing = find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    if (status) {
        if (auto result = patchStatusInPlace(type, existing, patchType, patchDocument, options))
            return std::move(*result);
    }
    json current = parseRecord(type, existing);
    json patched;
    if (patchType == PatchType::Merge) {
        patched = current;
        patched.merge_patch(patchDocument);
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
    return doUpdate(typePtr, ns, name, std::move(patched), status, options, existing, &current);
}

std::optional<WriteResult> Cluster::patchStatusInPlace(const TypeEntry &type,
                                                       const RecordPtr &existing,
                                                       PatchType patchType,
                                                       const json &patch,
                                                       const WriteOptions &options)
{
    if (!m_writeShortcuts || !type.statusInPlace || options.dryRun
        || existing->schemaStamp != type.serial)
        return std::nullopt;
    // The patch touches the status and nothing else, so every other member of the patched
    // object is the stored one. (doPatch has checked that a JSON patch is an array of objects.)
    if (patchType == PatchType::Json) {
        for (const json &operation : patch) {
            const json &op = objectjson::member(operation, "op");
            const json &path = objectjson::member(operation, "path");
            if (!op.is_string() || !path.is_string())
                return std::nullopt;
            const auto &opName = op.get_ref<const std::string &>();
            if (opName != "add" && opName != "remove" && opName != "replace" && opName != "test")
                return std::nullopt;
            if (!path.get_ref<const std::string &>().starts_with("/status/"))
                return std::nullopt;
        }
    } else if (patch.size() != 1 || !patch.contains("status") || !patch["status"].is_object()) {
        return std::nullopt;
    }

    // The stored text's top-level members: the kind and apiVersion the general way would check
    // and write, the resourceVersion it would find, the required members, the status.
    const Bucket &b = bucket(type);
    const QByteArrayView stored(existing->json);
    std::vector<objectjson::MemberSpan> top;
    if (!objectjson::members(stored, top))
        return std::nullopt;
    const auto quoted = [](const QString &text) {
        return u'"' + text + u'"';
    };
    const auto valueOf = [](const std::vector<objectjson::MemberSpan> &spans,
                            QByteArrayView key) -> const objectjson::MemberSpan * {
        for (const objectjson::MemberSpan &span : spans) {
            if (span.key == key)
                return &span;
        }
        return nullptr;
    };
    const auto slice = [](QByteArrayView text, const objectjson::MemberSpan *span) {
        return text.sliced(span->valueAt, span->valueLength);
    };
    const auto *apiVersion = valueOf(top, "apiVersion");
    const auto *kind = valueOf(top, "kind");
    const auto *metadataSpan = valueOf(top, "metadata");
    const auto *statusSpan = valueOf(top, "status");
    if (!apiVersion || !kind || !metadataSpan || !statusSpan
        || metadataSpan->valueAt > statusSpan->valueAt
        || slice(stored, apiVersion) != quoted(b.storageApiVersion).toUtf8()
        || slice(stored, kind) != quoted(type.type.kind).toUtf8()
        || !slice(stored, statusSpan).startsWith('{'))
        return std::nullopt;
    for (const std::string &required : type.schema.requiredMembers()) {
        if (!valueOf(top, QByteArrayView(required.data(), qsizetype(required.size()))))
            return std::nullopt;
    }
    const QByteArrayView metadataText = slice(stored, metadataSpan);
    std::vector<objectjson::MemberSpan> metadata;
    if (!objectjson::members(metadataText, metadata))
        return std::nullopt;
    const auto *rvSpan = valueOf(metadata, "resourceVersion");
    const std::string oldRv = '"' + std::to_string(existing->resourceVersion) + '"';
    if (!rvSpan
        || slice(metadataText, rvSpan) != QByteArrayView(oldRv.data(), qsizetype(oldRv.size())))
        return std::nullopt;

    // The status alone, in a stand-in object: patched, then pruned and defaulted as doUpdate
    // does the whole object (applySchema, then applyDefaults of the merged object).
    const QByteArrayView oldStatusText = slice(stored, statusSpan);
    json old = json::object();
    old["status"] = objectjson::parseStored(oldStatusText);
    if (old["status"].is_discarded() || !old["status"].is_object())
        return std::nullopt;
    json patched;
    if (patchType == PatchType::Json) {
        auto applied = objectjson::applyJsonPatch(old, patch);
        if (!applied)
            return std::nullopt; // the general way answers it
        patched = std::move(*applied);
    } else {
        patched = old;
        patched.merge_patch(patch);
    }
    if (!patched.is_object() || patched.size() != 1 || !patched["status"].is_object())
        return std::nullopt;
    if (!type.schema.prune(patched).isEmpty())
        return std::nullopt; // warnings (or a strict refusal): the general way words them
    type.schema.applyDefaults(patched);
    type.schema.applyDefaults(patched);
    const auto status = patched.find("status");
    if (status == patched.end() || !status->is_object())
        return std::nullopt;
    if (!type.schema.validateMemberUpdate("status", *status, &old["status"]).isEmpty())
        return std::nullopt;

    // The stored text with the new status and resourceVersion.
    const QByteArray statusText = objectjson::dump(*status);
    if (QByteArrayView(statusText) == oldStatusText)
        return std::nullopt; // a no-op: nothing is written, the general way answers it
    if (storageSizeError(stored.size() - oldStatusText.size() + statusText.size()))
        return std::nullopt;
    // Selectable fields outside the status keep their values; those of the status are taken
    // from the new one.
    std::vector<std::pair<QString, QString>> fields;
    fields.reserve(std::size_t(b.selectableFields.size()));
    for (qsizetype i = 0; i < b.selectableFields.size(); ++i) {
        const QString &field = b.selectableFields[i];
        if (field.startsWith(u".status.") || field == u".status") {
            fields.emplace_back(field.mid(1), objectjson::fieldValue(patched, field));
        } else if (std::size_t(i) < existing->fields.size()
                   && existing->fields[std::size_t(i)].first == QStringView(field).mid(1)) {
            fields.push_back(existing->fields[std::size_t(i)]);
        } else {
            return std::nullopt;
        }
    }

    const qint64 rv = ++m_revision;
    const std::string rvText = '"' + std::to_string(rv) + '"';
    const qsizetype rvAt = metadataSpan->valueAt + rvSpan->valueAt;
    const qsizetype rvEnd = rvAt + rvSpan->valueLength;
    const qsizetype statusEnd = statusSpan->valueAt + statusSpan->valueLength;
    auto record = std::make_shared<ObjectRecord>(*existing);
    record->resourceVersion = rv;
    record->fields = std::move(fields);
    QByteArray &bytes = record->json;
    bytes = QByteArray();
    bytes.reserve(stored.size() - oldStatusText.size() + statusText.size()
                  + qsizetype(rvText.size()) - rvSpan->valueLength);
    bytes.append(stored.first(rvAt))
        .append(rvText.data(), qsizetype(rvText.size()))
        .append(stored.sliced(rvEnd, statusSpan->valueAt - rvEnd))
        .append(statusText)
        .append(stored.sliced(statusEnd));
    storeRecord(type, record, existing);
    ++m_statusPatchesInPlace;

    WriteResult result;
    setCommittedObject(result, type, record, options);
    runControllers();
    return result;
}

// ---------------------------------------------------------------------------------------------
// delete

ApiResult<WriteResult> Cluster::doDelete(const TypePtr &typePtr,
                                         const QString &ns,
                                         const QString &name,
                                         const DeleteOptions &options)
{
    const TypeEntry &type = *typePtr;
    RecordPtr existing = find(type, ns, name);
    if (!existing)
        return ApiError::notFound(type.type.group, type.type.plural, name);
    // NamespaceLifecycle admission: the immortal namespaces.
    if (isNamespaceType(type.type)
        && (name == u"default" || name == u"kube-system" || name == u"kube-public"))
        return ApiError::forbidden(
            {}, type.type.plural, name, u"this namespace may not be deleted"_s);
    if (!options.preconditionUid.isEmpty() && options.preconditionUid != existing->uid)
        return ApiError::conflict(
            type.type.group,
            type.type.plural,
            name,
            u"Precondition failed: UID in precondition: %1, UID in object meta: %2"_s.arg(
                options.preconditionUid, existing->uid));
    if (!options.preconditionResourceVersion.isEmpty()
        && options.preconditionResourceVersion != QString::number(existing->resourceVersion))
        return ApiError::conflict(
            type.type.group,
            type.type.plural,
            name,
            u"Precondition failed: ResourceVersion in precondition: %1, ResourceVersion in object meta: %2"_s
                .arg(options.preconditionResourceVersion)
                .arg(existing->resourceVersion));
    QString policy = options.propagationPolicy;
    if (policy.isEmpty() && options.orphanDependents)
        policy = *options.orphanDependents ? u"Orphan"_s : u"Background"_s;
    auto result = deleteRecord(typePtr, existing, policy, options.dryRun);
    if (result && !options.dryRun)
        runControllers();
    return result;
}

ApiResult<WriteResult> Cluster::deleteRecord(const TypePtr &typePtr,
                                             const RecordPtr &existing,
                                             const QString &policy,
                                             bool dryRun)
{
    const TypeEntry &type = *typePtr;
    json object = parseRecord(type, existing);
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
            commitDelete(type, existing);
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
        result.object = json::parse(statusBody.dump());
        if (isCrdType(type.type) && !dryRun)
            unregisterGroupResource(objectjson::string(object["spec"], "group"),
                                    objectjson::string(object["spec"]["names"], "plural"));
        return result;
    }
    if (finalizers.isEmpty())
        metadata.erase("finalizers");
    else
        metadata["finalizers"] = objectjson::array(finalizers);
    if (!existing->deleting) {
        metadata["deletionTimestamp"] = nowTimestamp().toStdString();
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
                               { "lastTransitionTime", nowTimestamp().toStdString() },
                               { "reason", "InstanceDeletionInProgress" },
                               { "message", "CustomResource deletion is in progress" } });
    }
    if (dryRun) {
        result.object = std::move(object);
        return result;
    }
    if (objectjson::dump(object) == renderRecord(type, existing)) {
        result.object = std::move(object);
        return result;
    }
    RecordPtr record = commitPut(type, std::move(object), existing);
    result.object = parseRecord(type, record);
    return result;
}

ApiResult<json> Cluster::doDeleteCollection(const TypePtr &typePtr,
                                            const QString &ns,
                                            const ListOptions &listOptions,
                                            const DeleteOptions &options)
{
    const TypeEntry &type = *typePtr;
    ListOptions all = listOptions;
    all.limit = 0;
    all.continueToken.clear();
    auto page = listRecords(type, ns, all);
    if (!page)
        return page.error();
    QString policy = options.propagationPolicy;
    if (policy.isEmpty() && options.orphanDependents)
        policy = *options.orphanDependents ? u"Orphan"_s : u"Background"_s;
    json items = json::array();
    for (const RecordPtr &record : page->items) {
        RecordPtr current = find(type, record->ns, record->name);
        if (!current)
            continue;
        auto result = deleteRecord(typePtr, current, policy, options.dryRun);
        if (!result)
            return result.error();
        if (result->object.value("kind", "") == "Status")
            items.push_back(parseRecord(type, current));
        else
            items.push_back(std::move(result->object));
    }
    if (!options.dryRun)
        runControllers();
    return json{ { "apiVersion", type.type.groupVersion().toStdString() },
                 { "items", std::move(items) },
                 { "kind", type.type.listKind.toStdString() },
                 { "metadata",
                   { { "continue", "" }, { "resourceVersion", std::to_string(m_revision) } } } };
}

// ---------------------------------------------------------------------------------------------
// controllers: CRD establishing and cleanup, namespace termination, garbage collection

void Cluster::establishCrd(const RecordPtr &crdRecord)
{
    TypePtr crdType
        = lookup(QString::fromLatin1(kCrdGroup), u"v1"_s, u"customresourcedefinitions"_s);
    if (!crdType || crdRecord->deleting)
        return;
    json crd = parseRecord(*crdType, crdRecord);
    auto types = resourceTypesFromCrd(crd);
    if (!types)
        return;
    registerTypes(*types);

    json status = crd.value("status", json::object());
    const json &names = crd["spec"]["names"];
    json accepted = json::object();
    for (const char *key :
         { "plural", "singular", "shortNames", "kind", "listKind", "categories" }) {
        if (names.contains(key))
            accepted[key] = names[key];
    }
    status["acceptedNames"] = accepted;
    json storedVersions = status.value("storedVersions", json::array());
    for (const json &version : crd["spec"]["versions"]) {
        if (version.value("storage", false)) {
            const json name = version.value("name", json(""));
            if (std::find(storedVersions.begin(), storedVersions.end(), name)
                == storedVersions.end())
                storedVersions.push_back(name);
        }
    }
    status["storedVersions"] = storedVersions;
    json conditions = status.value("conditions", json::array());
    if (!conditions.is_array())
        conditions = json::array();
    const std::string now = nowTimestamp().toStdString();
    auto setCondition = [&](const char *conditionType, const char *reason, const char *message) {
        for (json &condition : conditions) {
            if (condition.value("type", "") == conditionType) {
                if (condition.value("status", "") != "True")
                    condition["lastTransitionTime"] = now;
                condition["status"] = "True";
                condition["reason"] = reason;
                condition["message"] = message;
                return;
            }
        }
        conditions.push_back({ { "type", conditionType },
                               { "status", "True" },
                               { "lastTransitionTime", now },
                               { "reason", reason },
                               { "message", message } });
    };
    setCondition("NamesAccepted", "NoConflicts", "no conflicts found");
    setCondition("Established", "InitialNamesAccepted", "the initial names have been accepted");
    status["conditions"] = conditions;
    if (crd["status"] == status)
        return;
    crd["status"] = status;
    commitPut(*crdType, std::move(crd), crdRecord);
}

void Cluster::deleteNow(const TypeEntry &type, const RecordPtr &record)
{
    commitDelete(type, record);
}

void Cluster::removeFinalizer(const TypeEntry &type,
                              const RecordPtr &record,
                              const QString &finalizer)
{
    json object = parseRecord(type, record);
    QStringList finalizers
        = objectjson::strings(objectjson::member(object["metadata"], "finalizers"));
    if (!finalizers.removeAll(finalizer))
        return;
    if (finalizers.isEmpty()) {
        object["metadata"].erase("finalizers");
        if (isCrdType(type.type)) {
            const QString group = objectjson::string(object["spec"], "group");
            const QString plural = objectjson::string(object["spec"]["names"], "plural");
            commitDelete(type, record);
            unregisterGroupResource(group, plural);
        } else {
            commitDelete(type, record);
        }
        return;
    }
    object["metadata"]["finalizers"] = objectjson::array(finalizers);
    commitPut(type, std::move(object), record);
}

void Cluster::runControllers()
{
    if (m_inControllers)
        return;
    m_inControllers = true;
    auto locate = [this](const QString &uid) -> std::pair<TypePtr, RecordPtr> {
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
    };
    for (int round = 0; round < 100000; ++round) {
        if (!m_gcQueue.isEmpty()) {
            // An owner being deleted with the orphan or foregroundDeletion finalizer.
            const QString uid = m_gcQueue.takeFirst();
            auto [type, owner] = locate(uid);
            if (!owner || !owner->deleting)
                continue;
            const QStringList dependents = m_dependents.values(uid);
            if (owner->finalizers.contains(kOrphanFinalizer)) {
                for (const QString &dependentUid : dependents) {
                    auto [dependentType, dependent] = locate(dependentUid);
                    if (!dependent)
                        continue;
                    json object = parseRecord(*dependentType, dependent);
                    json &refs = object["metadata"]["ownerReferences"];
                    json kept = json::array();
                    for (const json &ref : refs) {
                        if (objectjson::string(ref, "uid") != uid)
                            kept.push_back(ref);
                    }
                    if (kept.empty())
                        object["metadata"].erase("ownerReferences");
                    else
                        refs = kept;
                    commitPut(*dependentType, std::move(object), dependent);
                }
                auto [ownerType, current] = locate(uid);
                if (current)
                    removeFinalizer(*ownerType, current, kOrphanFinalizer);
            } else if (owner->finalizers.contains(kForegroundFinalizer)) {
                bool waiting = false;
                for (const QString &dependentUid : dependents) {
                    auto [dependentType, dependent] = locate(dependentUid);
                    if (!dependent)
                        continue;
                    waiting = true;
                    if (!dependent->deleting)
                        (void)deleteRecord(dependentType, dependent, u"Foreground"_s, false);
                }
                if (!waiting || m_dependents.values(uid).isEmpty()) {
                    auto [ownerType, current] = locate(uid);
                    if (current)
                        removeFinalizer(*ownerType, current, kForegroundFinalizer);
                }
            }
            continue;
        }
        if (!m_orphanedOwners.isEmpty()) {
            // An owner is gone: delete dependents that have no owner left, strip dangling refs
            // from the others.
            const QString uid = m_orphanedOwners.takeFirst();
            const QStringList dependents = m_dependents.values(uid);
            for (const QString &dependentUid : dependents) {
                auto [dependentType, dependent] = locate(dependentUid);
                if (!dependent)
                    continue;
                bool anyOwnerLeft = false;
                for (const QString &ownerUid : dependent->ownerUids) {
                    if (m_uidIndex.contains(ownerUid))
                        anyOwnerLeft = true;
                }
                if (!anyOwnerLeft) {
                    if (!dependent->deleting)
                        (void)deleteRecord(dependentType, dependent, u"Background"_s, false);
                    continue;
                }
                json object = parseRecord(*dependentType, dependent);
                json kept = json::array();
                for (const json &ref : object["metadata"]["ownerReferences"]) {
                    if (m_uidIndex.contains(objectjson::string(ref, "uid")))
                        kept.push_back(ref);
                }
                object["metadata"]["ownerReferences"] = kept;
                commitPut(*dependentType, std::move(object), dependent);
            }
            m_dependents.remove(uid);
            continue;
        }
        if (!m_controllersPending)
            break;
        m_controllersPending = false;
        // Terminating namespaces: delete their content, then the namespace itself.
        const QSet<QString> namespaces = m_terminatingNamespaces;
        for (const QString &ns : namespaces) {
            bool empty = true;
            const std::string prefix = ns.toStdString() + '/';
            // Deleting runs subscribers, which may register types: never hold m_buckets
            // iterators or references across it.
            QStringList namespacedKeys;
            for (const Bucket &b : std::as_const(m_buckets)) {
                if (b.namespaced)
                    namespacedKeys << b.storageKey;
            }
            for (const QString &storageKey : std::as_const(namespacedKeys)) {
                const Bucket *b = findBucket(storageKey);
                if (!b)
                    continue;
                TypePtr type = storageTypeFor(storageKey);
                std::vector<RecordPtr> inNamespace;
                for (auto it = b->objects.lower_bound(prefix);
                     it != b->objects.end() && it->first.compare(0, prefix.size(), prefix) == 0;
                     ++it)
                    inNamespace.push_back(it->second);
                for (const RecordPtr &record : inNamespace) {
                    empty = false;
                    if (!record->deleting && type)
                        (void)deleteRecord(type, record, {}, false);
                }
            }
            if (!empty)
                continue;
            TypePtr nsType = lookup({}, u"v1"_s, u"namespaces"_s);
            RecordPtr record = nsType ? find(*nsType, {}, ns) : RecordPtr();
            m_terminatingNamespaces.remove(ns);
            if (record) {
                json object = parseRecord(*nsType, record);
                if (!object["spec"].is_object())
                    object["spec"] = json::object();
                object["spec"]["finalizers"] = json::array();
                RecordPtr finalized = commitPut(*nsType, object, record);
                if (finalized->finalizers.isEmpty())
                    commitDelete(*nsType, finalized);
                else
                    m_terminatingNamespaces.insert(ns);
            }
        }
        // Terminating CRDs: delete their custom resources, then drop the cleanup finalizer.
        const QSet<QString> crds = m_terminatingCrds;
        for (const QString &crdName : crds) {
            TypePtr crdType
                = lookup(QString::fromLatin1(kCrdGroup), u"v1"_s, u"customresourcedefinitions"_s);
            RecordPtr crd = crdType ? find(*crdType, {}, crdName) : RecordPtr();
            if (!crd) {
                m_terminatingCrds.remove(crdName);
                continue;
            }
            const json object = parseRecord(*crdType, crd);
            const QString storageKey
                = storageKeyOf(objectjson::string(object["spec"], "group"),
                               objectjson::string(object["spec"]["names"], "plural"));
            const Bucket *b = findBucket(storageKey);
            TypePtr type = storageTypeFor(storageKey);
            std::vector<RecordPtr> instances;
            if (b) {
                for (const auto &[key, record] : b->objects)
                    instances.push_back(record);
            }
            for (const RecordPtr &record : instances) {
                if (!record->deleting && type)
                    (void)deleteRecord(type, record, {}, false);
            }
            b = findBucket(storageKey);
            if (!b || b->objects.empty()) {
                m_terminatingCrds.remove(crdName);
                removeFinalizer(*crdType, crd, kCrdCleanupFinalizer);
            }
        }
    }
    m_inControllers = false;
}

// ---------------------------------------------------------------------------------------------
// watch

ApiResult<std::shared_ptr<WatchStream>>
Cluster::doWatch(const TypePtr &type, const QString &ns, const WatchOptions &options)
{
    auto selection = parseSelection(*type, ns, options.labelSelector, options.fieldSelector);
    if (!selection)
        return selection.error();
    std::optional<qint64> from;
    const QString &rv = options.resourceVersion;
    if (!rv.isEmpty()) {
        auto parsed = parseResourceVersion(rv);
        if (!parsed)
            return ApiError::invalid(
                type->type.group,
                type->type.plural,
                {},
                { { u"FieldValueInvalid"_s,
                    u"resourceVersion"_s,
                    u"Invalid value: \"%1\": strconv.ParseUint: parsing \"%1\": invalid syntax"_s
                        .arg(rv) } });
        if (*parsed != 0)
            from = *parsed;
    }
    bool initialEvents = !from.has_value();
    if (options.sendInitialEvents)
        initialEvents = *options.sendInitialEvents;
    auto stream
        = std::make_shared<ClusterWatch>(this, type, *selection, from, initialEvents, options);
    return std::shared_ptr<WatchStream>(stream);
}

void Cluster::addWatch(ClusterWatch *watch)
{
    m_watches.push_back(watch);
}

void Cluster::removeWatch(ClusterWatch *watch)
{
    m_watches.erase(std::remove(m_watches.begin(), m_watches.end(), watch), m_watches.end());
}

} // namespace reconscope::controller::cluster
