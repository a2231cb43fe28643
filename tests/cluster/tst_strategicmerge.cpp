// Strategic merge patch: strategicMergePatch() against recorded cases, and the embedded cluster's
// PATCH with application/strategic-merge-patch+json. The cases' expectations were recorded from
// k8s.io/apimachinery v0.36.0 (strategicpatch.StrategicMergeMapPatch with the k8s.io/api types
// of the kind, its errors mapped to a Status as kube-apiserver's patch handler maps them):
// data/strategicmerge/cases.json holds hand-written cases (kubectl's patches, each directive,
// each refusal), generated.json random patches of Deployments.
// tools/strategicmerge recomputes them from upstream: `go run . check` there reports any case
// whose recorded expectation upstream no longer gives, `go run . record` rewrites them.
#include "apitestsupport.h"

#include "controller/cluster/registry/strategicmerge.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using namespace reconscope::controller::cluster::testsupport;

namespace {

const QString CasesDir = QStringLiteral(RECONSCOPE_TEST_DATA "/strategicmerge");
const QString deployments = u"/apis/apps/v1/namespaces/default/deployments"_s;
const QByteArray strategic = "application/strategic-merge-patch+json";

json readCases(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    const QByteArray text = file.readAll();
    return json::parse(text.constBegin(), text.constEnd(), nullptr, false);
}

json deploymentWithTwoContainers()
{
    return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
        "spec":{"replicas":0,"selector":{"matchLabels":{"app":"d"}},
        "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[
            {"name":"app","image":"nginx:1.27"},{"name":"sidecar","image":"busybox:1.36"}]}}}})");
}

} // namespace

class tst_StrategicMerge final : public ApiTestCase
{
    Q_OBJECT

private slots:
    void cleanup() { tearDown(); }

    void recordedCases_data();
    void recordedCases();
    void fieldsUpstreamWouldHaveDroppedMergeLeniently();
    void patchDocument_data();
    void patchDocument();

    void kubectlPatchesOfBuiltinKinds();
    void refusedPatchAnswersAsKubeApiserver();
    void customResourcesAre415();
    void otherMediaTypesOfBuiltinKindsAre415();
    void scaleAndStatusSubresources();
};

void tst_StrategicMerge::recordedCases_data()
{
    QTest::addColumn<QByteArray>("testCase");
    int count = 0;
    for (const QString &file : QDir(CasesDir).entryList({ u"*.json"_s }, QDir::Files)) {
        const json cases = readCases(CasesDir + u'/' + file);
        QVERIFY2(cases.is_array(), qPrintable(file));
        for (const json &c : cases) {
            const std::string name = file.toStdString() + ": " + c.at("name").get<std::string>();
            QTest::newRow(name.c_str()) << QByteArray::fromStdString(c.dump());
            ++count;
        }
    }
    QVERIFY2(count >= 200, qPrintable(u"only %1 cases in %2"_s.arg(count).arg(CasesDir)));
}

namespace {

// Whether the result is the expected outcome: {"result":...} or {"error":{code,reason,message}}.
bool isOutcome(const ApiResult<json> &result, const json &expected, std::string *mismatch)
{
    if (expected.contains("error")) {
        const json &error = expected["error"];
        if (result) {
            *mismatch = "succeeded with " + result->dump();
            return false;
        }
        const json actual = { { "code", result.error().code },
                              { "reason", result.error().reason.toStdString() },
                              { "message", result.error().message.toStdString() } };
        *mismatch = actual.dump() + " != " + error.dump();
        return actual == error;
    }
    if (!result) {
        *mismatch = "refused: " + result.error().message.toStdString();
        return false;
    }
    *mismatch = result->dump() + " != " + expected["result"].dump();
    return *result == expected["result"];
}

} // namespace

void tst_StrategicMerge::recordedCases()
{
    QFETCH(QByteArray, testCase);
    const json c = parse(testCase);
    const StrategicSchema &schema = strategicSchemaOf(
        QString::fromStdString(c.value("group", std::string())), str(c["kind"]));
    const auto result = strategicMergePatch(c["original"], c["patch"], schema);
    std::string mismatch;
    if (!c.contains("outcomes")) {
        QVERIFY2(isOutcome(result, c, &mismatch), mismatch.c_str());
        return;
    }
    // Upstream's outcome depends on the order Go iterates the patch's members in (a
    // $deleteFromPrimitiveList beside the list it deletes from, two refusals in one patch):
    // ours must be one of those it gave.
    for (const json &outcome : c["outcomes"]) {
        if (isOutcome(result, outcome, &mismatch))
            return;
    }
    QFAIL(("none of upstream's outcomes: " + mismatch).c_str());
}

void tst_StrategicMerge::fieldsUpstreamWouldHaveDroppedMergeLeniently()
{
    // Upstream's typed decoding drops unknown fields before a patch meets them (and refuses a
    // patch that merges into one); the embedded cluster keeps them for built-in kinds, so they
    // merge as untagged fields do.
    const json original = json::parse(
        R"({"metadata":{"name":"c"},"extra":{"a":{"b":1,"c":[1,2]},"list":[{"name":"x","v":1}]}})");
    const json patch = json::parse(R"({"extra":{"a":{"d":2,"c":[3]},"list":[{"name":"y"}]}})");
    const auto result
        = strategicMergePatch(original, patch, strategicSchemaOf(QString(), u"ConfigMap"_s));
    QVERIFY(result);
    JSON_COMPARE(*result, json::parse(R"({"metadata":{"name":"c"},
                     "extra":{"a":{"b":1,"c":[3],"d":2},"list":[{"name":"y"}]}})"));
}

void tst_StrategicMerge::patchDocument_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("error"); // empty: accepted
    QTest::addColumn<QByteArray>("document");
    const QString prefix = u"json: cannot unmarshal "_s;
    const QString suffix = u" into Go value of type map[string]interface {}"_s;
    QTest::newRow("object") << QByteArray(R"({"a":1})") << QString() << QByteArray(R"({"a":1})");
    QTest::newRow("null is the empty patch") << QByteArray("null") << QString() << QByteArray("{}");
    QTest::newRow("array") << QByteArray("[1]") << prefix + u"array"_s + suffix << QByteArray();
    QTest::newRow("string") << QByteArray(R"("x")") << prefix + u"string"_s + suffix
                            << QByteArray();
    QTest::newRow("number") << QByteArray("3") << prefix + u"number"_s + suffix << QByteArray();
    QTest::newRow("bool") << QByteArray("true") << prefix + u"bool"_s + suffix << QByteArray();
}

void tst_StrategicMerge::patchDocument()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, error);
    QFETCH(QByteArray, document);
    const auto decoded = strategicPatchDocument(parse(body));
    if (error.isEmpty()) {
        QVERIFY(decoded);
        JSON_COMPARE(*decoded, parse(document));
    } else {
        QVERIFY(!decoded);
        QCOMPARE(decoded.error().code, 400);
        QCOMPARE(decoded.error().reason, u"BadRequest"_s);
        QCOMPARE(decoded.error().message, error);
    }
}

// The requests of the fidelity scenario kubectl-patches, answered as kube-apiserver answered them.
void tst_StrategicMerge::kubectlPatchesOfBuiltinKinds()
{
    setUp();
    QCOMPARE(call("POST", deployments, dump(deploymentWithTwoContainers())).status, 201);
    const QString d = deployments + u"/d"_s;
    const auto patched = [&](const QString &path, const char *patch) {
        const ApiResponse response = call("PATCH", path, patch, strategic);
        if (response.status != 200)
            qWarning("%s", response.body.constData());
        return response.status == 200 ? parse(response.body) : json();
    };
    json object = patched(d, R"({"metadata":{"labels":{"team":"a"}}})");
    JSON_COMPARE(object["metadata"]["labels"], json({ { "team", "a" } }));
    object = patched(d, R"({"metadata":{"annotations":{"owner":"sre"}}})");
    JSON_COMPARE(object["metadata"]["annotations"], json({ { "owner", "sre" } }));
    JSON_COMPARE(object["metadata"]["labels"], json({ { "team", "a" } }));
    object = patched(
        d,
        R"({"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"}}}}})");
    JSON_COMPARE(object["spec"]["template"]["metadata"],
                 json::parse(R"({"labels":{"app":"d"},"annotations":
                     {"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"}})"));
    object = patched(
        d,
        R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.37"}]}}}})");
    // (Each container also carries the defaults of its Go type, tst_builtindefaults' part.)
    const auto namesAndImages = [](const json &containers) {
        json projected = json::array();
        for (const json &c : containers)
            projected.push_back({ { "name", c["name"] }, { "image", c["image"] } });
        return projected;
    };
    JSON_COMPARE(namesAndImages(object["spec"]["template"]["spec"]["containers"]),
                 json::parse(R"([{"name":"app","image":"nginx:1.27"},
                     {"name":"sidecar","image":"busybox:1.37"}])"));
    // As on kube-apiserver: the annotation, the restart and the image each bumped it (a
    // Deployment's annotations count, its labels do not).
    QCOMPARE(object["metadata"]["generation"].get<int>(), 4);
    object = patched(
        d,
        R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}})");
    JSON_COMPARE(namesAndImages(object["spec"]["template"]["spec"]["containers"]),
                 json::parse(R"([{"name":"app","image":"nginx:1.27"}])"));
    JSON_COMPARE(parse(call("GET", d).body), object);

    const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
    QCOMPARE(
        call(
            "POST",
            configMaps,
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"k":"v"}})")
            .status,
        201);
    object = patched(configMaps + u"/c"_s, R"({"metadata":{"labels":{"b":"2","a":null}}})");
    JSON_COMPARE(object["metadata"]["labels"], json({ { "b", "2" } }));
    JSON_COMPARE(object["data"], json({ { "k", "v" } }));

    object = patched(u"/api/v1/namespaces/default"_s, R"({"metadata":{"labels":{"env":"test"}}})");
    JSON_COMPARE(object["metadata"]["labels"],
                 json({ { "env", "test" }, { "kubernetes.io/metadata.name", "default" } }));
}

void tst_StrategicMerge::refusedPatchAnswersAsKubeApiserver()
{
    setUp();
    const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
    QCOMPARE(
        call("POST",
             configMaps,
             R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}})")
            .status,
        201);
    const QString c = configMaps + u"/c"_s;
    const json before = parse(call("GET", c).body);
    ApiResponse response = call("PATCH", c, R"({"data":{"$patch":"explode"}})", strategic);
    QCOMPARE(response.status, 500);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unknown patch type: explode in map: map[$patch:explode]","code":500})"
            "\n"));
    response = call("PATCH", c, R"({"metadata":{"$setElementOrder":[]}})", strategic);
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"invalid patch format of setElementOrder list"_s);
    response = call("PATCH", c, "[]", strategic);
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"json: cannot unmarshal array into Go value of type map[string]interface {}"_s);
    JSON_COMPARE(parse(call("GET", c).body), before);
    // An empty (null) patch changes nothing and answers the object.
    response = call("PATCH", c, "null", strategic);
    QCOMPARE(response.status, 200);
    JSON_COMPARE(parse(response.body), before);
}

void tst_StrategicMerge::customResourcesAre415()
{
    setUp();
    createApp("web");
    const ApiResponse response
        = call("PATCH", customApps + u"/web"_s, R"({"spec":{"replicas":3}})", strategic);
    QCOMPARE(response.status, 415);
    QCOMPARE(response.body, customResourcePatch415);
    QCOMPARE(call("PATCH", customApps + u"/web/status"_s, R"({"status":{}})", strategic).status,
             415);
    // In process, below the handler: strategicpatch's own refusal of an untagged object.
    const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
    const auto result = m_cluster->patch(
        apps, u"default"_s, u"web"_s, PatchType::Strategic, R"({"spec":{"replicas":3}})");
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, 400);
    QCOMPARE(result.error().message, u"strategic merge patch format is not supported"_s);
}

void tst_StrategicMerge::otherMediaTypesOfBuiltinKindsAre415()
{
    setUp();
    QCOMPARE(call("POST", deployments, dump(deploymentWithTwoContainers())).status, 201);
    // go-restful refuses what the PATCH route does not consume before the handler runs; no
    // Content-Type is taken for application/octet-stream.
    const QByteArray refused
        = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415})"
          "\n";
    for (const QByteArray &type : { QByteArray("text/plain"), QByteArray("application/json") }) {
        const ApiResponse response = call("PATCH", deployments + u"/d"_s, "{}", type);
        QCOMPARE(response.status, 415);
        QCOMPARE(response.body, refused);
    }
    ApiRequest untyped = request("PATCH", deployments + u"/d"_s, "{}");
    untyped.headers.clear();
    QCOMPARE(m_server->handle(untyped).body, refused);
}

void tst_StrategicMerge::scaleAndStatusSubresources()
{
    setUp();
    QCOMPARE(call("POST", deployments, dump(deploymentWithTwoContainers())).status, 201);
    ApiResponse response
        = call("PATCH", deployments + u"/d/scale"_s, R"({"spec":{"replicas":4}})", strategic);
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["spec"]["replicas"].get<int>(), 4);
    response = call("PATCH",
                    deployments + u"/d/status"_s,
                    R"({"status":{"conditions":[{"type":"Available","status":"True"}]}})",
                    strategic);
    QCOMPARE(response.status, 200);
    response = call("PATCH",
                    deployments + u"/d/status"_s,
                    R"({"status":{"conditions":[{"type":"Progressing","status":"True"}]}})",
                    strategic);
    QCOMPARE(response.status, 200);
    JSON_COMPARE(parse(response.body)["status"]["conditions"],
                 json::parse(R"([{"type":"Progressing","status":"True",
                      "lastUpdateTime":null,"lastTransitionTime":null},
                     {"type":"Available","status":"True",
                      "lastUpdateTime":null,"lastTransitionTime":null}])"));
    JSON_COMPARE(parse(response.body)["spec"]["replicas"], 4);
}

QTEST_GUILESS_MAIN(tst_StrategicMerge)
#include "tst_strategicmerge.moc"
