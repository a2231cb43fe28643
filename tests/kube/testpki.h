#pragma once

// Keys and certificates for the kube tests, generated at test time with the openssl command line
// tool (nothing secret is checked in).

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace testpki {

inline bool run(const QString &directory, const QStringList &args, QString *error)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("openssl"), args);
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        *error = QStringLiteral("openssl %1 failed: %2")
                     .arg(args.join(u' '), QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

inline QByteArray read(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

// Writes into `directory`:
//   ca.key/ca.crt                    a CA (RSA)
//   other-ca.key/other-ca.crt        an unrelated CA
//   client.key (PKCS#1) client.crt   CN=kubernetes-admin, O=system:masters, signed by ca
//   client-pkcs8.key                 the same key as PKCS#8
//   ec.key (SEC1) ec.crt             CN=ec-user, signed by ca
//   ec-pkcs8.key                     the EC key as PKCS#8
//   other.key                        an RSA key that matches no certificate
//   server.key/server.crt            CN=localhost, SAN DNS:localhost, IP:127.0.0.1, signed by ca
//   alias.crt/alias.key              SAN DNS:cluster.internal only (for tls-server-name)
inline bool generate(const QString &dir, QString *error)
{
    auto ossl = [&](std::initializer_list<const char *> args) {
        QStringList list;
        for (const char *arg : args)
            list << QString::fromUtf8(arg);
        return run(dir, list, error);
    };
    auto writeFile = [&](const char *name, const QByteArray &text) {
        QFile file(QDir(dir).filePath(QString::fromUtf8(name)));
        return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
    };
    return ossl({ "req",
                  "-x509",
                  "-newkey",
                  "rsa:2048",
                  "-nodes",
                  "-keyout",
                  "ca.key",
                  "-out",
                  "ca.crt",
                  "-days",
                  "30",
                  "-subj",
                  "/CN=test-ca" })
        && ossl({ "req",
                  "-x509",
                  "-newkey",
                  "rsa:2048",
                  "-nodes",
                  "-keyout",
                  "other-ca.key",
                  "-out",
                  "other-ca.crt",
                  "-days",
                  "30",
                  "-subj",
                  "/CN=other-ca" })
        && ossl({ "genrsa", "-traditional", "-out", "client.key", "2048" })
        && ossl({ "req",
                  "-new",
                  "-key",
                  "client.key",
                  "-out",
                  "client.csr",
                  "-subj",
                  "/O=system:masters/CN=kubernetes-admin" })
        && ossl({ "x509",
                  "-req",
                  "-in",
                  "client.csr",
                  "-CA",
                  "ca.crt",
                  "-CAkey",
                  "ca.key",
                  "-CAcreateserial",
                  "-out",
                  "client.crt",
                  "-days",
                  "30" })
        && ossl({ "pkcs8", "-topk8", "-nocrypt", "-in", "client.key", "-out", "client-pkcs8.key" })
        && ossl({ "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.key" })
        && ossl({ "req", "-new", "-key", "ec.key", "-out", "ec.csr", "-subj", "/CN=ec-user" })
        && ossl({ "x509",
                  "-req",
                  "-in",
                  "ec.csr",
                  "-CA",
                  "ca.crt",
                  "-CAkey",
                  "ca.key",
                  "-CAcreateserial",
                  "-out",
                  "ec.crt",
                  "-days",
                  "30" })
        && ossl({ "pkcs8", "-topk8", "-nocrypt", "-in", "ec.key", "-out", "ec-pkcs8.key" })
        && ossl({ "genrsa", "-traditional", "-out", "other.key", "2048" })
        && writeFile("server.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        && ossl({ "req",
                  "-new",
                  "-newkey",
                  "rsa:2048",
                  "-nodes",
                  "-keyout",
                  "server.key",
                  "-out",
                  "server.csr",
                  "-subj",
                  "/CN=localhost" })
        && ossl({ "x509",
                  "-req",
                  "-in",
                  "server.csr",
                  "-CA",
                  "ca.crt",
                  "-CAkey",
                  "ca.key",
                  "-CAcreateserial",
                  "-out",
                  "server.crt",
                  "-days",
                  "30",
                  "-extfile",
                  "server.ext" })
        && writeFile("alias.ext", "subjectAltName=DNS:cluster.internal\n")
        && ossl({ "req",
                  "-new",
                  "-newkey",
                  "rsa:2048",
                  "-nodes",
                  "-keyout",
                  "alias.key",
                  "-out",
                  "alias.csr",
                  "-subj",
                  "/CN=cluster.internal" })
        && ossl({ "x509",
                  "-req",
                  "-in",
                  "alias.csr",
                  "-CA",
                  "ca.crt",
                  "-CAkey",
                  "ca.key",
                  "-CAcreateserial",
                  "-out",
                  "alias.crt",
                  "-days",
                  "30",
                  "-extfile",
                  "alias.ext" });
}

// Writes expired.crt (signed by ca, SAN IP:127.0.0.1 and DNS:localhost, valid from 10 days ago
// to 1 day ago) with the key of server.key. The openssl tool cannot back-date, so this uses the
// library.
inline bool generateExpired(const QString &dir, QString *error)
{
    auto readKey = [](const QByteArray &pem) {
        BIO *bio = BIO_new_mem_buf(pem.constData(), int(pem.size()));
        EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
        BIO_free(bio);
        return key;
    };
    const QByteArray caPem = read(QDir(dir).filePath(QStringLiteral("ca.crt")));
    BIO *caBio = BIO_new_mem_buf(caPem.constData(), int(caPem.size()));
    X509 *ca = PEM_read_bio_X509(caBio, nullptr, nullptr, nullptr);
    BIO_free(caBio);
    EVP_PKEY *caKey = readKey(read(QDir(dir).filePath(QStringLiteral("ca.key"))));
    EVP_PKEY *key = readKey(read(QDir(dir).filePath(QStringLiteral("server.key"))));
    if (!ca || !caKey || !key) {
        *error = QStringLiteral("cannot read the test CA or server key");
        return false;
    }
    X509 *certificate = X509_new();
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), 4242);
    X509_gmtime_adj(X509_getm_notBefore(certificate), -10L * 24 * 3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), -1L * 24 * 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME *name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(
        name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char *>("localhost"), -1, -1, 0);
    X509_set_issuer_name(certificate, X509_get_subject_name(ca));
    X509V3_CTX context;
    X509V3_set_ctx(&context, ca, certificate, nullptr, nullptr, 0);
    X509_EXTENSION *san = X509V3_EXT_conf_nid(
        nullptr, &context, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
    X509_add_ext(certificate, san, -1);
    X509_EXTENSION_free(san);
    const bool signedOk = X509_sign(certificate, caKey, EVP_sha256()) > 0;
    BIO *out = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(out, certificate);
    char *data = nullptr;
    const long size = BIO_get_mem_data(out, &data);
    QFile file(QDir(dir).filePath(QStringLiteral("expired.crt")));
    const bool written = file.open(QIODevice::WriteOnly) && file.write(data, size) == size;
    BIO_free(out);
    X509_free(certificate);
    X509_free(ca);
    EVP_PKEY_free(caKey);
    EVP_PKEY_free(key);
    if (!signedOk || !written)
        *error = QStringLiteral("cannot sign or write expired.crt");
    return signedOk && written;
}

} // namespace testpki
