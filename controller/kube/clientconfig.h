#pragma once

#include "controller/kube/kubeconfig.h"
#include "models/result.h"

#include <QByteArray>
#include <QList>
#include <QNetworkProxy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QString>
#include <QUrl>

#include <optional>

namespace reconscope::controller::kube {

// Everything needed to talk to one cluster as one user: the result of Kubeconfig::resolve (or
// built directly, e.g. by the embedded cluster). Certificates and keys are decoded and checked.
struct ClientConfig
{
    QString contextName;
    QString clusterName;
    QString userName;
    // "kubeconfig /x/k.yaml: context \"dev\"": the prefix of errors found later (token file, exec).
    QString origin;

    QUrl server;
    QString namespace_ = QStringLiteral("default");

    QList<QSslCertificate> caCertificates;
    bool insecureSkipTlsVerify = false; // only when the kubeconfig asks; see warnings
    QString tlsServerName;
    std::optional<QNetworkProxy> proxy;

    QSslCertificate clientCertificate;
    QSslKey clientKey;

    QString token;
    QString tokenFile; // absolute; re-read when it changes
    QString username;
    QString password;
    std::optional<ExecConfig> exec;
    QString execWorkingDirectory; // the directory of the kubeconfig that defined the user

    // Things the user should see: "TLS verification is disabled ..." (insecure-skip-tls-verify),
    // plain http, a client certificate that expired or is not yet valid.
    QStringList warnings;

    // TLS settings for requests: CA, client certificate (unless exec supplies one), peer
    // verification (off only with insecureSkipTlsVerify), TLS 1.2+, HTTP/1.1.
    QSslConfiguration sslConfiguration() const;
    // The host name the server certificate must carry: tls-server-name, else the server's host.
    QString peerVerifyName() const;
};

// PEM helpers shared by kubeconfig loading and exec credentials.
namespace pem {
// A private key in PEM: PKCS#1 RSA, SEC1 EC or PKCS#8 (unencrypted).
models::Result<QSslKey> parsePrivateKey(const QByteArray &pem);
// The first certificate of a PEM bundle.
models::Result<QSslCertificate> parseCertificate(const QByteArray &pem);
// All certificates of a PEM bundle (at least one).
models::Result<QList<QSslCertificate>> parseCertificates(const QByteArray &pem);
// Whether the key is the private half of the certificate's public key.
bool keyMatchesCertificate(const QByteArray &keyPem, const QByteArray &certificatePem);
} // namespace pem

// A proxy-url value: http, https or socks5 URLs.
models::Result<QNetworkProxy> proxyFromUrl(const QString &url);

// The proxy Go's http.ProxyFromEnvironment would use for `server` (what kubectl does without
// proxy-url): HTTPS_PROXY / HTTP_PROXY by scheme (upper case first), NO_PROXY (host, .domain,
// IP, CIDR, "*"), never for localhost or loopback addresses. nullopt: connect directly.
std::optional<QNetworkProxy> proxyFromEnvironment(const QUrl &server);

} // namespace reconscope::controller::kube
