#include "apitestsupport.h"

#include <QRegularExpression>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// CRUD verbs of custom resources through ApiServer::handle(): the exact responses of
// shared/spec/kube-api.md sections 1-3 and the section 9 items about them.
class tst_Crud : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void unresolvedPathIsPlainNotFound_data();
    void unresolvedPathIsPlainNotFound();
    void notFoundStatusNamesThePlural();
    void createReturns201WithServerFields();
    void createFromYaml();
    void createWithGenerateName();
    void createIntoMissingNamespaceIs404();
    void createWithResourceVersionIs500();
    void createWithoutNameIs422();
    void alreadyExistsNamesThePlural();
    void typeMetaMismatches();
    void schemaViolationIs422WithCauses();
    void unknownFieldsWarnOrFail();
    void updateRules();
    void staleUpdateIsExactConflict();
    void noOpWriteKeepsResourceVersion();
    void generationBumpsOnlyForNonMetadataChanges();
    void statusSubresourceTakesOnlyStatus();
    void statusSubresourceMethods();
    void mergePatch();
    void mergePatchWithStaleResourceVersionConflicts();
    void unsupportedPatchTypesAre415();
    void jsonPatchFailuresAre422();
    void jsonPatchTooManyOperationsIs413();
    void watchParameterOnNamedUrlIsGet();
    void int64ValuesSurviveExactly();
    void dryRunStoresNothing();
    void optionValidation();
    void malformedAndOversizedBodies();
    void prettyOutput();
    void authorization();
    void scaleSubresource();
    void builtinKinds();
    void hostileBodiesNeverFailInternally_data();
    void hostileBodiesNeverFailInternally();
    void immortalNamespacesAndLegacyWatch();

private:
};

void tst_Crud::init()
{
    setUp();
}

void tst_Crud::cleanup()
{
    tearDown();
}

void tst_Crud::unresolvedPathIsPlainNotFound_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::newRow("unknown group")
        << QByteArray("GET") << u"/apis/nope.example.com/v1/namespaces/default/things"_s;
    QTest::newRow("unknown version")
        << QByteArray("GET")
        << u"/apis/infrastructure.internal.net/v9/namespaces/default/customapps"_s;
    QTest::newRow("create across namespaces")
        << QByteArray("POST") << u"/apis/infrastructure.internal.net/v1/customapps"_s;
    QTest::newRow("named without namespace")
        << QByteArray("GET") << u"/apis/infrastructure.internal.net/v1/customapps/x"_s;
    QTest::newRow("cluster-scoped under namespace")
        << QByteArray("GET")
        << u"/apis/apiextensions.k8s.io/v1/namespaces/default/customresourcedefinitions"_s;
    QTest::newRow("random path") << QByteArray("GET") << u"/nothing/here"_s;
}

void tst_Crud::unresolvedPathIsPlainNotFound()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    const ApiResponse response
        = call(method, path, method == "POST" ? dump(customApp("a")) : QByteArray());
    QCOMPARE(response.status, 404);
    QCOMPARE(response.contentType, QByteArray("text/plain; charset=utf-8"));
    QCOMPARE(response.body, QByteArray("404 page not found\n"));
}

void tst_Crud::notFoundStatusNamesThePlural()
{
    const ApiResponse response = call("GET", customApps + u"/my-app"_s);
    QCOMPARE(response.status, 404);
    QCOMPARE(response.contentType, QByteArray("application/json"));
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customapps.infrastructure.internal.net \"my-app\" not found","reason":"NotFound","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":404})"
            "\n"));
}

void tst_Crud::createReturns201WithServerFields()
{
    json body = customApp("my-app");
    body["metadata"]["uid"] = "client-uid";
    body["metadata"]["creationTimestamp"] = "2001-01-01T00:00:00Z";
    body["metadata"]["selfLink"] = "/x";
    body["metadata"]["generation"] = 7;
    body["status"] = { { "replicas", 3 } };
    const ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 201);
    QVERIFY(response.body.endsWith("}\n"));
    QVERIFY(!response.body.contains("\n  ")); // compact
    const json created = parse(response.body);
    const json &m = created["metadata"];
    QCOMPARE(str(m["namespace"]), u"default"_s);
    QCOMPARE(m["generation"].get<int>(), 1);
    QVERIFY(!m.contains("selfLink"));
    const QUuid uid(str(m["uid"]));
    QVERIFY(!uid.isNull());
    QCOMPARE(uid.version(), QUuid::Random);
    QVERIFY(QRegularExpression(u"^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$"_s)
                .match(str(m["creationTimestamp"]))
                .hasMatch());
    QVERIFY(str(m["creationTimestamp"]) != u"2001-01-01T00:00:00Z"_s);
    QVERIFY(!created.contains("status")); // dropped: status subresource
    QCOMPARE(created["spec"]["replicas"].get<int>(), 2);
    QVERIFY(!str(m["resourceVersion"]).isEmpty());

    const ApiResponse get = call("GET", customApps + u"/my-app"_s);
    QCOMPARE(get.status, 200);
    QCOMPARE(dump(parse(get.body)), dump(created));
}

void tst_Crud::createFromYaml()
{
    const QByteArray yaml = "apiVersion: infrastructure.internal.net/v1\nkind: "
                            "CustomApp\nmetadata:\n  name: from-yaml\n"
                            "spec:\n  image: \"nginx:1\"\n  replicas: 3\n";
    const ApiResponse response = call("POST", customApps, yaml, "application/yaml");
    QVERIFY2(response.status == 201, response.body.constData());
    QCOMPARE(parse(response.body)["spec"]["replicas"].get<int>(), 3);
}

void tst_Crud::createWithGenerateName()
{
    json body = customApp("");
    body["metadata"].erase("name");
    body["metadata"]["generateName"] = std::string(70, 'a') + "-";
    const ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 201);
    const QString name = str(parse(response.body)["metadata"]["name"]);
    QCOMPARE(name.size(), 63);
    QVERIFY(name.startsWith(QString(58, u'a')));
}

void tst_Crud::createIntoMissingNamespaceIs404()
{
    const ApiResponse response
        = call("POST",
               u"/apis/infrastructure.internal.net/v1/namespaces/x/customapps"_s,
               dump(customApp("a")));
    QCOMPARE(response.status, 404);
    const json status = parse(response.body);
    QCOMPARE(str(status["message"]), u"namespaces \"x\" not found"_s);
    QCOMPARE(str(status["details"]["kind"]), u"namespaces"_s);
    // Reads of a missing namespace are not checked.
    const ApiResponse list
        = call("GET", u"/apis/infrastructure.internal.net/v1/namespaces/x/customapps"_s);
    QCOMPARE(list.status, 200);
}

void tst_Crud::createWithResourceVersionIs500()
{
    json body = customApp("a");
    body["metadata"]["resourceVersion"] = "5";
    const ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 500);
    QCOMPARE(str(parse(response.body)["message"]),
             u"resourceVersion should not be set on objects to be created"_s);
}

void tst_Crud::createWithoutNameIs422()
{
    json body = customApp("");
    body["metadata"].erase("name");
    const ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QVERIFY2(str(status["message"])
                 .endsWith(u"metadata.name: Required value: name or generateName is required"_s),
             response.body.constData());
    QCOMPARE(str(status["details"]["causes"][0]["reason"]), u"FieldValueRequired"_s);

    const ApiResponse invalidName = call("POST", customApps, dump(customApp("Bad_Name")));
    QCOMPARE(invalidName.status, 422);
}

void tst_Crud::alreadyExistsNamesThePlural()
{
    createApp("my-app");
    const ApiResponse response = call("POST", customApps, dump(customApp("my-app")));
    QCOMPARE(response.status, 409);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customapps.infrastructure.internal.net \"my-app\" already exists","reason":"AlreadyExists","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":409})"
            "\n"));
}

void tst_Crud::typeMetaMismatches()
{
    json wrongKind = customApp("a");
    wrongKind["kind"] = "Other";
    ApiResponse response = call("POST", customApps, dump(wrongKind));
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"CustomApp.infrastructure.internal.net \"a\" is invalid: kind: Invalid value: \"Other\": must be CustomApp"_s);

    json wrongVersion = customApp("a");
    wrongVersion["apiVersion"] = "infrastructure.internal.net/v2";
    response = call("POST", customApps, dump(wrongVersion));
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["reason"]), u"BadRequest"_s);
    QVERIFY(!parse(response.body).contains("details"));

    json wrongNamespace = customApp("a");
    wrongNamespace["metadata"]["namespace"] = "kube-system";
    response = call("POST", customApps, dump(wrongNamespace));
    QCOMPARE(response.status, 400);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"the namespace of the provided object does not match the namespace sent on the request"_s);

    json created = createApp("b");
    created["metadata"]["name"] = "c";
    response = call("PUT", customApps + u"/b"_s, dump(created));
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"the name of the object (c) does not match the name on the URL (b)"_s);
}

void tst_Crud::schemaViolationIs422WithCauses()
{
    json body = customApp("a");
    body["spec"]["replicas"] = 200;
    const ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"Invalid"_s);
    QVERIFY2(
        str(status["message"])
            .startsWith(u"CustomApp.infrastructure.internal.net \"a\" is invalid: spec.replicas"_s),
        response.body.constData());
    QCOMPARE(str(status["details"]["kind"]), u"CustomApp"_s);
    QCOMPARE(str(status["details"]["causes"][0]["field"]), u"spec.replicas"_s);
    // Defaults apply: replicas omitted -> 1.
    json defaults = customApp("d");
    defaults["spec"].erase("replicas");
    QCOMPARE(parse(call("POST", customApps, dump(defaults)).body)["spec"]["replicas"].get<int>(),
             1);
}

void tst_Crud::unknownFieldsWarnOrFail()
{
    json body = customApp("a");
    body["spec"]["foo"] = "bar";
    ApiResponse response = call("POST", customApps, dump(body));
    QCOMPARE(response.status, 201);
    QVERIFY(!parse(response.body)["spec"].contains("foo"));
    QCOMPARE(response.headers.size(), 1);
    QCOMPARE(response.headers[0].first, QByteArray("Warning"));
    QCOMPARE(response.headers[0].second, QByteArray(R"(299 - "unknown field \"spec.foo\"")"));

    body["metadata"]["name"] = "b";
    response = call("POST", customApps + u"?fieldValidation=Strict"_s, dump(body));
    QCOMPARE(response.status, 400);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"CustomApp in version \"v1\" cannot be handled as a CustomApp: strict decoding error: unknown field \"spec.foo\""_s);
    response = call("PATCH",
                    customApps + u"/a?fieldValidation=Strict"_s,
                    R"({"spec":{"bar":1}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"strict decoding error: unknown field \"spec.bar\""_s);

    response = call("POST", customApps + u"?fieldValidation=Ignore"_s, dump(body));
    QCOMPARE(response.status, 201);
    QVERIFY(response.headers.isEmpty());
}

void tst_Crud::updateRules()
{
    // PUT on a missing object is 404 (no create on update).
    json body = customApp("ghost");
    body["metadata"]["resourceVersion"] = "1";
    ApiResponse response = call("PUT", customApps + u"/ghost"_s, dump(body));
    QCOMPARE(response.status, 404);

    // PUT without resourceVersion is 422 with the plural as kind.
    createApp("my-app");
    response = call("PUT", customApps + u"/my-app"_s, dump(customApp("my-app")));
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"customapps.infrastructure.internal.net \"my-app\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update"_s);

    // A different uid is a precondition conflict.
    json current = parse(call("GET", customApps + u"/my-app"_s).body);
    json otherUid = current;
    otherUid["metadata"]["uid"] = "6d3a0e8e-0000-4000-8000-000000000000";
    response = call("PUT", customApps + u"/my-app"_s, dump(otherUid));
    QCOMPARE(response.status, 409);
    QVERIFY(str(parse(response.body)["message"])
                .contains(u"Precondition failed: UID in precondition: 6d3a0e8e"_s));

    // creationTimestamp is restored from storage.
    json changed = current;
    changed["metadata"]["creationTimestamp"] = "2001-01-01T00:00:00Z";
    changed["spec"]["image"] = "nginx:2";
    response = call("PUT", customApps + u"/my-app"_s, dump(changed));
    QCOMPARE(response.status, 200);
    QCOMPARE(dump(parse(response.body)["metadata"]["creationTimestamp"]),
             dump(current["metadata"]["creationTimestamp"]));
}

void tst_Crud::staleUpdateIsExactConflict()
{
    json created = createApp("my-app");
    json first = created;
    first["spec"]["image"] = "nginx:2";
    QCOMPARE(call("PUT", customApps + u"/my-app"_s, dump(first)).status, 200);
    json stale = created;
    stale["spec"]["image"] = "nginx:3";
    const ApiResponse response = call("PUT", customApps + u"/my-app"_s, dump(stale));
    QCOMPARE(response.status, 409);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"my-app\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":409})"
            "\n"));
}

void tst_Crud::noOpWriteKeepsResourceVersion()
{
    const json created = createApp("my-app");
    const QString rv = str(created["metadata"]["resourceVersion"]);
    const ApiResponse watch = call("GET", customApps + u"?watch=true&resourceVersion="_s + rv);
    auto sink = startWatch(watch);

    ApiResponse response = call("PUT", customApps + u"/my-app"_s, dump(created));
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["metadata"]["resourceVersion"]), rv);
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"spec":{"image":"nginx:1.27"}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["metadata"]["resourceVersion"]), rv);
    QCOMPARE(m_cluster->currentResourceVersion(), rv.toLongLong());
    QVERIFY(sink->events.empty());

    // A real change does produce an event.
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"spec":{"image":"nginx:2"}})",
                    "application/merge-patch+json");
    QVERIFY(str(parse(response.body)["metadata"]["resourceVersion"]) != rv);
    QCOMPARE(sink->types(), QStringList{ u"MODIFIED"_s });
}

void tst_Crud::generationBumpsOnlyForNonMetadataChanges()
{
    json app = createApp("my-app");
    QCOMPARE(app["metadata"]["generation"].get<int>(), 1);
    auto patch = [&](const char *body) {
        const ApiResponse r
            = call("PATCH", customApps + u"/my-app"_s, body, "application/merge-patch+json");
        if (r.status != 200)
            qWarning("%s", r.body.constData());
        return parse(r.body);
    };
    app = patch(
        R"({"metadata":{"labels":{"a":"b"},"annotations":{"x":"y"},"finalizers":["example.com/f"],"generation":42}})");
    QCOMPARE(app["metadata"]["generation"].get<int>(), 1);
    app = patch(R"({"status":{"replicas":5}})"); // dropped: status subresource
    QVERIFY(!app.contains("status"));
    QCOMPARE(app["metadata"]["generation"].get<int>(), 1);
    app = patch(R"({"spec":{"replicas":3}})");
    QCOMPARE(app["metadata"]["generation"].get<int>(), 2);
    // The first DELETE with finalizers bumps it; a repeated DELETE is a no-op.
    ApiResponse deleted = call("DELETE", customApps + u"/my-app"_s);
    QCOMPARE(deleted.status, 200);
    app = parse(deleted.body);
    QCOMPARE(app["metadata"]["generation"].get<int>(), 3);
    QVERIFY(app["metadata"].contains("deletionTimestamp"));
    QCOMPARE(app["metadata"]["deletionGracePeriodSeconds"].get<int>(), 0);
    deleted = call("DELETE", customApps + u"/my-app"_s);
    QCOMPARE(deleted.status, 200);
    QCOMPARE(parse(deleted.body)["metadata"]["generation"].get<int>(), 3);
    QCOMPARE(dump(parse(deleted.body)["metadata"]["resourceVersion"]),
             dump(app["metadata"]["resourceVersion"]));
}

void tst_Crud::statusSubresourceTakesOnlyStatus()
{
    json app = createApp("my-app");
    json write = app;
    write["spec"]["image"] = "ignored";
    write["metadata"]["labels"] = { { "ignored", "true" } };
    write["status"] = { { "replicas", 2 }, { "observedGeneration", 1 } };
    ApiResponse response = call("PUT", customApps + u"/my-app/status"_s, dump(write));
    QCOMPARE(response.status, 200);
    json updated = parse(response.body);
    QCOMPARE(str(updated["spec"]["image"]), u"nginx:1.27"_s);
    QVERIFY(!updated["metadata"].contains("labels"));
    QCOMPARE(updated["status"]["replicas"].get<int>(), 2);
    QCOMPARE(updated["metadata"]["generation"].get<int>(), 1);

    response = call("PATCH",
                    customApps + u"/my-app/status"_s,
                    R"({"status":{"readyReplicas":1},"spec":{"replicas":9}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    updated = parse(response.body);
    QCOMPARE(updated["status"]["readyReplicas"].get<int>(), 1);
    QCOMPARE(updated["status"]["replicas"].get<int>(), 2);
    QCOMPARE(updated["spec"]["replicas"].get<int>(), 2);
    QCOMPARE(updated["metadata"]["generation"].get<int>(), 1);

    // Status is validated against the schema.
    response = call("PATCH",
                    customApps + u"/my-app/status"_s,
                    R"({"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 422);

    // Stale resourceVersion on /status conflicts too.
    write["metadata"]["resourceVersion"] = app["metadata"]["resourceVersion"];
    response = call("PUT", customApps + u"/my-app/status"_s, dump(write));
    QCOMPARE(response.status, 409);
}

void tst_Crud::statusSubresourceMethods()
{
    createApp("my-app");
    ApiResponse response
        = call("POST", customApps + u"/my-app/status"_s, dump(customApp("my-app")));
    QCOMPARE(response.status, 405);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"create is not supported on resources of kind \"customapps.infrastructure.internal.net\"","reason":"MethodNotAllowed","details":{"group":"infrastructure.internal.net","kind":"customapps"},"code":405})"
            "\n"));
    QCOMPARE(call("DELETE", customApps + u"/my-app/status"_s).status, 405);
    QCOMPARE(call("GET", customApps + u"/my-app/status"_s).status, 200);
    // A CRD version without the scale subresource: 404 Status, not the plain text.
    response = call("GET", customApps + u"/my-app/scale"_s);
    QCOMPARE(response.status, 404);
    QCOMPARE(str(parse(response.body)["reason"]), u"NotFound"_s);
}

void tst_Crud::mergePatch()
{
    createApp("my-app");
    ApiResponse response = call("PATCH",
                                customApps + u"/my-app"_s,
                                R"({"spec":{"port":8080,"replicas":null}})",
                                "application/merge-patch+json; charset=utf-8");
    QCOMPARE(response.status, 200);
    json patched = parse(response.body);
    QCOMPARE(patched["spec"]["port"].get<int>(), 8080);
    QCOMPARE(patched["spec"]["replicas"].get<int>(), 1); // deleted, then defaulted
    // Arrays are replaced as a whole.
    call(
        "PATCH",
        customApps + u"/my-app/status"_s,
        R"({"status":{"conditions":[{"type":"A","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"R","message":""},{"type":"B","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"R","message":""}]}})",
        "application/merge-patch+json");
    response = call(
        "PATCH",
        customApps + u"/my-app/status"_s,
        R"({"status":{"conditions":[{"type":"C","status":"False","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"R","message":""}]}})",
        "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["status"]["conditions"].size(), size_t(1));
    // Patching a missing object: 404; malformed patch: 400; renaming: 400.
    QCOMPARE(call("PATCH", customApps + u"/nope"_s, "{}", "application/merge-patch+json").status,
             404);
    QCOMPARE(call("PATCH", customApps + u"/my-app"_s, "{not json", "application/merge-patch+json")
                 .status,
             400);
    QCOMPARE(call("PATCH",
                  customApps + u"/my-app"_s,
                  R"({"metadata":{"name":"other"}})",
                  "application/merge-patch+json")
                 .status,
             400);
}

void tst_Crud::mergePatchWithStaleResourceVersionConflicts()
{
    const json created = createApp("my-app");
    call("PATCH",
         customApps + u"/my-app"_s,
         R"({"spec":{"image":"nginx:2"}})",
         "application/merge-patch+json");
    json patch
        = { { "metadata", { { "resourceVersion", created["metadata"]["resourceVersion"] } } },
            { "spec", { { "image", "nginx:3" } } } };
    ApiResponse response
        = call("PATCH", customApps + u"/my-app"_s, dump(patch), "application/merge-patch+json");
    QCOMPARE(response.status, 409);
    QCOMPARE(str(parse(response.body)["reason"]), u"Conflict"_s);
    // Without a resourceVersion a patch never conflicts.
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"spec":{"image":"nginx:4"}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
}

void tst_Crud::unsupportedPatchTypesAre415()
{
    createApp("my-app");
    for (const QByteArray &type :
         { QByteArray("application/strategic-merge-patch+json"), QByteArray("text/plain") }) {
        const ApiResponse response
            = call("PATCH", customApps + u"/my-app"_s, R"({"spec":{}})", type);
        QCOMPARE(response.status, 415);
        QCOMPARE(response.body, customResourcePatch415);
    }
}

void tst_Crud::jsonPatchFailuresAre422()
{
    createApp("my-app");
    ApiResponse response = call("PATCH",
                                customApps + u"/my-app"_s,
                                R"([{"op":"replace","path":"/spec/image","value":"nginx:2"}])",
                                "application/json-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["spec"]["image"]), u"nginx:2"_s);
    const QByteArray expected(
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422})"
        "\n");
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"([{"op":"remove","path":"/spec/missing"}])",
                    "application/json-patch+json");
    QCOMPARE(response.status, 422);
    QCOMPARE(response.body, expected);
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"([{"op":"test","path":"/spec/image","value":"x"}])",
                    "application/json-patch+json");
    QCOMPARE(response.body, expected);
    response = call(
        "PATCH", customApps + u"/my-app"_s, R"({"op":"test"})", "application/json-patch+json");
    QCOMPARE(response.status, 400);
}

void tst_Crud::jsonPatchTooManyOperationsIs413()
{
    createApp("my-app");
    json ops = json::array();
    for (int i = 0; i < 10001; ++i)
        ops.push_back({ { "op", "test" }, { "path", "/kind" }, { "value", "CustomApp" } });
    const ApiResponse response
        = call("PATCH", customApps + u"/my-app"_s, dump(ops), "application/json-patch+json");
    QCOMPARE(response.status, 413);
    QCOMPARE(str(parse(response.body)["reason"]), u"RequestEntityTooLarge"_s);
    ops.erase(ops.begin());
    QCOMPARE(
        call("PATCH", customApps + u"/my-app"_s, dump(ops), "application/json-patch+json").status,
        200);
}

void tst_Crud::watchParameterOnNamedUrlIsGet()
{
    createApp("my-app");
    const ApiResponse response = call("GET", customApps + u"/my-app?watch=true"_s);
    QCOMPARE(response.status, 200);
    QVERIFY(!response.watch);
    QCOMPARE(str(parse(response.body)["metadata"]["name"]), u"my-app"_s);
    QVERIFY(call("GET", customApps + u"?watch=1"_s).watch);
    QVERIFY(call("GET", customApps + u"?watch"_s).watch);
    QVERIFY(!call("GET", customApps + u"?watch=False"_s).watch);
    QVERIFY(!call("GET", customApps + u"?watch=0"_s).watch);
}

void tst_Crud::int64ValuesSurviveExactly()
{
    createApp("my-app");
    const QByteArray patch = R"({"status":{"observedGeneration":9007199254740993}})";
    ApiResponse response
        = call("PATCH", customApps + u"/my-app/status"_s, patch, "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QVERIFY(response.body.contains("\"observedGeneration\":9007199254740993"));
    response = call("GET", customApps);
    QVERIFY(response.body.contains("\"observedGeneration\":9007199254740993"));
    // Schemaless built-ins keep any int64.
    const QByteArray pod
        = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}],"big":9223372036854775807,"neg":-9223372036854775808}})";
    response = call("POST", u"/api/v1/namespaces/default/pods"_s, pod);
    QCOMPARE(response.status, 201);
    response = call("GET", u"/api/v1/namespaces/default/pods/p"_s);
    QVERIFY2(response.body.contains("\"big\":9223372036854775807"), response.body.constData());
    QVERIFY(response.body.contains("\"neg\":-9223372036854775808"));
}

void tst_Crud::dryRunStoresNothing()
{
    const qint64 before = m_cluster->currentResourceVersion();
    ApiResponse response = call("POST", customApps + u"?dryRun=All"_s, dump(customApp("dry")));
    QCOMPARE(response.status, 201);
    QVERIFY(!parse(response.body)["metadata"].contains("resourceVersion"));
    QCOMPARE(call("GET", customApps + u"/dry"_s).status, 404);
    QCOMPARE(m_cluster->currentResourceVersion(), before);

    createApp("real");
    const qint64 rv = m_cluster->currentResourceVersion();
    response = call("PATCH",
                    customApps + u"/real?dryRun=All"_s,
                    R"({"spec":{"image":"x:1"}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["spec"]["image"]), u"x:1"_s);
    QCOMPARE(str(parse(call("GET", customApps + u"/real"_s).body)["spec"]["image"]),
             u"nginx:1.27"_s);
    response = call("DELETE", customApps + u"/real?dryRun=All"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(call("GET", customApps + u"/real"_s).status, 200);
    QCOMPARE(m_cluster->currentResourceVersion(), rv);

    response = call("POST", customApps + u"?dryRun=Yes"_s, dump(customApp("dry")));
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"Yes\"]: supported values: \"All\""_s);
    // The values as json.Marshal writes a []string: no spaces, HTML characters escaped.
    response
        = call("POST", customApps + u"?dryRun=All&dryRun=%3Cb%3E%26"_s, dump(customApp("dry")));
    QCOMPARE(
        str(parse(response.body)["details"]["causes"][0]["message"]),
        u"Unsupported value: [\"All\",\"\\u003cb\\u003e\\u0026\"]: supported values: \"All\""_s);
}

void tst_Crud::optionValidation()
{
    ApiResponse response
        = call("POST", customApps + u"?fieldManager="_s + QString(129, u'm'), dump(customApp("a")));
    QCOMPARE(response.status, 422);
    QVERIFY(
        str(parse(response.body)["message"])
            .startsWith(u"CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long"_s));
    response
        = call("POST", customApps + u"?fieldManager="_s + QString(128, u'm'), dump(customApp("a")));
    QCOMPARE(response.status, 201);
    response = call("POST", customApps + u"?fieldValidation=Loose"_s, dump(customApp("b")));
    QCOMPARE(response.status, 422);
    // Unknown query parameters are tolerated.
    response = call("POST", customApps + u"?timeout=32s&whatever=1"_s, dump(customApp("c")));
    QCOMPARE(response.status, 201);
}

void tst_Crud::malformedAndOversizedBodies()
{
    ApiResponse response = call("POST", customApps, "{\"apiVersion\":");
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["reason"]), u"BadRequest"_s);
    QCOMPARE(str(parse(response.body)["message"]),
             u"the object provided is unrecognized (must be of type CustomApp): couldn't get "
             "version/kind; json parse error: unexpected end of JSON input ({\"apiVersion\":)"_s);
    response = call("POST", customApps, "xyz");
    QCOMPARE(str(parse(response.body)["message"]),
             u"the object provided is unrecognized (must be of type CustomApp): couldn't get "
             "version/kind; json parse error: invalid character 'x' looking for beginning of "
             "value (78797a)"_s);
    response = call("POST", customApps, "[1]");
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"the object provided is unrecognized (must be of type CustomApp): couldn't get "
             "version/kind; json parse error: json: cannot unmarshal array into Go value of type "
             "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
             "\"json:\\\"kind,omitempty\\\"\" } (5b315d)"_s);
    json big = customApp("big");
    big["metadata"]["annotations"] = { { "blob", std::string(3 * 1024 * 1024, 'x') } };
    response = call("POST", customApps, dump(big));
    QCOMPARE(response.status, 413);
    QCOMPARE(str(parse(response.body)["message"]), u"Request entity too large: limit is 3145728"_s);
}

void tst_Crud::prettyOutput()
{
    createApp("my-app");
    ApiResponse response = call("GET", customApps + u"/my-app?pretty=true"_s);
    QVERIFY(response.body.startsWith("{\n  \"apiVersion\": "));
    QVERIFY(response.body.endsWith("}\n"));
    ApiRequest curl = request("GET", customApps + u"/my-app"_s);
    curl.headers.append(qMakePair(QByteArray("user-agent"), QByteArray("curl/8.5.0")));
    QVERIFY(m_server->handle(curl).body.startsWith("{\n  \""));
    response = call("GET", customApps + u"/nope?pretty=1"_s);
    QVERIFY(response.body.startsWith("{\n  \"kind\": \"Status\""));
}

void tst_Crud::authorization()
{
    createApp("my-app");
    ApiResponse response = m_server->handle(request("PATCH",
                                                    customApps + u"/my-app/status"_s,
                                                    R"({"status":{}})",
                                                    "application/merge-patch+json",
                                                    viewer()));
    QCOMPARE(response.status, 403);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customapps.infrastructure.internal.net \"my-app\" is forbidden: User \"viewer\" cannot patch resource \"customapps/status\" in API group \"infrastructure.internal.net\" in the namespace \"default\"","reason":"Forbidden","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps"},"code":403})"
            "\n"));
    QCOMPARE(m_server->handle(request("GET", customApps + u"/my-app"_s, {}, {}, viewer())).status,
             200);
    QCOMPARE(m_server->handle(request("GET", customApps, {}, {}, viewer())).status, 200);
    QVERIFY(m_server->handle(request("GET", customApps + u"?watch=1"_s, {}, {}, viewer())).watch);
    QCOMPARE(m_server->handle(request("GET", u"/apis"_s, {}, {}, viewer())).status, 200);

    const UserInfo stranger{ u"bob"_s, { u"system:authenticated"_s }, true };
    response = m_server->handle(request(
        "GET", u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s, {}, {}, stranger));
    QCOMPARE(response.status, 403);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"customresourcedefinitions.apiextensions.k8s.io is forbidden: User \"bob\" cannot list resource \"customresourcedefinitions\" in API group \"apiextensions.k8s.io\" at the cluster scope"_s);
    QCOMPARE(m_server->handle(request("GET", u"/version"_s, {}, {}, stranger)).status, 200);
    response = m_server->handle(request("GET", u"/metrics"_s, {}, {}, stranger));
    QCOMPARE(response.status, 403);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"bob\" cannot get path \"/metrics\"","reason":"Forbidden","details":{},"code":403})"
            "\n"));
    QCOMPARE(
        m_server->handle(request("POST", u"/apis"_s, "{}", "application/json", viewer())).status,
        403);
    QCOMPARE(call("GET", u"/metrics"_s).status, 404); // an admin gets the not-found handler
}

void tst_Crud::scaleSubresource()
{
    const QByteArray deployment
        = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})";
    const QString deployments = u"/apis/apps/v1/namespaces/default/deployments"_s;
    QCOMPARE(call("POST", deployments, deployment).status, 201);
    ApiResponse response = call("GET", deployments + u"/web/scale"_s);
    QCOMPARE(response.status, 200);
    json scale = parse(response.body);
    QCOMPARE(str(scale["kind"]), u"Scale"_s);
    QCOMPARE(str(scale["apiVersion"]), u"autoscaling/v1"_s);
    QCOMPARE(scale["spec"]["replicas"].get<int>(), 2);
    response = call("PATCH",
                    deployments + u"/web/scale"_s,
                    R"({"spec":{"replicas":5}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["spec"]["replicas"].get<int>(), 5);
    const json stored = parse(call("GET", deployments + u"/web"_s).body);
    QCOMPARE(stored["spec"]["replicas"].get<int>(), 5);
    QCOMPARE(stored["metadata"]["generation"].get<int>(), 2);
}

void tst_Crud::builtinKinds()
{
    // The four namespaces exist at start.
    const json namespaces = parse(call("GET", u"/api/v1/namespaces"_s).body);
    QStringList names;
    for (const json &item : namespaces["items"])
        names << str(item["metadata"]["name"]);
    QCOMPARE(
        names,
        (QStringList{ u"default"_s, u"kube-node-lease"_s, u"kube-public"_s, u"kube-system"_s }));
    QCOMPARE(str(namespaces["items"][0]["status"]["phase"]), u"Active"_s);
    QCOMPARE(str(namespaces["kind"]), u"NamespaceList"_s);
    // ConfigMaps, secrets, leases, events: create and read back.
    for (
        const auto &[path, body] : std::vector<std::pair<QString, QByteArray>>{
            { u"/api/v1/namespaces/default/configmaps"_s,
              R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}})" },
            { u"/api/v1/namespaces/default/secrets"_s,
              R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque","data":{"k":"dg=="}})" },
            { u"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"_s,
              R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"me"}})" },
            { u"/api/v1/namespaces/default/events"_s,
              R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"reason":"Started"})" } }) {
        const ApiResponse response = call("POST", path, body);
        QVERIFY2(response.status == 201, response.body.constData());
        QVERIFY(!parse(response.body)["metadata"].contains("generation"));
    }
    QCOMPARE(
        call("GET", u"/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque"_s).status,
        200);
    // Deployments have status and generation.
    QCOMPARE(
        call(
            "POST",
            u"/apis/apps/v1/namespaces/default/deployments"_s,
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}},"status":{"replicas":9}})")
            .status,
        201);
    const json deployment
        = parse(call("GET", u"/apis/apps/v1/namespaces/default/deployments/d"_s).body);
    QCOMPARE(deployment["metadata"]["generation"].get<int>(), 1);
    // The status sent is dropped; the typed encoder writes the empty one.
    QVERIFY(deployment["status"] == json::object());
}

void tst_Crud::hostileBodiesNeverFailInternally_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    const QByteArray json = "application/json";
    const QByteArray merge = "application/merge-patch+json";
    const QByteArray jsonPatch = "application/json-patch+json";
    QTest::newRow("array body") << QByteArray("POST") << customApps << QByteArray("[1,2]") << json;
    QTest::newRow("string metadata")
        << QByteArray("POST") << customApps
        << QByteArray(
               R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":"x"})")
        << json;
    QTest::newRow("labels array")
        << QByteArray("POST") << customApps
        << QByteArray(
               R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":"a","labels":[1]},"spec":{"image":"x"}})")
        << json;
    QTest::newRow("numeric name")
        << QByteArray("POST") << customApps
        << QByteArray(
               R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":5},"spec":{"image":"x"}})")
        << json;
    QTest::newRow("namespace with string spec")
        << QByteArray("POST") << u"/api/v1/namespaces"_s
        << QByteArray(
               R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1","labels":"x"},"spec":"x","status":7})")
        << json;
    QTest::newRow("merge metadata to string") << QByteArray("PATCH") << customApps + u"/existing"_s
                                              << QByteArray(R"({"metadata":"x"})") << merge;
    QTest::newRow("merge spec to array") << QByteArray("PATCH") << customApps + u"/existing"_s
                                         << QByteArray(R"({"spec":[1]})") << merge;
    QTest::newRow("json patch replace root")
        << QByteArray("PATCH") << customApps + u"/existing"_s
        << QByteArray(R"([{"op":"replace","path":"","value":[1]}])") << jsonPatch;
    QTest::newRow("json patch remove metadata")
        << QByteArray("PATCH") << customApps + u"/existing"_s
        << QByteArray(R"([{"op":"remove","path":"/metadata"}])") << jsonPatch;
    QTest::newRow("status to string") << QByteArray("PATCH") << customApps + u"/existing/status"_s
                                      << QByteArray(R"({"status":"x"})") << merge;
    QTest::newRow("finalizers not strings")
        << QByteArray("PATCH") << customApps + u"/existing"_s
        << QByteArray(R"({"metadata":{"finalizers":[1,{"a":2}],"ownerReferences":"x"}})") << merge;
    QTest::newRow("delete options array")
        << QByteArray("DELETE") << customApps + u"/existing"_s << QByteArray("[]") << json;
    QTest::newRow("scale replicas string")
        << QByteArray("PATCH") << u"/apis/apps/v1/namespaces/default/deployments/d/scale"_s
        << QByteArray(R"({"spec":{"replicas":"x"}})") << merge;
}

void tst_Crud::hostileBodiesNeverFailInternally()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    createApp("existing");
    QCOMPARE(
        call(
            "POST",
            u"/apis/apps/v1/namespaces/default/deployments"_s,
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
            .status,
        201);
    const ApiResponse response = call(method, path, body, contentType);
    QVERIFY2(response.status < 500, response.body.constData());
    QVERIFY(!parse(response.body).is_discarded());
    // The cluster still serves.
    QCOMPARE(call("GET", customApps).status, 200);
    QCOMPARE(call("DELETE", customApps + u"/existing"_s).status, 200);
}

void tst_Crud::immortalNamespacesAndLegacyWatch()
{
    const ApiResponse response = call("DELETE", u"/api/v1/namespaces/default"_s);
    QCOMPARE(response.status, 403);
    QCOMPARE(str(parse(response.body)["message"]),
             u"namespaces \"default\" is forbidden: this namespace may not be deleted"_s);
    createApp("a");
    createApp("b");
    const ApiResponse watch = call(
        "GET", u"/apis/infrastructure.internal.net/v1/watch/namespaces/default/customapps/b"_s);
    QVERIFY(watch.watch);
    auto sink = startWatch(watch);
    QCOMPARE(sink->types(), QStringList{ u"ADDED"_s });
    QCOMPARE(str(sink->events[0]["object"]["metadata"]["name"]), u"b"_s);
}

QTEST_GUILESS_MAIN(tst_Crud)
#include "tst_crud.moc"
