#include "controller/kube/credentialprovider.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;

namespace {

using CredentialsResult = models::Result<Credentials, ApiError>;

constexpr int ExecTimeoutMs = 60'000;

ApiError authError(QString message)
{
    return ApiError::make(ApiError::Category::Auth, std::move(message));
}

} // namespace

CredentialProvider::CredentialProvider(ClientConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{ }

CredentialProvider::~CredentialProvider()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

CredentialsResult CredentialProvider::staticCredentials()
{
    Credentials credentials;
    credentials.clientCertificate = m_config.clientCertificate;
    credentials.clientKey = m_config.clientKey;
    if (!m_config.tokenFile.isEmpty()) {
        const QFileInfo info(m_config.tokenFile);
        if (!info.exists()) {
            return authError(m_config.origin
                             + u": tokenFile: %1 does not exist"_s.arg(m_config.tokenFile));
        }
        if (m_fileToken.isEmpty() || info.lastModified() != m_fileModified
            || info.size() != m_fileSize) {
            QFile file(m_config.tokenFile);
            if (!file.open(QIODevice::ReadOnly)) {
                return authError(m_config.origin
                                 + u": tokenFile: cannot read %1: %2"_s.arg(m_config.tokenFile,
                                                                            file.errorString()));
            }
            m_fileToken = file.readAll().trimmed();
            m_fileModified = info.lastModified();
            m_fileSize = info.size();
        }
        if (m_fileToken.isEmpty())
            return authError(m_config.origin
                             + u": tokenFile: %1 is empty"_s.arg(m_config.tokenFile));
        credentials.authorization = "Bearer " + m_fileToken;
    } else if (!m_config.token.isEmpty()) {
        credentials.authorization = "Bearer " + m_config.token.toUtf8();
    } else if (!m_config.username.isEmpty() || !m_config.password.isEmpty()) {
        credentials.authorization
            = "Basic " + (m_config.username + u':' + m_config.password).toUtf8().toBase64();
    }
    return credentials;
}

void CredentialProvider::acquire(QObject *context, Callback callback)
{
    if (!m_config.exec) {
        callback(staticCredentials());
        return;
    }
    if (m_execCredentials && (!m_execExpiry.isValid() || m_clock() < m_execExpiry)) {
        callback(*m_execCredentials);
        return;
    }
    m_waiters.append({ QPointer<QObject>(context), std::move(callback) });
    if (!m_process)
        startExec();
}

void CredentialProvider::invalidate()
{
    m_execCredentials.reset();
    m_execExpiry = {};
    m_fileToken.clear();
}

void CredentialProvider::startExec()
{
    const ExecConfig &exec = *m_config.exec;
    m_process = new QProcess(this);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : exec.env)
        environment.insert(name, value);
    nlohmann::json info = { { "apiVersion", exec.apiVersion.toStdString() },
                            { "kind", "ExecCredential" },
                            { "spec", { { "interactive", false } } } };
    if (exec.provideClusterInfo) {
        nlohmann::json cluster = { { "server", m_config.server.toString().toStdString() } };
        if (!m_config.tlsServerName.isEmpty())
            cluster["tls-server-name"] = m_config.tlsServerName.toStdString();
        if (m_config.insecureSkipTlsVerify)
            cluster["insecure-skip-tls-verify"] = true;
        if (!m_config.caCertificates.isEmpty()) {
            QByteArray pem;
            for (const auto &certificate : m_config.caCertificates)
                pem += certificate.toPem();
            cluster["certificate-authority-data"] = pem.toBase64().toStdString();
        }
        info["spec"]["cluster"] = cluster;
    }
    environment.insert(u"KUBERNETES_EXEC_INFO"_s, QString::fromStdString(info.dump()));
    m_process->setProcessEnvironment(environment);
    m_process->setWorkingDirectory(m_config.execWorkingDirectory);
    m_process->setInputChannelMode(QProcess::ManagedInputChannel);
    ++m_execRuns;

    connect(
        m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            handleExecFinished(exitCode, status == QProcess::CrashExit);
        });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const ExecConfig &exec = *m_config.exec;
        QString message = m_config.origin
            + u": exec plugin %1 could not be started: %2"_s.arg(exec.command,
                                                                 m_process->errorString());
        if (!exec.installHint.isEmpty())
            message += u"\n"_s + exec.installHint.trimmed();
        m_process->deleteLater();
        m_process = nullptr;
        deliver(authError(message));
        emit execPluginFinished(false);
    });
    auto *timeout = new QTimer(m_process);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, m_process, &QProcess::kill);
    timeout->start(ExecTimeoutMs);
    m_process->start(exec.command, exec.args);
    m_process->closeWriteChannel();
}

void CredentialProvider::handleExecFinished(int exitCode, bool crashed)
{
    const ExecConfig &exec = *m_config.exec;
    const QByteArray out = m_process->readAllStandardOutput();
    const QString err = QString::fromLocal8Bit(m_process->readAllStandardError()).trimmed();
    m_process->deleteLater();
    m_process = nullptr;

    const QString prefix = m_config.origin + u": exec plugin %1"_s.arg(exec.command);
    auto fail = [&](const QString &what) {
        QString message = prefix + u": "_s + what;
        if (!err.isEmpty())
            message += u"\nstderr: "_s + err;
        deliver(authError(message));
        emit execPluginFinished(false);
    };
    if (crashed || exitCode != 0) {
        fail(crashed ? u"crashed or timed out"_s : u"exited with code %1"_s.arg(exitCode));
        return;
    }
    const auto json = nlohmann::json::parse(out.begin(), out.end(), nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        fail(u"printed something that is not JSON"_s);
        return;
    }
    if (models::jsonString(json, "kind") != u"ExecCredential") {
        fail(u"printed kind %1, expected ExecCredential"_s.arg(models::jsonString(json, "kind")));
        return;
    }
    if (models::jsonString(json, "apiVersion") != exec.apiVersion) {
        fail(u"printed apiVersion %1, expected %2"_s.arg(models::jsonString(json, "apiVersion"),
                                                         exec.apiVersion));
        return;
    }
    const auto status = json.find("status");
    if (status == json.end() || !status->is_object()) {
        fail(u"ExecCredential without status"_s);
        return;
    }
    Credentials credentials;
    credentials.clientCertificate = m_config.clientCertificate;
    credentials.clientKey = m_config.clientKey;
    const QString token = models::jsonString(*status, "token");
    const QString certificateData = models::jsonString(*status, "clientCertificateData");
    const QString keyData = models::jsonString(*status, "clientKeyData");
    if (!token.isEmpty())
        credentials.authorization = "Bearer " + token.toUtf8();
    if (!certificateData.isEmpty() || !keyData.isEmpty()) {
        if (certificateData.isEmpty() || keyData.isEmpty()) {
            fail(u"status.clientCertificateData and status.clientKeyData must both be set"_s);
            return;
        }
        auto certificate = pem::parseCertificate(certificateData.toUtf8());
        if (!certificate) {
            fail(u"status.clientCertificateData: "_s + certificate.error().message);
            return;
        }
        auto key = pem::parsePrivateKey(keyData.toUtf8());
        if (!key) {
            fail(u"status.clientKeyData: "_s + key.error().message);
            return;
        }
        if (!pem::keyMatchesCertificate(keyData.toUtf8(), certificateData.toUtf8())) {
            fail(u"status.clientKeyData does not match status.clientCertificateData"_s);
            return;
        }
        credentials.clientCertificate = *certificate;
        credentials.clientKey = *key;
    }
    if (token.isEmpty() && certificateData.isEmpty()) {
        fail(u"ExecCredential has neither status.token nor status.clientCertificateData"_s);
        return;
    }
    m_execExpiry = {};
    if (const QString expiry = models::jsonString(*status, "expirationTimestamp");
        !expiry.isEmpty()) {
        m_execExpiry = QDateTime::fromString(expiry, Qt::ISODate);
        if (!m_execExpiry.isValid()) {
            fail(u"status.expirationTimestamp: not RFC 3339: "_s + expiry);
            return;
        }
    }
    m_execCredentials = credentials;
    deliver(credentials);
    emit execPluginFinished(true);
}

void CredentialProvider::deliver(const CredentialsResult &result)
{
    const auto waiters = std::exchange(m_waiters, {});
    for (const auto &waiter : waiters) {
        if (waiter.context)
            waiter.callback(result);
    }
}

} // namespace reconscope::controller::kube
