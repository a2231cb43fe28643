#pragma once

#include "controller/cluster/apitypes.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSslCertificate>

#include <optional>

namespace reconscope::controller::cluster {

// kube-apiserver's union authenticator for the embedded cluster: a client certificate chain that
// verifies against the cluster CA (user = subject CN, groups = subject O), else a bearer token from
// the configured table, else nothing (the transport answers 401). Authenticated users also get
// the group "system:authenticated", as kube-apiserver adds it.
class Authenticator
{
public:
    Authenticator() = default;
    explicit Authenticator(const QByteArray &caCertificatePem);

    void setCaCertificate(const QByteArray &caCertificatePem);
    QSslCertificate caCertificate() const;
    void addToken(const QByteArray &token, const QString &user, const QStringList &groups);

    // The identity a verified certificate chain (leaf first) names, or nothing.
    std::optional<UserInfo> authenticateCertificate(const QList<QSslCertificate> &chain) const;
    // The identity of an "Authorization: Bearer <token>" header value, or nothing.
    std::optional<UserInfo> authenticateBearer(const QByteArray &authorization) const;

    // The 401 body kube-apiserver sends.
    static QByteArray unauthorizedBody();

private:
    QByteArray m_caDer;
    QHash<QByteArray, UserInfo> m_tokens;
};

} // namespace reconscope::controller::cluster
