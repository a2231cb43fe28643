// A large list is streamed by the embedded cluster (ApiResponse::bodyPieces written as the socket
// drains, as kube-apiserver 1.33 streams a JSON list): the bytes on the wire must be those of the
// list rendered whole, pages on or off; a client that goes away mid-list must not hurt the server.

#include "../cluster/apitestsupport.h"
#include "controller/cluster/apiserver.h"
#include "controller/cluster/cluster.h"
#include "controller/cluster/server/clusterhandler.h"
#include "controller/cluster/server/embeddedserver.h"
#include "tests/testkubectl.h"
#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::tests;
using nlohmann::json;

namespace {

constexpr int timeoutMs = 60000;
constexpr int objectCount = 6000; // ~4 KB each: ~24 MB of list, more than the socket buffers
const QString listPath = u"/apis/infrastructure.internal.net/v1/customapps"_s;
QString kubectlPath()
{
    return reconscope::tests::testKubectlPath();
}

// A request as the transport builds it, with the User-Agent that picks compact or pretty JSON.
ApiRequest makeRequest(const QByteArray &method,
                       const QString &pathAndQuery,
                       const QByteArray &body = {},
                       const QByteArray &userAgent = "tst_streamedlist")
{
    ApiRequest request = testsupport::request(method, pathAndQuery, body);
    request.headers.append({ QByteArray("user-agent"), userAgent });
    return request;
}

} // namespace

class tst_StreamedList : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void listsAreByteIdenticalToTheWholeRendering_data();
    void listsAreByteIdenticalToTheWholeRendering();
    void pagesWithContinueAreByteIdentical();
    void kubectlRawReadsTheStreamedList();
    void onlyPlainJsonListsAreStreamed();
    void clientLeavingMidListLeavesTheServerServing();

private:
    // The list as the transport sends it: status, headers and body of one response.
    RawResponse fetch(const QString &pathAndQuery,
                      const QByteArray &userAgent = "tst_streamedlist");
    // The same request rendered whole (no streaming), straight from the API semantics.
    QByteArray reference(const QString &pathAndQuery,
                         const QByteArray &userAgent = "tst_streamedlist");

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EmbeddedServer> m_server;
    Cluster *m_cluster = nullptr;
    std::unique_ptr<ApiServer> m_whole;
};

void tst_StreamedList::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    EmbeddedServerOptions options;
    options.kubeconfigPath = m_dir->filePath(u"kubeconfig"_s);
    m_server = std::make_unique<EmbeddedServer>(
        clusterHandlerFactory([this](Cluster &cluster) { m_cluster = &cluster; }), options);
    const auto started = m_server->start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    QVERIFY(m_cluster);
    m_whole = std::make_unique<ApiServer>(m_cluster); // streamLists off: `body` whole

    const std::string padding(3500, 'p');
    for (int i = 0; i < objectCount; ++i) {
        const std::string ns = i % 3 == 0 ? "default" : "team-" + std::to_string(i % 7);
        if (i < 7) {
            const json namespaceObject{ { "apiVersion", "v1" },
                                        { "kind", "Namespace" },
                                        { "metadata",
                                          { { "name", "team-" + std::to_string(i) } } } };
            const ApiResponse created
                = m_whole->handle(makeRequest("POST",
                                              u"/api/v1/namespaces"_s,
                                              QByteArray::fromStdString(namespaceObject.dump())));
            QVERIFY2(created.status == 201 || created.status == 409, created.body.constData());
        }
        const json app{ { "apiVersion", "infrastructure.internal.net/v1" },
                        { "kind", "CustomApp" },
                        { "metadata",
                          { { "name", "app-" + std::to_string(i) },
                            { "labels", { { "tier", i % 2 ? "web" : "db" } } },
                            { "annotations", { { "padding", padding } } } } },
                        { "spec", { { "image", "nginx:1.27" }, { "replicas", 1 + i % 5 } } } };
        const ApiResponse created
            = m_whole->handle(makeRequest("POST",
                                          u"/apis/infrastructure.internal.net/v1/namespaces/"_s
                                              + QString::fromStdString(ns) + u"/customapps"_s,
                                          QByteArray::fromStdString(app.dump())));
        QVERIFY2(created.status == 201, created.body.constData());
    }
}

void tst_StreamedList::cleanupTestCase()
{
    m_whole.reset();
    m_server.reset();
    m_dir.reset();
}

RawResponse tst_StreamedList::fetch(const QString &pathAndQuery, const QByteArray &userAgent)
{
    RawClient client(
        clientTls(m_server->certificates().ca.certificatePem, &m_server->certificates().admin),
        m_server->port());
    client.send("GET " + pathAndQuery.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: "
                + userAgent + "\r\nAccept: application/json\r\n\r\n");
    QList<RawResponse> responses;
    (void)QTest::qWaitFor(
        [&] {
            responses = parseResponses(client.received);
            return !responses.isEmpty() && responses.first().complete;
        },
        timeoutMs);
    return responses.isEmpty() ? RawResponse() : responses.first();
}

QByteArray tst_StreamedList::reference(const QString &pathAndQuery, const QByteArray &userAgent)
{
    const ApiResponse response = m_whole->handle(makeRequest("GET", pathAndQuery, {}, userAgent));
    return response.flatBody();
}

void tst_StreamedList::listsAreByteIdenticalToTheWholeRendering_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QByteArray>("userAgent");
    QTest::addColumn<bool>("large");
    QTest::newRow("all namespaces") << QString() << QByteArray("tst") << true;
    QTest::newRow("resourceVersion=0") << u"?resourceVersion=0"_s << QByteArray("tst") << true;
    QTest::newRow("label selector") << u"?labelSelector=tier%3Dweb"_s << QByteArray("tst") << true;
    QTest::newRow("first page of 2500") << u"?limit=2500"_s << QByteArray("tst") << true;
    QTest::newRow("small page (inline)") << u"?limit=3"_s << QByteArray("tst") << false;
    // Not streamed: pretty-printed for curl, as kube-apiserver does.
    QTest::newRow("pretty for curl") << QString() << QByteArray("curl/8.0") << true;
}

void tst_StreamedList::listsAreByteIdenticalToTheWholeRendering()
{
    QFETCH(QString, query);
    QFETCH(QByteArray, userAgent);
    QFETCH(bool, large);
    const QByteArray expected = reference(listPath + query, userAgent);
    QVERIFY(expected.endsWith("}\n"));
    QCOMPARE(expected.size() > 4 * 1024 * 1024, large);
    const RawResponse response = fetch(listPath + query, userAgent);
    QVERIFY(response.complete);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("content-type"), QByteArray("application/json"));
    QCOMPARE(response.header("content-length"), QByteArray::number(expected.size()));
    QVERIFY(response.header("transfer-encoding").isEmpty());
    QCOMPARE(response.body.size(), expected.size());
    QVERIFY(response.body == expected); // QCOMPARE would print megabytes
}

void tst_StreamedList::pagesWithContinueAreByteIdentical()
{
    QString continueToken;
    int items = 0;
    int pages = 0;
    do {
        QString query = u"?limit=1700"_s;
        if (!continueToken.isEmpty())
            query += u"&continue="_s + QString::fromLatin1(QUrl::toPercentEncoding(continueToken));
        const QByteArray expected = reference(listPath + query);
        const RawResponse response = fetch(listPath + query);
        QVERIFY(response.complete);
        QCOMPARE(response.status, 200);
        QVERIFY(response.body == expected);
        const json page = json::parse(response.body.constBegin(), response.body.constEnd());
        items += int(page["items"].size());
        continueToken = QString::fromStdString(page["metadata"].value("continue", std::string()));
        ++pages;
    } while (!continueToken.isEmpty() && pages < 10);
    QCOMPARE(pages, 4);
    QCOMPARE(items, objectCount);
}

void tst_StreamedList::kubectlRawReadsTheStreamedList()
{
    REQUIRE_KUBECTL();
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"HOME"_s, m_dir->path());
    environment.remove(u"KUBECONFIG"_s);
    process.setProcessEnvironment(environment);
    process.start(
        kubectlPath(),
        { u"--kubeconfig"_s, m_server->kubeconfigPath(), u"get"_s, u"--raw"_s, listPath });
    QVERIFY(process.waitForStarted(timeoutMs));
    QByteArray out;
    QVERIFY(QTest::qWaitFor(
        [&] {
            out += process.readAllStandardOutput();
            return process.state() == QProcess::NotRunning;
        },
        timeoutMs));
    out += process.readAllStandardOutput();
    QCOMPARE(process.exitCode(), 0);
    const QByteArray expected = reference(listPath);
    QCOMPARE(out.size(), expected.size());
    QVERIFY(out == expected);
}

void tst_StreamedList::onlyPlainJsonListsAreStreamed()
{
    ApiServer streaming(m_cluster);
    streaming.setStreamLists(true);
    const ApiResponse plain = streaming.handle(makeRequest("GET", listPath + u"?limit=10"_s));
    QCOMPARE(plain.status, 200);
    QCOMPARE(plain.bodyPieces.size(), 10 * 2 - 1 + 1); // items, commas between them, the tail
    QVERIFY(plain.body.startsWith("{\"apiVersion\":\"infrastructure.internal.net/v1\""));
    QVERIFY(plain.bodyPieces.last().endsWith("\"}}\n"));
    QCOMPARE(plain.flatBody(), reference(listPath + u"?limit=10"_s));

    const ApiResponse pretty
        = streaming.handle(makeRequest("GET", listPath + u"?limit=10"_s, {}, "curl/8.0"));
    QVERIFY(pretty.bodyPieces.isEmpty());
    QCOMPARE(pretty.body, reference(listPath + u"?limit=10"_s, "curl/8.0"));

    ApiRequest table = makeRequest("GET", listPath + u"?limit=10"_s);
    table.headers.append(
        { QByteArray("accept"), QByteArray("application/json;as=Table;v=v1;g=meta.k8s.io") });
    const ApiResponse tableResponse = streaming.handle(table);
    QCOMPARE(tableResponse.status, 200);
    QVERIFY(tableResponse.bodyPieces.isEmpty());
    QVERIFY(tableResponse.body.contains("\"kind\":\"Table\""));

    const ApiResponse object = streaming.handle(makeRequest(
        "GET", u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/app-0"_s));
    QCOMPARE(object.status, 200);
    QVERIFY(object.bodyPieces.isEmpty());
}

void tst_StreamedList::clientLeavingMidListLeavesTheServerServing()
{
    HttpsApiServer *http = m_server->httpServer();
    QSignalSpy served(http, &HttpsApiServer::requestServed);
    // The earlier tests' clients may still be closing their connections: counted once they are.
    (void)QTest::qWaitFor([&] { return http->connectionCount() == 0; }, 5000);
    const int connectionsBefore = http->connectionCount();
    {
        // A client that reads little: its socket reads 64 KB and no more until the list is cut.
        QSslSocket socket;
        socket.setSslConfiguration(
            clientTls(m_server->certificates().ca.certificatePem, &m_server->certificates().admin));
        socket.setReadBufferSize(64 * 1024);
        socket.connectToHostEncrypted(u"127.0.0.1"_s, m_server->port());
        QVERIFY(QTest::qWaitFor([&] { return socket.isEncrypted(); }, timeoutMs));
        socket.write("GET " + listPath.toUtf8()
                     + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: tst\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(socket.bytesAvailable() >= 64 * 1024, timeoutMs);
        QCOMPARE(http->connectionCount(), connectionsBefore + 1);
        QTest::qWait(200); // the server fills what the socket buffers hold, then waits
        QVERIFY2(served.isEmpty(), "the list was sent whole before the client left");
        QVERIFY(socket.read(16).startsWith("HTTP/1.1 200"));
        socket.abort();
    }
    // The connection goes, and with it the list's pieces; the server goes on serving.
    QTRY_COMPARE_WITH_TIMEOUT(http->connectionCount(), connectionsBefore, timeoutMs);
    QVERIFY(served.isEmpty()); // the cut list is not reported as served
    const RawResponse response = fetch(listPath);
    QVERIFY(response.complete);
    QCOMPARE(response.status, 200);
    QVERIFY(response.body == reference(listPath));
}

QTEST_GUILESS_MAIN(tst_StreamedList)
#include "tst_streamedlist.moc"
