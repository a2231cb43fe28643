#include "controller/cluster/clusterwatch.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/table.h"

#include <QDateTime>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::WatchOptions;

ApiResult<std::shared_ptr<WatchStream>>
ClusterWatch::open(Cluster *cluster,
                   const TypePtr &type,
                   const QString &ns,
                   const WatchOptions &options,
                   std::optional<QString> tableIncludeObject)
{
    auto selection
        = parseSelection(cluster->m_store, *type, ns, options.labelSelector, options.fieldSelector);
    if (!selection)
        return selection.error();
    std::optional<qint64> from;
    const QString &rv = options.resourceVersion;
    if (!rv.isEmpty()) {
        auto parsed = parseResourceVersion(rv);
        if (!parsed) // the storage's field error, passed on as an internal error
            return ApiError::internal(
                u"resourceVersion: Invalid value: \"%1\": strconv.ParseUint: parsing \"%1\": "
                "invalid syntax"_s.arg(rv));
        if (*parsed != 0)
            from = *parsed;
    }
    bool initialEvents = !from.has_value();
    if (options.sendInitialEvents)
        initialEvents = *options.sendInitialEvents;
    auto stream = std::make_shared<ClusterWatch>(
        cluster, type, *selection, from, initialEvents, options, std::move(tableIncludeObject));
    return std::shared_ptr<WatchStream>(stream);
}

ClusterWatch::ClusterWatch(Cluster *cluster,
                           TypePtr type,
                           Selection selection,
                           std::optional<qint64> from,
                           bool initialEvents,
                           const WatchOptions &options,
                           std::optional<QString> tableIncludeObject)
    : m_cluster(cluster)
    , m_type(std::move(type))
    , m_selection(std::move(selection))
    , m_from(from)
    , m_initialEvents(initialEvents)
    , m_options(options)
    , m_tableIncludeObject(std::move(tableIncludeObject))
{ }

ClusterWatch::~ClusterWatch()
{
    if (m_cluster)
        m_cluster->m_store.removeWatch(this);
}

QString ClusterWatch::storageKey() const
{
    return m_type->storageKey;
}

QByteArray ClusterWatch::render(const RecordPtr &record, qint64 rv) const
{
    if (rv == record->resourceVersion
        && objectjson::hasApiVersion(record->json, m_type->type.groupVersion()))
        return record->json;
    json object = objectjson::parseStored(record->json);
    object["metadata"]["resourceVersion"] = std::to_string(rv);
    object["apiVersion"] = m_type->type.groupVersion().toStdString();
    return objectjson::dump(object);
}

QByteArray ClusterWatch::asTable(const QByteArray &object)
{
    const json parsed = objectjson::parseStored(object);
    json table = renderTable(
        m_type->type,
        { &parsed },
        json{ { "resourceVersion", parsed["metadata"].value("resourceVersion", "") } },
        *m_tableIncludeObject,
        QDateTime::currentDateTimeUtc());
    // As the watch encoder does: headers on the first event only.
    if (m_tableHeadersSent)
        table["columnDefinitions"] = nullptr;
    m_tableHeadersSent = true;
    return objectjson::dump(table);
}

void ClusterWatch::sendEvent(const char *type, const ClusterEvent &event, const RecordPtr &record)
{
    const QByteArray object = render(record, event.resourceVersion);
    // Shared only when the bytes are the record's own (not re-rendered for another version or
    // resourceVersion), so every watcher that may share the line would write the same one.
    const bool stored = record == event.object && object.constData() == record->json.constData();
    send(type, object, stored ? &event : nullptr);
}

void ClusterWatch::send(const char *type, const QByteArray &object, const ClusterEvent *event)
{
    if (!m_active || !m_sink)
        return;
    const bool table
        = m_tableIncludeObject && qstrcmp(type, "BOOKMARK") != 0 && qstrcmp(type, "ERROR") != 0;
    if (table) {
        const QByteArray rendered = asTable(object);
        QByteArray line;
        line.append("{\"type\":\"")
            .append(type)
            .append("\",\"object\":")
            .append(rendered)
            .append("}\n");
        m_sink->send(line);
        return;
    }
    if (event && event->sharedLineType && qstrcmp(event->sharedLineType, type) == 0) {
        m_sink->send(event->sharedLine);
        return;
    }
    QByteArray line;
    line.reserve(object.size() + 32);
    line.append("{\"type\":\"").append(type).append("\",\"object\":").append(object).append("}\n");
    if (event) {
        event->sharedLine = line;
        event->sharedLineType = type;
    }
    m_sink->send(line);
}

void ClusterWatch::sendBookmark(bool initialEventsEnd)
{
    if (!m_cluster)
        return;
    // The initial-events-end bookmark carries the snapshot's revision; later ones the latest.
    const qint64 rv
        = initialEventsEnd ? m_lastRv : std::max(m_lastRv, m_cluster->currentResourceVersion());
    m_lastRv = rv;
    json metadata = { { "resourceVersion", std::to_string(rv) } };
    if (initialEventsEnd)
        metadata["annotations"] = { { "k8s.io/initial-events-end", "true" } };
    const json object = { { "apiVersion", m_type->type.groupVersion().toStdString() },
                          { "kind", m_type->type.kind.toStdString() },
                          { "metadata", metadata } };
    send("BOOKMARK", objectjson::dump(object));
}

void ClusterWatch::start(std::shared_ptr<WatchSink> sink)
{
    m_sink = std::move(sink);
    if (!m_cluster) {
        m_sink->finish();
        return;
    }
    m_active = true;
    Cluster *cluster = m_cluster;
    const Bucket *bucket = cluster->m_store.findBucket(m_type->storageKey);

    if (m_from && *m_from < cluster->m_store.compactedRevision()) {
        // The store is the etcd of the cluster and is watched without a cache: etcd3's answer.
        ApiError error
            = ApiError::expired(u"The resourceVersion for the provided watch is too old."_s);
        send("ERROR", QByteArray::fromStdString(error.toStatus().dump()));
        end(true);
        return;
    }
    if (m_initialEvents) {
        // Snapshot first: a sink may do anything, writes included, while it is sent to.
        std::vector<RecordPtr> initial;
        if (bucket) {
            for (const auto &[key, record] : bucket->objects) {
                if (m_selection.matches(*record))
                    initial.push_back(record);
            }
        }
        const qint64 snapshotRv = cluster->currentResourceVersion();
        for (const RecordPtr &record : initial) {
            send("ADDED", render(record, record->resourceVersion));
            if (!m_active)
                return;
        }
        m_lastRv = snapshotRv;
        if (m_options.allowWatchBookmarks
            && (!m_options.sendInitialEvents.has_value() || *m_options.sendInitialEvents))
            sendBookmark(true);
        // Whatever the sink itself wrote meanwhile.
        if (!m_active || !replayAfter(snapshotRv))
            return;
    } else if (m_from) {
        m_lastRv = *m_from;
        if (!replayAfter(*m_from))
            return;
    } else {
        m_lastRv = cluster->currentResourceVersion();
    }
    if (!m_active)
        return;
    cluster->m_store.addWatch(this);

    qint64 timeoutMs = qint64(m_options.timeoutSeconds) * 1000;
    if (timeoutMs <= 0)
        timeoutMs = (1800 + QRandomGenerator::global()->bounded(1800)) * qint64(1000);
    m_deadlineMs = QDateTime::currentMSecsSinceEpoch() + timeoutMs;
    m_timeoutTimer = std::make_unique<QTimer>();
    m_timeoutTimer->setSingleShot(true);
    QObject::connect(
        m_timeoutTimer.get(), &QTimer::timeout, m_timeoutTimer.get(), [this] { end(true); });
    m_timeoutTimer->start(std::chrono::milliseconds(timeoutMs));
    if (m_options.allowWatchBookmarks) {
        m_bookmarkTimer = std::make_unique<QTimer>();
        m_bookmarkTimer->setSingleShot(true);
        QObject::connect(m_bookmarkTimer.get(), &QTimer::timeout, m_bookmarkTimer.get(), [this] {
            sendBookmark(false);
            scheduleBookmark();
        });
        scheduleBookmark();
    }
}

bool ClusterWatch::replayAfter(qint64 rv)
{
    // By revision, not by iterator: delivering may append to (and trim) the history.
    qint64 cursor = rv;
    while (m_active && m_cluster) {
        const std::deque<ClusterEvent> &history = m_cluster->m_store.history();
        auto it = std::upper_bound(
            history.begin(), history.end(), cursor, [](qint64 value, const ClusterEvent &event) {
                return value < event.resourceVersion;
            });
        if (it == history.end())
            break;
        const ClusterEvent event = *it;
        cursor = event.resourceVersion;
        deliver(event);
    }
    return m_active;
}

void ClusterWatch::scheduleBookmark()
{
    if (!m_active || !m_bookmarkTimer || !m_cluster)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    qint64 next = m_cluster->bookmarkInterval();
    // One bookmark shortly (2 s) before the deadline, as the watch cache does.
    const qint64 preTimeout = m_deadlineMs - 2000 - now;
    if (preTimeout > 0 && preTimeout < next)
        next = preTimeout;
    if (now + next >= m_deadlineMs)
        return;
    m_bookmarkTimer->start(std::chrono::milliseconds(std::max<qint64>(next, 1)));
}

void ClusterWatch::deliver(const ClusterEvent &event)
{
    if (!m_active || event.storageKey != m_type->storageKey || event.resourceVersion <= m_lastRv)
        return;
    const bool now = m_selection.matches(*event.object);
    const bool before = event.previous && m_selection.matches(*event.previous);
    m_lastRv = event.resourceVersion;
    switch (event.type) {
    case EventType::Added:
        if (now)
            sendEvent("ADDED", event, event.object);
        break;
    case EventType::Modified:
        if (now && before)
            sendEvent("MODIFIED", event, event.object);
        else if (now)
            sendEvent("ADDED", event, event.object);
        else if (before)
            sendEvent("DELETED", event, event.previous);
        break;
    case EventType::Deleted:
        if (now)
            sendEvent("DELETED", event, event.object);
        break;
    }
}

void ClusterWatch::end(bool notify)
{
    if (!m_active)
        return;
    m_active = false;
    if (m_cluster)
        m_cluster->m_store.removeWatch(this);
    // end() may run inside a timer's own timeout signal: delete the timers later.
    for (auto *timer : { &m_timeoutTimer, &m_bookmarkTimer }) {
        if (*timer) {
            (*timer)->stop();
            timer->release()->deleteLater();
        }
    }
    std::shared_ptr<WatchSink> sink = std::move(m_sink);
    if (notify && sink)
        sink->finish();
}

void ClusterWatch::cancel()
{
    end(false);
}

} // namespace reconscope::controller::cluster
