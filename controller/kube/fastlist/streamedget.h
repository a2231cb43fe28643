#pragma once

#include "controller/kube/pagetransport.h"

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
// (docs/performance.md). The compact informer transform hands it to RestClient as the transport
// of its lists (streamedGetTransport(): a PageTransport), used when no proxy is in the way.
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
    using Headers = PageTransport::Headers;
    using Failure = PageTransport::Failure; // Cancelled: a StreamedGet ends only by being destroyed
    using Result = PageTransport::Answer;

    struct Request : PageTransport::Request
    {
        // Body not taken yet by the caller's thread above which the reader stops reading (TCP
        // then holds the server back).
        qsizetype maxUntakenBytes = qsizetype(4) << 20;
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
    QByteArray header(QByteArrayView name) const { return m_result.header(name); }

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

// StreamedGet as a PageTransport, for RestClient's streamed lists.
std::shared_ptr<const PageTransport> streamedGetTransport();

} // namespace reconscope::controller::kube
