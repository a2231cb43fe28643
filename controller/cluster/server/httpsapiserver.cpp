#include "controller/cluster/server/httpsapiserver.h"

#include "httpconnection.h"

#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

HttpsApiServer::HttpsApiServer(ApiHandler handler, QObject *parent)
    : QObject(parent)
    , m_handler(std::move(handler))
{ }

HttpsApiServer::~HttpsApiServer()
{
    close();
}

models::Status<> HttpsApiServer::setServerCertificate(const QByteArray &certificatePem,
                                                      const QByteArray &privateKeyPem)
{
    if (QSslCertificate::fromData(certificatePem, QSsl::Pem).isEmpty())
        return models::Status<>::failure(u"the server certificate is not PEM"_s);
    if (QSslKey(privateKeyPem, QSsl::Ec).isNull() && QSslKey(privateKeyPem, QSsl::Rsa).isNull())
        return models::Status<>::failure(u"the server key is neither an EC nor an RSA PEM key"_s);
    m_certificatePem = certificatePem;
    m_privateKeyPem = privateKeyPem;
    return {};
}

void HttpsApiServer::setAuthenticator(const Authenticator &authenticator)
{
    m_authenticator = authenticator;
}

void HttpsApiServer::setFaultInjector(std::shared_ptr<FaultInjector> faults)
{
    m_faults = std::move(faults);
}

models::Result<quint16> HttpsApiServer::listen(const QHostAddress &address, quint16 port)
{
    if (m_server)
        return models::Result<quint16>::failure(u"the server is already listening"_s);
    if (m_certificatePem.isEmpty())
        return models::Result<quint16>::failure(u"no server certificate"_s);
    QSslKey key(m_privateKeyPem, QSsl::Ec);
    if (key.isNull())
        key = QSslKey(m_privateKeyPem, QSsl::Rsa);

    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(QSslCertificate::fromData(m_certificatePem, QSsl::Pem));
    configuration.setPrivateKey(key);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    // Ask for a client certificate, do not require one: the request is authenticated afterwards
    // (kube-apiserver answers 401, not a failed handshake).
    configuration.setPeerVerifyMode(QSslSocket::QueryPeer);
    const QSslCertificate ca = m_authenticator.caCertificate();
    configuration.setCaCertificates(ca.isNull() ? QList<QSslCertificate>() : QList{ ca });
    configuration.setAllowedNextProtocols({ QSslConfiguration::NextProtocolHttp1_1 });

    auto *server = new QSslServer(this);
    server->setSslConfiguration(configuration);
    connect(server,
            &QTcpServer::pendingConnectionAvailable,
            this,
            &HttpsApiServer::handleNewConnections);
    if (!server->listen(address, port)) {
        const QString message = u"cannot listen on %1:%2: %3"_s.arg(
            address.toString(), QString::number(port), server->errorString());
        delete server;
        return models::Result<quint16>::failure(message);
    }
    m_server = server;
    return m_server->serverPort();
}

void HttpsApiServer::close()
{
    const auto connections = m_connections;
    m_connections.clear();
    for (const QPointer<HttpConnection> &connection : connections) {
        if (connection) {
            connection->disconnect(this);
            connection->shutdown();
            delete connection.data();
        }
    }
    if (m_server) {
        m_server->close();
        delete m_server;
        m_server = nullptr;
    }
}

bool HttpsApiServer::isListening() const
{
    return m_server && m_server->isListening();
}

quint16 HttpsApiServer::port() const
{
    return m_server ? m_server->serverPort() : 0;
}

QUrl HttpsApiServer::url() const
{
    if (!m_server)
        return {};
    QHostAddress address = m_server->serverAddress();
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        address = QHostAddress(QHostAddress::LocalHost);
    else if (address == QHostAddress::AnyIPv6)
        address = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(u"https"_s);
    url.setHost(address.toString());
    url.setPort(m_server->serverPort());
    return url;
}

int HttpsApiServer::connectionCount() const
{
    return static_cast<int>(std::count_if(
        m_connections.cbegin(), m_connections.cend(), [](const auto &c) { return !c.isNull(); }));
}

int HttpsApiServer::activeWatchCount() const
{
    return static_cast<int>(std::count_if(m_connections.cbegin(),
                                          m_connections.cend(),
                                          [](const auto &c) { return c && c->isWatching(); }));
}

void HttpsApiServer::handleNewConnections()
{
    while (m_server && m_server->hasPendingConnections()) {
        auto *socket = qobject_cast<QSslSocket *>(m_server->nextPendingConnection());
        if (!socket)
            continue;
        // As Go's net/http (and so kube-apiserver) does: no Nagle delay, so that a watch event
        // or a small response written after another is sent at once instead of waiting for the
        // client's delayed ACK.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        auto *connection = new HttpConnection(socket, this);
        connect(connection, &HttpConnection::closed, this, &HttpsApiServer::handleConnectionClosed);
        m_connections.append(connection);
        ++m_acceptedConnections;
        emit connectionCountChanged(connectionCount());
    }
}

void HttpsApiServer::handleConnectionClosed(HttpConnection *connection)
{
    m_connections.removeIf(
        [connection](const QPointer<HttpConnection> &c) { return c.isNull() || c == connection; });
    emit connectionCountChanged(connectionCount());
}

} // namespace reconscope::controller::cluster
