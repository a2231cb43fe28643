#pragma once

// A fake API for the transport tests: it answers /version, echoes requests as JSON, produces large
// bodies and watches that a test drives by hand, so the transport is tested without the cluster.

#include "controller/cluster/apitypes.h"
#include "controller/cluster/server/certificates.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QUrl>

#include <memory>

namespace reconscope::tests {

using namespace reconscope::controller::cluster;

// A watch the test drives: it records start() and cancel() and exposes the sink.
class FakeWatch final : public WatchStream
{
public:
    void start(std::shared_ptr<WatchSink> sink) override
    {
        m_sink = std::move(sink);
        ++started;
        if (!initialLines.isEmpty()) {
            for (const QByteArray &line : std::as_const(initialLines))
                m_sink->send(line);
        }
        if (finishAtStart)
            m_sink->finish();
    }
    void cancel() override { ++cancelled; }

    void send(const QByteArray &line)
    {
        if (m_sink)
            m_sink->send(line);
    }
    void finish()
    {
        if (m_sink)
            m_sink->finish();
    }

    int started = 0;
    int cancelled = 0;
    QByteArrayList initialLines;
    bool finishAtStart = false;

private:
    std::shared_ptr<WatchSink> m_sink;
};

// The fake API. Paths:
//   /version            a kube-apiserver-like version object
//   /echo...            the request as JSON (method, path, query, user, groups, headers, body size)
//   /big?bytes=N        N bytes of JSON-ish filler
//   /watch              a FakeWatch (the last one is in lastWatch)
//   anything else       the plain-text 404 of kube-apiserver
class FakeApi
{
public:
    ApiHandler handler()
    {
        return [this](const ApiRequest &request) {
            return handle(request);
        };
    }

    ApiResponse handle(const ApiRequest &request)
    {
        ++requestCount;
        lastRequest = request;
        ApiResponse response;
        if (request.path == u"/version") {
            response.body
                = R"({"major":"1","minor":"32","gitVersion":"v1.32.0-reconscope","gitCommit":"0000000000000000000000000000000000000000","gitTreeState":"clean","buildDate":"2026-01-01T00:00:00Z","goVersion":"go1.23.0","compiler":"gc","platform":"linux/amd64"})"
                  "\n";
        } else if (request.path.startsWith(u"/echo")) {
            nlohmann::json echo;
            echo["method"] = request.method.toStdString();
            echo["path"] = request.path.toStdString();
            nlohmann::json query = nlohmann::json::object();
            for (const auto &[key, value] : request.query.queryItems(QUrl::FullyDecoded))
                query[key.toStdString()] = value.toStdString();
            echo["query"] = query;
            echo["user"] = request.user.name.toStdString();
            nlohmann::json groups = nlohmann::json::array();
            for (const QString &group : request.user.groups)
                groups.push_back(group.toStdString());
            echo["groups"] = groups;
            nlohmann::json headers = nlohmann::json::object();
            for (const auto &[name, value] : request.headers)
                headers[name.toStdString()] = value.toStdString();
            echo["headers"] = headers;
            echo["bodySize"] = request.body.size();
            echo["bodyHead"] = request.body.left(64).toStdString();
            response.body = QByteArray::fromStdString(echo.dump()) + '\n';
            response.headers.append(
                qMakePair(QByteArray("Warning"), QByteArray(R"(299 - "echoed")")));
        } else if (request.path == u"/big") {
            const qsizetype size
                = request.query.queryItemValue(QStringLiteral("bytes")).toLongLong();
            QByteArray body(size, 'x');
            if (size > 0)
                body[size - 1] = '\n';
            response.body = body;
        } else if (request.path == u"/watch") {
            lastWatch = std::make_shared<FakeWatch>();
            lastWatch->initialLines = watchInitialLines;
            lastWatch->finishAtStart = watchFinishAtStart;
            response.watch = lastWatch;
        } else {
            response.status = 404;
            response.contentType = "text/plain; charset=utf-8";
            response.body = "404 page not found\n";
        }
        return response;
    }

    int requestCount = 0;
    ApiRequest lastRequest;
    std::shared_ptr<FakeWatch> lastWatch;
    QByteArrayList watchInitialLines;
    bool watchFinishAtStart = false;
};

// TLS client settings trusting the cluster CA, optionally presenting a client certificate.
inline QSslConfiguration clientTls(const QByteArray &caPem,
                                   const CertifiedKey *clientIdentity = nullptr)
{
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates(QSslCertificate::fromData(caPem, QSsl::Pem));
    tls.setProtocol(QSsl::TlsV1_2OrLater);
    if (clientIdentity) {
        tls.setLocalCertificate(QSslCertificate(clientIdentity->certificatePem, QSsl::Pem));
        tls.setPrivateKey(QSslKey(clientIdentity->privateKeyPem, QSsl::Ec));
    }
    return tls;
}

// An asynchronous raw TLS client for byte-exact HTTP checks (keep-alive, pipelining, framing).
class RawClient final : public QObject
{
public:
    RawClient(const QSslConfiguration &tls, quint16 port)
    {
        m_socket.setSslConfiguration(tls);
        connect(
            &m_socket, &QSslSocket::readyRead, this, [this] { received += m_socket.readAll(); });
        connect(&m_socket, &QSslSocket::encrypted, this, [this] { encrypted = true; });
        connect(&m_socket, &QSslSocket::disconnected, this, [this] { disconnected = true; });
        m_socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
    }
    void send(const QByteArray &bytes) { m_socket.write(bytes); }
    void abort() { m_socket.abort(); }
    QSslSocket &socket() { return m_socket; }

    QByteArray received;
    bool encrypted = false;
    bool disconnected = false;

private:
    QSslSocket m_socket;
};

// One parsed response out of a raw byte stream (Content-Length or chunked framing).
struct RawResponse
{
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers; // lower-case names
    QByteArray body;
    QByteArrayList chunks; // for chunked responses
    bool complete = false;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &[key, value] : headers) {
            if (key == name)
                return value;
        }
        return {};
    }
};

// Parses as many responses as `bytes` holds; the last may be incomplete.
inline QList<RawResponse> parseResponses(QByteArray bytes)
{
    QList<RawResponse> responses;
    while (!bytes.isEmpty()) {
        const qsizetype headEnd = bytes.indexOf("\r\n\r\n");
        if (headEnd < 0)
            break;
        RawResponse response;
        const QByteArrayList lines = bytes.left(headEnd).split('\n');
        response.status = lines.first().split(' ').value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                response.headers.append(
                    { line.left(colon).toLower(), line.mid(colon + 1).trimmed() });
        }
        bytes.remove(0, headEnd + 4);
        if (response.status == 100)
            continue;
        if (response.header("transfer-encoding") == "chunked") {
            forever {
                const qsizetype lineEnd = bytes.indexOf("\r\n");
                if (lineEnd < 0)
                    break;
                const qsizetype size = bytes.left(lineEnd).toLongLong(nullptr, 16);
                if (bytes.size() < lineEnd + 2 + size + 2)
                    break;
                if (size == 0) {
                    bytes.remove(0, lineEnd + 4);
                    response.complete = true;
                    break;
                }
                response.chunks.append(bytes.mid(lineEnd + 2, size));
                response.body += response.chunks.last();
                bytes.remove(0, lineEnd + 2 + size + 2);
            }
            responses.append(response);
            if (!response.complete)
                break;
        } else {
            const qsizetype length = response.header("content-length").toLongLong();
            response.body = bytes.left(length);
            response.complete = response.body.size() == length;
            bytes.remove(0, response.body.size());
            responses.append(response);
            if (!response.complete)
                break;
        }
    }
    return responses;
}

} // namespace reconscope::tests
