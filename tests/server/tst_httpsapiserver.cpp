#include "controller/cluster/server/authenticator.h"
#include "controller/cluster/server/certificates.h"
#include "controller/cluster/server/faultinjector.h"
#include "controller/cluster/server/httpsapiserver.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::tests;

namespace {

constexpr int timeoutMs = 15000;

nlohmann::json parseJson(const QByteArray &body)
{
    return nlohmann::json::parse(body.constBegin(), body.constEnd(), nullptr, false);
}

QByteArray rawGet(const QByteArray &path, const QByteArray &extraHeaders = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: raw\r\n" + extraHeaders
        + "\r\n";
}

QString text(const nlohmann::json &value)
{
    return QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump());
}

} // namespace

class tst_HttpsApiServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void clientCertificates_data();
    void clientCertificates();
    void unauthorizedIsKubeStatus();
    void bearerTokens_data();
    void bearerTokens();
    void requestConversion();
    void keepAliveSequentialRequests();
    void keepAlivePipelinedRequests();
    void keepAliveWithNetworkAccessManager();
    void connectionCloseHonoured();
    void requestBodies_data();
    void requestBodies();
    void oversizedBodyIsDrainedAndConnectionKept();
    void oversizedBodyWithExpectContinue();
    void chunkedRequestBody();
    void expectContinue();
    void watchStreamWithNetworkAccessManager();
    void watchFramingAndKeepAliveAfterFinish();
    void watchInitialEventsAndImmediateFinish();
    void disconnectCancelsWatch();
    void closeCancelsWatch();
    void largeResponse();
    void injectedLatency();
    void injectedThrottling();
    void injectedServerErrors();
    void droppedWatchAfterEvents();
    void droppedWatchAtRandom();
    void handlerExceptionIsInternalError();
    void slowWatcherIsDropped();
    void initialEventsAreNotABacklog();
    void idleConnectionClosed();
    void slowRequestHeadClosed();
    void failedHandshakesLeaveNothingBehind();

private:
    QNetworkReply *get(QNetworkAccessManager &manager,
                       const QString &path,
                       const CertifiedKey *identity,
                       const QByteArray &authorization = {});
    RawResponse rawRoundTrip(const QByteArray &request, const CertifiedKey *identity = nullptr);

    ClusterCertificates m_certificates;
    CertifiedKey m_otherCaAdmin;
    CertifiedKey m_expiredAdmin;
    std::unique_ptr<FakeApi> m_api;
    std::unique_ptr<HttpsApiServer> m_server;
    std::shared_ptr<FaultInjector> m_faults;
    quint16 m_port = 0;
};

void tst_HttpsApiServer::initTestCase()
{
    // One CA issues everything, so that the expired certificate fails for its dates alone.
    auto ca = CertificateAuthority::create();
    QVERIFY2(ca.ok(), ca.ok() ? "" : qPrintable(ca.error().message));
    m_certificates.ca = ca->pem();
    CertificateRequest server;
    server.commonName = u"kube-apiserver"_s;
    server.dnsNames = { u"localhost"_s };
    server.ipAddresses = { QHostAddress(QHostAddress::LocalHost) };
    server.serverAuth = true;
    CertificateRequest admin;
    admin.commonName = u"kubernetes-admin"_s;
    admin.organizations = { u"system:masters"_s };
    CertificateRequest viewer;
    viewer.commonName = u"viewer"_s;
    viewer.organizations = { u"reconscope:viewers"_s };
    CertificateRequest expired = admin;
    expired.validity = Validity::expired();
    for (auto [request, target] : { std::pair{ &server, &m_certificates.server },
                                    std::pair{ &admin, &m_certificates.admin },
                                    std::pair{ &viewer, &m_certificates.viewer },
                                    std::pair{ &expired, &m_expiredAdmin } }) {
        auto issued = ca->issue(*request);
        QVERIFY(issued.ok());
        *target = *issued;
    }

    auto otherCa = CertificateAuthority::create(u"kubernetes"_s);
    QVERIFY(otherCa.ok());
    auto otherAdmin = otherCa->issue(admin);
    QVERIFY(otherAdmin.ok());
    m_otherCaAdmin = *otherAdmin;
}

void tst_HttpsApiServer::init()
{
    m_api = std::make_unique<FakeApi>();
    m_server = std::make_unique<HttpsApiServer>(m_api->handler());
    QVERIFY(m_server
                ->setServerCertificate(m_certificates.server.certificatePem,
                                       m_certificates.server.privateKeyPem)
                .ok());
    Authenticator authenticator(m_certificates.ca.certificatePem);
    authenticator.addToken("admin-token", u"reconscope-token"_s, { u"system:masters"_s });
    authenticator.addToken(
        "viewer-token", u"reconscope-viewer-token"_s, { u"reconscope:viewers"_s });
    m_server->setAuthenticator(authenticator);
    m_faults = std::make_shared<FaultInjector>(42);
    m_server->setFaultInjector(m_faults);
    auto port = m_server->listen();
    QVERIFY2(port.ok(), port.ok() ? "" : qPrintable(port.error().message));
    m_port = *port;
    QVERIFY(m_port > 0);
    QCOMPARE(m_server->url(), QUrl(u"https://127.0.0.1:%1"_s.arg(m_port)));
}

void tst_HttpsApiServer::cleanup()
{
    m_server.reset();
    m_api.reset();
}

QNetworkReply *tst_HttpsApiServer::get(QNetworkAccessManager &manager,
                                       const QString &path,
                                       const CertifiedKey *identity,
                                       const QByteArray &authorization)
{
    QNetworkRequest request(QUrl(m_server->url().toString() + path));
    request.setSslConfiguration(clientTls(m_certificates.ca.certificatePem, identity));
    if (!authorization.isEmpty())
        request.setRawHeader("Authorization", authorization);
    return manager.get(request);
}

RawResponse tst_HttpsApiServer::rawRoundTrip(const QByteArray &request,
                                             const CertifiedKey *identity)
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, identity), m_port);
    client.send(request);
    QList<RawResponse> responses;
    (void)QTest::qWaitFor(
        [&] {
            responses = parseResponses(client.received);
            return (!responses.isEmpty() && responses.first().complete) || client.disconnected;
        },
        timeoutMs);
    return responses.value(0);
}

void tst_HttpsApiServer::clientCertificates_data()
{
    QTest::addColumn<QString>("identity");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QStringList>("groups");

    QTest::newRow("no certificate") << u"none"_s << 401 << QString() << QStringList();
    QTest::newRow("admin") << u"admin"_s << 200 << u"kubernetes-admin"_s
                           << QStringList{ u"system:masters"_s, u"system:authenticated"_s };
    QTest::newRow("viewer") << u"viewer"_s << 200 << u"viewer"_s
                            << QStringList{ u"reconscope:viewers"_s, u"system:authenticated"_s };
    QTest::newRow("other CA") << u"otherCa"_s << 401 << QString() << QStringList();
    QTest::newRow("expired") << u"expired"_s << 401 << QString() << QStringList();
    QTest::newRow("server certificate as client")
        << u"server"_s << 401 << QString() << QStringList();
}

void tst_HttpsApiServer::clientCertificates()
{
    QFETCH(QString, identity);
    QFETCH(int, status);
    QFETCH(QString, user);
    QFETCH(QStringList, groups);

    const CertifiedKey *key = nullptr;
    if (identity == u"admin")
        key = &m_certificates.admin;
    else if (identity == u"viewer")
        key = &m_certificates.viewer;
    else if (identity == u"otherCa")
        key = &m_otherCaAdmin;
    else if (identity == u"expired")
        key = &m_expiredAdmin;
    else if (identity == u"server")
        key = &m_certificates.server;

    QNetworkAccessManager manager;
    QNetworkReply *reply = get(manager, u"/echo"_s, key);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
    // The TLS handshake succeeds either way: authentication fails at the HTTP level.
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), status);
    if (status == 200) {
        const auto echo = parseJson(reply->readAll());
        QVERIFY(!echo.is_discarded());
        QCOMPARE(QString::fromStdString(echo["user"].get<std::string>()), user);
        QStringList seenGroups;
        for (const auto &group : echo["groups"])
            seenGroups << QString::fromStdString(group.get<std::string>());
        QCOMPARE(seenGroups, groups);
        QVERIFY(m_api->lastRequest.user.authenticated);
    } else {
        QCOMPARE(m_api->requestCount, 0); // the API never sees unauthenticated requests
    }
    reply->deleteLater();
}

void tst_HttpsApiServer::unauthorizedIsKubeStatus()
{
    const RawResponse response = rawRoundTrip(rawGet("/api"));
    QCOMPARE(response.status, 401);
    QCOMPARE(response.header("content-type"), QByteArray("application/json"));
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"
            "\n"));
}

void tst_HttpsApiServer::bearerTokens_data()
{
    QTest::addColumn<QString>("identity");
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("user");

    QTest::newRow("admin token") << u"none"_s << QByteArray("Bearer admin-token") << 200
                                 << u"reconscope-token"_s;
    QTest::newRow("scheme case-insensitive")
        << u"none"_s << QByteArray("bearer admin-token") << 200 << u"reconscope-token"_s;
    QTest::newRow("viewer token") << u"none"_s << QByteArray("Bearer viewer-token") << 200
                                  << u"reconscope-viewer-token"_s;
    QTest::newRow("unknown token") << u"none"_s << QByteArray("Bearer nope") << 401 << QString();
    QTest::newRow("empty token") << u"none"_s << QByteArray("Bearer ") << 401 << QString();
    QTest::newRow("basic auth") << u"none"_s << QByteArray("Basic YWRtaW46YWRtaW4=") << 401
                                << QString();
    QTest::newRow("token without scheme")
        << u"none"_s << QByteArray("admin-token") << 401 << QString();
    QTest::newRow("certificate wins over token")
        << u"admin"_s << QByteArray("Bearer viewer-token") << 200 << u"kubernetes-admin"_s;
    QTest::newRow("untrusted certificate, valid token")
        << u"otherCa"_s << QByteArray("Bearer viewer-token") << 200 << u"reconscope-viewer-token"_s;
}

void tst_HttpsApiServer::bearerTokens()
{
    QFETCH(QString, identity);
    QFETCH(QByteArray, authorization);
    QFETCH(int, status);
    QFETCH(QString, user);

    const CertifiedKey *key = identity == u"admin" ? &m_certificates.admin
        : identity == u"otherCa"                   ? &m_otherCaAdmin
                                                   : nullptr;
    const RawResponse response
        = rawRoundTrip(rawGet("/echo", "Authorization: " + authorization + "\r\n"), key);
    QCOMPARE(response.status, status);
    if (status == 200) {
        const auto echo = parseJson(response.body);
        QCOMPARE(QString::fromStdString(echo["user"].get<std::string>()), user);
    }
}

void tst_HttpsApiServer::requestConversion()
{
    QByteArray request = "PATCH "
                         "/echo/a%20b/"
                         "%C3%A9?labelSelector=app+in+(a,b)&fieldSelector=metadata.name%3Dx&plus=%"
                         "2B1&watch HTTP/1.1\r\n"
                         "Host: 127.0.0.1\r\n"
                         "X-Mixed-Case: Value\r\n"
                         "Content-Type: application/merge-patch+json\r\n"
                         "Content-Length: 11\r\n\r\n"
                         "{\"spec\":{}}";
    const RawResponse response = rawRoundTrip(request, &m_certificates.admin);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("warning"), QByteArray(R"(299 - "echoed")"));
    QCOMPARE(response.header("content-length").toLongLong(), response.body.size());
    const ApiRequest &seen = m_api->lastRequest;
    QCOMPARE(seen.method, QByteArray("PATCH"));
    QCOMPARE(seen.path, u"/echo/a b/é"_s);
    QCOMPARE(seen.query.queryItemValue(u"labelSelector"_s, QUrl::FullyDecoded), u"app in (a,b)"_s);
    QCOMPARE(seen.query.queryItemValue(u"fieldSelector"_s, QUrl::FullyDecoded),
             u"metadata.name=x"_s);
    QCOMPARE(seen.query.queryItemValue(u"plus"_s, QUrl::FullyDecoded), u"+1"_s);
    QVERIFY(seen.query.hasQueryItem(u"watch"_s));
    QCOMPARE(seen.header("x-mixed-case"), QByteArray("Value"));
    QCOMPARE(seen.header("content-type"), QByteArray("application/merge-patch+json"));
    QCOMPARE(seen.body, QByteArray("{\"spec\":{}}"));
    QCOMPARE(seen.user.name, u"kubernetes-admin"_s);
}

void tst_HttpsApiServer::keepAliveSequentialRequests()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    for (int i = 1; i <= 3; ++i) {
        client.send(rawGet("/version"));
        QTRY_COMPARE_WITH_TIMEOUT(parseResponses(client.received).size(), i, timeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).last().complete, timeoutMs);
    }
    const auto responses = parseResponses(client.received);
    for (const RawResponse &response : responses) {
        QCOMPARE(response.status, 200);
        QVERIFY(response.header("connection").isEmpty());
        QVERIFY(response.body.startsWith(R"({"major":"1")"));
    }
    QVERIFY(!client.disconnected);
    QCOMPARE(m_server->acceptedConnections(), 1);
    QCOMPARE(m_api->requestCount, 3);
}

void tst_HttpsApiServer::keepAlivePipelinedRequests()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/echo?n=1") + rawGet("/version") + rawGet("/echo?n=3"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 3
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(text(parseJson(responses.at(0).body)["query"]["n"]), QStringLiteral("1"));
    QVERIFY(responses.at(1).body.startsWith(R"({"major":"1")"));
    QCOMPARE(text(parseJson(responses.at(2).body)["query"]["n"]), QStringLiteral("3"));
    QCOMPARE(m_server->acceptedConnections(), 1);
}

void tst_HttpsApiServer::keepAliveWithNetworkAccessManager()
{
    QNetworkAccessManager manager;
    for (int i = 0; i < 5; ++i) {
        QNetworkReply *reply = get(manager, u"/version"_s, &m_certificates.admin);
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        reply->deleteLater();
    }
    QCOMPARE(m_server->acceptedConnections(), 1);
    QCOMPARE(m_server->connectionCount(), 1);
}

void tst_HttpsApiServer::connectionCloseHonoured()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/version", "Connection: close\r\n"));
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.size(), 1);
    QVERIFY(responses.first().complete);
    QCOMPARE(responses.first().header("connection"), QByteArray("close"));
}

void tst_HttpsApiServer::requestBodies_data()
{
    QTest::addColumn<qint64>("size");
    QTest::addColumn<int>("status");
    QTest::newRow("empty") << qint64(0) << 200;
    QTest::newRow("3 MiB") << qint64(3 * 1024 * 1024) << 200;
    QTest::newRow("3 MiB + 1") << qint64(3 * 1024 * 1024 + 1) << 413;
}

void tst_HttpsApiServer::requestBodies()
{
    QFETCH(qint64, size);
    QFETCH(int, status);

    QNetworkAccessManager manager;
    QNetworkRequest request(QUrl(m_server->url().toString() + u"/echo"_s));
    request.setSslConfiguration(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin));
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    QByteArray body(size, 'b');
    QNetworkReply *reply = manager.post(request, body);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), status);
    const auto json = parseJson(reply->readAll());
    QVERIFY(!json.is_discarded());
    if (status == 200) {
        QCOMPARE(json["bodySize"].get<qint64>(), size);
        QCOMPARE(text(json["method"]), QStringLiteral("POST"));
    } else {
        QCOMPARE(text(json["reason"]), QStringLiteral("RequestEntityTooLarge"));
        QCOMPARE(text(json["message"]),
                 QStringLiteral("Request entity too large: limit is 3145728"));
        QCOMPARE(json["code"].get<qint64>(), 413);
        QCOMPARE(m_api->requestCount, 0);
    }
    reply->deleteLater();
}

void tst_HttpsApiServer::oversizedBodyIsDrainedAndConnectionKept()
{
    m_server->setMaxRequestBodyBytes(1000);
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
                + QByteArray(5000, 'z') + rawGet("/version"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 2
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.first().status, 413);
    QCOMPARE(text(parseJson(responses.first().body)["message"]),
             u"Request entity too large: limit is 1000"_s);
    QCOMPARE(responses.at(1).status, 200);
    QCOMPARE(m_api->requestCount, 1); // only /version reached the API
    QVERIFY(!client.disconnected);
}

void tst_HttpsApiServer::oversizedBodyWithExpectContinue()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send("PUT /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                "Content-Length: 100000000\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.size(), 1); // no 100 Continue, straight to the answer
    QCOMPARE(responses.first().status, 413);
    QVERIFY(!client.received.contains("100 Continue"));
}

void tst_HttpsApiServer::chunkedRequestBody()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: y\r\n\r\n"
                + rawGet("/version"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 2
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.first().status, 200);
    const auto echo = parseJson(responses.first().body);
    QCOMPARE(echo["bodySize"].get<qint64>(), 12);
    QCOMPARE(text(echo["bodyHead"]), QStringLiteral("hello, world"));
    QCOMPARE(responses.at(1).status, 200);
}

void tst_HttpsApiServer::expectContinue()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(
        "PUT /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.received.startsWith("HTTP/1.1 100 Continue\r\n\r\n"),
                             timeoutMs);
    client.send("body");
    QTRY_VERIFY_WITH_TIMEOUT(!parseResponses(client.received).isEmpty()
                                 && parseResponses(client.received).first().complete,
                             timeoutMs);
    const RawResponse response = parseResponses(client.received).first();
    QCOMPARE(response.status, 200);
    QCOMPARE(parseJson(response.body)["bodySize"].get<qint64>(), 4);
}

void tst_HttpsApiServer::watchStreamWithNetworkAccessManager()
{
    QNetworkAccessManager manager;
    QNetworkReply *reply = get(manager, u"/watch"_s, &m_certificates.admin);
    QByteArray received;
    int readyReads = 0;
    connect(reply, &QNetworkReply::readyRead, this, [&] {
        ++readyReads;
        received += reply->readAll();
    });
    QSignalSpy metaData(reply, &QNetworkReply::metaDataChanged);
    // Headers arrive before any event: the stream is open and waiting.
    QVERIFY(metaData.wait(timeoutMs));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(reply->rawHeader("Content-Type"), QByteArray("application/json"));
    QCOMPARE(reply->rawHeader("Transfer-Encoding"), QByteArray("chunked"));
    QVERIFY(m_api->lastWatch);
    QCOMPARE(m_api->lastWatch->started, 1);
    QCOMPARE(m_server->activeWatchCount(), 1);

    const QByteArray first = R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                             "\n";
    const QByteArray second = R"({"type":"MODIFIED","object":{"metadata":{"name":"a"}}})"
                              "\n";
    m_api->lastWatch->send(first);
    QTRY_COMPARE_WITH_TIMEOUT(received, first, timeoutMs);
    QVERIFY(!reply->isFinished()); // delivered while the response is still open
    m_api->lastWatch->send(second);
    QTRY_COMPARE_WITH_TIMEOUT(received, first + second, timeoutMs);
    QVERIFY(readyReads >= 2);
    m_api->lastWatch->finish();
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(m_api->lastWatch->cancelled, 0);
    QCOMPARE(m_server->activeWatchCount(), 0);
    reply->deleteLater();
}

void tst_HttpsApiServer::watchFramingAndKeepAliveAfterFinish()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch?watch=true"));
    QTRY_VERIFY_WITH_TIMEOUT(m_api->lastWatch && m_api->lastWatch->started == 1, timeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(client.received.contains("\r\n\r\n"), timeoutMs);
    // Headers flushed at once, no Content-Length.
    QVERIFY(client.received.startsWith("HTTP/1.1 200 OK\r\n"));
    QVERIFY(!client.received.contains("Content-Length"));
    m_api->lastWatch->send("{\"type\":\"ADDED\"}\n");
    m_api->lastWatch->send("{\"type\":\"DELETED\"}"); // the sink adds the newline
    m_api->lastWatch->finish();
    m_api->lastWatch->send("{\"type\":\"late\"}\n"); // after finish: dropped
    client.send(rawGet("/version"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 2
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.first().chunks,
             QByteArrayList({ "{\"type\":\"ADDED\"}\n", "{\"type\":\"DELETED\"}\n" }));
    QVERIFY(responses.first().complete);
    QCOMPARE(responses.at(1).status, 200);
    QCOMPARE(m_server->acceptedConnections(), 1);
}

void tst_HttpsApiServer::watchInitialEventsAndImmediateFinish()
{
    m_api->watchInitialLines = { "{\"type\":\"ERROR\",\"object\":{\"code\":410}}\n" };
    m_api->watchFinishAtStart = true;
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch") + rawGet("/version"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 2
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.first().status, 200);
    QCOMPARE(responses.first().chunks.size(), 1);
    QVERIFY(responses.first().body.contains("410"));
    QCOMPARE(m_api->lastWatch->cancelled, 0);
}

void tst_HttpsApiServer::disconnectCancelsWatch()
{
    QSignalSpy cancelledSpy(m_server.get(), &HttpsApiServer::watchCancelled);
    auto client = std::make_unique<RawClient>(
        clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client->send(rawGet("/watch"));
    QTRY_VERIFY_WITH_TIMEOUT(m_api->lastWatch && m_api->lastWatch->started == 1, timeoutMs);
    QCOMPARE(m_server->activeWatchCount(), 1);
    client->abort();
    QTRY_COMPARE_WITH_TIMEOUT(m_api->lastWatch->cancelled, 1, timeoutMs);
    QCOMPARE(cancelledSpy.size(), 1);
    QCOMPARE(cancelledSpy.first().first().toString(), u"/watch"_s);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->connectionCount(), 0, timeoutMs);
    m_api->lastWatch->send("{}\n"); // the sink outlives the connection harmlessly
    QCOMPARE(m_api->lastWatch->cancelled, 1);
}

void tst_HttpsApiServer::closeCancelsWatch()
{
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch"));
    QTRY_VERIFY_WITH_TIMEOUT(m_api->lastWatch && m_api->lastWatch->started == 1, timeoutMs);
    m_server->close();
    QCOMPARE(m_api->lastWatch->cancelled, 1);
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    QVERIFY(!m_server->isListening());
}

void tst_HttpsApiServer::largeResponse()
{
    const qint64 size = 100 * 1000 * 1000;
    QNetworkAccessManager manager;
    QElapsedTimer timer;
    timer.start();
    QNetworkReply *reply = get(manager, u"/big?bytes=%1"_s.arg(size), &m_certificates.admin);
    qint64 received = 0;
    char last = 0;
    connect(reply, &QNetworkReply::readyRead, this, [&] {
        const QByteArray chunk = reply->readAll();
        received += chunk.size();
        if (!chunk.isEmpty())
            last = chunk.back();
    });
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 60000);
    received += reply->readAll().size();
    const qint64 elapsed = timer.elapsed();
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(), size);
    QCOMPARE(received, size);
    QCOMPARE(last, '\n');
    qInfo("100 MB response over TLS (server and client in one thread): %lld ms, %.0f MB/s",
          elapsed,
          size / 1e6 / (qMax<qint64>(elapsed, 1) / 1000.0));
    // The connection stays usable afterwards.
    QNetworkReply *after = get(manager, u"/version"_s, &m_certificates.admin);
    QTRY_VERIFY_WITH_TIMEOUT(after->isFinished(), timeoutMs);
    QCOMPARE(after->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(m_server->acceptedConnections(), 1);
    reply->deleteLater();
    after->deleteLater();
}

void tst_HttpsApiServer::injectedLatency()
{
    QNetworkAccessManager manager;
    // Warm the connection so that the handshake does not count.
    QNetworkReply *warm = get(manager, u"/version"_s, &m_certificates.admin);
    QTRY_VERIFY_WITH_TIMEOUT(warm->isFinished(), timeoutMs);
    warm->deleteLater();

    QElapsedTimer timer;
    timer.start();
    QNetworkReply *fast = get(manager, u"/version"_s, &m_certificates.admin);
    QTRY_VERIFY_WITH_TIMEOUT(fast->isFinished(), timeoutMs);
    const qint64 baseline = timer.elapsed();
    fast->deleteLater();

    m_faults->setLatency(std::chrono::milliseconds(300), std::chrono::milliseconds(100));
    timer.restart();
    QNetworkReply *slow = get(manager, u"/version"_s, &m_certificates.admin);
    QTRY_VERIFY_WITH_TIMEOUT(slow->isFinished(), timeoutMs);
    const qint64 delayed = timer.elapsed();
    QCOMPARE(slow->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    slow->deleteLater();
    QVERIFY2(delayed >= 300, qPrintable(u"delayed %1 ms"_s.arg(delayed)));
    QVERIFY2(delayed < 300 + 100 + 2000, qPrintable(u"delayed %1 ms"_s.arg(delayed)));
    QVERIFY2(baseline < delayed, qPrintable(u"baseline %1 ms"_s.arg(baseline)));
    qInfo("latency: baseline %lld ms, with 300+0..100 ms injected %lld ms", baseline, delayed);
}

void tst_HttpsApiServer::injectedThrottling()
{
    m_faults->setThrottleRate(1.0, 7);
    const RawResponse response = rawRoundTrip(rawGet("/version"), &m_certificates.admin);
    QCOMPARE(response.status, 429);
    QCOMPARE(response.header("retry-after"), QByteArray("7"));
    const auto status = parseJson(response.body);
    QCOMPARE(text(status["kind"]), QStringLiteral("Status"));
    QCOMPARE(text(status["reason"]), QStringLiteral("TooManyRequests"));
    QCOMPARE(status["details"]["retryAfterSeconds"].get<qint64>(), 7);
    QCOMPARE(status["code"].get<qint64>(), 429);
    QCOMPARE(m_api->requestCount, 0);
    QCOMPARE(m_faults->injectedErrors(), 1);

    m_faults->reset();
    QCOMPARE(rawRoundTrip(rawGet("/version"), &m_certificates.admin).status, 200);
}

void tst_HttpsApiServer::injectedServerErrors()
{
    m_faults->setServerErrorRate(1.0);
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    QByteArray requests;
    for (int i = 0; i < 20; ++i)
        requests += rawGet("/version");
    client.send(requests);
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 20
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    QSet<int> statuses;
    for (const RawResponse &response : parseResponses(client.received)) {
        statuses.insert(response.status);
        const auto status = parseJson(response.body);
        QCOMPARE(text(status["kind"]), QStringLiteral("Status"));
        QCOMPARE(status["code"].get<int>(), response.status);
        QCOMPARE(text(status["reason"]),
                 response.status == 500 ? u"InternalError"_s : u"ServiceUnavailable"_s);
    }
    QCOMPARE(statuses, QSet<int>({ 500, 503 }));
    QCOMPARE(m_api->requestCount, 0);

    // Half the requests fail at rate 0.5 (seeded): some of each.
    m_faults->setServerErrorRate(0.5);
    client.received.clear();
    client.send(requests);
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 20
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    QVERIFY(m_api->requestCount > 0 && m_api->requestCount < 20);
}

void tst_HttpsApiServer::droppedWatchAfterEvents()
{
    m_faults->setDropWatchAfterEvents(2);
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch"));
    QTRY_VERIFY_WITH_TIMEOUT(m_api->lastWatch && m_api->lastWatch->started == 1, timeoutMs);
    m_api->lastWatch->send("{\"n\":1}\n");
    m_api->lastWatch->send("{\"n\":2}\n");
    m_api->lastWatch->send("{\"n\":3}\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    const auto responses = parseResponses(client.received);
    QCOMPARE(responses.size(), 1);
    QCOMPARE(responses.first().chunks, QByteArrayList({ "{\"n\":1}\n", "{\"n\":2}\n" }));
    QVERIFY(!responses.first().complete); // cut, not ended
    QTRY_COMPARE_WITH_TIMEOUT(m_api->lastWatch->cancelled, 1, timeoutMs);
    QCOMPARE(m_faults->droppedWatches(), 1);
}

void tst_HttpsApiServer::droppedWatchAtRandom()
{
    m_faults->setWatchDropRate(1.0);
    QNetworkAccessManager manager;
    QNetworkReply *reply = get(manager, u"/watch"_s, &m_certificates.admin);
    QSignalSpy metaData(reply, &QNetworkReply::metaDataChanged);
    QVERIFY(metaData.wait(timeoutMs));
    m_api->lastWatch->send("{\"n\":1}\n");
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
    QVERIFY(reply->error() != QNetworkReply::NoError); // the client sees a broken stream
    QCOMPARE(reply->readAll(), QByteArray());
    QTRY_COMPARE_WITH_TIMEOUT(m_api->lastWatch->cancelled, 1, timeoutMs);
    reply->deleteLater();
}

void tst_HttpsApiServer::handlerExceptionIsInternalError()
{
    auto throwing = std::make_unique<HttpsApiServer>(
        [](const ApiRequest &) -> ApiResponse { throw std::runtime_error("boom"); });
    QVERIFY(throwing
                ->setServerCertificate(m_certificates.server.certificatePem,
                                       m_certificates.server.privateKeyPem)
                .ok());
    Authenticator authenticator(m_certificates.ca.certificatePem);
    throwing->setAuthenticator(authenticator);
    auto port = throwing->listen();
    QVERIFY(port.ok());
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), *port);
    client.send(rawGet("/x") + rawGet("/y"));
    QTRY_VERIFY_WITH_TIMEOUT(parseResponses(client.received).size() == 2
                                 && parseResponses(client.received).last().complete,
                             timeoutMs);
    for (const RawResponse &response : parseResponses(client.received)) {
        QCOMPARE(response.status, 500);
        QCOMPARE(text(parseJson(response.body)["message"]),
                 QStringLiteral("Internal error occurred: boom"));
    }
}

void tst_HttpsApiServer::slowWatcherIsDropped()
{
    m_server->setMaxWatchBacklogBytes(1000);
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch"));
    QTRY_VERIFY_WITH_TIMEOUT(m_api->lastWatch && m_api->lastWatch->started == 1, timeoutMs);
    QSignalSpy cancelled(m_server.get(), &HttpsApiServer::watchCancelled);
    // Without returning to the event loop nothing leaves the process: the backlog grows.
    const QByteArray event
        = "{\"type\":\"MODIFIED\",\"object\":{\"pad\":\"" + QByteArray(400, 'p') + "\"}}\n";
    for (int i = 0; i < 10; ++i)
        m_api->lastWatch->send(event);
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_api->lastWatch->cancelled, 1, timeoutMs);
    QCOMPARE(cancelled.size(), 1);
    const auto responses = parseResponses(client.received);
    QVERIFY(responses.size() == 1 && !responses.first().complete);
    QVERIFY(responses.first().chunks.size() < 10);
}

// A watch-list's initial events come at once, as a list's items do: however many bytes they take,
// they are the answer being read, not a client that does not read.
void tst_HttpsApiServer::initialEventsAreNotABacklog()
{
    m_server->setMaxWatchBacklogBytes(1000);
    const QByteArray event
        = "{\"type\":\"ADDED\",\"object\":{\"pad\":\"" + QByteArray(400, 'p') + "\"}}\n";
    m_api->watchInitialLines = QByteArrayList(10, event);
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), m_port);
    client.send(rawGet("/watch"));
    QTRY_VERIFY_WITH_TIMEOUT(!parseResponses(client.received).isEmpty()
                                 && parseResponses(client.received).first().chunks.size() == 10,
                             timeoutMs);
    QVERIFY(!client.disconnected);
    QCOMPARE(m_api->lastWatch->cancelled, 0);
}

void tst_HttpsApiServer::idleConnectionClosed()
{
    m_server.reset();
    m_server = std::make_unique<HttpsApiServer>(m_api->handler());
    QVERIFY(m_server
                ->setServerCertificate(m_certificates.server.certificatePem,
                                       m_certificates.server.privateKeyPem)
                .ok());
    m_server->setAuthenticator(Authenticator(m_certificates.ca.certificatePem));
    m_server->setIdleTimeout(std::chrono::milliseconds(300));
    auto port = m_server->listen();
    QVERIFY(port.ok());
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), *port);
    QTRY_VERIFY_WITH_TIMEOUT(client.encrypted, timeoutMs);
    QElapsedTimer timer;
    timer.start(); // the idle time starts after the response, so after this
    client.send(rawGet("/version"));
    QTRY_VERIFY_WITH_TIMEOUT(!parseResponses(client.received).isEmpty()
                                 && parseResponses(client.received).first().complete,
                             timeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    QVERIFY2(timer.elapsed() >= 300, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(parseResponses(client.received).size(), 1);
}

void tst_HttpsApiServer::slowRequestHeadClosed()
{
    m_server.reset();
    m_server = std::make_unique<HttpsApiServer>(m_api->handler());
    QVERIFY(m_server
                ->setServerCertificate(m_certificates.server.certificatePem,
                                       m_certificates.server.privateKeyPem)
                .ok());
    m_server->setAuthenticator(Authenticator(m_certificates.ca.certificatePem));
    m_server->setReadHeaderTimeout(std::chrono::milliseconds(300));
    auto port = m_server->listen();
    QVERIFY(port.ok());
    RawClient client(clientTls(m_certificates.ca.certificatePem, &m_certificates.admin), *port);
    QTRY_VERIFY_WITH_TIMEOUT(client.encrypted, timeoutMs);
    client.send("GET /version HTTP/1.1\r\nHost: x\r\n"); // never finished
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, timeoutMs);
    QVERIFY(client.received.isEmpty());
    QCOMPARE(m_api->requestCount, 0);
}

void tst_HttpsApiServer::failedHandshakesLeaveNothingBehind()
{
    // A client that does not trust the server aborts the handshake; one that speaks plain HTTP
    // never starts it. Neither may leave a socket behind.
    QSslConfiguration untrusting = QSslConfiguration::defaultConfiguration();
    untrusting.setCaCertificates({});
    RawClient rejecting(untrusting, m_port);
    QTcpSocket plain;
    plain.connectToHost(u"127.0.0.1"_s, m_port);
    QTRY_VERIFY_WITH_TIMEOUT(plain.state() == QAbstractSocket::ConnectedState, timeoutMs);
    plain.write("GET /version HTTP/1.1\r\nHost: x\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(rejecting.disconnected
                                 || rejecting.socket().state() == QAbstractSocket::UnconnectedState,
                             timeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(plain.state() == QAbstractSocket::UnconnectedState, timeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->findChildren<QSslSocket *>().size(), 0, timeoutMs);
    QCOMPARE(m_server->connectionCount(), 0);
    QCOMPARE(m_api->requestCount, 0);
    // The server still serves.
    QCOMPARE(rawRoundTrip(rawGet("/version"), &m_certificates.admin).status, 200);
}

QTEST_GUILESS_MAIN(tst_HttpsApiServer)
#include "tst_httpsapiserver.moc"
