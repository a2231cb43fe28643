#include "apitestsupport.h"

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// Lists: order, shape, limit/continue at the first page's RV, resourceVersion semantics,
// selectors and list-option validation (shared/spec/kube-api.md sections 1 and 4, items 9, 14, 15).
class tst_Pagination : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void listShape();
    void emptyListHasItemsArray();
    void listsAreSortedByNamespaceThenName();
    void pagesAreServedAtTheFirstPagesRv();
    void remainingItemCountOnlyWithoutSelectors();
    void remainingItemCountAcrossPages();
    void continueTokenErrors();
    void expiredContinueIs410WithFreshToken();
    void resourceVersionSemantics();
    void listOptionValidation_data();
    void listOptionValidation();
    void labelAndFieldSelectors();
    void selectableFieldsOfCrds();
    void tableResponses();

private:
    void createIn(const QString &ns, const std::string &name, const json &labels = json::object())
    {
        json app = customApp(name);
        if (!labels.empty())
            app["metadata"]["labels"] = labels;
        const ApiResponse response
            = call("POST",
                   u"/apis/infrastructure.internal.net/v1/namespaces/"_s + ns + u"/customapps"_s,
                   dump(app));
        QVERIFY2(response.status == 201, response.body.constData());
    }
    QStringList names(const json &list)
    {
        QStringList result;
        for (const json &item : list["items"])
            result << str(item["metadata"]["namespace"]) + u'/' + str(item["metadata"]["name"]);
        return result;
    }
};

void tst_Pagination::init()
{
    setUp();
}

void tst_Pagination::cleanup()
{
    tearDown();
}

void tst_Pagination::listShape()
{
    createIn(u"default"_s, "a");
    const ApiResponse response = call("GET", customApps);
    QCOMPARE(response.status, 200);
    QVERIFY(response.body.endsWith("}\n"));
    const json list = parse(response.body);
    QCOMPARE(str(list["apiVersion"]), u"infrastructure.internal.net/v1"_s);
    QCOMPARE(str(list["kind"]), u"CustomAppList"_s);
    QCOMPARE(str(list["metadata"]["continue"]), QString());
    QVERIFY(list["metadata"].contains("continue"));
    QVERIFY(!list["metadata"].contains("remainingItemCount"));
    QCOMPARE(str(list["metadata"]["resourceVersion"]),
             QString::number(m_cluster->currentResourceVersion()));
    QCOMPARE(str(list["items"][0]["apiVersion"]), u"infrastructure.internal.net/v1"_s);
    QCOMPARE(str(list["items"][0]["kind"]), u"CustomApp"_s);
    QVERIFY(!list["items"][0]["metadata"].contains("selfLink"));
    // The list RV is the cluster's revision even when it exceeds every item's.
    call("POST",
         u"/api/v1/namespaces/default/configmaps"_s,
         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})");
    const json later = parse(call("GET", customApps).body);
    QVERIFY(str(later["metadata"]["resourceVersion"]).toLongLong()
            > str(later["items"][0]["metadata"]["resourceVersion"]).toLongLong());
}

void tst_Pagination::emptyListHasItemsArray()
{
    const ApiResponse response = call("GET", customApps);
    const QByteArray expected = "{\"apiVersion\":\"infrastructure.internal.net/"
                                "v1\",\"items\":[],\"kind\":\"CustomAppList\","
                                "\"metadata\":{\"continue\":\"\",\"resourceVersion\":\""
        + QByteArray::number(m_cluster->currentResourceVersion()) + "\"}}\n";
    QCOMPARE(response.body, expected);
}

void tst_Pagination::listsAreSortedByNamespaceThenName()
{
    call("POST",
         u"/api/v1/namespaces"_s,
         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"alpha"}})");
    createIn(u"default"_s, "zeta");
    createIn(u"alpha"_s, "omega");
    createIn(u"default"_s, "beta");
    createIn(u"alpha"_s, "alpha");
    const json all = parse(call("GET", u"/apis/infrastructure.internal.net/v1/customapps"_s).body);
    QCOMPARE(
        names(all),
        (QStringList{ u"alpha/alpha"_s, u"alpha/omega"_s, u"default/beta"_s, u"default/zeta"_s }));
    const json inDefault = parse(call("GET", customApps).body);
    QCOMPARE(names(inDefault), (QStringList{ u"default/beta"_s, u"default/zeta"_s }));
}

void tst_Pagination::pagesAreServedAtTheFirstPagesRv()
{
    for (int i = 0; i < 7; ++i)
        createIn(u"default"_s, "app-" + std::to_string(i));
    json page = parse(call("GET", customApps + u"?limit=3"_s).body);
    const QString listRv = str(page["metadata"]["resourceVersion"]);
    QCOMPARE(page["items"].size(), size_t(3));
    QCOMPARE(page["metadata"]["remainingItemCount"].get<int>(), 4);
    QStringList seen = names(page);
    // Changes between pages do not show up: app-5 modified, app-6 deleted, app-9 added.
    call("DELETE", customApps + u"/app-6"_s);
    createIn(u"default"_s, "app-9");
    const ApiResponse patched = m_server->handle(request("PATCH",
                                                         customApps + u"/app-5"_s,
                                                         R"({"spec":{"image":"changed"}})",
                                                         "application/merge-patch+json"));
    QCOMPARE(patched.status, 200);
    while (!str(page["metadata"]["continue"]).isEmpty()) {
        const ApiResponse response
            = call("GET", customApps + u"?limit=3&continue="_s + str(page["metadata"]["continue"]));
        QCOMPARE(response.status, 200);
        page = parse(response.body);
        QCOMPARE(str(page["metadata"]["resourceVersion"]), listRv);
        seen << names(page);
        for (const json &item : page["items"])
            QCOMPARE(str(item["spec"]["image"]), u"nginx:1.27"_s);
    }
    QCOMPARE(seen.size(), 7);
    QVERIFY(seen.contains(u"default/app-6"_s));
    QVERIFY(!seen.contains(u"default/app-9"_s));
    QVERIFY(!page["metadata"].contains("remainingItemCount"));
    // limit is ignored for resourceVersion=0.
    const json any = parse(call("GET", customApps + u"?limit=2&resourceVersion=0"_s).body);
    QCOMPARE(any["items"].size(), size_t(7));
    QCOMPARE(str(any["metadata"]["continue"]), QString());
}

void tst_Pagination::remainingItemCountOnlyWithoutSelectors()
{
    for (int i = 0; i < 4; ++i)
        createIn(u"default"_s, "app-" + std::to_string(i), { { "tier", "web" } });
    const json withSelector
        = parse(call("GET", customApps + u"?limit=2&labelSelector=tier%3Dweb"_s).body);
    QCOMPARE(withSelector["items"].size(), size_t(2));
    QVERIFY(!str(withSelector["metadata"]["continue"]).isEmpty());
    QVERIFY(!withSelector["metadata"].contains("remainingItemCount"));
    const json next = parse(call("GET",
                                 customApps + u"?limit=2&labelSelector=tier%3Dweb&continue="_s
                                     + str(withSelector["metadata"]["continue"]))
                                .body);
    QCOMPARE(names(next), (QStringList{ u"default/app-2"_s, u"default/app-3"_s }));
}

void tst_Pagination::remainingItemCountAcrossPages()
{
    call("POST",
         u"/api/v1/namespaces"_s,
         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}})");
    for (int i = 0; i < 7; ++i)
        createIn(u"default"_s, "app-" + std::to_string(i));
    createIn(u"other"_s, "x");
    QList<int> remaining;
    QString token;
    do {
        const json page = parse(call("GET", customApps + u"?limit=2&continue="_s + token).body);
        remaining << (page["metadata"].contains("remainingItemCount")
                          ? page["metadata"]["remainingItemCount"].get<int>()
                          : -1);
        token = str(page["metadata"]["continue"]);
    } while (!token.isEmpty());
    QCOMPARE(remaining, (QList<int>{ 5, 3, 1, -1 }));
    const json all
        = parse(call("GET", u"/apis/infrastructure.internal.net/v1/customapps?limit=3"_s).body);
    QCOMPARE(all["metadata"]["remainingItemCount"].get<int>(), 5);
}

void tst_Pagination::continueTokenErrors()
{
    for (int i = 0; i < 3; ++i)
        createIn(u"default"_s, "app-" + std::to_string(i));
    ApiResponse response = call("GET", customApps + u"?limit=1&continue=not-a-token"_s);
    QCOMPARE(response.status, 400);
    QVERIFY(str(parse(response.body)["message"]).startsWith(u"invalid continue token"_s));
    const json page = parse(call("GET", customApps + u"?limit=1"_s).body);
    response = call("GET",
                    customApps + u"?limit=1&resourceVersion=5&continue="_s
                        + str(page["metadata"]["continue"]));
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]),
             u"specifying resource version is not allowed when using continue"_s);
    response = call("GET",
                    customApps + u"?limit=1&resourceVersion=0&continue="_s
                        + str(page["metadata"]["continue"]));
    QCOMPARE(response.status, 200);
    // Served from the watch cache, which ignores the limit for resourceVersion=0: the rest of
    // the list at the token's revision, in one page.
    const json rest = parse(response.body);
    QCOMPARE(names(rest), (QStringList{ u"default/app-1"_s, u"default/app-2"_s }));
    QCOMPARE(str(rest["metadata"]["continue"]), QString());
    QVERIFY(!rest["metadata"].contains("remainingItemCount"));
    QCOMPARE(str(rest["metadata"]["resourceVersion"]), str(page["metadata"]["resourceVersion"]));
}

void tst_Pagination::expiredContinueIs410WithFreshToken()
{
    for (int i = 0; i < 3; ++i)
        createIn(u"default"_s, "app-" + std::to_string(i));
    const json page = parse(call("GET", customApps + u"?limit=1"_s).body);
    createIn(u"default"_s, "app-3");
    m_cluster->compact();
    const ApiResponse response
        = call("GET", customApps + u"?limit=1&continue="_s + str(page["metadata"]["continue"]));
    QCOMPARE(response.status, 410);
    const json status = parse(response.body);
    QCOMPARE(str(status["reason"]), u"Expired"_s);
    QVERIFY(str(status["message"]).startsWith(u"The provided continue parameter is too old"_s));
    const QString fresh = str(status["metadata"]["continue"]);
    QVERIFY(!fresh.isEmpty());
    // The fresh token continues (inconsistently) at the latest state.
    const json rest = parse(call("GET", customApps + u"?continue="_s + fresh).body);
    QCOMPARE(names(rest),
             (QStringList{ u"default/app-1"_s, u"default/app-2"_s, u"default/app-3"_s }));
}

void tst_Pagination::resourceVersionSemantics()
{
    createIn(u"default"_s, "a");
    const qint64 rv = m_cluster->currentResourceVersion();
    createIn(u"default"_s, "b");
    // Exact: the state at that revision.
    json exact = parse(call("GET",
                            customApps + u"?resourceVersion="_s + QString::number(rv)
                                + u"&resourceVersionMatch=Exact"_s)
                           .body);
    QCOMPARE(names(exact), QStringList{ u"default/a"_s });
    QCOMPARE(str(exact["metadata"]["resourceVersion"]), QString::number(rv));
    // NotOlderThan: the latest.
    json notOlder = parse(call("GET",
                               customApps + u"?resourceVersion="_s + QString::number(rv)
                                   + u"&resourceVersionMatch=NotOlderThan"_s)
                              .body);
    QCOMPARE(notOlder["items"].size(), size_t(2));
    // Future RV: 504.
    const ApiResponse future = call("GET", customApps + u"?resourceVersion=999999"_s);
    QCOMPARE(future.status, 504);
    QCOMPARE(str(parse(future.body)["reason"]), u"Timeout"_s);
    QVERIFY(str(parse(future.body)["message"])
                .startsWith(u"Timeout: Too large resource version: 999999, current: "_s));
    // Non-integer: 400.
    QCOMPARE(call("GET", customApps + u"?resourceVersion=x1"_s).status, 400);
}

void tst_Pagination::listOptionValidation_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("message");
    QTest::newRow("match without rv")
        << u"resourceVersionMatch=NotOlderThan"_s
        << u"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"_s;
    QTest::newRow("match with continue")
        << u"resourceVersion=1&resourceVersionMatch=Exact&continue=x"_s
        << u"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"_s;
    QTest::newRow("exact zero")
        << u"resourceVersion=0&resourceVersionMatch=Exact"_s
        << u"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""_s;
    QTest::newRow("sendInitialEvents on list")
        << u"sendInitialEvents=true"_s
        << u"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"_s;
}

void tst_Pagination::listOptionValidation()
{
    QFETCH(QString, query);
    QFETCH(QString, message);
    const ApiResponse response = call("GET", customApps + u'?' + query);
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QCOMPARE(str(status["message"]), message);
    QCOMPARE(str(status["details"]["kind"]), u"ListOptions"_s);
    QCOMPARE(str(status["details"]["group"]), u"meta.k8s.io"_s);
}

void tst_Pagination::labelAndFieldSelectors()
{
    createIn(u"default"_s, "a", { { "tier", "web" }, { "env", "prod" } });
    createIn(u"default"_s, "b", { { "tier", "db" } });
    createIn(u"kube-system"_s, "c", { { "tier", "web" } });
    auto list = [&](const QString &query) {
        return names(
            parse(call("GET", u"/apis/infrastructure.internal.net/v1/customapps?"_s + query).body));
    };
    QCOMPARE(list(u"labelSelector=tier%3Dweb"_s),
             (QStringList{ u"default/a"_s, u"kube-system/c"_s }));
    QCOMPARE(list(u"labelSelector=tier%20notin%20(web),!env"_s), QStringList{ u"default/b"_s });
    QCOMPARE(list(u"labelSelector=env"_s), QStringList{ u"default/a"_s });
    QCOMPARE(list(u"fieldSelector=metadata.name%3Db"_s), QStringList{ u"default/b"_s });
    QCOMPARE(list(u"fieldSelector=metadata.namespace%21%3Ddefault"_s),
             QStringList{ u"kube-system/c"_s });
    ApiResponse response = call("GET", customApps + u"?fieldSelector=status.phase%3DRunning"_s);
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]), u"field label not supported: status.phase"_s);
    QCOMPARE(call("GET", customApps + u"?labelSelector=a%20in%20b"_s).status, 400);
    // Cluster-scoped kinds have no metadata.namespace field.
    QCOMPARE(call("GET", u"/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx"_s).status, 400);
    QCOMPARE(call("GET", u"/api/v1/namespaces?fieldSelector=status.phase%3DActive"_s).status, 200);
}

void tst_Pagination::selectableFieldsOfCrds()
{
    const QByteArray crd
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"shirts.stable.example.com"},
      "spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"shirts","singular":"shirt","kind":"Shirt"},
      "versions":[{"name":"v1","served":true,"storage":true,"selectableFields":[{"jsonPath":".spec.color"},{"jsonPath":".spec.size"}],
      "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string"},"size":{"type":"string"}}}}}}}]}})";
    ApiResponse response
        = call("POST", u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s, crd);
    QVERIFY2(response.status == 201, response.body.constData());
    const QString shirts = u"/apis/stable.example.com/v1/namespaces/default/shirts"_s;
    for (const auto &[name, color] :
         { std::pair{ "s1", "blue" }, std::pair{ "s2", "red" }, std::pair{ "s3", "blue" } }) {
        const json shirt = { { "apiVersion", "stable.example.com/v1" },
                             { "kind", "Shirt" },
                             { "metadata", { { "name", name } } },
                             { "spec", { { "color", color }, { "size", "M" } } } };
        QCOMPARE(call("POST", shirts, dump(shirt)).status, 201);
    }
    const json blue = parse(call("GET", shirts + u"?fieldSelector=spec.color%3Dblue"_s).body);
    QCOMPARE(names(blue), (QStringList{ u"default/s1"_s, u"default/s3"_s }));
    const json notBlue
        = parse(call("GET", shirts + u"?fieldSelector=spec.color!%3Dblue,spec.size%3DM"_s).body);
    QCOMPARE(names(notBlue), QStringList{ u"default/s2"_s });
    QCOMPARE(call("GET", shirts + u"?fieldSelector=spec.pattern%3Dx"_s).status, 400);
}

void tst_Pagination::tableResponses()
{
    createIn(u"default"_s, "a");
    ApiRequest r = request("GET", customApps + u"?limit=500"_s);
    r.headers.append(
        qMakePair(QByteArray("accept"),
                  QByteArray("application/json;as=Table;v=v1;g=meta.k8s.io,application/"
                             "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")));
    const ApiResponse response = m_server->handle(r);
    QCOMPARE(response.status, 200);
    const json table = parse(response.body);
    QCOMPARE(str(table["kind"]), u"Table"_s);
    QCOMPARE(str(table["apiVersion"]), u"meta.k8s.io/v1"_s);
    QStringList columns;
    for (const json &column : table["columnDefinitions"])
        columns << str(column["name"]);
    QVERIFY2(columns.contains(u"Image"_s), qPrintable(columns.join(u',')));
    QCOMPARE(table["rows"].size(), size_t(1));
    QCOMPARE(str(table["rows"][0]["object"]["metadata"]["name"]), u"a"_s);
}

QTEST_GUILESS_MAIN(tst_Pagination)
#include "tst_pagination.moc"
