// controller/kube/redaction: what the client may log about headers, URLs and configs.
#include "controller/kube/redaction.h"

#include <QtTest>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace redaction = reconscope::controller::kube::redaction;

class tst_Redaction final : public QObject
{
    Q_OBJECT

private slots:
    void headers_data();
    void headers();
    void headerList();
    void urls_data();
    void urls();
    void describeConfigNamesNoSecret();
    void redactValues();
};

void tst_Redaction::headers_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QByteArray>("logged");
    QTest::newRow("bearer") << QByteArray("Authorization") << QByteArray("Bearer s3cr3t-t0ken")
                            << QByteArray("Bearer <redacted>");
    QTest::newRow("basic, lower case")
        << QByteArray("authorization") << QByteArray("Basic dXNlcjpwYXNz")
        << QByteArray("Basic <redacted>");
    QTest::newRow("no scheme") << QByteArray("Authorization") << QByteArray("s3cr3t-t0ken")
                               << QByteArray("<redacted>");
    QTest::newRow("proxy") << QByteArray("Proxy-Authorization") << QByteArray("Basic abc")
                           << QByteArray("Basic <redacted>");
    QTest::newRow("cookie") << QByteArray("Cookie") << QByteArray("session=abc")
                            << QByteArray("<redacted>");
    QTest::newRow("x-auth-token") << QByteArray("X-Auth-Token") << QByteArray("abc")
                                  << QByteArray("<redacted>");
    QTest::newRow("api key") << QByteArray("X-Api-Key") << QByteArray("abc")
                             << QByteArray("<redacted>");
    QTest::newRow("accept is kept")
        << QByteArray("Accept") << QByteArray("application/json") << QByteArray("application/json");
    QTest::newRow("retry-after is kept")
        << QByteArray("Retry-After") << QByteArray("1") << QByteArray("1");
}

void tst_Redaction::headers()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, logged);
    QCOMPARE(redaction::loggableHeaderValue(name, value), logged);
}

void tst_Redaction::headerList()
{
    const QString line = redaction::loggableHeaders(
        { { "Accept", "application/json" }, { "Authorization", "Bearer abcdefgh" } });
    QCOMPARE(line, u"Accept: application/json, Authorization: Bearer <redacted>"_s);
}

void tst_Redaction::urls_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<QString>("secret"); // must not appear
    QTest::addColumn<QString>("kept"); // must appear
    QTest::newRow("plain") << QUrl(u"https://127.0.0.1:6443/api/v1/pods?limit=500"_s) << QString()
                           << u"https://127.0.0.1:6443/api/v1/pods?limit=500"_s;
    QTest::newRow("user info") << QUrl(u"https://admin:hunter22@example.com/api"_s) << u"hunter22"_s
                               << u"https://example.com/api"_s;
    QTest::newRow("access_token") << QUrl(u"https://example.com/api?access_token=abcdef&watch=1"_s)
                                  << u"abcdef"_s << u"watch=1"_s;
}

void tst_Redaction::urls()
{
    QFETCH(QUrl, url);
    QFETCH(QString, secret);
    QFETCH(QString, kept);
    const QString logged = redaction::loggableUrl(url);
    QVERIFY2(logged.contains(kept), qPrintable(logged));
    if (!secret.isEmpty())
        QVERIFY2(!logged.contains(secret), qPrintable(logged));
}

void tst_Redaction::describeConfigNamesNoSecret()
{
    kube::ClientConfig config;
    config.server = QUrl(u"https://127.0.0.1:6443"_s);
    config.contextName = u"dev"_s;
    config.userName = u"alice"_s;
    config.token = u"tok-1234567890"_s;
    config.username = u"alice"_s;
    config.password = u"pa55word!"_s;
    config.exec = kube::ExecConfig();
    config.exec->command = u"aws"_s;
    const QString line = redaction::describeConfig(config);
    QVERIFY2(line.contains(u"bearer token (14 bytes)"_s), qPrintable(line));
    QVERIFY2(line.contains(u"basic auth as alice"_s), qPrintable(line));
    QVERIFY2(line.contains(u"exec plugin aws"_s), qPrintable(line));
    QVERIFY(!line.contains(u"tok-1234567890"_s));
    QVERIFY(!line.contains(u"pa55word!"_s));
}

void tst_Redaction::redactValues()
{
    kube::ClientConfig config;
    config.token = u"tok-1234567890"_s;
    config.password = u"pa55word!"_s;
    const QString text = u"sent tok-1234567890 and pa55word! and abc"_s;
    const QString redacted = redaction::redactValues(text, redaction::secretsOf(config));
    QCOMPARE(redacted, u"sent <redacted> and <redacted> and abc"_s);
    // Too short to be told from ordinary text: left alone.
    QCOMPARE(redaction::redactValues(u"abc"_s, { QByteArray("abc") }), u"abc"_s);
}

QTEST_GUILESS_MAIN(tst_Redaction)
#include "tst_redaction.moc"
