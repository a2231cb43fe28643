#include "controller/kube/discovery.h"
#include "models/yamljson.h"
#include "testpki.h"
#include "testserver.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;

class tst_DiscoveryClient final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void contentTypeDecidesFormat_data();
    void contentTypeDecidesFormat();
    void parseAggregatedDropsResourcesWithoutResponseKind();
    void resolve_data();
    void resolve();
    void crdVersionsByPriority();
    void aggregatedDiscovery();
    void legacyDiscovery();
    void newCrdAppearsLive();

private:
    static QByteArray data(const char *name);
    QList<DiscoveredResource> sampleResources() const;
    void serveDiscovery(bool aggregated);

    std::unique_ptr<TestServer> m_server;
    std::unique_ptr<RestClient> m_client;
    QPointer<QTcpSocket> m_crdWatch;
    QByteArray m_crdList
        = R"({"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[],"metadata":{"resourceVersion":"40"}})";
};

namespace {

constexpr const char *AggregatedType
    = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

QString describe(const DiscoveredResource &resource)
{
    return resource.groupVersion() + u'/' + resource.plural;
}

} // namespace

QByteArray tst_DiscoveryClient::data(const char *name)
{
    return testpki::read(QStringLiteral(RECONSCOPE_TEST_DATA "/discovery/")
                         + QString::fromUtf8(name));
}

QList<DiscoveredResource> tst_DiscoveryClient::sampleResources() const
{
    auto core = discovery::parseAggregated(data("aggregated-api.json"));
    auto groups = discovery::parseAggregated(data("aggregated-apis.json"));
    if (!core || !groups)
        return {};
    return *core + *groups;
}

void tst_DiscoveryClient::init()
{
    m_server = std::make_unique<TestServer>();
    ClientConfig config;
    config.server = QUrl(m_server->url(u"http"_s));
    m_client = std::make_unique<RestClient>(config);
}

void tst_DiscoveryClient::cleanup()
{
    m_client.reset();
    m_server.reset();
}

void tst_DiscoveryClient::contentTypeDecidesFormat_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<bool>("aggregated");
    QTest::newRow("v2") << QByteArray(AggregatedType) << true;
    QTest::newRow("v2beta1 spaced") << QByteArray(
        "application/json; g=apidiscovery.k8s.io; v=v2beta1; as=APIGroupDiscoveryList")
                                    << true;
    QTest::newRow("plain json") << QByteArray("application/json") << false;
    QTest::newRow("v1 list") << QByteArray(
        "application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList")
                             << false;
    QTest::newRow("missing as") << QByteArray("application/json;g=apidiscovery.k8s.io;v=v2")
                                << false;
}

void tst_DiscoveryClient::contentTypeDecidesFormat()
{
    QFETCH(QByteArray, contentType);
    QFETCH(bool, aggregated);
    QCOMPARE(discovery::isAggregated(contentType), aggregated);
}

void tst_DiscoveryClient::parseAggregatedDropsResourcesWithoutResponseKind()
{
    auto parsed = discovery::parseAggregated(data("aggregated-apis.json"));
    QVERIFY(parsed);
    QStringList names;
    for (const auto &resource : *parsed)
        names << describe(resource);
    QCOMPARE(names,
             (QStringList{ u"apps/v1/deployments"_s,
                           u"infrastructure.internal.net/v1/customapps"_s,
                           u"infrastructure.internal.net/v1beta1/customapps"_s,
                           u"events.k8s.io/v1/events"_s,
                           u"example.com/v1/clusterwidgets"_s }));
    const auto &deployments = parsed->at(0);
    QVERIFY(deployments.scaleSubresource);
    QVERIFY(deployments.statusSubresource);
    QVERIFY(deployments.preferredVersion);
    QVERIFY(parsed->at(1).preferredVersion);
    QVERIFY(!parsed->at(2).preferredVersion);
    QVERIFY(!parsed->at(4).namespaced);
    QVERIFY(!discovery::parseAggregated("{\"kind\":\"APIGroupList\"}"));
}

void tst_DiscoveryClient::resolve_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("expected"); // empty: not found
    QTest::newRow("plural") << u"customapps"_s << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("singular") << u"customapp"_s << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("short name") << u"ca"_s << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("kind, any case")
        << u"CustomApp"_s << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("plural.group") << u"customapps.infrastructure.internal.net"_s
                                  << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("singular.group") << u"customapp.infrastructure.internal.net"_s
                                    << u"infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("plural.version.group") << u"customapps.v1beta1.infrastructure.internal.net"_s
                                          << u"infrastructure.internal.net/v1beta1/customapps"_s;
    QTest::newRow("core first") << u"events"_s << u"v1/events"_s;
    QTest::newRow("group picks the other")
        << u"events.events.k8s.io"_s << u"events.k8s.io/v1/events"_s;
    QTest::newRow("core short name") << u"po"_s << u"v1/pods"_s;
    QTest::newRow("deploy") << u"deploy"_s << u"apps/v1/deployments"_s;
    QTest::newRow("deployments.apps") << u"deployments.apps"_s << u"apps/v1/deployments"_s;
    QTest::newRow("cluster scoped") << u"clusterwidget"_s << u"example.com/v1/clusterwidgets"_s;
    QTest::newRow("unknown") << u"widgets"_s << QString();
    QTest::newRow("wrong group") << u"customapps.example.com"_s << QString();
    QTest::newRow("dropped without responseKind") << u"noresponsekind"_s << QString();
    QTest::newRow("empty") << u" "_s << QString();
}

void tst_DiscoveryClient::resolve()
{
    QFETCH(QString, argument);
    QFETCH(QString, expected);
    const auto resources = sampleResources();
    QVERIFY(!resources.isEmpty());
    const auto resolved = discovery::resolve(resources, argument);
    if (expected.isEmpty()) {
        QVERIFY(!resolved);
        QCOMPARE(resolved.error().message,
                 u"the server doesn't have a resource type \"%1\""_s.arg(argument.trimmed()));
    } else {
        QVERIFY2(resolved, resolved ? "" : qPrintable(resolved.error().message));
        QCOMPARE(describe(*resolved), expected);
    }
}

void tst_DiscoveryClient::crdVersionsByPriority()
{
    const auto resources = discovery::fromCrd(data("widget-crd.json"));
    QStringList versions;
    for (const auto &resource : resources)
        versions << resource.version;
    // v1beta1 is not served; v1 outranks v1alpha1 whatever the CRD's order.
    QCOMPARE(versions, (QStringList{ u"v1"_s, u"v1alpha1"_s }));
    QVERIFY(resources[0].preferredVersion);
    QVERIFY(resources[0].statusSubresource);
    QVERIFY(!resources[1].statusSubresource);
    QVERIFY(!resources[0].namespaced);
    QCOMPARE(resources[0].shortNames, QStringList{ u"wd"_s });

    // The project's own CRD (YAML) converts too.
    auto yaml = testpki::read(QStringLiteral(
        RECONSCOPE_SOURCE_DIR "/resources/crds/customapps.infrastructure.internal.net.yaml"));
    QVERIFY(!yaml.isEmpty());
    auto json = reconscope::models::yamlToJson(yaml);
    QVERIFY(json);
    const auto customApps = discovery::fromCrd(QByteArray::fromStdString(json->dump()));
    QVERIFY(!customApps.isEmpty());
    QCOMPARE(customApps.first().plural, u"customapps"_s);
    QCOMPARE(customApps.first().group, u"infrastructure.internal.net"_s);
    QVERIFY(customApps.first().statusSubresource);

    // Not Established yet: not served.
    QByteArray pending = data("widget-crd.json");
    pending.replace(R"({"type":"Established","status":"True"})",
                    R"({"type":"Established","status":"False"})");
    QVERIFY(discovery::fromCrd(pending).isEmpty());
}

void tst_DiscoveryClient::serveDiscovery(bool aggregated)
{
    m_server->handler = [this, aggregated](const TestRequest &request, QTcpSocket *socket) {
        const QString path = request.path;
        const bool wantsAggregated
            = request.headers.value("accept").contains("as=APIGroupDiscoveryList");
        if (path == u"/api" || path == u"/apis") {
            if (aggregated && wantsAggregated) {
                TestServer::respond(
                    socket,
                    200,
                    AggregatedType,
                    data(path == u"/api" ? "aggregated-api.json" : "aggregated-apis.json"));
            } else {
                TestServer::respond(socket,
                                    200,
                                    "application/json",
                                    data(path == u"/api" ? "legacy-api.json" : "legacy-apis.json"));
            }
        } else if (path == u"/api/v1") {
            TestServer::respond(socket, 200, "application/json", data("legacy-api-v1.json"));
        } else if (path == u"/apis/infrastructure.internal.net/v1") {
            TestServer::respond(socket, 200, "application/json", data("legacy-g-v1.json"));
        } else if (path == u"/apis/infrastructure.internal.net/v1beta1") {
            TestServer::respond(socket, 200, "application/json", data("legacy-g-v1beta1.json"));
        } else if (path == u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions") {
            if (request.query.hasQueryItem(u"watch"_s)) {
                m_crdWatch = socket;
                TestServer::startStream(socket);
            } else {
                TestServer::respond(socket, 200, "application/json", m_crdList);
            }
        } else {
            TestServer::respond(socket, 404, "text/plain; charset=utf-8", "404 page not found\n");
        }
    };
}

void tst_DiscoveryClient::aggregatedDiscovery()
{
    serveDiscovery(true);
    DiscoveryClient client(m_client.get());
    QSignalSpy changed(&client, &DiscoveryClient::resourcesChanged);
    QSignalSpy failed(&client, &DiscoveryClient::discoveryFailed);
    client.refresh();
    QVERIFY(changed.wait());
    QVERIFY(failed.isEmpty());
    QVERIFY(client.aggregated());
    QCOMPARE(client.resources().size(), 8);
    QCOMPARE(describe(*client.resolve(u"ca"_s)), u"infrastructure.internal.net/v1/customapps"_s);
    QCOMPARE(describe(*client.resolve(u"ns"_s)), u"v1/namespaces"_s);
    QVERIFY(!client.resolve(u"ns"_s)->namespaced);
    // Exactly two requests, both asking for the aggregated format first.
    QCOMPARE(m_server->requests.size(), 2);
    for (const auto &request : std::as_const(m_server->requests))
        QVERIFY(request.headers.value("accept").startsWith(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"));
}

void tst_DiscoveryClient::legacyDiscovery()
{
    serveDiscovery(false);
    DiscoveryClient client(m_client.get());
    QSignalSpy changed(&client, &DiscoveryClient::resourcesChanged);
    client.refresh();
    QVERIFY(changed.wait());
    QVERIFY(!client.aggregated());
    QStringList names;
    for (const auto &resource : client.resources())
        names << describe(resource);
    QCOMPARE(names,
             (QStringList{ u"v1/pods"_s,
                           u"v1/namespaces"_s,
                           u"infrastructure.internal.net/v1beta1/customapps"_s,
                           u"infrastructure.internal.net/v1/customapps"_s }));
    const auto customApps = client.resolve(u"customapps"_s);
    QVERIFY(customApps);
    // The preferred version wins even though v1beta1 is listed first.
    QCOMPARE(customApps->version, u"v1"_s);
    QVERIFY(customApps->statusSubresource);
    QCOMPARE(customApps->kind, u"CustomApp"_s);
    QVERIFY(client.resolve(u"pods"_s)->statusSubresource);
    QCOMPARE(m_server->requests.size(), 5);
}

void tst_DiscoveryClient::newCrdAppearsLive()
{
    serveDiscovery(true);
    DiscoveryClient client(m_client.get());
    QSignalSpy crds(&client, &DiscoveryClient::crdsChanged);
    client.refresh();
    client.watchCrds();
    QTRY_VERIFY(m_crdWatch);
    QVERIFY(!client.resolve(u"widgets"_s));
    const int requestsBefore = int(m_server->requests.size());

    TestServer::writeChunk(
        m_crdWatch, R"({"type":"ADDED","object":)" + data("widget-crd.json").trimmed() + "}\n");
    QTRY_COMPARE(crds.size(), 1);
    QCOMPARE(crds.first().first().toStringList(), QStringList{ u"widgets.example.com"_s });
    const auto widgets = client.resolve(u"wd"_s);
    QVERIFY2(widgets, widgets ? "" : qPrintable(widgets.error().message));
    QCOMPARE(describe(*widgets), u"example.com/v1/widgets"_s);
    QVERIFY(widgets->fromCrd);
    QVERIFY(client.crds().contains(u"widgets.example.com"_s));
    // ... and discovery is asked again.
    QTRY_VERIFY(m_server->requests.size() >= requestsBefore + 2);

    TestServer::writeChunk(
        m_crdWatch, R"({"type":"DELETED","object":)" + data("widget-crd.json").trimmed() + "}\n");
    QTRY_COMPARE(crds.size(), 2);
    QCOMPARE(crds.last().at(1).toStringList(), QStringList{ u"widgets.example.com"_s });
    QVERIFY(!client.resolve(u"widgets"_s));
    client.stop();
}

QTEST_GUILESS_MAIN(tst_DiscoveryClient)
#include "tst_discoveryclient.moc"
