#include "controller/kube/backoff.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "testserver.h"

#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;
using namespace std::chrono_literals;

class tst_Reflector final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void backoff_data();
    void backoff();
    void listThenWatch();
    void expiredRelistsAndDeletesVanished();
    void disconnectBacksOffWithInjectedTime();
    void stopCancelsScheduledRetry();

private:
    void makeReflector();
    QList<TestRequest> watchRequests() const;
    QList<TestRequest> listRequests() const;

    std::unique_ptr<TestServer> m_server;
    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<Reflector> m_reflector;
    QList<Delta> m_deltas;
    QList<ReflectorState> m_states;
    QList<std::chrono::milliseconds> m_delays;
    std::chrono::steady_clock::time_point m_now;
    double m_random = 0.5;
};

namespace {

const ResourceRef CustomApps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true };

QByteArray object(const char *name, int rv)
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + QByteArray(name) + R"(","namespace":"default","resourceVersion":")"
        + QByteArray::number(rv) + R"("},"spec":{"n":1}})";
}

QByteArray listBody(const QList<QByteArray> &items, int rv)
{
    QByteArray body = R"({"apiVersion":"infrastructure.internal.net/v1","items":[)";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + R"(],"kind":"CustomAppList","metadata":{"continue":"","resourceVersion":")"
        + QByteArray::number(rv) + R"("}})";
}

QByteArray watchLine(const char *type, const QByteArray &object)
{
    return R"({"type":")" + QByteArray(type) + R"(","object":)" + object + "}\n";
}

QByteArray expiredEvent()
{
    return R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (25)","reason":"Expired","code":410}})j"
           "\n";
}

bool isWatch(const TestRequest &request)
{
    return request.query.hasQueryItem(u"watch"_s);
}

QStringList describe(const QList<Delta> &deltas)
{
    QStringList out;
    for (const Delta &delta : deltas) {
        out << (delta.type == Delta::Type::Upsert ? u"+"_s : u"-"_s) + delta.meta.key() + u'@'
                + delta.meta.resourceVersion;
    }
    return out;
}

} // namespace

void tst_Reflector::init()
{
    m_server = std::make_unique<TestServer>();
    QVERIFY(m_server->port() != 0);
    ClientConfig config;
    config.server = QUrl(m_server->url(u"http"_s));
    m_client = std::make_unique<RestClient>(config);
    m_deltas.clear();
    m_states.clear();
    m_delays.clear();
    m_now = std::chrono::steady_clock::time_point(1h);
    m_random = 0.5;
}

void tst_Reflector::cleanup()
{
    m_reflector.reset();
    m_client.reset();
    m_server.reset();
}

void tst_Reflector::makeReflector()
{
    m_reflector = std::make_unique<Reflector>(m_client.get(), CustomApps, u"default"_s);
    m_reflector->setClock([this] { return m_now; });
    m_reflector->setRandom([this] { return m_random; });
    m_reflector->setScheduler(
        [this](std::chrono::milliseconds delay, std::function<void()> action) {
            m_delays << delay;
            QTimer::singleShot(0, m_reflector.get(), std::move(action));
        });
    connect(m_reflector.get(),
            &Reflector::deltasReceived,
            this,
            [this](const QList<Delta> &deltas) { m_deltas += deltas; });
    connect(m_reflector.get(), &Reflector::stateChanged, this, [this](const ReflectorState &state) {
        m_states << state;
    });
}

QList<TestRequest> tst_Reflector::watchRequests() const
{
    QList<TestRequest> out;
    for (const auto &request : m_server->requests) {
        if (isWatch(request))
            out << request;
    }
    return out;
}

QList<TestRequest> tst_Reflector::listRequests() const
{
    QList<TestRequest> out;
    for (const auto &request : m_server->requests) {
        if (!isWatch(request))
            out << request;
    }
    return out;
}

void tst_Reflector::backoff_data()
{
    QTest::addColumn<double>("random");
    QTest::addColumn<QList<int>>("expected");
    QTest::newRow("no jitter") << 0.0
                               << QList<int>{ 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000 };
    QTest::newRow("half jitter") << 0.5
                                 << QList<int>{ 1200, 2400, 4800, 9600, 19200, 30000, 30000 };
    QTest::newRow("full jitter") << 0.999 << QList<int>{ 1599, 3198, 6396, 12793, 25587, 30000 };
}

void tst_Reflector::backoff()
{
    QFETCH(double, random);
    QFETCH(QList<int>, expected);
    Backoff backoff;
    auto now = std::chrono::steady_clock::time_point(1h);
    QList<int> delays;
    for (qsizetype i = 0; i < expected.size(); ++i) {
        delays << int(backoff.next(now, random).count());
        now += 1s;
    }
    QCOMPARE(delays, expected);
    // Two healthy minutes later it starts over.
    now += 121s;
    QCOMPARE(int(backoff.next(now, random).count()), expected.first());
    // ... but not after less.
    now += 119s;
    QCOMPARE(int(backoff.next(now, random).count()), expected.value(1));
}

void tst_Reflector::listThenWatch()
{
    QPointer<QTcpSocket> stream;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(
                socket, 200, "application/json", listBody({ object("a", 8), object("b", 9) }, 10));
            return;
        }
        stream = socket;
        TestServer::startStream(socket);
        TestServer::writeChunk(
            socket, watchLine("ADDED", object("c", 11)) + watchLine("MODIFIED", object("a", 12)));
        TestServer::writeChunk(socket, watchLine("DELETED", object("b", 13)));
        TestServer::writeChunk(
            socket,
            watchLine(
                "BOOKMARK",
                R"({"kind":"CustomApp","apiVersion":"infrastructure.internal.net/v1","metadata":{"resourceVersion":"20"}})"));
    };
    m_random = 0.999;
    makeReflector();
    QSignalSpy synced(m_reflector.get(), &Reflector::listSynced);
    m_reflector->start();
    QTRY_COMPARE(m_reflector->resourceVersion(), u"20"_s);
    QCOMPARE(synced.size(), 1);
    QCOMPARE(synced.first().first().toString(), u"10"_s);
    QVERIFY(m_reflector->hasSynced());
    // The bookmark advanced the RV but produced no delta.
    QCOMPARE(describe(m_deltas),
             (QStringList{ u"+default/a@8"_s,
                           u"+default/b@9"_s,
                           u"+default/c@11"_s,
                           u"+default/a@12"_s,
                           u"-default/b@13"_s }));
    QCOMPARE(m_reflector->state().phase, ReflectorState::Phase::Watching);
    QCOMPARE(m_reflector->state().toString(), u"watching"_s);

    const auto lists = listRequests();
    QCOMPARE(lists.size(), 1);
    QCOMPARE(lists[0].path,
             u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps"_s);
    QCOMPARE(lists[0].queryValue(u"resourceVersion"_s), u"0"_s);
    QCOMPARE(lists[0].queryValue(u"limit"_s), u"500"_s);
    const auto watches = watchRequests();
    QCOMPARE(watches.size(), 1);
    QCOMPARE(watches[0].queryValue(u"resourceVersion"_s), u"10"_s);
    QCOMPARE(watches[0].queryValue(u"allowWatchBookmarks"_s), u"true"_s);
    QCOMPARE(watches[0].queryValue(u"timeoutSeconds"_s), u"599"_s);
    QVERIFY(m_delays.isEmpty());

    // The server ends the watch normally (timeout): resumed at once from the bookmark's RV.
    m_random = 0.0;
    TestServer::endStream(stream);
    QTRY_COMPARE(watchRequests().size(), 2);
    QCOMPARE(watchRequests()[1].queryValue(u"resourceVersion"_s), u"20"_s);
    QCOMPARE(watchRequests()[1].queryValue(u"timeoutSeconds"_s), u"300"_s);
    QCOMPARE(listRequests().size(), 1);
    QVERIFY(m_delays.isEmpty());
}

void tst_Reflector::expiredRelistsAndDeletesVanished()
{
    int lists = 0;
    int watches = 0;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            ++lists;
            if (lists == 1)
                TestServer::respond(
                    socket,
                    200,
                    "application/json",
                    listBody({ object("a", 5), object("b", 6), object("c", 7) }, 10));
            else if (lists == 2)
                TestServer::respond(
                    socket, 200, "application/json", listBody({ object("a", 21) }, 30));
            else
                TestServer::respond(socket,
                                    200,
                                    "application/json",
                                    listBody({ object("a", 21), object("d", 35) }, 40));
            return;
        }
        ++watches;
        if (watches == 1) {
            // 410 inside a 200 stream.
            TestServer::startStream(socket);
            TestServer::writeChunk(socket, expiredEvent());
            TestServer::endStream(socket);
        } else if (watches == 2) {
            // 410 as the HTTP answer.
            TestServer::respond(
                socket,
                410,
                "application/json",
                R"j({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 30 (35)","reason":"Expired","code":410})j");
        } else {
            TestServer::startStream(socket);
        }
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE(watches, 3);
    QTRY_COMPARE(m_reflector->state().phase, ReflectorState::Phase::Watching);
    QCOMPARE(lists, 3);
    QCOMPARE(describe(m_deltas),
             (QStringList{ u"+default/a@5"_s,
                           u"+default/b@6"_s,
                           u"+default/c@7"_s,
                           // relist after the ERROR event: b and c vanished
                           u"+default/a@21"_s,
                           u"-default/b@6"_s,
                           u"-default/c@7"_s,
                           // relist after the HTTP 410
                           u"+default/a@21"_s,
                           u"+default/d@35"_s }));
    const auto listed = listRequests();
    QCOMPARE(listed[0].queryValue(u"resourceVersion"_s), u"0"_s);
    // After a 410 the list asks for the latest state (resourceVersion "" = not sent).
    QVERIFY(!listed[1].query.hasQueryItem(u"resourceVersion"_s));
    QVERIFY(!listed[2].query.hasQueryItem(u"resourceVersion"_s));
    const auto watched = watchRequests();
    QCOMPARE(watched[0].queryValue(u"resourceVersion"_s), u"10"_s);
    QCOMPARE(watched[1].queryValue(u"resourceVersion"_s), u"30"_s);
    QCOMPARE(watched[2].queryValue(u"resourceVersion"_s), u"40"_s);
    QVERIFY(m_delays.isEmpty());
    bool sawRelisting = false;
    for (const auto &state : std::as_const(m_states)) {
        if (state.phase == ReflectorState::Phase::Relisting) {
            sawRelisting = true;
            QVERIFY2(state.lastError.contains(u"410"_s), qPrintable(state.lastError));
        }
    }
    QVERIFY(sawRelisting);
}

void tst_Reflector::disconnectBacksOffWithInjectedTime()
{
    int watches = 0;
    int failUntil = 7; // watch attempts 2..7 fail
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(socket, 200, "application/json", listBody({ object("a", 5) }, 10));
            return;
        }
        ++watches;
        if (watches == 1) {
            TestServer::startStream(socket);
            TestServer::writeChunk(socket, watchLine("MODIFIED", object("a", 11)));
            return; // dropped below
        }
        if (watches <= failUntil) {
            TestServer::respond(
                socket,
                503,
                "application/json",
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd unavailable","reason":"ServiceUnavailable","code":503})");
            return;
        }
        TestServer::startStream(socket);
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE(m_reflector->resourceVersion(), u"11"_s);
    QCOMPARE(watches, 1);

    // The connection drops mid-stream: resumed from RV 11, then 503s back off.
    m_server->dropConnections();
    QTRY_COMPARE(watches, 8);
    QTRY_COMPARE(m_reflector->state().phase, ReflectorState::Phase::Watching);
    QList<int> delays;
    for (auto delay : std::as_const(m_delays))
        delays << int(delay.count());
    QCOMPARE(delays, (QList<int>{ 1200, 2400, 4800, 9600, 19200, 30000 }));
    for (const auto &request : watchRequests().mid(1))
        QCOMPARE(request.queryValue(u"resourceVersion"_s), u"11"_s);
    QCOMPARE(listRequests().size(), 1);

    // The states said so, with the error.
    QList<ReflectorState> reconnecting;
    for (const auto &state : std::as_const(m_states)) {
        if (state.phase == ReflectorState::Phase::Reconnecting)
            reconnecting << state;
    }
    QCOMPARE(reconnecting.size(), 6);
    QCOMPARE(reconnecting.first().toString(), u"reconnecting in 2 s"_s);
    QCOMPARE(reconnecting.last().toString(), u"reconnecting in 30 s"_s);
    QVERIFY2(
        reconnecting.first().lastError.contains(u"ServiceUnavailable (503): etcd unavailable"_s),
        qPrintable(reconnecting.first().lastError));

    // After more than two healthy minutes the backoff starts over.
    m_now += 3min;
    failUntil = 10; // the resumed watch (9) and the next (10) fail
    m_server->dropConnections();
    QTRY_COMPARE(watches, 11);
    QTRY_COMPARE(m_reflector->state().phase, ReflectorState::Phase::Watching);
    QCOMPARE(int(m_delays.value(6).count()), 1200);
    QCOMPARE(int(m_delays.value(7).count()), 2400);
}

void tst_Reflector::stopCancelsScheduledRetry()
{
    int lists = 0;
    m_server->handler = [&](const TestRequest &, QTcpSocket *socket) {
        ++lists;
        TestServer::respond(socket, 500, "text/plain", "boom");
    };
    m_reflector = std::make_unique<Reflector>(m_client.get(), CustomApps);
    std::function<void()> pending;
    m_reflector->setScheduler([&](std::chrono::milliseconds, std::function<void()> action) {
        pending = std::move(action);
    });
    m_reflector->start();
    QTRY_VERIFY(bool(pending));
    QCOMPARE(lists, 1);
    QCOMPARE(m_reflector->state().phase, ReflectorState::Phase::Reconnecting);
    m_reflector->stop();
    QCOMPARE(m_reflector->state().phase, ReflectorState::Phase::Idle);
    pending();
    QTest::qWait(50); // nothing may happen: give a stray request the chance to show up
    QCOMPARE(lists, 1);
    // All namespaces: the collection path has no namespace.
    QCOMPARE(m_server->requests.first().path, u"/apis/infrastructure.internal.net/v1/customapps"_s);
}

QTEST_GUILESS_MAIN(tst_Reflector)
#include "tst_reflector.moc"
