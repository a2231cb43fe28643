#pragma once

#include "controller/cluster/apitypes.h"

#include <QByteArray>
#include <QObject>

#include <cstdint>
#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QSslSocket;
class QTimer;
QT_END_NAMESPACE

namespace reconscope::controller::cluster {

class HttpsApiServer;

// One client connection of HttpsApiServer: an HTTP/1.1 request parser (Content-Length and chunked
// bodies, pipelining, Expect: 100-continue) and response writer (flow-controlled bodies, chunked
// watch streams). Internal to the transport.
class HttpConnection final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpConnection)

public:
    HttpConnection(QSslSocket *socket, HttpsApiServer *server);
    ~HttpConnection() override;

    bool isWatching() const { return m_watch != nullptr; }
    void shutdown(); // cancels a running watch and closes the connection

    // Called by the watch sink.
    void sendWatchEvent(std::uint64_t watchId, const QByteArray &line);
    void finishWatch(std::uint64_t watchId);

signals:
    void closed(HttpConnection *connection);

private:
    enum class State {
        ReadingHead,
        ReadingBody,
        ReadingChunkedBody,
        DiscardingBody,
        Handling,
        Writing,
        Streaming,
        Closed
    };

    void handleReadyRead();
    void handleBytesWritten();
    void handleDisconnected();
    void processInput();
    bool parseHead();
    bool readBody();
    bool readChunkedBody();
    bool discardBody();
    void rejectTooLarge();
    void dispatch();
    void handleRequest();
    void writeResponse(const ApiResponse &response);
    void startWatch(const ApiResponse &response);
    void pumpBody();
    void finishResponse();
    void failRequest(int status, const QByteArray &reason, const QString &message);
    void cancelWatch();
    void dropWatch(); // fault injection or a stuck watcher: cut the connection
    void armIdleTimer();
    void closeConnection(bool abort);
    void releasePendingBody();
    QByteArray responseHead(int status,
                            const QByteArray &contentType,
                            const QList<QPair<QByteArray, QByteArray>> &headers,
                            std::optional<qint64> contentLength) const;

    QSslSocket *m_socket;
    HttpsApiServer *m_server;
    State m_state = State::ReadingHead;
    QByteArray m_input;

    // The request being read or handled.
    ApiRequest m_request;
    QByteArray m_httpVersion;
    qint64 m_bodyRemaining = 0;
    bool m_keepAlive = true;
    bool m_continueSent = false;

    // A response body being written as the socket drains: its pieces (a streamed list's share the
    // records' bytes, and are freed when the response ends or the connection goes), the piece being
    // written and the offset in it.
    QList<QByteArray> m_pendingPieces;
    qsizetype m_pendingIndex = 0;
    qint64 m_pendingOffset = 0;
    int m_responseStatus = 0;

    // The running watch.
    std::shared_ptr<WatchStream> m_watch;
    std::uint64_t m_watchId = 0;
    std::int64_t m_watchEvents = 0;
    // While the watch sends what it sends from start() (its initial events, a replay): the watch's
    // list, buffered as a list answer is; the backlog bound applies to the live events after it.
    bool m_watchStarting = false;

    // The client certificate's identity, verified once per connection.
    std::optional<std::optional<UserInfo>> m_certificateUser;
    bool m_closeReported = false;
    QTimer *m_timer = nullptr; // idle / read-header timeout
    bool m_readingHeadTimed = false;
};

} // namespace reconscope::controller::cluster
