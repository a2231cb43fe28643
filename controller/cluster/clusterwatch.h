#pragma once

#include "controller/cluster/apitypes.h"
#include "controller/cluster/cluster.h"
#include "controller/cluster/registry/listing.h"

#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

namespace reconscope::controller::cluster {

// One watch on a Cluster (AS endpoints/handlers/watch.go + the watch cache's cacheWatcher): on
// start() it writes the initial ADDED events (or replays the history after the requested RV, or
// the 410 ERROR event when that RV is too old), then every matching change, bookmarks when asked
// for, and ends after timeoutSeconds.
class ClusterWatch final : public WatchStream, public std::enable_shared_from_this<ClusterWatch>
{
public:
    // The watch verb: a watch for the request's selectors and resourceVersion, to be started by
    // the caller (400 or 422 for options that do not parse). With tableIncludeObject set, events
    // carry meta.k8s.io/v1 Tables (Accept as=Table) with that includeObject; only the first
    // carries the column definitions.
    static apimachinery::ApiResult<std::shared_ptr<WatchStream>>
    open(Cluster *cluster,
         const TypePtr &type,
         const QString &ns,
         const apimachinery::WatchOptions &options,
         std::optional<QString> tableIncludeObject = std::nullopt);

    ClusterWatch(Cluster *cluster,
                 TypePtr type,
                 Selection selection,
                 std::optional<qint64> from,
                 bool initialEvents,
                 const apimachinery::WatchOptions &options,
                 std::optional<QString> tableIncludeObject);
    ~ClusterWatch() override;

    void start(std::shared_ptr<WatchSink> sink) override;
    void cancel() override;

    QString storageKey() const;
    // Called by the Cluster for every committed change.
    void deliver(const ClusterEvent &event);
    // Ends the stream: finish() on the sink (when `notify`), unregister from the cluster.
    void end(bool notify);

private:
    // `event`, when given, is the change whose stored object `object` is: its rendered line is
    // shared between the watchers.
    void send(const char *type, const QByteArray &object, const ClusterEvent *event = nullptr);
    // send() of an event's object (or, for DELETED after a selector change, previous object).
    void sendEvent(const char *type, const ClusterEvent &event, const RecordPtr &record);
    QByteArray asTable(const QByteArray &object);
    void sendBookmark(bool initialEventsEnd);
    QByteArray render(const RecordPtr &record, qint64 rv) const;
    void scheduleBookmark();
    // Delivers the retained events after `rv`; false when the stream ended meanwhile.
    bool replayAfter(qint64 rv);

    QPointer<Cluster> m_cluster;
    TypePtr m_type;
    Selection m_selection;
    std::optional<qint64> m_from;
    bool m_initialEvents = false;
    apimachinery::WatchOptions m_options;
    std::optional<QString> m_tableIncludeObject;
    std::shared_ptr<WatchSink> m_sink;
    bool m_active = false;
    qint64 m_lastRv = 0;
    std::unique_ptr<QTimer> m_timeoutTimer;
    std::unique_ptr<QTimer> m_bookmarkTimer;
    qint64 m_deadlineMs = 0;
    bool m_tableHeadersSent = false;
};

} // namespace reconscope::controller::cluster
