#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace reconscope::controller::operators {

// A tiny HTTP/1.1 endpoint for Prometheus: GET /metrics answers the text exposition format
// (version 0.0.4), GET /healthz and /readyz answer "ok", anything else 404. One request per
// connection (Connection: close), as a scraper needs.
class MetricsEndpoint final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsEndpoint)

public:
    using Source = std::function<QByteArray()>;

    explicit MetricsEndpoint(Source source, QObject *parent = nullptr);
    ~MetricsEndpoint() override;

    // "127.0.0.1:8080", ":8080" (all interfaces), "localhost:0" (any free port). False with
    // errorString() set when the address is malformed or cannot be bound.
    bool listen(const QString &bindAddress);
    quint16 port() const;
    QString errorString() const { return m_error; }

    // Splits "host:port" (host may be empty or a bracketed IPv6 address).
    static bool parseBindAddress(const QString &text, QHostAddress *address, quint16 *port);

private:
    void handleConnection();
    void handleReadyRead(QTcpSocket *socket);

    Source m_source;
    QTcpServer *m_server;
    QString m_error;
};

} // namespace reconscope::controller::operators
