#include "certificates.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

using models::Error;
using models::Result;

template<typename T, void (*Free)(T *)>
struct OpenSslDeleter
{
    void operator()(T *p) const { Free(p); }
};
using PKeyPtr = std::unique_ptr<EVP_PKEY, OpenSslDeleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, OpenSslDeleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, OpenSslDeleter<BIO, BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, OpenSslDeleter<X509_EXTENSION, X509_EXTENSION_free>>;

QString openSslError(const QString &what)
{
    QString message = what;
    while (const unsigned long code = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(code, buffer, sizeof buffer);
        message += u": "_s + QString::fromLatin1(buffer);
    }
    return message;
}

PKeyPtr generateKey()
{
    return PKeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

QByteArray bioContents(BIO *bio)
{
    char *data = nullptr;
    const long length = BIO_get_mem_data(bio, &data);
    return QByteArray(data, static_cast<qsizetype>(length));
}

QByteArray certificatePem(X509 *certificate)
{
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), certificate) != 1)
        return {};
    return bioContents(bio.get());
}

QByteArray keyPem(EVP_PKEY *key)
{
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio
        || PEM_write_bio_PrivateKey_traditional(
               bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
            != 1)
        return {};
    return bioContents(bio.get());
}

bool addNames(X509_NAME *name, const QString &commonName, const QStringList &organizations)
{
    for (const QString &organization : organizations) {
        const QByteArray utf8 = organization.toUtf8();
        if (X509_NAME_add_entry_by_txt(name,
                                       "O",
                                       MBSTRING_UTF8,
                                       reinterpret_cast<const unsigned char *>(utf8.constData()),
                                       static_cast<int>(utf8.size()),
                                       -1,
                                       0)
            != 1)
            return false;
    }
    const QByteArray cn = commonName.toUtf8();
    return X509_NAME_add_entry_by_txt(name,
                                      "CN",
                                      MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char *>(cn.constData()),
                                      static_cast<int>(cn.size()),
                                      -1,
                                      0)
        == 1;
}

bool addExtension(X509 *certificate, X509 *issuer, int nid, const QByteArray &value)
{
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    ExtPtr extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.constData()));
    return extension && X509_add_ext(certificate, extension.get(), -1) == 1;
}

bool setValidity(X509 *certificate, const Validity &validity)
{
    return ASN1_TIME_set(X509_getm_notBefore(certificate), validity.notBefore.toSecsSinceEpoch())
        && ASN1_TIME_set(X509_getm_notAfter(certificate), validity.notAfter.toSecsSinceEpoch());
}

bool setRandomSerial(X509 *certificate)
{
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        return false;
    bytes[0] &= 0x7f; // positive
    std::unique_ptr<BIGNUM, OpenSslDeleter<BIGNUM, BN_free>> number(
        BN_bin2bn(bytes, sizeof bytes, nullptr));
    return number && BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(certificate));
}

// An unsigned certificate for subjectKey, issued by issuer (self-issued when issuer is null).
X509Ptr buildCertificate(EVP_PKEY *subjectKey,
                         X509 *issuer,
                         const QString &commonName,
                         const QStringList &organizations,
                         const Validity &validity)
{
    X509Ptr certificate(X509_new());
    if (!certificate || X509_set_version(certificate.get(), 2) != 1
        || !setRandomSerial(certificate.get()) || !setValidity(certificate.get(), validity)
        || X509_set_pubkey(certificate.get(), subjectKey) != 1
        || !addNames(X509_get_subject_name(certificate.get()), commonName, organizations))
        return {};
    X509_NAME *issuerName
        = issuer ? X509_get_subject_name(issuer) : X509_get_subject_name(certificate.get());
    if (X509_set_issuer_name(certificate.get(), issuerName) != 1)
        return {};
    return certificate;
}

bool sign(X509 *certificate, EVP_PKEY *key)
{
    return X509_sign(certificate, key, EVP_sha256()) > 0;
}

} // namespace

Validity Validity::standard()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    return { now.addSecs(-3600), now.addDays(365) };
}

Validity Validity::expired()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    return { now.addDays(-30), now.addDays(-1) };
}

struct CertificateAuthority::Data
{
    PKeyPtr key;
    X509Ptr certificate;
};

CertificateAuthority::CertificateAuthority(std::shared_ptr<const Data> data)
    : m_data(std::move(data))
{ }

Result<CertificateAuthority> CertificateAuthority::create(const QString &commonName,
                                                          const Validity &validity)
{
    auto data = std::make_shared<Data>();
    data->key = generateKey();
    if (!data->key)
        return Result<CertificateAuthority>::failure(openSslError(u"CA key generation failed"_s));
    data->certificate = buildCertificate(data->key.get(), nullptr, commonName, {}, validity);
    X509 *certificate = data->certificate.get();
    if (!certificate
        || !addExtension(certificate, certificate, NID_basic_constraints, "critical,CA:TRUE")
        || !addExtension(certificate,
                         certificate,
                         NID_key_usage,
                         "critical,digitalSignature,keyCertSign,cRLSign")
        || !addExtension(certificate, certificate, NID_subject_key_identifier, "hash")
        || !sign(certificate, data->key.get()))
        return Result<CertificateAuthority>::failure(openSslError(u"CA certificate failed"_s));
    return CertificateAuthority(std::move(data));
}

Result<CertifiedKey> CertificateAuthority::issue(const CertificateRequest &request) const
{
    PKeyPtr key = generateKey();
    if (!key)
        return Result<CertifiedKey>::failure(openSslError(u"key generation failed"_s));
    X509Ptr certificate = buildCertificate(key.get(),
                                           m_data->certificate.get(),
                                           request.commonName,
                                           request.organizations,
                                           request.validity);
    if (!certificate)
        return Result<CertifiedKey>::failure(openSslError(u"certificate failed"_s));
    X509 *issuer = m_data->certificate.get();
    QByteArrayList altNames;
    for (const QString &dns : request.dnsNames)
        altNames << "DNS:" + dns.toUtf8();
    for (const QHostAddress &ip : request.ipAddresses)
        altNames << "IP:" + ip.toString().toLatin1();
    bool ok
        = addExtension(certificate.get(), issuer, NID_basic_constraints, "critical,CA:FALSE")
        && addExtension(
              certificate.get(), issuer, NID_key_usage, "critical,digitalSignature,keyEncipherment")
        && addExtension(certificate.get(),
                        issuer,
                        NID_ext_key_usage,
                        request.serverAuth ? "serverAuth" : "clientAuth")
        && addExtension(certificate.get(), issuer, NID_authority_key_identifier, "keyid");
    if (ok && !altNames.isEmpty())
        ok = addExtension(certificate.get(), issuer, NID_subject_alt_name, altNames.join(','));
    if (!ok || !sign(certificate.get(), m_data->key.get()))
        return Result<CertifiedKey>::failure(
            openSslError(u"certificate for %1 failed"_s.arg(request.commonName)));
    CertifiedKey result{ certificatePem(certificate.get()), keyPem(key.get()) };
    if (result.certificatePem.isEmpty() || result.privateKeyPem.isEmpty())
        return Result<CertifiedKey>::failure(openSslError(u"PEM encoding failed"_s));
    return result;
}

CertifiedKey CertificateAuthority::pem() const
{
    return { certificatePem(m_data->certificate.get()), keyPem(m_data->key.get()) };
}

Result<ClusterCertificates> generateClusterCertificates()
{
    auto ca = CertificateAuthority::create();
    if (!ca)
        return ca.error();
    CertificateRequest serverRequest;
    serverRequest.commonName = u"kube-apiserver"_s;
    serverRequest.dnsNames
        = { u"localhost"_s, u"kubernetes"_s, u"kubernetes.default"_s, u"kubernetes.default.svc"_s };
    serverRequest.ipAddresses
        = { QHostAddress(QHostAddress::LocalHost), QHostAddress(QHostAddress::LocalHostIPv6) };
    serverRequest.serverAuth = true;
    auto server = ca->issue(serverRequest);
    if (!server)
        return server.error();
    CertificateRequest adminRequest;
    adminRequest.commonName = u"kubernetes-admin"_s;
    adminRequest.organizations = { u"system:masters"_s };
    auto admin = ca->issue(adminRequest);
    if (!admin)
        return admin.error();
    CertificateRequest viewerRequest;
    viewerRequest.commonName = u"viewer"_s;
    viewerRequest.organizations = { u"reconscope:viewers"_s };
    auto viewer = ca->issue(viewerRequest);
    if (!viewer)
        return viewer.error();
    return ClusterCertificates{ ca->pem(), *server, *admin, *viewer };
}

} // namespace reconscope::controller::cluster
