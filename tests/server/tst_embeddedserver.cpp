#include "controller/cluster/server/embeddedserver.h"
#include "tests/testkubectl.h"
#include "testsupport.h"

#include <yaml-cpp/yaml.h>

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
#define RECONSCOPE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RECONSCOPE_ASAN 1
#endif
#endif
#ifndef RECONSCOPE_ASAN
#define RECONSCOPE_ASAN 0
#endif

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::tests;

namespace {

constexpr int timeoutMs = 20000;
QString kubectlPath()
{
    return reconscope::tests::testKubectlPath();
}

// Peak resident memory of this process in kB (VmHWM); resetPeakMemory() starts a new peak.
qint64 peakMemoryKb()
{
    QFile status(u"/proc/self/status"_s);
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

bool resetPeakMemory()
{
    QFile clearRefs(u"/proc/self/clear_refs"_s);
    return clearRefs.open(QIODevice::WriteOnly) && clearRefs.write("5") == 1;
}

struct ProcessResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class tst_EmbeddedServer : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void startsAndWritesKubeconfig();
    void factoryRunsOnceWithServerContext();
    void kubectlRawVersion_data();
    void kubectlRawVersion();
    void kubectlIdentities_data();
    void kubectlIdentities();
    void kubectlUnauthorized();
    void kubectlReadsWatchStream();
    void restartKeepsHandlerCertificatesAndPort();
    void runsOnItsOwnThread();
    void largeResponseToCurl();
    void portInUseFails();

private:
    ProcessResult kubectl(const QStringList &arguments);

    std::unique_ptr<QTemporaryDir> m_dir;
    FakeApi m_api;
    std::unique_ptr<EmbeddedServer> m_server;
    int m_factoryCalls = 0;
};

void tst_EmbeddedServer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_api = FakeApi();
    m_factoryCalls = 0;
    EmbeddedServerOptions options;
    options.kubeconfigPath = m_dir->filePath(u"kube/config"_s);
    m_server = std::make_unique<EmbeddedServer>(
        [this](EmbeddedServer &server) {
            ++m_factoryCalls;
            server.faultInjector()->setHistoryWindowHook([](std::int64_t) {});
            return m_api.handler();
        },
        options);
    QSignalSpy started(m_server.get(), &EmbeddedServer::started);
    const auto status = m_server->start();
    QVERIFY2(status.ok(), status.ok() ? "" : qPrintable(status.error().message));
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.first().first().toUrl(), m_server->url());
}

void tst_EmbeddedServer::cleanup()
{
    m_server.reset();
    m_dir.reset();
}

ProcessResult tst_EmbeddedServer::kubectl(const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"HOME"_s, m_dir->path()); // no discovery cache in the real home
    environment.remove(u"KUBECONFIG"_s);
    process.setProcessEnvironment(environment);
    process.start(kubectlPath(),
                  QStringList{ u"--kubeconfig"_s, m_server->kubeconfigPath() } + arguments);
    ProcessResult result;
    if (!process.waitForStarted(timeoutMs))
        return result;
    // The server runs on this thread: wait without blocking its event loop.
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

void tst_EmbeddedServer::startsAndWritesKubeconfig()
{
    QVERIFY(m_server->isRunning());
    QVERIFY(m_server->port() > 0);
    QCOMPARE(m_server->url().toString(), u"https://127.0.0.1:%1"_s.arg(m_server->port()));
    struct stat info = {};
    QCOMPARE(::stat(QFile::encodeName(m_server->kubeconfigPath()).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, 0600u);
    const YAML::Node config = YAML::LoadFile(m_server->kubeconfigPath().toStdString());
    QCOMPARE(config["current-context"].as<std::string>(), "reconscope-admin");
    QCOMPARE(config["clusters"][0]["cluster"]["server"].as<std::string>(),
             m_server->url().toString().toStdString());
    QCOMPARE(config["contexts"].size(), std::size_t(3));
    QCOMPARE(m_server->adminToken().size(), 64);
    QVERIFY(m_server->adminToken() != m_server->viewerToken());
}

void tst_EmbeddedServer::factoryRunsOnceWithServerContext()
{
    QCOMPARE(m_factoryCalls, 1);
    QVERIFY(m_server->faultInjector()->setHistoryWindow(100)); // the factory hooked it
    QVERIFY(m_server->httpServer());
    QVERIFY(!m_server->start().ok()); // already running
    m_server->stop();
    QVERIFY(!m_server->isRunning());
    QVERIFY(!m_server->httpServer());
    QVERIFY(m_server->start().ok());
    QCOMPARE(m_factoryCalls, 1);
}

void tst_EmbeddedServer::kubectlRawVersion_data()
{
    QTest::addColumn<QStringList>("contextArguments");
    QTest::newRow("current context (admin certificate)") << QStringList();
    QTest::newRow("reconscope-token") << QStringList{ u"--context"_s, u"reconscope-token"_s };
    QTest::newRow("reconscope-viewer") << QStringList{ u"--context"_s, u"reconscope-viewer"_s };
}

void tst_EmbeddedServer::kubectlRawVersion()
{
    REQUIRE_KUBECTL();
    QFETCH(QStringList, contextArguments);
    const ProcessResult result
        = kubectl(contextArguments + QStringList{ u"get"_s, u"--raw"_s, u"/version"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains(R"("gitVersion":"v1.32.0-reconscope")"), result.out.constData());
}

void tst_EmbeddedServer::kubectlIdentities_data()
{
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("group");
    QTest::newRow("admin") << u"reconscope-admin"_s << u"kubernetes-admin"_s << u"system:masters"_s;
    QTest::newRow("token") << u"reconscope-token"_s << u"reconscope-token"_s << u"system:masters"_s;
    QTest::newRow("viewer") << u"reconscope-viewer"_s << u"viewer"_s << u"reconscope:viewers"_s;
}

void tst_EmbeddedServer::kubectlIdentities()
{
    REQUIRE_KUBECTL();
    QFETCH(QString, context);
    QFETCH(QString, user);
    QFETCH(QString, group);
    const ProcessResult result = kubectl(
        { u"--context"_s, context, u"get"_s, u"--raw"_s, u"/echo?labelSelector=a+in+(b)"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    const auto echo = nlohmann::json::parse(result.out.toStdString(), nullptr, false);
    QVERIFY2(!echo.is_discarded(), result.out.constData());
    QCOMPARE(QString::fromStdString(echo["user"].get<std::string>()), user);
    QVERIFY(echo["groups"].dump().find(group.toStdString()) != std::string::npos);
    QVERIFY(QString::fromStdString(echo["headers"]["user-agent"].get<std::string>())
                .startsWith(u"kubectl/"_s));
}

void tst_EmbeddedServer::kubectlUnauthorized()
{
    REQUIRE_KUBECTL();
    const ProcessResult result = kubectl({ u"--context"_s,
                                           u"reconscope-token"_s,
                                           u"--token"_s,
                                           u"wrong"_s,
                                           u"get"_s,
                                           u"--raw"_s,
                                           u"/version"_s });
    QVERIFY(result.exitCode != 0);
    QVERIFY2(result.err.contains("Unauthorized"), result.err.constData());
    QCOMPARE(m_api.requestCount, 0);
}

void tst_EmbeddedServer::kubectlReadsWatchStream()
{
    REQUIRE_KUBECTL();
    m_api.watchInitialLines = {
        R"({"type":"ADDED","object":{"kind":"CustomApp","metadata":{"name":"a","resourceVersion":"5"}}})"
        "\n",
        R"({"type":"DELETED","object":{"kind":"CustomApp","metadata":{"name":"a","resourceVersion":"6"}}})"
        "\n"
    };
    m_api.watchFinishAtStart = true;
    const ProcessResult result = kubectl({ u"get"_s, u"--raw"_s, u"/watch"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QCOMPARE(result.out, m_api.watchInitialLines.join());
}

void tst_EmbeddedServer::restartKeepsHandlerCertificatesAndPort()
{
    const quint16 port = m_server->port();
    const QByteArray ca = m_server->certificates().ca.certificatePem;
    QNetworkAccessManager manager;
    QNetworkRequest watchRequest(QUrl(m_server->url().toString() + u"/watch"_s));
    watchRequest.setSslConfiguration(clientTls(ca, &m_server->certificates().admin));
    QNetworkReply *watch = manager.get(watchRequest);
    QTRY_VERIFY_WITH_TIMEOUT(m_api.lastWatch && m_api.lastWatch->started == 1, timeoutMs);

    QSignalSpy stopped(m_server.get(), &EmbeddedServer::stopped);
    m_server->stop();
    QCOMPARE(stopped.size(), 1);
    QCOMPARE(m_api.lastWatch->cancelled, 1); // every watch is cut
    QTRY_VERIFY_WITH_TIMEOUT(watch->isFinished(), timeoutMs);
    watch->deleteLater();

    const auto restarted = m_server->start();
    QVERIFY2(restarted.ok(), restarted.ok() ? "" : qPrintable(restarted.error().message));
    QCOMPARE(m_factoryCalls, 1); // the same API state
    QCOMPARE(m_server->port(), port);
    QCOMPARE(m_server->certificates().ca.certificatePem, ca);
    if (!kubectlPath().isEmpty()) {
        const ProcessResult result = kubectl({ u"get"_s, u"--raw"_s, u"/version"_s });
        QVERIFY2(result.exitCode == 0, result.err.constData());
    }
}

void tst_EmbeddedServer::runsOnItsOwnThread()
{
    m_server.reset();
    QThread thread;
    thread.setObjectName(u"embedded-cluster"_s);
    std::atomic<QThread *> handlerThread{ nullptr };
    std::atomic<QThread *> factoryThread{ nullptr };
    auto *server = new EmbeddedServer([&](EmbeddedServer &) -> ApiHandler {
        factoryThread = QThread::currentThread();
        return [&handlerThread](const ApiRequest &) {
            handlerThread = QThread::currentThread();
            ApiResponse response;
            response.body = "{}\n";
            return response;
        };
    });
    server->moveToThread(&thread);
    QSignalSpy started(server, &EmbeddedServer::started);
    thread.start();
    QMetaObject::invokeMethod(server, [server] { (void)server->start(); });
    QVERIFY(started.wait(timeoutMs));
    const QUrl url = started.first().first().toUrl();
    QCOMPARE(factoryThread.load(), &thread);

    QNetworkAccessManager manager;
    QNetworkRequest request(QUrl(url.toString() + u"/anything"_s));
    request.setRawHeader("Authorization", "Bearer " + server->adminToken());
    request.setSslConfiguration(clientTls(server->certificates().ca.certificatePem));
    QNetworkReply *reply = manager.get(request);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), timeoutMs);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QCOMPARE(handlerThread.load(), &thread);
    QVERIFY(handlerThread.load() != QThread::currentThread());
    reply->deleteLater();

    QMetaObject::invokeMethod(server, &QObject::deleteLater);
    thread.quit();
    QVERIFY(thread.wait(timeoutMs));
}

void tst_EmbeddedServer::largeResponseToCurl()
{
    const QString curl = QStandardPaths::findExecutable(u"curl"_s);
    if (curl.isEmpty())
        QSKIP("curl is not installed");
    const auto writeFile = [this](const QString &name, const QByteArray &data) {
        QFile file(m_dir->filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
    };
    const ClusterCertificates &certificates = m_server->certificates();
    QVERIFY(writeFile(u"ca.pem"_s, certificates.ca.certificatePem));
    QVERIFY(writeFile(u"admin.pem"_s, certificates.admin.certificatePem));
    QVERIFY(writeFile(u"admin-key.pem"_s, certificates.admin.privateKeyPem));
    const qint64 size = 100 * 1000 * 1000;
    const bool peakReset = resetPeakMemory();
    const qint64 peakBefore = peakMemoryKb();
    QProcess process;
    process.start(curl,
                  { u"--silent"_s,
                    u"--show-error"_s,
                    u"--cacert"_s,
                    m_dir->filePath(u"ca.pem"_s),
                    u"--cert"_s,
                    m_dir->filePath(u"admin.pem"_s),
                    u"--key"_s,
                    m_dir->filePath(u"admin-key.pem"_s),
                    u"--output"_s,
                    u"/dev/null"_s,
                    u"--write-out"_s,
                    u"%{http_code} %{size_download} %{time_total}"_s,
                    m_server->url().toString() + u"/big?bytes=%1"_s.arg(size) });
    QVERIFY(process.waitForStarted(timeoutMs));
    QVERIFY(QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 60000));
    const QList<QByteArray> fields = process.readAllStandardOutput().split(' ');
    QVERIFY2(fields.size() == 3, process.readAllStandardError().constData());
    QCOMPARE(fields.at(0), QByteArray("200"));
    QCOMPARE(fields.at(1).toLongLong(), size);
    const double seconds = fields.at(2).toDouble();
    qInfo("100 MB response to curl (separate process): %.0f ms, %.0f MB/s",
          seconds * 1000,
          size / 1e6 / qMax(seconds, 0.001));
    if (peakReset && peakBefore > 0) {
        // The API's body itself is 100 MB; the transport adds only its socket buffers.
        const qint64 growthMb = (peakMemoryKb() - peakBefore) / 1024;
        qInfo("peak memory growth while serving it: %lld MB", growthMb);
#if RECONSCOPE_ASAN
        // AddressSanitizer keeps freed blocks in its quarantine (256 MB by default) and adds
        // redzones: the peak measures the sanitizer, not the transport (about 119 MB without it).
        qInfo("memory bound not checked under AddressSanitizer");
#else
        QVERIFY2(growthMb < 100 + 40, qPrintable(QString::number(growthMb)));
#endif
    }
}

void tst_EmbeddedServer::portInUseFails()
{
    EmbeddedServerOptions options;
    options.port = m_server->port();
    EmbeddedServer second([this](EmbeddedServer &) { return m_api.handler(); }, options);
    QSignalSpy failed(&second, &EmbeddedServer::startFailed);
    const auto status = second.start();
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.contains(QString::number(m_server->port())),
             qPrintable(status.error().message));
    QCOMPARE(failed.size(), 1);
    QVERIFY(!second.isRunning());
}

QTEST_GUILESS_MAIN(tst_EmbeddedServer)
#include "tst_embeddedserver.moc"
