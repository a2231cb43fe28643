// The transport around the real API semantics (Cluster + ApiServer), driven by kubectl: proves
// that the pieces fit as `reconscope serve` runs them.

#include "controller/cluster/cluster.h"
#include "controller/cluster/server/clusterhandler.h"
#include "controller/cluster/server/embeddedserver.h"
#include "tests/testkubectl.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

namespace {

constexpr int timeoutMs = 30000;
QString kubectlPath()
{
    return reconscope::tests::testKubectlPath();
}

struct ProcessResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class tst_ClusterServer : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void kubectlVersion_data();
    void kubectlVersion();
    void kubectlReusesConnections();
    void kubectlCreatesAndReads();
    void kubectlWatchEndsAtTimeout();
    void historyWindowHookReachesCluster();

private:
    ProcessResult kubectl(const QStringList &arguments);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EmbeddedServer> m_server;
    Cluster *m_cluster = nullptr;
};

void tst_ClusterServer::init()
{
    REQUIRE_KUBECTL();
    m_dir = std::make_unique<QTemporaryDir>();
    EmbeddedServerOptions options;
    options.kubeconfigPath = m_dir->filePath(u"kubeconfig"_s);
    m_cluster = nullptr;
    m_server = std::make_unique<EmbeddedServer>(
        clusterHandlerFactory([this](Cluster &cluster) { m_cluster = &cluster; }), options);
    const auto started = m_server->start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    QVERIFY(m_cluster);
}

void tst_ClusterServer::cleanup()
{
    m_server.reset();
    m_dir.reset();
}

ProcessResult tst_ClusterServer::kubectl(const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"HOME"_s, m_dir->path());
    environment.remove(u"KUBECONFIG"_s);
    process.setProcessEnvironment(environment);
    process.start(kubectlPath(),
                  QStringList{ u"--kubeconfig"_s, m_server->kubeconfigPath() } + arguments);
    ProcessResult result;
    if (!process.waitForStarted(timeoutMs))
        return result;
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

void tst_ClusterServer::kubectlVersion_data()
{
    QTest::addColumn<QString>("context");
    QTest::newRow("admin certificate") << u"reconscope-admin"_s;
    QTest::newRow("token") << u"reconscope-token"_s;
}

void tst_ClusterServer::kubectlVersion()
{
    QFETCH(QString, context);
    const ProcessResult result
        = kubectl({ u"--context"_s, context, u"get"_s, u"--raw"_s, u"/version"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    const auto version = nlohmann::json::parse(result.out.toStdString(), nullptr, false);
    QVERIFY2(!version.is_discarded(), result.out.constData());
    QCOMPARE(QString::fromStdString(version.value("major", std::string())), u"1"_s);
}

void tst_ClusterServer::kubectlReusesConnections()
{
    QSignalSpy served(m_server->httpServer(), &HttpsApiServer::requestServed);
    const ProcessResult result = kubectl({ u"get"_s, u"namespaces"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("default"), result.out.constData());
    // Discovery plus the list: several requests over fewer connections.
    const qint64 connections = m_server->httpServer()->acceptedConnections();
    qInfo("kubectl get namespaces: %lld requests over %lld connections",
          qint64(served.size()),
          connections);
    QVERIFY(served.size() >= 2);
    QVERIFY(connections < served.size());
}

void tst_ClusterServer::kubectlCreatesAndReads()
{
    // From a manifest (JSON over the wire; `kubectl create namespace` would send protobuf).
    QFile manifest(m_dir->filePath(u"namespace.yaml"_s));
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: transport-test\n");
    manifest.close();
    const ProcessResult created
        = kubectl({ u"create"_s, u"-f"_s, manifest.fileName(), u"--validate=false"_s });
    QVERIFY2(created.exitCode == 0, created.err.constData());
    const ProcessResult read = kubectl(
        { u"get"_s, u"namespace"_s, u"transport-test"_s, u"-o"_s, u"jsonpath={.metadata.name}"_s });
    QVERIFY2(read.exitCode == 0, read.err.constData());
    QCOMPARE(read.out, QByteArray("transport-test"));
}

void tst_ClusterServer::kubectlWatchEndsAtTimeout()
{
    const ProcessResult result
        = kubectl({ u"get"_s, u"--raw"_s, u"/api/v1/namespaces?watch=true&timeoutSeconds=1"_s });
    QVERIFY2(result.exitCode == 0, result.err.constData());
    // Initial ADDED events, one JSON object per line, then the server ended the stream.
    const QByteArrayList lines = result.out.trimmed().split('\n');
    QVERIFY(lines.size() >= 1);
    for (const QByteArray &line : lines) {
        const auto event = nlohmann::json::parse(line.toStdString(), nullptr, false);
        QVERIFY2(!event.is_discarded(), line.constData());
        QCOMPARE(QString::fromStdString(event.value("type", std::string())), u"ADDED"_s);
    }
    QVERIFY(result.out.contains("\"name\":\"default\""));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->httpServer()->activeWatchCount(), 0, timeoutMs);
}

void tst_ClusterServer::historyWindowHookReachesCluster()
{
    QVERIFY(m_server->faultInjector()->setHistoryWindow(5));
    QTRY_COMPARE_WITH_TIMEOUT(m_cluster->historyWindow(), 5, timeoutMs);
}

QTEST_GUILESS_MAIN(tst_ClusterServer)
#include "tst_clusterserver.moc"
