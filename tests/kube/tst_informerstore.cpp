#include "controller/kube/informerstore.h"
#include "models/yamljson.h"
#include "tests/oracle/summaryoracle.h"
#include "testserver.h"

#include <QDir>
#include <QPointer>

#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;

class tst_InformerStore final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void listThenBatchedWatch_data();
    void listThenBatchedWatch();
    void relistRemovesVanishedObjects_data();
    void relistRemovesVanishedObjects();
    void relistChangesComeInABatchOfTheirOwn();
    void changesCoalescePerKey();
    void supersededStatesReachTransitionFollowers();
    void fixtureObjectsSurviveTheStore_data();
    void fixtureObjectsSurviveTheStore();
    void watchBurstKeepsStreamOrder();
    void progressiveFirstListReachesStoreBeforeSync_data();
    void progressiveFirstListReachesStoreBeforeSync();
    void firstListStartedOverReachesStoreWhole_data();
    void firstListStartedOverReachesStoreWhole();

private:
    std::unique_ptr<TestServer> m_server;
    ClientConfig m_config;
};

namespace {

const ResourceRef CustomApps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true };

QByteArray object(const QByteArray &name, int rv, const char *ready = "True")
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + name + R"(","namespace":"default","resourceVersion":")" + QByteArray::number(rv)
        + R"(","generation":9007199254740993},"status":{"observedGeneration":9007199254740993,"conditions":[{"type":"Ready","status":")"
        + ready + R"(","reason":"R","message":"m","lastTransitionTime":"2026-08-09T00:15:00Z"}]}})";
}

QByteArray listBody(const QList<QByteArray> &items, int rv)
{
    QByteArray body = R"({"items":[)";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + R"(],"kind":"CustomAppList","metadata":{"continue":"","resourceVersion":")"
        + QByteArray::number(rv) + R"("}})";
}

QByteArray pagedListBody(const QList<QByteArray> &items, int rv, const QByteArray &continueToken)
{
    QByteArray body = listBody(items, rv);
    return body.replace(R"("continue":"")", R"("continue":")" + continueToken + '"');
}

// The transforms a store can take: both must give the same entries (summary and bytes).
void addTransformRows()
{
    QTest::addColumn<bool>("plain");
    QTest::newRow("compact") << false;
    QTest::newRow("plain") << true;
}

void setTransform(InformerStore &store, bool plain)
{
    store.setTransform(plain ? plainTransform() : compactTransform());
}

QByteArray line(const char *type, const QByteArray &object)
{
    return R"({"type":")" + QByteArray(type) + R"(","object":)" + object + "}\n";
}

} // namespace

void tst_InformerStore::init()
{
    m_server = std::make_unique<TestServer>();
    m_config = ClientConfig();
    m_config.server = QUrl(m_server->url(u"http"_s));
}

void tst_InformerStore::cleanup()
{
    m_server.reset();
}

void tst_InformerStore::listThenBatchedWatch_data()
{
    addTransformRows();
}

void tst_InformerStore::listThenBatchedWatch()
{
    QFETCH(bool, plain);
    constexpr int Events = 2000;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(socket,
                                200,
                                "application/json",
                                listBody({ object("a", 5), object("b", 6, "False") }, 10));
            return;
        }
        TestServer::startStream(socket);
        // Many events in few chunks: the store must coalesce them into few batches.
        QByteArray chunk;
        for (int i = 0; i < Events; ++i)
            chunk += line("ADDED", object("n" + QByteArray::number(i), 11 + i));
        chunk += line("MODIFIED", object("a", 20000, "False"));
        chunk += line("DELETED", object("b", 20001));
        TestServer::writeChunk(socket, chunk);
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    setTransform(store, plain);
    QSignalSpy changed(&store, &InformerStore::objectsChanged);
    QSignalSpy synced(&store, &InformerStore::synced);
    QList<ReflectorState> states;
    connect(&store, &InformerStore::connectionStateChanged, this, [&](const ReflectorState &state) {
        states << state;
    });
    QElapsedTimer timer;
    timer.start();
    store.start();
    QTRY_COMPARE(synced.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(store.size(), Events + 1, 20000);
    QTRY_COMPARE(store.resourceVersion(), u"20001"_s);
    QVERIFY(store.hasSynced());
    qInfo("%d watch events applied in %lld ms, %d batches",
          Events + 2,
          timer.elapsed(),
          int(changed.size()));
    QVERIFY2(changed.size() < 20, qPrintable(QString::number(changed.size())));

    const InformerEntry *a = store.entry(u"default/a"_s);
    QVERIFY(a);
    QCOMPARE(a->summary.resourceVersion, u"20000"_s);
    QCOMPARE(a->summary.generation.value_or(0), qint64(9007199254740993LL));
    QCOMPARE(a->summary.conditions.size(), 1);
    QCOMPARE(a->summary.conditions.first().status, u"False"_s);
    QCOMPARE(a->json()["metadata"]["generation"].get<std::int64_t>(), 9007199254740993LL);
    QCOMPARE(a->rawJson(), object("a", 20000, "False"));
    if (plain)
        QVERIFY(!a->raw.isCompressed()); // a watch event's bytes kept as they came
    QVERIFY(!store.entry(u"default/b"_s));
    QVERIFY(store.entry(u"default/n1999"_s));

    bool sawWatching = false;
    for (const auto &state : std::as_const(states))
        sawWatching = sawWatching || state.phase == ReflectorState::Phase::Watching;
    QVERIFY(sawWatching);
    QCOMPARE(store.state().phase, ReflectorState::Phase::Watching);
    store.stop();
}

void tst_InformerStore::relistRemovesVanishedObjects_data()
{
    QTest::addColumn<bool>("afterHashing");
    // The first list's keys (the worker's sent-versions, the reflector's known keys) are kept as
    // lists and hashed a second after it was sent, or on first use: the relist comes before that,
    // or after.
    QTest::newRow("at once") << false;
    QTest::newRow("after the keys are hashed") << true;
}

void tst_InformerStore::relistRemovesVanishedObjects()
{
    QFETCH(bool, afterHashing);
    int lists = 0;
    QPointer<QTcpSocket> firstWatch;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            ++lists;
            TestServer::respond(socket,
                                200,
                                "application/json",
                                lists == 1 ? listBody({ object("a", 5), object("b", 6) }, 10)
                                           : listBody({ object("b", 6) }, 30));
            return;
        }
        TestServer::startStream(socket);
        if (lists == 1)
            firstWatch = socket;
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    QStringList removed;
    QStringList upserted;
    connect(&store,
            &InformerStore::objectsChanged,
            this,
            [&](const QStringList &up, const QStringList &gone) {
                upserted += up;
                removed += gone;
            });
    store.start();
    QTRY_COMPARE(store.size(), 2);
    QTRY_VERIFY(firstWatch);
    if (afterHashing)
        QTest::qWait(1500); // past InformerWorker's and Reflector's HashLaterMs (1 s)
    TestServer::writeChunk(
        firstWatch,
        R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 10 (25)","reason":"Expired","code":410}})j"
        "\n");
    TestServer::endStream(firstWatch);
    QTRY_COMPARE(removed, QStringList{ u"default/a"_s });
    QCOMPARE(store.keys(), QStringList{ u"default/b"_s });
    // The unchanged object of the relist was not re-announced.
    QCOMPARE(upserted.count(u"default/b"_s), 1);
    QTRY_COMPARE(store.resourceVersion(), u"30"_s);
    QCOMPARE(lists, 2);
}

// What a relist after a watch gap finds is not a live change: its changes come alone in a batch,
// announced by relisted() just before its objectsChanged; a live change just before the gap goes
// in a batch of its own first, and objects the relist finds unchanged are not announced.
void tst_InformerStore::relistChangesComeInABatchOfTheirOwn()
{
    int lists = 0;
    QPointer<QTcpSocket> firstWatch;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            ++lists;
            TestServer::respond(
                socket,
                200,
                "application/json",
                lists == 1
                    ? listBody({ object("a", 5), object("b", 6), object("c", 7) }, 10)
                    : listBody({ object("a", 9, "False"), object("b", 8, "False"), object("c", 7) },
                               30));
            return;
        }
        TestServer::startStream(socket);
        if (lists == 1)
            firstWatch = socket;
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    QStringList said;
    connect(&store, &InformerStore::relisted, this, [&] { said << u"relisted"_s; });
    connect(&store,
            &InformerStore::objectsChanged,
            this,
            [&](const QStringList &up, const QStringList &gone) {
                said << up.join(u',') + u'|' + gone.join(u',');
            });
    store.start();
    QTRY_COMPARE(store.size(), 3);
    QTRY_VERIFY(firstWatch);
    // b changes live; then the watch expires (410) and the relist finds a changed meanwhile.
    TestServer::writeChunk(
        firstWatch,
        R"({"type":"MODIFIED","object":)" + object("b", 8, "False") + "}\n"
            + R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 10 (25)","reason":"Expired","code":410}})j"
              "\n");
    TestServer::endStream(firstWatch);
    QTRY_COMPARE(store.resourceVersion(), u"30"_s);
    QTRY_COMPARE(said.size(), 4);
    QCOMPARE(said,
             (QStringList{ u"default/a,default/b,default/c|"_s,
                           u"default/b|"_s,
                           u"relisted"_s,
                           u"default/a|"_s }));
}

void tst_InformerStore::changesCoalescePerKey()
{
    // Changes of one tick are merged per key: an object added and deleted before the store saw
    // it is never announced.
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(socket, 200, "application/json", listBody({ object("a", 5) }, 10));
            return;
        }
        TestServer::startStream(socket);
        TestServer::writeChunk(socket,
                               line("ADDED", object("x", 11)) + line("MODIFIED", object("a", 12))
                                   + line("DELETED", object("x", 13))
                                   + line("MODIFIED", object("a", 14)));
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    store.setBatchInterval(200);
    QStringList upserted;
    QStringList removed;
    connect(&store,
            &InformerStore::objectsChanged,
            this,
            [&](const QStringList &up, const QStringList &gone) {
                upserted += up;
                removed += gone;
            });
    store.start();
    QTRY_COMPARE(store.resourceVersion(), u"14"_s);
    QCOMPARE(store.entry(u"default/a"_s)->summary.resourceVersion, u"14"_s);
    QVERIFY(!upserted.contains(u"default/x"_s));
    QVERIFY(removed.isEmpty());
}

// The store keeps only the latest state of a key per tick, but the states a later change of the
// same tick replaced are announced first (statesSuperseded), in order: a console following
// transitions sees Pending -> Reconciling even when the status came within the same tick. An
// object created and deleted before the store saw it stays unannounced.
void tst_InformerStore::supersededStatesReachTransitionFollowers()
{
    InformerStore store(m_config, CustomApps, u"default"_s);
    store.setBatchInterval(300);
    QPointer<QTcpSocket> watch;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(
                socket, 200, "application/json", listBody({ object("a", 5), object("b", 6) }, 10));
            return;
        }
        TestServer::startStream(socket);
        watch = socket;
    };
    QStringList events;
    connect(&store,
            &InformerStore::statesSuperseded,
            this,
            [&](const QList<reconscope::models::ObjectSummary> &states) {
                for (const auto &state : states)
                    events << u"superseded %1@%2"_s.arg(state.key, state.resourceVersion);
            });
    connect(&store,
            &InformerStore::objectsChanged,
            this,
            [&](const QStringList &up, const QStringList &gone) {
                events << u"changed [%1] removed [%2]"_s.arg(up.join(u' '), gone.join(u' '));
            });
    store.start();
    // The list's batch has gone out; then the changes, all within one tick.
    QTRY_VERIFY(store.hasSynced() && watch);
    TestServer::writeChunk(
        watch,
        line("ADDED", object("x", 11)) + line("MODIFIED", object("x", 11))
            + line("MODIFIED", object("a", 12)) + line("MODIFIED", object("b", 13, "False"))
            + line("DELETED", object("x", 14)) + line("MODIFIED", object("a", 15, "False"))
            + line("DELETED", object("b", 16, "False")) + line("MODIFIED", object("a", 17)));
    QTRY_COMPARE(store.resourceVersion(), u"17"_s);
    QTRY_COMPARE(events.size(), 5);
    QCOMPARE(events,
             (QStringList{ u"changed [default/a default/b] removed []"_s,
                           u"superseded default/a@12"_s,
                           u"superseded default/b@13"_s,
                           u"superseded default/a@15"_s,
                           u"changed [default/a] removed [default/b]"_s }));
    QCOMPARE(store.entry(u"default/a"_s)->summary.resourceVersion, u"17"_s);
    QVERIFY(!store.entry(u"default/b"_s));
}

// Every real third-party object of shared/fixtures/real-crds/objects, plus enough generated ones
// to fill several of the reflector's prepare batches, listed in one answer: each comes out of the
// store byte for byte, its summary equal to the reference reader's, and the first batch (the
// whole hash handed over at once) names every key in list order.
void tst_InformerStore::fixtureObjectsSurviveTheStore_data()
{
    addTransformRows();
}

void tst_InformerStore::fixtureObjectsSurviveTheStore()
{
    QFETCH(bool, plain);
    QList<QByteArray> items;
    const QDir dir(QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/objects"_s);
    for (const QString &name : dir.entryList({ u"*.yaml"_s }, QDir::Files)) {
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = reconscope::models::yamlToJson(file.readAll());
        QVERIFY2(json.ok(), qPrintable(name));
        // Pretty-printed and with non-ASCII text: what is kept is the bytes, not a re-encoding.
        auto object = json.value();
        // Several fixtures share a name (six podinfo Kustomizations): one key each here. Most
        // have no resourceVersion, which the store must not take for "already have it".
        object["metadata"]["name"]
            = object["metadata"].value("name", std::string()) + "-" + std::to_string(items.size());
        object["metadata"]["annotations"]["reconscope.test/note"] = "caf\u00e9 \"quoted\" \u2713";
        items << QByteArray::fromStdString(object.dump(items.size() % 2 ? 2 : -1));
    }
    QVERIFY(items.size() >= 20);
    for (int i = 0; i < 1500; ++i)
        items << object("gen-" + QByteArray::number(i), 100 + i);
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(socket, 200, "application/json", listBody(items, 5000));
            return;
        }
        TestServer::startStream(socket);
    };
    const auto mapping = reconscope::models::LifecycleMapping::defaults();
    InformerStore store(m_config, CustomApps, QString(), mapping);
    setTransform(store, plain);
    QSignalSpy changed(&store, &InformerStore::objectsChanged);
    QSignalSpy synced(&store, &InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, 20000);
    QTRY_COMPARE(store.size(), items.size());
    QStringList keys;
    qsizetype compressed = 0;
    for (const QByteArray &bytes : std::as_const(items)) {
        const auto summary = reconscope::tests::referenceSummary(bytes, mapping);
        QVERIFY(summary.ok());
        keys << summary->key;
        const InformerEntry *entry = store.entry(summary->key);
        QVERIFY2(entry, qPrintable(summary->key));
        QCOMPARE(entry->rawJson(), bytes);
        QCOMPARE(entry->raw.size(), bytes.size());
        compressed += entry->raw.isCompressed() ? 1 : 0;
        QVERIFY(entry->json() == nlohmann::json::parse(bytes.cbegin(), bytes.cend()));
        QCOMPARE(entry->summary.resourceVersion, summary->resourceVersion);
        QCOMPARE(entry->summary.labels, summary->labels);
        QCOMPARE(entry->summary.conditions, summary->conditions);
        QCOMPARE(entry->summary.readProblems, summary->readProblems);
        QCOMPARE(entry->summary.statusFieldCount, summary->statusFieldCount);
    }
    // The compact transform compresses the listed objects (those for which it pays), the plain
    // one none.
    if (plain)
        QCOMPARE(compressed, 0);
    else
        QVERIFY(compressed > items.size() / 2);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(changed.first().at(0).toStringList(), keys);
    QVERIFY(changed.first().at(1).toStringList().isEmpty());
    store.stop();
}

// A burst of events in one read is prepared on several threads: the store must still apply them
// in stream order (the last change of each key wins, byte for byte) and report the states a
// later change replaced oldest first.
void tst_InformerStore::watchBurstKeepsStreamOrder()
{
    constexpr int Changes = 400;
    QByteArray lastOf[4];
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(
                socket,
                200,
                "application/json",
                listBody({ object("k0", 5), object("k1", 6), object("k2", 7), object("k3", 8) },
                         10));
            return;
        }
        TestServer::startStream(socket);
        QByteArray chunk;
        for (int i = 0; i < Changes; ++i) {
            const QByteArray changed
                = object("k" + QByteArray::number(i % 4), 100 + i, i % 2 ? "False" : "True");
            lastOf[i % 4] = changed;
            chunk += line("MODIFIED", changed);
        }
        chunk += line("DELETED", object("k3", 100 + Changes));
        lastOf[3] = object("k3", 101 + Changes, "Unknown");
        chunk += line("ADDED", lastOf[3]);
        TestServer::writeChunk(socket, chunk);
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    QHash<QString, QList<qint64>> seen; // key -> resourceVersions superseded, in signal order
    connect(&store,
            &InformerStore::statesSuperseded,
            this,
            [&](const QList<reconscope::models::ObjectSummary> &states) {
                for (const auto &state : states)
                    seen[state.key] << state.resourceVersion.toLongLong();
            });
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(store.resourceVersion(), QString::number(101 + Changes), 20000);
    QCOMPARE(store.size(), 4);
    for (int k = 0; k < 4; ++k) {
        const InformerEntry *entry = store.entry(u"default/k"_s + QString::number(k));
        QVERIFY(entry);
        QCOMPARE(entry->rawJson(), lastOf[k]);
    }
    QCOMPARE(store.entry(u"default/k3"_s)->summary.conditions.first().status, u"Unknown"_s);
    for (auto it = seen.cbegin(); it != seen.cend(); ++it) {
        for (qsizetype i = 1; i < it->size(); ++i)
            QVERIFY2(it->at(i - 1) < it->at(i), qPrintable(it.key()));
    }
    store.stop();
}

// setProgressiveFirstList: the first list's objects reach the store (objectsChanged) while the
// rest of the list is still on the server, before synced(); the complete store holds every
// object's bytes exactly as sent.
void tst_InformerStore::progressiveFirstListReachesStoreBeforeSync_data()
{
    QTest::addColumn<bool>("progressive");
    QTest::newRow("progressive") << true;
    // The worker gets the first list's batches as they are prepared either way; a store that did
    // not ask for them gets the whole list at the sync, in one batch.
    QTest::newRow("whole") << false;
}

void tst_InformerStore::progressiveFirstListReachesStoreBeforeSync()
{
    QFETCH(bool, progressive);
    QList<QByteArray> items;
    for (int i = 0; i < 1000; ++i)
        items << object("p" + QByteArray::number(i), 100 + i, i % 3 ? "True" : "False");
    const QByteArray body = listBody(items, 5000);
    const qsizetype split = body.indexOf(items[600]);
    QPointer<QTcpSocket> held;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        TestServer::startStream(socket);
        if (request.query.hasQueryItem(u"watch"_s))
            return;
        TestServer::writeChunk(socket, body.left(split));
        held = socket;
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    store.setBatchInterval(16);
    store.setProgressiveFirstList(progressive);
    QSignalSpy changed(&store, &InformerStore::objectsChanged);
    QSignalSpy synced(&store, &InformerStore::synced);
    store.start();
    QTRY_VERIFY_WITH_TIMEOUT(held, 20000);
    if (progressive) {
        QTRY_VERIFY_WITH_TIMEOUT(store.size() > 0, 20000);
        QVERIFY(store.size() <= 600);
    } else {
        QTest::qWait(500); // several batch intervals: nothing reaches the store before the sync
        QCOMPARE(store.size(), 0);
        QCOMPARE(changed.size(), 0);
    }
    QVERIFY(!store.hasSynced());
    QCOMPARE(synced.size(), 0);
    TestServer::writeChunk(held, body.mid(split));
    TestServer::endStream(held);
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, 20000);
    QCOMPARE(store.size(), items.size());
    if (progressive)
        QVERIFY(changed.size() >= 2);
    else
        QCOMPARE(changed.size(), 1);
    qsizetype announced = 0;
    for (const auto &signal : std::as_const(changed))
        announced += signal.at(0).toStringList().size();
    QCOMPARE(announced, items.size()); // each object announced once
    for (qsizetype i = 0; i < items.size(); ++i) {
        const InformerEntry *entry = store.entry(u"default/p"_s + QString::number(i));
        QVERIFY(entry);
        QCOMPARE(entry->rawJson(), items[i]);
        QCOMPARE(entry->summary.resourceVersion, QString::number(100 + i));
    }
    store.stop();
}

void tst_InformerStore::firstListStartedOverReachesStoreWhole_data()
{
    QTest::addColumn<bool>("progressive");
    QTest::newRow("whole") << false;
    QTest::newRow("progressive") << true;
}

// The worker takes a first list's objects as the pool prepares them, also for a store that gets
// the list whole. When the list starts over (its continue token expired after the first page was
// taken), the store still gets exactly the list that completed: an object the first attempt
// delivered and the second lacks is never in it, one the second changed has the later state, in
// the second list's order; taken whole, in one batch, with no superseded state (the store never
// had the first attempt's).
void tst_InformerStore::firstListStartedOverReachesStoreWhole()
{
    QFETCH(bool, progressive);
    QList<QByteArray> first;
    for (int i = 0; i < 1300; ++i)
        first << object("app-" + QByteArray::number(10000 + i), 10 + i);
    // The list as it is when started over: app-10001 and app-10002 gone, app-10003 changed.
    QList<QByteArray> restarted = first;
    restarted.removeAt(1);
    restarted.removeAt(1);
    restarted[1] = object("app-10003", 4000, "False");
    int lists = 0;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (request.query.hasQueryItem(u"watch"_s)) {
            TestServer::startStream(socket);
            return;
        }
        ++lists;
        const QString token = request.queryValue(u"continue"_s);
        if (lists == 1) {
            QCOMPARE(request.queryValue(u"limit"_s), u"500"_s);
            TestServer::respond(
                socket, 200, "application/json", pagedListBody(first.mid(0, 500), 2000, "p2"));
        } else if (token == u"p2"_s) {
            // Expired a while later, once the first page's objects have been prepared.
            QTimer::singleShot(300, socket, [socket] {
                TestServer::respond(
                    socket,
                    410,
                    "application/json",
                    R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"continue expired","reason":"Expired","code":410})j");
            });
        } else {
            TestServer::respond(socket, 200, "application/json", listBody(restarted, 2100));
        }
    };
    InformerStore store(m_config, CustomApps, u"default"_s);
    store.setBatchInterval(16);
    store.setProgressiveFirstList(progressive);
    QSignalSpy changed(&store, &InformerStore::objectsChanged);
    QSignalSpy superseded(&store, &InformerStore::statesSuperseded);
    QSignalSpy synced(&store, &InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, 20000);
    QCOMPARE(lists, 3);
    QCOMPARE(store.resourceVersion(), u"2100"_s);
    QCOMPARE(store.size(), restarted.size());
    QStringList keys;
    for (qsizetype i = 0; i < restarted.size(); ++i) {
        const QString key = u"default/app-"_s + QString::number(i ? 10002 + i : 10000);
        keys << key;
        const InformerEntry *entry = store.entry(key);
        QVERIFY2(entry, qPrintable(key));
        QCOMPARE(entry->rawJson(), restarted[i]);
    }
    QVERIFY(!store.entry(u"default/app-10001"_s));
    QVERIFY(!store.entry(u"default/app-10002"_s));
    QCOMPARE(store.entry(u"default/app-10003"_s)->summary.resourceVersion, u"4000"_s);
    if (progressive) {
        // Shown as the attempts streamed in: what the second lacks was removed again.
        QStringList upserted;
        QStringList removed;
        for (const auto &signal : std::as_const(changed)) {
            upserted += signal.at(0).toStringList();
            removed += signal.at(1).toStringList();
        }
        for (const QString &key : std::as_const(keys))
            QVERIFY2(upserted.contains(key), qPrintable(key));
        for (const QString &key : std::as_const(removed))
            QVERIFY2(!keys.contains(key), qPrintable(key));
        return;
    }
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).toStringList(), keys);
    QCOMPARE(changed.at(0).at(1).toStringList(), QStringList());
    QCOMPARE(superseded.size(), 0);
    store.stop();
}

QTEST_GUILESS_MAIN(tst_InformerStore)
#include "tst_informerstore.moc"
