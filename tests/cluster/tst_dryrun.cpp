#include "apitestsupport.h"

#include <QUuid>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// Server-side dry run (`dryRun=All`) as kube-apiserver does it [AS registry/generic/registry/
// dryrun.go, endpoints/handlers; AM apis/meta/v1/validation ValidateDryRun]: the whole request
// runs (admission, defaulting, validation, generation and status-subresource rules,
// preconditions), the answer is what a real write would answer, and nothing is stored: no
// revision is used, no watch event is sent, no subscriber is called.
class tst_DryRun : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void createAnswersThePreparedObject();
    void createRunsAdmissionAndValidation();
    void createWithResourceVersionIsEchoed();
    void updateAndPatchApplyGenerationRules();
    void statusSubresourceRules();
    void stalePreconditionsStillConflict();
    void deleteAnswersAsARealDelete();
    void deleteWithFinalizersAnswersTheDeletingObject();
    void deleteCollectionDeletesNothing();
    void builtinKinds();
    void invalidDryRunValues_data();
    void invalidDryRunValues();
    void nothingIsStoredOrSent();

private:
    int m_subscription = 0;
    int m_events = 0;
};

void tst_DryRun::init()
{
    setUp();
    m_events = 0;
    m_subscription = m_cluster->subscribe([this](const ClusterEvent &) { ++m_events; });
}

void tst_DryRun::cleanup()
{
    m_cluster->unsubscribe(m_subscription);
    tearDown();
}

void tst_DryRun::createAnswersThePreparedObject()
{
    const qint64 before = m_cluster->currentResourceVersion();
    const qsizetype objects = m_cluster->objectCount();
    json object = customApp("dry");
    object["spec"].erase("replicas");
    object["metadata"]["uid"] = "client-uid";
    object["status"] = { { "readyReplicas", 3 } };
    const ApiResponse response = call("POST", customApps + u"?dryRun=All"_s, dump(object));
    QCOMPARE(response.status, 201);
    const json created = parse(response.body);
    // System fields are filled as for a real create; no resourceVersion is assigned.
    QVERIFY(!QUuid::fromString(str(created["metadata"]["uid"])).isNull());
    QVERIFY(str(created["metadata"]["uid"]) != u"client-uid");
    QVERIFY(!str(created["metadata"]["creationTimestamp"]).isEmpty());
    QCOMPARE(created["metadata"]["generation"].get<int>(), 1);
    QCOMPARE(str(created["metadata"]["namespace"]), u"default"_s);
    QVERIFY(!created["metadata"].contains("resourceVersion"));
    // Defaulting ran (spec.replicas defaults to 1), the status subresource dropped .status.
    QCOMPARE(created["spec"]["replicas"].get<int>(), 1);
    QVERIFY(!created.contains("status"));
    QCOMPARE(call("GET", customApps + u"/dry"_s).status, 404);
    QCOMPARE(m_cluster->currentResourceVersion(), before);

    // generateName is resolved too.
    json generated = customApp("");
    generated["metadata"].erase("name");
    generated["metadata"]["generateName"] = "gen-";
    const ApiResponse named = call("POST", customApps + u"?dryRun=All"_s, dump(generated));
    QCOMPARE(named.status, 201);
    QVERIFY(str(parse(named.body)["metadata"]["name"]).startsWith(u"gen-"));
    QCOMPARE(m_cluster->objectCount(), objects);
}

void tst_DryRun::createRunsAdmissionAndValidation()
{
    // Schema validation.
    json invalid = customApp("bad");
    invalid["spec"]["replicas"] = 1000;
    ApiResponse response = call("POST", customApps + u"?dryRun=All"_s, dump(invalid));
    QCOMPARE(response.status, 422);
    QCOMPARE(str(parse(response.body)["reason"]), u"Invalid"_s);
    // Namespace admission.
    response
        = call("POST",
               u"/apis/infrastructure.internal.net/v1/namespaces/nowhere/customapps?dryRun=All"_s,
               dump(customApp("x")));
    QCOMPARE(response.status, 404);
    QCOMPARE(str(parse(response.body)["message"]), u"namespaces \"nowhere\" not found"_s);
    // Existence.
    createApp("taken");
    response = call("POST", customApps + u"?dryRun=All"_s, dump(customApp("taken")));
    QCOMPARE(response.status, 409);
    QCOMPARE(str(parse(response.body)["reason"]), u"AlreadyExists"_s);
    // Unknown fields: the same warning as a real create, and Strict refuses.
    json unknown = customApp("u");
    unknown["spec"]["colour"] = "red";
    response = call("POST", customApps + u"?dryRun=All"_s, dump(unknown));
    QCOMPARE(response.status, 201);
    bool warned = false;
    for (const auto &[name, value] : response.headers)
        warned = warned || (name.toLower() == "warning" && value.contains("spec.colour"));
    QVERIFY(warned);
    response = call("POST", customApps + u"?dryRun=All&fieldValidation=Strict"_s, dump(unknown));
    QCOMPARE(response.status, 400);
}

void tst_DryRun::createWithResourceVersionIsEchoed()
{
    // A real create with a resourceVersion is a 500 from etcd3's Create; a dry run never reaches
    // the storage, so upstream echoes the object as it came.
    json object = customApp("rv");
    object["metadata"]["resourceVersion"] = "42";
    QCOMPARE(call("POST", customApps, dump(object)).status, 500);
    const ApiResponse response = call("POST", customApps + u"?dryRun=All"_s, dump(object));
    QCOMPARE(response.status, 201);
    QCOMPARE(str(parse(response.body)["metadata"]["resourceVersion"]), u"42"_s);
}

void tst_DryRun::updateAndPatchApplyGenerationRules()
{
    const json stored = createApp("app");
    const QString rv = str(stored["metadata"]["resourceVersion"]);
    const qint64 revision = m_cluster->currentResourceVersion();

    // A spec change bumps generation in the answer; the resourceVersion stays the stored one.
    json changed = stored;
    changed["spec"]["replicas"] = 5;
    ApiResponse response = call("PUT", customApps + u"/app?dryRun=All"_s, dump(changed));
    QCOMPARE(response.status, 200);
    json answer = parse(response.body);
    QCOMPARE(answer["metadata"]["generation"].get<int>(), 2);
    QCOMPARE(str(answer["metadata"]["resourceVersion"]), rv);
    QCOMPARE(answer["spec"]["replicas"].get<int>(), 5);

    // A label change does not bump generation.
    response = call("PATCH",
                    customApps + u"/app?dryRun=All"_s,
                    R"({"metadata":{"labels":{"team":"a"}}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    answer = parse(response.body);
    QCOMPARE(answer["metadata"]["generation"].get<int>(), 1);
    QCOMPARE(str(answer["metadata"]["labels"]["team"]), u"a"_s);

    // Status through the main resource is ignored (status subresource enabled).
    response = call("PATCH",
                    customApps + u"/app?dryRun=All"_s,
                    R"({"status":{"readyReplicas":7}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    answer = parse(response.body);
    QVERIFY(!answer.contains("status"));
    QCOMPARE(answer["metadata"]["generation"].get<int>(), 1);

    // JSON patch and validation of the patched result.
    response = call("PATCH",
                    customApps + u"/app?dryRun=All"_s,
                    R"([{"op":"replace","path":"/spec/replicas","value":101}])",
                    "application/json-patch+json");
    QCOMPARE(response.status, 422);

    const json now = parse(call("GET", customApps + u"/app"_s).body);
    QCOMPARE(dump(now), dump(stored));
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
}

void tst_DryRun::statusSubresourceRules()
{
    const json stored = createApp("app");
    const qint64 revision = m_cluster->currentResourceVersion();
    ApiResponse response = call(
        "PATCH",
        customApps + u"/app/status?dryRun=All"_s,
        R"({"spec":{"replicas":9},"metadata":{"labels":{"x":"y"}},"status":{"readyReplicas":2}})",
        "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    const json answer = parse(response.body);
    QCOMPARE(answer["status"]["readyReplicas"].get<int>(), 2);
    QCOMPARE(answer["spec"]["replicas"].get<int>(), 2); // spec in a status write is ignored
    QVERIFY(!answer["metadata"].contains("labels"));
    QCOMPARE(answer["metadata"]["generation"].get<int>(), 1);
    json put = stored;
    put["status"] = { { "replicas", 1 } };
    response = call("PUT", customApps + u"/app/status?dryRun=All"_s, dump(put));
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["status"]["replicas"].get<int>(), 1);
    QVERIFY(!parse(call("GET", customApps + u"/app"_s).body).contains("status"));
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
}

void tst_DryRun::stalePreconditionsStillConflict()
{
    const json stored = createApp("app");
    json stale = stored;
    stale["metadata"]["resourceVersion"] = "1";
    stale["spec"]["replicas"] = 3;
    ApiResponse response = call("PUT", customApps + u"/app?dryRun=All"_s, dump(stale));
    QCOMPARE(response.status, 409);
    QCOMPARE(str(parse(response.body)["reason"]), u"Conflict"_s);
    response = call("PATCH",
                    customApps + u"/app/status?dryRun=All"_s,
                    R"({"metadata":{"resourceVersion":"1"},"status":{"replicas":1}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 409);
    response = call(
        "DELETE",
        customApps + u"/app?dryRun=All"_s,
        R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"1"}})");
    QCOMPARE(response.status, 409);
    QCOMPARE(call("PUT", customApps + u"/missing?dryRun=All"_s, dump(customApp("missing"))).status,
             404);
}

void tst_DryRun::deleteAnswersAsARealDelete()
{
    const json stored = createApp("app");
    const qint64 revision = m_cluster->currentResourceVersion();
    // Body form and query form.
    for (const auto &[path, body] :
         { std::pair{ customApps + u"/app?dryRun=All"_s, QByteArray() },
           std::pair{
               customApps + u"/app"_s,
               QByteArray(R"({"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]})") } }) {
        const ApiResponse response = call("DELETE", path, body);
        QCOMPARE(response.status, 200);
        const json status = parse(response.body);
        QCOMPARE(str(status["kind"]), u"Status"_s);
        QCOMPARE(str(status["status"]), u"Success"_s);
        QCOMPARE(str(status["details"]["name"]), u"app"_s);
        QCOMPARE(str(status["details"]["kind"]), u"customapps"_s);
        QCOMPARE(str(status["details"]["uid"]), str(stored["metadata"]["uid"]));
    }
    QCOMPARE(call("GET", customApps + u"/app"_s).status, 200);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    QCOMPARE(call("DELETE", customApps + u"/missing?dryRun=All"_s).status, 404);
}

void tst_DryRun::deleteWithFinalizersAnswersTheDeletingObject()
{
    const json stored = createApp("held", { { "finalizers", { "example.com/hold" } } });
    const qint64 revision = m_cluster->currentResourceVersion();
    const ApiResponse response = call("DELETE", customApps + u"/held?dryRun=All"_s);
    QCOMPARE(response.status, 200);
    const json answer = parse(response.body);
    QCOMPARE(str(answer["kind"]), u"CustomApp"_s);
    QVERIFY(!str(answer["metadata"]["deletionTimestamp"]).isEmpty());
    QCOMPARE(answer["metadata"]["generation"].get<int>(), 2);
    const json now = parse(call("GET", customApps + u"/held"_s).body);
    QCOMPARE(dump(now), dump(stored));
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
}

void tst_DryRun::deleteCollectionDeletesNothing()
{
    createApp("a");
    createApp("b", { { "finalizers", { "example.com/hold" } } });
    const qint64 revision = m_cluster->currentResourceVersion();
    const ApiResponse response = call("DELETE", customApps + u"?dryRun=All"_s);
    QCOMPARE(response.status, 200);
    const json list = parse(response.body);
    QCOMPARE(list["items"].size(), size_t(2));
    QCOMPARE(str(list["items"][0]["metadata"]["name"]), u"a"_s);
    QCOMPARE(parse(call("GET", customApps).body)["items"].size(), size_t(2));
    QVERIFY(
        !parse(call("GET", customApps + u"/b"_s).body)["metadata"].contains("deletionTimestamp"));
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
}

void tst_DryRun::builtinKinds()
{
    const qint64 revision = m_cluster->currentResourceVersion();
    const QString configMaps = u"/api/v1/namespaces/default/configmaps"_s;
    const json cm = { { "apiVersion", "v1" },
                      { "kind", "ConfigMap" },
                      { "metadata", { { "name", "settings" } } },
                      { "data", { { "a", "1" } } } };
    ApiResponse response = call("POST", configMaps + u"?dryRun=All"_s, dump(cm));
    QCOMPARE(response.status, 201);
    QVERIFY(!str(parse(response.body)["metadata"]["uid"]).isEmpty());
    QCOMPARE(call("GET", configMaps + u"/settings"_s).status, 404);
    response = call("POST",
                    u"/api/v1/namespaces?dryRun=All"_s,
                    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-z"}})");
    QCOMPARE(response.status, 201);
    QCOMPARE(call("GET", u"/api/v1/namespaces/team-z"_s).status, 404);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);

    QCOMPARE(call("POST", configMaps, dump(cm)).status, 201);
    const qint64 afterCreate = m_cluster->currentResourceVersion();
    response = call("PATCH",
                    configMaps + u"/settings?dryRun=All"_s,
                    R"({"data":{"a":"2"}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["data"]["a"]), u"2"_s);
    QCOMPARE(call("DELETE", configMaps + u"/settings?dryRun=All"_s).status, 200);
    QCOMPARE(call("DELETE", u"/api/v1/namespaces/default?dryRun=All"_s).status, 403);
    response = call("DELETE", u"/api/v1/namespaces/kube-node-lease?dryRun=All"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["status"]["phase"]), u"Terminating"_s);
    QCOMPARE(str(parse(call("GET", configMaps + u"/settings"_s).body)["data"]["a"]), u"1"_s);
    QCOMPARE(
        str(parse(call("GET", u"/api/v1/namespaces/kube-node-lease"_s).body)["status"]["phase"]),
        u"Active"_s);
    QCOMPARE(m_cluster->currentResourceVersion(), afterCreate);

    // The scale subresource passes the option on: the answer scales, the Deployment stays.
    const QString deployments = u"/apis/apps/v1/namespaces/default/deployments"_s;
    QCOMPARE(
        call(
            "POST",
            deployments,
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
            .status,
        201);
    const qint64 afterDeployment = m_cluster->currentResourceVersion();
    response = call("PATCH",
                    deployments + u"/web/scale?dryRun=All"_s,
                    R"({"spec":{"replicas":5}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["spec"]["replicas"].get<int>(), 5);
    const json deployment = parse(call("GET", deployments + u"/web"_s).body);
    QCOMPARE(deployment["spec"]["replicas"].get<int>(), 2);
    QCOMPARE(deployment["metadata"]["generation"].get<int>(), 1);
    QCOMPARE(m_cluster->currentResourceVersion(), afterDeployment);
}

void tst_DryRun::invalidDryRunValues_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("optionsKind");
    QTest::newRow("create") << QByteArray("POST") << customApps << u"CreateOptions"_s;
    QTest::newRow("update") << QByteArray("PUT") << customApps + u"/app"_s << u"UpdateOptions"_s;
    QTest::newRow("patch") << QByteArray("PATCH") << customApps + u"/app"_s << u"PatchOptions"_s;
    QTest::newRow("delete") << QByteArray("DELETE") << customApps + u"/app"_s << u"DeleteOptions"_s;
    QTest::newRow("deletecollection") << QByteArray("DELETE") << customApps << u"DeleteOptions"_s;
}

void tst_DryRun::invalidDryRunValues()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QString, optionsKind);
    const json stored = createApp("app");
    const qint64 revision = m_cluster->currentResourceVersion();
    QByteArray body;
    QByteArray contentType = "application/json";
    if (method == "POST")
        body = dump(customApp("other"));
    else if (method == "PUT")
        body = dump(stored);
    else if (method == "PATCH") {
        body = R"({"spec":{"replicas":4}})";
        contentType = "application/merge-patch+json";
    }
    // Upstream validates the options (ValidateDryRun: only "All") and answers 422 Invalid for
    // the options kind, before anything else happens.
    const ApiResponse response
        = call(method, path + u"?dryRun=All&dryRun=true"_s, body, contentType);
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"Invalid"_s);
    QCOMPARE(
        str(status["message"]),
        u"%1.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"All\",\"true\"]: supported values: \"All\""_s
            .arg(optionsKind));
    QCOMPARE(str(status["details"]["kind"]), optionsKind);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    QCOMPARE(call("GET", customApps + u"/app"_s).status, 200);
}

void tst_DryRun::nothingIsStoredOrSent()
{
    const json stored = createApp("app");
    const ApiResponse watchResponse = call("GET",
                                           customApps + u"?watch=true&resourceVersion="_s
                                               + str(stored["metadata"]["resourceVersion"]));
    QCOMPARE(watchResponse.status, 200);
    auto sink = startWatch(watchResponse);
    const int eventsBefore = m_events;
    const qint64 revision = m_cluster->currentResourceVersion();

    QCOMPARE(call("POST", customApps + u"?dryRun=All"_s, dump(customApp("new"))).status, 201);
    json changed = stored;
    changed["spec"]["image"] = "nginx:2";
    QCOMPARE(call("PUT", customApps + u"/app?dryRun=All"_s, dump(changed)).status, 200);
    QCOMPARE(call("PATCH",
                  customApps + u"/app/status?dryRun=All"_s,
                  R"({"status":{"replicas":1}})",
                  "application/merge-patch+json")
                 .status,
             200);
    QCOMPARE(call("DELETE", customApps + u"/app?dryRun=All"_s).status, 200);
    QCOMPARE(call("DELETE", customApps + u"?dryRun=All"_s).status, 200);
    QCoreApplication::processEvents();

    QCOMPARE(m_events, eventsBefore);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    QVERIFY2(sink->events.empty(), sink->lines.isEmpty() ? "" : sink->lines.first().constData());
    QCOMPARE(dump(parse(call("GET", customApps + u"/app"_s).body)), dump(stored));

    // The watch is alive: the next real write is its first event, at the next revision.
    QCOMPARE(call("PUT", customApps + u"/app"_s, dump(changed)).status, 200);
    QCoreApplication::processEvents();
    QCOMPARE(sink->types(), QStringList{ u"MODIFIED"_s });
    QCOMPARE(str(sink->events[0]["object"]["metadata"]["resourceVersion"]),
             QString::number(revision + 1));
    QCOMPARE(m_events, eventsBefore + 1);
}

QTEST_GUILESS_MAIN(tst_DryRun)
#include "tst_dryrun.moc"
