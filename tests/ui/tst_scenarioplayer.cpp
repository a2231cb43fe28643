// The demo scenario player and its panel on the embedded cluster (reached over mTLS through the
// kubeconfig it wrote, as `reconscope` does): play, pause, speed, step now, a step the server
// refuses, and the default scenario with the embedded reconciler walking CustomApps through every
// state, both kinds of Degraded, InvalidSpec, drift and deletion through the finalizer.
#include "controller/console/consolesession.h"
#include "controller/console/scenarioplayer.h"
#include "models/resourcetablemodel.h"
#include "models/scenariotimelinemodel.h"
#include "ui/scenariopanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::models;
using namespace reconscope::ui;
using nlohmann::json;
using reconscope::controller::console::ScenarioPlayer;

namespace {

constexpr int Timeout = 45000;
using Step = ScenarioTimelineModel::StepState;

Scenario mechanicsScenario()
{
    const auto scenario = parseScenario(R"({"name":"mechanics","steps":[
      {"title":"namespace","verb":"create","apiVersion":"v1","resource":"namespaces",
       "object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"mech"}},
       "ignoreAlreadyExists":true},
      {"title":"app","verb":"create","apiVersion":"infrastructure.internal.net/v1",
       "resource":"customapps","object":{"apiVersion":"infrastructure.internal.net/v1",
       "kind":"CustomApp","metadata":{"name":"a","namespace":"mech"},"spec":{"image":"nginx"}}},
      {"title":"same app again","verb":"create","apiVersion":"infrastructure.internal.net/v1",
       "resource":"customapps","object":{"apiVersion":"infrastructure.internal.net/v1",
       "kind":"CustomApp","metadata":{"name":"a","namespace":"mech"},"spec":{"image":"nginx"}}},
      {"title":"a long pause","verb":"wait","after":600000},
      {"title":"scale","verb":"patch","apiVersion":"infrastructure.internal.net/v1",
       "resource":"customapps","namespace":"mech","name":"a","patch":{"spec":{"replicas":4}}}
    ]})");
    return scenario.ok() ? scenario.value() : Scenario();
}

Scenario parsed(const char *json)
{
    const auto scenario = parseScenario(json);
    if (!scenario.ok())
        qWarning("%s", qPrintable(scenario.error().message));
    return scenario.ok() ? scenario.value() : Scenario();
}

// A status as the CustomApp reconciler writes it once the app runs.
QByteArray readyStatus()
{
    const json condition{
        { "type", "Ready" },         { "status", "True" },
        { "reason", "Available" },   { "message", "1/1 replicas available" },
        { "observedGeneration", 1 }, { "lastTransitionTime", "2026-11-30T00:00:00Z" }
    };
    return QByteArray::fromStdString(
        json{ { "status", { { "observedGeneration", 1 }, { "conditions", { condition } } } } }
            .dump());
}

} // namespace

class tst_ScenarioPlayer final : public QObject
{
    Q_OBJECT

private slots:
    void playPauseSpeedAndStep();
    void waitForWaitsContinuesAndTimesOut();
    void defaultScenarioWalksEveryState();
};

void tst_ScenarioPlayer::playPauseSpeedAndStep()
{
    ConsoleSession session;
    session.setRunReconciler(false);
    session.setPlayScenario(false);
    ScenarioPlayer *player = session.scenarioPlayer();
    QVERIFY(!player->scenario().steps.isEmpty()); // the default one is loaded from the qrc
    QVERIFY(session.startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(session.isConnected(), Timeout);

    ScenarioPanel panel(player);
    QAbstractItemModelTester tester(panel.timelineModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel.timelineModel()->rowCount(), int(player->scenario().steps.size()));
    const Scenario scenario = mechanicsScenario();
    QCOMPARE(scenario.steps.size(), 5);
    player->setScenario(scenario);
    QCOMPARE(panel.timelineModel()->rowCount(), 5);
    QVERIFY(!player->isPlaying());
    QVERIFY(!panel.playAction()->isChecked());

    QSignalSpy finished(player, &ScenarioPlayer::stepFinished);
    panel.playAction()->trigger(); // the panel's Play
    QVERIFY(player->isPlaying());
    QVERIFY(panel.statusLabel()->text().contains(u"playing"_s));
    ScenarioTimelineModel *timeline = panel.timelineModel();
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(2), Step::Failed, Timeout);
    QCOMPARE(timeline->state(0), Step::Done);
    QCOMPARE(timeline->state(1), Step::Done);
    QVERIFY2(timeline->message(2).contains(u"AlreadyExists"_s), qPrintable(timeline->message(2)));
    QCOMPARE(finished.count(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(u"mech/a"_s) >= 0, Timeout);

    // Now waiting 600 s of scenario time for step 4.
    QCOMPARE(player->nextStep(), 3);
    QVERIFY(player->remainingMs() > 500000);
    player->setSpeed(100);
    QCOMPARE(player->speed(), ScenarioPlayer::MaxSpeed);
    QCOMPARE(panel.speedBox()->currentData().toDouble(), 8.0);
    panel.speedBox()->setCurrentIndex(0); // the panel's speed box drives the player
    QCOMPARE(player->speed(), ScenarioPlayer::MinSpeed);
    player->setSpeed(0.01);
    QCOMPARE(player->speed(), ScenarioPlayer::MinSpeed);

    panel.playAction()->trigger(); // Pause
    QVERIFY(!player->isPlaying());
    QVERIFY(panel.statusLabel()->text().contains(u"paused"_s));
    const qint64 frozen = player->remainingMs();
    QTest::qWait(150);
    QCOMPARE(player->remainingMs(), frozen); // scenario time stands still while paused
    QCOMPARE(finished.count(), 3);

    QSignalSpy rounds(player, &ScenarioPlayer::roundFinished);
    panel.stepAction()->trigger(); // "run next step now", also while paused
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(3), Step::Done, Timeout);
    QCOMPARE(timeline->currentStep(), 3);
    QVERIFY(!player->isPlaying());
    player->stepNow();
    QTRY_COMPARE_WITH_TIMEOUT(rounds.count(), 1, Timeout);
    QCOMPARE(timeline->state(4), Step::Done);
    QVERIFY(!player->isPlaying()); // not a looping scenario: it stops at the end
    QTRY_VERIFY_WITH_TIMEOUT(
        session.tableModel()->rowAt(session.tableModel()->rowOf(u"mech/a"_s))->generation == 2,
        Timeout);

    // Play again from the end: a new round from the first step.
    player->play();
    QTRY_COMPARE_WITH_TIMEOUT(player->nextStep(), 3, Timeout);
    QCOMPARE(timeline->state(4), Step::Pending);
    player->rewind();
    QCOMPARE(player->nextStep(), 0);
    QCOMPARE(timeline->state(0), Step::Pending);
    player->pause();
}

void tst_ScenarioPlayer::waitForWaitsContinuesAndTimesOut()
{
    ConsoleSession session;
    session.setRunReconciler(false); // this test plays the controller
    session.setPlayScenario(false);
    ScenarioPlayer *player = session.scenarioPlayer();
    QVERIFY(session.startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(session.isConnected(), Timeout);
    ScenarioPanel panel(player);
    ScenarioTimelineModel *timeline = panel.timelineModel();

    // 1. The player waits for an object that is not there yet, while it is Pending, and goes on
    //    the moment it is Ready.
    player->setScenario(parsed(R"({"name":"waits","steps":[
      {"title":"namespace","verb":"create","apiVersion":"v1","resource":"namespaces",
       "object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"waits"}},
       "ignoreAlreadyExists":true},
      {"waitFor":{"object":"waits/a","state":"Ready","timeoutSeconds":600}},
      {"title":"after the wait","verb":"wait"}]})"));
    QCOMPARE(timeline->rowCount(), 3);
    QCOMPARE(player->scenario().steps[1].title, u"Wait until waits/a is Ready"_s);
    player->play();
    QTRY_VERIFY_WITH_TIMEOUT(player->isWaiting(), Timeout);
    QCOMPARE(player->nextStep(), 1);
    QCOMPARE(timeline->state(1), Step::Running);
    QTRY_COMPARE_WITH_TIMEOUT(player->lastObserved(), u"not found"_s, Timeout);
    QVERIFY2(panel.statusLabel()->text().contains(u"waiting for waits/a to be Ready"_s),
             qPrintable(panel.statusLabel()->text()));

    bool created = false;
    session.client()->create(ConsoleSession::CustomApps,
                             u"waits"_s,
                             json{ { "apiVersion", "infrastructure.internal.net/v1" },
                                   { "kind", "CustomApp" },
                                   { "metadata", { { "name", "a" }, { "namespace", "waits" } } },
                                   { "spec", { { "image", "nginx:1.27" }, { "replicas", 1 } } } },
                             [&created](const auto &result) { created = result.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(created, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(player->lastObserved().startsWith(u"Pending (no status yet"_s),
                             Timeout);
    QVERIFY(player->isWaiting()); // Pending is not Ready: still waiting
    QCOMPARE(timeline->state(2), Step::Pending);

    bool patched = false;
    session.patchObject(u"waits"_s, u"a"_s, readyStatus(), u"status"_s, [&patched](auto result) {
        patched = result.ok();
    });
    QTRY_VERIFY_WITH_TIMEOUT(patched, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(1), Step::Done, Timeout);
    QVERIFY2(timeline->message(1).startsWith(u"waits/a is Ready after"_s),
             qPrintable(timeline->message(1)));
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(2), Step::Done, Timeout);
    // The timeline's "At" counts the time waited: the step after the wait moved by as much.
    QVERIFY(timeline->waited(1) > 0);
    QCOMPARE(timeline->startMs(2), player->scenario().startOf(2) + timeline->waited(1));
    QVERIFY(!player->isPlaying()); // the end of a scenario that does not loop
    QVERIFY(player->pauseReason().isEmpty());

    // 2. A state that never comes: the step fails after its timeout, saying what the object is,
    //    and the player pauses with that message; Play goes on with the next step.
    player->setScenario(parsed(R"({"name":"timeout","steps":[
      {"title":"a degrades","waitFor":{"object":"waits/a","state":"Degraded","timeoutSeconds":1}},
      {"title":"next","verb":"wait"}]})"));
    QSignalSpy playing(player, &ScenarioPlayer::playingChanged);
    player->play();
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(0), Step::Failed, Timeout);
    QCOMPARE(timeline->message(0),
             u"timed out after 1 s: waits/a is not Degraded (it is Ready (Available))"_s);
    QVERIFY(!player->isPlaying());
    QCOMPARE(playing.last().at(0).toBool(), false);
    QCOMPARE(player->pauseReason(),
             u"Step 1 timed out after 1 s: waits/a is not Degraded (it is Ready (Available))"_s);
    QVERIFY(player->waitedMs() == 0 || !player->isWaiting());
    QVERIFY(timeline->waited(0) >= 1000); // the whole timeout, in the timeline
    QCOMPARE(player->nextStep(), 1);
    QCOMPARE(timeline->state(1), Step::Pending); // nothing ran after it
    QVERIFY2(panel.statusLabel()->text().contains(u"Paused:"_s)
                 && panel.statusLabel()->text().contains(u"waits/a is not Degraded"_s),
             qPrintable(panel.statusLabel()->text()));
    panel.playAction()->trigger();
    QVERIFY(player->pauseReason().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(1), Step::Done, Timeout);
    QVERIFY(!panel.statusLabel()->text().contains(u"Paused:"_s));

    // 3. Paused, a wait's clock stands still (run by hand it looks once, then waits for Play);
    //    "Run next step now" skips it. Then a wait for the object to be gone.
    player->setScenario(parsed(R"({"name":"paused","steps":[
      {"waitFor":{"object":"waits/a","state":"Terminating","timeoutSeconds":1}},
      {"title":"delete","verb":"delete","apiVersion":"infrastructure.internal.net/v1",
       "resource":"customapps","namespace":"waits","name":"a"},
      {"waitFor":{"object":"waits/a","state":"Gone","timeoutSeconds":600}}]})"));
    QVERIFY(!player->isPlaying());
    player->stepNow();
    QVERIFY(player->isWaiting());
    QTRY_COMPARE_WITH_TIMEOUT(player->lastObserved(), u"Ready (Available)"_s, Timeout);
    QTest::qWait(1200); // longer than the timeout, paused: no time counted, no failure
    QCOMPARE(player->waitedMs(), 0);
    QCOMPARE(timeline->state(0), Step::Running);
    player->stepNow();
    QCOMPARE(timeline->state(0), Step::Done);
    QVERIFY2(
        timeline->message(0).startsWith(u"skipped after 0.0 s (waits/a was Ready (Available))"_s),
        qPrintable(timeline->message(0)));
    QCOMPARE(player->nextStep(), 1);
    player->play();
    QTRY_COMPARE_WITH_TIMEOUT(timeline->state(2), Step::Done, Timeout);
    QCOMPARE(timeline->state(1), Step::Done);
    QVERIFY2(timeline->message(2).startsWith(u"waits/a is gone after"_s),
             qPrintable(timeline->message(2)));
}

void tst_ScenarioPlayer::defaultScenarioWalksEveryState()
{
    ConsoleSession session;
    ScenarioPlayer *player = session.scenarioPlayer();
    player->setSpeed(4);
    QHash<QString, QList<Transition>> seen;
    connect(&session,
            &ConsoleSession::transitionsObserved,
            this,
            [&seen](const QList<Transition> &transitions) {
                for (const Transition &transition : transitions)
                    seen[transition.key].append(transition);
            });
    QSignalSpy rounds(player, &ScenarioPlayer::roundFinished);
    QSignalSpy failures(player, &ScenarioPlayer::stepFinished);
    QVERIFY(session.startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(player->isPlaying(), Timeout); // the console starts with it playing

    const auto visited = [&seen](const QString &key, LifecycleState state, const QString &reason) {
        for (const Transition &transition : seen.value(key)) {
            if (transition.to == state && (reason.isEmpty() || transition.reason == reason))
                return true;
        }
        return false;
    };
    const auto gone = [&seen](const QString &key) {
        const auto transitions = seen.value(key);
        return !transitions.isEmpty() && !transitions.last().to.has_value();
    };
    QTRY_VERIFY_WITH_TIMEOUT(rounds.count() >= 1, 60000);
    player->pause();
    for (const auto &arguments : failures)
        QVERIFY2(
            arguments.at(1).toBool(),
            qPrintable(
                u"step %1: %2"_s.arg(arguments.at(0).toInt()).arg(arguments.at(2).toString())));

    for (auto it = seen.cbegin(); it != seen.cend(); ++it) {
        QStringList path;
        for (const Transition &transition : it.value())
            path << (transition.to ? lifecycleStateName(*transition.to) : u"[*]"_s) + u'('
                    + transition.reason + u')';
        qInfo("%s: %s", qPrintable(it.key()), qPrintable(path.join(u" -> "_s)));
    }
    QVERIFY(visited(u"tour/shop"_s, LifecycleState::Pending, {}));
    QVERIFY(visited(u"tour/shop"_s, LifecycleState::Ready, {}));
    QVERIFY(visited(u"tour-quota/ingest"_s, LifecycleState::Degraded, u"QuotaExceeded"_s));
    QVERIFY(visited(u"tour/thumbnailer"_s, LifecycleState::Degraded, u"ImagePullBackOff"_s));
    QVERIFY(visited(u"tour/ledger"_s, LifecycleState::Degraded, u"InvalidSpec"_s));
    for (const QString &key : { u"tour-quota/ingest"_s, u"tour/thumbnailer"_s, u"tour/ledger"_s })
        QVERIFY2(visited(key, LifecycleState::Ready, {}), qPrintable(key)); // fixed afterwards
    QVERIFY(visited(u"tour/shop"_s, LifecycleState::Terminating, {}));
    for (const QString &key :
         { u"tour/shop"_s, u"tour-quota/ingest"_s, u"tour/thumbnailer"_s, u"tour/ledger"_s })
        QTRY_VERIFY2_WITH_TIMEOUT(gone(key), qPrintable(key), Timeout);

    // Drift: the reconciler noticed the hand-scaled Deployment and said so in an Event.
    bool drift = false;
    bool listed = false;
    session.client()->list(
        { QString(), u"v1"_s, u"events"_s, true },
        u"tour"_s,
        { .limit = reconscope::controller::kube::DefaultListPageSize },
        [&](reconscope::models::Result<reconscope::controller::kube::ListPage,
                                       reconscope::controller::apimachinery::ApiError> result) {
            listed = true;
            if (!result.ok())
                return;
            for (const QByteArray &item : result->items)
                drift |= item.contains("\"reason\":\"DriftDetected\"");
        });
    QTRY_VERIFY_WITH_TIMEOUT(listed, Timeout);
    QVERIFY(drift);
}

QTEST_MAIN(tst_ScenarioPlayer)
#include "tst_scenarioplayer.moc"
