#include "controller/operator/eventrecorder.h"

#include "models/jsonfields.h"
#include "models/rfc3339.h"

#include <spdlog/spdlog.h>

#include <QRandomGenerator>

#include <algorithm>
#include <iterator>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::operators {

namespace {

const apimachinery::ResourceRef eventsResource{ QString(), u"v1"_s, u"events"_s, true };

} // namespace

EventRecorder::EventRecorder(kube::RestClient *client,
                             reconcile::Clock &clock,
                             QString component,
                             QString instance,
                             int cacheSize)
    : m_client(client)
    , m_clock(clock)
    , m_component(std::move(component))
    , m_instance(std::move(instance))
    , m_cacheSize(std::max(1, cacheSize))
{ }

json EventRecorder::makeEvent(const json &involvedObject,
                              const QString &type,
                              const QString &reason,
                              const QString &message,
                              const QString &component,
                              const QString &instance,
                              const QDateTime &now,
                              const QString &name)
{
    const json meta = involvedObject.value("metadata", json::object());
    const std::string stamp = models::formatRfc3339(now).toStdString();
    json involved = {
        { "apiVersion", involvedObject.value("apiVersion", "") },
        { "kind", involvedObject.value("kind", "") },
        { "name", meta.value("name", "") },
        { "namespace", meta.value("namespace", "") },
        { "uid", meta.value("uid", "") },
    };
    if (meta.contains("resourceVersion"))
        involved["resourceVersion"] = meta["resourceVersion"];
    json source = { { "component", component.toStdString() } };
    json event = {
        { "apiVersion", "v1" },
        { "kind", "Event" },
        { "metadata",
          { { "name", name.toStdString() }, { "namespace", meta.value("namespace", "") } } },
        { "involvedObject", involved },
        { "reason", reason.toStdString() },
        { "message", message.toStdString() },
        { "type", type.toStdString() },
        { "count", 1 },
        { "firstTimestamp", stamp },
        { "lastTimestamp", stamp },
        { "source", source },
        { "reportingComponent", component.toStdString() },
        { "reportingInstance", instance.toStdString() },
    };
    return event;
}

void EventRecorder::record(const json &involvedObject,
                           const QString &type,
                           const QString &reason,
                           const QString &message)
{
    const json meta = involvedObject.value("metadata", json::object());
    const QString correlation
        = models::jsonString(meta, "uid") + u'\n' + type + u'\n' + reason + u'\n' + message;
    const QDateTime now = reconcile::toDateTime(m_clock.now());
    if (m_requestHook)
        m_requestHook();
    ++m_sent;
    auto seen = m_seen.find(correlation);
    if (seen == m_seen.end()) {
        create(involvedObject, type, reason, message, correlation);
        return;
    }
    // A repeat: count + 1, lastTimestamp now (client-go's EventCorrelator aggregation).
    m_uses.splice(m_uses.end(), m_uses, seen->use);
    seen->count += 1;
    const json patch = { { "count", seen->count },
                         { "lastTimestamp", models::formatRfc3339(now).toStdString() } };
    const QString name = seen->name;
    std::weak_ptr<int> alive = m_alive;
    m_client->patch(eventsResource,
                    seen->ns,
                    name,
                    apimachinery::PatchType::Merge,
                    QByteArray::fromStdString(patch.dump()),
                    [this, alive, name, correlation, involvedObject, type, reason, message](
                        kube::RestClient::JsonResult result) {
                        if (result)
                            return;
                        if (result.error().isNotFound() && !alive.expired()) {
                            // Gone (the event TTL): forget it and write it anew, as client-go does.
                            const auto it = m_seen.find(correlation);
                            if (it != m_seen.end() && it->name == name) {
                                m_uses.erase(it->use);
                                m_seen.erase(it);
                            }
                            if (!m_seen.contains(correlation))
                                create(involvedObject, type, reason, message, correlation);
                            return;
                        }
                        spdlog::warn("event {}: {}",
                                     name.toStdString(),
                                     result.error().toString().toStdString());
                    });
}

void EventRecorder::create(const json &involvedObject,
                           const QString &type,
                           const QString &reason,
                           const QString &message,
                           const QString &correlation)
{
    const json meta = involvedObject.value("metadata", json::object());
    const QString ns = models::jsonString(meta, "namespace");
    const QDateTime now = reconcile::toDateTime(m_clock.now());
    // Upstream names Events "<object>.<unique hex>".
    const QString name = models::jsonString(meta, "name") + u'.'
        + QString::number(QRandomGenerator::global()->generate64() & 0xffffffffffffULL, 16);
    while (m_seen.size() >= m_cacheSize && !m_uses.empty()) {
        m_seen.remove(m_uses.front());
        m_uses.pop_front();
    }
    m_uses.push_back(correlation);
    m_seen.insert(correlation, Seen{ name, ns, 1, std::prev(m_uses.end()) });
    const json event
        = makeEvent(involvedObject, type, reason, message, m_component, m_instance, now, name);
    m_client->create(eventsResource, ns, event, [name](kube::RestClient::JsonResult result) {
        if (!result)
            spdlog::warn(
                "event {}: {}", name.toStdString(), result.error().toString().toStdString());
    });
}

} // namespace reconscope::controller::operators
