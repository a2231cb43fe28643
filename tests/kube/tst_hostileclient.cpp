// Hostile answers to the client (issue 9): malformed, truncated, deeply nested and non-JSON list
// and watch bodies, objects over 1.5 MiB and invalid UTF-8. Each gives a typed error naming what
// was wrong; the reflector restarts from the last good resourceVersion and the cache it feeds
// holds exactly what the server sent before and after the bad answer.

#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "testserver.h"

#include <QtTest>

#include <map>
#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;
using namespace reconscope::controller::apimachinery;
using namespace std::chrono_literals;

class tst_HostileClient final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void badListBodies_data();
    void badListBodies();
    void nonJsonObjectAnswer();
    void malformedWatchLineRestartsFromLastGoodVersion_data();
    void malformedWatchLineRestartsFromLastGoodVersion();
    void badListRetriesAndKeepsCache();
    void objectOverOnePointFiveMiBInWatchAndList();
    void invalidUtf8InWatchedObject();
    void nestingTheServerAcceptsIsDecoded();

private:
    void makeReflector();
    QList<TestRequest> requests(bool watch) const;
    QString statesText() const
    {
        QStringList lines;
        for (const ReflectorState &state : m_states)
            lines << state.toString() + u" | "_s + state.lastError.left(200);
        return lines.join(u'\n');
    }
    // The cache the reflector's deltas build: key -> resourceVersion.
    std::map<QString, QString> cache() const;

    std::unique_ptr<TestServer> m_server;
    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<Reflector> m_reflector;
    QList<Delta> m_deltas;
    QList<ReflectorState> m_states;
};

namespace {

const ResourceRef CustomApps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true };

QByteArray object(const char *name, int rv, const QByteArray &spec = R"({"n":1})")
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + QByteArray(name) + R"(","namespace":"default","resourceVersion":")"
        + QByteArray::number(rv) + R"("},"spec":)" + spec + "}";
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

bool isWatch(const TestRequest &request)
{
    return request.query.hasQueryItem(u"watch"_s);
}

} // namespace

void tst_HostileClient::init()
{
    m_server = std::make_unique<TestServer>();
    QVERIFY(m_server->port() != 0);
    ClientConfig config;
    config.server = QUrl(m_server->url(u"http"_s));
    m_client = std::make_unique<RestClient>(config);
    m_deltas.clear();
    m_states.clear();
}

void tst_HostileClient::cleanup()
{
    m_reflector.reset();
    m_client.reset();
    m_server.reset();
}

void tst_HostileClient::makeReflector()
{
    m_reflector = std::make_unique<Reflector>(m_client.get(), CustomApps, u"default"_s);
    m_reflector->setRandom([] { return 0.5; });
    // Retries run at once: the test checks what is retried, not how long it waits.
    m_reflector->setScheduler([this](std::chrono::milliseconds, std::function<void()> action) {
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

QList<TestRequest> tst_HostileClient::requests(bool watch) const
{
    QList<TestRequest> out;
    for (const auto &request : m_server->requests) {
        if (isWatch(request) == watch)
            out << request;
    }
    return out;
}

std::map<QString, QString> tst_HostileClient::cache() const
{
    std::map<QString, QString> cache;
    for (const Delta &delta : m_deltas) {
        if (delta.type == Delta::Type::Upsert)
            cache[delta.meta.key()] = delta.meta.resourceVersion;
        else
            cache.erase(delta.meta.key());
    }
    return cache;
}

void tst_HostileClient::badListBodies_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");
    const QByteArray good = listBody({ object("a", 1), object("b", 2) }, 3);
    QTest::newRow("truncated") << QByteArray("application/json") << good.left(good.size() - 40)
                               << u"malformed list response: "_s;
    QTest::newRow("html error page")
        << QByteArray("text/html") << QByteArray("<html><body>502 Bad Gateway</body></html>")
        << u"malformed list response: <html><body>502 Bad Gateway</body></html>"_s;
    QTest::newRow("empty") << QByteArray("application/json") << QByteArray()
                           << u"malformed list response: "_s;
    QTest::newRow("items not an array")
        << QByteArray("application/json")
        << QByteArray(R"({"kind":"CustomAppList","items":{"a":1},"metadata":{}})")
        << u"list response: items is not an array"_s;
    QTest::newRow("deeply nested item")
        << QByteArray("application/json")
        << listBody({ object("a", 1, QByteArray(100000, '[') + QByteArray(100000, ']')) }, 3)
        << u"malformed list response: "_s;
    QTest::newRow("trailing garbage")
        << QByteArray("application/json") << good + "}" << u"malformed list response: "_s;
}

void tst_HostileClient::badListBodies()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    m_server->handler = [&](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 200, contentType, body);
    };
    std::optional<reconscope::models::Result<ListPage, ApiError>> result;
    m_client->list(
        CustomApps,
        u"default"_s,
        { .limit = DefaultListPageSize },
        [&](reconscope::models::Result<ListPage, ApiError> page) { result = std::move(page); });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 20000);
    QVERIFY(!result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Decode);
    QVERIFY2(result->error().message.startsWith(message), qPrintable(result->error().message));
    // The excerpt is bounded, whatever the body's size.
    QVERIFY(result->error().message.size() < 300);
}

void tst_HostileClient::nonJsonObjectAnswer()
{
    m_server->handler = [&](const TestRequest &, QTcpSocket *socket) {
        TestServer::respond(socket, 200, "text/plain", "upstream connect error");
    };
    std::optional<RestClient::JsonResult> result;
    m_client->get(CustomApps, u"default"_s, u"a"_s, [&](RestClient::JsonResult answer) {
        result = std::move(answer);
    });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 20000);
    QVERIFY(!result->ok());
    QCOMPARE(result->error().category, ApiError::Category::Decode);
    QCOMPARE(result->error().message, u"the server's answer is not JSON: upstream connect error"_s);
}

void tst_HostileClient::malformedWatchLineRestartsFromLastGoodVersion_data()
{
    QTest::addColumn<QByteArray>("bad");
    QTest::addColumn<QString>("error");
    QTest::newRow("garbage line") << QByteArray("this is not json\n")
                                  << u"malformed watch event: this is not json"_s;
    QTest::newRow("truncated line") << QByteArray(R"({"type":"MODIFIED","object":{"metadata":{)")
            + "\n" << u"malformed watch event: "_s;
    QTest::newRow("unknown type") << watchLine("EXPLODED", object("a", 12))
                                  << u"unknown watch event type \"EXPLODED\""_s;
    QTest::newRow("no object") << QByteArray(R"({"type":"ADDED"})") + "\n"
                               << u"watch event ADDED without an object"_s;
    QTest::newRow("object not an object") << QByteArray(R"({"type":"ADDED","object":[1,2]})") + "\n"
                                          << u"watch event ADDED without an object"_s;
    QTest::newRow("deeper than Go decodes")
        << watchLine("ADDED", object("d", 12, QByteArray(20000, '[') + QByteArray(20000, ']')))
        << u"malformed watch event: "_s;
    QTest::newRow("stream cut mid-event")
        << QByteArray(R"({"type":"ADDED","object":{"metadata":{"name":"z","namesp)")
        << u"malformed watch event: "_s;
}

void tst_HostileClient::malformedWatchLineRestartsFromLastGoodVersion()
{
    QFETCH(QByteArray, bad);
    QFETCH(QString, error);
    int watches = 0;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(
                socket, 200, "application/json", listBody({ object("a", 8), object("b", 9) }, 10));
            return;
        }
        TestServer::startStream(socket);
        if (watches++ == 0) {
            // A good event, the bad bytes, and an event after them that must not be applied.
            TestServer::writeChunk(socket, watchLine("MODIFIED", object("a", 11)));
            TestServer::writeChunk(socket, bad);
            TestServer::writeChunk(socket, watchLine("DELETED", object("b", 13)));
            TestServer::endStream(socket);
            return;
        }
        TestServer::writeChunk(socket, watchLine("ADDED", object("c", 12)));
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_reflector->resourceVersion(), u"12"_s, 20000);

    // The decode error is reported, the watch resumes from the last good event's RV (no relist:
    // nothing was lost), and the event after the bad bytes was never applied.
    bool reported = false;
    for (const ReflectorState &state : std::as_const(m_states))
        reported = reported || state.lastError.contains(error);
    QVERIFY2(reported, qPrintable(statesText()));
    const auto watchRequests = requests(true);
    QVERIFY(watchRequests.size() >= 2);
    QCOMPARE(watchRequests[0].queryValue(u"resourceVersion"_s), u"10"_s);
    QCOMPARE(watchRequests[1].queryValue(u"resourceVersion"_s), u"11"_s);
    QCOMPARE(requests(false).size(), 1);
    const std::map<QString, QString> expected{ { u"default/a"_s, u"11"_s },
                                               { u"default/b"_s, u"9"_s },
                                               { u"default/c"_s, u"12"_s } };
    QCOMPARE(cache(), expected);
    QCOMPARE(m_reflector->state().phase, ReflectorState::Phase::Watching);
}

void tst_HostileClient::badListRetriesAndKeepsCache()
{
    // The first list is good; after a 410 the relist gets garbage twice, then a good answer. The
    // garbage never reaches the cache; the final cache equals the last good list.
    int lists = 0;
    int watches = 0;
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            ++lists;
            if (lists == 1) {
                TestServer::respond(socket,
                                    200,
                                    "application/json",
                                    listBody({ object("a", 8), object("b", 9) }, 10));
            } else if (lists <= 3) {
                TestServer::respond(socket, 200, "application/json", R"({"items":[{"metadata":)");
            } else {
                TestServer::respond(socket,
                                    200,
                                    "application/json",
                                    listBody({ object("b", 20), object("c", 21) }, 22));
            }
            return;
        }
        TestServer::startStream(socket);
        if (watches++ == 0) {
            TestServer::writeChunk(
                socket,
                R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (15)","reason":"Expired","code":410}})j"
                "\n");
            TestServer::endStream(socket);
        }
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_reflector->resourceVersion(), u"22"_s, 20000);
    QCOMPARE(lists, 4);
    bool reported = false;
    for (const ReflectorState &state : std::as_const(m_states))
        reported = reported || state.lastError.contains(u"malformed list response"_s);
    QVERIFY2(reported, qPrintable(statesText()));
    const std::map<QString, QString> expected{ { u"default/b"_s, u"20"_s },
                                               { u"default/c"_s, u"21"_s } };
    QCOMPARE(cache(), expected);
}

void tst_HostileClient::objectOverOnePointFiveMiBInWatchAndList()
{
    // Over etcd's limit a server should never send one, but a client must not choke on it: it is
    // decoded whole, byte for byte, whatever the chunking.
    const QByteArray big
        = object("big", 11, R"({"blob":")" + QByteArray(1536 * 1024 + 100, 'q') + R"("})");
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(
                socket, 200, "application/json", listBody({ object("a", 8), big }, 10));
            return;
        }
        TestServer::startStream(socket);
        const QByteArray line = watchLine("MODIFIED", big);
        for (qsizetype at = 0; at < line.size(); at += 65521)
            TestServer::writeChunk(socket, line.mid(at, 65521));
        TestServer::writeChunk(socket, watchLine("ADDED", object("c", 12)));
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_reflector->resourceVersion(), u"12"_s, 30000);
    int bigDeltas = 0;
    for (const Delta &delta : std::as_const(m_deltas)) {
        if (delta.meta.name == u"big") {
            ++bigDeltas;
            QCOMPARE(delta.object.size(), big.size());
            QCOMPARE(delta.object, big);
        }
    }
    QCOMPARE(bigDeltas, 2); // from the list and from the watch
}

void tst_HostileClient::invalidUtf8InWatchedObject()
{
    // Go's decoder would read the bytes as U+FFFD; the client keeps the object, with its name,
    // and goes on with the stream.
    const QByteArray odd = object("odd", 11, "{\"note\":\"\xff\xfe caf\xc3\"}");
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(socket, 200, "application/json", listBody({}, 10));
            return;
        }
        TestServer::startStream(socket);
        TestServer::writeChunk(socket,
                               watchLine("ADDED", odd) + watchLine("ADDED", object("after", 12)));
    };
    makeReflector();
    m_reflector->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_reflector->resourceVersion(), u"12"_s, 20000);
    const std::map<QString, QString> expected{ { u"default/after"_s, u"12"_s },
                                               { u"default/odd"_s, u"11"_s } };
    QCOMPARE(cache(), expected);
    QCOMPARE(requests(true).size(), 1);
}

void tst_HostileClient::nestingTheServerAcceptsIsDecoded()
{
    // The embedded cluster (as Go's decoder) accepts objects nested 10000 levels deep; such an
    // object must not stop the watch (a restart would meet it again, forever).
    const int depth = 10000 - 3; // the object, its spec and the nesting inside
    const QByteArray deep = object("deep", 11, QByteArray(depth, '[') + QByteArray(depth, ']'));
    m_server->handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!isWatch(request)) {
            TestServer::respond(socket, 200, "application/json", listBody({ deep }, 10));
            return;
        }
        TestServer::startStream(socket);
        TestServer::writeChunk(socket,
                               watchLine("MODIFIED", deep) + watchLine("ADDED", object("c", 12)));
    };
    makeReflector();
    m_reflector->start();
    QTRY_VERIFY2_WITH_TIMEOUT(
        m_reflector->resourceVersion() == u"12"_s, qPrintable(statesText()), 20000);
    QCOMPARE(requests(true).size(), 1);
    const std::map<QString, QString> expected{ { u"default/c"_s, u"12"_s },
                                               { u"default/deep"_s, u"11"_s } };
    QCOMPARE(cache(), expected);
}

QTEST_GUILESS_MAIN(tst_HostileClient)
#include "tst_hostileclient.moc"
