#include "controller/kube/clientconfig.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <QHostAddress>

#include <memory>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

namespace {

using models::Result;

struct BioFree
{
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct KeyFree
{
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};
struct X509Free
{
    void operator()(X509 *certificate) const { X509_free(certificate); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

BioPtr memoryBio(const QByteArray &data)
{
    return BioPtr(BIO_new_mem_buf(data.constData(), int(data.size())));
}

// A passphrase callback that refuses: encrypted keys fail instead of prompting on a terminal.
int noPassphrase(char *, int, int, void *)
{
    return -1;
}

KeyPtr readKey(const QByteArray &pem)
{
    auto bio = memoryBio(pem);
    return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassphrase, nullptr));
}

X509Ptr readCertificate(const QByteArray &pem)
{
    auto bio = memoryBio(pem);
    return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, noPassphrase, nullptr));
}

} // namespace

namespace pem {

Result<QSslKey> parsePrivateKey(const QByteArray &pem)
{
    if (!pem.contains("-----BEGIN"))
        return Result<QSslKey>::failure(u"not a PEM private key"_s);
    if (pem.contains("ENCRYPTED"))
        return Result<QSslKey>::failure(u"encrypted private keys are not supported"_s);
    const KeyPtr key = readKey(pem);
    if (!key)
        return Result<QSslKey>::failure(u"cannot decode the PEM private key"_s);
    QSsl::KeyAlgorithm algorithm;
    switch (EVP_PKEY_base_id(key.get())) {
    case EVP_PKEY_RSA:
        algorithm = QSsl::Rsa;
        break;
    case EVP_PKEY_EC:
        algorithm = QSsl::Ec;
        break;
    default:
        return Result<QSslKey>::failure(u"unsupported private key type (only RSA and EC)"_s);
    }
    // Re-encode as PKCS#1/SEC1 so that every TLS backend reads it the same way, whatever the
    // input format (PKCS#1, SEC1 or PKCS#8).
    BioPtr out(BIO_new(BIO_s_mem()));
    if (!PEM_write_bio_PrivateKey_traditional(
            out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
        return Result<QSslKey>::failure(u"cannot re-encode the private key"_s);
    }
    char *data = nullptr;
    const long size = BIO_get_mem_data(out.get(), &data);
    QSslKey sslKey(QByteArray(data, size), algorithm, QSsl::Pem, QSsl::PrivateKey);
    if (sslKey.isNull())
        return Result<QSslKey>::failure(u"the TLS backend rejected the private key"_s);
    return sslKey;
}

Result<QList<QSslCertificate>> parseCertificates(const QByteArray &pem)
{
    if (!pem.contains("-----BEGIN CERTIFICATE-----"))
        return Result<QList<QSslCertificate>>::failure(u"no PEM certificate found"_s);
    const auto certificates = QSslCertificate::fromData(pem, QSsl::Pem);
    if (certificates.isEmpty() || certificates.first().isNull())
        return Result<QList<QSslCertificate>>::failure(u"cannot decode the PEM certificate"_s);
    return certificates;
}

Result<QSslCertificate> parseCertificate(const QByteArray &pem)
{
    auto certificates = parseCertificates(pem);
    if (!certificates)
        return Result<QSslCertificate>(certificates.error());
    return certificates->first();
}

bool keyMatchesCertificate(const QByteArray &keyPem, const QByteArray &certificatePem)
{
    const KeyPtr key = readKey(keyPem);
    const X509Ptr certificate = readCertificate(certificatePem);
    if (!key || !certificate)
        return false;
    return X509_check_private_key(certificate.get(), key.get()) == 1;
}

} // namespace pem

Result<QNetworkProxy> proxyFromUrl(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return Result<QNetworkProxy>::failure(u"not a valid URL"_s); // may hold a password
    QNetworkProxy proxy;
    const QString scheme = url.scheme().toLower();
    if (scheme == u"http" || scheme == u"https") {
        proxy.setType(QNetworkProxy::HttpProxy);
        proxy.setPort(quint16(url.port(scheme == u"https" ? 443 : 80)));
    } else if (scheme == u"socks5") {
        proxy.setType(QNetworkProxy::Socks5Proxy);
        proxy.setPort(quint16(url.port(1080)));
    } else {
        return Result<QNetworkProxy>::failure(
            u"unsupported scheme %1 (http, https or socks5)"_s.arg(url.scheme()));
    }
    proxy.setHostName(url.host());
    proxy.setUser(url.userName());
    proxy.setPassword(url.password());
    return proxy;
}

std::optional<QNetworkProxy> proxyFromEnvironment(const QUrl &server)
{
    auto variable = [](const char *upper, const char *lower) {
        const QString value = qEnvironmentVariable(upper);
        return value.isEmpty() ? qEnvironmentVariable(lower) : value;
    };
    const QString host = server.host().toLower();
    const QHostAddress address(host);
    if (host == u"localhost" || host.endsWith(u".localhost"_s)
        || (!address.isNull() && address.isLoopback())) {
        return std::nullopt;
    }
    const QString proxyText = server.scheme() == u"https" ? variable("HTTPS_PROXY", "https_proxy")
                                                          : variable("HTTP_PROXY", "http_proxy");
    if (proxyText.isEmpty())
        return std::nullopt;
    const int port = server.port(server.scheme() == u"https" ? 443 : 80);
    for (QString entry : variable("NO_PROXY", "no_proxy").split(u',', Qt::SkipEmptyParts)) {
        entry = entry.trimmed().toLower();
        if (entry == u"*")
            return std::nullopt;
        if (entry.contains(u'/')) {
            const auto subnet = QHostAddress::parseSubnet(entry);
            if (!address.isNull()
                && subnet.first.protocol() != QAbstractSocket::UnknownNetworkLayerProtocol
                && address.isInSubnet(subnet)) {
                return std::nullopt;
            }
            continue;
        }
        // host[:port]
        QString entryHost = entry;
        const auto colon = entry.lastIndexOf(u':');
        if (colon > 0 && !entry.contains(u']') && entry.count(u':') == 1) {
            if (entry.mid(colon + 1).toInt() != port)
                continue;
            entryHost = entry.left(colon);
        }
        if (!address.isNull()) {
            if (QHostAddress(entryHost) == address)
                return std::nullopt;
            continue;
        }
        if (entryHost.startsWith(u'.'))
            entryHost = entryHost.mid(1);
        if (host == entryHost || host.endsWith(u'.' + entryHost))
            return std::nullopt;
    }
    // Go accepts a bare host:port as an http proxy.
    auto proxy = proxyFromUrl(proxyText.contains(u"://"_s) ? proxyText : u"http://"_s + proxyText);
    if (!proxy)
        return std::nullopt;
    return *proxy;
}

QString ClientConfig::peerVerifyName() const
{
    return tlsServerName.isEmpty() ? server.host() : tlsServerName;
}

QSslConfiguration ClientConfig::sslConfiguration() const
{
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setProtocol(QSsl::TlsV1_2OrLater);
    if (!caCertificates.isEmpty())
        ssl.setCaCertificates(caCertificates);
    if (insecureSkipTlsVerify)
        ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    else
        ssl.setPeerVerifyMode(QSslSocket::VerifyPeer);
    if (!clientCertificate.isNull() && !clientKey.isNull()) {
        ssl.setLocalCertificate(clientCertificate);
        ssl.setPrivateKey(clientKey);
    }
    ssl.setAllowedNextProtocols({ QSslConfiguration::NextProtocolHttp1_1 });
    return ssl;
}

} // namespace reconscope::controller::kube
