#include "controller/cluster/server/authenticator.h"
#include "controller/cluster/server/certificates.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

class tst_Authenticator : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void bearer_data();
    void bearer();
    void certificates_data();
    void certificates();
    void noCaTrustsNothing();

private:
    std::optional<CertificateAuthority> m_ca;
    Authenticator m_authenticator;
};

void tst_Authenticator::initTestCase()
{
    auto ca = CertificateAuthority::create();
    QVERIFY(ca.ok());
    m_ca = *ca;
    m_authenticator.setCaCertificate(m_ca->pem().certificatePem);
    m_authenticator.addToken("admin-token", u"reconscope-token"_s, { u"system:masters"_s });
    m_authenticator.addToken(
        "viewer-token", u"reconscope-viewer-token"_s, { u"reconscope:viewers"_s });
}

void tst_Authenticator::bearer_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QStringList>("groups");
    const QStringList admin{ u"system:masters"_s, u"system:authenticated"_s };
    QTest::newRow("admin") << QByteArray("Bearer admin-token") << u"reconscope-token"_s << admin;
    QTest::newRow("lower-case scheme")
        << QByteArray("bearer admin-token") << u"reconscope-token"_s << admin;
    QTest::newRow("upper-case scheme")
        << QByteArray("BEARER admin-token") << u"reconscope-token"_s << admin;
    QTest::newRow("extra spaces") << QByteArray("  Bearer   admin-token  ") << u"reconscope-token"_s
                                  << admin;
    QTest::newRow("viewer") << QByteArray("Bearer viewer-token") << u"reconscope-viewer-token"_s
                            << QStringList{ u"reconscope:viewers"_s, u"system:authenticated"_s };
    QTest::newRow("unknown") << QByteArray("Bearer other") << QString() << QStringList();
    QTest::newRow("prefix of a token") << QByteArray("Bearer admin") << QString() << QStringList();
    QTest::newRow("empty") << QByteArray() << QString() << QStringList();
    QTest::newRow("scheme only") << QByteArray("Bearer") << QString() << QStringList();
    QTest::newRow("basic") << QByteArray("Basic admin-token") << QString() << QStringList();
    QTest::newRow("no scheme") << QByteArray("admin-token") << QString() << QStringList();
}

void tst_Authenticator::bearer()
{
    QFETCH(QByteArray, header);
    QFETCH(QString, user);
    QFETCH(QStringList, groups);
    const auto identity = m_authenticator.authenticateBearer(header);
    QCOMPARE(identity.has_value(), !user.isEmpty());
    if (identity) {
        QCOMPARE(identity->name, user);
        QCOMPARE(identity->groups, groups);
        QVERIFY(identity->authenticated);
    }
}

void tst_Authenticator::certificates_data()
{
    QTest::addColumn<QString>("commonName");
    QTest::addColumn<QStringList>("organizations");
    QTest::addColumn<bool>("serverAuth");
    QTest::addColumn<bool>("expired");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("admin") << u"kubernetes-admin"_s << QStringList{ u"system:masters"_s } << false
                           << false << true;
    QTest::newRow("several groups")
        << u"dev"_s << QStringList{ u"a"_s, u"b"_s } << false << false << true;
    QTest::newRow("no groups") << u"solo"_s << QStringList() << false << false << true;
    QTest::newRow("expired") << u"kubernetes-admin"_s << QStringList{ u"system:masters"_s } << false
                             << true << false;
    QTest::newRow("server usage only")
        << u"kube-apiserver"_s << QStringList() << true << false << false;
}

void tst_Authenticator::certificates()
{
    QFETCH(QString, commonName);
    QFETCH(QStringList, organizations);
    QFETCH(bool, serverAuth);
    QFETCH(bool, expired);
    QFETCH(bool, accepted);
    CertificateRequest request;
    request.commonName = commonName;
    request.organizations = organizations;
    request.serverAuth = serverAuth;
    if (expired)
        request.validity = Validity::expired();
    auto issued = m_ca->issue(request);
    QVERIFY(issued.ok());
    const auto identity = m_authenticator.authenticateCertificate(
        { QSslCertificate(issued->certificatePem, QSsl::Pem) });
    QCOMPARE(identity.has_value(), accepted);
    if (identity) {
        QCOMPARE(identity->name, commonName);
        QCOMPARE(identity->groups, organizations + QStringList{ u"system:authenticated"_s });
    }
    QVERIFY(!m_authenticator.authenticateCertificate({}).has_value());
}

void tst_Authenticator::noCaTrustsNothing()
{
    CertificateRequest request;
    request.commonName = u"kubernetes-admin"_s;
    auto issued = m_ca->issue(request);
    QVERIFY(issued.ok());
    const Authenticator empty;
    QVERIFY(!empty.authenticateCertificate({ QSslCertificate(issued->certificatePem, QSsl::Pem) })
                 .has_value());
    QVERIFY(!empty.authenticateBearer("Bearer admin-token").has_value());
}

QTEST_GUILESS_MAIN(tst_Authenticator)
#include "tst_authenticator.moc"
