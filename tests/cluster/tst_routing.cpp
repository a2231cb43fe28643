#include "apitestsupport.h"

#include "models/yamljson.h"

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// What a path does not take: the refusals of go-restful's route selection for built-in kinds
// (405, 415, 406, as kube-apiserver's serviceErrorHandler passes them on) and the custom
// resource handler's answers to the same requests.
class tst_Routing : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void methodsAPathDoesNotRoute_data();
    void methodsAPathDoesNotRoute();
    void customResourceCreateAtAnObjectPath();
    void unproducibleAcceptIs406();
    void acceptYamlAnswersYaml();
    void unknownResourceOfAServedVersionIsAStatus();
    void selfSubjectAccessReview_data();
    void selfSubjectAccessReview();
};

// go-restful's 405 for what a built-in path does not route (NewGenericServerResponse: a fixed
// message, empty details), and the CR handler's 400 for an update or patch of a collection.
void tst_Routing::methodsAPathDoesNotRoute_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("expected");
    const QByteArray notAllowed
        = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405})"
          "\n";
    const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
    QTest::newRow("POST to a ConfigMap")
        << QByteArray("POST") << configMaps + u"/x"_s << notAllowed;
    QTest::newRow("PUT to ConfigMaps") << QByteArray("PUT") << configMaps << notAllowed;
    QTest::newRow("PATCH to ConfigMaps") << QByteArray("PATCH") << configMaps << notAllowed;
    QTest::newRow("DELETE of a Deployment status")
        << QByteArray("DELETE") << u"/apis/apps/v1/namespaces/default/deployments/d/status"_s
        << notAllowed;
    const QByteArray nameMissing
        = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"name must be provided","reason":"BadRequest","code":400})"
          "\n";
    QTest::newRow("PATCH to CustomApps") << QByteArray("PATCH") << customApps << nameMissing;
    QTest::newRow("PUT to CustomApps") << QByteArray("PUT") << customApps << nameMissing;
}

void tst_Routing::methodsAPathDoesNotRoute()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, expected);
    const QByteArray contentType
        = method == "PATCH" ? "application/merge-patch+json" : "application/json";
    const ApiResponse response = call(method, path, R"({"metadata":{"name":"x"}})", contentType);
    QCOMPARE(response.body, expected);
}

void tst_Routing::customResourceCreateAtAnObjectPath()
{
    // The CR handler creates what a POST to an object path carries, named by the body.
    const ApiResponse response = call("POST", customApps + u"/other"_s, dump(customApp("x")));
    QCOMPARE(response.status, 201);
    QCOMPARE(str(parse(response.body)["metadata"]["name"]), u"x"_s);
    QCOMPARE(call("GET", customApps + u"/x"_s).status, 200);
}

void tst_Routing::unproducibleAcceptIs406()
{
    // go-restful matches Accept against the route's types, parameters dropped; lists and watches
    // also give the watch streams.
    ApiRequest list = request("GET", u"/api/v1/namespaces/default/configmaps"_s);
    list.headers.append(qMakePair(QByteArray("accept"), QByteArray("application/x-unknown")));
    ApiResponse response = m_server->handle(list);
    QCOMPARE(response.status, 406);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch","reason":"NotAcceptable","details":{},"code":406})"
            "\n"));
    ApiRequest get = request("GET", u"/api/v1/namespaces/default/configmaps/x"_s);
    get.headers.append(qMakePair(QByteArray("accept"), QByteArray("text/html, application/*")));
    QCOMPARE(str(parse(m_server->handle(get).body)["message"]),
             u"406: Not Acceptable\n\nAvailable representations: application/json, "
             "application/yaml, application/vnd.kubernetes.protobuf"_s);
    get.headers.last().second = "text/html, application/json;as=Table;v=v1;g=meta.k8s.io";
    QCOMPARE(m_server->handle(get).status, 404);
    get.headers.last().second = "text/html;q=0.9, */*;q=0.1";
    QCOMPARE(m_server->handle(get).status, 404);
}

// Accept negotiated as kube-apiserver does: YAML when it is the preferred type the server writes,
// for objects, lists and errors of built-in and custom kinds alike; JSON when JSON comes first.
void tst_Routing::acceptYamlAnswersYaml()
{
    const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
    QCOMPARE(
        call(
            "POST",
            configMaps,
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"y"},"data":{"on":"yes","n":"1"}})")
            .status,
        201);
    createApp("app");
    const auto get = [this](const QString &path, const QByteArray &accept) {
        ApiRequest r = request("GET", path);
        r.headers.append(qMakePair(QByteArray("accept"), accept));
        return m_server->handle(r);
    };
    for (const QString &path : { configMaps + u"/y"_s, configMaps, customApps + u"/app"_s }) {
        const ApiResponse yaml = get(path, "application/yaml");
        QCOMPARE(yaml.status, 200);
        QCOMPARE(yaml.contentType, QByteArray("application/yaml"));
        const auto back = reconscope::models::yamlToJson(yaml.body);
        QVERIFY2(back.ok(), yaml.body.constData());
        const ApiResponse plain = get(path, "application/json");
        QCOMPARE(plain.contentType, QByteArray("application/json"));
        JSON_COMPARE(back.value(), parse(plain.flatBody()));
    }
    // Strings a YAML 1.1 reader would take for something else are quoted, timestamps too.
    const QByteArray object = get(configMaps + u"/y"_s, "application/yaml").body;
    QVERIFY2(object.contains("\"on\": \"yes\"") && object.contains("\"n\": \"1\"")
                 && object.contains("creationTimestamp: \""),
             object.constData());
    QVERIFY(object.startsWith("apiVersion: v1\ndata:\n"));
    QCOMPARE(get(configMaps + u"/y"_s, "application/json, application/yaml").contentType,
             QByteArray("application/json"));
    QCOMPARE(get(configMaps + u"/y"_s, "application/json;q=0.5, application/yaml").contentType,
             QByteArray("application/yaml"));
    const ApiResponse missing = get(configMaps + u"/none"_s, "application/yaml");
    QCOMPARE(missing.status, 404);
    QVERIFY2(missing.body.contains("reason: NotFound"), missing.body.constData());
}

// Inside a served group and version, go-restful's 404 is a Status with empty details; under a
// group nobody serves it is the mux's text.
void tst_Routing::unknownResourceOfAServedVersionIsAStatus()
{
    const QByteArray status
        = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404})";
    for (const QString &path :
         { u"/api/v1/namespaces/default/gizmos"_s,
           u"/api/v1/namespaces/default/customapps"_s,
           u"/apis/infrastructure.internal.net/v1/namespaces/default/widgets"_s,
           u"/api/v1/namespaces/default/configmaps/x/status"_s,
           u"/api/v1/namespaces/default/configmaps/none/sideways"_s }) {
        const ApiResponse response = call("GET", path);
        QCOMPARE(response.status, 404);
        JSON_COMPARE(parse(response.body), parse(status));
    }
    const ApiResponse plain = call("GET", u"/apis/nothing.example.com/v1/things"_s);
    QCOMPARE(plain.status, 404);
    QCOMPARE(plain.body, QByteArray("404 page not found\n"));
}

void tst_Routing::selfSubjectAccessReview_data()
{
    QTest::addColumn<bool>("asViewer");
    QTest::addColumn<QByteArray>("attributes");
    QTest::addColumn<bool>("allowed");
    const QByteArray list
        = R"({"resourceAttributes":{"verb":"list","group":"infrastructure.internal.net","resource":"customapps"}})";
    const QByteArray patch
        = R"({"resourceAttributes":{"verb":"patch","group":"apps","resource":"deployments","namespace":"demo","name":"web"}})";
    const QByteArray metrics = R"({"nonResourceAttributes":{"verb":"get","path":"/metrics"}})";
    const QByteArray version = R"({"nonResourceAttributes":{"verb":"get","path":"/version"}})";
    QTest::newRow("admin list") << false << list << true;
    QTest::newRow("admin patch") << false << patch << true;
    QTest::newRow("admin /metrics") << false << metrics << true;
    QTest::newRow("viewer list") << true << list << true;
    QTest::newRow("viewer patch") << true << patch << false;
    QTest::newRow("viewer /metrics") << true << metrics << false;
    QTest::newRow("viewer /version") << true << version << true;
}

// What kubectl auth can-i and k9s ask: the answer follows the rules requests are held to.
void tst_Routing::selfSubjectAccessReview()
{
    QFETCH(bool, asViewer);
    QFETCH(QByteArray, attributes);
    QFETCH(bool, allowed);
    const QString path = u"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"_s;
    const QByteArray body
        = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":)"
        + attributes + '}';
    const ApiResponse response = m_server->handle(
        request("POST", path, body, "application/json", asViewer ? viewer() : admin()));
    QCOMPARE(response.status, 201);
    const json review = parse(response.body);
    QCOMPARE(str(review["kind"]), u"SelfSubjectAccessReview"_s);
    JSON_COMPARE(review["spec"], parse(attributes));
    QCOMPARE(review["status"]["allowed"].get<bool>(), allowed);
    // Neither attributes, or both: 422.
    QCOMPARE(call("POST", path, R"({"spec":{}})").status, 422);
}

QTEST_GUILESS_MAIN(tst_Routing)
#include "tst_routing.moc"
