#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QSslConfiguration>
#include <QSslError>
#include <QString>
#include <QUrl>

#include <functional>

class QObject;

namespace reconscope::controller::kube {

// How one page of a streamed list (ListStream) travels when the caller brings its own way: the
// seam through which the informer's fast path (kube/fastlist/streamedget.h, chosen by the
// informer's transform) replaces QNetworkAccessManager, which RestClient uses for everything
// else. RestClient prepares the request (URL, credentials, headers) and reads the answer (status,
// Retry-After, the error body); the transport only moves bytes.
class PageTransport
{
public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;

    struct Request
    {
        QUrl url; // http or https; path and query as they go on the request line
        Headers headers; // sent as they are
        QSslConfiguration ssl; // https only
        QString peerVerifyName; // the name the certificate must carry; empty: the URL's host
        int idleTimeoutMs = 0; // no byte for this long ends the request; 0: never
    };

    // Why an answer did not come whole (QNetworkAccessManager's failures map onto these too).
    enum class Failure {
        None,
        Connection, // refused, reset, unreachable, closed before the answer was complete
        Tls, // handshake failed; sslErrors says why when it was the server's certificate
        Timeout, // idleTimeoutMs passed without a byte
        Protocol, // not an HTTP/1.x answer, or a body that breaks its own framing
        Cancelled,
    };

    struct Answer
    {
        Failure failure = Failure::None;
        QString errorString;
        QList<QSslError> sslErrors;
        int status = 0;
        Headers headers;
        QByteArray errorBody; // the body of an answer that was not 2xx (2xx bodies go to the sink)
        qint64 bodyBytes = 0; // as received, before any content coding is undone

        // The first header field of that name (case-insensitive), empty when there is none.
        QByteArray header(QByteArrayView name) const
        {
            for (const auto &[key, value] : headers) {
                if (key.size() == name.size()
                    && qstrnicmp(key.data(), key.size(), name.data(), name.size()) == 0)
                    return value;
            }
            return {};
        }
    };

    using Sink = std::function<void(QByteArrayView piece)>;
    using Done = std::function<void(const Answer &answer)>;

    virtual ~PageTransport() = default;

    // Sends a GET. A 2xx answer's body goes to `sink` in order, in pieces, on `context`'s thread
    // as it arrives (content coding undone); then `done` is called once there, with the whole
    // answer or the failure. Neither is called once `context` is destroyed (the request is then
    // abandoned).
    virtual void get(const Request &request, Sink sink, Done done, QObject *context) const = 0;
};

} // namespace reconscope::controller::kube
