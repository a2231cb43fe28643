#pragma once

#include "models/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHostAddress>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace reconscope::controller::cluster {

// A certificate and its private key, both PEM. Keys are EC P-256 in SEC1 form ("EC PRIVATE KEY"),
// as kubeadm writes them.
struct CertifiedKey
{
    QByteArray certificatePem;
    QByteArray privateKeyPem;
};

// When a certificate is valid. The default is "from an hour ago for a year"; tests build expired or
// not-yet-valid certificates with explicit times.
struct Validity
{
    QDateTime notBefore;
    QDateTime notAfter;

    static Validity standard();
    static Validity expired(); // ended a day ago
};

// What a leaf certificate says about its holder.
struct CertificateRequest
{
    QString commonName;
    QStringList organizations; // subject O entries (Kubernetes groups)
    QStringList dnsNames; // subjectAltName DNS entries
    QList<QHostAddress> ipAddresses; // subjectAltName IP entries
    bool serverAuth = false; // extendedKeyUsage serverAuth (else clientAuth)
    Validity validity = Validity::standard();
};

// A self-signed certificate authority (OpenSSL 3, EC P-256) that issues server and client
// certificates. Copyable handle; the key stays in memory only.
class CertificateAuthority
{
public:
    static models::Result<CertificateAuthority>
    create(const QString &commonName = QStringLiteral("kubernetes"),
           const Validity &validity = Validity::standard());

    models::Result<CertifiedKey> issue(const CertificateRequest &request) const;
    // The CA's own certificate and key.
    CertifiedKey pem() const;

private:
    struct Data;
    explicit CertificateAuthority(std::shared_ptr<const Data> data);
    std::shared_ptr<const Data> m_data;
};

// Everything the embedded cluster needs, as kind/kubeadm lays it out: CA "kubernetes", a server
// certificate for 127.0.0.1, ::1, localhost, kubernetes, kubernetes.default.svc, an admin client
// certificate (CN=kubernetes-admin, O=system:masters) and a viewer (CN=viewer,
// O=reconscope:viewers).
struct ClusterCertificates
{
    CertifiedKey ca;
    CertifiedKey server;
    CertifiedKey admin;
    CertifiedKey viewer;
};

models::Result<ClusterCertificates> generateClusterCertificates();

} // namespace reconscope::controller::cluster
