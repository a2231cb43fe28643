#include "controller/kube/clientconfig.h"
#include "controller/kube/credentialprovider.h"
#include "controller/kube/kubeconfig.h"
#include "testpki.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;

class tst_Kubeconfig final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void kindConfig();
    void errors_data();
    void errors();
    void relativePaths();
    void mergedKubeconfigFirstWins();
    void explicitPathBeatsKUBECONFIG();
    void tokenFileIsReReadWhenItChanges();
    void basicAuth();
    void execPluginFailureShowsStderr();
    void execPluginReturnsClientCertificate();
    void execPluginNotInstalledShowsInstallHint();
    void execPluginTokenCachedUntilExpiry();
    void insecureSkipTlsVerifyAndProxy();
    void keyFormats_data();
    void keyFormats();
    void everyTruncationFailsCleanly();
    void proxyFromEnvironment_data();
    void proxyFromEnvironment();

private:
    QString path(const QString &name) const { return m_work->filePath(name); }
    ClientConfig resolve(const QString &name, const QString &context = {});

    QTemporaryDir m_pki;
    QMap<QByteArray, QByteArray> m_substitutions;
    std::unique_ptr<QTemporaryDir> m_work;
    QByteArray m_savedKubeconfig;
    bool m_hadKubeconfig = false;
};

namespace {

using Outcome = reconscope::models::Result<Credentials, ApiError>;

// Runs acquire() and waits (event loop, no sleeps) for the callback.
std::optional<Outcome> acquire(CredentialProvider &provider)
{
    std::optional<Outcome> outcome;
    QObject context;
    provider.acquire(&context, [&](Outcome result) { outcome.emplace(std::move(result)); });
    if (!QTest::qWaitFor([&] { return outcome.has_value(); }, 10000))
        return std::nullopt;
    return outcome;
}

bool writeFile(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

} // namespace

void tst_Kubeconfig::initTestCase()
{
    QVERIFY(m_pki.isValid());
    QString error;
    QVERIFY2(testpki::generate(m_pki.path(), &error), qPrintable(error));
    auto b64 = [&](const char *name) {
        const QByteArray pem = testpki::read(m_pki.filePath(QString::fromUtf8(name)));
        return pem.toBase64();
    };
    m_substitutions = {
        { "@CA_DATA@", b64("ca.crt") },
        { "@CLIENT_CERT_DATA@", b64("client.crt") },
        { "@CLIENT_KEY_DATA@", b64("client.key") },
        { "@PKCS8_KEY_DATA@", b64("client-pkcs8.key") },
        { "@EC_CERT_DATA@", b64("ec.crt") },
        { "@EC_KEY_DATA@", b64("ec.key") },
        { "@EC_PKCS8_KEY_DATA@", b64("ec-pkcs8.key") },
        { "@OTHER_KEY_DATA@", b64("other.key") },
    };
    QVERIFY(testpki::read(m_pki.filePath(u"client.key"_s)).contains("BEGIN RSA PRIVATE KEY"));
    QVERIFY(testpki::read(m_pki.filePath(u"client-pkcs8.key"_s)).contains("BEGIN PRIVATE KEY"));
    QVERIFY(testpki::read(m_pki.filePath(u"ec.key"_s)).contains("BEGIN EC PRIVATE KEY"));
    m_hadKubeconfig = qEnvironmentVariableIsSet("KUBECONFIG");
    m_savedKubeconfig = qgetenv("KUBECONFIG");
}

// Every test gets a fresh copy of data/kubeconfig with the generated PKI substituted in.
void tst_Kubeconfig::init()
{
    m_work = std::make_unique<QTemporaryDir>();
    QVERIFY(m_work->isValid());
    const QString source = QStringLiteral(RECONSCOPE_TEST_DATA "/kubeconfig");
    QDirIterator it(source, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString from = it.next();
        const QString to = m_work->filePath(QDir(source).relativeFilePath(from));
        QByteArray text = testpki::read(from);
        for (auto s = m_substitutions.cbegin(); s != m_substitutions.cend(); ++s)
            text.replace(s.key(), s.value());
        QVERIFY(writeFile(to, text));
        QFile::setPermissions(to, QFile::permissions(from));
    }
}

void tst_Kubeconfig::cleanup()
{
    if (m_hadKubeconfig)
        qputenv("KUBECONFIG", m_savedKubeconfig);
    else
        qunsetenv("KUBECONFIG");
    m_work.reset();
}

ClientConfig tst_Kubeconfig::resolve(const QString &name, const QString &context)
{
    auto config = Kubeconfig::loadFiles({ path(name) }, false);
    if (!config) {
        qWarning() << config.error().message;
        return ClientConfig();
    }
    auto resolved = config->resolve(context);
    if (!resolved) {
        qWarning() << resolved.error().message;
        return ClientConfig();
    }
    return *resolved;
}

void tst_Kubeconfig::kindConfig()
{
    const ClientConfig config = resolve(u"kind.yaml"_s);
    QCOMPARE(config.server, QUrl(u"https://127.0.0.1:6443"_s));
    QCOMPARE(config.contextName, u"kind-kind"_s);
    QCOMPARE(config.namespace_, u"default"_s);
    QCOMPARE(config.caCertificates.size(), 1);
    QCOMPARE(config.caCertificates.first().subjectInfo(QSslCertificate::CommonName),
             QStringList{ u"test-ca"_s });
    QCOMPARE(config.clientCertificate.subjectInfo(QSslCertificate::CommonName),
             QStringList{ u"kubernetes-admin"_s });
    QCOMPARE(config.clientKey.algorithm(), QSsl::Rsa);
    QVERIFY(!config.insecureSkipTlsVerify);
    const QSslConfiguration ssl = config.sslConfiguration();
    QCOMPARE(ssl.peerVerifyMode(), QSslSocket::VerifyPeer);
    QCOMPARE(ssl.localCertificate(), config.clientCertificate);
    QCOMPARE(ssl.caCertificates(), config.caCertificates);
    QCOMPARE(config.peerVerifyName(), u"127.0.0.1"_s);

    QCOMPARE(resolve(u"kind.yaml"_s, u"team-a"_s).namespace_, u"team-a"_s);
}

void tst_Kubeconfig::errors_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected"); // %F = the file's absolute path; exact when no '*'

    QTest::newRow("missing current context") << u"missing-context.yaml"_s << QString()
                                             << u"kubeconfig %F: context \"staging\" not found"_s;
    QTest::newRow("unknown context asked for")
        << u"kind.yaml"_s << u"nope"_s << u"kubeconfig %F: context \"nope\" not found"_s;
    QTest::newRow("unknown user") << u"unknown-user.yaml"_s << QString()
                                  << u"kubeconfig %F: context \"dev\": user \"bob\" not found"_s;
    QTest::newRow("bad base64")
        << u"bad-base64.yaml"_s << QString()
        << u"kubeconfig %F: context \"dev\": user \"bob\": client-key-data: not valid base64"_s;
    QTest::newRow("key does not match certificate")
        << u"key-mismatch.yaml"_s << QString()
        << u"kubeconfig %F: context \"dev\": user \"bob\": client-key-data: the private key does "
           u"not match client-certificate-data (subject*"_s;
    QTest::newRow("yaml syntax") << u"yaml-syntax.yaml"_s << QString()
                                 << u"kubeconfig %F: line *"_s;
    QTest::newRow("wrong shape") << u"wrong-shape.yaml"_s << QString()
                                 << u"kubeconfig %F: clusters: expected a list"_s;
    QTest::newRow("exec v1 without interactiveMode")
        << u"exec-v1-no-mode.yaml"_s << QString()
        << u"kubeconfig %F: context \"e\": user \"e\": exec.interactiveMode: missing (required "
           u"in v1)"_s;
    QTest::newRow("missing CA file")
        << u"missing-file.yaml"_s << QString()
        << u"kubeconfig %F: context \"c\": cluster \"c\": certificate-authority: cannot read "
           u"%D/does/not/exist.crt: *"_s;
    QTest::newRow("insecure with CA")
        << u"insecure.yaml"_s << u"both"_s
        << u"kubeconfig %F: context \"both\": cluster \"both\": insecure-skip-tls-verify: cannot "
           u"be combined with a certificate authority"_s;
    QTest::newRow("unsupported proxy")
        << u"insecure.yaml"_s << u"bad-proxy"_s
        << u"kubeconfig %F: context \"bad-proxy\": cluster \"bad-proxy\": proxy-url: unsupported "
           u"scheme ftp (http, https or socks5)"_s;
}

void tst_Kubeconfig::errors()
{
    QFETCH(QString, file);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    const QString absolute = path(file);
    expected.replace(u"%F"_s, absolute).replace(u"%D"_s, m_work->path());

    QString message;
    auto config = Kubeconfig::loadFiles({ absolute }, false);
    if (!config) {
        message = config.error().message;
    } else {
        auto resolved = config->resolve(context);
        QVERIFY2(!resolved, "resolve() should have failed");
        message = resolved.error().message;
    }
    if (expected.endsWith(u'*'))
        QVERIFY2(message.startsWith(expected.chopped(1)), qPrintable(message));
    else
        QCOMPARE(message, expected);
}

void tst_Kubeconfig::relativePaths()
{
    const QString dir = path(u"relative/nested"_s);
    QVERIFY(QDir().mkpath(dir + u"/certs"_s));
    QVERIFY(QDir().mkpath(path(u"relative/keys"_s)));
    QVERIFY(QFile::copy(m_pki.filePath(u"ca.crt"_s), dir + u"/certs/ca.crt"_s));
    QVERIFY(QFile::copy(m_pki.filePath(u"client.crt"_s), dir + u"/certs/client.crt"_s));
    QVERIFY(QFile::copy(m_pki.filePath(u"client.key"_s), path(u"relative/keys/client.key"_s)));

    // The working directory must not matter.
    const QString previous = QDir::currentPath();
    QDir::setCurrent(m_pki.path());
    auto config = Kubeconfig::loadFiles({ dir + u"/config"_s }, false);
    QDir::setCurrent(previous);
    QVERIFY2(config, config ? "" : qPrintable(config.error().message));
    QCOMPARE(config->clusters().value(u"c"_s).certificateAuthority, dir + u"/certs/ca.crt"_s);
    QCOMPARE(config->users().value(u"u"_s).clientKey, path(u"relative/keys/client.key"_s));
    auto resolved = config->resolve();
    QVERIFY2(resolved, resolved ? "" : qPrintable(resolved.error().message));
    QCOMPARE(resolved->namespace_, u"rel"_s);
    QCOMPARE(resolved->caCertificates.size(), 1);
    QCOMPARE(resolved->clientCertificate.subjectInfo(QSslCertificate::CommonName),
             QStringList{ u"kubernetes-admin"_s });
}

void tst_Kubeconfig::mergedKubeconfigFirstWins()
{
    const QString list = QStringList{ path(u"merge-first.yaml"_s),
                                      path(u"does-not-exist.yaml"_s),
                                      path(u"merge-second.yaml"_s) }
                             .join(QDir::listSeparator());
    qputenv("KUBECONFIG", list.toUtf8());
    auto config = Kubeconfig::load();
    QVERIFY2(config, config ? "" : qPrintable(config.error().message));
    QCOMPARE(config->currentContext(), u"first"_s);
    QCOMPARE(config->files().size(), 2);
    QCOMPARE(config->contextNames(), (QStringList{ u"first"_s, u"second"_s }));
    // Entries are taken whole from the first file that names them.
    QCOMPARE(config->clusters().value(u"shared"_s).server, u"https://first.example:6443"_s);
    QCOMPARE(config->clusters().value(u"shared"_s).file, path(u"merge-first.yaml"_s));
    QCOMPARE(config->contexts().value(u"first"_s).cluster, u"shared"_s);
    QCOMPARE(config->users().value(u"first-user"_s).token, u"first-token"_s);

    auto first = config->resolve();
    QVERIFY(first);
    QCOMPARE(first->server.host(), u"first.example"_s);
    CredentialProvider provider(*first);
    const auto credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer first-token"));

    auto second = config->resolve(u"second"_s);
    QVERIFY(second);
    QCOMPARE(second->server.host(), u"only-second.example"_s);
    QCOMPARE(second->namespace_, u"from-second"_s);
}

void tst_Kubeconfig::explicitPathBeatsKUBECONFIG()
{
    qputenv("KUBECONFIG", path(u"merge-first.yaml"_s).toUtf8());
    auto config = Kubeconfig::load(path(u"merge-second.yaml"_s));
    QVERIFY(config);
    QCOMPARE(config->currentContext(), u"second"_s);
    // An explicit path that does not exist is an error, not a fallback.
    auto missing = Kubeconfig::load(path(u"nope.yaml"_s));
    QVERIFY(!missing);
    QVERIFY2(missing.error().message.contains(path(u"nope.yaml"_s)),
             qPrintable(missing.error().message));
}

void tst_Kubeconfig::tokenFileIsReReadWhenItChanges()
{
    // Missing token file: resolve names the field.
    auto config = Kubeconfig::loadFiles({ path(u"tokenfile.yaml"_s) }, false);
    QVERIFY(config);
    auto missing = config->resolve();
    QVERIFY(!missing);
    QVERIFY2(missing.error().message.contains(u"user \"sa\": tokenFile: cannot read "_s
                                              + path(u"secrets/token"_s)),
             qPrintable(missing.error().message));

    QVERIFY(writeFile(path(u"secrets/token"_s), "first-token\n"));
    auto resolved = config->resolve();
    QVERIFY(resolved);
    CredentialProvider provider(*resolved);
    auto credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer first-token"));

    QVERIFY(writeFile(path(u"secrets/token"_s), "rotated-token-2\n"));
    credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer rotated-token-2"));

    QVERIFY(QFile::remove(path(u"secrets/token"_s)));
    credentials = acquire(provider);
    QVERIFY(credentials && !credentials->ok());
    QVERIFY(credentials->error().message.contains(u"tokenFile"_s));
}

void tst_Kubeconfig::basicAuth()
{
    auto config = Kubeconfig::loadFiles({ path(u"merge-second.yaml"_s) }, false);
    QVERIFY(config);
    auto resolved = config->resolve(u"second"_s);
    QVERIFY(resolved);
    CredentialProvider provider(*resolved);
    const auto credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, "Basic " + QByteArray("admin:s3cret").toBase64());
}

void tst_Kubeconfig::execPluginFailureShowsStderr()
{
    const ClientConfig config = resolve(u"exec-fail.yaml"_s);
    QVERIFY(config.exec);
    QCOMPARE(config.exec->command, path(u"plugin-fail.sh"_s));
    CredentialProvider provider(config);
    QSignalSpy finished(&provider, &CredentialProvider::execPluginFinished);
    const auto credentials = acquire(provider);
    QVERIFY(credentials);
    QVERIFY(!credentials->ok());
    const QString message = credentials->error().message;
    QCOMPARE(credentials->error().category, ApiError::Category::Auth);
    QVERIFY2(message.startsWith(
                 u"kubeconfig %1: context \"sso\": exec plugin %2: exited with code 3"_s.arg(
                     path(u"exec-fail.yaml"_s), path(u"plugin-fail.sh"_s))),
             qPrintable(message));
    QVERIFY2(
        message.contains(
            u"stderr: error: refresh token expired; run 'sso login' (get-token --cluster c)"_s),
        qPrintable(message));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.first().first().toBool(), false);
}

void tst_Kubeconfig::execPluginNotInstalledShowsInstallHint()
{
    const ClientConfig config = resolve(u"exec-missing.yaml"_s);
    QVERIFY(config.exec);
    CredentialProvider provider(config);
    const auto credentials = acquire(provider);
    QVERIFY(credentials && !credentials->ok());
    const QString message = credentials->error().message;
    QVERIFY2(message.contains(u"exec plugin reconscope-test-plugin-that-is-not-installed could "
                              u"not be started"_s),
             qPrintable(message));
    QVERIFY2(message.endsWith(u"\nsso-login is required to authenticate to this cluster.\n"
                              u"Install it with: apt install sso-login"_s),
             qPrintable(message));
}

void tst_Kubeconfig::execPluginReturnsClientCertificate()
{
    const QByteArray certificate
        = testpki::read(m_pki.filePath(u"client.crt"_s)).replace('\n', "\\n");
    const QByteArray key
        = testpki::read(m_pki.filePath(u"client-pkcs8.key"_s)).replace('\n', "\\n");
    const QByteArray credential = QByteArray(R"({"apiVersion":"client.authentication.k8s.io/v1",)")
        + R"("kind":"ExecCredential","status":{"clientCertificateData":")" + certificate
        + R"(","clientKeyData":")" + key + R"("}})";
    QVERIFY(writeFile(path(u"credential.json"_s), credential));

    const ClientConfig config = resolve(u"exec-cert.yaml"_s);
    QVERIFY(config.exec);
    QVERIFY(config.clientCertificate.isNull());
    CredentialProvider provider(config);
    const auto credentials = acquire(provider);
    QVERIFY(credentials);
    QVERIFY2(credentials->ok(), credentials->ok() ? "" : qPrintable(credentials->error().message));
    QVERIFY(credentials->value().authorization.isEmpty());
    QCOMPARE(credentials->value().clientCertificate.subjectInfo(QSslCertificate::CommonName),
             QStringList{ u"kubernetes-admin"_s });
    QCOMPARE(credentials->value().clientKey.algorithm(), QSsl::Rsa);

    // A plugin handing out a key for another certificate is refused.
    const QByteArray other = testpki::read(m_pki.filePath(u"other.key"_s)).replace('\n', "\\n");
    QByteArray mismatched = credential;
    mismatched.replace(key, other);
    QVERIFY(writeFile(path(u"credential.json"_s), mismatched));
    provider.invalidate();
    const auto refused = acquire(provider);
    QVERIFY(refused && !refused->ok());
    QVERIFY2(refused->error().message.contains(u"does not match"_s),
             qPrintable(refused->error().message));
}

void tst_Kubeconfig::execPluginTokenCachedUntilExpiry()
{
    const ClientConfig config = resolve(u"exec-token.yaml"_s);
    QVERIFY(config.exec);
    CredentialProvider provider(config);
    QDateTime now = QDateTime::fromString(u"2030-01-01T09:00:00Z"_s, Qt::ISODate);
    provider.setClock([&now] { return now; });

    auto credentials = acquire(provider);
    QVERIFY(credentials);
    QVERIFY2(credentials->ok(), credentials->ok() ? "" : qPrintable(credentials->error().message));
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer token-1"));
    QCOMPARE(provider.execRuns(), 1);

    // Cached: answered at once, the plugin is not run again.
    bool immediate = false;
    QObject context;
    provider.acquire(&context, [&](Outcome result) {
        immediate = result.ok() && result->authorization == "Bearer token-1";
    });
    QVERIFY(immediate);
    QCOMPARE(provider.execRuns(), 1);

    // Past expirationTimestamp: re-run.
    now = now.addSecs(3601);
    credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer token-2"));
    QCOMPARE(provider.execRuns(), 2);

    // A 401 invalidates: re-run even though not expired by the clock.
    now = QDateTime::fromString(u"2030-01-01T09:00:00Z"_s, Qt::ISODate);
    provider.invalidate();
    credentials = acquire(provider);
    QVERIFY(credentials && credentials->ok());
    QCOMPARE(credentials->value().authorization, QByteArray("Bearer token-3"));

    // Concurrent requests share one plugin run.
    provider.invalidate();
    int answered = 0;
    for (int i = 0; i < 3; ++i)
        provider.acquire(&context, [&](Outcome result) { answered += result.ok() ? 1 : 0; });
    QTRY_COMPARE(answered, 3);
    QCOMPARE(provider.execRuns(), 4);
}

void tst_Kubeconfig::insecureSkipTlsVerifyAndProxy()
{
    const ClientConfig config = resolve(u"insecure.yaml"_s);
    QVERIFY(config.insecureSkipTlsVerify);
    QCOMPARE(config.sslConfiguration().peerVerifyMode(), QSslSocket::VerifyNone);
    QCOMPARE(config.tlsServerName, u"cluster.internal"_s);
    QCOMPARE(config.peerVerifyName(), u"cluster.internal"_s);
    QVERIFY(config.proxy);
    QCOMPARE(config.proxy->type(), QNetworkProxy::Socks5Proxy);
    QCOMPARE(config.proxy->hostName(), u"proxy.local"_s);
    QCOMPARE(config.proxy->port(), quint16(1081));
    QCOMPARE(config.warnings.size(), 1);
    QVERIFY(config.warnings.first().startsWith(
        u"TLS verification is disabled for cluster \"c\" (insecure-skip-tls-verify)"_s));

    // Without the flag peers are verified.
    QVERIFY(!resolve(u"kind.yaml"_s).insecureSkipTlsVerify);
    QVERIFY(resolve(u"kind.yaml"_s).warnings.isEmpty());
}

void tst_Kubeconfig::keyFormats_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QSsl::KeyAlgorithm>("algorithm");
    QTest::addColumn<QString>("commonName");
    QTest::newRow("RSA PKCS#1") << u"kind.yaml"_s << QString() << QSsl::Rsa
                                << u"kubernetes-admin"_s;
    QTest::newRow("RSA PKCS#8") << u"pkcs8-key.yaml"_s << QString() << QSsl::Rsa
                                << u"kubernetes-admin"_s;
    QTest::newRow("EC SEC1") << u"ec-key.yaml"_s << u"ec"_s << QSsl::Ec << u"ec-user"_s;
    QTest::newRow("EC PKCS#8") << u"ec-key.yaml"_s << u"ec-pkcs8"_s << QSsl::Ec << u"ec-user"_s;
}

void tst_Kubeconfig::keyFormats()
{
    QFETCH(QString, file);
    QFETCH(QString, context);
    QFETCH(QSsl::KeyAlgorithm, algorithm);
    QFETCH(QString, commonName);
    const ClientConfig config = resolve(file, context);
    QVERIFY(!config.clientKey.isNull());
    QCOMPARE(config.clientKey.algorithm(), algorithm);
    QCOMPARE(config.clientKey.type(), QSsl::PrivateKey);
    QCOMPARE(config.clientCertificate.subjectInfo(QSslCertificate::CommonName),
             QStringList{ commonName });
    QVERIFY(!config.sslConfiguration().privateKey().isNull());
}

void tst_Kubeconfig::everyTruncationFailsCleanly()
{
    // Whatever a damaged file looks like: an error that names the file, or a config; no crash.
    const QString file = path(u"kind.yaml"_s);
    const QByteArray text = testpki::read(file);
    QVERIFY(text.size() > 1000);
    int failures = 0;
    for (qsizetype cut = 0; cut < text.size(); cut += 7) {
        auto config = Kubeconfig::parse(text.left(cut), file);
        if (!config) {
            QVERIFY2(config.error().message.startsWith(u"kubeconfig "_s + file + u": "_s),
                     qPrintable(config.error().message));
            ++failures;
            continue;
        }
        auto resolved = config->resolve();
        if (!resolved) {
            QVERIFY2(resolved.error().message.startsWith(u"kubeconfig "_s + file),
                     qPrintable(resolved.error().message));
            ++failures;
        }
    }
    QVERIFY(failures > 0);
    // Garbage of other shapes.
    for (const QByteArray &garbage :
         { QByteArray("\0\x01\x02"),
           QByteArray("- a\n- b\n"),
           QByteArray("users: {a: b}\n"),
           QByteArray("contexts:\n- name: x\n  context: [1, 2]\n"),
           QByteArray("clusters:\n- {name: c, cluster: {server: {a: 1}}}\n"),
           QByteArray("a: &x [*x]\n"),
           QByteArray(100000, '[') }) {
        auto config = Kubeconfig::parse(garbage, file);
        if (config)
            QVERIFY(!config->resolve());
        else
            QVERIFY(config.error().message.startsWith(u"kubeconfig "_s + file + u": "_s));
    }
}

void tst_Kubeconfig::proxyFromEnvironment_data()
{
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("httpsProxy");
    QTest::addColumn<QString>("noProxy");
    QTest::addColumn<QString>("expected"); // host:port of the proxy, empty: direct

    const QString proxy = u"http://proxy.corp:3128"_s;
    QTest::newRow("https proxy") << u"https://10.1.2.3:6443"_s << proxy << QString()
                                 << u"proxy.corp:3128"_s;
    QTest::newRow("no proxy set") << u"https://10.1.2.3:6443"_s << QString() << QString()
                                  << QString();
    QTest::newRow("loopback never")
        << u"https://127.0.0.1:6443"_s << proxy << QString() << QString();
    QTest::newRow("localhost never")
        << u"https://localhost:6443"_s << proxy << QString() << QString();
    QTest::newRow("no_proxy domain") << u"https://api.cluster.internal:6443"_s << proxy
                                     << u"example.com, .internal"_s << QString();
    QTest::newRow("no_proxy exact")
        << u"https://api.example.com"_s << proxy << u"api.example.com"_s << QString();
    QTest::newRow("no_proxy other domain")
        << u"https://api.example.org"_s << proxy << u"example.com"_s << u"proxy.corp:3128"_s;
    QTest::newRow("no_proxy cidr")
        << u"https://10.1.2.3:6443"_s << proxy << u"10.0.0.0/8"_s << QString();
    QTest::newRow("no_proxy port mismatch") << u"https://api.example.com:6443"_s << proxy
                                            << u"api.example.com:443"_s << u"proxy.corp:3128"_s;
    QTest::newRow("no_proxy star") << u"https://10.1.2.3:6443"_s << proxy << u"*"_s << QString();
    QTest::newRow("bare host:port proxy")
        << u"https://10.1.2.3:6443"_s << u"squid:8080"_s << QString() << u"squid:8080"_s;
}

void tst_Kubeconfig::proxyFromEnvironment()
{
    QFETCH(QString, server);
    QFETCH(QString, httpsProxy);
    QFETCH(QString, noProxy);
    QFETCH(QString, expected);
    const QByteArrayList names{ "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy" };
    QMap<QByteArray, std::optional<QByteArray>> saved;
    for (const auto &name : names)
        saved.insert(name,
                     qEnvironmentVariableIsSet(name) ? std::optional(qgetenv(name)) : std::nullopt);
    for (const auto &name : names)
        qunsetenv(name);
    if (!httpsProxy.isEmpty())
        qputenv("HTTPS_PROXY", httpsProxy.toUtf8());
    if (!noProxy.isEmpty())
        qputenv("no_proxy", noProxy.toUtf8());
    const auto proxy = reconscope::controller::kube::proxyFromEnvironment(QUrl(server));
    for (auto it = saved.cbegin(); it != saved.cend(); ++it) {
        if (it.value())
            qputenv(it.key(), *it.value());
        else
            qunsetenv(it.key());
    }
    QCOMPARE(proxy ? u"%1:%2"_s.arg(proxy->hostName()).arg(proxy->port()) : QString(), expected);
    if (proxy)
        QCOMPARE(proxy->type(), QNetworkProxy::HttpProxy);
}

QTEST_GUILESS_MAIN(tst_Kubeconfig)
#include "tst_kubeconfig.moc"
