// The protobuf request-body reader: data/protobuf holds the bytes real kubectl 1.36 sends for its
// typed create commands (kubectl-create-*.pb, next to `kubectl create ... --dry-run=client -o json`
// for the same command) and bodies encoded by upstream's codecs (tools/protobuffixtures: <name>.pb
// next to what the typed JSON encoder writes). Each body must decode to exactly that JSON.
#include "apitestsupport.h"

#include "controller/cluster/handlers/protobufbody.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

namespace {

const QString DataDir = QStringLiteral(RECONSCOPE_TEST_DATA "/protobuf");

QByteArray readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

QByteArray varint(quint64 value)
{
    QByteArray out;
    do {
        const auto low = char(value & 0x7f);
        value >>= 7;
        out.append(value ? char(low | 0x80) : low);
    } while (value);
    return out;
}

QByteArray bytesField(int number, const QByteArray &payload)
{
    return varint(quint64(number) << 3 | 2) + varint(quint64(payload.size())) + payload;
}

QByteArray varintField(int number, quint64 value)
{
    return varint(quint64(number) << 3) + varint(value);
}

// "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw}.
QByteArray envelope(const QByteArray &apiVersion, const QByteArray &kind, const QByteArray &raw)
{
    return QByteArray("k8s\0", 4) + bytesField(1, bytesField(1, apiVersion) + bytesField(2, kind))
        + bytesField(2, raw);
}

// A Deployment whose pod spec carries `podSpec`.
QByteArray deploymentWithPodSpec(const QByteArray &podSpec)
{
    const QByteArray metadata = bytesField(1, bytesField(1, "web"));
    const QByteArray spec = bytesField(3, bytesField(2, podSpec));
    return envelope("apps/v1", "Deployment", metadata + bytesField(2, spec));
}

QString decodeError(const QByteArray &body, int &code)
{
    const auto result = protobufBodyToJson(body);
    code = result ? 200 : result.error().code;
    return result ? QString() : result.error().message;
}

} // namespace

class tst_ProtobufBody : public ApiTestCase
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void decodesAsTheTypedJsonEncoderWrites_data();
    void decodesAsTheTypedJsonEncoderWrites();
    void kubectlBodiesCreateAsTheirJson_data();
    void kubectlBodiesCreateAsTheirJson();
    void unsupportedIs415NamingIt_data();
    void unsupportedIs415NamingIt();
    void malformedIs400_data();
    void malformedIs400();
    void everyTruncationOfTheObjectIs400();
    void bodiesWithoutAnEnvelopeAsUpstreamWordsThem_data();
    void bodiesWithoutAnEnvelopeAsUpstreamWordsThem();
    void envelopeWithoutKindTakesTheEndpoints();
    void customResourcesStillRefuseProtobuf();
};

void tst_ProtobufBody::decodesAsTheTypedJsonEncoderWrites_data()
{
    QTest::addColumn<QString>("base");
    const QStringList bodies = QDir(DataDir).entryList({ u"*.pb"_s }, QDir::Files, QDir::Name);
    QVERIFY(bodies.size() >= 8);
    for (const QString &body : bodies) {
        const QString base = body.chopped(3);
        QTest::newRow(qPrintable(base)) << base;
    }
}

void tst_ProtobufBody::decodesAsTheTypedJsonEncoderWrites()
{
    QFETCH(QString, base);
    const auto decoded = protobufBodyToJson(readFile(DataDir + u'/' + base + u".pb"_s));
    QVERIFY2(decoded.ok(), decoded ? "" : qPrintable(decoded.error().message));
    const json expected = parse(readFile(DataDir + u'/' + base + u".json"_s));
    QVERIFY(expected.is_object());
    QVERIFY2(
        *decoded == expected,
        qPrintable(u"decoded:\n%1\nexpected:\n%2"_s.arg(QString::fromStdString(decoded->dump(2)),
                                                        QString::fromStdString(expected.dump(2)))));
}

void tst_ProtobufBody::kubectlBodiesCreateAsTheirJson_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("path");
    QTest::newRow("namespace") << u"kubectl-create-namespace"_s << u"/api/v1/namespaces"_s;
    QTest::newRow("configmap") << u"kubectl-create-configmap"_s
                               << u"/api/v1/namespaces/default/configmaps"_s;
    QTest::newRow("secret") << u"kubectl-create-secret"_s
                            << u"/api/v1/namespaces/default/secrets"_s;
    QTest::newRow("deployment") << u"kubectl-create-deployment"_s
                                << u"/apis/apps/v1/namespaces/default/deployments"_s;
}

// The protobuf create and the JSON create of the same object store the same object (up to the
// fields the server makes up per request).
void tst_ProtobufBody::kubectlBodiesCreateAsTheirJson()
{
    QFETCH(QString, base);
    QFETCH(QString, path);
    const QString query = u"?fieldManager=kubectl-create&fieldValidation=Strict"_s;
    const ApiResponse fromProtobuf = call("POST",
                                          path + query,
                                          readFile(DataDir + u'/' + base + u".pb"_s),
                                          "application/vnd.kubernetes.protobuf");
    QVERIFY2(fromProtobuf.status == 201, fromProtobuf.body.constData());
    Cluster jsonCluster;
    ApiServer jsonServer(&jsonCluster);
    const ApiResponse fromJson = jsonServer.handle(
        request("POST", path + query, readFile(DataDir + u'/' + base + u".json"_s)));
    QVERIFY2(fromJson.status == 201, fromJson.body.constData());
    auto comparable = [](const QByteArray &body) {
        json object = parse(body);
        object["metadata"].erase("uid");
        object["metadata"].erase("creationTimestamp");
        for (json &entry : object["metadata"]["managedFields"])
            entry.erase("time");
        return object;
    };
    QCOMPARE(dump(comparable(fromProtobuf.body)), dump(comparable(fromJson.body)));
}

void tst_ProtobufBody::unsupportedIs415NamingIt_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    QTest::newRow("PodSpec.volumes") << deploymentWithPodSpec(bytesField(1, {}))
                                     << u"protobuf field 1 of v1.PodSpec is not supported by the "
                                        "embedded cluster; send JSON"_s;
    QTest::newRow("PodSpec.securityContext")
        << deploymentWithPodSpec(bytesField(2, bytesField(1, "c")) + bytesField(14, {}))
        << u"protobuf field 14 of v1.PodSpec is not supported by the embedded cluster; send JSON"_s;
    QTest::newRow("Container.livenessProbe")
        << deploymentWithPodSpec(bytesField(2, bytesField(1, "c") + bytesField(10, {})))
        << u"protobuf field 10 of v1.Container is not supported by the embedded cluster; send "
           "JSON"_s;
    QTest::newRow("ConfigMap field 9")
        << envelope("v1", "ConfigMap", bytesField(1, {}) + varintField(9, 1))
        << u"protobuf field 9 of v1.ConfigMap is not supported by the embedded cluster; send JSON"_s;
    QTest::newRow("ObjectMeta.managedFields")
        << envelope("v1", "Namespace", bytesField(1, bytesField(17, {})))
        << u"protobuf field 17 of v1.ObjectMeta is not supported by the embedded cluster; send "
           "JSON"_s;
    QTest::newRow("kind Pod") << envelope("v1", "Pod", {})
                              << u"protobuf bodies of kind \"Pod\" (apiVersion \"v1\") are not "
                                 "supported by the embedded cluster; send JSON"_s;
    QTest::newRow("content encoding")
        << QByteArray(envelope("v1", "Namespace", {}) + bytesField(3, "gzip"))
        << u"protobuf content encoding \"gzip\" is not supported by the embedded cluster; send "
           "JSON"_s;
}

void tst_ProtobufBody::unsupportedIs415NamingIt()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    int code = 0;
    QCOMPARE(decodeError(body, code), message);
    QCOMPARE(code, 415);
    const ApiResponse response = call("POST",
                                      u"/apis/apps/v1/namespaces/default/deployments"_s,
                                      body,
                                      "application/vnd.kubernetes.protobuf");
    QCOMPARE(response.status, 415);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"UnsupportedMediaType"_s);
    QCOMPARE(str(status["message"]), message);
}

void tst_ProtobufBody::malformedIs400_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("detail");
    const QByteArray kubectl = readFile(DataDir + u"/kubectl-create-deployment.pb"_s);
    QTest::newRow("no prefix") << kubectl.mid(4)
                               << u"provided data does not appear to be a protobuf message, "
                                  "expected prefix [107 56 115 0]"_s;
    QTest::newRow("envelope cut") << kubectl.chopped(10) << u"truncated length-delimited field 2"_s;
    QTest::newRow("length past the message")
        << envelope("v1", "Namespace", bytesField(1, QByteArray("\x0a\x05web", 4)))
        << u"truncated length-delimited field 1"_s;
    QTest::newRow("unterminated varint")
        << envelope("v1", "ConfigMap", QByteArray("\x20\xff\xff", 3))
        << u"truncated varint of field 4"_s;
    QTest::newRow("name as varint") << envelope("v1", "Namespace", bytesField(1, varintField(1, 7)))
                                    << u"wrong wire type 0 for field 1 of v1.ObjectMeta"_s;
    QTest::newRow("field number 0")
        << envelope("v1", "Secret", QByteArray("\x02\x00", 2)) << u"invalid field number 0"_s;
    QTest::newRow("wire type 7") << envelope("v1", "Secret", QByteArray("\x0f", 1))
                                 << u"unsupported wire type 7 of field 1"_s;
}

void tst_ProtobufBody::malformedIs400()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, detail);
    int code = 0;
    QCOMPARE(decodeError(body, code), u"unable to decode the protobuf request body: "_s + detail);
    QCOMPARE(code, 400);
    const ApiResponse response
        = call("POST", u"/api/v1/namespaces"_s, body, "application/vnd.kubernetes.protobuf");
    QCOMPARE(response.status, 400);
}

// Cut anywhere inside the object's bytes (the envelope's raw field), kubectl's deployment body is
// a 400, never a partial object.
void tst_ProtobufBody::everyTruncationOfTheObjectIs400()
{
    const QByteArray kubectl = readFile(DataDir + u"/kubectl-create-deployment.pb"_s);
    const qsizetype rawStart = 4 + 2 + 0x15; // magic, typeMeta's tag, length and payload
    QCOMPARE(kubectl[rawStart], '\x12');
    const qsizetype rawEnd = kubectl.size() - 4; // then contentEncoding "" and contentType ""
    for (qsizetype size = rawStart + 1; size < rawEnd; ++size) {
        int code = 0;
        const QString error = decodeError(kubectl.left(size), code);
        QVERIFY2(code == 400, qPrintable(u"%1 bytes: %2 %3"_s.arg(size).arg(code).arg(error)));
    }
}

// The protobuf serializer refuses these before it reads an envelope; handlers/rest.go's
// transformDecodeError names the endpoint's kind and quotes the body in hex.
void tst_ProtobufBody::bodiesWithoutAnEnvelopeAsUpstreamWordsThem_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    const QString prefix = u"the object provided is unrecognized (must be of type ConfigMap): "_s;
    QTest::newRow("prefix only") << QByteArray("k8s\0", 4) << prefix + u"empty body (6b387300)"_s;
    QTest::newRow("empty") << QByteArray() << prefix + u"empty data (<empty>)"_s;
    QTest::newRow("no prefix") << QByteArray("k8x\0\x0a", 5)
                               << prefix
            + u"provided data does not appear to be a protobuf message, expected prefix "
              "[107 56 115 0] (6b3878000a)"_s;
}

void tst_ProtobufBody::bodiesWithoutAnEnvelopeAsUpstreamWordsThem()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    ApiRequest r = request("POST", u"/api/v1/namespaces/default/configmaps"_s);
    r.body = body;
    r.headers.append(
        qMakePair(QByteArray("content-type"), QByteArray("application/vnd.kubernetes.protobuf")));
    const ApiResponse response = m_server->handle(r);
    QCOMPARE(response.status, 400);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"BadRequest"_s);
    QCOMPARE(str(status["message"]), message);
}

// An envelope without apiVersion and kind is read as the endpoint's kind.
void tst_ProtobufBody::envelopeWithoutKindTakesTheEndpoints()
{
    const QByteArray configMap = bytesField(1, bytesField(1, "bare"));
    const ApiResponse response = call("POST",
                                      u"/api/v1/namespaces/default/configmaps"_s,
                                      envelope({}, {}, configMap),
                                      "application/vnd.kubernetes.protobuf");
    QVERIFY2(response.status == 201, response.body.constData());
    QCOMPARE(str(parse(response.body)["kind"]), u"ConfigMap"_s);
    int code = 0;
    QCOMPARE(decodeError(envelope("v1", {}, configMap), code),
             u"Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"v1\", Kind:\"\"}'"_s);
    QCOMPARE(code, 400);
}

void tst_ProtobufBody::customResourcesStillRefuseProtobuf()
{
    const ApiResponse response = call("POST",
                                      customApps,
                                      readFile(DataDir + u"/kubectl-create-namespace.pb"_s),
                                      "application/vnd.kubernetes.protobuf");
    QCOMPARE(response.status, 415);
}

QTEST_GUILESS_MAIN(tst_ProtobufBody)
#include "tst_protobufbody.moc"
