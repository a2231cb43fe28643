#include "controller/operator/metricsendpoint.h"

#include <QTcpServer>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace reconscope::controller::operators {

MetricsEndpoint::MetricsEndpoint(Source source, QObject *parent)
    : QObject(parent)
    , m_source(std::move(source))
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &MetricsEndpoint::handleConnection);
}

MetricsEndpoint::~MetricsEndpoint() = default;

bool MetricsEndpoint::parseBindAddress(const QString &text, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = text.lastIndexOf(u':');
    if (colon < 0)
        return false;
    QString host = text.left(colon);
    bool ok = false;
    const uint number = text.mid(colon + 1).toUInt(&ok);
    if (!ok || number > 65535)
        return false;
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host.isEmpty())
        *address = QHostAddress(QHostAddress::Any);
    else if (host == u"localhost")
        *address = QHostAddress(QHostAddress::LocalHost);
    else if (!address->setAddress(host))
        return false;
    *port = quint16(number);
    return true;
}

bool MetricsEndpoint::listen(const QString &bindAddress)
{
    QHostAddress address;
    quint16 port = 0;
    if (!parseBindAddress(bindAddress, &address, &port)) {
        m_error = u"invalid metrics bind address \"%1\" (want host:port)"_s.arg(bindAddress);
        return false;
    }
    if (!m_server->listen(address, port)) {
        m_error = u"cannot listen on %1: %2"_s.arg(bindAddress, m_server->errorString());
        return false;
    }
    return true;
}

quint16 MetricsEndpoint::port() const
{
    return m_server->serverPort();
}

void MetricsEndpoint::handleConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { handleReadyRead(socket); });
    }
}

void MetricsEndpoint::handleReadyRead(QTcpSocket *socket)
{
    if (socket->property("answered").toBool())
        return;
    QByteArray request = socket->property("buffer").toByteArray() + socket->readAll();
    if (request.size() > 64 * 1024) {
        socket->abort();
        return;
    }
    if (!request.contains("\r\n\r\n")) {
        socket->setProperty("buffer", request);
        return;
    }
    socket->setProperty("answered", true);
    const QList<QByteArray> line = request.left(request.indexOf("\r\n")).split(' ');
    QByteArray status = "200 OK";
    QByteArray type = "text/plain; charset=utf-8";
    QByteArray body;
    const QByteArray path = line.size() >= 2 ? line[1].split('?').first() : QByteArray();
    if (line.size() < 3 || (line[0] != "GET" && line[0] != "HEAD")) {
        status = "405 Method Not Allowed";
        body = "method not allowed\n";
    } else if (path == "/metrics") {
        type = "text/plain; version=0.0.4; charset=utf-8";
        body = m_source();
    } else if (path == "/healthz" || path == "/readyz") {
        body = "ok\n";
    } else {
        status = "404 Not Found";
        body = "404 page not found\n";
    }
    QByteArray response = "HTTP/1.1 " + status + "\r\nContent-Type: " + type
        + "\r\nContent-Length: " + QByteArray::number(body.size())
        + "\r\nConnection: close\r\n\r\n";
    if (line.value(0) != "HEAD")
        response += body;
    socket->write(response);
    socket->disconnectFromHost();
}

} // namespace reconscope::controller::operators
