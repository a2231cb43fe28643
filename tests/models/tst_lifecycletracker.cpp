// The census and the watch gap (issue 23, part 1): objects present when the watch connects enter
// their state as observed at connect, counted apart from transitions and never off-design; a
// relist after a gap makes one move, marked across the gap, per object whose state changed, and
// nothing for the others; time in state comes from the deciding condition's lastTransitionTime
// when the move was not seen, else it is unknown, never the connect time.
#include "models/lifecycletracker.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

using S = LifecycleState;
const QDateTime T0 = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);
const QDateTime Connect = T0.addSecs(3600); // an hour after the objects' own times

QDateTime t(int seconds)
{
    return Connect.addSecs(seconds);
}

QString rfc3339(const QDateTime &time)
{
    return time.toString(Qt::ISODate);
}

// A CustomApp-like object: no status (Pending), or the Ready condition with the given status and
// lastTransitionTime (omitted when invalid), or Degraded=True, or being deleted.
ObjectSummary object(const QString &name,
                     const char *ready,
                     const QDateTime &since = T0,
                     const char *degraded = "False",
                     bool deleting = false)
{
    nlohmann::json json{
        { "metadata",
          { { "name", name.toStdString() }, { "namespace", "d" }, { "generation", 1 } } }
    };
    if (deleting) {
        json["metadata"]["deletionTimestamp"] = rfc3339(T0).toStdString();
        json["metadata"]["finalizers"] = { "f" };
    }
    if (ready) {
        nlohmann::json readyCondition{ { "type", "Ready" },
                                       { "status", ready },
                                       { "reason", "R" } };
        if (since.isValid())
            readyCondition["lastTransitionTime"] = rfc3339(since).toStdString();
        json["status"]
            = { { "observedGeneration", 1 },
                { "conditions",
                  { readyCondition,
                    { { "type", "Degraded" },
                      { "status", degraded },
                      { "reason", "Quota" },
                      { "lastTransitionTime", rfc3339(T0.addSecs(60)).toStdString() } } } } };
    }
    const QByteArray bytes = QByteArray::fromStdString(json.dump());
    auto summary = reconscope::tests::summaryFromBytes(bytes, LifecycleMapping());
    if (!summary)
        qFatal("%s", qPrintable(summary.error().message));
    return *summary;
}

} // namespace

class tst_LifecycleTracker : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void censusIsNoTransition();
    void censusTimeInStateFromTheCondition();
    void liveChangeAfterTheCensus();
    void relistAfterAGap();
    void gapMoveOffThePathsIsFlagged();
    void censusAndGapJson();

private:
    LifecycleMapping m_mapping;
    LifecycleTracker m_tracker;
    // One object in every state, as a cluster would hold them when the watch connects.
    void connectToEveryState();
};

void tst_LifecycleTracker::init()
{
    m_tracker.clear();
}

void tst_LifecycleTracker::connectToEveryState()
{
    const QList<ObjectSummary> objects{
        object(u"pending"_s, nullptr),
        object(u"reconciling"_s, "False"),
        object(u"ready"_s, "True"),
        object(u"degraded"_s, "False", T0, "True"),
        object(u"terminating"_s, "True", T0, "False", true),
        object(u"untimed"_s, "True", QDateTime()),
    };
    for (const ObjectSummary &summary : objects) {
        const auto entry = m_tracker.upsert(summary, m_mapping, Connect, Observed::AtConnect);
        QVERIFY(entry);
        QCOMPARE(entry->observed, Observed::AtConnect);
        QCOMPARE(entry->from, StateNode());
        QVERIFY2(entry->onDesign, "the census is never off-design");
    }
}

void tst_LifecycleTracker::censusIsNoTransition()
{
    connectToEveryState();
    const StateGraphStats &stats = m_tracker.stats();
    QCOMPARE(stats.totalTransitions(), 0);
    QCOMPARE(stats.censusCount(), 6);
    for (const S state : { S::Pending, S::Reconciling, S::Degraded, S::Terminating }) {
        QCOMPARE(stats.censusIn(state), 1);
        QCOMPARE(stats.objectsIn(state), 1);
    }
    QCOMPARE(stats.censusIn(S::Ready), 2);
    QCOMPARE(stats.objectsIn(S::Ready), 2);
    // No edge at all: neither [*] -> state nor anything off-design.
    QList<StateNode> nodes{ std::nullopt };
    for (int i = 0; i < LifecycleStateCount; ++i)
        nodes << LifecycleState(i);
    for (const StateNode &from : nodes) {
        for (const StateNode &to : nodes) {
            QCOMPARE(stats.edgeCount(from, to), 0);
            QCOMPARE(stats.gapEdgeCount(from, to), 0);
        }
    }
    // Listed again unchanged (a second census of the same objects, or a relist): nothing.
    QVERIFY(!m_tracker.upsert(object(u"ready"_s, "True"), m_mapping, t(5), Observed::AtConnect));
    QVERIFY(!m_tracker.upsert(object(u"ready"_s, "True"), m_mapping, t(6), Observed::AcrossGap));
    QCOMPARE(stats.totalTransitions(), 0);
    // The object's timeline holds its census entry.
    const auto history = m_tracker.log().history(u"d/ready"_s);
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.front().observed, Observed::AtConnect);
    QCOMPARE(history.front().time, Connect);
}

void tst_LifecycleTracker::censusTimeInStateFromTheCondition()
{
    connectToEveryState();
    const TransitionLog &log = m_tracker.log();
    // The deciding condition's lastTransitionTime: Ready's, or Degraded's for a Degraded object.
    QCOMPARE(log.stateSince(u"d/ready"_s), T0);
    QCOMPARE(m_tracker.verdict(u"d/ready"_s).sinceCondition, u"Ready"_s);
    QCOMPARE(log.stateSince(u"d/reconciling"_s), T0);
    QCOMPARE(log.stateSince(u"d/degraded"_s), T0.addSecs(60));
    QCOMPARE(m_tracker.verdict(u"d/degraded"_s).sinceCondition, u"Degraded"_s);
    // No condition decided, or it carries no time: unknown, never the connect time.
    QVERIFY(!log.stateSince(u"d/pending"_s).isValid());
    QVERIFY(!log.stateSince(u"d/terminating"_s).isValid());
    QVERIFY(!log.stateSince(u"d/untimed"_s).isValid());
    QCOMPARE(log.lastTransitionTime(u"d/untimed"_s), Connect); // when it was seen
    // Time in state counts the visits whose start is known: of the two Ready objects, the timed
    // one.
    const StateGraphStats &stats = m_tracker.stats();
    QCOMPARE(stats.timedVisitsTo(S::Ready), 1);
    QCOMPARE(stats.msecsIn(S::Ready, Connect), qint64(3600) * 1000);
    QCOMPARE(stats.timedVisitsTo(S::Pending), 0);
    QCOMPARE(stats.msecsIn(S::Pending, t(100)), 0);
}

void tst_LifecycleTracker::liveChangeAfterTheCensus()
{
    connectToEveryState();
    // A real change: one transition, live, on design, since when it was seen.
    const auto moved
        = m_tracker.upsert(object(u"ready"_s, "False", t(30)), m_mapping, t(30), Observed::Live);
    QVERIFY(moved);
    QCOMPARE(moved->observed, Observed::Live);
    QCOMPARE(moved->from, StateNode(S::Ready));
    QCOMPARE(moved->to, StateNode(S::Reconciling));
    QVERIFY(moved->onDesign);
    QCOMPARE(moved->since, t(30));
    const StateGraphStats &stats = m_tracker.stats();
    QCOMPARE(stats.totalTransitions(), 1);
    QCOMPARE(stats.gapTransitions(), 0);
    QCOMPARE(stats.edgeCount(S::Ready, S::Reconciling), 1);
    QCOMPARE(stats.censusIn(S::Ready), 2); // the census stays what it found
    QCOMPARE(stats.objectsIn(S::Ready), 1);
    QCOMPARE(stats.objectsIn(S::Reconciling), 2);
    // Its hour in Ready (from the condition) is closed; the untimed one adds nothing.
    QCOMPARE(stats.closedMsecsIn(S::Ready), qint64(3630) * 1000);
    QCOMPARE(m_tracker.log().stateSince(u"d/ready"_s), t(30));
    // A deletion seen live, and a new object: live transitions.
    QVERIFY(m_tracker.remove(u"d/terminating"_s, t(40))->onDesign);
    const auto created = m_tracker.upsert(object(u"new"_s, nullptr), m_mapping, t(41));
    QCOMPARE(created->from, StateNode());
    QCOMPARE(created->observed, Observed::Live);
    QCOMPARE(stats.totalTransitions(), 3);
    QCOMPARE(stats.edgeCount(std::nullopt, S::Pending), 1);
}

void tst_LifecycleTracker::relistAfterAGap()
{
    connectToEveryState();
    // The watch is cut; meanwhile `ready` went through Reconciling to Degraded, `degraded`
    // recovered, `pending` was deleted, `born` created and made Ready, the others did not change.
    // The relist finds it all: one move per changed object, across the gap.
    const QDateTime relist = t(600);
    QList<Transition> moves;
    for (const ObjectSummary &summary : { object(u"reconciling"_s, "False"),
                                          object(u"ready"_s, "False", t(200), "True"),
                                          object(u"degraded"_s, "True", t(300)),
                                          object(u"terminating"_s, "True", T0, "False", true),
                                          object(u"untimed"_s, "True", QDateTime()),
                                          object(u"born"_s, "True", t(250)) }) {
        if (auto move = m_tracker.upsert(summary, m_mapping, relist, Observed::AcrossGap))
            moves << *move;
    }
    if (auto gone = m_tracker.remove(u"d/pending"_s, relist, Observed::AcrossGap))
        moves << *gone;
    QCOMPARE(moves.size(), 4);
    for (const Transition &move : std::as_const(moves)) {
        QCOMPARE(move.observed, Observed::AcrossGap);
        QCOMPARE(move.time, relist);
        QVERIFY2(move.onDesign, qPrintable(move.key)); // each a path of the designed graph
    }
    QCOMPARE(moves[0].key, u"d/ready"_s);
    QCOMPARE(moves[0].to, StateNode(S::Degraded));
    // The Degraded condition's time (60 s after T0 in this object), not the relist's.
    QCOMPARE(moves[0].since, T0.addSecs(60));
    QCOMPARE(moves[1].to, StateNode(S::Ready));
    QCOMPARE(moves[1].since, t(300));
    QCOMPARE(moves[2].key, u"d/born"_s);
    QCOMPARE(moves[2].from, StateNode());
    QCOMPARE(moves[3].to, StateNode());
    QVERIFY(!moves[3].since.isValid());
    const StateGraphStats &stats = m_tracker.stats();
    QCOMPARE(stats.totalTransitions(), 4);
    QCOMPARE(stats.gapTransitions(), 4);
    QCOMPARE(stats.gapEdgeCount(S::Ready, S::Degraded), 1);
    QCOMPARE(stats.edgeCount(S::Ready, S::Degraded), 0); // no live move along it
    QCOMPARE(stats.gapEdgeCount(std::nullopt, S::Ready), 1);
    QCOMPARE(stats.gapEdgeCount(S::Pending, std::nullopt), 1);
    QCOMPARE(m_tracker.log().history(u"d/ready"_s).size(), 2);
}

void tst_LifecycleTracker::gapMoveOffThePathsIsFlagged()
{
    connectToEveryState();
    // Out of Terminating to anything but [*] is off every path of the design, gap or not.
    const auto back
        = m_tracker.upsert(object(u"terminating"_s, "True"), m_mapping, t(10), Observed::AcrossGap);
    QVERIFY(back);
    QVERIFY(!back->onDesign);
    QVERIFY(isReachableByDesign(S::Pending, S::Degraded));
    QVERIFY(isReachableByDesign(std::nullopt, S::Ready));
    QVERIFY(isReachableByDesign(S::Degraded, std::nullopt));
    QVERIFY(!isReachableByDesign(S::Ready, S::Pending));
    QVERIFY(!isReachableByDesign(S::Terminating, S::Ready));
    QVERIFY(!isReachableByDesign(S::Ready, S::Unknown));
}

void tst_LifecycleTracker::censusAndGapJson()
{
    const auto census
        = m_tracker.upsert(object(u"ready"_s, "True"), m_mapping, Connect, Observed::AtConnect);
    const nlohmann::json entry = census->toJson();
    QCOMPARE(entry["type"].get<std::string>(), std::string("census"));
    QCOMPARE(entry["state"].get<std::string>(), std::string("Ready"));
    QCOMPARE(entry["since"].get<std::string>(), rfc3339(T0).toStdString());
    QVERIFY(!entry.contains("from"));
    const auto untimed = m_tracker.upsert(
        object(u"untimed"_s, "True", QDateTime()), m_mapping, Connect, Observed::AtConnect);
    QVERIFY(untimed->toJson()["since"].is_null());
    const auto gap = m_tracker.upsert(
        object(u"ready"_s, "False", t(50)), m_mapping, t(60), Observed::AcrossGap);
    const nlohmann::json move = gap->toJson();
    QCOMPARE(move["type"].get<std::string>(), std::string("transition"));
    QCOMPARE(move["acrossGap"].get<bool>(), true);
    QCOMPARE(move["from"].get<std::string>(), std::string("Ready"));
    QCOMPARE(move["since"].get<std::string>(), rfc3339(t(50)).toStdString());
    const auto live = m_tracker.upsert(object(u"ready"_s, "True", t(70)), m_mapping, t(70));
    QCOMPARE(live->toJson()["acrossGap"].get<bool>(), false);
    QVERIFY(!live->toJson().contains("since"));
}

QTEST_APPLESS_MAIN(tst_LifecycleTracker)
#include "tst_lifecycletracker.moc"
