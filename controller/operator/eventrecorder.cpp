#include "controller/operator/eventrecorder.h"

#include "models/rfc3339.h"

#include <spdlog/spdlog.h>

#include <QRandomGenerator>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::operators {

namespace {

const kube::ResourceRef eventsResource{ QString(), u"v1"_s, u"events"_s, true };

std::string str(const QString &s)
{
    return s.toStdString();
}

QString qstr(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

} // namespace

EventRecorder::EventRecorder(kube::RestClient *client,
                             reconcile::Clock &clock,
                             QString component,
                             QString instance)
    : m_client(client)
    , m_clock(clock)
    , m_component(std::move(component))
    , m_instance(std::move(instance))
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
    const std::string stamp = str(models::formatRfc3339(now));
    json involved = {
        { "apiVersion", involvedObject.value("apiVersion", "") },
        { "kind", involvedObject.value("kind", "") },
        { "name", meta.value("name", "") },
        { "namespace", meta.value("namespace", "") },
        { "uid", meta.value("uid", "") },
    };
    if (meta.contains("resourceVersion"))
        involved["resourceVersion"] = meta["resourceVersion"];
    json source = { { "component", str(component) } };
    json event = {
        { "apiVersion", "v1" },
        { "kind", "Event" },
        { "metadata", { { "name", str(name) }, { "namespace", meta.value("namespace", "") } } },
        { "involvedObject", involved },
        { "reason", str(reason) },
        { "message", str(message) },
        { "type", str(type) },
        { "count", 1 },
        { "firstTimestamp", stamp },
        { "lastTimestamp", stamp },
        { "source", source },
        { "reportingComponent", str(component) },
        { "reportingInstance", str(instance) },
    };
    return event;
}

void EventRecorder::record(const json &involvedObject,
                           const QString &type,
                           const QString &reason,
                           const QString &message)
{
    const json meta = involvedObject.value("metadata", json::object());
    const QString ns = qstr(meta, "namespace");
    const QString objectName = qstr(meta, "name");
    const QString correlation = qstr(meta, "uid") + u'\n' + type + u'\n' + reason + u'\n' + message;
    const QDateTime now = reconcile::toDateTime(m_clock.now());
    auto *client = m_client;
    if (m_requestHook)
        m_requestHook();
    ++m_sent;
    auto seen = m_seen.find(correlation);
    if (seen != m_seen.end()) {
        // A repeat: count + 1, lastTimestamp now (client-go's EventCorrelator aggregation).
        seen->count += 1;
        const json patch
            = { { "count", seen->count }, { "lastTimestamp", str(models::formatRfc3339(now)) } };
        const QString name = seen->name;
        client->patch(eventsResource,
                      seen->ns,
                      name,
                      kube::PatchType::Merge,
                      QByteArray::fromStdString(patch.dump()),
                      [name](kube::RestClient::JsonResult result) {
                          if (!result)
                              spdlog::warn("event {}: {}",
                                           name.toStdString(),
                                           result.error().toString().toStdString());
                      });
        return;
    }
    // Upstream names Events "<object>.<unique hex>".
    const QString name = objectName + u'.'
        + QString::number(QRandomGenerator::global()->generate64() & 0xffffffffffffULL, 16);
    m_seen.insert(correlation, Seen{ name, ns, 1 });
    const json event
        = makeEvent(involvedObject, type, reason, message, m_component, m_instance, now, name);
    client->create(eventsResource, ns, event, [name](kube::RestClient::JsonResult result) {
        if (!result)
            spdlog::warn(
                "event {}: {}", name.toStdString(), result.error().toString().toStdString());
    });
}

} // namespace reconscope::controller::operators
