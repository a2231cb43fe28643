#include "models/lifecycletracker.h"
#include "models/transitionlog.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

#include <array>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

using S = LifecycleState;
const QDateTime T0 = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);

QDateTime t(int seconds)
{
    return T0.addSecs(seconds);
}

} // namespace

Q_DECLARE_METATYPE(reconscope::models::StateNode)

class tst_TransitionLog : public QObject
{
    Q_OBJECT

private slots:
    void designedGraph_data();
    void designedGraph();
    void seedPath();
    void unchangedStateGivesNothing();
    void offDesignPendingToReady();
    void timeInStateAccumulates();
    void objectsPerState();
    void historyIsBounded();
    void compactHistoryMatchesAReferenceLog();
    void removeUnknownKey();
    void trackerDerivesAndLogs();
    void trackerThroughput();
    void trackerKeepsEachVerdictWithItsObject();
};

void tst_TransitionLog::designedGraph_data()
{
    QTest::addColumn<StateNode>("from");
    QTest::addColumn<StateNode>("to");
    QTest::addColumn<bool>("onDesign");
    const StateNode start;
    QTest::newRow("[*]->Pending") << start << StateNode(S::Pending) << true;
    QTest::newRow("Pending->Reconciling")
        << StateNode(S::Pending) << StateNode(S::Reconciling) << true;
    QTest::newRow("Reconciling->Ready") << StateNode(S::Reconciling) << StateNode(S::Ready) << true;
    QTest::newRow("Reconciling->Degraded")
        << StateNode(S::Reconciling) << StateNode(S::Degraded) << true;
    QTest::newRow("Degraded->Reconciling")
        << StateNode(S::Degraded) << StateNode(S::Reconciling) << true;
    QTest::newRow("Ready->Reconciling") << StateNode(S::Ready) << StateNode(S::Reconciling) << true;
    QTest::newRow("Ready->Terminating") << StateNode(S::Ready) << StateNode(S::Terminating) << true;
    QTest::newRow("Terminating->[*]") << StateNode(S::Terminating) << start << true;
    QTest::newRow("[*]->Ready") << start << StateNode(S::Ready) << false;
    QTest::newRow("Pending->Ready") << StateNode(S::Pending) << StateNode(S::Ready) << false;
    QTest::newRow("Degraded->Terminating")
        << StateNode(S::Degraded) << StateNode(S::Terminating) << false;
    QTest::newRow("Ready->Degraded") << StateNode(S::Ready) << StateNode(S::Degraded) << false;
    QTest::newRow("Ready->[*]") << StateNode(S::Ready) << start << false;
    QTest::newRow("Reconciling->Pending")
        << StateNode(S::Reconciling) << StateNode(S::Pending) << false;
    QTest::newRow("[*]->NoLifecycle") << start << StateNode(S::NoLifecycle) << false;
    QTest::newRow("Unknown->Ready") << StateNode(S::Unknown) << StateNode(S::Ready) << false;
}

void tst_TransitionLog::designedGraph()
{
    QFETCH(StateNode, from);
    QFETCH(StateNode, to);
    QFETCH(bool, onDesign);
    QCOMPARE(isDesignedTransition(from, to), onDesign);
}

void tst_TransitionLog::seedPath()
{
    // [*] -> Pending -> Reconciling -> Ready -> Reconciling (drift) -> Ready -> Terminating -> [*]
    TransitionLog log;
    const QString key = u"default/app"_s;
    QList<Transition> emitted;
    const auto push = [&](std::optional<Transition> transition) {
        QVERIFY(transition.has_value());
        emitted << *transition;
    };
    push(log.observe(key, S::Pending, u"no status yet"_s, 1, std::nullopt, t(0)));
    push(log.observe(key, S::Reconciling, u"Progressing"_s, 1, 1, t(2)));
    push(log.observe(key, S::Ready, u"Synchronized"_s, 1, 1, t(12)));
    push(log.observe(key, S::Reconciling, u"DriftDetected"_s, 1, 1, t(112)));
    push(log.observe(key, S::Ready, u"Synchronized"_s, 1, 1, t(115)));
    push(log.observe(key, S::Terminating, u"deletion requested"_s, 1, 1, t(215)));
    push(log.remove(key, t(216), u"finalizers cleared"_s));

    const QList<std::pair<StateNode, StateNode>> path{
        { std::nullopt, S::Pending },     { S::Pending, S::Reconciling },
        { S::Reconciling, S::Ready },     { S::Ready, S::Reconciling },
        { S::Reconciling, S::Ready },     { S::Ready, S::Terminating },
        { S::Terminating, std::nullopt },
    };
    QCOMPARE(emitted.size(), path.size());
    for (qsizetype i = 0; i < path.size(); ++i) {
        QCOMPARE(emitted[i].from, path[i].first);
        QCOMPARE(emitted[i].to, path[i].second);
        QVERIFY2(emitted[i].onDesign, qPrintable(u"edge %1 off design"_s.arg(i)));
        QCOMPARE(emitted[i].key, key);
    }
    QCOMPARE(emitted[3].reason, u"DriftDetected"_s);
    QCOMPARE(emitted[1].observedGeneration, std::optional<qint64>(1));
    QCOMPARE(emitted[0].observedGeneration, std::optional<qint64>());
    QCOMPARE(emitted.back().generation, std::optional<qint64>(1));
    QCOMPARE(emitted.back().time, t(216));
    QCOMPARE(emitted.front().toJson().dump(),
             std::string(R"({"acrossGap":false,"from":"[*]","generation":1,"key":"default/app",)"
                         R"("observedGeneration":null,"onDesign":true,"reason":"no status yet",)"
                         R"("time":"2027-01-15T08:00:00Z","to":"Pending","type":"transition"})"));
    QCOMPARE(emitted.back().toJson()["to"].get<std::string>(), std::string("[*]"));

    const StateGraphStats &stats = log.stats();
    QCOMPARE(stats.edgeCount(std::nullopt, S::Pending), 1);
    QCOMPARE(stats.edgeCount(S::Pending, S::Reconciling), 1);
    QCOMPARE(stats.edgeCount(S::Reconciling, S::Ready), 2);
    QCOMPARE(stats.edgeCount(S::Ready, S::Reconciling), 1);
    QCOMPARE(stats.edgeCount(S::Ready, S::Terminating), 1);
    QCOMPARE(stats.edgeCount(S::Terminating, std::nullopt), 1);
    QCOMPARE(stats.edgeCount(S::Pending, S::Ready), 0);
    QCOMPARE(stats.totalTransitions(), 7);
    QCOMPARE(stats.objectCount(), 0);
    QCOMPARE(log.objectCount(), 0);
    QVERIFY(log.history(key).isEmpty());
    // Pending 2 s; Reconciling 10 + 3 s; Ready 100 + 100 s; Terminating 1 s.
    QCOMPARE(stats.closedMsecsIn(S::Pending), 2'000);
    QCOMPARE(stats.closedMsecsIn(S::Reconciling), 13'000);
    QCOMPARE(stats.closedMsecsIn(S::Ready), 200'000);
    QCOMPARE(stats.closedMsecsIn(S::Terminating), 1'000);
    QCOMPARE(stats.msecsIn(S::Ready, t(10'000)), 200'000);
}

void tst_TransitionLog::unchangedStateGivesNothing()
{
    TransitionLog log;
    QVERIFY(log.observe(u"a"_s, S::Ready, u"x"_s, 1, 1, t(0)));
    QVERIFY(!log.observe(u"a"_s, S::Ready, u"other reason"_s, 2, 2, t(5)));
    QCOMPARE(log.history(u"a"_s).size(), 1);
    QCOMPARE(log.stateSince(u"a"_s), t(0));
    QCOMPARE(log.stats().totalTransitions(), 1);
}

void tst_TransitionLog::offDesignPendingToReady()
{
    TransitionLog log;
    QVERIFY(log.observe(u"a"_s, S::Pending, {}, 1, std::nullopt, t(0))->onDesign);
    const auto coalesced = log.observe(u"a"_s, S::Ready, u"Synchronized"_s, 1, 1, t(1));
    QVERIFY(coalesced);
    QVERIFY(!coalesced->onDesign);
    QCOMPARE(coalesced->from, StateNode(S::Pending));
    QCOMPARE(log.stats().edgeCount(S::Pending, S::Ready), 1);
    const auto degradedDelete = [&] {
        log.observe(u"a"_s, S::Degraded, {}, 1, 1, t(2));
        return log.observe(u"a"_s, S::Terminating, {}, 1, 1, t(3));
    }();
    QVERIFY(degradedDelete);
    QVERIFY(!degradedDelete->onDesign);
    const QList<Transition> history = log.history(u"a"_s);
    QCOMPARE(history.size(), 4);
    QCOMPARE(history[1].onDesign, false);
    QCOMPARE(history[2].to, StateNode(S::Degraded));
}

void tst_TransitionLog::timeInStateAccumulates()
{
    TransitionLog log;
    log.observe(u"a"_s, S::Reconciling, {}, 1, 1, t(0));
    log.observe(u"b"_s, S::Reconciling, {}, 1, 1, t(10));
    QCOMPARE(log.stats().closedMsecsIn(S::Reconciling), 0);
    // Open intervals: a 30 s, b 20 s.
    QCOMPARE(log.stats().msecsIn(S::Reconciling, t(30)), 50'000);
    log.observe(u"a"_s, S::Ready, {}, 1, 1, t(40));
    QCOMPARE(log.stats().closedMsecsIn(S::Reconciling), 40'000);
    QCOMPARE(log.stats().msecsIn(S::Reconciling, t(50)), 80'000);
    QCOMPARE(log.stats().msecsIn(S::Ready, t(50)), 10'000);
    log.observe(u"a"_s, S::Reconciling, {}, 1, 1, t(60));
    log.observe(u"a"_s, S::Ready, {}, 1, 1, t(65));
    QCOMPARE(log.stats().closedMsecsIn(S::Reconciling), 45'000);
    QCOMPARE(log.stats().closedMsecsIn(S::Ready), 20'000);
    // A clock that goes backwards never subtracts time.
    log.observe(u"b"_s, S::Ready, {}, 1, 1, t(5));
    QCOMPARE(log.stats().closedMsecsIn(S::Reconciling), 45'000);
}

void tst_TransitionLog::objectsPerState()
{
    TransitionLog log;
    for (int i = 0; i < 5; ++i)
        log.observe(u"o%1"_s.arg(i), S::Pending, {}, 1, std::nullopt, t(i));
    QCOMPARE(log.stats().objectsIn(S::Pending), 5);
    log.observe(u"o0"_s, S::Reconciling, {}, 1, 1, t(10));
    log.observe(u"o1"_s, S::Reconciling, {}, 1, 1, t(10));
    log.observe(u"o1"_s, S::Degraded, {}, 1, 1, t(11));
    log.remove(u"o4"_s, t(12));
    QCOMPARE(log.stats().objectsIn(S::Pending), 2);
    QCOMPARE(log.stats().objectsIn(S::Reconciling), 1);
    QCOMPARE(log.stats().objectsIn(S::Degraded), 1);
    QCOMPARE(log.stats().objectsIn(S::Ready), 0);
    QCOMPARE(log.stats().objectCount(), 4);
    QCOMPARE(log.objectCount(), 4);
    QCOMPARE(log.state(u"o1"_s), std::optional<LifecycleState>(S::Degraded));
    QCOMPARE(log.stats().edgeCount(S::Pending, std::nullopt), 1);
    log.clear();
    QCOMPARE(log.stats().objectCount(), 0);
    QCOMPARE(log.stats().totalTransitions(), 0);
}

void tst_TransitionLog::historyIsBounded()
{
    TransitionLog log(3);
    QCOMPARE(log.historyLimit(), 3);
    for (int i = 0; i < 10; ++i)
        log.observe(u"a"_s, i % 2 ? S::Ready : S::Reconciling, u"step %1"_s.arg(i), i, i, t(i));
    const QList<Transition> history = log.history(u"a"_s);
    QCOMPARE(history.size(), 3);
    QCOMPARE(history.front().reason, u"step 7"_s);
    QCOMPARE(history.back().reason, u"step 9"_s);
    // Statistics are not bounded by the history.
    QCOMPARE(log.stats().totalTransitions(), 10);
    QCOMPARE(TransitionLog().historyLimit(), 200);
}

void tst_TransitionLog::compactHistoryMatchesAReferenceLog()
{
    // Random moves, deletions and re-creations of a few objects against a plain record of every
    // transition the log returned: each history is the newest `limit` of that object's
    // transitions (since its last creation), field for field; the latest, the state and its time
    // agree; the edge counters and the objects per state equal what the returned transitions add
    // up to.
    constexpr int Limit = 4;
    TransitionLog log(Limit);
    QHash<QString, QList<Transition>> reference;
    std::array<std::array<qint64, LifecycleStateCount + 1>, LifecycleStateCount + 1> edges{};
    const auto index = [](StateNode node) {
        return node ? int(*node) + 1 : 0;
    };
    QRandomGenerator random(20261130);
    const QList<std::optional<qint64>> generations{ std::nullopt, -1, 0, 7, qint64(1) << 60 };
    for (int i = 0; i < 3000; ++i) {
        const QString key = u"ns/app-%1"_s.arg(random.bounded(12));
        // Milliseconds count: times keep them (a QDateTime holds no more).
        const QDateTime time = T0.addMSecs(qint64(i) * 1237 + random.bounded(1000));
        std::optional<Transition> transition;
        if (random.bounded(10) == 0) {
            transition = log.remove(key, time, u"deleted"_s);
            QCOMPARE(transition.has_value(), reference.contains(key));
            if (transition) {
                QCOMPARE(transition->generation, reference[key].back().generation);
                reference.remove(key);
            }
        } else {
            const auto state = LifecycleState(random.bounded(LifecycleStateCount));
            transition = log.observe(key,
                                     state,
                                     u"reason %1"_s.arg(random.bounded(5)),
                                     generations[random.bounded(generations.size())],
                                     generations[random.bounded(generations.size())],
                                     time);
            const bool moved = !reference.contains(key) || reference[key].back().to != state;
            QCOMPARE(transition.has_value(), moved);
            if (transition)
                reference[key].append(*transition);
        }
        if (transition) {
            QCOMPARE(transition->key, key);
            QCOMPARE(transition->time, time);
            QCOMPARE(transition->onDesign, isDesignedTransition(transition->from, transition->to));
            edges[index(transition->from)][index(transition->to)] += 1;
        }
    }
    QCOMPARE(log.objectCount(), reference.size());
    std::array<int, LifecycleStateCount> objects{};
    for (auto it = reference.cbegin(); it != reference.cend(); ++it) {
        const QList<Transition> &all = it.value();
        const QList<Transition> expected = all.mid(std::max<qsizetype>(0, all.size() - Limit));
        QCOMPARE(log.history(it.key()), expected);
        QCOMPARE(log.historySize(it.key()), expected.size());
        QCOMPARE(log.lastTransition(it.key()), std::optional<Transition>(all.back()));
        QCOMPARE(log.state(it.key()), all.back().to);
        QCOMPARE(log.stateSince(it.key()), all.back().time);
        QCOMPARE(log.lastTransitionTime(it.key()), all.back().time);
        objects[std::size_t(*all.back().to)] += 1;
    }
    for (int from = 0; from <= LifecycleStateCount; ++from) {
        for (int to = 0; to <= LifecycleStateCount; ++to) {
            const StateNode a = from ? StateNode(LifecycleState(from - 1)) : std::nullopt;
            const StateNode b = to ? StateNode(LifecycleState(to - 1)) : std::nullopt;
            QCOMPARE(log.stats().edgeCount(a, b), edges[from][to]);
        }
    }
    for (int state = 0; state < LifecycleStateCount; ++state)
        QCOMPARE(log.stats().objectsIn(LifecycleState(state)), objects[std::size_t(state)]);
    QVERIFY(!log.lastTransition(u"ns/none"_s));
    QCOMPARE(log.historySize(u"ns/none"_s), 0);
    log.clear();
    QCOMPARE(log.objectCount(), 0);
    QCOMPARE(log.stats().totalTransitions(), 0);
}

void tst_TransitionLog::removeUnknownKey()
{
    TransitionLog log;
    QVERIFY(!log.remove(u"nope"_s, t(0)));
    QCOMPARE(log.stats().totalTransitions(), 0);
}

void tst_TransitionLog::trackerDerivesAndLogs()
{
    LifecycleTracker tracker;
    const LifecycleMapping mapping;
    const auto summaryOf = [&](const char *json) {
        auto summary = reconscope::tests::summaryFromBytes(QByteArrayView(json), mapping);
        if (!summary)
            qFatal("%s", qPrintable(summary.error().message));
        return *summary;
    };
    auto first = tracker.upsert(
        summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":1}})"), mapping, t(0));
    QVERIFY(first);
    QCOMPARE(first->to, StateNode(S::Pending));
    QVERIFY(first->onDesign);
    auto ready
        = tracker.upsert(summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":1},
                          "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized"}]}})"),
                         mapping,
                         t(3));
    QVERIFY(ready);
    QCOMPARE(ready->from, StateNode(S::Pending));
    QCOMPARE(ready->to, StateNode(S::Ready));
    QCOMPARE(ready->reason, u"Synchronized"_s);
    QVERIFY(!ready->onDesign);
    QCOMPARE(tracker.verdict(u"d/a"_s).kstatus, KStatus::Current);
    auto stale
        = tracker.upsert(summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":2},
                          "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized"}]}})"),
                         mapping,
                         t(4));
    QVERIFY(stale);
    QCOMPARE(stale->to, StateNode(S::Reconciling));
    QCOMPARE(stale->generation, std::optional<qint64>(2));
    QCOMPARE(stale->observedGeneration, std::optional<qint64>(1));
    QVERIFY(stale->onDesign);
    auto gone = tracker.remove(u"d/a"_s, t(5));
    QVERIFY(gone);
    QCOMPARE(gone->from, StateNode(S::Reconciling));
    QCOMPARE(tracker.stats().objectCount(), 0);
    QCOMPARE(tracker.log().stats().totalTransitions(), 4);
}

// The verdict of each object's latest upsert, kept by the log with the object (no second hash):
// updated also when the state stays, gone with the object; a verdict derived elsewhere
// (upsertDerived) records exactly what upsert() records.
void tst_TransitionLog::trackerKeepsEachVerdictWithItsObject()
{
    const LifecycleMapping mapping;
    const auto summaryOf = [&](const char *json) {
        auto summary = reconscope::tests::summaryFromBytes(QByteArrayView(json), mapping);
        if (!summary)
            qFatal("%s", qPrintable(summary.error().message));
        return *summary;
    };
    const QList<ObjectSummary> steps{
        summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":1}})"),
        summaryOf(R"({"metadata":{"name":"b","namespace":"d","generation":1},
            "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"False","reason":"Rolling","message":"1/3"}]}})"),
        summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":1},
            "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"Synchronized"}]}})"),
        // The same state for another reason: no transition, the newer verdict.
        summaryOf(R"({"metadata":{"name":"a","namespace":"d","generation":1},
            "status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":"True","reason":"AllGood","message":"3/3"}]}})"),
    };
    LifecycleTracker upserted;
    LifecycleTracker derived;
    for (int i = 0; i < steps.size(); ++i) {
        const ObjectSummary &summary = steps[i];
        // The first two as the census, the others live.
        const Observed observed = i < 2 ? Observed::AtConnect : Observed::Live;
        LifecycleVerdict verdict;
        QDateTime since;
        const auto viaUpsert = upserted.upsert(summary, mapping, t(i), observed, &verdict, &since);
        QDateTime derivedSince;
        StateNode from = S::Unknown;
        Observed how = Observed::AcrossGap;
        const bool moved = derived.upsertDerived(
            summary, deriveLifecycle(summary, mapping), t(i), observed, &derivedSince, &from, &how);
        QCOMPARE(moved, viaUpsert.has_value());
        if (moved) {
            QCOMPARE(from, viaUpsert->from);
            QCOMPARE(how, viaUpsert->observed);
        }
        QCOMPARE(derived.log().lastTransition(summary.key),
                 upserted.log().lastTransition(summary.key));
        QCOMPARE(derivedSince, since);
        QCOMPARE(verdict, deriveLifecycle(summary, mapping));
        QCOMPARE(upserted.verdict(summary.key), verdict);
        QCOMPARE(derived.verdict(summary.key), verdict);
        QCOMPARE(derived.log().verdict(summary.key), verdict);
    }
    QCOMPARE(upserted.verdict(u"d/a"_s).reason, u"AllGood"_s);
    QCOMPARE(upserted.verdict(u"d/a"_s).message, u"3/3"_s);
    QCOMPARE(upserted.log().historySize(u"d/a"_s), 2);
    QCOMPARE(upserted.verdict(u"d/b"_s).state, S::Reconciling);
    QCOMPARE(upserted.verdict(u"d/b"_s).message, u"1/3"_s);
    for (const QString &key : { u"d/a"_s, u"d/b"_s })
        QCOMPARE(derived.log().history(key), upserted.log().history(key));
    QCOMPARE(derived.stats().totalTransitions(), upserted.stats().totalTransitions());
    QCOMPARE(upserted.stats().censusCount(), 2);

    // Gone with the object; unknown keys and a cleared tracker give the Unknown verdict.
    QVERIFY(upserted.remove(u"d/a"_s, t(9)));
    QCOMPARE(upserted.verdict(u"d/a"_s), LifecycleVerdict());
    QCOMPARE(upserted.verdict(u"d/zz"_s), LifecycleVerdict());
    QCOMPARE(upserted.verdict(u"d/b"_s).state, S::Reconciling);
    upserted.clear();
    QCOMPARE(upserted.verdict(u"d/b"_s), LifecycleVerdict());
    // A log fed states alone keeps no verdict.
    TransitionLog log;
    QVERIFY(log.observe(u"d/c"_s, S::Ready, u"Fine"_s, 1, 1, t(0)));
    QCOMPARE(log.verdict(u"d/c"_s), LifecycleVerdict());
}

void tst_TransitionLog::trackerThroughput()
{
    // 5k objects through bytes -> summary -> rules -> log, twice (Pending, then Ready), then
    // deleted: the per-object cost stays flat and the statistics add up.
    constexpr int Objects = 5000;
    const LifecycleMapping mapping = LifecycleMapping::forCustomApp();
    LifecycleTracker tracker;
    QList<QByteArray> pending, ready;
    for (int i = 0; i < Objects; ++i) {
        const QByteArray name = "app-" + QByteArray::number(i);
        pending
            << R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
                + name + R"(","namespace":"demo","generation":1,"uid":"u","resourceVersion":"1",
                        "labels":{"app":"x"}},"spec":{"image":"nginx:1.27","replicas":3}})";
        ready
            << R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
                + name + R"(","namespace":"demo","generation":1,"uid":"u","resourceVersion":"2",
                        "labels":{"app":"x"}},"spec":{"image":"nginx:1.27","replicas":3},
                        "status":{"observedGeneration":1,"replicas":3,"readyReplicas":3,"conditions":[
                        {"type":"Ready","status":"True","reason":"Synchronized","message":"3/3 ready",
                         "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1},
                        {"type":"Degraded","status":"False","reason":"AsExpected","message":"",
                         "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}]}})";
    }
    QElapsedTimer timer;
    timer.start();
    for (const QList<QByteArray> *round : { &pending, &ready }) {
        for (const QByteArray &bytes : *round) {
            auto summary = reconscope::tests::summaryFromBytes(bytes, mapping);
            QVERIFY(summary.ok());
            QVERIFY(tracker.upsert(*summary, mapping, t(round == &pending ? 0 : 10)));
        }
    }
    const qint64 upsertNs = timer.nsecsElapsed();
    QCOMPARE(tracker.stats().objectsIn(S::Ready), Objects);
    QCOMPARE(tracker.stats().edgeCount(S::Pending, S::Ready), Objects);
    QCOMPARE(tracker.stats().msecsIn(S::Pending, t(10)), qint64(Objects) * 10'000);
    timer.restart();
    for (int i = 0; i < Objects; ++i)
        QVERIFY(tracker.remove(u"demo/app-%1"_s.arg(i), t(20)));
    const qint64 removeNs = timer.nsecsElapsed();
    QCOMPARE(tracker.stats().objectCount(), 0);
    QCOMPARE(tracker.stats().closedMsecsIn(S::Ready), qint64(Objects) * 10'000);
    qInfo("%d objects: %.2f us per upsert (bytes -> summary -> rules -> log), %.2f us per remove",
          Objects,
          upsertNs / 1e3 / (2 * Objects),
          removeNs / 1e3 / Objects);
}

QTEST_APPLESS_MAIN(tst_TransitionLog)
#include "tst_transitionlog.moc"
