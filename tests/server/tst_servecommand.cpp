#include "app/cli/servearguments.h"
#include "controller/cluster/server/servecommand.h"
#include "testsupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

class tst_ServeCommand : public QObject
{
    Q_OBJECT

private slots:
    void parseArguments_data();
    void parseArguments();
    void parseListenAddress_data();
    void parseListenAddress();
    void runsUntilSigterm();
};

void tst_ServeCommand::parseArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("address");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("kubeconfig");
    QTest::addColumn<bool>("demo");

    QTest::newRow("defaults") << QStringList() << true << u"127.0.0.1"_s << 0
                              << reconscope::app::defaultServeKubeconfigPath() << true;
    QTest::newRow("all options") << QStringList{ u"--listen"_s,
                                                 u"127.0.0.1:6443"_s,
                                                 u"--kubeconfig-out"_s,
                                                 u"/tmp/k"_s,
                                                 u"--no-demo"_s }
                                 << true << u"127.0.0.1"_s << 6443 << u"/tmp/k"_s << false;
    QTest::newRow("inline values")
        << QStringList{ u"--listen=:7000"_s, u"--kubeconfig-out=/tmp/x"_s } << true
        << u"127.0.0.1"_s << 7000 << u"/tmp/x"_s << true;
    QTest::newRow("missing listen value")
        << QStringList{ u"--listen"_s } << false << QString() << 0 << QString() << true;
    QTest::newRow("bad port") << QStringList{ u"--listen"_s, u"127.0.0.1:99999"_s } << false
                              << QString() << 0 << QString() << true;
    QTest::newRow("unknown option")
        << QStringList{ u"--demo"_s } << false << QString() << 0 << QString() << true;
    QTest::newRow("empty kubeconfig")
        << QStringList{ u"--kubeconfig-out="_s } << false << QString() << 0 << QString() << true;
}

void tst_ServeCommand::parseArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(bool, ok);
    QFETCH(QString, address);
    QFETCH(int, port);
    QFETCH(QString, kubeconfig);
    QFETCH(bool, demo);
    const auto options = reconscope::app::parseServeArguments(arguments);
    QCOMPARE(options.ok(), ok);
    if (!ok) {
        QVERIFY(!options.error().message.isEmpty());
        return;
    }
    QCOMPARE(options->address, QHostAddress(address));
    QCOMPARE(options->port, port);
    QCOMPARE(options->kubeconfigPath, kubeconfig);
    QCOMPARE(options->demo, demo);
}

void tst_ServeCommand::parseListenAddress_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("address");
    QTest::addColumn<int>("port");
    QTest::newRow("v4") << u"127.0.0.1:8443"_s << true << u"127.0.0.1"_s << 8443;
    QTest::newRow("v6") << u"[::1]:8443"_s << true << u"::1"_s << 8443;
    QTest::newRow("port only") << u"8443"_s << true << u"127.0.0.1"_s << 8443;
    QTest::newRow("colon port") << u":0"_s << true << u"127.0.0.1"_s << 0;
    QTest::newRow("localhost") << u"localhost:1"_s << true << u"127.0.0.1"_s << 1;
    QTest::newRow("host name") << u"example.com:1"_s << false << QString() << 0;
    QTest::newRow("no port") << u"127.0.0.1:"_s << false << QString() << 0;
    QTest::newRow("negative") << u"127.0.0.1:-1"_s << false << QString() << 0;
}

void tst_ServeCommand::parseListenAddress()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, address);
    QFETCH(int, port);
    const auto parsed = reconscope::app::parseListenAddress(text);
    QCOMPARE(parsed.ok(), ok);
    if (ok) {
        QCOMPARE(parsed->first, QHostAddress(address));
        QCOMPARE(parsed->second, port);
    }
}

void tst_ServeCommand::runsUntilSigterm()
{
    QTemporaryDir dir;
    ServeOptions options;
    options.kubeconfigPath = dir.filePath(u"kubeconfig"_s);
    reconscope::tests::FakeApi api;
    bool sent = false;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
        if (!sent && QFile::exists(options.kubeconfigPath)) {
            sent = true;
            ::raise(SIGTERM);
        }
    });
    poll.start(10);
    const int code = ServeCommand::run(options, [&api](EmbeddedServer &) { return api.handler(); });
    QVERIFY(sent);
    QCOMPARE(code, 0);
    QFile kubeconfig(options.kubeconfigPath);
    QVERIFY(kubeconfig.open(QIODevice::ReadOnly));
    QVERIFY(kubeconfig.readAll().contains("current-context: reconscope-admin"));
}

QTEST_GUILESS_MAIN(tst_ServeCommand)
#include "tst_servecommand.moc"
