// The console's side of the census and the watch gap (issue 23, part 1): a session connects to a
// server already holding an object in every state; the state graph shows them as the census (per
// node, no edge, nothing off-design, zero transitions) and the table's Moved column the Ready or
// Degraded condition's time, or "—". A later live change is one transition; then the watch
// expires (410) and the relist finds one object changed meanwhile and one gone: one move each,
// across the gap, counted apart on their edges; the unchanged objects make nothing. The server is
// scripted (TestServer), so that the gap is exact.
#include "../kube/testserver.h"
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/stategraphscene.h"
#include "uitestsupport.h"

#include <QFile>
#include <QPointer>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope;
using models::LifecycleState;
using models::Observed;
using models::ResourceTableModel;
using S = LifecycleState;

namespace {

constexpr int Timeout = 20000;
const QDateTime ReadySince = QDateTime::fromString(u"2026-11-30T00:15:00Z"_s, Qt::ISODate);

// A CustomApp: no status (Pending), or Ready=`ready` with Degraded=`degraded`, or being deleted.
QByteArray object(const QByteArray &name, int rv, const char *ready, const char *degraded = "False")
{
    QByteArray meta = R"("name":")" + name + R"(","namespace":"team","resourceVersion":")"
        + QByteArray::number(rv) + R"(","generation":1)";
    if (name == "terminating")
        meta += R"(,"deletionTimestamp":"2026-11-30T00:20:00Z","finalizers":["hold"])";
    QByteArray body
        = R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{)" + meta
        + R"(},"spec":{"image":"nginx:1.27"})";
    if (!ready)
        return body + "}";
    return body + R"(,"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":")"
        + ready
        + R"(","reason":"R","message":"m","lastTransitionTime":"2026-11-30T00:15:00Z"},{"type":"Degraded","status":")"
        + degraded
        + R"(","reason":"Quota","message":"m","lastTransitionTime":"2026-11-30T01:00:00Z"}]}})";
}

} // namespace

class tst_ConsoleCensus final : public QObject
{
    Q_OBJECT

private slots:
    void censusThenLiveThenGap();
};

void tst_ConsoleCensus::censusThenLiveThenGap()
{
    TestServer server;
    int lists = 0;
    QPointer<QTcpSocket> watch;
    const QList<QByteArray> before{ object("pending", 5, nullptr),
                                    object("reconciling", 6, "False"),
                                    object("ready", 7, "True"),
                                    object("degraded", 8, "False", "True"),
                                    object("terminating", 9, "True") };
    // After the gap: `ready` Degraded, `pending` gone, `reconciling` as the live change left it.
    const QList<QByteArray> after{ object("reconciling", 11, "True"),
                                   object("ready", 12, "False", "True"),
                                   object("degraded", 8, "False", "True"),
                                   object("terminating", 9, "True") };
    server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.path.endsWith(u"/customapps"_s)) {
            TestServer::respond(socket, 404, "application/json", R"({"kind":"Status","code":404})");
            return;
        }
        if (!request.query.hasQueryItem(u"watch"_s)) {
            ++lists;
            TestServer::respond(socket,
                                200,
                                "application/json",
                                lists == 1 ? reconscope::tests::customAppListBody(before, 10)
                                           : reconscope::tests::customAppListBody(after, 30));
            return;
        }
        TestServer::startStream(socket);
        if (lists == 1)
            watch = socket;
    };
    QTemporaryDir dir;
    ConsoleSession session;
    session.setBatchInterval(5);
    QList<models::Transition> announced;
    connect(&session,
            &ConsoleSession::transitionsObserved,
            this,
            [&](const QList<models::Transition> &transitions) { announced += transitions; });
    QVERIFY(session.openKubeconfig(reconscope::tests::writeTestServerKubeconfig(dir, server.port()))
                .ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), 5, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(watch, Timeout);

    // 1. The census: in every state, no transition, no edge, nothing off-design.
    const models::StateGraphStats &stats = session.tracker().stats();
    ui::StateGraphScene scene;
    scene.setStatistics(stats, QDateTime::currentDateTimeUtc());
    QCOMPARE(stats.totalTransitions(), 0);
    QCOMPARE(stats.censusCount(), 5);
    for (const S state : { S::Pending, S::Reconciling, S::Ready, S::Degraded, S::Terminating }) {
        QCOMPARE(scene.nodeCensus(state), 1);
        QCOMPARE(scene.nodeCounter(state), 1);
        QCOMPARE(scene.edgeCounter({ std::nullopt, state }), 0);
    }
    QList<models::StateNode> nodes{ std::nullopt };
    for (int i = 0; i < models::LifecycleStateCount; ++i)
        nodes << LifecycleState(i);
    for (const models::StateNode &from : nodes) {
        for (const models::StateNode &to : nodes)
            QVERIFY(!scene.isEdgeAlarming({ from, to }));
    }
    QCOMPARE(announced.size(), 5);
    for (const models::Transition &entry : std::as_const(announced))
        QCOMPARE(entry.observed, Observed::AtConnect);
    const ResourceTableModel *table = session.tableModel();
    const auto moved = [table](const char *name) {
        return table
            ->index(table->rowOf(u"team/"_s + QString::fromLatin1(name)),
                    ResourceTableModel::LastTransitionColumn)
            .data()
            .toString();
    };
    QVERIFY2(moved("ready").endsWith(u" ago (Ready)"_s), qPrintable(moved("ready")));
    QVERIFY2(moved("degraded").endsWith(u" ago (Degraded)"_s), qPrintable(moved("degraded")));
    QCOMPARE(moved("pending"), u"—"_s);
    QCOMPARE(moved("terminating"), u"—"_s);
    QCOMPARE(table->find(u"team/ready"_s)->stateSince, ReadySince);

    // 2. A live change: one transition, on design.
    TestServer::writeChunk(
        watch, R"({"type":"MODIFIED","object":)" + object("reconciling", 11, "True") + "}\n");
    QTRY_COMPARE_WITH_TIMEOUT(stats.totalTransitions(), 1, Timeout);
    QCOMPARE(stats.edgeCount(S::Reconciling, S::Ready), 1);
    QCOMPARE(announced.constLast().observed, Observed::Live);
    QVERIFY(announced.constLast().onDesign);

    // 3. The watch expires; the relist finds `ready` Degraded and `pending` gone.
    TestServer::writeChunk(
        watch,
        R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 10 (25)","reason":"Expired","code":410}})j"
        "\n");
    TestServer::endStream(watch);
    QTRY_COMPARE_WITH_TIMEOUT(stats.totalTransitions(), 3, Timeout);
    QCOMPARE(stats.gapTransitions(), 2);
    QCOMPARE(stats.gapEdgeCount(S::Ready, S::Degraded), 1);
    QCOMPARE(stats.gapEdgeCount(S::Pending, std::nullopt), 1);
    QCOMPARE(stats.edgeCount(S::Ready, S::Degraded), 0);
    QCOMPARE(announced.size(), 8);
    for (const models::Transition &move : announced.mid(6)) {
        QCOMPARE(move.observed, Observed::AcrossGap);
        QVERIFY(move.onDesign); // paths of the designed graph
    }
    scene.setStatistics(stats, QDateTime::currentDateTimeUtc());
    QCOMPARE(scene.edgeGapCounter({ S::Ready, S::Degraded }), 1);
    QVERIFY(!scene.isEdgeAlarming({ S::Ready, S::Degraded }));
    QVERIFY2(moved("ready").endsWith(u" ago (Degraded)"_s), qPrintable(moved("ready")));
    QCOMPARE(table->rowCount(), 4);
    // The timeline of `ready`: its census entry, then the move across the gap.
    const auto history = session.tracker().log().history(u"team/ready"_s);
    QCOMPARE(history.size(), 2);
    QCOMPARE(history[0].observed, Observed::AtConnect);
    QCOMPARE(history[1].observed, Observed::AcrossGap);
}

QTEST_MAIN(tst_ConsoleCensus)
#include "tst_consolecensus.moc"
