#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QObject>
#include <QPair>
#include <QSslConfiguration>
#include <QSslError>
#include <QString>
#include <QUrl>

#include <functional>
#include <memory>

class QThread;

namespace reconscope::controller::kube {

// One HTTP/1.1 GET on a connection of its own (QSslSocket for https, QTcpSocket for http), read on
// a thread of its own, whose 2xx body is handed to a sink on the caller's thread as it arrives
// (de-chunked and gunzipped); any other answer's body is kept whole for the error it describes.
//
// Why not QNetworkAccessManager, which every other request uses: QNAM reads on a thread of its
// own and posts each piece the socket yields to the caller's thread, and QSslSocket yields 4 KB
// per SSL_read, so a 177 MB list is ~44k cross-thread deliveries with an allocation and a copy
// each. Here the reader appends to one buffer that the caller's thread takes whole whenever it is
// ready for more: a few hundred deliveries, about half the CPU of reading it through QNAM
// (docs/performance.md). RestClient uses this for streamed lists only, when no proxy is in the
// way.
//
// The answer is read as RFC 9112 frames it: a status line (1xx interim answers skipped), header
// fields, then a body delimited by chunked transfer coding, Content-Length, or the connection's
// end. "Accept-Encoding: gzip" is sent, as client-go and QNAM do (kube-apiserver compresses large
// answers when asked), and a gzip Content-Encoding is undone. The connection is closed after the
// answer.
class StreamedGet final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StreamedGet)

public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;

    struct Request
    {
        QUrl url; // http or https; path and query as they go on the request line
        Headers headers; // sent as they are, after Host (and before Connection, Accept-Encoding)
        QSslConfiguration ssl; // https only
        QString peerVerifyName; // the name the certificate must carry; empty: the URL's host
        int idleTimeoutMs = 0; // no byte for this long ends the request; 0: never
        // Body not taken yet by the caller's thread above which the reader stops reading (TCP
        // then holds the server back).
        qsizetype maxUntakenBytes = qsizetype(4) << 20;
    };

    enum class Failure {
        None,
        Connection, // refused, reset, unreachable, closed before the answer was complete
        Tls, // handshake failed; sslErrors() says why when it was the server's certificate
        Timeout, // idleTimeoutMs passed without a byte
        Protocol, // not an HTTP/1.x answer, or a body that breaks its own framing
        Cancelled, // (QNetworkAccessManager's word; a StreamedGet ends only by being destroyed)
    };

    struct Result
    {
        Failure failure = Failure::None;
        QString errorString;
        QList<QSslError> sslErrors;
        int status = 0;
        Headers headers;
        QByteArray errorBody; // the body of an answer that was not 2xx (2xx bodies go to the sink)
        qint64 bodyBytes = 0; // as received, before gunzip
    };

    explicit StreamedGet(QObject *parent = nullptr);
    // Closes the connection if the answer is not complete; finished() is not emitted.
    ~StreamedGet() override;

    // Called on this object's thread with the 2xx answer's body, in order, in pieces as large as
    // arrived while the previous piece was being handled.
    void setBodySink(std::function<void(QByteArrayView piece)> sink) { m_sink = std::move(sink); }

    void start(const Request &request);

    // Valid once finished() was emitted.
    const Result &result() const { return m_result; }
    // The first header field of that name (case-insensitive), empty when there is none.
    QByteArray header(QByteArrayView name) const;

signals:
    // Once: the answer is complete (all of its body handed to the sink), or result().failure
    // says why not.
    void finished();

private:
    class Connection; // the socket and the answer's framing, on a thread of its own
    struct Shared; // what the two threads hand each other

    void takeBody();
    void handleFinished();

    std::shared_ptr<Shared> m_shared;
    QThread *m_thread = nullptr;
    std::function<void(QByteArrayView)> m_sink;
    QByteArray m_taken; // the last piece handed to the sink; its allocation goes back
    Result m_result;
};

} // namespace reconscope::controller::kube
