#include "controller/kube/reflector.h"

#include <spdlog/spdlog.h>

#include <QRandomGenerator>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

QString ReflectorState::toString() const
{
    switch (phase) {
    case Phase::Idle:
        return u"stopped"_s;
    case Phase::Listing:
        return u"listing"_s;
    case Phase::Watching:
        return u"watching"_s;
    case Phase::Relisting:
        return u"relisting"_s;
    case Phase::Reconnecting:
        return u"reconnecting in %1 s"_s.arg((retryInMs + 999) / 1000);
    }
    return {};
}

Reflector::Reflector(RestClient *client, ResourceRef resource, QString namespace_, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_resource(std::move(resource))
    , m_namespace(std::move(namespace_))
    , m_clock([] { return std::chrono::steady_clock::now(); })
    , m_random([] { return QRandomGenerator::global()->generateDouble(); })
{
    m_scheduler = [this](std::chrono::milliseconds delay, std::function<void()> action) {
        QTimer::singleShot(delay, this, std::move(action));
    };
}

Reflector::~Reflector()
{
    stop();
}

void Reflector::start()
{
    if (m_running)
        return;
    m_running = true;
    ++m_generation;
    list();
}

void Reflector::stop()
{
    if (!m_running)
        return;
    m_running = false;
    ++m_generation;
    if (m_watch) {
        m_watch->stop();
        m_watch->deleteLater();
        m_watch = nullptr;
    }
    setPhase(ReflectorState::Phase::Idle);
}

void Reflector::setPhase(ReflectorState::Phase phase, int retryInMs, const QString &error)
{
    m_state.phase = phase;
    m_state.retryInMs = retryInMs;
    if (!error.isEmpty() || phase == ReflectorState::Phase::Watching)
        m_state.lastError = error;
    spdlog::debug("reflector {}: {}{}{}",
                  m_resource.collectionPath(m_namespace).toStdString(),
                  m_state.toString().toStdString(),
                  error.isEmpty() ? "" : " after: ",
                  error.toStdString());
    emit stateChanged(m_state);
}

void Reflector::list()
{
    if (!m_running)
        return;
    setPhase(m_synced ? ReflectorState::Phase::Relisting : ReflectorState::Phase::Listing,
             0,
             m_state.lastError);
    ListOptions options;
    options.labelSelector = m_labelSelector;
    options.fieldSelector = m_fieldSelector;
    // client-go's relistResourceVersion.
    if (m_lastSyncUnavailable)
        options.resourceVersion = QString();
    else if (m_lastSyncResourceVersion.isEmpty())
        options.resourceVersion = u"0"_s;
    else
        options.resourceVersion = m_lastSyncResourceVersion;
    const quint64 generation = m_generation;
    QPointer<Reflector> self(this);
    m_client->list(m_resource,
                   m_namespace,
                   options,
                   [self, generation](models::Result<ListPage, ApiError> result) {
                       if (self && self->m_running && self->m_generation == generation)
                           self->handleList(std::move(result));
                   });
}

void Reflector::handleList(models::Result<ListPage, ApiError> result)
{
    if (!result) {
        const ApiError &error = result.error();
        if (error.isExpired())
            m_lastSyncUnavailable = true;
        retryLater(
            [this] { list(); }, u"list failed: "_s + error.toString(), error.retryAfterSeconds);
        return;
    }
    ListPage &page = result.value();
    QList<Delta> deltas;
    deltas.reserve(page.items.size());
    QHash<QString, QString> known;
    known.reserve(page.items.size());
    for (QByteArray &item : page.items) {
        Delta delta;
        if (!ObjectMeta::peek(item, &delta.meta))
            continue;
        delta.object = std::move(item);
        known.insert(delta.meta.key(), delta.meta.resourceVersion);
        deltas.append(std::move(delta));
    }
    QStringList vanished;
    for (auto it = m_known.cbegin(); it != m_known.cend(); ++it) {
        if (!known.contains(it.key()))
            vanished << it.key();
    }
    vanished.sort(); // deterministic order for consumers and tests
    for (const QString &key : std::as_const(vanished)) {
        Delta gone;
        gone.type = Delta::Type::Delete;
        const auto slash = key.indexOf(u'/');
        gone.meta.namespace_ = slash < 0 ? QString() : key.left(slash);
        gone.meta.name = slash < 0 ? key : key.mid(slash + 1);
        gone.meta.resourceVersion = m_known.value(key);
        deltas.append(std::move(gone));
    }
    m_known = std::move(known);
    m_lastSyncUnavailable = false;
    m_lastSyncResourceVersion = page.resourceVersion;
    m_resourceVersion = page.resourceVersion;
    m_synced = true;
    if (!deltas.isEmpty())
        emit deltasReceived(deltas);
    emit listSynced(m_resourceVersion);
    watch();
}

void Reflector::watch()
{
    if (!m_running)
        return;
    if (m_watch) {
        m_watch->stop();
        m_watch->deleteLater();
    }
    WatchOptions options;
    options.labelSelector = m_labelSelector;
    options.fieldSelector = m_fieldSelector;
    options.resourceVersion = m_resourceVersion;
    options.allowWatchBookmarks = true;
    options.timeoutSeconds = 300 + std::min(299, int(m_random() * 300));
    m_watch = m_client->watch(m_resource, m_namespace, options, this);
    connect(m_watch, &WatchConnection::eventsReceived, this, &Reflector::handleEvents);
    connect(m_watch, &WatchConnection::finished, this, &Reflector::handleWatchFinished);
    setPhase(ReflectorState::Phase::Watching);
}

void Reflector::handleEvents(const QList<WatchEvent> &events)
{
    QList<Delta> deltas;
    deltas.reserve(events.size());
    for (const WatchEvent &event : events) {
        if (event.type == WatchEvent::Type::Error) {
            if (!deltas.isEmpty())
                emit deltasReceived(deltas);
            deltas.clear();
            if (m_watch) {
                m_watch->stop();
                m_watch->deleteLater();
                m_watch = nullptr;
            }
            if (event.status.isExpired()) {
                relistAfterExpiry(event.status.message);
            } else {
                retryLater([this] { list(); }, u"watch error: "_s + event.status.toString());
            }
            return;
        }
        ObjectMeta meta;
        if (!ObjectMeta::peek(event.object, &meta))
            continue;
        if (!meta.resourceVersion.isEmpty())
            m_resourceVersion = meta.resourceVersion;
        if (event.type == WatchEvent::Type::Bookmark)
            continue;
        Delta delta;
        delta.meta = std::move(meta);
        delta.object = event.object;
        if (event.type == WatchEvent::Type::Deleted) {
            delta.type = Delta::Type::Delete;
            m_known.remove(delta.meta.key());
        } else {
            m_known.insert(delta.meta.key(), delta.meta.resourceVersion);
        }
        deltas.append(std::move(delta));
    }
    if (!deltas.isEmpty())
        emit deltasReceived(deltas);
}

void Reflector::handleWatchFinished(const std::optional<ApiError> &error)
{
    if (m_watch) {
        m_watch->deleteLater();
        m_watch = nullptr;
    }
    if (!m_running)
        return;
    if (!error) {
        // timeoutSeconds elapsed: resume from the last RV at once.
        watch();
        return;
    }
    if (error->isExpired()) {
        relistAfterExpiry(error->message);
        return;
    }
    if (error->isUnauthorized() || error->isForbidden() || error->code == 404) {
        retryLater([this] { list(); }, u"watch failed: "_s + error->toString());
        return;
    }
    retryLater(
        [this] { watch(); }, u"watch failed: "_s + error->toString(), error->retryAfterSeconds);
}

void Reflector::relistAfterExpiry(const QString &message)
{
    m_lastSyncUnavailable = true;
    setPhase(ReflectorState::Phase::Relisting, 0, u"resource version expired (410): "_s + message);
    list();
}

void Reflector::retryLater(std::function<void()> action,
                           const QString &error,
                           int retryAfterSeconds)
{
    const auto delay = std::max(m_backoff.next(m_clock(), m_random()),
                                std::chrono::milliseconds(retryAfterSeconds * 1000LL));
    setPhase(ReflectorState::Phase::Reconnecting, int(delay.count()), error);
    const quint64 generation = m_generation;
    QPointer<Reflector> self(this);
    m_scheduler(delay, [self, generation, action = std::move(action)] {
        if (self && self->m_running && self->m_generation == generation)
            action();
    });
}

} // namespace reconscope::controller::kube
