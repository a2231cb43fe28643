// Hostile input to the embedded cluster's API (issue 9): oversized bodies and objects, malformed,
// deeply nested and non-UTF-8 JSON, wrong content types and invalid objects. Each is refused with
// upstream's status and Status body, and changes nothing: the resourceVersion counter, the stored
// object and the watch stream stay as they were.

#include "apitestsupport.h"
#include "controller/cluster/objectjson.h"

#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

class tst_HostileRequests final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void oversizedBodyIs413();
    void objectOverStorageLimitIsRefused_data();
    void objectOverStorageLimitIsRefused();
    void malformedJsonIs400_data();
    void malformedJsonIs400();
    void customResourceWithoutKindIs400();
    void undecodablePatchOrQueryIs400_data();
    void undecodablePatchOrQueryIs400();
    void deeplyNestedJsonIs400_data();
    void deeplyNestedJsonIs400();
    void nestingBelowTheLimitIsAccepted();
    void wrongContentTypeIs415_data();
    void wrongContentTypeIs415();
    void invalidUtf8IsReplacedAsGoDoes();
    void jsonPatchBelowAScalarIs422_data();
    void jsonPatchBelowAScalarIs422();
    void invalidObjectIs422_data();
    void invalidObjectIs422();

private:
    // A PUT body that parses gets the stored object's resourceVersion (custom resources need it).
    ApiResponse call(const QByteArray &method,
                     const QString &path,
                     const QByteArray &body = {},
                     const QByteArray &contentType = "application/json")
    {
        QByteArray sent = body;
        if (method == "PUT" && contentType == "application/json") {
            json object = parse(body);
            if (object.is_object()) {
                const json stored = parse(m_server->handle(request("GET", path)).body);
                object["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"];
                sent = dump(object);
            }
        }
        return m_server->handle(request(method, path, sent, contentType));
    }
    // Records what the cluster looks like before a hostile request.
    void snapshot();
    // Fails the test when anything changed since snapshot().
    void verifyUnchanged();
    void refusedWith400();

    std::unique_ptr<Cluster> m_cluster;
    std::unique_ptr<ApiServer> m_server;
    std::shared_ptr<CollectingSink> m_watch;
    int m_events = 0;
    qint64 m_revision = 0;
    QByteArray m_stored;
    qsizetype m_objects = 0;
};

namespace {

const QString webPath = customApps + u"/web"_s;

QByteArray statusBody(int code, const char *reason, const QString &message)
{
    nlohmann::ordered_json status = { { "kind", "Status" },
                                      { "apiVersion", "v1" },
                                      { "metadata", nlohmann::ordered_json::object() },
                                      { "status", "Failure" },
                                      { "message", message.toStdString() } };
    if (reason)
        status["reason"] = reason;
    status["code"] = code;
    return QByteArray::fromStdString(status.dump()) + '\n';
}

QByteArray appWithConfig(const std::string &name, qsizetype configBytes)
{
    json app = customApp(name);
    app["spec"]["configJSON"] = std::string(std::size_t(configBytes), 'x');
    return dump(app);
}

QByteArray nested(int depth, const QByteArray &inner = "1")
{
    return QByteArray(depth, '[') + inner + QByteArray(depth, ']');
}

} // namespace

void tst_HostileRequests::init()
{
    m_cluster = std::make_unique<Cluster>();
    m_server = std::make_unique<ApiServer>(m_cluster.get());
    QCOMPARE(call("POST", customApps, dump(customApp("web"))).status, 201);
    m_events = 0;
    m_cluster->subscribe([this](const ClusterEvent &) { ++m_events; });
    const ApiResponse watch = call(
        "GET",
        customApps + u"?watch=1&resourceVersion=%1"_s.arg(m_cluster->currentResourceVersion()));
    QCOMPARE(watch.status, 200);
    m_watch = startWatch(watch);
    snapshot();
}

void tst_HostileRequests::cleanup()
{
    if (m_watch && m_watch->stream)
        m_watch->stream->cancel();
    m_watch.reset();
    m_server.reset();
    m_cluster.reset();
}

void tst_HostileRequests::snapshot()
{
    m_revision = m_cluster->currentResourceVersion();
    m_stored = call("GET", webPath).body;
    m_objects = m_cluster->objectCount();
}

void tst_HostileRequests::verifyUnchanged()
{
    QCoreApplication::processEvents();
    QCOMPARE(m_cluster->currentResourceVersion(), m_revision);
    QCOMPARE(m_events, 0);
    QCOMPARE(m_watch->lines.size(), 0);
    QCOMPARE(m_cluster->objectCount(), m_objects);
    QCOMPARE(call("GET", webPath).body, m_stored);
}

void tst_HostileRequests::oversizedBodyIs413()
{
    // kube-apiserver's MaxRequestBodyBytes: 3 MiB, refused before decoding.
    QCOMPARE(ApiServer::maxBodyBytes, qsizetype(3 * 1024 * 1024));
    const QByteArray body = appWithConfig("huge", 3 * 1024 * 1024);
    for (const QByteArray &method : { QByteArray("POST"), QByteArray("PUT") }) {
        const ApiResponse response = call(method, method == "POST" ? customApps : webPath, body);
        QCOMPARE(response.status, 413);
        QCOMPARE(response.body,
                 statusBody(413,
                            "RequestEntityTooLarge",
                            u"Request entity too large: limit is 3145728"_s));
    }
    const ApiResponse patch = call("PATCH",
                                   webPath,
                                   R"({"spec":{"configJSON":")" + QByteArray(3 << 20, 'x') + "\"}}",
                                   "application/merge-patch+json");
    QCOMPARE(patch.status, 413);
    verifyUnchanged();
}

void tst_HostileRequests::objectOverStorageLimitIsRefused_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    const qsizetype size = 1536 * 1024 + 1;
    QTest::newRow("create") << QByteArray("POST") << customApps << appWithConfig("big", size)
                            << QByteArray("application/json");
    QTest::newRow("update") << QByteArray("PUT") << webPath << appWithConfig("web", size)
                            << QByteArray("application/json");
    QTest::newRow("merge patch") << QByteArray("PATCH") << webPath
                                 << QByteArray(R"({"spec":{"configJSON":")" + QByteArray(size, 'y')
                                               + "\"}}")
                                 << QByteArray("application/merge-patch+json");
    QTest::newRow("json patch") << QByteArray("PATCH") << webPath
                                << QByteArray(R"([{"op":"add","path":"/spec/configJSON","value":")"
                                              + QByteArray(size, 'z') + "\"}]")
                                << QByteArray("application/json-patch+json");
}

void tst_HostileRequests::objectOverStorageLimitIsRefused()
{
    // Under the 3 MiB body limit but over etcd's 1.5 MiB request limit: etcd refuses the write
    // and kube-apiserver passes its error on as a 500 Status without a reason.
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QVERIFY(body.size() < ApiServer::maxBodyBytes);
    const ApiResponse response = call(method, path, body, contentType);
    QCOMPARE(response.status, 500);
    QCOMPARE(response.body, statusBody(500, nullptr, u"etcdserver: request is too large"_s));
    verifyUnchanged();

    // Just under the limit is stored.
    const ApiResponse fits = call("PUT", webPath, appWithConfig("web", 1024 * 1024));
    QCOMPARE(fits.status, 200);
}

void tst_HostileRequests::malformedJsonIs400_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    const QByteArray whole = dump(customApp("web"));
    // handlers/rest.go's transformDecodeError: the kind, the decoder's error, the body's summary.
    const QString prefix = u"the object provided is unrecognized (must be of type CustomApp): "
                           "couldn't get version/kind; json parse error: "_s;
    QTest::newRow("truncated") << whole.left(whole.size() / 2)
                               << prefix + u"unexpected end of JSON input ("_s
            + QString::fromUtf8(whole.left(30)) + u" ...)"_s;
    QTest::newRow("garbage") << QByteArray("<html>nope</html>")
                             << prefix
            + u"invalid character '<' looking for beginning of value "
              "(3c68746d6c3e6e6f70653c2f68746d6c3e)"_s;
    QTest::newRow("empty") << QByteArray(" ") << prefix + u"unexpected end of JSON input (20)"_s;
    QTest::newRow("nothing") << QByteArray()
                             << prefix + u"unexpected end of JSON input (<empty>)"_s;
    QTest::newRow("array") << QByteArray("[1,2]")
                           << prefix
            + u"json: cannot unmarshal array into Go value of type struct { APIVersion string "
              "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" "
              "} "
              "(5b312c325d)"_s;
    QTest::newRow("key not a string") << QByteArray("{not json}")
                                      << prefix
            + u"invalid character 'n' looking for beginning of object key string ({not json})"_s;
    const QByteArray longBody = R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": )";
    QTest::newRow("long object") << longBody
                                 << prefix + u"unexpected end of JSON input ("_s
            + QString::fromUtf8(longBody.left(30)) + u" ...)"_s;
}

void tst_HostileRequests::malformedJsonIs400()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    for (const QByteArray &method : { QByteArray("POST"), QByteArray("PUT") }) {
        const ApiResponse response = call(method, method == "POST" ? customApps : webPath, body);
        QCOMPARE(response.status, 400);
        const json status = parse(response.body);
        QCOMPARE(str(status["reason"]), u"BadRequest"_s);
        QCOMPARE(str(status["message"]), message);
    }
    // A request without a body carries no Content-Type, which no patch type is.
    const QList<QByteArray> patchTypes = body.isEmpty()
        ? QList<QByteArray>{}
        : QList<QByteArray>{ "application/merge-patch+json", "application/json-patch+json" };
    for (const QByteArray &type : patchTypes) {
        const ApiResponse patch = call("PATCH", webPath, body, type);
        QCOMPARE(patch.status, 400);
        QCOMPARE(str(parse(patch.body)["reason"]), u"BadRequest"_s);
    }
    verifyUnchanged();
}

// The unstructured decoder requires a kind and quotes the body as the client sent it (spacing and
// member order kept), which transformDecodeError then summarizes.
void tst_HostileRequests::customResourceWithoutKindIs400()
{
    const QByteArray body = R"({"apiVersion": "infrastructure.internal.net/v1", "metadata": )"
                            R"({"name": "web"}, "spec": {"image": "x"}})";
    const QString expected = u"the object provided is unrecognized (must be of type CustomApp): "
                             "Object 'Kind' is missing in '"_s
        + QString::fromUtf8(body) + u"' ("_s + QString::fromUtf8(body.left(30)) + u" ...)"_s;
    for (const QByteArray &method : { QByteArray("POST"), QByteArray("PUT") }) {
        // As sent: call() would add a resourceVersion to the PUT.
        const ApiResponse response
            = m_server->handle(request(method, method == "POST" ? customApps : webPath, body));
        QCOMPARE(response.status, 400);
        const json status = parse(response.body);
        QCOMPARE(str(status["reason"]), u"BadRequest"_s);
        QCOMPARE(str(status["message"]), expected);
    }
    verifyUnchanged();
}

// The 400s of a patch or a query parameter the server cannot read, in encoding/json's and
// strconv's words as kube-apiserver passes them on.
void tst_HostileRequests::undecodablePatchOrQueryIs400_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("message");
    const QByteArray merge = "application/merge-patch+json";
    const QByteArray jsonPatch = "application/json-patch+json";
    QTest::newRow("merge patch cut short")
        << QByteArray("PATCH") << webPath << QByteArray(R"({"data": )") << merge
        << u"error decoding patch: unexpected end of JSON input"_s;
    QTest::newRow("merge patch array")
        << QByteArray("PATCH") << webPath << QByteArray("[1]") << merge
        << u"error decoding patch: json: cannot unmarshal array into Go value of type "
           "map[string]interface {}"_s;
    QTest::newRow("merge patch null")
        << QByteArray("PATCH") << webPath << QByteArray("null") << merge << u"Invalid JSON Patch"_s;
    QTest::newRow("merge patch, missing comma")
        << QByteArray("PATCH") << webPath << QByteArray(R"({"a": 1 "b": 2})") << merge
        << u"error decoding patch: invalid character '\"' after object key:value pair"_s;
    QTest::newRow("json patch object")
        << QByteArray("PATCH") << webPath << QByteArray(R"({"op": "add"})") << jsonPatch
        << u"error decoding patch: json: cannot unmarshal object into Go value of type "
           "[]handlers.jsonPatchOp"_s;
    QTest::newRow("json patch element")
        << QByteArray("PATCH") << webPath << QByteArray(R"([1])") << jsonPatch
        << u"error decoding patch: json: cannot unmarshal number into Go value of type "
           "handlers.jsonPatchOp"_s;
    QTest::newRow("json patch object, validation ignored")
        << QByteArray("PATCH") << webPath + u"?fieldValidation=Ignore"_s
        << QByteArray(R"({"op": "add"})") << jsonPatch
        << u"json: cannot unmarshal object into Go value of type jsonpatch.Patch"_s;
    QTest::newRow("json patch literal")
        << QByteArray("PATCH") << webPath << QByteArray("[tru]") << jsonPatch
        << u"error decoding patch: invalid character ']' in literal true (expecting 'e')"_s;
    QTest::newRow("limit") << QByteArray("GET") << customApps + u"?limit=ten"_s << QByteArray()
                           << QByteArray()
                           << u"strconv.ParseInt: parsing \"ten\": invalid syntax"_s;
    QTest::newRow("limit out of range")
        << QByteArray("GET") << customApps + u"?limit=99999999999999999999"_s << QByteArray()
        << QByteArray()
        << u"strconv.ParseInt: parsing \"99999999999999999999\": value out of range"_s;
    QTest::newRow("limit with a space")
        << QByteArray("GET") << customApps + u"?limit=%201"_s << QByteArray() << QByteArray()
        << u"strconv.ParseInt: parsing \" 1\": invalid syntax"_s;
    QTest::newRow("timeoutSeconds")
        << QByteArray("GET") << customApps + u"?watch=1&timeoutSeconds=soon"_s << QByteArray()
        << QByteArray() << u"strconv.ParseInt: parsing \"soon\": invalid syntax"_s;
    QTest::newRow("continue token not JSON")
        << QByteArray("GET") << customApps + u"?limit=3&continue=bm90LWEtdG9rZW4"_s << QByteArray()
        << QByteArray()
        << u"invalid continue token: continue key is not valid: invalid character 'o' in "
           "literal null (expecting 'u')"_s;
    QTest::newRow("continue token an array")
        << QByteArray("GET")
        << customApps + u"?limit=3&continue="_s + QString::fromLatin1(QByteArray("[1]").toBase64())
        << QByteArray() << QByteArray()
        << u"invalid continue token: continue key is not valid: json: cannot unmarshal array "
           "into Go value of type storage.continueToken"_s;
}

// The row's request (method, path, body, contentType) is refused with 400 and the row's message,
// the stored objects left as they were.
void tst_HostileRequests::refusedWith400()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QString, message);
    const ApiResponse response = call(method, path, body, contentType);
    QCOMPARE(response.status, 400);
    QCOMPARE(response.body, statusBody(400, "BadRequest", message));
    verifyUnchanged();
}

void tst_HostileRequests::undecodablePatchOrQueryIs400()
{
    refusedWith400();
}

void tst_HostileRequests::deeplyNestedJsonIs400_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("message");
    const int depth = objectjson::maxJsonNesting; // plus the object around it: one too many
    const QByteArray deep = R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",)"
                            R"("metadata":{"name":"deep"},"spec":{"image":"x","raw":)"
        + nested(depth) + "}}";
    QTest::newRow("create") << QByteArray("POST") << customApps << deep
                            << QByteArray("application/json")
                            << u"the object provided is unrecognized (must be of type CustomApp): "
                               "couldn't get version/kind; json parse error: invalid character "
                               "'[' exceeded max depth ("_s
            + QString::fromUtf8(deep.left(30)) + u" ...)"_s;
    QTest::newRow("merge patch") << QByteArray("PATCH") << webPath
                                 << QByteArray(R"({"spec":{"raw":)" + nested(depth) + "}}")
                                 << QByteArray("application/merge-patch+json")
                                 << u"error decoding patch: invalid character '[' exceeded max "
                                    "depth"_s;
    QTest::newRow("objects") << QByteArray("PATCH") << webPath
                             << QByteArray(R"({"spec":)"
                                           + QByteArray(depth, '{').replace("{", R"({"a":)") + "1"
                                           + QByteArray(depth, '}') + "}")
                             << QByteArray("application/merge-patch+json")
                             << u"error decoding patch: invalid character '{' exceeded max "
                                "depth"_s;
}

void tst_HostileRequests::deeplyNestedJsonIs400()
{
    refusedWith400();
}

void tst_HostileRequests::nestingBelowTheLimitIsAccepted()
{
    // Brackets inside strings do not count, and a deep but legal value is pruned as unknown.
    const QByteArray body = R"({"spec":{"configJSON":")" + QByteArray(20000, '[') + R"(","raw":)"
        + nested(500) + "}}";
    const ApiResponse response = call("PATCH", webPath, body, "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    const json object = parse(response.body);
    QCOMPARE(object["spec"]["configJSON"].get<std::string>().size(), std::size_t(20000));
    QVERIFY(!object["spec"].contains("raw"));
}

void tst_HostileRequests::wrongContentTypeIs415_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("accepted");
    const QString cr = u"application/json, application/yaml"_s;
    const QString builtin = cr + u", application/vnd.kubernetes.protobuf"_s;
    const QByteArray app = dump(customApp("other"));
    QTest::newRow("text/plain create")
        << QByteArray("POST") << customApps << app << QByteArray("text/plain") << cr;
    QTest::newRow("form update") << QByteArray("PUT") << webPath << dump(customApp("web"))
                                 << QByteArray("application/x-www-form-urlencoded") << cr;
    QTest::newRow("protobuf for a custom resource")
        << QByteArray("POST") << customApps << app
        << QByteArray("application/vnd.kubernetes.protobuf") << cr;
    QTest::newRow("built-in configmap")
        << QByteArray("POST") << u"/api/v1/namespaces/default/configmaps"_s
        << QByteArray(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")
        << QByteArray("text/html; charset=utf-8") << builtin;
    QTest::newRow("malformed media type")
        << QByteArray("POST") << customApps << app << QByteArray("json") << cr;
}

void tst_HostileRequests::wrongContentTypeIs415()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QString, accepted);
    const ApiResponse response = call(method, path, body, contentType);
    QCOMPARE(response.status, 415);
    QCOMPARE(response.body,
             statusBody(415,
                        "UnsupportedMediaType",
                        u"the body of the request was in an unknown format - accepted media types "
                        "include: "_s
                            + accepted));
    verifyUnchanged();

    // The media type is matched without its parameters and case-insensitively.
    const ApiResponse json
        = call("POST", customApps, dump(customApp("cased")), "Application/JSON; charset=utf-8");
    QCOMPARE(json.status, 201);
}

void tst_HostileRequests::invalidUtf8IsReplacedAsGoDoes()
{
    // Go's encoding/json does not refuse invalid UTF-8 inside strings: each invalid byte is
    // decoded as U+FFFD. The stored object is valid UTF-8.
    const QByteArray body = R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",)"
                            R"("metadata":{"name":"utf"},"spec":{"image":"nginx:)"
                            "\xff"
                            R"(","configJSON":"caf)"
                            "\xc3\xa9"
                            R"("}})";
    const ApiResponse created = call("POST", customApps, body);
    QCOMPARE(created.status, 201);
    const json object = parse(created.body);
    QCOMPARE(object["spec"]["image"].get<std::string>(), std::string("nginx:\xef\xbf\xbd"));
    QCOMPARE(object["spec"]["configJSON"].get<std::string>(), std::string("caf\xc3\xa9"));
    const ApiResponse got = call("GET", customApps + u"/utf"_s);
    QVERIFY(QUtf8StringView(got.body).isValidUtf8());

    const ApiResponse patched = call(
        "PATCH", webPath, "{\"spec\":{\"image\":\"a\xfe\"}}", "application/merge-patch+json");
    QCOMPARE(patched.status, 200);
    QCOMPARE(parse(patched.body)["spec"]["image"].get<std::string>(), std::string("a\xef\xbf\xbd"));
}

void tst_HostileRequests::jsonPatchBelowAScalarIs422_data()
{
    QTest::addColumn<QByteArray>("body");
    // nlohmann's patch() asserts on these (fuzz_patch found the first); json-patch refuses them.
    QTest::newRow("add below a number")
        << QByteArray(R"([{"op":"add","path":"/metadata/generation/-","value":"a/b"}])");
    QTest::newRow("add below a string")
        << QByteArray(R"([{"op":"add","path":"/spec/image/x","value":1}])");
    QTest::newRow("remove below a number")
        << QByteArray(R"([{"op":"remove","path":"/spec/replicas/0"}])");
    QTest::newRow("move from below a string")
        << QByteArray(R"([{"op":"move","from":"/spec/image/x","path":"/spec/y"}])");
    QTest::newRow("below what an earlier operation made a string")
        << QByteArray(R"([{"op":"add","path":"/spec/z","value":"s"},)"
                      R"({"op":"add","path":"/spec/z/0","value":1}])");
}

void tst_HostileRequests::jsonPatchBelowAScalarIs422()
{
    QFETCH(QByteArray, body);
    for (const QString &path : { webPath, webPath + u"/status"_s }) {
        const ApiResponse response = call("PATCH", path, body, "application/json-patch+json");
        QCOMPARE(response.status, 422);
        QCOMPARE(str(parse(response.body)["reason"]), u"Invalid"_s);
    }
    verifyUnchanged();
}

void tst_HostileRequests::invalidObjectIs422_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QString>("field");
    json wrongType = customApp("web");
    wrongType["spec"]["replicas"] = "two";
    json tooMany = customApp("bad");
    tooMany["spec"]["replicas"] = 1000;
    json badName = customApp("Not_A_Name");
    QTest::newRow("update wrong type") << QByteArray("PUT") << webPath << dump(wrongType)
                                       << QByteArray("application/json") << u"spec.replicas"_s;
    QTest::newRow("create over maximum") << QByteArray("POST") << customApps << dump(tooMany)
                                         << QByteArray("application/json") << u"spec.replicas"_s;
    QTest::newRow("create bad name") << QByteArray("POST") << customApps << dump(badName)
                                     << QByteArray("application/json") << u"metadata.name"_s;
    QTest::newRow("patch removes required")
        << QByteArray("PATCH") << webPath << QByteArray(R"({"spec":{"image":null}})")
        << QByteArray("application/merge-patch+json") << u"spec.image"_s;
    QTest::newRow("json patch wrong type")
        << QByteArray("PATCH") << webPath
        << QByteArray(R"([{"op":"add","path":"/spec/port","value":"http"}])")
        << QByteArray("application/json-patch+json") << u"spec.port"_s;
}

void tst_HostileRequests::invalidObjectIs422()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QString, field);
    const ApiResponse response = call(method, path, body, contentType);
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"Invalid"_s);
    bool named = false;
    const json causes = status.value("details", json::object()).value("causes", json::array());
    for (const json &cause : causes)
        named = named || cause.value("field", std::string()) == field.toStdString();
    QVERIFY2(named, response.body.constData());
    verifyUnchanged();
}

QTEST_GUILESS_MAIN(tst_HostileRequests)
#include "tst_hostilerequests.moc"
