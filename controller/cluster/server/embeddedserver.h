#pragma once

#include "certificates.h"
#include "controller/cluster/server/httpsapiserver.h"
#include "faultinjector.h"
#include "kubeconfigwriter.h"
#include "models/result.h"

#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QUrl>

#include <functional>
#include <memory>

namespace reconscope::controller::cluster {

class EmbeddedServer;

// Builds the API semantics for a server. Called once by EmbeddedServer::start() on the server's
// thread; objects it creates can be parented to `server` (they are destroyed after the transport)
// and can hook the server's FaultInjector (e.g. setHistoryWindowHook).
using ApiHandlerFactory = std::function<ApiHandler(EmbeddedServer &server)>;

struct EmbeddedServerOptions
{
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0; // 0: any free port
    QString kubeconfigPath; // written at start when set
    QByteArray adminToken; // random when empty; user "reconscope-token", group system:masters
    QByteArray
        viewerToken; // random when empty; user "reconscope-viewer-token", group reconscope:viewers
};

// The embedded cluster as a whole: certificates, authentication, the HTTPS transport around the
// API handler, fault injection, the kubeconfig. `reconscope serve` runs one on the main thread;
// the GUI runs one on a QThread of its own:
//
//     auto *server = new EmbeddedServer(factory, options);
//     server->moveToThread(thread);
//     connect(server, &EmbeddedServer::started, gui, ...);
//     QMetaObject::invokeMethod(server, [server] { (void)server->start(); });
//     // to end: QMetaObject::invokeMethod(server, &QObject::deleteLater); thread->quit(); wait()
//
// Everything it creates (server, connections, handler objects) lives on the thread start() runs on.
class EmbeddedServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EmbeddedServer)

public:
    explicit EmbeddedServer(ApiHandlerFactory factory,
                            EmbeddedServerOptions options = {},
                            QObject *parent = nullptr);
    ~EmbeddedServer() override;

    // Generates certificates, builds the handler, listens, writes the kubeconfig; emits started()
    // or startFailed(). After stop(), start() again is a restart of the API server alone: the same
    // handler (cluster state), certificates, tokens and port; every connection and watch is cut,
    // as when kube-apiserver restarts.
    models::Status<> start();
    void stop();

    // Valid once started (thread-safe to read after started() was received).
    bool isRunning() const { return m_running; }
    QUrl url() const { return m_url; }
    quint16 port() const { return static_cast<quint16>(m_url.port()); }
    const ClusterCertificates &certificates() const { return m_certificates; }
    KubeconfigContent kubeconfig() const;
    QByteArray adminToken() const { return m_options.adminToken; }
    QByteArray viewerToken() const { return m_options.viewerToken; }
    QString kubeconfigPath() const { return m_options.kubeconfigPath; }

    std::shared_ptr<FaultInjector> faultInjector() const { return m_faults; }
    HttpsApiServer *httpServer() const { return m_http; }

signals:
    void started(const QUrl &url);
    void startFailed(const QString &message);
    void stopped();

private:
    models::Status<> fail(const QString &message);

    ApiHandlerFactory m_factory;
    EmbeddedServerOptions m_options;
    std::shared_ptr<FaultInjector> m_faults;
    ClusterCertificates m_certificates;
    ApiHandler m_handler; // built once by the factory
    QPointer<HttpsApiServer> m_http;
    QUrl m_url;
    bool m_running = false;
};

} // namespace reconscope::controller::cluster
