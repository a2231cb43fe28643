// WatchConnection, and RestClient::watch that starts one (restclient.h).
#include "controller/kube/restclient.h"

#include "controller/kube/credentialprovider.h"

#include <QNetworkReply>
#include <QPointer>
#include <QTimer>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;
using apimachinery::ResourceRef;
using apimachinery::WatchOptions;

// --- WatchConnection -----------------------------------------------------------------------

WatchConnection::WatchConnection(QObject *parent)
    : QObject(parent)
{ }

WatchConnection::~WatchConnection()
{
    stop();
}

void WatchConnection::stop()
{
    m_running = false;
    if (m_idleTimer)
        m_idleTimer->stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
}

void WatchConnection::attach(QNetworkReply *reply,
                             std::function<ApiError(QNetworkReply *)> errorOf,
                             int idleTimeoutMs)
{
    if (!m_running) {
        reply->abort();
        reply->deleteLater();
        return;
    }
    m_reply = reply;
    m_errorOf = std::move(errorOf);
    reply->setReadBufferSize(0);
    connect(reply, &QNetworkReply::readyRead, this, &WatchConnection::handleReadyRead);
    connect(reply, &QNetworkReply::finished, this, &WatchConnection::handleFinished);
    if (idleTimeoutMs > 0) {
        m_idleTimer = new QTimer(this);
        m_idleTimer->setSingleShot(true);
        m_idleTimer->setInterval(idleTimeoutMs);
        connect(m_idleTimer, &QTimer::timeout, this, [this, idleTimeoutMs] {
            if (m_running) {
                finish(ApiError::make(ApiError::Category::Network,
                                      u"the watch stream brought nothing for %1 ms; the "
                                      u"connection is considered dead"_s.arg(idleTimeoutMs)));
            }
        });
        connect(reply, &QNetworkReply::metaDataChanged, m_idleTimer, qOverload<>(&QTimer::start));
        m_idleTimer->start();
    }
}

void WatchConnection::handleReadyRead()
{
    if (!m_reply)
        return;
    if (m_idleTimer)
        m_idleTimer->start();
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200) {
        m_errorBody += m_reply->readAll();
        return;
    }
    m_ok = true;
    m_decoder.feed(m_reply->readAll());
    auto events = m_decoder.takeEvents();
    if (!events.isEmpty())
        emit eventsReceived(events);
    if (m_running && m_decoder.hasError())
        finish(ApiError::make(ApiError::Category::Decode, m_decoder.errorString()));
}

void WatchConnection::handleFinished()
{
    if (!m_running || !m_reply)
        return;
    handleReadyRead();
    if (!m_running)
        return;
    QNetworkReply *reply = m_reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 300) {
        ApiError error = ApiError::fromHttp(
            status,
            reply->header(QNetworkRequest::ContentTypeHeader).toString().toLatin1(),
            m_errorBody);
        if (const auto seconds = retryAfterOf(status, reply->rawHeader("Retry-After")))
            error.retryAfterSeconds = *seconds;
        finish(error);
        return;
    }
    if (reply->error() != QNetworkReply::NoError
        && !(m_ok && reply->error() == QNetworkReply::RemoteHostClosedError)) {
        finish(m_errorOf(reply));
        return;
    }
    m_decoder.finish();
    auto events = m_decoder.takeEvents();
    if (!events.isEmpty())
        emit eventsReceived(events);
    if (!m_running)
        return;
    if (m_decoder.hasError())
        finish(ApiError::make(ApiError::Category::Decode, m_decoder.errorString()));
    else
        finish(std::nullopt);
}

void WatchConnection::finish(std::optional<ApiError> error)
{
    stop();
    emit finished(error);
}

// --- RestClient::watch ---------------------------------------------------------------------

WatchConnection *RestClient::watch(const ResourceRef &resource,
                                   const QString &namespace_,
                                   const WatchOptions &options,
                                   QObject *parent,
                                   int idleTimeoutMs)
{
    auto *connection = new WatchConnection(parent);
    QUrlQuery query;
    query.addQueryItem(u"watch"_s, u"true"_s);
    if (!options.labelSelector.isEmpty())
        query.addQueryItem(u"labelSelector"_s, options.labelSelector);
    if (!options.fieldSelector.isEmpty())
        query.addQueryItem(u"fieldSelector"_s, options.fieldSelector);
    if (!options.resourceVersion.isEmpty())
        query.addQueryItem(u"resourceVersion"_s, options.resourceVersion);
    if (options.allowWatchBookmarks)
        query.addQueryItem(u"allowWatchBookmarks"_s, u"true"_s);
    if (options.sendInitialEvents)
        query.addQueryItem(u"sendInitialEvents"_s,
                           *options.sendInitialEvents ? u"true"_s : u"false"_s);
    if (options.timeoutSeconds > 0)
        query.addQueryItem(u"timeoutSeconds"_s, QString::number(options.timeoutSeconds));
    Call call{ "GET", resource.collectionPath(namespace_), query };
    call.streaming = true;
    QPointer<WatchConnection> guard(connection);
    if (idleTimeoutMs < 0)
        idleTimeoutMs = options.timeoutSeconds > 0 ? (options.timeoutSeconds + 30) * 1000 : 0;
    send(
        call,
        [this, guard, idleTimeoutMs](QNetworkReply *reply) {
            if (!guard) {
                reply->abort();
                reply->deleteLater();
                return;
            }
            connect(reply, &QNetworkReply::finished, this, [this, reply] {
                if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 401)
                    m_credentials->invalidate();
            });
            guard->attach(
                reply, [this](QNetworkReply *r) { return errorOf(r); }, idleTimeoutMs);
        },
        [guard](ApiError error) {
            if (guard && guard->isRunning())
                guard->finish(std::move(error));
        });
    return connection;
}

} // namespace reconscope::controller::kube
