// Crash output holds no secret (issue 9, item 4): the real `reconscope` binary, authenticated with
// a bearer token, a client certificate and key, and an exec credential, at trace level, is killed
// with each fatal signal the crash handler catches (app/crashhandler.h). Each must print a crash
// report (signal, version, backtrace), die of that signal, and leave no secret - nor its
// environment - in stdout, stderr or any file it wrote. Core dumps are off for the children: a core
// is the process's memory by definition, governed by the system (ulimit -c, core_pattern).
#include "controller/kube/clientconfig.h"
#include "controller/kube/kubeconfig.h"
#include "secretsearch.h"

#include <yaml-cpp/yaml.h>

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <memory>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;

namespace {

constexpr int WaitMs = 30000;
// In every child's environment: a crash report must not print the environment.
const QByteArray EnvironmentCanary = "env-canary-secret-8d3f1a6b2c";

// Under AddressSanitizer the binary leaves SIGSEGV, SIGBUS and SIGFPE to the sanitizer's own
// handler (app/crashhandler.cpp), whose report and exit differ.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool AddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool AddressSanitizer = true;
#else
constexpr bool AddressSanitizer = false;
#endif
#else
constexpr bool AddressSanitizer = false;
#endif

bool handledByCrashHandler(int number)
{
    return !AddressSanitizer || (number != SIGSEGV && number != SIGBUS && number != SIGFPE);
}

void noCoreDumps(QProcess &process)
{
    process.setChildProcessModifier([] {
        const rlimit none{ 0, 0 };
        ::setrlimit(RLIMIT_CORE, &none);
    });
}

const char *signalName(int number)
{
    switch (number) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGABRT:
        return "SIGABRT";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    default:
        return "?";
    }
}

} // namespace

class tst_CrashRedaction final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void clientCrashes_data();
    void clientCrashes();
    void serverCrashes();
    void noSecretInOutputOrFiles();

private:
    // Runs `reconscope ARGS` until `ready` appears in its output, kills it with `number`, checks
    // the report and the way it died; returns its stdout and stderr.
    QByteArray crash(QProcess &process,
                     const QByteArray &ready,
                     int number,
                     const QByteArray &earlierOutput = {});
    static void checkReport(const QByteArray &standardError, int number);

    std::unique_ptr<QTemporaryDir> m_dir;
    QProcessEnvironment m_environment;
    QProcess m_serve;
    QString m_kubeconfig;
    QString m_execKubeconfig;
    QList<QByteArray> m_secrets;
    QByteArray m_serveOutput; // read before the server is crashed
    QByteArray m_outputs; // every child's stdout and stderr
    int m_reports = 0;
};

void tst_CrashRedaction::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_kubeconfig = m_dir->filePath(u"out/kubeconfig"_s);
    m_environment = reconscope::tests::isolatedEnvironment(m_dir->path());
    m_environment.insert(u"RECONSCOPE_TEST_CANARY"_s, QString::fromLatin1(EnvironmentCanary));
    m_secrets << EnvironmentCanary;

    m_serve.setProcessEnvironment(m_environment);
    m_serve.setWorkingDirectory(m_dir->path());
    noCoreDumps(m_serve);
    m_serve.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                  { u"serve"_s,
                    u"--listen"_s,
                    u"127.0.0.1:0"_s,
                    u"--kubeconfig-out"_s,
                    m_kubeconfig,
                    u"--no-demo"_s,
                    u"--log-level"_s,
                    u"trace"_s });
    QVERIFY(m_serve.waitForStarted(WaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_serveOutput += m_serve.readAllStandardOutput() + m_serve.readAllStandardError())
            .contains("serving at"),
        WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(kube::Kubeconfig::load(m_kubeconfig).ok(), WaitMs);

    auto kubeconfig = kube::Kubeconfig::load(m_kubeconfig);
    QVERIFY2(kubeconfig, kubeconfig ? "" : qPrintable(kubeconfig.error().message));
    QString token;
    for (const QString &context : { u"reconscope-admin"_s, u"reconscope-token"_s }) {
        auto config = kubeconfig->resolve(context);
        QVERIFY2(config, config ? "" : qPrintable(config.error().message));
        if (!config->token.isEmpty())
            token = config->token;
        m_secrets << reconscope::tests::secretsOf(*config);
    }
    QVERIFY(!token.isEmpty());
    QVERIFY(m_secrets.size() >= 4);

    // An exec plugin that hands out the server's token (so the credential is accepted and the
    // watch runs with it).
    const QString plugin = m_dir->filePath(u"plugin.sh"_s);
    {
        QFile file(plugin);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                   "\"kind\":\"ExecCredential\",\"status\":{\"token\":\""
                   + token.toUtf8() + "\"}}\\n'\n");
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    YAML::Node root = YAML::LoadFile(m_kubeconfig.toStdString());
    YAML::Node execUser;
    execUser["name"] = "exec-user";
    execUser["user"]["exec"]["apiVersion"] = "client.authentication.k8s.io/v1";
    execUser["user"]["exec"]["command"] = plugin.toStdString();
    execUser["user"]["exec"]["interactiveMode"] = "Never";
    root["users"].push_back(execUser);
    YAML::Node context;
    context["name"] = "exec";
    context["context"]["cluster"] = root["contexts"][0]["context"]["cluster"].as<std::string>();
    context["context"]["user"] = "exec-user";
    root["contexts"].push_back(context);
    m_execKubeconfig = m_dir->filePath(u"out/exec-kubeconfig"_s);
    std::ofstream out(m_execKubeconfig.toStdString());
    out << root;
    out.close();
    QVERIFY(QFile::setPermissions(m_execKubeconfig, QFile::ReadOwner | QFile::WriteOwner));
}

void tst_CrashRedaction::cleanupTestCase()
{
    if (m_serve.state() != QProcess::NotRunning) {
        m_serve.kill();
        m_serve.waitForFinished(WaitMs);
    }
}

void tst_CrashRedaction::checkReport(const QByteArray &standardError, int number)
{
    const QByteArray header
        = "reconscope: fatal signal " + QByteArray::number(number) + " (" + signalName(number);
    const qsizetype at = standardError.indexOf(header);
    QVERIFY2(at >= 0, standardError.right(2000).constData());
    const QByteArray report = standardError.mid(at);
    QVERIFY2(report.contains(", reconscope " RECONSCOPE_VERSION), report.constData());
    QVERIFY2(report.contains("end of crash report"), report.constData());
    // A backtrace: frame lines between its heading and the end, at least the handler's own. (The
    // other threads run on while it is written: their log lines may come in between.)
    const qsizetype from = report.indexOf("backtrace");
    const qsizetype to = report.indexOf("end of crash report");
    QVERIFY(from >= 0 && to > from);
    qsizetype frames = 0;
    for (const QByteArray &line : report.mid(from, to - from).split('\n'))
        frames += line.contains("[0x") && line.contains("+0x") ? 1 : 0;
    QVERIFY2(frames >= 3, report.constData());
    // Nothing else: neither the command line nor the environment.
    QVERIFY2(!report.contains("--kubeconfig") && !report.contains("--context"), report.constData());
    QVERIFY2(!report.contains("XDG_") && !report.contains("PATH="), report.constData());
}

QByteArray tst_CrashRedaction::crash(QProcess &process,
                                     const QByteArray &ready,
                                     int number,
                                     const QByteArray &earlierOutput)
{
    QByteArray standardOutput = earlierOutput;
    QByteArray standardError;
    auto drain = [&] {
        standardOutput += process.readAllStandardOutput();
        standardError += process.readAllStandardError();
    };
    const bool wasReady = QTest::qWaitFor(
        [&] {
            drain();
            return (standardOutput + standardError).contains(ready)
                || process.state() == QProcess::NotRunning;
        },
        WaitMs);
    [&] {
        QVERIFY2(wasReady && process.state() == QProcess::Running,
                 (standardOutput + standardError).right(3000).constData());
        QVERIFY(::kill(pid_t(process.processId()), number) == 0);
        QVERIFY(process.waitForFinished(WaitMs));
        drain();
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        QCOMPARE(process.exitCode(), number); // the signal it died of
        checkReport(standardError, number);
    }();
    m_outputs += "\n$ reconscope " + process.arguments().join(u' ').toUtf8() + '\n' + standardOutput
        + standardError;
    if (!QTest::currentTestFailed())
        ++m_reports;
    return standardOutput + standardError;
}

void tst_CrashRedaction::clientCrashes_data()
{
    QTest::addColumn<QString>("kubeconfig");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QByteArray>("ready");
    QTest::addColumn<int>("signal");
    // Each client at trace level, stopped once its watch request (with the credential) is sent.
    QTest::newRow("token, SIGSEGV") << u"main"_s << u"reconscope-token"_s
                                    << QByteArray("Authorization: Bearer <redacted>") << SIGSEGV;
    QTest::newRow("client key, SIGABRT")
        << u"main"_s << u"reconscope-admin"_s << QByteArray("with a client certificate") << SIGABRT;
    QTest::newRow("exec credential, SIGBUS")
        << u"exec"_s << u"exec"_s << QByteArray("Authorization: Bearer <redacted>") << SIGBUS;
}

void tst_CrashRedaction::clientCrashes()
{
    QFETCH(QString, kubeconfig);
    QFETCH(QString, context);
    QFETCH(QByteArray, ready);
    QFETCH(int, signal);
    if (!handledByCrashHandler(signal))
        QSKIP("AddressSanitizer handles this signal itself");
    QProcess process;
    process.setWorkingDirectory(m_dir->path());
    process.setProcessEnvironment(m_environment);
    noCoreDumps(process);
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                  { u"watch"_s,
                    u"customapps"_s,
                    u"-A"_s,
                    u"--kubeconfig"_s,
                    kubeconfig == u"exec" ? m_execKubeconfig : m_kubeconfig,
                    u"--context"_s,
                    context,
                    u"--log-level"_s,
                    u"trace"_s });
    QVERIFY(process.waitForStarted(WaitMs));
    const QByteArray output = crash(process, "customapps: watching", signal);
    if (QTest::currentTestFailed())
        return;
    // The credential was in use: the requests were sent with it.
    QVERIFY2(output.contains(ready), output.right(3000).constData());
}

void tst_CrashRedaction::serverCrashes()
{
    // The server holds every token and key it issued; its trace log had them all in play.
    QVERIFY(m_serve.state() == QProcess::Running);
    crash(m_serve,
          "GET /apis/infrastructure.internal.net/v1/customapps 200",
          handledByCrashHandler(SIGFPE) ? SIGFPE : SIGABRT,
          m_serveOutput);
    if (QTest::currentTestFailed())
        return;

    // And the reconciler, headless, with SIGILL, on a fresh server.
    QProcess serve;
    serve.setWorkingDirectory(m_dir->path());
    serve.setProcessEnvironment(m_environment);
    noCoreDumps(serve);
    const QString second = m_dir->filePath(u"out/second-kubeconfig"_s);
    serve.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                { u"serve"_s,
                  u"--listen"_s,
                  u"127.0.0.1:0"_s,
                  u"--kubeconfig-out"_s,
                  second,
                  u"--log-level"_s,
                  u"trace"_s });
    QVERIFY(serve.waitForStarted(WaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(kube::Kubeconfig::load(second).ok(), WaitMs);
    auto kubeconfig = kube::Kubeconfig::load(second);
    QVERIFY(kubeconfig);
    for (const QString &context : { u"reconscope-admin"_s, u"reconscope-token"_s }) {
        auto config = kubeconfig->resolve(context);
        QVERIFY(config);
        m_secrets << reconscope::tests::secretsOf(*config);
    }
    QProcess reconcile;
    reconcile.setWorkingDirectory(m_dir->path());
    reconcile.setProcessEnvironment(m_environment);
    noCoreDumps(reconcile);
    reconcile.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                    { u"reconcile"_s,
                      u"--kubeconfig"_s,
                      second,
                      u"--context"_s,
                      u"reconscope-token"_s,
                      u"--leader-elect=false"_s,
                      u"--log-level"_s,
                      u"trace"_s });
    QVERIFY(reconcile.waitForStarted(WaitMs));
    crash(reconcile, "watching", SIGILL);
    serve.kill();
    serve.waitForFinished(WaitMs);
    m_outputs += serve.readAllStandardOutput() + serve.readAllStandardError();
}

void tst_CrashRedaction::noSecretInOutputOrFiles()
{
    // Every crash above printed its report.
    QCOMPARE(m_reports, handledByCrashHandler(SIGSEGV) ? 5 : 3);
    reconscope::tests::verifyNoSecretIn(m_outputs, m_secrets);
    if (QTest::currentTestFailed())
        return;
    // Every file the children wrote, except the kubeconfigs (which must hold the credentials) and
    // the test's own exec plugin.
    int files = 0;
    QDirIterator it(m_dir->path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.startsWith(m_dir->filePath(u"out/"_s)) || path.endsWith(u"/plugin.sh"_s))
            continue;
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        ++files;
        for (const QByteArray &secret : std::as_const(m_secrets))
            QVERIFY2(!content.contains(secret), qPrintable(u"a secret appears in "_s + path));
    }
    QVERIFY2(!QFile::exists(m_dir->filePath(u"core"_s)), "a core dump was written");
    qInfo("%d files checked", files);
}

QTEST_GUILESS_MAIN(tst_CrashRedaction)
#include "tst_crashredaction.moc"
