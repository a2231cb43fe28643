#include "controller/cluster/schema/openapi.h"
#include "schematestutil.h"
#include "tests/testkubectl.h"

#include "controller/cluster/schema/discoverydocuments.h"
#include "controller/cluster/schema/table.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUrlQuery>

#include <functional>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

namespace {

QList<ResourceType> cluster()
{
    QList<ResourceType> types = schematest::customAppTypes();
    types.append(*resourceTypesFromCrd(schematest::yamlFile(
        schematest::sharedPath(u"fixtures/real-crds/crds/cluster.x-k8s.io_machinepools.yaml"_s))));
    ResourceType namespaces;
    namespaces.version = u"v1"_s;
    namespaces.plural = u"namespaces"_s;
    namespaces.singular = u"namespace"_s;
    namespaces.kind = u"Namespace"_s;
    namespaces.listKind = u"NamespaceList"_s;
    namespaces.namespaced = false;
    namespaces.builtin = true;
    types.append(namespaces);
    ResourceType deployments = namespaces;
    deployments.group = u"apps"_s;
    deployments.plural = u"deployments"_s;
    deployments.singular = u"deployment"_s;
    deployments.kind = u"Deployment"_s;
    deployments.listKind = u"DeploymentList"_s;
    deployments.namespaced = true;
    types.append(deployments);
    return types;
}

// kubectl's QueryParamVerifierV3: a PATCH operation tagged with the GVK lists the parameter.
bool supportsQueryParam(const json &document, const json &gvk, const std::string &param)
{
    for (const auto &[path, item] : document["paths"].items()) {
        if (!item.contains("patch")
            || item["patch"].value("x-kubernetes-group-version-kind", json()) != gvk)
            continue;
        for (const json &parameter : item["patch"]["parameters"]) {
            if (parameter["name"] == param)
                return true;
        }
        return false;
    }
    return false;
}

// Every "$ref" of the document resolves inside it.
QStringList unresolvedRefs(const json &document, const std::string &prefix, const json &models)
{
    QStringList missing;
    std::function<void(const json &)> walk = [&](const json &node) {
        if (node.is_object()) {
            if (auto it = node.find("$ref"); it != node.end()) {
                const std::string ref = *it;
                if (!ref.starts_with(prefix) || !models.contains(ref.substr(prefix.size())))
                    missing.append(QString::fromStdString(ref));
            }
        }
        if (node.is_structured()) {
            for (const json &child : node)
                walk(child);
        }
    };
    walk(document);
    return missing;
}

const json customAppGvk
    = { { "group", "infrastructure.internal.net" }, { "version", "v1" }, { "kind", "CustomApp" } };

// Just enough of an API server for kubectl to discover, validate, create and list CustomApps
// from the documents this library renders. One request per connection.
class FakeApiServer : public QObject
{
public:
    explicit FakeApiServer(QList<ResourceType> types)
        : m_types(std::move(types))
    {
        m_server.listen(QHostAddress::LocalHost);
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(
                    socket, &QTcpSocket::readyRead, this, [this, socket] { handle(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    quint16 port() const { return m_server.serverPort(); }
    QStringList requests; // "METHOD path?query content-type"

private:
    void handle(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
        const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
        QByteArray accept, contentType;
        qsizetype length = 0;
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "accept")
                accept = value;
            else if (name == "content-type")
                contentType = value;
            else if (name == "content-length")
                length = value.toLongLong();
        }
        if (buffer.size() < headerEnd + 4 + length)
            return;
        const QByteArray body = buffer.mid(headerEnd + 4, length);
        m_buffers.remove(socket);
        const QByteArray method = requestLine.value(0);
        const QUrl url(QString::fromLatin1(requestLine.value(1)));
        requests.append(QString::fromLatin1(method) + u' ' + url.path() + u'?' + url.query() + u' '
                        + QString::fromLatin1(contentType));
        const auto [status, type, payload] = respond(method, url.path(), accept, body);
        socket->write("HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: " + type
                      + "\r\nContent-Length: " + QByteArray::number(payload.size())
                      + "\r\nConnection: close\r\n\r\n" + payload);
        socket->disconnectFromHost();
    }

    std::tuple<int, QByteArray, QByteArray> respond(const QByteArray &method,
                                                    const QString &path,
                                                    const QByteArray &accept,
                                                    const QByteArray &body)
    {
        const QByteArray jsonType = "application/json";
        const QByteArray aggregated
            = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        const auto dump = [](const json &value) {
            return QByteArray::fromStdString(value.dump());
        };
        if (path == u"/version"_s)
            return { 200, jsonType, R"({"major":"1","minor":"32","gitVersion":"v1.32.0"})" };
        if (path == u"/api"_s)
            return { 200, aggregated, dump(aggregatedDiscovery(m_types, true)) };
        if (path == u"/apis"_s)
            return { 200, aggregated, dump(aggregatedDiscovery(m_types, false)) };
        if (path == u"/openapi/v3"_s)
            return { 200, jsonType, dump(openApiV3Index(m_types)) };
        if (path.startsWith(u"/openapi/v3/apis/"_s))
            return { 200, jsonType, dump(openApiV3Document(path.mid(17), m_types)) };
        if (path.startsWith(u"/openapi/v3/api/"_s))
            return { 200, jsonType, dump(openApiV3Document(path.mid(16), m_types)) };
        if (path == u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps"_s) {
            if (method == "POST")
                return { 201, jsonType, body };
            json item
                = json::parse(R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",
                "metadata":{"name":"web","namespace":"default","creationTimestamp":"2026-08-09T11:55:00Z"},
                "spec":{"image":"nginx:1.27","replicas":2},
                "status":{"conditions":[{"type":"Ready","status":"True","reason":"Available"}]}})");
            if (accept.contains("as=Table")) {
                const json table = renderTable(m_types.first(),
                                               { &item },
                                               json{ { "resourceVersion", "7" } },
                                               u"",
                                               QDateTime(QDate(2026, 8, 9), QTime(12, 0), Qt::UTC));
                return { 200, "application/json;as=Table;v=v1;g=meta.k8s.io", dump(table) };
            }
        }
        return { 404, "text/plain; charset=utf-8", "404 page not found\n" };
    }

    QList<ResourceType> m_types;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

// Runs kubectl against `server`; returns stdout+stderr.
QString kubectl(const QString &program,
                const FakeApiServer &server,
                const QTemporaryDir &home,
                const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"HOME"_s, home.path());
    environment.remove(u"KUBECONFIG"_s);
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::MergedChannels);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(program,
                  QStringList{ u"--server=http://127.0.0.1:"_s + QString::number(server.port()),
                               u"--cache-dir="_s + home.filePath(u"cache"_s) }
                      + arguments);
    if (!finished.wait(30000))
        process.kill();
    return QString::fromUtf8(process.readAll()).simplified();
}

} // namespace

class tst_OpenApi : public QObject
{
    Q_OBJECT

private slots:
    void index();
    void customAppDocument();
    void kubectlSeesServerSideFieldValidation();
    void pathsFollowSubresources();
    void refsResolve();
    void builtinsArePermissive();
    void unknownGroupVersion();
    void v2();
    void kubectlConsumesTheDocuments();
};

void tst_OpenApi::index()
{
    const QList<ResourceType> types = cluster();
    const json index = openApiV3Index(types);
    QStringList keys;
    for (const auto &[key, value] : index["paths"].items())
        keys.append(QString::fromStdString(key));
    QCOMPARE(keys,
             (QStringList{ u"api/v1"_s,
                           u"apis/apps/v1"_s,
                           u"apis/cluster.x-k8s.io/v1beta1"_s,
                           u"apis/cluster.x-k8s.io/v1beta2"_s,
                           u"apis/infrastructure.internal.net/v1"_s }));
    const QString url = QString::fromStdString(
        index["paths"]["apis/infrastructure.internal.net/v1"]["serverRelativeURL"]);
    const QByteArray hash
        = QCryptographicHash::hash(
              QByteArray::fromStdString(
                  openApiV3Document(u"infrastructure.internal.net/v1"_s, types).dump()),
              QCryptographicHash::Sha512)
              .toHex()
              .toUpper();
    QCOMPARE(url,
             u"/openapi/v3/apis/infrastructure.internal.net/v1?hash="_s
                 + QString::fromLatin1(hash));
    QCOMPARE(hash.size(), 128);
    // The hash follows the content: another schema, another URL.
    QList<ResourceType> changed = types;
    changed[0].schema["properties"]["spec"]["properties"]["replicas"]["maximum"] = 50;
    QVERIFY(openApiV3Index(changed)["paths"]["apis/infrastructure.internal.net/v1"]
            != index["paths"]["apis/infrastructure.internal.net/v1"]);
    QCOMPARE_JSON(openApiV3Index(changed)["paths"]["apis/apps/v1"], index["paths"]["apis/apps/v1"]);
}

void tst_OpenApi::customAppDocument()
{
    const json document
        = openApiV3Document(u"infrastructure.internal.net/v1"_s, schematest::customAppTypes());
    QCOMPARE_JSON(document["openapi"], json("3.0.0"));
    const json &schemas = document["components"]["schemas"];
    QVERIFY(schemas.contains("net.internal.infrastructure.v1.CustomApp"));
    QVERIFY(schemas.contains("net.internal.infrastructure.v1.CustomAppList"));
    QVERIFY(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    QVERIFY(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"));
    QVERIFY(!schemas.contains("io.k8s.api.autoscaling.v1.Scale"));
    const json &app = schemas["net.internal.infrastructure.v1.CustomApp"];
    QCOMPARE_JSON(app["x-kubernetes-group-version-kind"], json::array({ customAppGvk }));
    QCOMPARE_JSON(app["type"], json("object"));
    QCOMPARE_JSON(app["properties"]["metadata"]["allOf"][0]["$ref"],
                  json("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    QCOMPARE_JSON(app["properties"]["apiVersion"]["type"], json("string"));
    const json &replicas = app["properties"]["spec"]["properties"]["replicas"];
    QCOMPARE_JSON(replicas["maximum"], json(100));
    QCOMPARE_JSON(replicas["default"], json(1));
    QCOMPARE_JSON(app["properties"]["spec"]["required"], schematest::parse(R"(["image"])"));
    const json &list = schemas["net.internal.infrastructure.v1.CustomAppList"];
    QCOMPARE_JSON(list["x-kubernetes-group-version-kind"][0]["kind"], json("CustomAppList"));
    QCOMPARE_JSON(list["properties"]["items"]["items"]["allOf"][0]["$ref"],
                  json("#/components/schemas/net.internal.infrastructure.v1.CustomApp"));
    const json &meta = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"];
    QCOMPARE_JSON(meta["generation"], schematest::parse(R"({"type":"integer","format":"int64"})"));
    QCOMPARE_JSON(meta["labels"]["additionalProperties"]["type"], json("string"));
}

void tst_OpenApi::kubectlSeesServerSideFieldValidation()
{
    const QList<ResourceType> types = cluster();
    QVERIFY(supportsQueryParam(openApiV3Document(u"infrastructure.internal.net/v1"_s, types),
                               customAppGvk,
                               "fieldValidation"));
    QVERIFY(!supportsQueryParam(
        openApiV3Document(u"infrastructure.internal.net/v1"_s, types), customAppGvk, "bogus"));
    const json namespaceGvk = { { "group", "" }, { "version", "v1" }, { "kind", "Namespace" } };
    QVERIFY(supportsQueryParam(openApiV3Document(u"v1"_s, types), namespaceGvk, "fieldValidation"));
    const json machinePool
        = { { "group", "cluster.x-k8s.io" }, { "version", "v1beta1" }, { "kind", "MachinePool" } };
    QVERIFY(supportsQueryParam(
        openApiV3Document(u"cluster.x-k8s.io/v1beta1"_s, types), machinePool, "fieldValidation"));
}

void tst_OpenApi::pathsFollowSubresources()
{
    const json app
        = openApiV3Document(u"infrastructure.internal.net/v1"_s, schematest::customAppTypes());
    QStringList paths;
    for (const auto &[path, item] : app["paths"].items())
        paths.append(QString::fromStdString(path));
    QCOMPARE(
        paths,
        (QStringList{
            u"/apis/infrastructure.internal.net/v1/customapps"_s,
            u"/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps"_s,
            u"/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}"_s,
            u"/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}/status"_s }));
    const json &item
        = app["paths"]
             ["/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}"];
    for (const char *method : { "get", "put", "patch", "delete" })
        QVERIFY2(item.contains(method), method);
    QCOMPARE_JSON(item["patch"]["x-kubernetes-action"], json("patch"));
    QCOMPARE_JSON(item["patch"]["description"], json("partially update the specified CustomApp"));
    const json &collection
        = app["paths"]["/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps"];
    QCOMPARE_JSON(collection["post"]["description"], json("create a CustomApp"));
    QCOMPARE_JSON(collection["get"]["description"], json("list objects of kind CustomApp"));
    QCOMPARE_JSON(collection["delete"]["description"], json("delete collection of CustomApp"));
    QCOMPARE_JSON(
        app["paths"]
           ["/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}/status"]
           ["patch"]["description"],
        json("partially update status of the specified CustomApp"));
    QVERIFY(item["patch"]["requestBody"]["content"].contains("application/merge-patch+json"));

    const json pools = openApiV3Document(u"cluster.x-k8s.io/v1beta2"_s, cluster());
    const json &scale
        = pools["paths"]
               ["/apis/cluster.x-k8s.io/v1beta2/namespaces/{namespace}/machinepools/{name}/scale"];
    QCOMPARE_JSON(scale["patch"]["x-kubernetes-group-version-kind"],
                  schematest::parse(R"({"group":"autoscaling","version":"v1","kind":"Scale"})"));
    QVERIFY(pools["components"]["schemas"].contains("io.k8s.api.autoscaling.v1.Scale"));

    const json namespaces = openApiV3Document(u"v1"_s, cluster());
    QVERIFY(namespaces["paths"].contains("/api/v1/namespaces/{name}"));
    QVERIFY(!namespaces["paths"].contains("/api/v1/namespaces/{name}/status"));
}

void tst_OpenApi::refsResolve()
{
    const QList<ResourceType> types = cluster();
    for (const QString &gv : { u"infrastructure.internal.net/v1"_s,
                               u"cluster.x-k8s.io/v1beta1"_s,
                               u"v1"_s,
                               u"apps/v1"_s }) {
        const json document = openApiV3Document(gv, types);
        QCOMPARE(
            unresolvedRefs(document, "#/components/schemas/", document["components"]["schemas"]),
            QStringList());
    }
    const json v2 = openApiV2(types);
    QCOMPARE(unresolvedRefs(v2, "#/definitions/", v2["definitions"]), QStringList());
}

void tst_OpenApi::builtinsArePermissive()
{
    const json document = openApiV3Document(u"apps/v1"_s, cluster());
    const json &deployment = document["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"];
    QCOMPARE_JSON(deployment,
                  schematest::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true,
        "x-kubernetes-group-version-kind":[{"group":"apps","kind":"Deployment","version":"v1"}]})"));
    const json core = openApiV3Document(u"v1"_s, cluster());
    QCOMPARE_JSON(core["components"]["schemas"]["io.k8s.api.core.v1.Namespace"]
                      ["x-kubernetes-group-version-kind"],
                  schematest::parse(R"([{"group":"","kind":"Namespace","version":"v1"}])"));
}

void tst_OpenApi::unknownGroupVersion()
{
    QVERIFY(openApiV3Document(u"nope.io/v1"_s, cluster()).is_null());
    QList<ResourceType> types = schematest::customAppTypes();
    types[0].served = false;
    QVERIFY(openApiV3Document(u"infrastructure.internal.net/v1"_s, types).is_null());
    QVERIFY(openApiV3Index(types)["paths"].empty());
}

void tst_OpenApi::v2()
{
    QList<ResourceType> types = cluster();
    ResourceType widget = types.first();
    widget.group = u"example.com"_s;
    widget.kind = u"Widget"_s;
    widget.listKind = u"WidgetList"_s;
    widget.plural = u"widgets"_s;
    widget.schema
        = schematest::parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
        "port":{"x-kubernetes-int-or-string":true},
        "note":{"type":"string","nullable":true},
        "raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string"}}},
        "choice":{"type":"string","anyOf":[{"enum":["a"]},{"enum":["b"]}]}}}}})");
    types.append(widget);

    const json v3 = openApiV3Document(u"example.com/v1"_s,
                                      types)["components"]["schemas"]["com.example.v1.Widget"];
    const json &spec3 = v3["properties"]["spec"]["properties"];
    QCOMPARE_JSON(spec3["port"]["anyOf"],
                  schematest::parse(R"([{"type":"integer"},{"type":"string"}])"));
    QCOMPARE_JSON(spec3["note"]["nullable"], json(true));

    const json v2 = openApiV2(types);
    QCOMPARE_JSON(v2["swagger"], json("2.0"));
    const json &definitions = v2["definitions"];
    const json &widget2 = definitions["com.example.v1.Widget"];
    QCOMPARE_JSON(widget2["properties"]["metadata"]["$ref"],
                  json("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    // What kubectl's v2 validation cannot express is left out: int-or-string types, nullable,
    // anyOf, the properties of preserve-unknown-fields objects.
    const json &spec2 = widget2["properties"]["spec"]["properties"];
    QCOMPARE_JSON(spec2["port"], schematest::parse(R"({"x-kubernetes-int-or-string":true})"));
    QCOMPARE_JSON(spec2["note"], schematest::parse(R"({"type":"string"})"));
    QCOMPARE_JSON(
        spec2["raw"],
        schematest::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"));
    QCOMPARE_JSON(spec2["choice"], schematest::parse(R"({"type":"string"})"));
    QVERIFY(definitions.contains("io.x-k8s.cluster.v1beta2.MachinePool"));
    QVERIFY(definitions.contains("io.k8s.api.apps.v1.Deployment"));
    QVERIFY(v2["paths"].contains(
        "/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}"));
    QCOMPARE_JSON(
        v2["paths"]["/apis/infrastructure.internal.net/v1/namespaces/{namespace}/customapps/{name}"]
          ["patch"]["x-kubernetes-group-version-kind"],
        customAppGvk);
}

void tst_OpenApi::kubectlConsumesTheDocuments()
{
    REQUIRE_KUBECTL();
    const QString program = reconscope::tests::testKubectlPath();
    FakeApiServer server(cluster());
    QTemporaryDir home;
    QVERIFY(home.isValid());

    // Aggregated discovery: responseKind, short names, scope.
    QVERIFY2(kubectl(program, server, home, { u"api-resources"_s })
                 .contains(u"customapps ca infrastructure.internal.net/v1 true CustomApp"_s),
             qPrintable(server.requests.join(u'\n')));

    // The OpenAPI v3 PATCH operation lists fieldValidation, so kubectl (default
    // --validate=strict) leaves validation to the server.
    const QString manifest = home.filePath(u"app.yaml"_s);
    QFile file(manifest);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "apiVersion: infrastructure.internal.net/v1\nkind: CustomApp\nmetadata:\n  name: web\n"
        "  namespace: default\nspec:\n  image: nginx:1.27\n  replicas: 2\n");
    file.close();
    QCOMPARE(kubectl(program, server, home, { u"create"_s, u"-f"_s, manifest }),
             u"customapp.infrastructure.internal.net/web created"_s);
    QVERIFY2(
        server.requests.contains(
            u"POST /apis/infrastructure.internal.net/v1/namespaces/default/customapps?fieldManager=kubectl-create&fieldValidation=Strict application/json"_s),
        qPrintable(server.requests.join(u'\n')));

    // kubectl explain reads the component schema by its x-kubernetes-group-version-kind.
    const QString explained
        = kubectl(program, server, home, { u"explain"_s, u"customapps.spec.replicas"_s });
    QVERIFY2(explained.contains(u"KIND: CustomApp VERSION: v1 FIELD: replicas <integer>"_s),
             qPrintable(explained));

    // kubectl get prints the Table's printer columns and cells as they are.
    QCOMPARE(kubectl(program, server, home, { u"get"_s, u"customapps"_s, u"-n"_s, u"default"_s }),
             u"NAME IMAGE REPLICAS READY REASON AGE web nginx:1.27 2 True Available 5m"_s);
}

QTEST_GUILESS_MAIN(tst_OpenApi)
#include "tst_openapi.moc"
