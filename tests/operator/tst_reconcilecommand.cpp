// `reconscope reconcile`: argument parsing, and a whole headless run against the embedded cluster
// (kubeconfig from disk, metrics scraped over HTTP, SIGINT ends it with exit code 0).
#include "app/cli/reconcilearguments.h"
#include "controller/operator/metricsendpoint.h"
#include "controller/operator/reconcilecommand.h"
#include "operatortestutil.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <csignal>

using namespace optest;
namespace operators = reconscope::controller::operators;

class tst_ReconcileCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void bindAddress_data();
    void bindAddress();
    void headlessRunReconcilesServesMetricsAndStopsOnSigint();
};

void tst_ReconcileCommand::parse_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error"); // fragment; empty when valid
    QTest::addColumn<QString>("namespace_");
    QTest::addColumn<bool>("dryRun");
    QTest::addColumn<bool>("leaderElect");
    QTest::newRow("minimal") << QStringList{ u"--kubeconfig"_s, u"/k"_s } << QString() << QString()
                             << false << true;
    QTest::newRow("all") << QStringList{ u"--kubeconfig=/k"_s,
                                         u"--context"_s,
                                         u"kind-kind"_s,
                                         u"-n"_s,
                                         u"apps"_s,
                                         u"--dry-run"_s,
                                         u"--metrics-bind-address"_s,
                                         u":8080"_s,
                                         u"--log-level"_s,
                                         u"debug"_s,
                                         u"--leader-elect=false"_s }
                         << QString() << u"apps"_s << true << false;
    QTest::newRow("all namespaces")
        << QStringList{ u"-A"_s } << QString() << u"*"_s << false << true;
    QTest::newRow("missing value")
        << QStringList{ u"--context"_s } << u"needs a value"_s << QString() << false << true;
    QTest::newRow("unknown") << QStringList{ u"--frobnicate"_s } << u"unknown argument"_s
                             << QString() << false << true;
    QTest::newRow("bad level") << QStringList{ u"--log-level"_s, u"loud"_s } << u"log level"_s
                               << QString() << false << true;
    QTest::newRow("bad address") << QStringList{ u"--metrics-bind-address"_s, u"8080"_s }
                                 << u"metrics-bind-address"_s << QString() << false << true;
    QTest::newRow("metrics off") << QStringList{ u"--metrics-bind-address"_s, u"0"_s } << QString()
                                 << QString() << false << true;
    // A dry run over a replay: --replay implies --dry-run, and plays into a cluster of its own.
    QTest::newRow("replay")
        << QStringList{ u"--replay"_s, u"a.jsonl"_s, u"--replay=crd.json"_s, u"-o"_s, u"json"_s }
        << QString() << QString() << true << true;
    QTest::newRow("replay without file")
        << QStringList{ u"--replay"_s } << u"--replay needs a file"_s << QString() << false << true;
    QTest::newRow("replay and kubeconfig")
        << QStringList{ u"--replay"_s, u"a.jsonl"_s, u"--kubeconfig"_s, u"/k"_s }
        << u"leave out --kubeconfig"_s << QString() << true << true;
    QTest::newRow("json without replay")
        << QStringList{ u"-o"_s, u"json"_s } << u"-o json goes with --replay"_s << QString()
        << false << true;
    QTest::newRow("other output") << QStringList{ u"--replay"_s, u"a"_s, u"-o"_s, u"yaml"_s }
                                  << u"-o takes json"_s << QString() << true << true;
}

void tst_ReconcileCommand::parse()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    QFETCH(QString, namespace_);
    QFETCH(bool, dryRun);
    QFETCH(bool, leaderElect);
    const auto options = reconscope::app::parseReconcileArguments(arguments);
    if (!error.isEmpty()) {
        QVERIFY(!options);
        QVERIFY2(options.error().message.contains(error), qPrintable(options.error().message));
        return;
    }
    QVERIFY2(options, options ? "" : qPrintable(options.error().message));
    QCOMPARE(options->namespace_, namespace_);
    QCOMPARE(options->dryRun, dryRun);
    QCOMPARE(options->leaderElect, leaderElect);
}

void tst_ReconcileCommand::bindAddress_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("ipv4") << u"127.0.0.1:8080"_s << true << u"127.0.0.1"_s << 8080;
    QTest::newRow("any") << u":9090"_s << true << u"0.0.0.0"_s << 9090;
    QTest::newRow("ipv6") << u"[::1]:80"_s << true << u"::1"_s << 80;
    QTest::newRow("no port") << u"localhost"_s << false << QString() << 0;
    QTest::newRow("port too big") << u":70000"_s << false << QString() << 0;
}

void tst_ReconcileCommand::bindAddress()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, host);
    QFETCH(int, port);
    QHostAddress address;
    quint16 parsedPort = 0;
    QCOMPARE(operators::MetricsEndpoint::parseBindAddress(text, &address, &parsedPort), ok);
    if (!ok)
        return;
    if (host == u"0.0.0.0")
        QCOMPARE(address, QHostAddress(QHostAddress::Any));
    else
        QCOMPARE(address, QHostAddress(host));
    QCOMPARE(int(parsedPort), port);
}

void tst_ReconcileCommand::headlessRunReconcilesServesMetricsAndStopsOnSigint()
{
    ClusterFixture fx(20);
    const QString error = fx.start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(fx.create(
        customApps,
        ClusterFixture::customApp(u"cmd"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } })));
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    const auto options
        = reconscope::app::parseReconcileArguments({ u"--kubeconfig"_s,
                                                     fx.server()->kubeconfigPath(),
                                                     u"--context"_s,
                                                     u"reconscope-admin"_s,
                                                     u"-n"_s,
                                                     u"default"_s,
                                                     u"--metrics-bind-address"_s,
                                                     u"127.0.0.1:"_s + QString::number(port),
                                                     u"--log-level"_s,
                                                     u"warn"_s });
    QVERIFY(options);

    // While the command runs (its own event loop), poll: Ready, then scrape, then SIGINT.
    QByteArray scraped;
    bool sentSignal = false;
    QTimer poll;
    poll.setInterval(20);
    QTcpSocket socket;
    connect(&poll, &QTimer::timeout, this, [&] {
        if (sentSignal || fx.state(u"cmd"_s) != u"Ready")
            return;
        if (socket.state() == QAbstractSocket::UnconnectedState && scraped.isEmpty()) {
            socket.connectToHost(QHostAddress::LocalHost, port);
            connect(&socket, &QTcpSocket::connected, this, [&socket] {
                socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
            });
            connect(&socket, &QTcpSocket::readyRead, this, [&socket, &scraped] {
                scraped += socket.readAll();
            });
            return;
        }
        if (scraped.contains("controller_runtime_reconcile_total")
            && socket.state() == QAbstractSocket::UnconnectedState) {
            sentSignal = true;
            ::raise(SIGINT);
        }
    });
    poll.start();
    QTimer::singleShot(20000, QCoreApplication::instance(), [] { ::raise(SIGTERM); });
    const int code = operators::ReconcileCommand::run(options.value());
    poll.stop();
    QCOMPARE(code, 0);
    QVERIFY(sentSignal);
    QVERIFY(scraped.startsWith("HTTP/1.1 200 OK"));
    QVERIFY(scraped.contains("text/plain; version=0.0.4"));
    QVERIFY(scraped.contains(
        "controller_runtime_reconcile_total{controller=\"customapp\",result=\"success\"}"));
    // The lease was taken and released on the way out.
    const json lease = fx.get(leases, u"customapp-operator"_s);
    QVERIFY(lease.is_object());
    QCOMPARE_JSON(lease["spec"]["holderIdentity"], json(""));
    QCOMPARE(fx.state(u"cmd"_s), u"Ready"_s);
}

QTEST_GUILESS_MAIN(tst_ReconcileCommand)
#include "tst_reconcilecommand.moc"
