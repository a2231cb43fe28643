#include "httpconnection.h"

#include "controller/cluster/server/httpsapiserver.h"

#include <QDateTime>
#include <QLocale>
#include <QMetaObject>
#include <QPointer>
#include <QSslSocket>
#include <QTimer>
#include <QUuid>

#include <spdlog/spdlog.h>

#include <atomic>
#include <charconv>
#include <exception>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

constexpr qsizetype maxHeadBytes = 1024 * 1024;
constexpr qint64 bodySliceBytes = 1024 * 1024;
// A body is handed to the socket while less than this waits in it. Kept small, the buffers the
// socket encrypts through stay warm; a larger mark costs copies and page faults of fresh buffers
// (docs/performance.md).
constexpr qint64 writeHighWaterBytes = 512 * 1024;
constexpr qsizetype inlineBodyBytes = 256 * 1024;
// A body above the limit is read and thrown away up to this size, so that the client reads the 413
// instead of a reset connection; beyond it the connection is closed after the answer.
constexpr qint64 maxDiscardedBodyBytes = 64 * 1024 * 1024;

std::uint64_t nextWatchId()
{
    static std::atomic<std::uint64_t> counter{ 0 };
    return ++counter;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Request Entity Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

QByteArray httpDate()
{
    return QLocale::c()
        .toString(QDateTime::currentDateTimeUtc(), u"ddd, dd MMM yyyy hh:mm:ss 'GMT'"_s)
        .toLatin1();
}

// The comma-separated tokens of a header such as Connection, lower-case.
QByteArrayList headerTokens(const QByteArray &value)
{
    QByteArrayList tokens;
    for (const QByteArray &token : value.split(','))
        tokens.append(token.trimmed().toLower());
    return tokens;
}

class ConnectionWatchSink final : public WatchSink
{
public:
    ConnectionWatchSink(HttpConnection *connection, std::uint64_t watchId)
        : m_connection(connection)
        , m_watchId(watchId)
    { }

    void send(const QByteArray &line) override
    {
        if (!m_connection)
            return;
        if (line.endsWith('\n'))
            m_connection->sendWatchEvent(m_watchId, line);
        else
            m_connection->sendWatchEvent(m_watchId, line + '\n');
    }

    void finish() override
    {
        if (m_connection)
            m_connection->finishWatch(m_watchId);
    }

private:
    QPointer<HttpConnection> m_connection;
    std::uint64_t m_watchId;
};

} // namespace

HttpConnection::HttpConnection(QSslSocket *socket, HttpsApiServer *server)
    : QObject(server)
    , m_socket(socket)
    , m_server(server)
{
    m_socket->setParent(this);
    connect(m_socket, &QSslSocket::readyRead, this, &HttpConnection::handleReadyRead);
    connect(m_socket, &QSslSocket::bytesWritten, this, &HttpConnection::handleBytesWritten);
    connect(
        m_socket, &QSslSocket::encryptedBytesWritten, this, &HttpConnection::handleBytesWritten);
    connect(m_socket, &QSslSocket::disconnected, this, &HttpConnection::handleDisconnected);
    connect(m_socket, &QSslSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::RemoteHostClosedError)
            spdlog::debug("embedded cluster: connection error {}", static_cast<int>(error));
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            handleDisconnected();
    });
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        spdlog::debug("embedded cluster: closing {} connection",
                      m_readingHeadTimed ? "slow" : "idle");
        closeConnection(true);
    });
    armIdleTimer();
    // The client may have sent its request together with the end of the handshake, or may
    // already be gone.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_socket->state() == QAbstractSocket::UnconnectedState)
                handleDisconnected();
            else
                handleReadyRead();
        },
        Qt::QueuedConnection);
}

HttpConnection::~HttpConnection()
{
    if (m_watch) {
        auto watch = std::move(m_watch);
        m_watchId = 0;
        watch->cancel();
    }
}

void HttpConnection::shutdown()
{
    cancelWatch();
    closeConnection(true);
}

void HttpConnection::armIdleTimer()
{
    m_readingHeadTimed = false;
    if (m_server->m_idleTimeout.count() > 0)
        m_timer->start(m_server->m_idleTimeout);
    else
        m_timer->stop();
}

void HttpConnection::handleReadyRead()
{
    if (m_state == State::Closed)
        return;
    m_input.append(m_socket->readAll());
    if (m_state == State::ReadingHead && !m_input.isEmpty() && !m_readingHeadTimed) {
        m_readingHeadTimed = true;
        if (m_server->m_readHeaderTimeout.count() > 0)
            m_timer->start(m_server->m_readHeaderTimeout);
        else
            m_timer->stop();
    }
    processInput();
}

void HttpConnection::processInput()
{
    while (m_state != State::Closed) {
        switch (m_state) {
        case State::ReadingHead:
            if (!parseHead())
                return;
            break;
        case State::ReadingBody:
            if (!readBody())
                return;
            break;
        case State::ReadingChunkedBody:
            if (!readChunkedBody())
                return;
            break;
        case State::DiscardingBody:
            if (!discardBody())
                return;
            break;
        default: // busy with a response; pipelined input waits
            return;
        }
    }
}

bool HttpConnection::parseHead()
{
    // Tolerate empty lines before a request line (RFC 9112 2.2).
    while (m_input.startsWith("\r\n"))
        m_input.remove(0, 2);
    const qsizetype end = m_input.indexOf("\r\n\r\n");
    if (end < 0) {
        if (m_input.size() > maxHeadBytes) {
            m_keepAlive = false;
            failRequest(431, "RequestHeaderFieldsTooLarge", u"request header too large"_s);
        }
        return false;
    }
    const QByteArray head = m_input.left(end);
    m_input.remove(0, end + 4);
    m_timer->stop();
    m_readingHeadTimed = false;

    m_request = ApiRequest();
    m_continueSent = false;
    const QByteArrayList lines = head.split('\n');
    const QByteArrayList requestLine = lines.first().trimmed().split(' ');
    if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")) {
        m_keepAlive = false;
        failRequest(400, "BadRequest", u"malformed request line"_s);
        return false;
    }
    m_request.method = requestLine.at(0);
    m_httpVersion = requestLine.at(2);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).endsWith('\r') ? lines.at(i).chopped(1) : lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        m_request.headers.append(
            { line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed() });
    }

    // The target: origin form (/path?query) or absolute form (https://host/path?query).
    QByteArray target = requestLine.at(1);
    if (!target.startsWith('/')) {
        const QUrl url = QUrl::fromEncoded(target);
        target = url.path(QUrl::FullyEncoded).toLatin1();
        if (url.hasQuery())
            target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    }
    const qsizetype hash = target.indexOf('#');
    if (hash >= 0)
        target.truncate(hash);
    const qsizetype question = target.indexOf('?');
    m_request.path = QUrl::fromPercentEncoding(question < 0 ? target : target.left(question));
    if (question >= 0) {
        // Form encoding: Go's url.Values encodes a space as '+', a literal '+' as %2B.
        QByteArray query = target.mid(question + 1);
        query.replace('+', "%20");
        m_request.query.setQuery(QString::fromLatin1(query));
    }

    const QByteArrayList connection = headerTokens(m_request.header("connection"));
    m_keepAlive = m_httpVersion == "HTTP/1.0" ? connection.contains("keep-alive")
                                              : !connection.contains("close");

    const QByteArray transferEncoding = m_request.header("transfer-encoding");
    if (!transferEncoding.isEmpty()) {
        if (!headerTokens(transferEncoding).contains("chunked")) {
            m_keepAlive = false;
            failRequest(501, "NotImplemented", u"unsupported transfer encoding"_s);
            return false;
        }
        m_state = State::ReadingChunkedBody;
        m_bodyRemaining = -1; // the next chunk-size line
    } else {
        const QByteArray contentLength = m_request.header("content-length");
        bool ok = true;
        const qint64 length = contentLength.isEmpty() ? 0 : contentLength.toLongLong(&ok);
        if (!ok || length < 0) {
            m_keepAlive = false;
            failRequest(400, "BadRequest", u"invalid Content-Length"_s);
            return false;
        }
        if (length > m_server->m_maxRequestBodyBytes) {
            const bool bodyWillCome = m_request.header("expect").toLower() != "100-continue";
            if (bodyWillCome && length <= maxDiscardedBodyBytes) {
                m_bodyRemaining = length;
                m_state = State::DiscardingBody;
                return true;
            }
            m_keepAlive = false;
            rejectTooLarge();
            return false;
        }
        m_bodyRemaining = length;
        m_state = State::ReadingBody;
    }
    if (m_request.header("expect").toLower() == "100-continue" && m_input.isEmpty()) {
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
        m_continueSent = true;
    }
    return true;
}

bool HttpConnection::readBody()
{
    const qint64 take = qMin<qint64>(m_bodyRemaining, m_input.size());
    if (take > 0) {
        if (m_request.body.isEmpty() && take == m_bodyRemaining && take == m_input.size())
            m_request.body = std::exchange(m_input, QByteArray());
        else {
            m_request.body.append(m_input.constData(), take);
            m_input.remove(0, take);
        }
        m_bodyRemaining -= take;
    }
    if (m_bodyRemaining > 0)
        return false;
    dispatch();
    return true;
}

bool HttpConnection::readChunkedBody()
{
    forever {
        if (m_bodyRemaining < 0) { // expecting "<hex size>[;ext]\r\n"
            const qsizetype lineEnd = m_input.indexOf("\r\n");
            if (lineEnd < 0)
                return false;
            QByteArray sizeField = m_input.left(lineEnd);
            const qsizetype semicolon = sizeField.indexOf(';');
            if (semicolon >= 0)
                sizeField.truncate(semicolon);
            bool ok = false;
            const qint64 size = sizeField.trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0) {
                m_keepAlive = false;
                failRequest(400, "BadRequest", u"malformed chunked body"_s);
                return false;
            }
            if (m_request.body.size() + size > m_server->m_maxRequestBodyBytes) {
                m_keepAlive = false;
                rejectTooLarge();
                return false;
            }
            if (size == 0) {
                // Last chunk: skip trailers up to the empty line.
                const qsizetype trailerEnd = m_input.indexOf("\r\n\r\n", lineEnd);
                if (trailerEnd == lineEnd) {
                    m_input.remove(0, lineEnd + 4);
                } else {
                    if (trailerEnd < 0)
                        return false;
                    m_input.remove(0, trailerEnd + 4);
                }
                dispatch();
                return true;
            }
            m_input.remove(0, lineEnd + 2);
            m_bodyRemaining = size;
        }
        if (m_input.size() < m_bodyRemaining + 2)
            return false;
        m_request.body.append(m_input.constData(), m_bodyRemaining);
        m_input.remove(0, m_bodyRemaining + 2);
        m_bodyRemaining = -1;
    }
}

bool HttpConnection::discardBody()
{
    const qint64 take = qMin<qint64>(m_bodyRemaining, m_input.size());
    m_input.remove(0, take);
    m_bodyRemaining -= take;
    if (m_bodyRemaining > 0)
        return false;
    m_state = State::Handling;
    rejectTooLarge();
    return true;
}

void HttpConnection::rejectTooLarge()
{
    failRequest(413,
                "RequestEntityTooLarge",
                u"Request entity too large: limit is %1"_s.arg(m_server->m_maxRequestBodyBytes));
}

void HttpConnection::dispatch()
{
    m_state = State::Handling;
    const auto latency
        = m_server->m_faults ? m_server->m_faults->nextLatency() : std::chrono::milliseconds(0);
    if (latency.count() > 0)
        QTimer::singleShot(latency, this, &HttpConnection::handleRequest);
    else
        handleRequest();
}

void HttpConnection::handleRequest()
{
    if (m_state != State::Handling)
        return;
    if (!m_certificateUser) {
        QList<QSslCertificate> chain;
        const QSslCertificate peer = m_socket->peerCertificate();
        if (!peer.isNull()) {
            chain.append(peer);
            for (const QSslCertificate &certificate : m_socket->peerCertificateChain()) {
                if (certificate != peer)
                    chain.append(certificate);
            }
        }
        m_certificateUser = m_server->m_authenticator.authenticateCertificate(chain);
    }
    std::optional<UserInfo> user = *m_certificateUser;
    if (!user)
        user = m_server->m_authenticator.authenticateBearer(m_request.header("authorization"));
    if (!user) {
        ApiResponse unauthorized;
        unauthorized.status = 401;
        unauthorized.body = Authenticator::unauthorizedBody();
        writeResponse(unauthorized);
        return;
    }
    m_request.user = *user;

    if (m_server->m_faults) {
        if (auto injected
            = m_server->m_faults->nextInjectedError(m_request.method, m_request.path)) {
            writeResponse(*injected);
            return;
        }
    }

    ApiResponse response;
    try {
        response = m_server->m_handler(m_request);
    } catch (const std::exception &e) {
        // A broken handler must not take the server down with it.
        spdlog::error("embedded cluster: handler failed on {} {}: {}",
                      m_request.method.toStdString(),
                      m_request.path.toStdString(),
                      e.what());
        response = FaultInjector::statusResponse(
            500,
            "InternalError",
            u"Internal error occurred: %1"_s.arg(QString::fromUtf8(e.what())));
    }
    if (response.watch)
        startWatch(response);
    else
        writeResponse(response);
}

QByteArray HttpConnection::responseHead(int status,
                                        const QByteArray &contentType,
                                        const QList<QPair<QByteArray, QByteArray>> &headers,
                                        std::optional<qint64> contentLength) const
{
    QByteArray head;
    head.reserve(256);
    head += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Audit-Id: " + QUuid::createUuid().toByteArray(QUuid::WithoutBraces) + "\r\n";
    head += "Cache-Control: no-cache, private\r\n";
    if (!contentType.isEmpty())
        head += "Content-Type: " + contentType + "\r\n";
    for (const auto &[name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += "Date: " + httpDate() + "\r\n";
    if (contentLength)
        head += "Content-Length: " + QByteArray::number(*contentLength) + "\r\n";
    else
        head += "Transfer-Encoding: chunked\r\n";
    if (!m_keepAlive)
        head += "Connection: close\r\n";
    head += "\r\n";
    return head;
}

void HttpConnection::writeResponse(const ApiResponse &response)
{
    // A client that waited for 100 Continue and was answered before sending its body cannot keep
    // the connection: the body would arrive as the next request.
    if (m_state == State::ReadingBody || m_state == State::ReadingChunkedBody)
        m_keepAlive = false;
    m_responseStatus = response.status;
    const bool headOnly = m_request.method == "HEAD";
    const qint64 bodySize = response.bodySize();
    QByteArray out
        = responseHead(response.status, response.contentType, response.headers, bodySize);
    if (headOnly || bodySize <= inlineBodyBytes) {
        if (!headOnly) {
            out += response.body;
            for (const QByteArray &piece : response.bodyPieces)
                out += piece;
        }
        m_socket->write(out);
        finishResponse();
        return;
    }
    m_socket->write(out);
    m_pendingPieces.clear();
    if (!response.body.isEmpty())
        m_pendingPieces.append(response.body);
    m_pendingPieces.append(response.bodyPieces);
    m_pendingIndex = 0;
    m_pendingOffset = 0;
    m_state = State::Writing;
    pumpBody();
}

void HttpConnection::pumpBody()
{
    if (m_state != State::Writing)
        return;
    const qsizetype count = m_pendingPieces.size();
    while (m_pendingIndex < count
           && m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite() < writeHighWaterBytes) {
        // Each piece (a list's object, or a slice of a whole body) straight into the socket's
        // buffer: it copies what it is given anyway.
        const QByteArray &piece = m_pendingPieces.at(m_pendingIndex);
        const qint64 wanted = qMin<qint64>(piece.size() - m_pendingOffset, bodySliceBytes);
        const char *data = piece.constData() + m_pendingOffset;
        m_pendingOffset += wanted;
        if (m_pendingOffset == piece.size()) {
            ++m_pendingIndex;
            m_pendingOffset = 0;
        }
        const qint64 written = m_socket->write(data, wanted);
        if (written != wanted) { // a buffered socket takes all of it or fails
            closeConnection(true);
            return;
        }
    }
    if (m_pendingIndex >= count)
        finishResponse();
}

void HttpConnection::handleBytesWritten()
{
    if (m_state == State::Writing)
        pumpBody();
}

void HttpConnection::startWatch(const ApiResponse &response)
{
    m_state = State::Streaming;
    m_responseStatus = response.status;
    m_watch = response.watch;
    m_watchId = nextWatchId();
    m_watchEvents = 0;
    m_socket->write(
        responseHead(response.status, response.contentType, response.headers, std::nullopt));
    m_socket->flush();
    if (m_state != State::Streaming || !m_watch) {
        // The flush found the client gone: the connection closed (and cancelled m_watch) on
        // the spot. The stream was never started; cancel what the handler registered.
        response.watch->cancel();
        return;
    }
    auto watch = m_watch; // start() may finish the stream at once
    m_watchStarting = true;
    watch->start(std::make_shared<ConnectionWatchSink>(this, m_watchId));
    m_watchStarting = false;
}

void HttpConnection::sendWatchEvent(std::uint64_t watchId, const QByteArray &line)
{
    if (m_state != State::Streaming || watchId != m_watchId)
        return;
    FaultInjector *faults = m_server->m_faults.get();
    if (faults && faults->dropWatchBeforeEvent()) {
        faults->countDroppedWatch();
        dropWatch();
        return;
    }
    if (!m_watchStarting
        && m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite()
            > m_server->m_maxWatchBacklogBytes) {
        spdlog::warn("embedded cluster: dropping the watch on {}: the client does not read",
                     m_request.path.toStdString());
        dropWatch();
        return;
    }
    // The chunk copied into the socket's buffer, where it joins the events before it: a
    // QByteArray written whole would become a buffer chunk of its own, and each chunk one TLS
    // record, so that the client would decrypt three records per event (the size line and the
    // CRLF alone in theirs) instead of one per 16 KB or so.
    char size[20];
    const auto sized = std::to_chars(size, size + sizeof size - 2, line.size(), 16);
    *sized.ptr = '\r';
    *(sized.ptr + 1) = '\n';
    m_socket->write(size, qint64(sized.ptr + 2 - size));
    m_socket->write(line.constData(), line.size());
    m_socket->write("\r\n", 2);
    ++m_watchEvents;
    if (faults && faults->watchEventLimitReached(m_watchEvents)) {
        faults->countDroppedWatch();
        m_socket->flush();
        dropWatch();
    }
}

void HttpConnection::dropWatch()
{
    // This runs inside the API's send(): cancel() is deferred so that the API is not re-entered
    // while it walks its watchers.
    std::shared_ptr<WatchStream> watch = std::move(m_watch);
    m_watchId = 0;
    if (watch) {
        QPointer<HttpsApiServer> server = m_server;
        const QString path = m_request.path;
        QMetaObject::invokeMethod(
            m_server,
            [watch, server, path] {
                watch->cancel();
                if (server)
                    emit server->watchCancelled(path);
            },
            Qt::QueuedConnection);
    }
    closeConnection(true);
}

void HttpConnection::finishWatch(std::uint64_t watchId)
{
    if (m_state != State::Streaming || watchId != m_watchId)
        return;
    m_socket->write("0\r\n\r\n");
    m_watch.reset();
    m_watchId = 0;
    finishResponse();
}

void HttpConnection::finishResponse()
{
    spdlog::debug("embedded cluster: {} {} {} ({})",
                  m_request.method.toStdString(),
                  m_request.path.toStdString(),
                  m_responseStatus,
                  m_request.user.name.toStdString());
    emit m_server->requestServed(
        m_request.method, m_request.path, m_responseStatus, m_request.user.name);
    releasePendingBody();
    if (!m_keepAlive) {
        closeConnection(false);
        return;
    }
    m_state = State::ReadingHead;
    armIdleTimer();
    if (!m_input.isEmpty()) {
        m_readingHeadTimed = true;
        if (m_server->m_readHeaderTimeout.count() > 0)
            m_timer->start(m_server->m_readHeaderTimeout);
        QMetaObject::invokeMethod(this, &HttpConnection::processInput, Qt::QueuedConnection);
    }
}

void HttpConnection::failRequest(int status, const QByteArray &reason, const QString &message)
{
    ApiResponse response = FaultInjector::statusResponse(status, reason, message);
    writeResponse(response);
}

void HttpConnection::cancelWatch()
{
    if (!m_watch)
        return;
    auto watch = std::move(m_watch);
    m_watchId = 0;
    watch->cancel();
    emit m_server->watchCancelled(m_request.path);
}

void HttpConnection::closeConnection(bool abort)
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    releasePendingBody(); // a list cut short frees its snapshot now
    if (abort)
        m_socket->abort();
    else
        m_socket->disconnectFromHost(); // after the write buffer drains
    if (m_socket->state() == QAbstractSocket::UnconnectedState)
        handleDisconnected();
}

void HttpConnection::releasePendingBody()
{
    m_pendingPieces = QList<QByteArray>();
    m_pendingIndex = 0;
    m_pendingOffset = 0;
}

void HttpConnection::handleDisconnected()
{
    releasePendingBody();
    cancelWatch();
    if (m_closeReported)
        return;
    m_closeReported = true;
    m_state = State::Closed;
    emit closed(this);
    deleteLater();
}

} // namespace reconscope::controller::cluster
