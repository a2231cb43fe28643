#include "controller/cluster/server/kubeconfigwriter.h"

#include <yaml-cpp/yaml.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

namespace {

KubeconfigContent sampleContent()
{
    KubeconfigContent content;
    content.server = QUrl(u"https://127.0.0.1:6443"_s);
    content.caCertificatePem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
    content.adminCertificatePem = "-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n";
    content.adminKeyPem = "-----BEGIN EC PRIVATE KEY-----\nAK\n-----END EC PRIVATE KEY-----\n";
    content.adminToken = "0123456789abcdef";
    content.viewerCertificatePem = "-----BEGIN CERTIFICATE-----\nVIEW\n-----END CERTIFICATE-----\n";
    content.viewerKeyPem = "-----BEGIN EC PRIVATE KEY-----\nVK\n-----END EC PRIVATE KEY-----\n";
    return content;
}

QByteArray base64Field(const YAML::Node &node)
{
    return QByteArray::fromBase64(QByteArray::fromStdString(node.as<std::string>()));
}

YAML::Node findNamed(const YAML::Node &list, const std::string &name)
{
    for (const auto &item : list) {
        if (item["name"].as<std::string>() == name)
            return item;
    }
    return {};
}

} // namespace

class tst_KubeconfigWriter : public QObject
{
    Q_OBJECT

private slots:
    void renderedYamlHasThreeContexts();
    void contexts_data();
    void contexts();
    void writtenWithMode0600();
    void replacesAtomically();
    void createsFolder();
    void unwritableFolderFails();
};

void tst_KubeconfigWriter::renderedYamlHasThreeContexts()
{
    const QByteArray yaml = KubeconfigWriter::render(sampleContent());
    const YAML::Node config = YAML::Load(yaml.toStdString());
    QCOMPARE(config["apiVersion"].as<std::string>(), "v1");
    QCOMPARE(config["kind"].as<std::string>(), "Config");
    QCOMPARE(config["current-context"].as<std::string>(), "reconscope-admin");
    QVERIFY(config["preferences"].IsMap());
    QCOMPARE(config["clusters"].size(), std::size_t(1));
    const YAML::Node cluster = config["clusters"][0];
    QCOMPARE(cluster["name"].as<std::string>(), "reconscope");
    QCOMPARE(cluster["cluster"]["server"].as<std::string>(), "https://127.0.0.1:6443");
    QCOMPARE(base64Field(cluster["cluster"]["certificate-authority-data"]),
             sampleContent().caCertificatePem);
    QCOMPARE(config["contexts"].size(), std::size_t(3));
    QCOMPARE(config["users"].size(), std::size_t(3));
}

void tst_KubeconfigWriter::contexts_data()
{
    QTest::addColumn<QString>("context");
    QTest::addColumn<QByteArray>("certificate");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("token");
    const KubeconfigContent content = sampleContent();
    QTest::newRow("admin") << u"reconscope-admin"_s << content.adminCertificatePem
                           << content.adminKeyPem << QByteArray();
    QTest::newRow("token") << u"reconscope-token"_s << QByteArray() << QByteArray()
                           << content.adminToken;
    QTest::newRow("viewer") << u"reconscope-viewer"_s << content.viewerCertificatePem
                            << content.viewerKeyPem << QByteArray();
}

void tst_KubeconfigWriter::contexts()
{
    QFETCH(QString, context);
    QFETCH(QByteArray, certificate);
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, token);
    const YAML::Node config = YAML::Load(KubeconfigWriter::render(sampleContent()).toStdString());
    const YAML::Node entry = findNamed(config["contexts"], context.toStdString());
    QVERIFY(entry.IsDefined() && !entry.IsNull());
    QCOMPARE(entry["context"]["cluster"].as<std::string>(), "reconscope");
    const std::string userName = entry["context"]["user"].as<std::string>();
    const YAML::Node user = findNamed(config["users"], userName)["user"];
    QVERIFY(user.IsMap());
    if (!certificate.isEmpty()) {
        QCOMPARE(base64Field(user["client-certificate-data"]), certificate);
        QCOMPARE(base64Field(user["client-key-data"]), key);
        QVERIFY(!user["token"]);
    } else {
        QCOMPARE(QByteArray::fromStdString(user["token"].as<std::string>()), token);
        QVERIFY(!user["client-certificate-data"]);
    }
}

void tst_KubeconfigWriter::writtenWithMode0600()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"kubeconfig"_s);
    const auto written = KubeconfigWriter::write(path, sampleContent());
    QVERIFY2(written.ok(), written.ok() ? "" : qPrintable(written.error().message));
    struct stat info = {};
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, 0600u);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), KubeconfigWriter::render(sampleContent()));
}

void tst_KubeconfigWriter::replacesAtomically()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"config"_s);
    {
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old contents, world-readable\n");
        old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner
                           | QFileDevice::ReadOther);
    }
    const QFileInfo before(path);
    const auto written = KubeconfigWriter::write(path, sampleContent());
    QVERIFY(written.ok());
    struct stat info = {};
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, 0600u);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().startsWith("apiVersion: v1\n"));
    // Nothing left behind but the file itself.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{ u"config"_s });
}

void tst_KubeconfigWriter::createsFolder()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"a/b/kubeconfig"_s);
    QVERIFY(KubeconfigWriter::write(path, sampleContent()).ok());
    QVERIFY(QFileInfo::exists(path));
}

void tst_KubeconfigWriter::unwritableFolderFails()
{
    // A folder that cannot exist (its parent is a file) fails even for root.
    QTemporaryDir dir;
    QFile blocker(dir.filePath(u"file"_s));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const auto written
        = KubeconfigWriter::write(dir.filePath(u"file/kubeconfig"_s), sampleContent());
    QVERIFY(!written.ok());
    QVERIFY(!written.error().message.isEmpty());
}

QTEST_GUILESS_MAIN(tst_KubeconfigWriter)
#include "tst_kubeconfigwriter.moc"
