#pragma once

// A small HTTP/1.1 server for the kube tests: plain TCP or TLS (QSslServer, client certificates
// requested but not required). Each request is handed to `handler`, which answers with respond()
// or streams with startStream()/writeChunk()/endStream().

#include <QHostAddress>
#include <QList>
#include <QMap>
#include <QPointer>
#include <QSslConfiguration>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QUrl>
#include <QUrlQuery>

#include <functional>
#include <memory>

struct TestRequest
{
    QByteArray method;
    QByteArray target; // as sent: path and query, percent-encoded
    QString path;
    QUrlQuery query;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;
    QString clientCommonName; // from the TLS client certificate

    QString queryValue(const QString &key) const
    {
        return query.queryItemValue(key, QUrl::FullyDecoded);
    }
};

class TestServer
{
public:
    using Handler = std::function<void(const TestRequest &, QTcpSocket *)>;

    // Without ssl: plain HTTP.
    explicit TestServer(std::optional<QSslConfiguration> ssl = std::nullopt)
    {
        if (ssl) {
            auto *server = new QSslServer;
            server->setSslConfiguration(*ssl);
            m_server.reset(server);
        } else {
            m_server.reset(new QTcpServer);
        }
        QObject::connect(
            m_server.get(), &QTcpServer::pendingConnectionAvailable, m_server.get(), [this] {
                while (QTcpSocket *socket = m_server->nextPendingConnection())
                    accept(socket);
            });
        m_server->listen(QHostAddress::LocalHost);
    }

    quint16 port() const { return m_server->serverPort(); }
    QString url(const QString &scheme = QStringLiteral("https")) const
    {
        return QStringLiteral("%1://127.0.0.1:%2").arg(scheme).arg(port());
    }

    Handler handler;
    QList<TestRequest> requests;
    QList<QPointer<QTcpSocket>> sockets;

    static void
    respond(QTcpSocket *socket, int status, const QByteArray &contentType, const QByteArray &body)
    {
        QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: "
            + contentType + "\r\nContent-Length: " + QByteArray::number(body.size())
            + "\r\nConnection: close\r\n\r\n";
        socket->write(head + body);
        socket->disconnectFromHost();
    }
    static void startStream(QTcpSocket *socket)
    {
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    }
    static void writeChunk(QTcpSocket *socket, const QByteArray &bytes)
    {
        socket->write(QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n");
    }
    static void endStream(QTcpSocket *socket)
    {
        socket->write("0\r\n\r\n");
        socket->disconnectFromHost();
    }
    // Closes every open connection abruptly (a network failure mid-stream).
    void dropConnections()
    {
        for (const auto &socket : std::as_const(sockets)) {
            if (socket)
                socket->abort();
        }
    }

private:
    void accept(QTcpSocket *socket)
    {
        sockets << socket;
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
            *buffer += socket->readAll();
            const auto end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            TestRequest request;
            const QList<QByteArray> lines = buffer->left(end).split('\n');
            const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
            request.method = first.value(0);
            request.target = first.value(1);
            const QUrl target(QString::fromLatin1(first.value(1)));
            request.path = target.path(QUrl::FullyDecoded);
            request.query = QUrlQuery(target);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const auto colon = lines[i].indexOf(':');
                if (colon > 0) {
                    request.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                           lines[i].mid(colon + 1).trimmed());
                }
            }
            const qsizetype length = request.headers.value("content-length", "0").toLongLong();
            if (buffer->size() < end + 4 + length)
                return;
            request.body = buffer->mid(end + 4, length);
            buffer->remove(0, end + 4 + length);
            if (auto *ssl = qobject_cast<QSslSocket *>(socket)) {
                request.clientCommonName
                    = ssl->peerCertificate().subjectInfo(QSslCertificate::CommonName).join(u',');
            }
            requests << request;
            if (handler)
                handler(request, socket);
        });
    }

    std::unique_ptr<QTcpServer> m_server;
};
