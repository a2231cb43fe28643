#include "apitestsupport.h"

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;
using namespace reconscope::controller::cluster::testsupport;

// Watch semantics (shared/spec/kube-api.md section 4, section 9 items 9-11) through the handler
// with a collecting sink.
class tst_Watch : public ApiTestCase
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void initialEventsForUnsetAndZero_data();
    void initialEventsForUnsetAndZero();
    void watchFromResourceVersionSendsOnlyLaterChanges();
    void tooOldResourceVersionIsErrorEventInside200();
    void historyWindowBoundsWatches();
    void selectorTransitionsAreAddedAndDeleted();
    void deletedCarriesLastStateWithDeletionRv();
    void singleObjectWatchByNameField();
    void timeoutEndsStreamNormally();
    void periodicBookmarksHoldOnlyResourceVersion();
    void fanOutToTenWatchers();
    void cancelStopsDelivery();
    void invalidOptions();
    void sendInitialEvents();
    void inProcessSubscription();
    void sinkMayDropItsStreamWhileWriting();
    void tableWatchHasHeadersOnce();
    void sinkWritingDuringInitialEventsMissesNothing();

private:
    json patchApp(const QString &name, const QByteArray &patch)
    {
        return parse(
            call("PATCH", customApps + u'/' + name, patch, "application/merge-patch+json").body);
    }
};

void tst_Watch::init()
{
    setUp();
}

void tst_Watch::cleanup()
{
    tearDown();
}

void tst_Watch::initialEventsForUnsetAndZero_data()
{
    QTest::addColumn<QString>("query");
    QTest::newRow("unset") << u"?watch=true&allowWatchBookmarks=true"_s;
    QTest::newRow("zero") << u"?watch=true&allowWatchBookmarks=true&resourceVersion=0"_s;
}

void tst_Watch::initialEventsForUnsetAndZero()
{
    QFETCH(QString, query);
    createApp("b");
    createApp("a");
    const ApiResponse response = call("GET", customApps + query);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.contentType, QByteArray("application/json"));
    QVERIFY(response.watch);
    auto sink = startWatch(response);
    QCOMPARE(sink->types(), (QStringList{ u"ADDED"_s, u"ADDED"_s, u"BOOKMARK"_s }));
    QCOMPARE(str(sink->events[0]["object"]["metadata"]["name"]), u"a"_s);
    QCOMPARE(str(sink->events[1]["object"]["metadata"]["name"]), u"b"_s);
    const json &bookmark = sink->events[2]["object"];
    QCOMPARE(str(bookmark["metadata"]["annotations"]["k8s.io/initial-events-end"]), u"true"_s);
    QCOMPARE(str(bookmark["metadata"]["resourceVersion"]),
             QString::number(m_cluster->currentResourceVersion()));
    QCOMPARE(str(bookmark["kind"]), u"CustomApp"_s);
    for (const QByteArray &line : std::as_const(sink->lines)) {
        QVERIFY(line.endsWith("}\n"));
        QCOMPARE(line.count('\n'), 1);
    }
    // Then live changes.
    createApp("c");
    QCOMPARE(sink->types().last(), u"ADDED"_s);
    QCOMPARE(str(sink->events.back()["object"]["metadata"]["name"]), u"c"_s);
}

void tst_Watch::watchFromResourceVersionSendsOnlyLaterChanges()
{
    createApp("a");
    const json b = createApp("b");
    const QString rv = str(b["metadata"]["resourceVersion"]);
    patchApp(u"a"_s, R"({"spec":{"image":"nginx:2"}})");
    createApp("c");
    call("DELETE", customApps + u"/b"_s);

    auto sink = startWatch(call("GET", customApps + u"?watch=1&resourceVersion="_s + rv));
    QCOMPARE(sink->types(), (QStringList{ u"MODIFIED"_s, u"ADDED"_s, u"DELETED"_s }));
    qint64 last = rv.toLongLong();
    for (const json &event : sink->events) {
        const qint64 eventRv = str(event["object"]["metadata"]["resourceVersion"]).toLongLong();
        QVERIFY(eventRv > last);
        last = eventRv;
    }
    // kubectl get -w -o json: list, then watch from the list's RV: nothing replayed.
    const json list = parse(call("GET", customApps).body);
    auto fromList = startWatch(call("GET",
                                    customApps + u"?watch=true&resourceVersion="_s
                                        + str(list["metadata"]["resourceVersion"])));
    QVERIFY(fromList->events.empty());
}

void tst_Watch::tooOldResourceVersionIsErrorEventInside200()
{
    const json a = createApp("a");
    const QString rv = str(a["metadata"]["resourceVersion"]);
    patchApp(u"a"_s, R"({"spec":{"image":"nginx:2"}})");
    m_cluster->compact();
    const ApiResponse response = call("GET", customApps + u"?watch=true&resourceVersion="_s + rv);
    QCOMPARE(response.status, 200);
    auto sink = startWatch(response);
    QCOMPARE(sink->lines.size(), 1);
    const QByteArray expected
        = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
          "\"metadata\":{},\"status\":\"Failure\",\"message\":\"The resourceVersion for the "
          "provided watch is too old.\",\"reason\":\"Expired\",\"code\":410}}\n";
    QCOMPARE(sink->lines[0], expected);
    QVERIFY(sink->finished);
    QCOMPARE(m_cluster->watchCount(), 0);
    // Lists at that RV get an HTTP 410.
    const ApiResponse list
        = call("GET", customApps + u"?resourceVersion="_s + rv + u"&resourceVersionMatch=Exact"_s);
    QCOMPARE(list.status, 410);
    QCOMPARE(str(parse(list.body)["reason"]), u"Expired"_s);
}

void tst_Watch::historyWindowBoundsWatches()
{
    m_cluster->setHistoryWindow(3);
    const json a = createApp("a");
    const QString rv = str(a["metadata"]["resourceVersion"]);
    for (int i = 0; i < 2; ++i)
        patchApp(u"a"_s, QByteArray(R"({"spec":{"port":)") + QByteArray::number(8000 + i) + "}}");
    // Still inside the window (3 events kept: 2 patches + ...).
    auto inside = startWatch(call("GET", customApps + u"?watch=true&resourceVersion="_s + rv));
    QCOMPARE(inside->types(), (QStringList{ u"MODIFIED"_s, u"MODIFIED"_s }));
    for (int i = 0; i < 3; ++i)
        patchApp(u"a"_s, QByteArray(R"({"spec":{"port":)") + QByteArray::number(9000 + i) + "}}");
    auto outside = startWatch(call("GET", customApps + u"?watch=true&resourceVersion="_s + rv));
    QCOMPARE(outside->types(), QStringList{ u"ERROR"_s });
    QCOMPARE(inside->types().size(), 5); // the live watch kept receiving
}

void tst_Watch::selectorTransitionsAreAddedAndDeleted()
{
    createApp("a", { { "labels", { { "tier", "web" } } } });
    createApp("b", { { "labels", { { "tier", "db" } } } });
    auto sink = startWatch(call("GET", customApps + u"?watch=true&labelSelector=tier%3Dweb"_s));
    QCOMPARE(sink->types(), QStringList{ u"ADDED"_s });
    patchApp(u"b"_s, R"({"metadata":{"labels":{"tier":"web"}}})");
    patchApp(u"a"_s, R"({"metadata":{"labels":{"tier":"cache"}}})");
    patchApp(u"b"_s, R"({"spec":{"port":80}})");
    QCOMPARE(sink->types(), (QStringList{ u"ADDED"_s, u"ADDED"_s, u"DELETED"_s, u"MODIFIED"_s }));
    QCOMPARE(str(sink->events[1]["object"]["metadata"]["name"]), u"b"_s);
    QCOMPARE(str(sink->events[2]["object"]["metadata"]["name"]), u"a"_s);
    // The DELETED of a transition carries the last matching state with the change's RV.
    QCOMPARE(str(sink->events[2]["object"]["metadata"]["labels"]["tier"]), u"web"_s);
    QVERIFY(str(sink->events[2]["object"]["metadata"]["resourceVersion"]).toLongLong()
            > str(sink->events[1]["object"]["metadata"]["resourceVersion"]).toLongLong());
}

void tst_Watch::deletedCarriesLastStateWithDeletionRv()
{
    createApp("a");
    patchApp(u"a"_s, R"({"spec":{"image":"nginx:9"}})");
    auto sink = startWatch(call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion())));
    const ApiResponse deleted = call("DELETE", customApps + u"/a"_s);
    QCOMPARE(deleted.status, 200);
    QCOMPARE(sink->types(), QStringList{ u"DELETED"_s });
    const json &object = sink->events[0]["object"];
    QCOMPARE(str(object["spec"]["image"]), u"nginx:9"_s);
    QCOMPARE(str(object["metadata"]["resourceVersion"]),
             QString::number(m_cluster->currentResourceVersion()));
    QCOMPARE(str(object["apiVersion"]), u"infrastructure.internal.net/v1"_s);
}

void tst_Watch::singleObjectWatchByNameField()
{
    createApp("a");
    createApp("b");
    auto sink = startWatch(call(
        "GET", customApps + u"?watch=true&fieldSelector=metadata.name%3Db&resourceVersion=0"_s));
    QCOMPARE(sink->types(), QStringList{ u"ADDED"_s });
    QCOMPARE(str(sink->events[0]["object"]["metadata"]["name"]), u"b"_s);
    patchApp(u"a"_s, R"({"spec":{"port":1}})");
    patchApp(u"b"_s, R"({"spec":{"port":2}})");
    QCOMPARE(sink->types(), (QStringList{ u"ADDED"_s, u"MODIFIED"_s }));
    // kubectl delete waits for DELETED on such a watch.
    call("DELETE", customApps + u"/b"_s);
    QCOMPARE(sink->types().last(), u"DELETED"_s);
}

void tst_Watch::timeoutEndsStreamNormally()
{
    createApp("a");
    auto sink = startWatch(call("GET", customApps + u"?watch=true&timeoutSeconds=1"_s));
    QCOMPARE(sink->types(), QStringList{ u"ADDED"_s });
    QVERIFY(!sink->finished);
    QTRY_VERIFY_WITH_TIMEOUT(sink->finished, 5000);
    QCOMPARE(sink->types(), QStringList{ u"ADDED"_s }); // no ERROR event
    QCOMPARE(m_cluster->watchCount(), 0);
}

void tst_Watch::periodicBookmarksHoldOnlyResourceVersion()
{
    m_cluster->setBookmarkInterval(30);
    createApp("a");
    const QString rv = QString::number(m_cluster->currentResourceVersion());
    auto sink = startWatch(
        call("GET", customApps + u"?watch=true&allowWatchBookmarks=true&resourceVersion="_s + rv));
    QVERIFY(sink->events.empty());
    QTRY_VERIFY_WITH_TIMEOUT(sink->events.size() >= 2, 5000);
    for (const json &event : sink->events) {
        QCOMPARE(str(event["type"]), u"BOOKMARK"_s);
        const json expected = { { "apiVersion", "infrastructure.internal.net/v1" },
                                { "kind", "CustomApp" },
                                { "metadata", { { "resourceVersion", rv.toStdString() } } } };
        QCOMPARE(dump(event["object"]), dump(expected));
    }
    // Without allowWatchBookmarks none are sent.
    auto quiet = startWatch(call("GET", customApps + u"?watch=true&resourceVersion="_s + rv));
    const size_t before = sink->events.size();
    QTRY_VERIFY_WITH_TIMEOUT(sink->events.size() > before + 1, 5000);
    QVERIFY(quiet->events.empty());
}

void tst_Watch::fanOutToTenWatchers()
{
    std::vector<std::shared_ptr<CollectingSink>> sinks;
    for (int i = 0; i < 10; ++i)
        sinks.push_back(
            startWatch(call("GET",
                            customApps + u"?watch=true&resourceVersion="_s
                                + QString::number(m_cluster->currentResourceVersion()))));
    QCOMPARE(m_cluster->watchCount(), 10);
    for (int i = 0; i < 20; ++i)
        createApp("app-" + std::to_string(i));
    for (const auto &sink : sinks) {
        QCOMPARE(sink->events.size(), size_t(20));
        QCOMPARE(sink->lines, sinks.front()->lines);
    }
}

void tst_Watch::cancelStopsDelivery()
{
    const ApiResponse response = call("GET", customApps + u"?watch=true"_s);
    auto sink = startWatch(response);
    QCOMPARE(m_cluster->watchCount(), 1);
    response.watch->cancel();
    QCOMPARE(m_cluster->watchCount(), 0);
    createApp("a");
    QVERIFY(sink->events.empty());
    QVERIFY(!sink->finished);
}

void tst_Watch::invalidOptions()
{
    // The storage's refusal of the revision reaches the client as an internal error.
    ApiResponse response = call("GET", customApps + u"?watch=true&resourceVersion=abc"_s);
    QCOMPARE(response.status, 500);
    QCOMPARE(
        response.body,
        QByteArray(
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","code":500})"
            "\n"));
    response = call("GET", customApps + u"?resourceVersion=abc"_s);
    QCOMPARE(response.status, 400);
    response = call("GET", customApps + u"?watch=true&fieldSelector=spec.image%3Dx"_s);
    QCOMPARE(response.status, 400);
    QCOMPARE(str(parse(response.body)["message"]), u"field label not supported: spec.image"_s);
    response = call("GET", customApps + u"?watch=true&resourceVersionMatch=NotOlderThan"_s);
    QCOMPARE(response.status, 422);
    response = call("GET", customApps + u"?watch=true&sendInitialEvents=true"_s);
    QCOMPARE(response.status, 422);
    QCOMPARE(
        str(parse(response.body)["message"]),
        u"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"_s);
}

void tst_Watch::sendInitialEvents()
{
    createApp("a");
    auto sink = startWatch(call(
        "GET",
        customApps
            + u"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"_s));
    QCOMPARE(sink->types(), (QStringList{ u"ADDED"_s, u"BOOKMARK"_s }));
    QCOMPARE(str(sink->events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"]),
             u"true"_s);
}

void tst_Watch::inProcessSubscription()
{
    std::vector<ClusterEvent> events;
    const int id
        = m_cluster->subscribe([&](const ClusterEvent &event) { events.push_back(event); });
    createApp("a");
    patchApp(u"a"_s, R"({"spec":{"port":1}})");
    call("DELETE", customApps + u"/a"_s);
    QCOMPARE(events.size(), size_t(3));
    QCOMPARE(int(events[0].type), int(EventType::Added));
    QCOMPARE(int(events[1].type), int(EventType::Modified));
    QCOMPARE(int(events[2].type), int(EventType::Deleted));
    QCOMPARE(events[2].object->name, u"a"_s);
    m_cluster->unsubscribe(id);
    createApp("b");
    QCOMPARE(events.size(), size_t(3));
    // The in-process verbs share the HTTP semantics.
    const ResourceRef ref{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
    auto missing = m_cluster->get(ref, u"default"_s, u"zzz"_s);
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, 404);
    auto created = m_cluster->create(ref, u"default"_s, customApp("c"));
    QVERIFY(created);
    QCOMPARE(created->httpStatus, 201);
    auto list = m_cluster->list(ref, u"default"_s);
    QVERIFY(list);
    QCOMPARE((*list)["items"].size(), size_t(2));
}

void tst_Watch::sinkMayDropItsStreamWhileWriting()
{
    // A transport that lets go of the stream from inside send() (the client vanished).
    struct DroppingSink final : WatchSink
    {
        std::shared_ptr<WatchStream> *holder = nullptr;
        int sent = 0;
        void send(const QByteArray &) override
        {
            ++sent;
            holder->reset();
        }
        void finish() override { }
    };
    ApiResponse response = call("GET",
                                customApps + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion()));
    std::shared_ptr<WatchStream> holder = std::move(response.watch);
    auto sink = std::make_shared<DroppingSink>();
    sink->holder = &holder;
    holder->start(sink);
    QCOMPARE(m_cluster->watchCount(), 1);
    createApp("a");
    QCOMPARE(sink->sent, 1);
    QVERIFY(!holder);
    QCOMPARE(m_cluster->watchCount(), 0);
    createApp("b");
    QCOMPARE(sink->sent, 1);
}

void tst_Watch::tableWatchHasHeadersOnce()
{
    createApp("a");
    createApp("b");
    ApiRequest r = request("GET", customApps + u"?watch=true"_s);
    r.headers.append(
        qMakePair(QByteArray("accept"),
                  QByteArray("application/json;as=Table;v=v1;g=meta.k8s.io,application/json")));
    auto sink = startWatch(m_server->handle(r));
    patchApp(u"a"_s, R"({"spec":{"image":"nginx:2"}})");
    QCOMPARE(sink->types(), (QStringList{ u"ADDED"_s, u"ADDED"_s, u"MODIFIED"_s }));
    for (size_t i = 0; i < sink->events.size(); ++i) {
        const json &table = sink->events[i]["object"];
        QCOMPARE(str(table["kind"]), u"Table"_s);
        QCOMPARE(table["rows"].size(), size_t(1));
        QCOMPARE(table["columnDefinitions"].is_array(), i == 0);
    }
    QCOMPARE(str(sink->events[2]["object"]["rows"][0]["object"]["metadata"]["name"]), u"a"_s);
    QCOMPARE(str(sink->events[2]["object"]["metadata"]["resourceVersion"]),
             QString::number(m_cluster->currentResourceVersion()));
}

void tst_Watch::sinkWritingDuringInitialEventsMissesNothing()
{
    // An in-process sink that reacts to the first initial event by writing.
    struct WritingSink final : WatchSink
    {
        tst_Watch *test = nullptr;
        QStringList seen;
        void send(const QByteArray &line) override
        {
            json event = parse(line);
            seen << str(event["type"]) + u':' + str(event["object"]["metadata"]["name"]);
            if (seen.size() == 1)
                test->createApp("written-by-sink");
        }
        void finish() override { }
    };
    createApp("a");
    createApp("b");
    const ApiResponse response
        = call("GET", customApps + u"?watch=true&allowWatchBookmarks=true"_s);
    auto sink = std::make_shared<WritingSink>();
    sink->test = this;
    response.watch->start(sink);
    QCOMPARE(
        sink->seen,
        (QStringList{ u"ADDED:a"_s, u"ADDED:b"_s, u"BOOKMARK:"_s, u"ADDED:written-by-sink"_s }));
    createApp("c");
    QCOMPARE(sink->seen.last(), u"ADDED:c"_s);
}

QTEST_GUILESS_MAIN(tst_Watch)
#include "tst_watch.moc"
