#include "servefixture.h"
#include "tests/testkubectl.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>

ServeFixture::~ServeFixture()
{
    stop();
}

QString ServeFixture::kubectlPath()
{
    return reconscope::tests::testKubectlPath();
}

bool ServeFixture::start(const QStringList &extraArgs)
{
    QStringList args{ QStringLiteral("serve"),
                      QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:0"),
                      QStringLiteral("--kubeconfig-out"),
                      kubeconfigPath() };
    args += extraArgs;
    m_server.setProgram(QStringLiteral(RECONSCOPE_EXECUTABLE));
    m_server.setArguments(args);
    m_server.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_server.start();
    if (!m_server.waitForStarted(10000))
        return false;
    // serve prints "serving at https://127.0.0.1:PORT" once the kubeconfig is written.
    QByteArray seen;
    const QRegularExpression listening(QStringLiteral("serving at (https://[^\\s]+)"));
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        if (m_server.waitForReadyRead(200))
            seen += m_server.readAllStandardOutput();
        const auto match = listening.match(QString::fromUtf8(seen));
        if (match.hasMatch() && QFile::exists(kubeconfigPath())) {
            m_url = match.captured(1);
            return true;
        }
        if (m_server.state() != QProcess::Running)
            return false;
    }
    return false;
}

void ServeFixture::stop()
{
    if (m_server.state() == QProcess::NotRunning)
        return;
    m_server.terminate();
    if (!m_server.waitForFinished(10000))
        m_server.kill();
    m_server.waitForFinished(2000);
}

QProcessEnvironment ServeFixture::environment() const
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KUBECONFIG"), kubeconfigPath());
    env.insert(QStringLiteral("HOME"),
               m_dir.path()); // kubectl's discovery cache stays per test run
    return env;
}

ServeFixture::Output
ServeFixture::kubectl(const QStringList &args, const QByteArray &stdinData, int timeoutMs) const
{
    QProcess process;
    process.setProcessEnvironment(environment());
    process.start(kubectlPath(), args);
    Output output;
    if (!process.waitForStarted(10000))
        return output;
    if (!stdinData.isEmpty())
        process.write(stdinData);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
    }
    output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    output.out = QString::fromUtf8(process.readAllStandardOutput());
    output.err = QString::fromUtf8(process.readAllStandardError());
    return output;
}

QProcess *ServeFixture::startKubectl(const QStringList &args) const
{
    auto *process = new QProcess;
    process->setProcessEnvironment(environment());
    process->start(kubectlPath(), args);
    process->waitForStarted(10000);
    return process;
}
