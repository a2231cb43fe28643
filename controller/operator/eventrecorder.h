#pragma once

#include "controller/kube/restclient.h"
#include "controller/reconcile/clock.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QString>

#include <functional>
#include <list>
#include <memory>

namespace reconscope::controller::operators {

// Writes core/v1 Events as `kubectl describe` shows them (type, reason, message, involvedObject,
// source, count, firstTimestamp, lastTimestamp). A repeat of the same (object, type, reason,
// message) is folded into the Event already written: count + 1 and a new lastTimestamp, as
// client-go's EventCorrelator does: it remembers the last `cacheSize` correlation keys (an LRU,
// 4096 like client-go's maxLruCacheEntries: objects come and go, so the keys are unbounded), and an
// Event that is gone when it is patched (expired by the API server's event TTL) is created again.
// Sending is fire-and-forget: a failed Event never fails a reconcile.
class EventRecorder
{
public:
    static constexpr int DefaultCacheSize = 4096;

    EventRecorder(kube::RestClient *client,
                  reconcile::Clock &clock,
                  QString component,
                  QString instance,
                  int cacheSize = DefaultCacheSize);

    // involvedObject is the object the Event is about (its apiVersion, kind and metadata are read).
    void record(const nlohmann::json &involvedObject,
                const QString &type, // "Normal" or "Warning"
                const QString &reason,
                const QString &message);

    // Called once for every request sent (for request accounting).
    void setRequestHook(std::function<void()> hook) { m_requestHook = std::move(hook); }
    qint64 sent() const { return m_sent; }
    // Correlation keys remembered (at most cacheSize).
    qsizetype cachedKeys() const { return m_seen.size(); }

    // The Event object for a first occurrence (pure, for tests).
    static nlohmann::json makeEvent(const nlohmann::json &involvedObject,
                                    const QString &type,
                                    const QString &reason,
                                    const QString &message,
                                    const QString &component,
                                    const QString &instance,
                                    const QDateTime &now,
                                    const QString &name);

private:
    struct Seen
    {
        QString name;
        QString ns;
        qint64 count = 0;
        std::list<QString>::iterator use; // its place in m_uses
    };

    void create(const nlohmann::json &involvedObject,
                const QString &type,
                const QString &reason,
                const QString &message,
                const QString &correlation);

    kube::RestClient *m_client;
    reconcile::Clock &m_clock;
    QString m_component;
    QString m_instance;
    std::function<void()> m_requestHook;
    int m_cacheSize;
    QHash<QString, Seen> m_seen; // correlation key -> the Event written for it
    std::list<QString> m_uses; // correlation keys, least recently used first
    qint64 m_sent = 0;
    // Answers arriving after the recorder is gone are dropped.
    std::shared_ptr<int> m_alive = std::make_shared<int>(0);
};

} // namespace reconscope::controller::operators
