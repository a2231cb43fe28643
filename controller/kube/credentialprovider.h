#pragma once

#include "controller/apimachinery/status.h"
#include "controller/kube/clientconfig.h"
#include "models/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSslCertificate>
#include <QSslKey>

#include <functional>

class QProcess;

namespace reconscope::controller::kube {

// What a request carries to authenticate: an Authorization header and/or a client certificate.
struct Credentials
{
    QByteArray authorization; // "Bearer …" / "Basic …", empty when none
    QSslCertificate clientCertificate;
    QSslKey clientKey;
};

// Credentials for one ClientConfig: static token, token file (re-read when it changes), basic auth,
// client certificate, or an exec plugin (run asynchronously, cached until its
// expirationTimestamp, re-run after invalidate(), i.e. on a 401). Secrets are never logged.
class CredentialProvider final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CredentialProvider)

public:
    using Callback = std::function<void(models::Result<Credentials, apimachinery::ApiError>)>;
    using Clock = std::function<QDateTime()>;

    explicit CredentialProvider(ClientConfig config, QObject *parent = nullptr);
    ~CredentialProvider() override;

    // Calls back with credentials, at once when cached, else after the exec plugin ran. The
    // callback is dropped if `context` is destroyed meanwhile.
    void acquire(QObject *context, Callback callback);
    // Forget cached credentials (the server said 401): the next acquire re-reads / re-runs.
    void invalidate();

    // For tests: the time used to check expirationTimestamp.
    void setClock(Clock clock) { m_clock = std::move(clock); }
    int execRuns() const { return m_execRuns; }

signals:
    void execPluginFinished(bool ok);

private:
    struct Waiter
    {
        QPointer<QObject> context;
        Callback callback;
    };

    models::Result<Credentials, apimachinery::ApiError> staticCredentials();
    void startExec();
    void handleExecFinished(int exitCode, bool crashed);
    void deliver(const models::Result<Credentials, apimachinery::ApiError> &result);

    ClientConfig m_config;
    Clock m_clock;
    // Token file cache.
    QByteArray m_fileToken;
    QDateTime m_fileModified;
    qint64 m_fileSize = -1;
    // Exec cache.
    std::optional<Credentials> m_execCredentials;
    QDateTime m_execExpiry; // invalid: no expiry
    QProcess *m_process = nullptr;
    QList<Waiter> m_waiters;
    int m_execRuns = 0;
};

} // namespace reconscope::controller::kube
