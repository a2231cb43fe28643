#include "controller/record/recordsession.h"

#include "controller/record/discoveryjson.h"

#include <QSet>
#include <QTimer>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::record {

std::optional<std::chrono::milliseconds> parseDuration(const QString &text)
{
    bool plain = false;
    const double seconds = text.toDouble(&plain);
    if (plain)
        return seconds > 0 ? std::optional(std::chrono::milliseconds(qint64(seconds * 1000)))
                           : std::nullopt;
    static const QList<QPair<QString, double>> units{
        { u"ms"_s, 1 }, { u"h"_s, 3'600'000 }, { u"m"_s, 60'000 }, { u"s"_s, 1000 }
    };
    double total = 0;
    qsizetype at = 0;
    while (at < text.size()) {
        qsizetype end = at;
        while (end < text.size() && (text[end].isDigit() || text[end] == u'.'))
            ++end;
        bool ok = false;
        const double value = text.sliced(at, end - at).toDouble(&ok);
        if (!ok)
            return std::nullopt;
        const auto unit = std::find_if(units.cbegin(), units.cend(), [&](const auto &u) {
            return QStringView(text).sliced(end).startsWith(u.first);
        });
        if (unit == units.cend())
            return std::nullopt;
        total += value * unit->second;
        at = end + unit->first.size();
    }
    if (total < 1)
        return std::nullopt;
    return std::chrono::milliseconds(qint64(total));
}

RecordSession::RecordSession(kube::RestClient *client, RecordOptions options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(std::move(options))
    , m_discovery(client)
    , m_recorder(std::make_unique<Recorder>(client))
{
    connect(&m_discovery, &kube::DiscoveryClient::resourcesChanged, this, [this] {
        handleDiscovered();
    });
    connect(&m_discovery,
            &kube::DiscoveryClient::discoveryFailed,
            this,
            [this](const apimachinery::ApiError &error) {
                if (!m_resolved)
                    fail(u"discovery failed: %1"_s.arg(error.message));
            });
    connect(m_recorder.get(), &Recorder::finished, this, &RecordSession::finished);
}

RecordSession::~RecordSession() = default;

void RecordSession::fail(const QString &message)
{
    if (std::exchange(m_failed, true))
        return;
    emit failed(message);
}

void RecordSession::start()
{
    if (auto opened = m_recorder->open(m_options.output, m_options.metadata); !opened) {
        fail(opened.error().message);
        return;
    }
    m_discovery.refresh();
}

void RecordSession::handleDiscovered()
{
    if (std::exchange(m_resolved, true))
        return;
    if (m_options.allCrds) {
        m_client->list(kube::DiscoveryClient::CustomResourceDefinitions,
                       QString(),
                       {},
                       [this](models::Result<kube::ListPage, apimachinery::ApiError> page) {
                           if (!page) {
                               fail(u"cannot list the CRDs: %1"_s.arg(page.error().message));
                               return;
                           }
                           resolveCrds(page->items);
                       });
        return;
    }
    for (const QString &argument : std::as_const(m_options.resources)) {
        const auto resource = m_discovery.resolve(argument);
        if (!resource) {
            fail(resource.error().message);
            return;
        }
        const bool known
            = std::any_of(m_resources.cbegin(), m_resources.cend(), [&resource](const auto &r) {
                  return r.qualifiedName() == resource->qualifiedName();
              });
        if (!known)
            m_resources.append(resource.value());
    }
    fetchCrds();
}

void RecordSession::resolveCrds(const QList<QByteArray> &crds)
{
    for (const QByteArray &bytes : crds) {
        const json crd = json::parse(bytes.begin(), bytes.end(), nullptr, false);
        const json spec = crd.is_object() ? crd.value("spec", json::object()) : json();
        if (!spec.is_object() || !spec.value("group", json()).is_string()
            || !spec.value("names", json()).is_object()
            || !spec["names"].value("plural", json()).is_string())
            continue;
        const QString name = QString::fromStdString(spec["names"]["plural"].get<std::string>())
            + u'.' + QString::fromStdString(spec["group"].get<std::string>());
        // Served and established: discovery has it (a CRD not yet established is left out).
        const auto resource = m_discovery.resolve(name);
        if (!resource)
            continue;
        m_resources.append(resource.value());
        m_crds.append(bytes);
    }
    if (m_resources.isEmpty()) {
        fail(u"the cluster serves no custom resources"_s);
        return;
    }
    begin();
}

void RecordSession::fetchCrds()
{
    // A custom resource's CRD tells a replay how to read its lifecycle (as `watch` reads it);
    // a built-in group's answer is 404, and nothing is recorded for it.
    for (const kube::DiscoveredResource &resource : std::as_const(m_resources)) {
        if (!resource.group.contains(u'.'))
            continue;
        ++m_pendingCrds;
        m_client->get(kube::DiscoveryClient::CustomResourceDefinitions,
                      QString(),
                      resource.qualifiedName(),
                      [this](kube::RestClient::JsonResult crd) {
                          if (crd)
                              m_crds.append(QByteArray::fromStdString(crd->dump()));
                          if (--m_pendingCrds == 0)
                              begin();
                      });
    }
    if (m_pendingCrds == 0)
        begin();
}

void RecordSession::begin()
{
    if (m_failed)
        return;
    m_recorder->recordDiscovery(discoveryToJson(m_discovery.resources()));
    for (const QByteArray &crd : std::as_const(m_crds))
        m_recorder->recordCrd(crd);
    QStringList described;
    const QString where = m_options.namespace_.isEmpty() ? u"all namespaces"_s
                                                         : u"namespace "_s + m_options.namespace_;
    QStringList kinds;
    for (const kube::DiscoveredResource &discovered : std::as_const(m_resources)) {
        RecordedResource resource;
        resource.group = discovered.group;
        resource.version = discovered.version;
        resource.plural = discovered.plural;
        resource.kind = discovered.kind;
        resource.namespaced = discovered.namespaced;
        resource.namespace_ = discovered.namespaced ? m_options.namespace_ : QString();
        m_recorder->addResource(resource);
        described.append(discovered.qualifiedName()
                         + (discovered.namespaced ? u" in "_s + where : u" (cluster)"_s));
        if (!resource.isEvents() && !kinds.contains(resource.kind))
            kinds.append(resource.kind);
    }
    if (m_options.events) {
        for (const QString &kind : std::as_const(kinds)) {
            RecordedResource events;
            events.version = u"v1"_s;
            events.plural = u"events"_s;
            events.kind = u"Event"_s;
            events.namespace_ = m_options.namespace_;
            events.fieldSelector = u"involvedObject.kind="_s + kind;
            m_recorder->addResource(events);
        }
        if (!kinds.isEmpty())
            described.append(u"the Events of %1"_s.arg(kinds.join(u", "_s)));
    }
    m_recorder->start();
    if (m_options.duration.count() > 0) {
        m_durationTimer = new QTimer(this);
        m_durationTimer->setSingleShot(true);
        connect(m_durationTimer, &QTimer::timeout, this, [this] { stop(u"duration"_s); });
        m_durationTimer->start(m_options.duration);
    }
    emit recording(described);
}

void RecordSession::stop(const QString &reason)
{
    m_discovery.stop();
    m_recorder->stop(reason);
}

} // namespace reconscope::controller::record
