#include "controller/kube/clientconfig.h"
#include "controller/kube/credentialprovider.h"
#include "controller/kube/fastlist/streamedget.h"
#include "controller/kube/restclient.h"
#include "testpki.h"
#include "testserver.h"

#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;

class tst_RestClient final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void urls_data();
    void urls();
    void getWithClientCertificate();
    void statusErrors_data();
    void statusErrors();
    void plainText404();
    void listFollowsContinue();
    void listRestartsWhenContinueExpires();
    void mutations();
    void int64SurvivesRoundTrip();
    void rotatedTokenFileRetriedOn401();
    void execPluginReRunOn401();
    void tlsWrongCa();
    void tlsExpiredServerCertificate();
    void tlsHostNameMismatchAndServerName();
    void connectionRefused();
    void proxyUrlTunnelsThroughProxy();
    void watchStreamsEvents();
    void silentWatchIsConsideredDead();
    void streamedListFraming_data();
    void streamedListFraming();
    void streamedListErrors_data();
    void streamedListErrors();
    void streamedListRetries();
    void streamedListLargeBodyInOrder_data();
    void streamedListLargeBodyInOrder();
    void streamedGetStopsAndGoesOn();

private:
    QSslConfiguration serverSsl(const QString &certificate, const QString &key) const;
    ClientConfig clientConfig() const;

    QTemporaryDir m_pki;
    std::unique_ptr<TestServer> m_server;
};

namespace {

using JsonResult = RestClient::JsonResult;

template<typename T>
std::optional<T> waitFor(const std::function<void(std::function<void(T)>)> &start)
{
    std::optional<T> result;
    start([&](T value) { result.emplace(std::move(value)); });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 10000))
        return std::nullopt;
    return result;
}

std::optional<JsonResult> waitJson(const std::function<void(RestClient::JsonCallback)> &start)
{
    return waitFor<JsonResult>([&](std::function<void(JsonResult)> done) { start(done); });
}

const ResourceRef CustomApps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true };

QString errorText(const JsonResult &result)
{
    return result.ok() ? QString() : result.error().toString();
}

// An exec credential plugin that hands out token-1, token-2, ... (one more at each run, counted
// in `runs` in its working directory, `dir`); its path, empty when it could not be written.
QString writeCountingExecPlugin(const QTemporaryDir &dir)
{
    const QString script = dir.filePath(u"plugin.sh"_s);
    QFile file(script);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n"
               "n=$(cat runs 2>/dev/null || echo 0); n=$((n + 1)); echo $n > runs\n"
               "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
               "\"ExecCredential\",\"status\":{\"token\":\"token-%s\"}}' $n\n");
    file.close();
    QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return script;
}

// A streamed list (ListStream::onItem) read through one transport: the items as handed out.
struct StreamedList
{
    std::optional<ApiError> error;
    QList<QByteArray> items;
    QString resourceVersion;
};

// `transport`: the list fast path's StreamedGet, or null for QNetworkAccessManager.
StreamedList listStreamed(RestClient &client, std::shared_ptr<const PageTransport> transport)
{
    auto items = std::make_shared<QList<QByteArray>>();
    ListOptions options;
    options.limit = 0;
    options.resourceVersion = u"0"_s;
    ListStream stream;
    stream.onItem = [items](QByteArrayView item) {
        items->append(item.toByteArray());
    };
    stream.transport = std::move(transport);
    using ListResult = reconscope::models::Result<ListPage, ApiError>;
    const auto result = waitFor<ListResult>(
        [&](auto done) { client.list(CustomApps, {}, options, done, stream); });
    StreamedList list;
    if (!result) {
        list.error = ApiError::make(ApiError::Category::Network, u"no answer in 10 s"_s);
        return list;
    }
    if (!result->ok())
        list.error = result->error();
    else
        list.resourceVersion = result->value().resourceVersion;
    list.items = *items;
    return list;
}

QByteArray gzipped(const QByteArray &bytes)
{
    z_stream stream{};
    deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(qsizetype(deflateBound(&stream, uLong(bytes.size()))), Qt::Uninitialized);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
    stream.avail_in = uInt(bytes.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.truncate(qsizetype(stream.total_out));
    deflateEnd(&stream);
    return out;
}

// Writes the pieces one event-loop turn apart (each its own read on the other side), then closes.
void writeApart(QTcpSocket *socket, QList<QByteArray> pieces, int gapMs = 1)
{
    if (pieces.isEmpty()) {
        socket->disconnectFromHost();
        return;
    }
    socket->write(pieces.takeFirst());
    socket->flush();
    QTimer::singleShot(
        gapMs, socket, [socket, pieces, gapMs] { writeApart(socket, pieces, gapMs); });
}

QByteArray chunk(const QByteArray &bytes, const QByteArray &extension = {})
{
    return QByteArray::number(bytes.size(), 16) + extension + "\r\n" + bytes + "\r\n";
}

const QByteArray ListHead = R"({"apiVersion":"infrastructure.internal.net/v1","items":[)";
const QByteArray ListTail = R"(],"kind":"CustomAppList","metadata":{"resourceVersion":"42"}})";

QList<QByteArray> listItems()
{
    QList<QByteArray> items;
    for (int i = 0; i < 40; ++i) {
        items << R"({"metadata":{"name":"app-)" + QByteArray::number(i)
                + R"(","namespace":"default"},"spec":{"note":")" + QByteArray(i * 37, 'x')
                + R"( \"quoted\" \u00e9"}})";
    }
    return items;
}

QByteArray listBody()
{
    return ListHead + listItems().join(',') + ListTail;
}

} // namespace

void tst_RestClient::initTestCase()
{
    QVERIFY(m_pki.isValid());
    QString error;
    QVERIFY2(testpki::generate(m_pki.path(), &error), qPrintable(error));
    QVERIFY2(testpki::generateExpired(m_pki.path(), &error), qPrintable(error));
}

QSslConfiguration tst_RestClient::serverSsl(const QString &certificate, const QString &key) const
{
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setLocalCertificate(QSslCertificate(testpki::read(m_pki.filePath(certificate))));
    ssl.setPrivateKey(QSslKey(testpki::read(m_pki.filePath(key)), QSsl::Rsa));
    ssl.setCaCertificates(QSslCertificate::fromData(testpki::read(m_pki.filePath(u"ca.crt"_s))));
    ssl.setPeerVerifyMode(QSslSocket::QueryPeer);
    return ssl;
}

ClientConfig tst_RestClient::clientConfig() const
{
    ClientConfig config;
    config.server = QUrl(m_server->url());
    config.caCertificates = *pem::parseCertificates(testpki::read(m_pki.filePath(u"ca.crt"_s)));
    config.clientCertificate
        = *pem::parseCertificate(testpki::read(m_pki.filePath(u"client.crt"_s)));
    config.clientKey = *pem::parsePrivateKey(testpki::read(m_pki.filePath(u"client.key"_s)));
    config.origin = u"test"_s;
    return config;
}

void tst_RestClient::init()
{
    m_server = std::make_unique<TestServer>(serverSsl(u"server.crt"_s, u"server.key"_s));
    QVERIFY(m_server->port() != 0);
}

void tst_RestClient::cleanup()
{
    m_server.reset();
}

void tst_RestClient::urls_data()
{
    QTest::addColumn<QString>("group");
    QTest::addColumn<bool>("namespaced");
    QTest::addColumn<QString>("namespace_");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("subresource");
    QTest::addColumn<QString>("expected");
    QTest::newRow("namespaced collection")
        << u"G"_s << true << u"default"_s << QString() << QString()
        << u"/apis/G/v1/namespaces/default/customapps"_s;
    QTest::newRow("all namespaces")
        << u"G"_s << true << QString() << QString() << QString() << u"/apis/G/v1/customapps"_s;
    QTest::newRow("object status") << u"G"_s << true << u"ns"_s << u"my-app"_s << u"status"_s
                                   << u"/apis/G/v1/namespaces/ns/customapps/my-app/status"_s;
    QTest::newRow("cluster scoped ignores namespace")
        << u"G"_s << false << u"ns"_s << u"x"_s << QString() << u"/apis/G/v1/customapps/x"_s;
    QTest::newRow("core group") << QString() << true << u"kube-system"_s << u"p"_s << QString()
                                << u"/api/v1/namespaces/kube-system/customapps/p"_s;
}

void tst_RestClient::urls()
{
    QFETCH(QString, group);
    QFETCH(bool, namespaced);
    QFETCH(QString, namespace_);
    QFETCH(QString, name);
    QFETCH(QString, subresource);
    QFETCH(QString, expected);
    const ResourceRef ref{ group, u"v1"_s, u"customapps"_s, namespaced };
    QCOMPARE(name.isEmpty() ? ref.collectionPath(namespace_)
                            : ref.objectPath(namespace_, name, subresource),
             expected);
}

void tst_RestClient::getWithClientCertificate()
{
    m_server->handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket,
                            200,
                            "application/json",
                            R"({"kind":"CustomApp","metadata":{"name":"my-app"}})"
                            "\n");
    };
    RestClient client(clientConfig());
    const auto result
        = waitJson([&](auto done) { client.get(CustomApps, u"default"_s, u"my-app"_s, done); });
    QVERIFY(result);
    QVERIFY2(result->ok(), qPrintable(errorText(*result)));
    QCOMPARE(result->value()["metadata"]["name"], "my-app");
    QCOMPARE(m_server->requests.size(), 1);
    const TestRequest &request = m_server->requests.first();
    QCOMPARE(request.method, QByteArray("GET"));
    QCOMPARE(request.path,
             u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/my-app"_s);
    QCOMPARE(request.clientCommonName, u"kubernetes-admin"_s);
    QCOMPARE(request.headers.value("user-agent"), QByteArray("reconscope/" RECONSCOPE_VERSION));
    QCOMPARE(request.headers.value("accept"), QByteArray("application/json"));
    QVERIFY(!request.headers.contains("authorization"));
}

void tst_RestClient::statusErrors_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("detailsKind");
    QTest::addColumn<int>("causes");

    QTest::newRow("409 Conflict")
        << 409
        << QByteArray(
               R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"my-app\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":409})")
        << u"Conflict"_s
        << u"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"my-app\": the object has been modified; please apply your changes to the latest version and try again"_s
        << u"customapps"_s << 0;
    QTest::newRow("403 Forbidden")
        << 403
        << QByteArray(
               R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customapps.infrastructure.internal.net \"my-app\" is forbidden: User \"x\" cannot patch resource \"customapps/status\" in API group \"infrastructure.internal.net\" in the namespace \"default\"","reason":"Forbidden","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":403})")
        << u"Forbidden"_s
        << u"customapps.infrastructure.internal.net \"my-app\" is forbidden: User \"x\" cannot patch resource \"customapps/status\" in API group \"infrastructure.internal.net\" in the namespace \"default\""_s
        << u"customapps"_s << 0;
    QTest::newRow("422 Invalid with causes")
        << 422
        << QByteArray(
               R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CustomApp.infrastructure.internal.net \"my-app\" is invalid: spec.replicas: Invalid value: -1","reason":"Invalid","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"CustomApp","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1","field":"spec.replicas"}]},"code":422})")
        << u"Invalid"_s
        << u"CustomApp.infrastructure.internal.net \"my-app\" is invalid: spec.replicas: Invalid value: -1"_s
        << u"CustomApp"_s << 1;
    QTest::newRow("415 without details")
        << 415
        << QByteArray(
               R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415})")
        << u"UnsupportedMediaType"_s
        << u"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"_s
        << QString() << 0;
}

void tst_RestClient::statusErrors()
{
    QFETCH(int, code);
    QFETCH(QByteArray, body);
    QFETCH(QString, reason);
    QFETCH(QString, message);
    QFETCH(QString, detailsKind);
    QFETCH(int, causes);
    m_server->handler = [&](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, code, "application/json", body + '\n');
    };
    RestClient client(clientConfig());
    const auto result = waitJson([&](auto done) {
        client.update(CustomApps,
                      u"default"_s,
                      u"my-app"_s,
                      nlohmann::json{ { "metadata", { { "resourceVersion", "1" } } } },
                      done);
    });
    QVERIFY(result);
    QVERIFY(!result->ok());
    const ApiError &error = result->error();
    QCOMPARE(error.category, ApiError::Category::Status);
    QCOMPARE(error.code, code);
    QCOMPARE(error.reason, reason);
    QCOMPARE(error.message, message);
    QCOMPARE(error.kind, detailsKind);
    QCOMPARE(error.causes.size(), causes);
    QCOMPARE(error.isConflict(), code == 409);
    QCOMPARE(error.isForbidden(), code == 403);
    if (causes)
        QCOMPARE(error.causes.first().field, u"spec.replicas"_s);
    if (!detailsKind.isEmpty()) {
        QCOMPARE(error.name, u"my-app"_s);
        QCOMPARE(error.group, u"infrastructure.internal.net"_s);
    }
    QVERIFY(error.toString().startsWith(reason + u" ("_s + QString::number(code) + u"): "_s));
    QCOMPARE(m_server->requests.first().method, QByteArray("PUT"));
}

void tst_RestClient::plainText404()
{
    m_server->handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 404, "text/plain; charset=utf-8", "404 page not found\n");
    };
    RestClient client(clientConfig());
    const ResourceRef unknown{ u"nope.example"_s, u"v1"_s, u"things"_s, true };
    const auto result = waitJson([&](auto done) { client.get(unknown, u"a"_s, u"b"_s, done); });
    QVERIFY(result);
    QVERIFY(!result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Http);
    QCOMPARE(result->error().code, 404);
    QVERIFY(result->error().isNotFound());
    QCOMPARE(result->error().reason, u"NotFound"_s);
    QCOMPARE(result->error().message, u"404 page not found"_s);
}

void tst_RestClient::listFollowsContinue()
{
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        const QString token = request.queryValue(u"continue"_s);
        if (token.isEmpty()) {
            TestServer::respond(
                socket,
                200,
                "application/json",
                R"({"apiVersion":"G/v1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"kind":"CustomAppList","metadata":{"continue":"page+2","resourceVersion":"77","remainingItemCount":1}})");
        } else {
            TestServer::respond(
                socket,
                200,
                "application/json",
                R"({"apiVersion":"G/v1","items":[{"metadata":{"name":"c"}}],"kind":"CustomAppList","metadata":{"continue":"","resourceVersion":"77"}})");
        }
    };
    RestClient client(clientConfig());
    ListOptions options;
    options.limit = DefaultListPageSize;
    options.resourceVersion = u"0"_s;
    options.labelSelector = u"app in (a,b)"_s;
    options.fieldSelector = u"spec.note=x+y"_s;
    using ListResult = reconscope::models::Result<ListPage, ApiError>;
    const auto result = waitFor<ListResult>(
        [&](auto done) { client.list(CustomApps, u"default"_s, options, done); });
    QVERIFY(result && result->ok());
    QCOMPARE(result->value().items.size(), 3);
    QCOMPARE(result->value().resourceVersion, u"77"_s);
    QCOMPARE(m_server->requests.size(), 2);
    const TestRequest &first = m_server->requests[0];
    QCOMPARE(first.queryValue(u"limit"_s), u"500"_s);
    QCOMPARE(first.queryValue(u"resourceVersion"_s), u"0"_s);
    QCOMPARE(first.queryValue(u"labelSelector"_s), u"app in (a,b)"_s);
    // A '+' must reach a Go server as %2B (a literal '+' in a query means a space there).
    QCOMPARE(first.queryValue(u"fieldSelector"_s), u"spec.note=x+y"_s);
    QVERIFY2(first.target.contains("fieldSelector=spec.note%3Dx%2By"), first.target.constData());
    QVERIFY2(first.target.contains("labelSelector=app%20in%20%28a%2Cb%29"),
             first.target.constData());
    const TestRequest &second = m_server->requests[1];
    QCOMPARE(second.queryValue(u"continue"_s), u"page+2"_s);
    QVERIFY2(second.target.contains("continue=page%2B2"), second.target.constData());
    QVERIFY(!second.query.hasQueryItem(u"resourceVersion"_s));
    QCOMPARE(second.queryValue(u"limit"_s), u"500"_s);
}

void tst_RestClient::listRestartsWhenContinueExpires()
{
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        if (request.query.hasQueryItem(u"continue"_s)) {
            TestServer::respond(
                socket,
                410,
                "application/json",
                R"({"kind":"Status","apiVersion":"v1","metadata":{"continue":"fresh"},"status":"Failure","message":"The provided continue parameter is too old","reason":"Expired","code":410})");
        } else if (request.query.hasQueryItem(u"limit"_s)) {
            TestServer::respond(
                socket,
                200,
                "application/json",
                R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"old","resourceVersion":"5"}})");
        } else {
            TestServer::respond(
                socket,
                200,
                "application/json",
                R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"metadata":{"continue":"","resourceVersion":"9"}})");
        }
    };
    RestClient client(clientConfig());
    using ListResult = reconscope::models::Result<ListPage, ApiError>;
    const auto result = waitFor<ListResult>([&](auto done) {
        client.list(CustomApps, {}, ListOptions{ .limit = DefaultListPageSize }, done);
    });
    QVERIFY(result && result->ok());
    QCOMPARE(result->value().items.size(), 2);
    QCOMPARE(result->value().resourceVersion, u"9"_s);
    QCOMPARE(m_server->requests.size(), 3);
    QCOMPARE(m_server->requests[0].path, u"/apis/infrastructure.internal.net/v1/customapps"_s);
}

void tst_RestClient::mutations()
{
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        TestServer::respond(socket,
                            request.method == "POST" ? 201 : 200,
                            "application/json",
                            R"({"kind":"CustomApp"})");
    };
    RestClient client(clientConfig());
    auto expectOk = [](const std::optional<JsonResult> &result) {
        return result && result->ok();
    };
    QVERIFY(expectOk(waitJson([&](auto done) {
        client.create(CustomApps, u"default"_s, nlohmann::json{ { "kind", "CustomApp" } }, done);
    })));
    QVERIFY(expectOk(waitJson([&](auto done) {
        client.patch(CustomApps,
                     u"default"_s,
                     u"my-app"_s,
                     PatchType::Merge,
                     R"({"status":{"phase":"Ready"}})",
                     done,
                     u"status"_s);
    })));
    QVERIFY(expectOk(waitJson([&](auto done) {
        client.patch(CustomApps,
                     u"default"_s,
                     u"my-app"_s,
                     PatchType::Json,
                     R"([{"op":"replace","path":"/spec/replicas","value":2}])",
                     done);
    })));
    DeleteOptions options;
    options.propagationPolicy = u"Background"_s;
    options.preconditionUid = u"u-1"_s;
    QVERIFY(expectOk(waitJson(
        [&](auto done) { client.remove(CustomApps, u"default"_s, u"my-app"_s, options, done); })));
    const auto &requests = m_server->requests;
    QCOMPARE(requests.size(), 4);
    QCOMPARE(requests[0].method, QByteArray("POST"));
    QCOMPARE(requests[0].path,
             u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps"_s);
    QCOMPARE(requests[0].headers.value("content-type"), QByteArray("application/json"));
    QCOMPARE(requests[1].method, QByteArray("PATCH"));
    QVERIFY(requests[1].path.endsWith(u"/customapps/my-app/status"_s));
    QCOMPARE(requests[1].headers.value("content-type"), QByteArray("application/merge-patch+json"));
    QCOMPARE(requests[1].body, QByteArray(R"({"status":{"phase":"Ready"}})"));
    QCOMPARE(requests[2].headers.value("content-type"), QByteArray("application/json-patch+json"));
    QVERIFY(requests[2].path.endsWith(u"/customapps/my-app"_s));
    QCOMPARE(requests[3].method, QByteArray("DELETE"));
    const auto body = nlohmann::json::parse(requests[3].body.toStdString());
    QCOMPARE(body["kind"], "DeleteOptions");
    QCOMPARE(body["apiVersion"], "v1");
    QCOMPARE(body["propagationPolicy"], "Background");
    QCOMPARE(body["preconditions"]["uid"], "u-1");
}

void tst_RestClient::int64SurvivesRoundTrip()
{
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        TestServer::respond(socket, 201, "application/json", request.body);
    };
    RestClient client(clientConfig());
    const std::int64_t big = 9007199254740993LL; // 2^53 + 1
    const std::int64_t min = std::numeric_limits<std::int64_t>::min();
    const auto result = waitJson([&](auto done) {
        client.create(CustomApps,
                      u"default"_s,
                      nlohmann::json{ { "spec", { { "big", big }, { "min", min } } } },
                      done);
    });
    QVERIFY(result && result->ok());
    QVERIFY(m_server->requests.first().body.contains("9007199254740993"));
    QCOMPARE(result->value()["spec"]["big"].get<std::int64_t>(), big);
    QCOMPARE(result->value()["spec"]["min"].get<std::int64_t>(), min);
}

void tst_RestClient::rotatedTokenFileRetriedOn401()
{
    QTemporaryDir dir;
    const QString tokenPath = dir.filePath(u"token"_s);
    auto writeToken = [&](const QByteArray &token) {
        QFile file(tokenPath);
        return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(token) > 0;
    };
    QVERIFY(writeToken("old"));
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        if (request.headers.value("authorization") == "Bearer rotated-token")
            TestServer::respond(socket, 200, "application/json", "{}");
        else
            TestServer::respond(
                socket,
                401,
                "application/json",
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
    };
    ClientConfig config = clientConfig();
    config.tokenFile = tokenPath;
    RestClient client(config);
    auto first = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(first && !first->ok());
    QVERIFY(first->error().isUnauthorized());
    QCOMPARE(m_server->requests.size(), 2); // retried once, still the old token
    QCOMPARE(m_server->requests.last().headers.value("authorization"), QByteArray("Bearer old"));

    QVERIFY(writeToken("rotated-token"));
    auto second = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(second && second->ok());
}

void tst_RestClient::execPluginReRunOn401()
{
    // The plugin hands out token-1, token-2, ...; the server only accepts token-2, so the first
    // request is answered 401, the plugin runs again and the request is retried with token-2.
    QTemporaryDir dir;
    const QString script = writeCountingExecPlugin(dir);
    QVERIFY(!script.isEmpty());
    m_server->handler = [](const TestRequest &request, QTcpSocket *socket) {
        if (request.headers.value("authorization") == "Bearer token-2")
            TestServer::respond(socket, 200, "application/json", R"({"ok":true})");
        else
            TestServer::respond(
                socket,
                401,
                "application/json",
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
    };
    ClientConfig config = clientConfig();
    config.exec
        = ExecConfig{ u"client.authentication.k8s.io/v1"_s, script, {}, {}, {}, false, u"Never"_s };
    config.execWorkingDirectory = dir.path();
    RestClient client(config);
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result);
    QVERIFY2(result->ok(), qPrintable(errorText(*result)));
    QCOMPARE(client.credentials()->execRuns(), 2);
    QCOMPARE(m_server->requests.size(), 2);
    QCOMPARE(m_server->requests[0].headers.value("authorization"), QByteArray("Bearer token-1"));
    QCOMPARE(m_server->requests[1].headers.value("authorization"), QByteArray("Bearer token-2"));

    // Cached afterwards: no new run.
    const auto again = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(again && again->ok());
    QCOMPARE(client.credentials()->execRuns(), 2);
}

void tst_RestClient::tlsWrongCa()
{
    ClientConfig config = clientConfig();
    config.caCertificates
        = *pem::parseCertificates(testpki::read(m_pki.filePath(u"other-ca.crt"_s)));
    RestClient client(config);
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result && !result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Tls);
    QVERIFY2(result->error().message.contains(
                 u"the server's certificate (issuer \"test-ca\") is not signed by the cluster's "
                 u"certificate authority"_s),
             qPrintable(result->error().message));
    QVERIFY(m_server->requests.isEmpty());
}

void tst_RestClient::tlsExpiredServerCertificate()
{
    m_server = std::make_unique<TestServer>(serverSsl(u"expired.crt"_s, u"server.key"_s));
    m_server->handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 200, "application/json", "{}");
    };
    RestClient client(clientConfig());
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result && !result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Tls);
    QVERIFY2(result->error().message.contains(u"the server's certificate expired on "_s),
             qPrintable(result->error().message));
    QVERIFY(m_server->requests.isEmpty());
}

void tst_RestClient::tlsHostNameMismatchAndServerName()
{
    m_server = std::make_unique<TestServer>(serverSsl(u"alias.crt"_s, u"alias.key"_s));
    m_server->handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 200, "application/json", "{}");
    };
    {
        RestClient client(clientConfig());
        const auto result
            = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
        QVERIFY(result && !result->ok());
        QCOMPARE(result->error().category, ApiError::Category::Tls);
        QVERIFY2(result->error().message.contains(
                     u"not valid for 127.0.0.1 (it names cluster.internal); set tls-server-name"_s),
                 qPrintable(result->error().message));
    }
    ClientConfig config = clientConfig();
    config.tlsServerName = u"cluster.internal"_s;
    RestClient client(config);
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result);
    QVERIFY2(result->ok(), qPrintable(errorText(*result)));

    // A server name the certificate does not carry still fails.
    config.tlsServerName = u"elsewhere.internal"_s;
    RestClient wrong(config);
    const auto refused = waitJson([&](auto done) { wrong.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(refused && !refused->ok());
    QCOMPARE(refused->error().category, ApiError::Category::Tls);
}

void tst_RestClient::connectionRefused()
{
    ClientConfig config = clientConfig();
    const quint16 port = m_server->port();
    m_server.reset();
    config.server.setPort(port);
    RestClient client(config);
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result && !result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Network);
    QVERIFY(result->error().isTransient());
    QVERIFY2(result->error().message.contains(u"refused"_s, Qt::CaseInsensitive),
             qPrintable(result->error().message));
}

void tst_RestClient::proxyUrlTunnelsThroughProxy()
{
    // A plain server plays the proxy: it sees the CONNECT and refuses it.
    TestServer proxy;
    proxy.handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 502, "text/plain", "no");
    };
    ClientConfig config = clientConfig();
    config.server = QUrl(u"https://cluster.test:6443"_s);
    config.proxy = *proxyFromUrl(u"http://127.0.0.1:%1"_s.arg(proxy.port()));
    RestClient client(config);
    const auto result = waitJson([&](auto done) { client.get(CustomApps, u"a"_s, u"b"_s, done); });
    QVERIFY(result && !result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Network);
    QCOMPARE(proxy.requests.size(), 1);
    QCOMPARE(proxy.requests.first().method, QByteArray("CONNECT"));
    QCOMPARE(proxy.requests.first().target, QByteArray("cluster.test:6443"));
}

void tst_RestClient::watchStreamsEvents()
{
    QPointer<QTcpSocket> stream;
    m_server->handler = [&](const TestRequest &, QTcpSocket *socket) {
        stream = socket;
        TestServer::startStream(socket);
        // One event split across two chunks, then a second in the same chunk as the split's end.
        TestServer::writeChunk(socket, R"({"type":"ADDED","object":{"metadata":{"na)");
        TestServer::writeChunk(
            socket,
            R"(me":"a","resourceVersion":"5"}}})"
            "\n"
            R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"6"}}})"
            "\n");
    };
    RestClient client(clientConfig());
    WatchOptions options;
    options.resourceVersion = u"4"_s;
    options.allowWatchBookmarks = true;
    options.timeoutSeconds = 321;
    WatchConnection *watch = client.watch(CustomApps, u"default"_s, options, this);
    QSignalSpy events(watch, &WatchConnection::eventsReceived);
    QSignalSpy finished(watch, &WatchConnection::finished);
    QList<WatchEvent> received;
    connect(watch, &WatchConnection::eventsReceived, this, [&](const QList<WatchEvent> &batch) {
        received += batch;
    });
    QTRY_COMPARE(received.size(), 2);
    QCOMPARE(received[0].type, WatchEvent::Type::Added);
    QCOMPARE(received[1].type, WatchEvent::Type::Bookmark);
    QVERIFY(finished.isEmpty());

    const TestRequest &request = m_server->requests.first();
    QCOMPARE(request.queryValue(u"watch"_s), u"true"_s);
    QCOMPARE(request.queryValue(u"resourceVersion"_s), u"4"_s);
    QCOMPARE(request.queryValue(u"allowWatchBookmarks"_s), u"true"_s);
    QCOMPARE(request.queryValue(u"timeoutSeconds"_s), u"321"_s);

    QVERIFY(stream);
    TestServer::writeChunk(stream,
                           R"({"type":"DELETED","object":{"metadata":{"name":"a"}}})"
                           "\n");
    TestServer::endStream(stream);
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(received.size(), 3);
    QVERIFY(!finished.first().first().value<std::optional<ApiError>>().has_value());
    delete watch;
}

void tst_RestClient::silentWatchIsConsideredDead()
{
    m_server->handler = [](const TestRequest &, QTcpSocket *socket) {
        TestServer::startStream(socket);
        TestServer::writeChunk(
            socket,
            R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"6"}}})"
            "\n");
        // ... and then nothing, without closing.
    };
    RestClient client(clientConfig());
    WatchOptions options;
    options.allowWatchBookmarks = true;
    WatchConnection *watch = client.watch(CustomApps, u"default"_s, options, this, 300);
    QSignalSpy events(watch, &WatchConnection::eventsReceived);
    QSignalSpy finished(watch, &WatchConnection::finished);
    QVERIFY(finished.wait(5000));
    QCOMPARE(events.size(), 1);
    const auto error = finished.first().first().value<std::optional<ApiError>>();
    QVERIFY(error.has_value());
    QCOMPARE(error->category, ApiError::Category::Network);
    QVERIFY2(error->message.contains(u"brought nothing for 300 ms"_s), qPrintable(error->message));
    delete watch;
}

void tst_RestClient::streamedListFraming_data()
{
    QTest::addColumn<QList<QByteArray>>("answer"); // written one event-loop turn apart
    const QByteArray body = listBody();
    const QByteArray head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
    QTest::newRow("Content-Length, one write")
        << QList<QByteArray>{ head + "Content-Length: " + QByteArray::number(body.size())
                              + "\r\n\r\n" + body };
    QList<QByteArray> cut{ head + "Content-Length: " + QByteArray::number(body.size()) + "\r\n" };
    for (qsizetype at = 0; at < body.size(); at += 333)
        cut << (at == 0 ? "\r\n" : "") + body.mid(at, 333);
    QTest::newRow("Content-Length, head and body cut anywhere") << cut;
    // Chunks of odd sizes, a chunk extension, a chunk line cut in two, and a trailer.
    QList<QByteArray> chunked{ head + "Transfer-Encoding: chunked\r\n\r\n" };
    for (qsizetype at = 0, size = 1; at < body.size(); at += size, size = size * 3 + 1) {
        const QByteArray piece = chunk(body.mid(at, size), at == 0 ? ";name=value" : "");
        chunked << piece.left(1) << piece.mid(1);
    }
    chunked << "0\r\nX-Trailer: yes\r\n\r\n";
    QTest::newRow("chunked, with an extension and a trailer") << chunked;
    const QByteArray packed = gzipped(body);
    QTest::newRow("gzip, Content-Length")
        << QList<QByteArray>{ head + "Content-Encoding: gzip\r\nContent-Length: "
                                  + QByteArray::number(packed.size()) + "\r\n\r\n",
                              packed.left(100),
                              packed.mid(100) };
    QList<QByteArray> gzipChunked{
        head + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
    };
    for (qsizetype at = 0; at < packed.size(); at += 97)
        gzipChunked << chunk(packed.mid(at, 97));
    gzipChunked << "0\r\n\r\n";
    QTest::newRow("gzip, chunked") << gzipChunked;
    QTest::newRow("no length: the body ends with the connection")
        << QList<QByteArray>{ head + "Connection: close\r\n\r\n", body.left(5000), body.mid(5000) };
    QTest::newRow("an interim 100 Continue first")
        << QList<QByteArray>{ "HTTP/1.1 100 Continue\r\n\r\n",
                              head + "Content-Length: " + QByteArray::number(body.size())
                                  + "\r\n\r\n" + body };
}

void tst_RestClient::streamedListFraming()
{
    // Both transports hand out the same items from every framing HTTP/1.1 allows for an answer.
    QFETCH(QList<QByteArray>, answer);
    m_server->handler = [answer](const TestRequest &, QTcpSocket *socket) {
        writeApart(socket, answer);
    };
    RestClient client(clientConfig());
    for (const auto &transport :
         { streamedGetTransport(), std::shared_ptr<const PageTransport>() }) {
        const StreamedList list = listStreamed(client, transport);
        QVERIFY2(!list.error, qPrintable(list.error ? list.error->toString() : QString()));
        QCOMPARE(list.items, listItems());
        QCOMPARE(list.resourceVersion, u"42"_s);
    }
    // The direct request: the client's certificate, the usual headers, gzip asked for.
    QCOMPARE(m_server->requests.size(), 2);
    const TestRequest &direct = m_server->requests.first();
    QCOMPARE(direct.clientCommonName, m_server->requests.last().clientCommonName);
    QVERIFY(!direct.clientCommonName.isEmpty());
    QCOMPARE(direct.target, m_server->requests.last().target);
    QCOMPARE(direct.headers.value("user-agent"), RestClient::userAgent());
    QCOMPARE(direct.headers.value("accept"), QByteArray("application/json"));
    QCOMPARE(direct.headers.value("accept-encoding"), QByteArray("gzip"));
    QCOMPARE(direct.headers.value("host"), "127.0.0.1:" + QByteArray::number(m_server->port()));
}

void tst_RestClient::streamedListErrors_data()
{
    QTest::addColumn<QString>("server"); // "", "expired", "refused"
    QTest::addColumn<QList<QByteArray>>("answer");
    QTest::addColumn<int>("category");
    QTest::addColumn<QString>("message"); // a part of the message
    QTest::addColumn<bool>("sameAsQtNetwork"); // the same ApiError from both transports
    const auto category = [](ApiError::Category c) {
        return int(c);
    };
    const QByteArray expired
        = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5, 9","reason":"Expired","code":410})";
    QTest::newRow("410 Status") << QString()
                                << QList<QByteArray>{ "HTTP/1.1 410 Gone\r\nContent-Type: "
                                                      "application/json\r\nContent-Length: "
                                                      + QByteArray::number(expired.size())
                                                      + "\r\n\r\n" + expired }
                                << category(ApiError::Category::Status)
                                << u"too old resource version"_s << true;
    QTest::newRow("410 Status, chunked")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 410 Gone\r\nContent-Type: "
                              "application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                              chunk(expired.left(20)),
                              chunk(expired.mid(20)),
                              "0\r\n\r\n" }
        << category(ApiError::Category::Status) << u"too old resource version"_s << true;
    const QByteArray body = listBody();
    QTest::newRow("cut short: the connection ends inside the body")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nContent-Length: "
                                  + QByteArray::number(body.size()) + "\r\n\r\n",
                              body.left(body.size() / 2) }
        << category(ApiError::Category::Network) << u"before the answer was complete"_s << false;
    QTest::newRow("cut short: chunked without its last chunk")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                              chunk(body.left(900)) }
        << category(ApiError::Category::Network) << u"before the answer was complete"_s << false;
    QTest::newRow("a chunk size that is not hex")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                              "chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n" }
        << category(ApiError::Category::Network) << u"no valid size"_s << false;
    QTest::newRow("a chunk longer than its size")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                              "chunked\r\n\r\n2\r\n{}}\r\n0\r\n\r\n" }
        << category(ApiError::Category::Network) << u"longer than its size"_s << false;
    QTest::newRow("gzip that is not gzip")
        << QString()
        << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "
                              "12\r\n\r\nnot gzipped!" }
        << category(ApiError::Category::Network) << u"gzip"_s << false;
    QTest::newRow("not HTTP") << QString() << QList<QByteArray>{ "SSH-2.0-OpenSSH_9.2\r\n\r\n" }
                              << category(ApiError::Category::Network)
                              << u"not an HTTP/1.1 answer"_s << false;
    QTest::newRow("a body that is not a list")
        << QString() << QList<QByteArray>{ "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n[1,2,3]" }
        << category(ApiError::Category::Decode) << QString() << true;
    QTest::newRow("expired server certificate")
        << u"expired"_s << QList<QByteArray>() << category(ApiError::Category::Tls)
        << u"the server's certificate expired on "_s << true;
    QTest::newRow("connection refused")
        << u"refused"_s << QList<QByteArray>() << category(ApiError::Category::Network)
        << u"refused"_s << false;
}

void tst_RestClient::streamedListErrors()
{
    QFETCH(QString, server);
    QFETCH(QList<QByteArray>, answer);
    QFETCH(int, category);
    QFETCH(QString, message);
    QFETCH(bool, sameAsQtNetwork);
    if (server == u"expired"_s)
        m_server = std::make_unique<TestServer>(serverSsl(u"expired.crt"_s, u"server.key"_s));
    m_server->handler = [answer](const TestRequest &, QTcpSocket *socket) {
        writeApart(socket, answer);
    };
    ClientConfig config = clientConfig();
    if (server == u"refused"_s) {
        const quint16 port = m_server->port();
        m_server.reset();
        config.server.setPort(port);
    }
    RestClient client(config);
    const StreamedList direct = listStreamed(client, streamedGetTransport());
    QVERIFY(direct.error);
    QCOMPARE(int(direct.error->category), category);
    QVERIFY2(direct.error->message.contains(message, Qt::CaseInsensitive),
             qPrintable(direct.error->message));
    if (sameAsQtNetwork) {
        const StreamedList viaQt = listStreamed(client, nullptr);
        QVERIFY(viaQt.error);
        QCOMPARE(direct.error->toString(), viaQt.error->toString());
        QCOMPARE(direct.error->code, viaQt.error->code);
    }
}

void tst_RestClient::streamedListRetries()
{
    // 401 with an exec plugin: run again, sent again; 429 with Retry-After: sent again after the
    // delay (recorded, not waited). As for every other request.
    QTemporaryDir dir;
    const QString script = writeCountingExecPlugin(dir);
    QVERIFY(!script.isEmpty());
    const QByteArray body = listBody();
    int answered = 0;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        ++answered;
        if (request.headers.value("authorization") != "Bearer token-2") {
            TestServer::respond(
                socket,
                401,
                "application/json",
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})");
        } else if (answered < 4) {
            socket->write(
                "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 0\r\n\r\n");
            socket->disconnectFromHost();
        } else {
            TestServer::respond(socket, 200, "application/json", body);
        }
    };
    ClientConfig config = clientConfig();
    config.exec
        = ExecConfig{ u"client.authentication.k8s.io/v1"_s, script, {}, {}, {}, false, u"Never"_s };
    config.execWorkingDirectory = dir.path();
    RestClient client(config);
    QList<qint64> delays;
    RestClient::RetryPolicy policy;
    policy.scheduler = [&delays](std::chrono::milliseconds delay, std::function<void()> action) {
        delays << delay.count();
        QTimer::singleShot(0, std::move(action));
    };
    client.setRetryPolicy(policy);
    const StreamedList list = listStreamed(client, streamedGetTransport());
    QVERIFY2(!list.error, qPrintable(list.error ? list.error->toString() : QString()));
    QCOMPARE(list.items, listItems());
    QCOMPARE(client.credentials()->execRuns(), 2);
    QCOMPARE(answered, 4); // 401, 429, 429, 200
    QCOMPARE(delays, (QList<qint64>{ 3000, 3000 }));
    QCOMPARE(client.retriesAfterRetryAfter(), 2);
}

void tst_RestClient::streamedListLargeBodyInOrder_data()
{
    QTest::addColumn<int>("objects"); // of ~3 KB
    QTest::addColumn<int>("firstPieceDelayMs");
    // More than the reader keeps waiting for the client's thread (4 MB): it stops and goes on.
    QTest::newRow("24 MB, a slow consumer") << 8000 << 0;
}

void tst_RestClient::streamedListLargeBodyInOrder()
{
    QFETCH(int, objects);
    QFETCH(int, firstPieceDelayMs);
    QByteArray body = ListHead;
    QList<QByteArray> expected;
    for (int i = 0; i < objects; ++i) {
        expected << R"({"metadata":{"name":"app-)" + QByteArray::number(i)
                + R"("},"spec":{"note":")" + QByteArray(3000, char('a' + i % 26)) + R"("}})";
        body += (i ? "," : "") + expected.last();
    }
    body += ListTail;
    m_server->handler = [&body](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 200, "application/json", body);
    };
    RestClient client(clientConfig());
    auto items = std::make_shared<QList<QByteArray>>();
    ListOptions options;
    options.limit = 0;
    ListStream stream;
    stream.transport = streamedGetTransport();
    stream.onItem = [items, firstPieceDelayMs](QByteArrayView item) {
        if (items->isEmpty())
            QThread::msleep(firstPieceDelayMs);
        items->append(item.toByteArray());
        if (items->size() % 1000 == 0)
            QThread::msleep(20); // a slow consumer: the reader must wait for it
    };
    using ListResult = reconscope::models::Result<ListPage, ApiError>;
    const auto result = waitFor<ListResult>(
        [&](auto done) { client.list(CustomApps, {}, options, done, stream); });
    QVERIFY(result);
    QVERIFY2(result->ok(), qPrintable(result->ok() ? QString() : result->error().toString()));
    QCOMPARE(items->size(), expected.size());
    QVERIFY(*items == expected);
}

void tst_RestClient::streamedGetStopsAndGoesOn()
{
    // The reader stops once 64 KB wait for the client's thread, which is busy for a second, while
    // the server sends the rest of a 600 KB body and closes; once the body is taken the reader
    // goes on, and the answer is complete.
    const QByteArray body = QByteArray(600 * 1024, 'x');
    m_server->handler = [&body](const TestRequest &, QTcpSocket *socket) {
        // The head and 1000 bytes, then the rest 64 KB at a time, 10 ms apart (the reader sees
        // them one by one and stops after the first), then the end.
        QList<QByteArray> pieces{ "HTTP/1.1 200 OK\r\nContent-Length: "
                                  + QByteArray::number(body.size()) + "\r\n\r\n"
                                  + body.left(1000) };
        for (qsizetype at = 1000; at < body.size(); at += 64 * 1024)
            pieces << body.mid(at, 64 * 1024);
        writeApart(socket, pieces, 10);
    };
    const ClientConfig config = clientConfig();
    StreamedGet get;
    StreamedGet::Request request;
    request.url = QUrl(m_server->url() + u"/big"_s);
    request.ssl = config.sslConfiguration();
    request.ssl.setLocalCertificate(config.clientCertificate);
    request.ssl.setPrivateKey(config.clientKey);
    request.maxUntakenBytes = 64 * 1024;
    QByteArray received;
    get.setBodySink([&received](QByteArrayView piece) {
        if (received.isEmpty())
            QThread::msleep(1000); // meanwhile the rest arrives and the server closes
        received += piece;
    });
    QSignalSpy finished(&get, &StreamedGet::finished);
    get.start(request);
    QVERIFY(finished.wait(10000));
    QCOMPARE(int(get.result().failure), int(StreamedGet::Failure::None));
    QCOMPARE(get.result().status, 200);
    QCOMPARE(received.size(), body.size());
    QVERIFY(received == body);
}

QTEST_GUILESS_MAIN(tst_RestClient)
#include "tst_restclient.moc"
