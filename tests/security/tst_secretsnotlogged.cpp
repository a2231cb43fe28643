// Credentials never leave in logs or files (issue 9, item 4): the real `reconscope` binary runs
// its commands at trace level (--log-level trace and SPDLOG_LEVEL=trace) against `reconscope
// serve`, authenticating with a bearer token, a client certificate, an exec plugin and a password
// whose values the test knows; none of them may appear in any output or any file written, and the
// files that must hold them (the kubeconfigs) are mode 0600.
#include "controller/kube/clientconfig.h"
#include "controller/kube/kubeconfig.h"
#include "secretsearch.h"

#include <yaml-cpp/yaml.h>

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;

namespace {

constexpr int WaitMs = 30000;
const QByteArray ExecToken = "exec-secret-token-5b1e0c9d77aa";
const QByteArray Password = "basic-secret-pa55word-41f2";

int modeOf(const QString &path)
{
    struct stat info
    { };
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 0777);
}

} // namespace

class tst_SecretsNotLogged final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void kubeconfigIsPrivate();
    void commandsAtTraceLevel();

private:
    // Runs `reconscope ARGS` for about `ms` (or until it exits), then SIGTERM; returns its output.
    QByteArray runFor(const QStringList &arguments,
                      int ms,
                      std::optional<QProcessEnvironment> environment = std::nullopt);
    void writeSecondKubeconfig();

    std::unique_ptr<QTemporaryDir> m_dir;
    QProcess m_serve;
    QByteArray m_serveOutput;
    QString m_kubeconfig;
    QString m_otherKubeconfig;
    QList<QByteArray> m_secrets;
    QByteArray m_outputs; // every command's stdout and stderr
    // The children's environment: their data, config and cache directories (the console's
    // rotating log file, settings) inside the temporary directory, so that they are checked too.
    QProcessEnvironment m_environment;
};

void tst_SecretsNotLogged::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_kubeconfig = m_dir->filePath(u"out/kubeconfig"_s);
    m_environment = reconscope::tests::isolatedEnvironment(m_dir->path());
    m_serve.setProcessEnvironment(m_environment);
    m_serve.setProcessChannelMode(QProcess::MergedChannels);
    m_serve.setWorkingDirectory(m_dir->path());
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
    QTRY_VERIFY_WITH_TIMEOUT((m_serveOutput += m_serve.readAll()).contains("serving at"), WaitMs);

    auto kubeconfig = kube::Kubeconfig::load(m_kubeconfig);
    QVERIFY2(kubeconfig, kubeconfig ? "" : qPrintable(kubeconfig.error().message));
    for (const QString &context :
         { u"reconscope-admin"_s, u"reconscope-token"_s, u"reconscope-viewer"_s }) {
        auto config = kubeconfig->resolve(context);
        QVERIFY2(config, config ? "" : qPrintable(config.error().message));
        m_secrets << reconscope::tests::secretsOf(*config);
    }
    QVERIFY(m_secrets.size() >= 4);
    m_secrets << ExecToken << Password;
    writeSecondKubeconfig();
}

void tst_SecretsNotLogged::cleanupTestCase()
{
    if (m_serve.state() != QProcess::NotRunning) {
        m_serve.terminate();
        if (!m_serve.waitForFinished(WaitMs))
            m_serve.kill();
    }
}

// The server's kubeconfig plus two users: an exec plugin printing ExecToken and basic auth with
// Password (the server refuses both: their failures are logged too).
void tst_SecretsNotLogged::writeSecondKubeconfig()
{
    const QString plugin = m_dir->filePath(u"plugin.sh"_s);
    {
        QFile file(plugin);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                   "\"kind\":\"ExecCredential\",\"status\":{\"token\":\""
                   + ExecToken + "\"}}\\n'\n");
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    YAML::Node root = YAML::LoadFile(m_kubeconfig.toStdString());
    const std::string cluster = root["contexts"][0]["context"]["cluster"].as<std::string>();
    YAML::Node execUser;
    execUser["name"] = "exec-user";
    execUser["user"]["exec"]["apiVersion"] = "client.authentication.k8s.io/v1";
    execUser["user"]["exec"]["command"] = plugin.toStdString();
    execUser["user"]["exec"]["interactiveMode"] = "Never";
    root["users"].push_back(execUser);
    YAML::Node basicUser;
    basicUser["name"] = "basic-user";
    basicUser["user"]["username"] = "alice";
    basicUser["user"]["password"] = Password.toStdString();
    root["users"].push_back(basicUser);
    for (const char *name : { "exec", "basic" }) {
        YAML::Node context;
        context["name"] = name;
        context["context"]["cluster"] = cluster;
        context["context"]["user"] = std::string(name) + "-user";
        root["contexts"].push_back(context);
    }
    m_otherKubeconfig = m_dir->filePath(u"other-kubeconfig"_s);
    std::ofstream out(m_otherKubeconfig.toStdString());
    out << root;
    out.close();
    QVERIFY(QFile::setPermissions(m_otherKubeconfig, QFile::ReadOwner | QFile::WriteOwner));
}

QByteArray tst_SecretsNotLogged::runFor(const QStringList &arguments,
                                        int ms,
                                        std::optional<QProcessEnvironment> environment)
{
    QProcess process;
    process.setWorkingDirectory(m_dir->path());
    process.setProcessEnvironment(environment ? *environment : m_environment);
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE), arguments);
    if (!process.waitForStarted(WaitMs))
        return {};
    if (!process.waitForFinished(ms)) {
        process.terminate();
        if (!process.waitForFinished(WaitMs)) {
            process.kill();
            process.waitForFinished(WaitMs);
        }
    }
    const QByteArray output = process.readAllStandardOutput() + process.readAllStandardError();
    m_outputs += "\n$ reconscope " + arguments.join(u' ').toUtf8() + '\n' + output;
    return output;
}

void tst_SecretsNotLogged::kubeconfigIsPrivate()
{
    QCOMPARE(modeOf(m_kubeconfig), 0600);
    // Written again on a restart of serve over an existing, more open file: still 0600.
    QVERIFY(QFile::setPermissions(m_kubeconfig,
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
    const QString second = m_dir->filePath(u"out/second"_s);
    QVERIFY(QFile::copy(m_kubeconfig, second));
    QVERIFY(QFile::setPermissions(second, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
    const QByteArray output = runFor({ u"serve"_s,
                                       u"--listen"_s,
                                       u"127.0.0.1:0"_s,
                                       u"--kubeconfig-out"_s,
                                       second,
                                       u"--no-demo"_s },
                                     2500);
    QVERIFY2(output.contains("serving at"), output.constData());
    QCOMPARE(modeOf(second), 0600);
    QVERIFY(QFile::setPermissions(m_kubeconfig, QFile::ReadOwner | QFile::WriteOwner));
}

void tst_SecretsNotLogged::commandsAtTraceLevel()
{
    const QString watchAll = u"customapps"_s;
    // Bearer token, option.
    const QByteArray tokenRun = runFor({ u"watch"_s,
                                         watchAll,
                                         u"-A"_s,
                                         u"--kubeconfig"_s,
                                         m_kubeconfig,
                                         u"--context"_s,
                                         u"reconscope-token"_s,
                                         u"--log-level"_s,
                                         u"trace"_s },
                                       2500);
    // Trace really was on and reached the requests: the header is named, its value is not.
    QVERIFY2(tokenRun.contains("Authorization: Bearer <redacted>"), tokenRun.constData());

    // Client certificate, SPDLOG_LEVEL instead of the option.
    QProcessEnvironment traceEnvironment = m_environment;
    traceEnvironment.insert(u"SPDLOG_LEVEL"_s, u"trace"_s);
    const QByteArray certificateRun = runFor({ u"watch"_s,
                                               watchAll,
                                               u"-A"_s,
                                               u"--kubeconfig"_s,
                                               m_kubeconfig,
                                               u"--context"_s,
                                               u"reconscope-admin"_s },
                                             2500,
                                             traceEnvironment);
    QVERIFY2(certificateRun.contains("with a client certificate"), certificateRun.constData());

    // Refused credentials: an exec plugin's token and a password.
    for (const QString &context : { u"exec"_s, u"basic"_s }) {
        const QByteArray run = runFor({ u"watch"_s,
                                        watchAll,
                                        u"-A"_s,
                                        u"--kubeconfig"_s,
                                        m_otherKubeconfig,
                                        u"--context"_s,
                                        context,
                                        u"--log-level=trace"_s },
                                      2500);
        QVERIFY2(run.contains("401") || run.contains("Unauthorized"), run.constData());
    }

    // The reconciler, headless.
    runFor({ u"reconcile"_s,
             u"--kubeconfig"_s,
             m_kubeconfig,
             u"--context"_s,
             u"reconscope-token"_s,
             u"--leader-elect=false"_s,
             u"--log-level"_s,
             u"trace"_s },
           3000);

    // The console, with a screenshot.
    QProcessEnvironment gui = traceEnvironment;
    gui.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    runFor({ u"--kubeconfig"_s,
             m_kubeconfig,
             u"--context"_s,
             u"reconscope-token"_s,
             u"--screenshot"_s,
             m_dir->filePath(u"console.png"_s),
             u"--screenshot-after"_s,
             u"1500"_s },
           20000,
           gui);

    // The server's own trace output so far.
    m_serveOutput += m_serve.readAll();
    m_outputs += "\n$ reconscope serve\n" + m_serveOutput;

    reconscope::tests::verifyNoSecretIn(m_outputs, m_secrets);
    if (QTest::currentTestFailed())
        return;
    // Every file written, except the kubeconfigs that must hold the credentials (0600).
    int files = 0;
    QDirIterator it(m_dir->path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path == m_otherKubeconfig || path.startsWith(m_dir->filePath(u"out/"_s))) {
            QCOMPARE(modeOf(path), 0600);
            continue;
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        ++files;
        for (const QByteArray &secret : std::as_const(m_secrets)) {
            if (path.endsWith(u"plugin.sh"_s) && secret == ExecToken)
                continue; // the plugin prints it
            QVERIFY2(!content.contains(secret), qPrintable(u"a secret appears in "_s + path));
        }
    }
    QVERIFY(QFile::exists(m_dir->filePath(u"console.png"_s)));
    // The console's own log file was among them, with trace lines in it.
    QDirIterator logs(
        m_dir->path(), { u"reconscope*.log"_s }, QDir::Files, QDirIterator::Subdirectories);
    QVERIFY2(logs.hasNext(), "the console wrote no log file");
    QVERIFY(files >= 2);
}

QTEST_GUILESS_MAIN(tst_SecretsNotLogged)
#include "tst_secretsnotlogged.moc"
