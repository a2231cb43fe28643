// The Problems list (issue 23): across resources, Degraded first, then deletions waiting longer
// than the Terminating threshold, then statuses stale longer than the stale threshold, then objects
// without a status longer than the Pending threshold; oldest first within a kind; each with a
// one-line cause. Time is injected and the thresholds shortened: nothing here waits.
#include "models/problems.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using Json = nlohmann::json;

namespace {

const QDateTime T0 = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);
const LifecycleMapping Mapping = LifecycleMapping::defaults();

QDateTime t(int seconds)
{
    return T0.addSecs(seconds);
}

std::string rfc3339(const QDateTime &time)
{
    return time.toString(Qt::ISODate).toStdString();
}

Json condition(const char *type, const char *status, const QDateTime &since)
{
    return { { "type", type },
             { "status", status },
             { "reason", std::string(type) + status },
             { "message", "m" },
             { "lastTransitionTime", rfc3339(since) } };
}

// An object created at `created`, generation `generation`; `status` as given (null: none).
Json object(const char *name, const QDateTime &created, const Json &status, int generation = 1)
{
    Json json{ { "metadata",
                 { { "name", name },
                   { "namespace", "ns" },
                   { "generation", generation },
                   { "creationTimestamp", rfc3339(created) } } } };
    if (!status.is_null())
        json["status"] = status;
    return json;
}

Json readyStatus(int observed,
                 const char *ready = "True",
                 const char *degraded = "False",
                 const QDateTime &since = T0)
{
    Json conditions = Json::array();
    conditions.push_back(condition("Ready", ready, since));
    conditions.push_back(condition("Degraded", degraded, since));
    return { { "observedGeneration", observed }, { "conditions", conditions } };
}

Json deleting(Json json, const QDateTime &at)
{
    json["metadata"]["deletionTimestamp"] = rfc3339(at);
    json["metadata"]["finalizers"] = Json::array({ "example.com/hold" });
    return json;
}

struct Seeded
{
    QString resource;
    Json json;
    QDateTime seen; // when the tracker observes it
};

ProblemThresholds shortened()
{
    ProblemThresholds thresholds;
    thresholds.terminating = std::chrono::seconds(50);
    thresholds.stale = std::chrono::seconds(10);
    thresholds.pending = std::chrono::seconds(20);
    return thresholds;
}

} // namespace

class tst_Problems final : public QObject
{
    Q_OBJECT

private slots:
    void init() { m_tracker.clear(); }
    void seededSetInSeverityThenAgeOrder();
    void thresholdsDecide();
    void staleSinceTheFirstObservationOfTheGeneration();
    void healthyObjectsAreNotKept();
    void removedObjectsAndResourcesLeave();
    void ages_data();
    void ages();

private:
    void feed(const QList<Seeded> &objects);
    QStringList listed(const QDateTime &now, const ProblemThresholds &thresholds) const;
    ProblemTracker m_tracker;
};

void tst_Problems::feed(const QList<Seeded> &objects)
{
    for (const Seeded &seeded : objects) {
        const auto summary = ObjectSummary::fromJson(seeded.json, Mapping);
        QVERIFY(summary.ok());
        m_tracker.observe(seeded.resource,
                          summary.value(),
                          deriveLifecycle(summary.value(), Mapping),
                          seeded.seen);
    }
}

QStringList tst_Problems::listed(const QDateTime &now, const ProblemThresholds &thresholds) const
{
    QStringList lines;
    for (const Problem &problem : m_tracker.problems(now, thresholds))
        lines << u"%1 %2 %3"_s.arg(problemKindName(problem.kind), problem.resource, problem.key);
    return lines;
}

void tst_Problems::seededSetInSeverityThenAgeOrder()
{
    // Two resources; in each kind one old and one newer object (the newer one first in the feed,
    // and in the other resource, so that neither feed order nor resource name gives the order).
    feed({
        { u"b.example"_s, object("pending-new", t(30), Json()), t(31) },
        { u"a.example"_s, object("pending-old", t(0), Json()), t(31) },
        { u"b.example"_s, object("stale-new", t(0), readyStatus(1), 2), t(20) },
        { u"a.example"_s, object("stale-old", t(0), readyStatus(1), 2), t(10) },
        { u"b.example"_s, deleting(object("gone-new", t(0), readyStatus(1)), t(10)), t(31) },
        { u"a.example"_s, deleting(object("gone-old", t(0), readyStatus(1)), t(5)), t(31) },
        { u"b.example"_s,
          object("degraded-new", t(0), readyStatus(1, "False", "True", t(8))),
          t(31) },
        { u"a.example"_s,
          object("degraded-old", t(0), readyStatus(1, "False", "True", t(3))),
          t(31) },
        { u"a.example"_s, object("ready", t(0), readyStatus(1)), t(31) },
        { u"a.example"_s, object("reconciling", t(0), readyStatus(1, "False")), t(31) },
    });
    const QStringList expected{
        u"Degraded a.example ns/degraded-old"_s,  u"Degraded b.example ns/degraded-new"_s,
        u"Terminating a.example ns/gone-old"_s,   u"Terminating b.example ns/gone-new"_s,
        u"Stale status a.example ns/stale-old"_s, u"Stale status b.example ns/stale-new"_s,
        u"Pending a.example ns/pending-old"_s,    u"Pending b.example ns/pending-new"_s,
    };
    QCOMPARE(listed(t(100), shortened()), expected);

    const QList<Problem> problems = m_tracker.problems(t(100), shortened());
    QCOMPARE(problems[0].since, t(3)); // the Degraded condition's lastTransitionTime
    QCOMPARE(problems[0].cause, u"Degraded for 1m37s: DegradedTrue: m"_s);
    QCOMPARE(problems[2].since, t(5));
    QCOMPARE(problems[2].cause,
             u"deletion requested 1m35s ago waits for finalizers: example.com/hold"_s);
    QCOMPARE(problems[4].since, t(10));
    QCOMPARE(problems[4].cause, u"status stale for 1m30s: generation 2, observed 1"_s);
    QCOMPARE(problems[6].since, t(0));
    QCOMPARE(problems[6].cause,
             u"no status written 1m40s after creation: no controller has acted"_s);
}

void tst_Problems::thresholdsDecide()
{
    feed({
        { u"r"_s, object("pending", t(0), Json()), t(0) },
        { u"r"_s, object("stale", t(0), readyStatus(1), 2), t(0) },
        { u"r"_s, deleting(object("gone", t(0), readyStatus(1)), t(0)), t(0) },
        { u"r"_s, object("degraded", t(0), readyStatus(1, "False", "True", t(0))), t(0) },
    });
    // Degraded has no threshold; the others appear as each threshold passes.
    QCOMPARE(listed(t(10), shortened()), QStringList{ u"Degraded r ns/degraded"_s });
    QCOMPARE(listed(t(11), shortened()),
             QStringList({ u"Degraded r ns/degraded"_s, u"Stale status r ns/stale"_s }));
    QCOMPARE(listed(t(21), shortened()).size(), 3);
    QCOMPARE(listed(t(51), shortened()).size(), 4);
    // The defaults: 5 min, 60 s, 2 min.
    QCOMPARE(listed(t(61), {}).size(), 2);
    QCOMPARE(listed(t(121), {}).size(), 3);
    QCOMPARE(listed(t(300), {}).size(), 3);
    QCOMPARE(listed(t(301), {}).size(), 4);
}

void tst_Problems::staleSinceTheFirstObservationOfTheGeneration()
{
    feed({ { u"r"_s, object("o", t(0), readyStatus(1), 2), t(0) } });
    // Seen again stale at the same generation: still stale since t(0).
    feed({ { u"r"_s, object("o", t(0), readyStatus(1, "False"), 2), t(30) } });
    QCOMPARE(m_tracker.problems(t(31), shortened()).value(0).since, t(0));
    // A new generation: stale since it was seen.
    feed({ { u"r"_s, object("o", t(0), readyStatus(1), 3), t(40) } });
    QCOMPARE(listed(t(45), shortened()), QStringList());
    QCOMPARE(m_tracker.problems(t(51), shortened()).value(0).since, t(40));
    // Caught up: gone.
    feed({ { u"r"_s, object("o", t(0), readyStatus(3), 3), t(60) } });
    QCOMPARE(m_tracker.candidateCount(), 0);
}

void tst_Problems::healthyObjectsAreNotKept()
{
    feed({ { u"r"_s, object("ready", t(0), readyStatus(1)), t(0) },
           { u"r"_s, object("reconciling", t(0), readyStatus(1, "False")), t(0) } });
    QCOMPARE(m_tracker.candidateCount(), 0);
    feed({ { u"r"_s, object("ready", t(0), readyStatus(1, "False", "True")), t(1) } });
    QCOMPARE(m_tracker.candidateCount(), 1);
    feed({ { u"r"_s, object("ready", t(0), readyStatus(1)), t(2) } });
    QCOMPARE(m_tracker.candidateCount(), 0);
}

void tst_Problems::removedObjectsAndResourcesLeave()
{
    feed({ { u"a"_s, object("x", t(0), Json()), t(0) },
           { u"a"_s, object("y", t(0), Json()), t(0) },
           { u"b"_s, object("x", t(0), Json()), t(0) } });
    QCOMPARE(m_tracker.candidateCount(), 3);
    m_tracker.remove(u"a"_s, u"ns/x"_s);
    QCOMPARE(listed(t(100), shortened()),
             QStringList({ u"Pending a ns/y"_s, u"Pending b ns/x"_s }));
    m_tracker.removeResource(u"a"_s);
    QCOMPARE(listed(t(100), shortened()), QStringList{ u"Pending b ns/x"_s });
}

void tst_Problems::ages_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("negative") << qint64(-5) << u"0s"_s;
    QTest::newRow("seconds") << qint64(59) << u"59s"_s;
    QTest::newRow("minutes") << qint64(192) << u"3m12s"_s;
    QTest::newRow("hours") << qint64(7500) << u"2h5m"_s;
    QTest::newRow("days") << qint64(3 * 86400 + 4 * 3600) << u"3d4h"_s;
}

void tst_Problems::ages()
{
    QFETCH(qint64, seconds);
    QFETCH(QString, text);
    QCOMPARE(problemAge(seconds), text);
}

QTEST_GUILESS_MAIN(tst_Problems)
#include "tst_problems.moc"
