// Malformed kubeconfigs and certificates (issue 9): every refusal names the file, the context
// and the field that is wrong, and nothing half-loaded is used.

#include "controller/kube/clientconfig.h"
#include "controller/kube/kubeconfig.h"
#include "testpki.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;

class tst_HostileKubeconfig final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void badCertificates_data();
    void badCertificates();
    void badFiles_data();
    void badFiles();

private:
    QByteArray pem(const char *name) const
    {
        return testpki::read(m_pki.filePath(QString::fromUtf8(name)));
    }
    QString writeFile(const QString &name, const QByteArray &contents) const;

    QTemporaryDir m_pki;
};

namespace {

// One cluster "c" and one user "u" joined by context "ctx"; `cluster` and `user` are the YAML
// flow-map bodies.
QByteArray kubeconfig(const QByteArray &cluster, const QByteArray &user)
{
    return "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
           "clusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:6443\""
        + (cluster.isEmpty() ? QByteArray() : ", " + cluster)
        + "}\n"
          "contexts:\n- name: ctx\n  context: {cluster: c, user: u}\n"
          "users:\n- name: u\n  user: {"
        + user + "}\n";
}

QByteArray data(const QByteArray &bytes)
{
    return bytes.toBase64();
}

} // namespace

void tst_HostileKubeconfig::initTestCase()
{
    QVERIFY(m_pki.isValid());
    QString error;
    QVERIFY2(testpki::generate(m_pki.path(), &error), qPrintable(error));
}

QString tst_HostileKubeconfig::writeFile(const QString &name, const QByteArray &contents) const
{
    const QString path = m_pki.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(contents) != contents.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void tst_HostileKubeconfig::badCertificates_data()
{
    QTest::addColumn<QByteArray>("cluster");
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QString>("expected"); // after "kubeconfig FILE: context "ctx": "

    const QByteArray cert = data(pem("client.crt"));
    const QByteArray key = data(pem("client.key"));
    const QByteArray goodUser = "client-certificate-data: " + cert + ", client-key-data: " + key;
    const QByteArray caPem = pem("ca.crt");

    QTest::newRow("CA data not base64")
        << QByteArray("certificate-authority-data: \"%%%not-base64%%%\"") << goodUser
        << u"cluster \"c\": certificate-authority-data: not valid base64"_s;
    QTest::newRow("CA data is not PEM")
        << "certificate-authority-data: " + data("just some text\n") << goodUser
        << u"cluster \"c\": certificate-authority-data: no PEM certificate found"_s;
    QTest::newRow("CA PEM truncated")
        << "certificate-authority-data: " + data(caPem.left(caPem.size() / 2)) << goodUser
        << u"cluster \"c\": certificate-authority-data: "_s;
    QTest::newRow("CA PEM body corrupted") << "certificate-authority-data: "
            + data("-----BEGIN CERTIFICATE-----\nAAAA!!!!bm90IGEgY2VydA==\n-----END "
                   "CERTIFICATE-----\n") << goodUser
                                           << u"cluster \"c\": certificate-authority-data: "_s;
    QTest::newRow("client certificate is a key")
        << QByteArray() << "client-certificate-data: " + key + ", client-key-data: " + key
        << u"user \"u\": client-certificate-data: no PEM certificate found"_s;
    QTest::newRow("client key is a certificate")
        << QByteArray() << "client-certificate-data: " + cert + ", client-key-data: " + cert
        << u"user \"u\": client-key-data: cannot decode the PEM private key"_s;
    QTest::newRow("client key truncated") << QByteArray()
                                          << "client-certificate-data: " + cert
            + ", client-key-data: " + data(pem("client.key").left(200))
                                          << u"user \"u\": client-key-data: "_s;
    QTest::newRow("client key of another certificate")
        << QByteArray()
        << "client-certificate-data: " + cert + ", client-key-data: " + data(pem("other.key"))
        << u"user \"u\": client-key-data: the private key does not match client-certificate-data"_s;
    QTest::newRow("certificate without key")
        << QByteArray() << "client-certificate-data: " + cert
        << u"user \"u\": client-certificate-data is set but no client key"_s;
    QTest::newRow("binary garbage as key") << QByteArray()
                                           << "client-certificate-data: " + cert
            + ", client-key-data: " + data(QByteArray("\x00\xff\x10\x80-----BEGIN", 13))
                                           << u"user \"u\": client-key-data: "_s;
}

void tst_HostileKubeconfig::badCertificates()
{
    QFETCH(QByteArray, cluster);
    QFETCH(QByteArray, user);
    QFETCH(QString, expected);
    const QString file = writeFile(u"config"_s, kubeconfig(cluster, user));
    auto config = Kubeconfig::loadFiles({ file }, false);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    auto resolved = config->resolve();
    QVERIFY(!resolved.ok());
    const QString prefix = u"kubeconfig %1: context \"ctx\": "_s.arg(file);
    QVERIFY2(resolved.error().message.startsWith(prefix + expected),
             qPrintable(resolved.error().message));

    // The same material with good certificates resolves: the failure was the bad field alone.
    const QByteArray good = kubeconfig({},
                                       "client-certificate-data: " + data(pem("client.crt"))
                                           + ", client-key-data: " + data(pem("client.key")));
    auto fine = Kubeconfig::parse(good, file);
    QVERIFY(fine.ok());
    const auto resolvedFine = fine->resolve();
    QVERIFY2(resolvedFine.ok(), resolvedFine.ok() ? "" : qPrintable(resolvedFine.error().message));
}

void tst_HostileKubeconfig::badFiles_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("cluster");
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QString>("expected");
    // The CA file holds a key, a path is a directory, the client certificate file is empty.
    QTest::newRow("CA file holds a key")
        << u"key-as-ca.pem"_s << QByteArray("certificate-authority: key-as-ca.pem") << QByteArray()
        << u"cluster \"c\": certificate-authority: %P: no PEM certificate found"_s;
    QTest::newRow("CA path is a directory")
        << QString() << QByteArray("certificate-authority: .") << QByteArray()
        << u"cluster \"c\": certificate-authority: cannot read "_s;
    QTest::newRow("empty certificate file")
        << u"empty.crt"_s << QByteArray()
        << QByteArray("client-certificate: empty.crt, client-key-data: @KEY@")
        << u"user \"u\": client-key-data is set but no client certificate"_s;
}

void tst_HostileKubeconfig::badFiles()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, cluster);
    QFETCH(QByteArray, user);
    QFETCH(QString, expected);
    QString fileArgument;
    if (name == u"key-as-ca.pem")
        fileArgument = writeFile(name, pem("client.key"));
    else if (name == u"empty.crt")
        fileArgument = writeFile(name, {});
    user.replace("@KEY@", data(pem("client.key")));
    const QString file = writeFile(u"config"_s, kubeconfig(cluster, user));
    expected.replace(u"%P"_s, fileArgument);
    auto config = Kubeconfig::loadFiles({ file }, false);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    auto resolved = config->resolve();
    QVERIFY(!resolved.ok());
    const QString prefix = u"kubeconfig %1: context \"ctx\": "_s.arg(file);
    QVERIFY2(resolved.error().message.startsWith(prefix + expected),
             qPrintable(resolved.error().message));
}

QTEST_GUILESS_MAIN(tst_HostileKubeconfig)
#include "tst_hostilekubeconfig.moc"
