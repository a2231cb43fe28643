#include "controller/kube/fastlist/streamedget.h"

#include <QHostAddress>
#include <QMutex>
#include <QNetworkProxy>
#include <QSslSocket>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <zlib.h>

#include <charconv>
#include <cstring>
#include <utility>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

namespace {

// Far above any real answer's head or chunk line.
constexpr qsizetype MaxHeadBytes = qsizetype(1) << 20;
constexpr qsizetype MaxLineBytes = 4096;
// What the socket may hold before it waits for a drain (TCP holds the rest back).
constexpr qint64 SocketBufferBytes = qint64(1) << 20;

QByteArrayView trimmed(QByteArrayView text)
{
    while (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t'))
        text = text.sliced(1);
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.chop(1);
    return text;
}

// A gzip Content-Encoding undone as the body arrives (concatenated members too, as Go's
// gzip.Reader reads them).
class Inflater
{
public:
    Inflater() { m_ok = inflateInit2(&m_stream, 16 + MAX_WBITS) == Z_OK; }
    ~Inflater() { inflateEnd(&m_stream); }
    Inflater(const Inflater &) = delete;
    Inflater &operator=(const Inflater &) = delete;

    // False when the bytes are not gzip.
    bool feed(QByteArrayView in, const std::function<void(QByteArrayView)> &out)
    {
        if (!m_ok)
            return false;
        m_stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
        m_stream.avail_in = uInt(in.size());
        while (m_stream.avail_in > 0) {
            if (m_ended) {
                if (inflateReset(&m_stream) != Z_OK)
                    return false;
                m_ended = false;
            }
            m_stream.next_out = reinterpret_cast<Bytef *>(m_buffer.data());
            m_stream.avail_out = uInt(m_buffer.size());
            const int result = inflate(&m_stream, Z_NO_FLUSH);
            if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR)
                return false;
            const qsizetype produced = m_buffer.size() - qsizetype(m_stream.avail_out);
            if (produced > 0)
                out(QByteArrayView(m_buffer.constData(), produced));
            m_ended = result == Z_STREAM_END;
            if (result == Z_BUF_ERROR && produced == 0)
                break; // needs more input
        }
        return true;
    }
    bool ended() const { return m_ended; }

private:
    z_stream m_stream{};
    QByteArray m_buffer = QByteArray(64 * 1024, Qt::Uninitialized);
    bool m_ok = false;
    bool m_ended = false;
};

} // namespace

// The reading half, on the reader thread: the socket, the answer's framing and gzip.
class StreamedGet::Connection final : public QObject
{
public:
    explicit Connection(std::shared_ptr<Shared> shared)
        : m_shared(std::move(shared))
        , m_idleTimer(new QTimer(this))
    {
        m_idleTimer->setSingleShot(true);
        connect(m_idleTimer, &QTimer::timeout, this, [this] {
            fail(Failure::Timeout,
                 u"no answer for %1 s"_s.arg(double(m_idleTimer->interval()) / 1000.0));
        });
    }

    void start(const Request &request);
    void scheduleDrain();
    void drain();

private:
    void readAvailable();
    enum class Stage {
        Head,
        Length,
        ChunkSize,
        ChunkData,
        ChunkDataEnd,
        Trailers,
        UntilClose,
        Done
    };

    // Consumes what it can of `in`; false when the answer is broken (failure set).
    bool consume(QByteArrayView in);
    bool parseHead(const QByteArray &head);
    void deliver(QByteArrayView piece);
    void handleDisconnected();
    void fail(Failure failure, const QString &message);
    void complete();

    std::shared_ptr<Shared> m_shared;
    QTimer *m_idleTimer;
    QTcpSocket *m_socket = nullptr;
    std::unique_ptr<Inflater> m_inflater;
    QByteArray m_request;
    QByteArray m_read; // this drain's bytes, reused
    QByteArray m_pending; // a head or chunk line cut by the end of a read
    Stage m_stage = Stage::Head;
    qint64 m_remaining = 0; // of a Content-Length body or a chunk
    bool m_drainScheduled = false;
    bool m_finished = false;
    Result m_result;
};

// The body on its way from the reader thread to the caller's, and the result.
struct StreamedGet::Shared
{
    QMutex mutex;
    StreamedGet *front = nullptr; // null once it is destroyed: nothing more is posted to it
    Connection *connection = nullptr;
    QByteArray body; // not taken yet
    bool stalled = false; // the reader stopped reading until the body is taken
    std::optional<Result> result;
    qsizetype maxUntakenBytes = 0;

    // Reader thread: more body. The caller's thread is woken when the body was empty (it takes
    // everything there is then); above maxUntakenBytes the reader stops (full()).
    void put(QByteArrayView bytes)
    {
        const QMutexLocker lock(&mutex);
        const bool wake = body.isEmpty();
        body.append(bytes);
        if (wake && front)
            QMetaObject::invokeMethod(front, &StreamedGet::takeBody, Qt::QueuedConnection);
    }
    // Reader thread: up to `size` bytes read from `socket` straight onto the body's end (no copy
    // in between). The lock is held while it reads: `size` is at most what the socket holds
    // decrypted, so read() only copies from the socket's buffer (it neither waits nor emits).
    qint64 putFrom(QIODevice *socket, qint64 size)
    {
        const QMutexLocker lock(&mutex);
        const bool wake = body.isEmpty();
        const qsizetype had = body.size();
        if (body.capacity() < had + size)
            body.reserve(std::max<qsizetype>(had + size, body.capacity() * 2));
        body.resize(had + size);
        const qint64 read = socket->read(body.data() + had, size);
        body.resize(had + std::max<qint64>(read, 0));
        if (read > 0 && wake && front)
            QMetaObject::invokeMethod(front, &StreamedGet::takeBody, Qt::QueuedConnection);
        return read;
    }
    bool full()
    {
        const QMutexLocker lock(&mutex);
        stalled = body.size() >= maxUntakenBytes;
        return stalled;
    }
    // Caller's thread: the body so far, swapped into `into` (whose bytes are dropped and whose
    // allocation the reader fills next, so that two buffers take turns instead of fresh pages
    // for every piece); the reader goes on if it had stopped.
    void take(QByteArray *into)
    {
        into->resize(0);
        const QMutexLocker lock(&mutex);
        if (std::exchange(stalled, false))
            QMetaObject::invokeMethod(connection, &Connection::drain, Qt::QueuedConnection);
        std::swap(*into, body);
    }
    // Reader thread: the answer is complete or failed.
    void publish(Result done)
    {
        const QMutexLocker lock(&mutex);
        result = std::move(done);
        if (front)
            QMetaObject::invokeMethod(front, &StreamedGet::handleFinished, Qt::QueuedConnection);
    }
};

StreamedGet::StreamedGet(QObject *parent)
    : QObject(parent)
    , m_shared(std::make_shared<Shared>())
{
    m_shared->front = this;
}

StreamedGet::~StreamedGet()
{
    {
        const QMutexLocker lock(&m_shared->mutex);
        m_shared->front = nullptr;
    }
    if (m_thread) {
        // The connection (and its socket) is deleted on its thread as the thread ends.
        m_thread->quit();
        m_thread->wait();
        delete m_thread;
    }
}

void StreamedGet::start(const Request &request)
{
    Q_ASSERT(!m_thread);
    m_thread = new QThread;
    m_thread->setObjectName(u"streamed-get"_s);
    auto *connection = new Connection(m_shared);
    m_shared->connection = connection;
    m_shared->maxUntakenBytes = request.maxUntakenBytes;
    connection->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, connection, &QObject::deleteLater);
    m_thread->start();
    QMetaObject::invokeMethod(
        connection, [connection, request] { connection->start(request); }, Qt::QueuedConnection);
}

void StreamedGet::takeBody()
{
    m_shared->take(&m_taken);
    if (!m_taken.isEmpty() && m_sink)
        m_sink(m_taken);
}

void StreamedGet::handleFinished()
{
    takeBody(); // what came after the last wake-up
    {
        const QMutexLocker lock(&m_shared->mutex);
        m_result = std::move(*m_shared->result);
    }
    m_thread->quit();
    emit finished();
}

void StreamedGet::Connection::start(const Request &request)
{
    const bool tls = request.url.scheme() == u"https"_s;
    QByteArray target = request.url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/";
    if (request.url.hasQuery())
        target += '?' + request.url.query(QUrl::FullyEncoded).toLatin1();
    const QString host = request.url.host(QUrl::FullyEncoded);
    QByteArray hostHeader = QHostAddress(host).protocol() == QAbstractSocket::IPv6Protocol
        ? '[' + host.toLatin1() + ']'
        : host.toLatin1();
    if (request.url.port() >= 0)
        hostHeader += ':' + QByteArray::number(request.url.port());
    m_request = "GET " + target + " HTTP/1.1\r\nHost: " + hostHeader + "\r\n";
    for (const auto &[name, value] : request.headers)
        m_request += name + ": " + value + "\r\n";
    m_request += "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n";

    const quint16 port = quint16(request.url.port(tls ? 443 : 80));
    if (tls) {
        auto *socket = new QSslSocket(this);
        socket->setSslConfiguration(request.ssl);
        if (!request.peerVerifyName.isEmpty())
            socket->setPeerVerifyName(request.peerVerifyName);
        // The handshake then fails; the errors say why.
        connect(socket, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
            m_result.sslErrors = errors;
        });
        connect(socket, &QSslSocket::encrypted, this, [this] { m_socket->write(m_request); });
        m_socket = socket;
    } else {
        m_socket = new QTcpSocket(this);
        connect(m_socket, &QTcpSocket::connected, this, [this] { m_socket->write(m_request); });
    }
    // The caller decided there is no proxy; Qt's application-wide one is never used.
    m_socket->setProxy(QNetworkProxy::NoProxy);
    m_socket->setReadBufferSize(SocketBufferBytes);
    connect(m_socket, &QTcpSocket::readyRead, this, &Connection::scheduleDrain);
    connect(m_socket, &QTcpSocket::disconnected, this, &Connection::handleDisconnected);
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError) {
            handleDisconnected();
            return;
        }
        if (error == QAbstractSocket::SslHandshakeFailedError
            || error == QAbstractSocket::SslInvalidUserDataError
            || error == QAbstractSocket::SslInternalError) {
            fail(Failure::Tls, m_socket->errorString());
            return;
        }
        fail(Failure::Connection, m_socket->errorString());
    });
    if (request.idleTimeoutMs > 0) {
        m_idleTimer->setInterval(request.idleTimeoutMs);
        m_idleTimer->start();
    }
    if (tls)
        static_cast<QSslSocket *>(m_socket)->connectToHostEncrypted(host, port);
    else
        m_socket->connectToHost(host, port);
}

void StreamedGet::Connection::scheduleDrain()
{
    // QSslSocket says readyRead for every 4 KB it decrypts; the pieces are read in one go once it
    // is done decrypting what arrived.
    if (m_drainScheduled || m_finished)
        return;
    m_drainScheduled = true;
    QMetaObject::invokeMethod(this, &Connection::drain, Qt::QueuedConnection);
}

void StreamedGet::Connection::drain()
{
    m_drainScheduled = false;
    // While the caller's thread has maxUntakenBytes to take, nothing is read (it asks again).
    if (!m_finished && m_socket && !m_shared->full())
        readAvailable();
}

void StreamedGet::Connection::readAvailable()
{
    // A 2xx body that is not gzip goes from the socket straight to the caller's buffer. The rest
    // (the head, chunk lines, gzip, an error's body) is read here and parsed by consume(); a
    // chunk line is read only up to its end, so that the chunk's data after it is read directly.
    bool readSome = false;
    while (!m_finished && m_stage != Stage::Done) {
        const qint64 available = m_socket->bytesAvailable();
        if (available <= 0)
            break;
        const bool plainBody = !m_inflater && m_result.status >= 200 && m_result.status < 300;
        if (plainBody
            && (m_stage == Stage::Length || m_stage == Stage::ChunkData
                || m_stage == Stage::UntilClose)) {
            const qint64 wanted
                = m_stage == Stage::UntilClose ? available : std::min(available, m_remaining);
            const qint64 read = m_shared->putFrom(m_socket, wanted);
            if (read <= 0)
                break;
            readSome = true;
            m_result.bodyBytes += read;
            if (m_stage != Stage::UntilClose) {
                m_remaining -= read;
                if (m_remaining == 0)
                    m_stage = m_stage == Stage::Length ? Stage::Done : Stage::ChunkDataEnd;
            }
            continue;
        }
        qint64 wanted = available;
        if (plainBody
            && (m_stage == Stage::ChunkSize || m_stage == Stage::ChunkDataEnd
                || m_stage == Stage::Trailers)) {
            // Without a line end in sight, everything there is belongs to the line.
            char line[MaxLineBytes + 2];
            const qint64 seen = m_socket->peek(line, std::min<qint64>(available, sizeof line));
            const auto *end = static_cast<const char *>(std::memchr(line, '\n', size_t(seen)));
            if (end)
                wanted = end - line + 1;
        }
        m_read.resize(wanted);
        const qint64 read = m_socket->read(m_read.data(), wanted);
        if (read <= 0)
            break;
        readSome = true;
        if (!consume(QByteArrayView(m_read.constData(), read)))
            return;
    }
    if (readSome && m_idleTimer->isActive())
        m_idleTimer->start();
    if (m_stage == Stage::Done)
        complete();
}

bool StreamedGet::Connection::consume(QByteArrayView in)
{
    // A line of a chunked body (size, the CRLF after data, trailers): false until it is whole.
    const auto takeLine = [this, &in](QByteArray *line) {
        const qsizetype end = in.indexOf('\n');
        if (end < 0) {
            m_pending += in;
            in = {};
            return false;
        }
        *line = std::exchange(m_pending, {});
        line->append(in.first(end));
        in = in.sliced(end + 1);
        if (line->endsWith('\r'))
            line->chop(1);
        return true;
    };
    while (!in.isEmpty() && m_stage != Stage::Done && !m_finished) {
        switch (m_stage) {
        case Stage::Head: {
            const qsizetype searchFrom = std::max<qsizetype>(0, m_pending.size() - 3);
            m_pending += in;
            in = {};
            const qsizetype end = m_pending.indexOf("\r\n\r\n", searchFrom);
            if (end < 0) {
                if (m_pending.size() > MaxHeadBytes) {
                    fail(Failure::Protocol, u"the answer's header is over 1 MB"_s);
                    return false;
                }
                break;
            }
            const QByteArray rest = m_pending.mid(end + 4);
            const QByteArray head = m_pending.first(end);
            m_pending.clear();
            if (!parseHead(head))
                return false;
            // The body (or a final answer after an interim one) follows.
            return rest.isEmpty() || consume(rest);
        }
        case Stage::Length:
        case Stage::ChunkData: {
            const qsizetype take = qsizetype(std::min<qint64>(m_remaining, in.size()));
            deliver(in.first(take));
            in = in.sliced(take);
            m_remaining -= take;
            if (m_remaining == 0)
                m_stage = m_stage == Stage::Length ? Stage::Done : Stage::ChunkDataEnd;
            break;
        }
        case Stage::UntilClose:
            deliver(in);
            in = {};
            break;
        case Stage::ChunkSize: {
            QByteArray line;
            if (!takeLine(&line))
                break;
            // chunk-size [; extensions]
            const QByteArrayView size = trimmed(QByteArrayView(line).first(
                line.indexOf(';') < 0 ? line.size() : line.indexOf(';')));
            qint64 value = 0;
            const auto [end, error]
                = std::from_chars(size.data(), size.data() + size.size(), value, 16);
            if (size.isEmpty() || error != std::errc() || end != size.data() + size.size()
                || value < 0) {
                fail(Failure::Protocol, u"a chunk of the answer has no valid size"_s);
                return false;
            }
            m_remaining = value;
            m_stage = value == 0 ? Stage::Trailers : Stage::ChunkData;
            break;
        }
        case Stage::ChunkDataEnd: {
            QByteArray line;
            if (!takeLine(&line))
                break;
            if (!line.isEmpty()) {
                fail(Failure::Protocol, u"a chunk of the answer is longer than its size"_s);
                return false;
            }
            m_stage = Stage::ChunkSize;
            break;
        }
        case Stage::Trailers: {
            QByteArray line;
            if (!takeLine(&line))
                break;
            if (line.isEmpty())
                m_stage = Stage::Done;
            break;
        }
        case Stage::Done:
            break;
        }
        if (m_pending.size() > MaxLineBytes && m_stage != Stage::Head) {
            fail(Failure::Protocol, u"a chunk line of the answer is over 4 KB"_s);
            return false;
        }
    }
    return !m_finished;
}

bool StreamedGet::Connection::parseHead(const QByteArray &head)
{
    const auto lines = head.split('\n');
    const QByteArrayView statusLine = trimmed(lines.first());
    // HTTP/1.x SP 3DIGIT [SP reason]
    if (!statusLine.startsWith("HTTP/1.") || statusLine.size() < 12 || statusLine[8] != ' ') {
        fail(Failure::Protocol, u"not an HTTP/1.1 answer"_s);
        return false;
    }
    int status = 0;
    const auto [end, error]
        = std::from_chars(statusLine.data() + 9, statusLine.data() + 12, status);
    if (error != std::errc() || end != statusLine.data() + 12 || status < 100) {
        fail(Failure::Protocol, u"not an HTTP/1.1 answer"_s);
        return false;
    }
    Headers headers;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArrayView line = trimmed(lines[i]);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0) {
            fail(Failure::Protocol, u"a header field of the answer has no name"_s);
            return false;
        }
        headers.append(
            { line.first(colon).toByteArray(), trimmed(line.sliced(colon + 1)).toByteArray() });
    }
    if (status < 200 && status != 101) {
        return true; // an interim answer: the final one follows
    }
    m_result.status = status;
    m_result.headers = std::move(headers);
    const QByteArray transferEncoding = m_result.header("Transfer-Encoding").toLower();
    const QByteArray contentLength = m_result.header("Content-Length");
    if (status == 204 || status == 304) {
        m_stage = Stage::Done;
    } else if (!transferEncoding.isEmpty()) {
        if (!transferEncoding.endsWith("chunked")) {
            fail(Failure::Protocol,
                 u"the answer's transfer coding \"%1\" is not chunked"_s.arg(
                     QString::fromLatin1(transferEncoding)));
            return false;
        }
        m_stage = Stage::ChunkSize;
    } else if (!contentLength.isEmpty()) {
        qint64 length = 0;
        const QByteArrayView text = trimmed(contentLength);
        const auto [lengthEnd, lengthError]
            = std::from_chars(text.data(), text.data() + text.size(), length);
        if (lengthError != std::errc() || lengthEnd != text.data() + text.size() || length < 0) {
            fail(Failure::Protocol, u"the answer's Content-Length is not a number"_s);
            return false;
        }
        m_remaining = length;
        m_stage = length == 0 ? Stage::Done : Stage::Length;
    } else {
        m_stage = Stage::UntilClose;
    }
    const QByteArray contentEncoding
        = trimmed(m_result.header("Content-Encoding")).toByteArray().toLower();
    if (contentEncoding == "gzip" || contentEncoding == "x-gzip") {
        m_inflater = std::make_unique<Inflater>();
    } else if (!contentEncoding.isEmpty() && contentEncoding != "identity") {
        fail(Failure::Protocol,
             u"the answer's content coding \"%1\" was not asked for"_s.arg(
                 QString::fromLatin1(contentEncoding)));
        return false;
    }
    return true;
}

void StreamedGet::Connection::deliver(QByteArrayView piece)
{
    m_result.bodyBytes += piece.size();
    const bool ok = m_result.status >= 200 && m_result.status < 300;
    const auto out = [this, ok](QByteArrayView bytes) {
        if (ok)
            m_shared->put(bytes);
        else
            m_result.errorBody += bytes;
    };
    if (!m_inflater) {
        out(piece);
        return;
    }
    if (!m_inflater->feed(piece, out))
        fail(Failure::Protocol, u"the answer's gzip body is corrupt"_s);
}

void StreamedGet::Connection::handleDisconnected()
{
    if (m_finished)
        return;
    readAvailable(); // what arrived before the end, even while the caller's thread is behind
    if (m_finished)
        return;
    if (m_stage == Stage::UntilClose || m_stage == Stage::Done) {
        m_stage = Stage::Done;
        complete();
        return;
    }
    fail(Failure::Connection,
         m_stage == Stage::Head && m_result.status == 0
             ? u"the server closed the connection without an answer"_s
             : u"the server closed the connection before the answer was complete"_s);
}

void StreamedGet::Connection::fail(Failure failure, const QString &message)
{
    if (m_finished)
        return;
    m_finished = true;
    m_result.failure = failure;
    m_result.errorString = message;
    m_idleTimer->stop();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    m_shared->publish(std::move(m_result));
}

void StreamedGet::Connection::complete()
{
    if (m_finished)
        return;
    if (m_inflater && !m_inflater->ended()) {
        fail(Failure::Protocol, u"the answer's gzip body is cut short"_s);
        return;
    }
    m_finished = true;
    m_idleTimer->stop();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    m_shared->publish(std::move(m_result));
}

namespace {

class StreamedGetTransport final : public PageTransport
{
public:
    void get(const Request &request, Sink sink, Done done, QObject *context) const override
    {
        // Owned by `context`: destroying it closes the connection, and neither callback runs.
        auto *get = new StreamedGet(context);
        get->setBodySink(std::move(sink));
        QObject::connect(get, &StreamedGet::finished, get, [get, done = std::move(done)] {
            get->deleteLater();
            done(get->result());
        });
        StreamedGet::Request streamed;
        static_cast<PageTransport::Request &>(streamed) = request;
        get->start(streamed);
    }
};

} // namespace

std::shared_ptr<const PageTransport> streamedGetTransport()
{
    static const auto transport = std::make_shared<const StreamedGetTransport>();
    return transport;
}

} // namespace reconscope::controller::kube
