// The write path's shortcuts keep what clients see unchanged: a write serializes the object once
// and commits those bytes with the new resourceVersion spliced in, a patch parses the stored
// object once, a status write builds the stored object from the request's, metadata validation is
// skipped for unchanged names and labels, and HTTP answers carry the committed bytes. Every kind of
// write is checked against a full re-serialization, the GET, the write's own answer and the watch
// events (plain, label- and field-selected, Table).
#include "apitestsupport.h"

#include "controller/cluster/objectjson.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using namespace reconscope::controller::cluster::testsupport;

namespace {

QByteArray withoutNewline(QByteArray body)
{
    if (body.endsWith('\n'))
        body.chop(1);
    return body;
}

// The object's bytes as nlohmann writes them after reading them: stored text is canonical.
QByteArray canonical(const QByteArray &text)
{
    return QByteArray::fromStdString(
        parse(text).dump(-1, ' ', false, json::error_handler_t::replace));
}

} // namespace

class tst_WritePath final : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void everyKindOfWriteCommitsWhatGetAndWatchersSee();
    void statusWriteKeepsTheStoredObjectExactly();
    void statusWriteValidatesTheStatusAlone();
    void metadataValidationStillRefusesChangedLabels();
    void inProcessResultWithAndWithoutObject();
    void eventLinesSharedOnlyBetweenLikeWatchers();
    void readModifyWriteUsesTheStateRead();
    void statusPatchInPlaceMatchesTheGeneralWay();
};

void tst_WritePath::everyKindOfWriteCommitsWhatGetAndWatchersSee()
{
    const QString item = customApps + u"/web"_s;
    json created = createApp(
        "web", { { "labels", { { "tier", "front" } } }, { "finalizers", { "example.com/hold" } } });
    QVERIFY(created.is_object());
    const QString from = QString::fromStdString(created["metadata"]["resourceVersion"]);

    auto all = startWatch(call("GET", customApps + u"?watch=1&resourceVersion="_s + from));
    auto front = startWatch(
        call("GET", customApps + u"?watch=1&labelSelector=tier%3Dfront&resourceVersion="_s + from));
    auto byName = startWatch(
        call("GET",
             customApps + u"?watch=1&fieldSelector=metadata.name%3Dweb&resourceVersion="_s + from));
    ApiRequest tableRequest = request("GET", customApps + u"?watch=1&resourceVersion="_s + from);
    tableRequest.headers.append(qMakePair(
        QByteArray("accept"), QByteArray("application/json;as=Table;v=v1;g=meta.k8s.io")));
    auto table = startWatch(m_server->handle(tableRequest));

    struct Write
    {
        QByteArray method;
        QString path;
        QByteArray body;
        QByteArray contentType;
        bool labelled; // tier=front after the write
    };
    const auto rv = [&] {
        return std::to_string(m_cluster->currentResourceVersion());
    };
    const QList<Write> writes = {
        { "PUT",
          item,
          dump({ { "apiVersion", "infrastructure.internal.net/v1" },
                 { "kind", "CustomApp" },
                 { "metadata",
                   { { "name", "web" },
                     { "resourceVersion", rv() },
                     { "labels", { { "tier", "front" } } },
                     { "finalizers", { "example.com/hold" } } } },
                 { "spec", { { "image", "nginx:1.28" }, { "replicas", 3 } } } }),
          "application/json",
          true },
        { "PATCH",
          item + u"/status"_s,
          R"({"status":{"observedGeneration":2,"conditions":[{"type":"Ready","status":"True","reason":"Up","message":"é \"quoted\"\n","lastTransitionTime":"2026-11-30T07:00:00Z"}]}})",
          "application/merge-patch+json",
          true },
        { "PATCH",
          item + u"/status"_s,
          R"([{"op":"replace","path":"/status/conditions/0/message","value":"second"}])",
          "application/json-patch+json",
          true },
        { "PATCH",
          item,
          R"({"metadata":{"labels":{"tier":"back"}},"spec":{"replicas":4}})",
          "application/merge-patch+json",
          false },
        { "PATCH",
          item,
          R"([{"op":"replace","path":"/metadata/labels/tier","value":"front"}])",
          "application/json-patch+json",
          true },
    };
    int expectedEvents = 0;
    int expectedFront = 0;
    bool wasFront = true;
    for (const Write &write : writes) {
        const ApiResponse answer = call(write.method, write.path, write.body, write.contentType);
        QVERIFY2(answer.status == 200, answer.body.constData());
        const ApiResponse get = call("GET", item);
        const QByteArray stored = withoutNewline(get.body);
        QCOMPARE(withoutNewline(answer.body), stored);
        QCOMPARE(stored, canonical(stored));
        JSON_COMPARE(parse(stored)["metadata"]["resourceVersion"], json(rv()));
        ++expectedEvents;
        if (write.labelled || wasFront)
            ++expectedFront;
        const char *frontType = write.labelled ? (wasFront ? "MODIFIED" : "ADDED") : "DELETED";
        wasFront = write.labelled;
        QCOMPARE(int(all->events.size()), expectedEvents);
        const json &event = all->events.back();
        JSON_COMPARE(event["type"], json("MODIFIED"));
        QCOMPARE(dump(event["object"]), stored);
        QCOMPARE(int(byName->events.size()), expectedEvents);
        QCOMPARE(dump(byName->events.back()["object"]), stored);
        QCOMPARE(int(front->events.size()), expectedFront);
        JSON_COMPARE(front->events.back()["type"], json(frontType));
        JSON_COMPARE(front->events.back()["object"]["metadata"]["resourceVersion"], json(rv()));
        QCOMPARE(int(table->events.size()), expectedEvents);
        JSON_COMPARE(
            table->events.back()["object"]["rows"][0]["object"]["metadata"]["resourceVersion"],
            json(rv()));
    }
    QCOMPARE(
        front->types(),
        QStringList({ u"MODIFIED"_s, u"MODIFIED"_s, u"MODIFIED"_s, u"DELETED"_s, u"ADDED"_s }));

    // Delete: the finalizer holds it (MODIFIED with deletionTimestamp), removing it deletes it
    // (DELETED with the last stored state at the deletion's resourceVersion).
    const ApiResponse marked = call("DELETE", item);
    QCOMPARE(marked.status, 200);
    const QByteArray held = withoutNewline(call("GET", item).body);
    QCOMPARE(withoutNewline(marked.body), held);
    QCOMPARE(held, canonical(held));
    QCOMPARE(dump(all->events.back()["object"]), held);
    const ApiResponse released = call(
        "PATCH", item, R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
    QCOMPARE(released.status, 200);
    QCOMPARE(call("GET", item).status, 404);
    const json &deleted = all->events.back();
    JSON_COMPARE(deleted["type"], json("DELETED"));
    JSON_COMPARE(deleted["object"]["metadata"]["resourceVersion"], json(rv()));
    JSON_COMPARE(deleted["object"]["metadata"]["finalizers"], json({ "example.com/hold" }));
    json last = parse(held);
    last["metadata"]["resourceVersion"] = rv();
    QCOMPARE(dump(deleted["object"]), dump(last));
    JSON_COMPARE(byName->events.back()["type"], json("DELETED"));
    JSON_COMPARE(front->events.back()["type"], json("DELETED"));
}

void tst_WritePath::statusWriteKeepsTheStoredObjectExactly()
{
    const QString item = customApps + u"/api"_s;
    json stored = createApp("api");
    // A status write whose body differs from the stored object outside the status: in number
    // types (2.0 for 2), an unknown top-level member, a missing spec. Only the status counts.
    json body = stored;
    body["spec"]["replicas"] = 2.0;
    body["extra"] = 1;
    body["status"] = { { "observedGeneration", 1 } };
    ApiResponse answer = call("PUT", item + u"/status"_s, dump(body));
    QVERIFY2(answer.status == 200, answer.body.constData());
    const QByteArray afterStatus = withoutNewline(call("GET", item).body);
    QCOMPARE(withoutNewline(answer.body), afterStatus);
    QVERIFY2(afterStatus.contains("\"replicas\":2}"), afterStatus.constData());
    QVERIFY(!afterStatus.contains("extra"));
    JSON_COMPARE(parse(afterStatus)["metadata"]["generation"], json(1));
    JSON_COMPARE(parse(afterStatus)["status"], json({ { "observedGeneration", 1 } }));

    // The same status again with a float in the spec and no spec at all: a no-op both times.
    const qint64 revision = m_cluster->currentResourceVersion();
    auto watcher = startWatch(
        call("GET", customApps + u"?watch=1&resourceVersion="_s + QString::number(revision)));
    body = parse(afterStatus);
    body["spec"]["replicas"] = 2.0;
    answer = call("PUT", item + u"/status"_s, dump(body));
    QCOMPARE(answer.status, 200);
    body.erase("spec");
    answer = call("PUT", item + u"/status"_s, dump(body));
    QCOMPARE(answer.status, 200);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    QCOMPARE(withoutNewline(call("GET", item).body), afterStatus);
    QVERIFY(watcher->events.empty());
}

// apiextensions validates a status write's status against the status schema alone: the causes'
// fields start at "status", kube-openapi's names in the messages below it (the general way and
// the in-place status patch alike).
void tst_WritePath::statusWriteValidatesTheStatusAlone()
{
    const QString status = customApps + u"/checked/status"_s;
    createApp("checked");
    for (bool inPlace : { false, true }) {
        if (inPlace) // a stored status first: the next status patch may take the shortcut
            QCOMPARE(call("PATCH",
                          status,
                          R"({"status":{"observedGeneration":1}})",
                          "application/merge-patch+json")
                         .status,
                     200);
        const ApiResponse answer = call(
            "PATCH",
            status,
            R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"not a reason","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
            "application/merge-patch+json");
        QVERIFY2(answer.status == 422, answer.body.constData());
        const json causes = parse(answer.body)["details"]["causes"];
        QCOMPARE(causes.size(), std::size_t(1));
        QCOMPARE(str(causes[0]["field"]), u"status.conditions[0].reason"_s);
        QCOMPARE(str(causes[0]["message"]),
                 u"Invalid value: \"not a reason\": conditions[0].reason in body should match "
                 "'^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'"_s);
    }
}

void tst_WritePath::metadataValidationStillRefusesChangedLabels()
{
    const QString item = customApps + u"/labelled"_s;
    json stored = createApp("labelled", { { "labels", { { "team", "a" } } } });
    json body = stored;
    body["metadata"]["labels"]["team"] = "not valid!";
    ApiResponse answer = call("PUT", item, dump(body));
    QCOMPARE(answer.status, 422);
    QVERIFY(answer.body.contains("metadata.labels"));
    answer
        = call("PATCH",
               item + u"/status"_s,
               R"({"metadata":{"labels":{"team":"not valid!"}},"status":{"observedGeneration":1}})",
               "application/merge-patch+json");
    // A status write ignores the labels it carries: the stored ones are kept, nothing to refuse.
    QVERIFY2(answer.status == 200, answer.body.constData());
    JSON_COMPARE(parse(answer.body)["metadata"]["labels"]["team"], json("a"));
    body = parse(answer.body);
    body["spec"]["replicas"] = 5;
    answer = call("PUT", item, dump(body));
    QVERIFY2(answer.status == 200, answer.body.constData());
    JSON_COMPARE(parse(answer.body)["metadata"]["generation"], json(2));
    body = parse(answer.body);
    body["metadata"]["name"] = "other";
    QCOMPARE(call("PUT", item, dump(body)).status, 400);
}

void tst_WritePath::inProcessResultWithAndWithoutObject()
{
    const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
    createApp("inproc");
    auto full = m_cluster->patch(apps,
                                 u"default"_s,
                                 u"inproc"_s,
                                 PatchType::Merge,
                                 R"({"status":{"observedGeneration":1}})",
                                 true);
    QVERIFY(full.ok());
    const QByteArray stored = withoutNewline(call("GET", customApps + u"/inproc"_s).body);
    QCOMPARE(full->objectJson, stored);
    QCOMPARE(objectjson::dump(full->object), stored);

    WriteOptions outcomeOnly;
    outcomeOnly.returnObject = false;
    auto bare
        = m_cluster->patch(apps,
                           u"default"_s,
                           u"inproc"_s,
                           PatchType::Json,
                           R"([{"op":"replace","path":"/status/observedGeneration","value":2}])",
                           true,
                           outcomeOnly);
    QVERIFY(bare.ok());
    QVERIFY(bare->object.is_null());
    QCOMPARE(bare->objectJson, withoutNewline(call("GET", customApps + u"/inproc"_s).body));
    QVERIFY(bare->objectJson.contains("\"observedGeneration\":2"));

    // A no-op has nothing committed: the object is there, the bytes are not.
    auto noop = m_cluster->patch(apps,
                                 u"default"_s,
                                 u"inproc"_s,
                                 PatchType::Merge,
                                 R"({"status":{"observedGeneration":2}})",
                                 true,
                                 outcomeOnly);
    QVERIFY(noop.ok());
    QVERIFY(noop->objectJson.isEmpty());
    QCOMPARE(objectjson::dump(noop->object), bare->objectJson);
}

void tst_WritePath::eventLinesSharedOnlyBetweenLikeWatchers()
{
    // A kind served in two versions: watchers of the storage version share one rendered line per
    // event, a watcher of the other version gets its own apiVersion, a selector that the change
    // leaves gets DELETED with the previous state, a Table watcher a Table.
    const QByteArray crd
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
                  {"name":"v1beta1","served":true,"storage":false,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
    QCOMPARE(call("POST", u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s, crd).status,
             201);
    const QString v1 = u"/apis/example.com/v1/namespaces/default/gadgets"_s;
    const QString beta = u"/apis/example.com/v1beta1/namespaces/default/gadgets"_s;
    const ApiResponse created = call(
        "POST",
        v1,
        R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","labels":{"color":"red"}},"spec":{"size":1}})");
    QVERIFY2(created.status == 201, created.body.constData());
    const QString from = QString::fromStdString(parse(created.body)["metadata"]["resourceVersion"]);
    const QString watch = u"?watch=1&resourceVersion="_s + from;
    auto first = startWatch(call("GET", v1 + watch));
    auto second = startWatch(call("GET", v1 + watch));
    auto older = startWatch(call("GET", beta + watch));
    auto red = startWatch(call("GET", v1 + watch + u"&labelSelector=color%3Dred"_s));
    ApiRequest tableRequest = request("GET", v1 + watch);
    tableRequest.headers.append(qMakePair(
        QByteArray("accept"), QByteArray("application/json;as=Table;v=v1;g=meta.k8s.io")));
    auto table = startWatch(m_server->handle(tableRequest));

    QCOMPARE(call("PATCH",
                  v1 + u"/g/status"_s,
                  R"({"status":{"phase":"one"}})",
                  "application/merge-patch+json")
                 .status,
             200);
    const QByteArray redState = withoutNewline(call("GET", v1 + u"/g"_s).body);
    QCOMPARE(call("PATCH",
                  v1 + u"/g"_s,
                  R"({"metadata":{"labels":{"color":"blue"}}})",
                  "application/merge-patch+json")
                 .status,
             200);
    QCOMPARE(call("DELETE", v1 + u"/g"_s).status, 200);

    const QStringList expected = { u"MODIFIED"_s, u"MODIFIED"_s, u"DELETED"_s };
    QCOMPARE(first->types(), expected);
    QCOMPARE(second->lines, first->lines);
    QCOMPARE(older->types(), expected);
    QCOMPARE(red->types(), (QStringList{ u"MODIFIED"_s, u"DELETED"_s }));
    QCOMPARE(table->types(), expected);
    for (int i = 0; i < 3; ++i) {
        const json &event = first->events[std::size_t(i)];
        JSON_COMPARE(event["object"]["apiVersion"], json("example.com/v1"));
        json beta = event["object"];
        beta["apiVersion"] = "example.com/v1beta1";
        QCOMPARE(dump(older->events[std::size_t(i)]["object"]), dump(beta));
        JSON_COMPARE(table->events[std::size_t(i)]["object"]["kind"], json("Table"));
    }
    QCOMPARE(red->lines[0], first->lines[0]);
    // Leaving the selector: the state before the change, at the change's resourceVersion.
    json left = parse(redState);
    left["metadata"]["resourceVersion"] = first->events[1]["object"]["metadata"]["resourceVersion"];
    QCOMPARE(dump(red->events[1]["object"]), dump(left));
    JSON_COMPARE(first->events[1]["object"]["metadata"]["labels"]["color"], json("blue"));
}

void tst_WritePath::readModifyWriteUsesTheStateRead()
{
    // get() keeps its parse for the update that follows; the caller's changes to what it got
    // must not leak into it, and another object's or a later version's update must not use it.
    const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
    createApp("one");
    createApp("two");
    for (const char *image :
         { R"({"spec":{"image":"nginx:2"}})", R"({"spec":{"image":"nginx:3"}})" })
        QVERIFY(m_cluster->patch(apps, u"default"_s, u"two"_s, PatchType::Merge, image).ok());
    auto one = m_cluster->get(apps, u"default"_s, u"one"_s);
    QVERIFY(one.ok());
    json changed = *one;
    changed["spec"]["replicas"] = 7;
    auto two = m_cluster->get(apps, u"default"_s, u"two"_s);
    QVERIFY(two.ok());
    json twoChanged = *two;
    twoChanged["spec"]["replicas"] = 9;
    auto written = m_cluster->update(apps, u"default"_s, u"one"_s, changed);
    QVERIFY(written.ok());
    JSON_COMPARE(written->object["metadata"]["generation"], json(2));
    JSON_COMPARE(written->object["spec"]["replicas"], json(7));
    JSON_COMPARE(written->object["spec"]["image"], json("nginx:1.27"));
    written = m_cluster->update(apps, u"default"_s, u"two"_s, twoChanged);
    QVERIFY(written.ok());
    JSON_COMPARE(written->object["metadata"]["generation"], json(4));
    JSON_COMPARE(written->object["spec"]["image"], json("nginx:3"));

    // Read, modify the object read in place, write: the stored state is still the one read.
    auto again = m_cluster->get(apps, u"default"_s, u"one"_s);
    QVERIFY(again.ok());
    QVERIFY(m_cluster->get(apps, u"default"_s, u"two"_s).ok());
    QVERIFY(m_cluster->get(apps, u"default"_s, u"one"_s).ok());
    json &object = *again;
    object["spec"]["replicas"] = 8;
    object["status"] = { { "observedGeneration", 2 } };
    written = m_cluster->update(apps, u"default"_s, u"one"_s, object);
    QVERIFY(written.ok());
    JSON_COMPARE(written->object["metadata"]["generation"], json(3));
    QVERIFY(!written->object.contains("status")); // the main resource ignores the status
    written = m_cluster->updateStatus(apps, u"default"_s, u"one"_s, written->object);
    QVERIFY(written.ok());
    QVERIFY(!written->object.contains("status")); // nothing to write: a no-op
    // A stale read: the update is refused, whatever was kept.
    auto stale = m_cluster->get(apps, u"default"_s, u"two"_s);
    QVERIFY(stale.ok());
    QVERIFY(
        m_cluster
            ->patch(apps, u"default"_s, u"two"_s, PatchType::Merge, R"({"spec":{"replicas":1}})")
            .ok());
    (*stale)["spec"]["replicas"] = 3;
    QCOMPARE(m_cluster->update(apps, u"default"_s, u"two"_s, *stale).error().code, 409);
    const QByteArray stored = withoutNewline(call("GET", customApps + u"/two"_s).body);
    JSON_COMPARE(parse(stored)["spec"]["replicas"], json(1));
}

void tst_WritePath::statusPatchInPlaceMatchesTheGeneralWay()
{
    // Two clusters with the same clock get the same requests; one applies status patches to the
    // stored status alone where it can, the other goes the general way for all. Answers (status,
    // headers, body), stored bytes and watch lines must be the same, the uid aside.
    struct Twin
    {
        std::unique_ptr<Cluster> cluster;
        std::unique_ptr<ApiServer> server;
        std::shared_ptr<CollectingSink> watch;
        QByteArray uid;
        ApiResponse call(const QByteArray &method,
                         const QString &path,
                         const QByteArray &body = {},
                         const QByteArray &contentType = "application/merge-patch+json")
        {
            ApiResponse response = server->handle(request(method, path, body, contentType));
            if (!uid.isEmpty())
                response.body.replace(uid, "UID");
            return response;
        }
    };
    Twin twins[2];
    for (int i = 0; i < 2; ++i) {
        Twin &twin = twins[i];
        twin.cluster = std::make_unique<Cluster>();
        twin.cluster->setClock([] { return QDateTime(QDate(2026, 11, 30), QTime(9, 0), Qt::UTC); });
        twin.cluster->setWriteShortcuts(i == 0);
        twin.server = std::make_unique<ApiServer>(twin.cluster.get());
        json app = customApp("twin");
        app["metadata"]["labels"] = { { "tier", "front" } };
        app["metadata"]["annotations"] = { { "note", std::string(300, 'x') } };
        const ApiResponse created = twin.call("POST", customApps, dump(app), "application/json");
        QCOMPARE(created.status, 201);
        twin.uid = QByteArray::fromStdString(parse(created.body)["metadata"]["uid"]);
        twin.watch
            = startWatch(twin.call("GET",
                                   customApps + u"?watch=1&resourceVersion="_s
                                       + QString::number(twin.cluster->currentResourceVersion())));
    }
    Twin &shortcut = twins[0];
    Twin &general = twins[1];

    const QString item = customApps + u"/twin"_s;
    const QString status = item + u"/status"_s;
    const QByteArray merge = "application/merge-patch+json";
    const QByteArray jsonPatch = "application/json-patch+json";
    const auto condition = [](const char *type, const char *message) {
        return json{ { "type", type },
                     { "status", "True" },
                     { "reason", "Up" },
                     { "message", message },
                     { "lastTransitionTime", "2026-11-30T07:00:00Z" } };
    };
    struct Step
    {
        QByteArray method;
        QString path;
        QByteArray body;
        QByteArray contentType;
        bool inPlace; // expected to take the shortcut
    };
    const auto crdPath
        = u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/customapps.infrastructure.internal.net"_s;
    QList<Step> steps = {
        // No status stored yet: the general way.
        { "PATCH", status, R"({"status":{"observedGeneration":1}})", merge, false },
        { "PATCH",
          status,
          dump({ { "status", { { "conditions", { condition("Ready", "é \"q\"\n\\u0001") } } } } }),
          merge,
          true },
        { "PATCH",
          status,
          dump(json::array({ { { "op", "add" },
                               { "path", "/status/conditions/-" },
                               { "value", condition("Churn", "first") } } })),
          jsonPatch,
          true },
        { "PATCH",
          status,
          R"([{"op":"test","path":"/status/conditions/1/type","value":"Churn"},{"op":"replace","path":"/status/conditions/1/message","value":"second"}])",
          jsonPatch,
          true },
        // The same again: a no-op.
        { "PATCH",
          status,
          R"([{"op":"test","path":"/status/conditions/1/type","value":"Churn"},{"op":"replace","path":"/status/conditions/1/message","value":"second"}])",
          jsonPatch,
          false },
        // A failed test, an index out of range, a bad value, a missing required field.
        { "PATCH",
          status,
          R"([{"op":"test","path":"/status/conditions/0/type","value":"Churn"},{"op":"replace","path":"/status/conditions/0/message","value":"x"}])",
          jsonPatch,
          false },
        { "PATCH",
          status,
          R"([{"op":"replace","path":"/status/conditions/9/message","value":"x"}])",
          jsonPatch,
          false },
        { "PATCH", status, R"({"status":{"readyReplicas":"two"}})", merge, false },
        { "PATCH", status, R"({"status":{"conditions":[{"type":"Ready"}]}})", merge, false },
        // Unknown fields: warned about, or refused when strict.
        { "PATCH", status, R"({"status":{"bogus":1,"replicas":2}})", merge, false },
        { "PATCH",
          status + u"?fieldValidation=Strict"_s,
          R"({"status":{"bogus":1,"replicas":3}})",
          merge,
          false },
        { "PATCH", status + u"?dryRun=All"_s, R"({"status":{"replicas":9}})", merge, false },
        // Outside the status, or the whole status: the general way.
        { "PATCH",
          status,
          R"({"metadata":{"labels":{"tier":"back"}},"status":{"replicas":4}})",
          merge,
          false },
        { "PATCH",
          status,
          R"([{"op":"replace","path":"/status","value":{"replicas":5}}])",
          jsonPatch,
          false },
        { "PATCH",
          status,
          dump({ { "status",
                   { { "replicas", 6.0 },
                     { "observedGeneration", nullptr },
                     { "conditions", { condition("Ready", "again") } } } } }),
          merge,
          true },
        { "PATCH",
          status,
          R"([{"op":"remove","path":"/status/conditions/0"},{"op":"add","path":"/status/readyReplicas","value":1}])",
          jsonPatch,
          true },
        { "PATCH", status, R"({"status":null})", merge, false },
        { "PATCH", status, R"({"status":{"replicas":1}})", merge, false },
        { "PATCH", status, R"({"status":{"replicas":2}})", merge, true },
    };
    const auto run = [&](const Step &step) {
        const qint64 before = shortcut.cluster->statusPatchesInPlace();
        const ApiResponse a = shortcut.call(step.method, step.path, step.body, step.contentType);
        const ApiResponse b = general.call(step.method, step.path, step.body, step.contentType);
        const QByteArray what = step.method + ' ' + step.path.toUtf8() + ' ' + step.body;
        QVERIFY2(a.status == b.status, what.constData());
        QVERIFY2(a.headers == b.headers, what.constData());
        QVERIFY2(a.body == b.body, (what + '\n' + a.body + '\n' + b.body).constData());
        QVERIFY2((shortcut.cluster->statusPatchesInPlace() > before) == step.inPlace,
                 what.constData());
        QCOMPARE(shortcut.cluster->currentResourceVersion(),
                 general.cluster->currentResourceVersion());
        QCOMPARE(shortcut.call("GET", item).body, general.call("GET", item).body);
    };
    for (const Step &step : steps)
        run(step);
    QCOMPARE(general.cluster->statusPatchesInPlace(), 0);

    // A new schema (a defaulted spec field): the stored spec is not what it would default, so
    // the next status patch goes the general way (which adds the default), and so do those
    // after it until an update writes the spec under the new schema.
    for (Twin &twin : twins) {
        json crd = parse(twin.call("GET", crdPath).body);
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
           ["tier"]
            = { { "type", "string" }, { "default", "standard" } };
        QCOMPARE(twin.call("PUT", crdPath, dump(crd), "application/json").status, 200);
    }
    steps = {
        { "PATCH", status, R"({"status":{"replicas":3}})", merge, false },
        { "PATCH", status, R"({"status":{"replicas":4}})", merge, false },
        { "PATCH", item, R"({"spec":{"replicas":5}})", merge, false },
        { "PATCH", status, R"({"status":{"replicas":5}})", merge, true },
    };
    for (const Step &step : steps)
        run(step);
    QVERIFY(shortcut.call("GET", item).body.contains("\"tier\":\"standard\""));

    // Deleting (a finalizer holds it): status patches still apply.
    for (const Step &step :
         QList<Step>{ { "PATCH", item, R"({"metadata":{"finalizers":["x/hold"]}})", merge, false },
                      { "DELETE", item, {}, {}, false },
                      { "PATCH", status, R"({"status":{"replicas":6}})", merge, false },
                      { "PATCH", status, R"({"status":{"replicas":7}})", merge, false },
                      { "PATCH", item, R"({"metadata":{"finalizers":null}})", merge, false } })
        run(step);
    QCOMPARE(shortcut.call("GET", item).status, 404);

    QCOMPARE(shortcut.watch->lines.size(), general.watch->lines.size());
    for (qsizetype i = 0; i < shortcut.watch->lines.size(); ++i) {
        QByteArray a = shortcut.watch->lines[i];
        QByteArray b = general.watch->lines[i];
        QCOMPARE(a.replace(shortcut.uid, "UID"), b.replace(general.uid, "UID"));
    }
    QVERIFY(shortcut.cluster->statusPatchesInPlace() >= 6);
}

QTEST_GUILESS_MAIN(tst_WritePath)
#include "tst_writepath.moc"
