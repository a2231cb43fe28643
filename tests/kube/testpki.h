#pragma once

// Keys and certificates for the kube tests, generated at test time with the openssl command line
// tool (nothing secret is checked in).

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

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

} // namespace testpki
