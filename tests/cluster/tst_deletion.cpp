#include "apitestsupport.h"

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// Deletion, finalizers, owner references and namespaces (shared/spec/kube-api.md section 5,
// section 9 items 4, 12, 13).
class tst_Deletion : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void deleteWithoutFinalizersReturnsSuccessStatus();
    void finalizersHoldTheObject();
    void lastFinalizerRemovalEmitsDeletedWithFinalizers();
    void statusWriteCannotRemoveFinalizers();
    void deleteOptions();
    void backgroundDeletesDependents();
    void foregroundResolvesAndNeverSticks();
    void foregroundWaitsForDependentFinalizers();
    void orphanStripsOwnerReferences();
    void dependentWithAnotherOwnerSurvives();
    void deleteCollection();
    void namespaceDeletionDeletesContents();

private:
    json createDependent(const QString &name, const QStringList &ownerUids)
    {
        json refs = json::array();
        for (const QString &uid : ownerUids)
            refs.push_back({ { "apiVersion", "infrastructure.internal.net/v1" },
                             { "kind", "CustomApp" },
                             { "name", "owner" },
                             { "uid", uid.toStdString() },
                             { "blockOwnerDeletion", true },
                             { "controller", refs.empty() } }); // one controller at most
        json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
            "spec":{"replicas":1,"selector":{"matchLabels":{}},
            "template":{"metadata":{"labels":{}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})");
        deployment["metadata"] = { { "name", name.toStdString() }, { "ownerReferences", refs } };
        deployment["spec"]["selector"]["matchLabels"]["app"] = name.toStdString();
        deployment["spec"]["template"]["metadata"]["labels"]["app"] = name.toStdString();
        const ApiResponse response = call("POST", deployments, dump(deployment));
        if (response.status != 201)
            qWarning("%s", response.body.constData());
        return parse(response.body);
    }
    int status(const QString &path) { return call("GET", path).status; }

    const QString deployments = u"/apis/apps/v1/namespaces/default/deployments"_s;
};

void tst_Deletion::init()
{
    setUp();
}

void tst_Deletion::cleanup()
{
    tearDown();
}

void tst_Deletion::deleteWithoutFinalizersReturnsSuccessStatus()
{
    const json app = createApp("my-app");
    auto sink = startWatch(call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + str(app["metadata"]["resourceVersion"])));
    const ApiResponse response
        = call("DELETE",
               customApps + u"/my-app"_s,
               R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})");
    QCOMPARE(response.status, 200);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"my-app","group":"infrastructure.internal.net","kind":"customapps","uid":")")
            + str(app["metadata"]["uid"]).toLatin1() + "\"}}\n");
    QCOMPARE(sink->types(), QStringList{ u"DELETED"_s });
    QCOMPARE(status(customApps + u"/my-app"_s), 404);
    QCOMPARE(call("DELETE", customApps + u"/my-app"_s).status, 404);
}

void tst_Deletion::finalizersHoldTheObject()
{
    const json app
        = createApp("my-app", { { "finalizers", { "example.com/a", "example.com/b" } } });
    auto sink = startWatch(call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + str(app["metadata"]["resourceVersion"])));
    ApiResponse response = call("DELETE", customApps + u"/my-app"_s);
    QCOMPARE(response.status, 200);
    json deleting = parse(response.body);
    QVERIFY(deleting["metadata"].contains("deletionTimestamp"));
    QCOMPARE(sink->types(), QStringList{ u"MODIFIED"_s });

    // No new finalizers while deleting.
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"metadata":{"finalizers":["example.com/a","example.com/b","x"]}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"CustomApp.infrastructure.internal.net \"my-app\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"x\"}"_s);
    // deletionTimestamp cannot be changed or removed.
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"metadata":{"deletionTimestamp":null}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(dump(parse(response.body)["metadata"]["deletionTimestamp"]),
             dump(deleting["metadata"]["deletionTimestamp"]));
    // Removing one of two finalizers is an update.
    response = call("PATCH",
                    customApps + u"/my-app"_s,
                    R"({"metadata":{"finalizers":["example.com/b"]}})",
                    "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(status(customApps + u"/my-app"_s), 200);
}

void tst_Deletion::lastFinalizerRemovalEmitsDeletedWithFinalizers()
{
    createApp("my-app", { { "finalizers", { "example.com/f" } } });
    call("DELETE", customApps + u"/my-app"_s);
    auto sink = startWatch(call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion())));
    json current = parse(call("GET", customApps + u"/my-app"_s).body);
    current["metadata"]["finalizers"] = json::array();
    const ApiResponse response = call("PUT", customApps + u"/my-app"_s, dump(current));
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["metadata"]["name"]), u"my-app"_s);
    QCOMPARE(sink->types(), QStringList{ u"DELETED"_s });
    const json &object = sink->events[0]["object"];
    QCOMPARE(object["metadata"]["finalizers"].size(), size_t(1));
    QCOMPARE(str(object["metadata"]["finalizers"][0]), u"example.com/f"_s);
    QCOMPARE(str(object["metadata"]["resourceVersion"]),
             QString::number(m_cluster->currentResourceVersion()));
    QCOMPARE(status(customApps + u"/my-app"_s), 404);
}

void tst_Deletion::statusWriteCannotRemoveFinalizers()
{
    createApp("my-app", { { "finalizers", { "example.com/f" } } });
    call("DELETE", customApps + u"/my-app"_s);
    const ApiResponse response = call("PATCH",
                                      customApps + u"/my-app/status"_s,
                                      R"({"metadata":{"finalizers":null},"status":{"replicas":1}})",
                                      "application/merge-patch+json");
    QCOMPARE(response.status, 200);
    QCOMPARE(parse(response.body)["metadata"]["finalizers"].size(), size_t(1));
    QCOMPARE(status(customApps + u"/my-app"_s), 200);
}

void tst_Deletion::deleteOptions()
{
    const json app = createApp("my-app");
    ApiResponse response = call("DELETE", customApps + u"/my-app?propagationPolicy=Sideways"_s);
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""_s);
    // rest.BeforeDelete's conflicts name the Kind, in the message and in details.kind.
    response = call("DELETE",
                    customApps + u"/my-app"_s,
                    R"({"preconditions":{"uid":"00000000-0000-4000-8000-000000000000"}})");
    QCOMPARE(response.status, 409);
    json status = parse(response.body);
    QCOMPARE(str(status["message"]),
             u"Operation cannot be fulfilled on CustomApp.infrastructure.internal.net \"my-app\": "
             "the UID in the precondition (00000000-0000-4000-8000-000000000000) does not match "
             "the UID in record (%1). The object might have been deleted and then recreated"_s.arg(
                 str(app["metadata"]["uid"])));
    QCOMPARE(QByteArray::fromStdString(status["details"].dump()),
             QByteArray(
                 R"({"group":"infrastructure.internal.net","kind":"CustomApp","name":"my-app"})"));
    response
        = call("DELETE", customApps + u"/my-app"_s, R"({"preconditions":{"resourceVersion":"1"}})");
    QCOMPARE(response.status, 409);
    QCOMPARE(str(parse(response.body)["message"]),
             u"Operation cannot be fulfilled on CustomApp.infrastructure.internal.net \"my-app\": "
             "the ResourceVersion in the precondition (1) does not match the ResourceVersion in "
             "record (%1). The object might have been modified"_s.arg(
                 str(app["metadata"]["resourceVersion"])));
    response = call("DELETE", customApps + u"/my-app"_s, "{not json");
    QCOMPARE(response.status, 400);
    response = call("DELETE",
                    customApps + u"/my-app"_s,
                    dump(json{ { "kind", "DeleteOptions" },
                               { "apiVersion", "v1" },
                               { "preconditions", { { "uid", app["metadata"]["uid"] } } } }));
    QCOMPARE(response.status, 200);
}

void tst_Deletion::backgroundDeletesDependents()
{
    const json owner = createApp("owner");
    createDependent(u"child"_s, { str(owner["metadata"]["uid"]) });
    createDependent(u"unrelated"_s, {});
    QCOMPARE(call("DELETE", customApps + u"/owner"_s).status, 200);
    QCOMPARE(status(deployments + u"/child"_s), 404);
    QCOMPARE(status(deployments + u"/unrelated"_s), 200);
}

void tst_Deletion::foregroundResolvesAndNeverSticks()
{
    const json owner = createApp("owner");
    createDependent(u"child"_s, { str(owner["metadata"]["uid"]) });
    auto sink = startWatch(call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion())));
    const ApiResponse response
        = call("DELETE", customApps + u"/owner"_s, R"({"propagationPolicy":"Foreground"})");
    QCOMPARE(response.status, 200);
    const json marked = parse(response.body);
    QCOMPARE(str(marked["metadata"]["finalizers"][0]), u"foregroundDeletion"_s);
    QVERIFY(marked["metadata"].contains("deletionTimestamp"));
    QCOMPARE(status(deployments + u"/child"_s), 404);
    QCOMPARE(status(customApps + u"/owner"_s), 404);
    QCOMPARE(sink->types(), (QStringList{ u"MODIFIED"_s, u"DELETED"_s }));
    // No dependents at all: resolved at once too.
    createApp("lonely");
    QCOMPARE(call("DELETE", customApps + u"/lonely?propagationPolicy=Foreground"_s).status, 200);
    QCOMPARE(status(customApps + u"/lonely"_s), 404);
}

void tst_Deletion::foregroundWaitsForDependentFinalizers()
{
    const json owner = createApp("owner");
    json child = createDependent(u"child"_s, { str(owner["metadata"]["uid"]) });
    QCOMPARE(call("PATCH",
                  deployments + u"/child"_s,
                  R"({"metadata":{"finalizers":["example.com/hold"]}})",
                  "application/merge-patch+json")
                 .status,
             200);
    call("DELETE", customApps + u"/owner"_s, R"({"propagationPolicy":"Foreground"})");
    QCOMPARE(status(customApps + u"/owner"_s), 200); // waiting for the child
    child = parse(call("GET", deployments + u"/child"_s).body);
    QVERIFY(child["metadata"].contains("deletionTimestamp"));
    QCOMPARE(call("PATCH",
                  deployments + u"/child"_s,
                  R"({"metadata":{"finalizers":null}})",
                  "application/merge-patch+json")
                 .status,
             200);
    QCOMPARE(status(deployments + u"/child"_s), 404);
    QCOMPARE(status(customApps + u"/owner"_s), 404);
}

void tst_Deletion::orphanStripsOwnerReferences()
{
    const json owner = createApp("owner");
    createDependent(u"child"_s, { str(owner["metadata"]["uid"]) });
    const ApiResponse response = call("DELETE", customApps + u"/owner?propagationPolicy=Orphan"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(status(customApps + u"/owner"_s), 404);
    const json child = parse(call("GET", deployments + u"/child"_s).body);
    QVERIFY(!child["metadata"].contains("ownerReferences"));
    // orphanDependents=true is the legacy spelling.
    const json owner2 = createApp("owner2");
    createDependent(u"child2"_s, { str(owner2["metadata"]["uid"]) });
    QCOMPARE(call("DELETE", customApps + u"/owner2"_s, R"({"orphanDependents":true})").status, 200);
    QCOMPARE(status(deployments + u"/child2"_s), 200);
    QCOMPARE(status(customApps + u"/owner2"_s), 404);
}

void tst_Deletion::dependentWithAnotherOwnerSurvives()
{
    const json a = createApp("a");
    const json b = createApp("b");
    createDependent(u"shared"_s, { str(a["metadata"]["uid"]), str(b["metadata"]["uid"]) });
    call("DELETE", customApps + u"/a"_s);
    const json shared = parse(call("GET", deployments + u"/shared"_s).body);
    QCOMPARE(shared["metadata"]["ownerReferences"].size(), size_t(1));
    QCOMPARE(dump(shared["metadata"]["ownerReferences"][0]["uid"]), dump(b["metadata"]["uid"]));
    call("DELETE", customApps + u"/b"_s);
    QCOMPARE(status(deployments + u"/shared"_s), 404);
}

void tst_Deletion::deleteCollection()
{
    createApp("a", { { "labels", { { "tier", "web" } } } });
    createApp("b", { { "labels", { { "tier", "web" } } }, { "finalizers", { "example.com/f" } } });
    createApp("c", { { "labels", { { "tier", "db" } } } });
    ApiResponse response = call("DELETE", customApps + u"?labelSelector=tier%3Dweb"_s);
    QCOMPARE(response.status, 200);
    const json list = parse(response.body);
    QCOMPARE(str(list["kind"]), u"CustomAppList"_s);
    QCOMPARE(list["items"].size(), size_t(2));
    // The answer lists the items as they were found, as upstream's DeleteCollection does.
    QVERIFY(!list["items"][1]["metadata"].contains("deletionTimestamp"));
    QCOMPARE(status(customApps + u"/a"_s), 404);
    QCOMPARE(status(customApps + u"/b"_s), 200);
    QVERIFY(
        parse(call("GET", customApps + u"/b"_s).body)["metadata"].contains("deletionTimestamp"));
    QCOMPARE(status(customApps + u"/c"_s), 200);
    // A namespaced kind needs a namespace for deletecollection.
    response = call("DELETE", u"/apis/infrastructure.internal.net/v1/customapps"_s);
    QCOMPARE(response.status, 404);
    QCOMPARE(response.body, QByteArray("404 page not found\n"));
}

void tst_Deletion::namespaceDeletionDeletesContents()
{
    QCOMPARE(call("POST",
                  u"/api/v1/namespaces"_s,
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                 .status,
             201);
    const QString teamApps = u"/apis/infrastructure.internal.net/v1/namespaces/team/customapps"_s;
    QCOMPARE(call("POST", teamApps, dump(customApp("x"))).status, 201);
    json held = customApp("held");
    held["metadata"]["finalizers"] = { "example.com/f" };
    QCOMPARE(call("POST", teamApps, dump(held)).status, 201);
    QCOMPARE(call("POST",
                  u"/api/v1/namespaces/team/configmaps"_s,
                  R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")
                 .status,
             201);

    ApiResponse response = call("DELETE", u"/api/v1/namespaces/team"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["status"]["phase"]), u"Terminating"_s);
    QCOMPARE(status(teamApps + u"/x"_s), 404);
    QCOMPARE(status(u"/api/v1/namespaces/team/configmaps/c"_s), 404);
    QCOMPARE(status(u"/api/v1/namespaces/team"_s), 200); // held by the finalizer of "held"
    response = call("POST", teamApps, dump(customApp("late")));
    QCOMPARE(response.status, 403);
    QVERIFY(
        str(parse(response.body)["message"])
            .endsWith(
                u"unable to create new content in namespace team because it is being terminated"_s));

    QCOMPARE(call("PATCH",
                  teamApps + u"/held"_s,
                  R"({"metadata":{"finalizers":null}})",
                  "application/merge-patch+json")
                 .status,
             200);
    QCOMPARE(status(teamApps + u"/held"_s), 404);
    QCOMPARE(status(u"/api/v1/namespaces/team"_s), 404);
}

QTEST_GUILESS_MAIN(tst_Deletion)
#include "tst_deletion.moc"
