#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

#include <functional>
#include <memory>

namespace reconscope::controller::cluster {

// Who sent a request, as the transport authenticated it (certificate CN/O, bearer token).
struct UserInfo
{
    QString name; // "kubernetes-admin", "viewer", "system:anonymous"
    QStringList groups;
    bool authenticated = false;
};

// A request as the transport hands it to the API semantics: transport-neutral, so the API can be
// tested without sockets.
struct ApiRequest
{
    QByteArray method; // GET, POST, PUT, PATCH, DELETE
    QString path; // decoded path, e.g. /apis/G/v1/namespaces/default/customapps/x
    QUrlQuery query;
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-case
    QByteArray body;
    UserInfo user;

    QByteArray header(const QByteArray &lowerName) const
    {
        for (const auto &[name, value] : headers) {
            if (name == lowerName)
                return value;
        }
        return {};
    }
};

// The receiving end of a watch: the transport writes each line to the socket (framed as a chunk).
class WatchSink
{
public:
    virtual ~WatchSink() = default;
    // One event: compact JSON followed by '\n'.
    virtual void send(const QByteArray &line) = 0;
    // The server ends the stream normally (timeoutSeconds elapsed, 410 sent, server stopping).
    virtual void finish() = 0;
};

// A live watch produced by the API. The transport calls start() once headers are written, and
// cancel() when the client disconnects. Both run on the server's thread.
class WatchStream
{
public:
    virtual ~WatchStream() = default;
    virtual void start(std::shared_ptr<WatchSink> sink) = 0;
    virtual void cancel() = 0;
};

struct ApiResponse
{
    int status = 200;
    QByteArray contentType = "application/json";
    QList<QPair<QByteArray, QByteArray>> headers; // extra headers, e.g. Warning, Retry-After
    QByteArray body;
    // A large body sent as the socket drains instead of concatenated first (a plain JSON list: its
    // head, the stored bytes of its items, shared with their immutable records, commas and tail).
    // When not empty the body is `body` followed by these pieces, in order; the sizes are known
    // upfront, so Content-Length is sent as for `body`. flatBody() joins them.
    QList<QByteArray> bodyPieces;
    // Set for a watch: the status line and headers are sent, then the stream takes over.
    std::shared_ptr<WatchStream> watch;

    qint64 bodySize() const
    {
        qint64 size = body.size();
        for (const QByteArray &piece : bodyPieces)
            size += piece.size();
        return size;
    }
    QByteArray flatBody() const
    {
        if (bodyPieces.isEmpty())
            return body;
        QByteArray flat;
        flat.reserve(bodySize());
        flat += body;
        for (const QByteArray &piece : bodyPieces)
            flat += piece;
        return flat;
    }
};

// What the transport calls for every authenticated request.
using ApiHandler = std::function<ApiResponse(const ApiRequest &)>;

} // namespace reconscope::controller::cluster
