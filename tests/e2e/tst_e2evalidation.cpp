// Names the API refuses, on both servers (tst_e2evalidation:embedded and tst_e2evalidation:real):
// namespaces, ConfigMaps, CustomApps and CRDs whose names are not the DNS names apimachinery asks
// for. Each create (a dry run, so that nothing is left if one is accepted) must be answered 422
// with the Status kube-apiserver writes: its message, its details and every cause, so that the
// embedded cluster's answers and the real server's are the same text.
#include "tests/dnsmessages.h"
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::tests::e2e::E2eServer;

using namespace reconscope::tests;

namespace {

const QString mixedCase = u"may have mixed case, but should otherwise match: "_s;
// A label value's limit, in the words of k8s.io/apimachinery/pkg/api/validate/content.
const QString labelTooLong = u"must be no more than 63 bytes"_s;

QString tooLong(int limit)
{
    return u"must be no more than %1 characters"_s.arg(limit);
}

// One expected cause: "field|message", the message as apimachinery's field.Error body.
QString cause(const QString &field, const QString &value, const QString &detail)
{
    return field + u"|Invalid value: \""_s + value + u"\": "_s + detail;
}

QByteArray bytes(const json &object)
{
    return QByteArray::fromStdString(object.dump());
}

QByteArray namespaceObject(const QString &name)
{
    return bytes({ { "apiVersion", "v1" },
                   { "kind", "Namespace" },
                   { "metadata", { { "name", name.toStdString() } } } });
}

QByteArray configMap(const QString &name)
{
    return bytes({ { "apiVersion", "v1" },
                   { "kind", "ConfigMap" },
                   { "metadata", { { "name", name.toStdString() } } },
                   { "data", { { "key", "value" } } } });
}

QByteArray customApp(const QString &name)
{
    return bytes(
        reconscope::tests::e2e::customAppManifest(name, u"registry.example.com/app:1"_s, 1));
}

QByteArray crd(const QString &kind, const QString &listKind)
{
    json object = json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition",
      "metadata": {"name": "badkinds.e2e.reconscope.dev"},
      "spec": {
        "group": "e2e.reconscope.dev",
        "scope": "Namespaced",
        "names": {"plural": "badkinds", "singular": "badkind"},
        "versions": [{"name": "v1", "served": true, "storage": true,
                      "schema": {"openAPIV3Schema": {"type": "object"}}}]
      }
    })");
    object["spec"]["names"]["kind"] = kind.toStdString();
    object["spec"]["names"]["listKind"] = listKind.toStdString();
    return bytes(object);
}

} // namespace

class tst_E2eValidation final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void badNamesAreRefusedAsUpstream_data();
    void badNamesAreRefusedAsUpstream();

private:
    std::unique_ptr<E2eServer> m_server;
    QString m_ns;
};

void tst_E2eValidation::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    qInfo("server: %s", qPrintable(m_server->name()));
    QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
    m_ns = m_server->createNamespace(u"e2e-names"_s);
    QVERIFY(!m_ns.isEmpty());
}

void tst_E2eValidation::cleanupTestCase()
{
    m_server.reset();
}

void tst_E2eValidation::badNamesAreRefusedAsUpstream_data()
{
    QTest::addColumn<QString>("collection"); // {ns} stands for the test's namespace
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<QString>("qualifiedKind"); // Kind.group, as the message starts
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("causes");

    const QString namespaces = u"/api/v1/namespaces"_s;
    const QString upper = u"Bad-Namespace"_s;
    QTest::newRow("namespace in upper case")
        << namespaces << namespaceObject(upper) << u"Namespace"_s << upper
        << QStringList{ cause(u"metadata.name"_s, upper, label1123) };
    const QString dotted = u"bad.namespace"_s;
    QTest::newRow("namespace with dots")
        << namespaces << namespaceObject(dotted) << u"Namespace"_s << dotted
        << QStringList{ cause(u"metadata.name"_s, dotted, u"must not contain dots"_s) };
    const QString long64 = QString(64, u'a');
    QTest::newRow("namespace too long")
        << namespaces << namespaceObject(long64) << u"Namespace"_s << long64
        << QStringList{ cause(u"metadata.name"_s, long64, tooLong(63)),
                        cause(u"metadata.labels"_s, long64, labelTooLong) };
    const QString longUpper = QString(64, u'N');
    QTest::newRow("namespace too long and in upper case")
        << namespaces << namespaceObject(longUpper) << u"Namespace"_s << longUpper
        << QStringList{ cause(u"metadata.name"_s, longUpper, tooLong(63)),
                        cause(u"metadata.name"_s, longUpper, label1123),
                        cause(u"metadata.labels"_s, longUpper, labelTooLong) };
    // 32 characters, 64 bytes: the limits count bytes. A namespace too long for a name is too
    // long for the kubernetes.io/metadata.name label the server gives it, too.
    const QString accented = QString(32, QChar(0xe9));
    QTest::newRow("namespace of 64 bytes")
        << namespaces << namespaceObject(accented) << u"Namespace"_s << accented
        << QStringList{ cause(u"metadata.name"_s, accented, tooLong(63)),
                        cause(u"metadata.name"_s, accented, label1123),
                        cause(u"metadata.labels"_s, accented, labelTooLong),
                        cause(u"metadata.labels"_s, accented, labelValue) };

    const QString long254 = QString(254, u'c');
    QTest::newRow("configmap too long")
        << u"/api/v1/namespaces/{ns}/configmaps"_s << configMap(long254) << u"ConfigMap"_s
        << long254 << QStringList{ cause(u"metadata.name"_s, long254, tooLong(253)) };

    const QString apps = u"/apis/infrastructure.internal.net/v1/namespaces/{ns}/customapps"_s;
    const QString badApp = u"Bad_App"_s;
    QTest::newRow("customapp with a bad name")
        << apps << customApp(badApp) << u"CustomApp.infrastructure.internal.net"_s << badApp
        << QStringList{ cause(u"metadata.name"_s, badApp, subdomain1123) };
    const QString longApp = QString(254, u'x');
    QTest::newRow("customapp too long")
        << apps << customApp(longApp) << u"CustomApp.infrastructure.internal.net"_s << longApp
        << QStringList{ cause(u"metadata.name"_s, longApp, tooLong(253)) };

    const QString crds = u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s;
    const QString crdKind = u"CustomResourceDefinition.apiextensions.k8s.io"_s;
    const QString crdName = u"badkinds.e2e.reconscope.dev"_s;
    QTest::newRow("crd kind not a DNS-1035 label")
        << crds << crd(u"Bad_Kind"_s, u"BadKindList"_s) << crdKind << crdName
        << QStringList{ cause(u"spec.names.kind"_s, u"Bad_Kind"_s, mixedCase + label1035) };
    const QString longKind = u'B' + QString(63, u'k');
    QTest::newRow("crd kind too long")
        << crds << crd(longKind, u"BadKindList"_s) << crdKind << crdName
        << QStringList{ cause(u"spec.names.kind"_s, longKind, mixedCase + tooLong(63)) };
    QTest::newRow("crd kind and listKind starting with a digit")
        << crds << crd(u"9Kind"_s, u"9KindList"_s) << crdKind << crdName
        << QStringList{ cause(u"spec.names.kind"_s, u"9Kind"_s, mixedCase + label1035),
                        cause(u"spec.names.listKind"_s, u"9KindList"_s, mixedCase + label1035) };
}

void tst_E2eValidation::badNamesAreRefusedAsUpstream()
{
    QFETCH(QString, collection);
    QFETCH(QByteArray, object);
    QFETCH(QString, qualifiedKind);
    QFETCH(QString, name);
    QFETCH(QStringList, causes);

    const QString path = QString(collection).replace(u"{ns}"_s, m_ns) + u"?dryRun=All"_s;
    const auto answer = m_server->sendJson("POST", path, json::parse(object.toStdString()));
    QVERIFY2(!answer, "the server accepted the object");
    const auto &error = answer.error();
    QVERIFY2(error.code == 422, qPrintable(error.toString()));
    QCOMPARE(error.reason, u"Invalid"_s);
    QCOMPARE(error.name, name);
    QCOMPARE(error.group + u'/' + error.kind,
             qualifiedKind.section(u'.', 1) + u'/' + qualifiedKind.section(u'.', 0, 0));
    QStringList found;
    QStringList bodies;
    for (const auto &c : error.causes) {
        QCOMPARE(c.reason, u"FieldValueInvalid"_s);
        found << c.field + u'|' + c.message;
        bodies << c.field + u": "_s + c.message;
    }
    QVERIFY2(found == causes, qPrintable(u"causes:\n"_s + found.join(u'\n')));
    const QString aggregate
        = bodies.size() == 1 ? bodies.first() : u'[' + bodies.join(u", "_s) + u']';
    QCOMPARE(error.message, u"%1 \"%2\" is invalid: %3"_s.arg(qualifiedKind, name, aggregate));
}

QTEST_GUILESS_MAIN(tst_E2eValidation)
#include "tst_e2evalidation.moc"
