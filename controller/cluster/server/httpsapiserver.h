#pragma once

#include "authenticator.h"
#include "controller/cluster/apitypes.h"
#include "faultinjector.h"
#include "models/result.h"

#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <chrono>
#include <memory>

QT_BEGIN_NAMESPACE
class QSslServer;
QT_END_NAMESPACE

namespace reconscope::controller::cluster {

class HttpConnection;

// The embedded cluster's HTTPS transport, kube-apiserver style: TLS 1.2+, asks for a client
// certificate but does not require one, authenticates every request (verified certificate, else
// bearer token, else 401 Status), turns HTTP/1.1 into ApiRequest/ApiResponse, streams watches as
// chunked responses, keeps connections alive. Large bodies are written as the socket drains.
//
// It speaks HTTP/1.1 on QSslSocket directly instead of through QAbstractHttpServer: Qt 6.4's
// responder buffers whole bodies and hides the connection's life (keep-alive, disconnect while a
// watch runs), both of which the API needs.
//
// The server, its connections and the handler run on the thread the server lives on.
class HttpsApiServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpsApiServer)

public:
    explicit HttpsApiServer(ApiHandler handler, QObject *parent = nullptr);
    ~HttpsApiServer() override;

    // The serving certificate and key (PEM), and who may call.
    models::Status<> setServerCertificate(const QByteArray &certificatePem,
                                          const QByteArray &privateKeyPem);
    void setAuthenticator(const Authenticator &authenticator);
    void setFaultInjector(std::shared_ptr<FaultInjector> faults);
    std::shared_ptr<FaultInjector> faultInjector() const { return m_faults; }
    // Request bodies above this are answered 413 without being read (default 3 MiB).
    void setMaxRequestBodyBytes(qint64 bytes) { m_maxRequestBodyBytes = bytes; }
    // kube-apiserver's http.Server: an idle keep-alive connection is closed after 90 s, a request
    // head must arrive within 32 s of its first byte. Applies to connections accepted afterwards.
    void setIdleTimeout(std::chrono::milliseconds timeout) { m_idleTimeout = timeout; }
    void setReadHeaderTimeout(std::chrono::milliseconds timeout) { m_readHeaderTimeout = timeout; }
    // A watcher that does not read: once this much is buffered for it, its watch is dropped.
    void setMaxWatchBacklogBytes(qint64 bytes) { m_maxWatchBacklogBytes = bytes; }

    // Port 0 picks a free port; the result is the port listened on.
    models::Result<quint16>
    listen(const QHostAddress &address = QHostAddress(QHostAddress::LocalHost), quint16 port = 0);
    void close(); // stops listening, cancels watches, drops connections
    bool isListening() const;
    quint16 port() const;
    QUrl url() const; // https://127.0.0.1:PORT

    int connectionCount() const;
    int activeWatchCount() const;
    qint64 acceptedConnections() const { return m_acceptedConnections; } // since listen()

signals:
    // After each response (for a watch: when its stream ends, with the number of events sent).
    void
    requestServed(const QByteArray &method, const QString &path, int status, const QString &user);
    void watchCancelled(const QString &path); // the client went away or the watch was dropped
    void connectionCountChanged(int count);

private:
    friend class HttpConnection;
    void handleNewConnections();
    void handleConnectionClosed(HttpConnection *connection);

    ApiHandler m_handler;
    Authenticator m_authenticator;
    std::shared_ptr<FaultInjector> m_faults;
    qint64 m_maxRequestBodyBytes = 3 * 1024 * 1024;
    std::chrono::milliseconds m_idleTimeout{ 90'000 };
    std::chrono::milliseconds m_readHeaderTimeout{ 32'000 };
    qint64 m_maxWatchBacklogBytes = 64 * 1024 * 1024;
    QSslServer *m_server = nullptr;
    QByteArray m_certificatePem;
    QByteArray m_privateKeyPem;
    QList<QPointer<HttpConnection>> m_connections;
    qint64 m_acceptedConnections = 0;
};

} // namespace reconscope::controller::cluster
