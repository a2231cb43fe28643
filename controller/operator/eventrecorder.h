#pragma once

#include "controller/kube/restclient.h"
#include "controller/reconcile/clock.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QString>

#include <functional>

namespace reconscope::controller::operators {

// Writes core/v1 Events as `kubectl describe` shows them (type, reason, message, involvedObject,
// source, count, firstTimestamp, lastTimestamp). A repeat of the same (object, type, reason,
// message) is folded into the Event already written: count + 1 and a new lastTimestamp, as
// client-go's EventCorrelator does. Sending is fire-and-forget: a failed Event never fails a
// reconcile.
class EventRecorder
{
public:
    EventRecorder(kube::RestClient *client,
                  reconcile::Clock &clock,
                  QString component,
                  QString instance);

    // involvedObject is the object the Event is about (its apiVersion, kind and metadata are read).
    void record(const nlohmann::json &involvedObject,
                const QString &type, // "Normal" or "Warning"
                const QString &reason,
                const QString &message);

    // Called once for every request sent (for request accounting).
    void setRequestHook(std::function<void()> hook) { m_requestHook = std::move(hook); }
    qint64 sent() const { return m_sent; }

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
    };

    kube::RestClient *m_client;
    reconcile::Clock &m_clock;
    QString m_component;
    QString m_instance;
    std::function<void()> m_requestHook;
    QHash<QString, Seen> m_seen; // correlation key -> the Event written for it
    qint64 m_sent = 0;
};

} // namespace reconscope::controller::operators
