#include "controller/cluster/server/authenticator.h"
#include "controller/cluster/server/certificates.h"

#include <QElapsedTimer>
#include <QSslCertificate>
#include <QSslCertificateExtension>
#include <QSslKey>
#include <QTest>

#include <openssl/pem.h>
#include <openssl/x509.h>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

class tst_Certificates : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void caIsSelfSignedAuthority();
    void serverCertificateNames();
    void clientIdentities_data();
    void clientIdentities();
    void keysAreEcP256AndMatch();
    void chainsVerifyAgainstTheirCa();
    void expiredAndForeignCertificatesFail();
    void generationIsFast();

private:
    ClusterCertificates m_certificates;
};

void tst_Certificates::initTestCase()
{
    auto certificates = generateClusterCertificates();
    QVERIFY2(certificates.ok(), certificates.ok() ? "" : qPrintable(certificates.error().message));
    m_certificates = *certificates;
}

void tst_Certificates::caIsSelfSignedAuthority()
{
    const QSslCertificate ca(m_certificates.ca.certificatePem, QSsl::Pem);
    QVERIFY(!ca.isNull());
    QCOMPARE(ca.subjectInfo(QSslCertificate::CommonName), QStringList{ u"kubernetes"_s });
    QCOMPARE(ca.issuerDisplayName(), ca.subjectDisplayName());
    QVERIFY(ca.isSelfSigned());
    bool isCa = false;
    for (const QSslCertificateExtension &extension : ca.extensions()) {
        if (extension.oid() == u"2.5.29.19"_s)
            isCa = extension.value().toMap().value(u"ca"_s).toBool();
    }
    QVERIFY(isCa);
    QVERIFY(ca.expiryDate() > QDateTime::currentDateTimeUtc().addDays(300));
    QVERIFY(ca.effectiveDate() <= QDateTime::currentDateTimeUtc());
}

void tst_Certificates::serverCertificateNames()
{
    const QSslCertificate server(m_certificates.server.certificatePem, QSsl::Pem);
    const auto names = server.subjectAlternativeNames();
    const QStringList dns = names.values(QSsl::DnsEntry);
    for (const QString &name : { u"localhost"_s, u"kubernetes"_s, u"kubernetes.default.svc"_s })
        QVERIFY2(dns.contains(name), qPrintable(name));
    const QStringList ips = names.values(QSsl::IpAddressEntry);
    QVERIFY2(ips.contains(u"127.0.0.1"_s), qPrintable(ips.join(u',')));
    QVERIFY2(ips.contains(u"0:0:0:0:0:0:0:1"_s) || ips.contains(u"::1"_s),
             qPrintable(ips.join(u',')));
    QCOMPARE(server.issuerInfo(QSslCertificate::CommonName), QStringList{ u"kubernetes"_s });
}

void tst_Certificates::clientIdentities_data()
{
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("commonName");
    QTest::addColumn<QStringList>("organizations");
    QTest::newRow("admin") << u"admin"_s << u"kubernetes-admin"_s
                           << QStringList{ u"system:masters"_s };
    QTest::newRow("viewer") << u"viewer"_s << u"viewer"_s << QStringList{ u"reconscope:viewers"_s };
}

void tst_Certificates::clientIdentities()
{
    QFETCH(QString, which);
    QFETCH(QString, commonName);
    QFETCH(QStringList, organizations);
    const CertifiedKey &key = which == u"admin" ? m_certificates.admin : m_certificates.viewer;
    const QSslCertificate certificate(key.certificatePem, QSsl::Pem);
    QCOMPARE(certificate.subjectInfo(QSslCertificate::CommonName), QStringList{ commonName });
    QCOMPARE(certificate.subjectInfo(QSslCertificate::Organization), organizations);
    QCOMPARE(certificate.issuerInfo(QSslCertificate::CommonName), QStringList{ u"kubernetes"_s });
    QVERIFY(key.privateKeyPem.startsWith("-----BEGIN EC PRIVATE KEY-----"));
}

void tst_Certificates::keysAreEcP256AndMatch()
{
    for (const CertifiedKey *key : { &m_certificates.ca,
                                     &m_certificates.server,
                                     &m_certificates.admin,
                                     &m_certificates.viewer }) {
        const QSslKey privateKey(key->privateKeyPem, QSsl::Ec);
        QVERIFY(!privateKey.isNull());
        QCOMPARE(privateKey.length(), 256);
        const QSslCertificate certificate(key->certificatePem, QSsl::Pem);
        QCOMPARE(certificate.publicKey().algorithm(), QSsl::Ec);
        QCOMPARE(certificate.publicKey().length(), 256);
        // The key belongs to the certificate.
        BIO *certificateBio = BIO_new_mem_buf(key->certificatePem.constData(),
                                              static_cast<int>(key->certificatePem.size()));
        BIO *keyBio = BIO_new_mem_buf(key->privateKeyPem.constData(),
                                      static_cast<int>(key->privateKeyPem.size()));
        X509 *x509 = PEM_read_bio_X509(certificateBio, nullptr, nullptr, nullptr);
        EVP_PKEY *pkey = PEM_read_bio_PrivateKey(keyBio, nullptr, nullptr, nullptr);
        const bool matches = x509 && pkey && X509_check_private_key(x509, pkey) == 1;
        X509_free(x509);
        EVP_PKEY_free(pkey);
        BIO_free(certificateBio);
        BIO_free(keyBio);
        QVERIFY(matches);
    }
}

void tst_Certificates::chainsVerifyAgainstTheirCa()
{
    const Authenticator authenticator(m_certificates.ca.certificatePem);
    const auto admin = authenticator.authenticateCertificate(
        { QSslCertificate(m_certificates.admin.certificatePem, QSsl::Pem) });
    QVERIFY(admin.has_value());
    QCOMPARE(admin->name, u"kubernetes-admin"_s);
    // The server certificate is for serving (no clientAuth usage): not a client identity.
    QVERIFY(!authenticator
                 .authenticateCertificate(
                     { QSslCertificate(m_certificates.server.certificatePem, QSsl::Pem) })
                 .has_value());
}

void tst_Certificates::expiredAndForeignCertificatesFail()
{
    auto ca = CertificateAuthority::create();
    QVERIFY(ca.ok());
    CertificateRequest request;
    request.commonName = u"kubernetes-admin"_s;
    request.organizations = { u"system:masters"_s };
    request.validity = Validity::expired();
    auto expired = ca->issue(request);
    QVERIFY(expired.ok());
    const QSslCertificate expiredCertificate(expired->certificatePem, QSsl::Pem);
    QVERIFY(expiredCertificate.expiryDate() < QDateTime::currentDateTimeUtc());

    request.validity = Validity::standard();
    auto valid = ca->issue(request);
    QVERIFY(valid.ok());

    const Authenticator sameCa(ca->pem().certificatePem);
    QVERIFY(sameCa.authenticateCertificate({ QSslCertificate(valid->certificatePem) }).has_value());
    QVERIFY(!sameCa.authenticateCertificate({ expiredCertificate }).has_value());

    const Authenticator clusterCa(m_certificates.ca.certificatePem);
    QVERIFY(
        !clusterCa.authenticateCertificate({ QSslCertificate(valid->certificatePem) }).has_value());
}

void tst_Certificates::generationIsFast()
{
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 5; ++i) {
        auto certificates = generateClusterCertificates();
        QVERIFY(certificates.ok());
    }
    const qint64 perSet = timer.elapsed() / 5;
    qInfo("one CA + 3 certificates (EC P-256): %lld ms", perSet);
    QVERIFY2(perSet < 500, qPrintable(u"%1 ms"_s.arg(perSet)));
}

QTEST_GUILESS_MAIN(tst_Certificates)
#include "tst_certificates.moc"
