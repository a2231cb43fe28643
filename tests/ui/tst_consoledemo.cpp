// The console on the embedded cluster, as `reconscope` starts it: the server on its own thread,
// reached through the kubeconfig it wrote (mTLS). A test "controller" drives CustomApps through the
// lifecycle with /status patches; the graph, the table, the transition log and the panels must
// agree, and screenshots of what a user sees are written (see docsPath).
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/consolestatusbar.h"
#include "ui/contextpicker.h"
#include "ui/detailpane.h"
#include "ui/mainwindow.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"
#include "ui/stategraphpanel.h"
#include "ui/stategraphscene.h"

#include "models/conditionsmodel.h"
#include "models/transitiontimelinemodel.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QGraphicsView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QtTest>

#include <array>
#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::models;
using namespace reconscope::ui;
using nlohmann::json;
using reconscope::controller::apimachinery::ApiError;
using reconscope::controller::kube::RestClient;

using S = LifecycleState;

namespace {

constexpr int Timeout = 30000;

json condition(const char *type, const char *status, const char *reason, const char *message)
{
    return { { "type", type },
             { "status", status },
             { "reason", reason },
             { "message", message },
             { "lastTransitionTime", "2026-11-29T22:00:00Z" } };
}

// The screenshots go to the build tree; RECONSCOPE_UPDATE_DOCS=1 refreshes the README's in docs/.
QString docsPath(const QString &name)
{
    const QString dir = qEnvironmentVariableIsSet("RECONSCOPE_UPDATE_DOCS")
        ? QStringLiteral(RECONSCOPE_SOURCE_DIR "/docs")
        : QStringLiteral(RECONSCOPE_BINARY_DIR "/docs");
    QDir().mkpath(dir);
    return dir + u'/' + name;
}

} // namespace

class tst_ConsoleDemo final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void connectsThroughKubeconfig();
    void panelsShowTheDemo();
    void scriptedTransitionAnimatesOnItsEdge();
    void graphAgreesWithTableAndLog();
    void detailPaneFollowsTheObject();
    void screenshots();

private:
    // A controller's write: a merge patch of /status, waited for.
    bool patchStatus(const QString &name, const json &status);
    bool createApp(const QString &name);
    void expectAgreement();

    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    QList<Transition> m_observed;
};

void tst_ConsoleDemo::initTestCase()
{
    m_session = std::make_unique<ConsoleSession>();
    m_session->setRunReconciler(false); // this test plays the controller
    m_session->setPlayScenario(false);
    m_window = std::make_unique<MainWindow>(m_session.get());
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_session->tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    connect(m_session.get(),
            &ConsoleSession::transitionsObserved,
            this,
            [this](const QList<Transition> &transitions) { m_observed += transitions; });
    QSignalSpy connected(m_session.get(), &ConsoleSession::connected);
    const auto started = m_session->startDemo();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    // connected may already have come while the window was being exposed.
    QTRY_VERIFY_WITH_TIMEOUT(!connected.isEmpty(), Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->informer() && m_session->informer()->hasSynced(), Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowCount() >= 5, Timeout);
}

void tst_ConsoleDemo::cleanupTestCase()
{
    m_tester.reset();
    m_window.reset();
    m_session.reset();
}

bool tst_ConsoleDemo::patchStatus(const QString &name, const json &status)
{
    bool done = false;
    bool ok = false;
    QString error;
    m_session->patchObject(u"demo"_s,
                           name,
                           QByteArray::fromStdString(json{ { "status", status } }.dump()),
                           u"status"_s,
                           [&](RestClient::JsonResult result) {
                               done = true;
                               ok = result.ok();
                               if (!ok)
                                   error = result.error().toString();
                           });
    if (!QTest::qWaitFor([&] { return done; }, Timeout))
        return false;
    if (!ok)
        qWarning("patch %s: %s", qPrintable(name), qPrintable(error));
    return ok;
}

bool tst_ConsoleDemo::createApp(const QString &name)
{
    const json app{ { "apiVersion", "infrastructure.internal.net/v1" },
                    { "kind", "CustomApp" },
                    { "metadata", { { "name", name.toStdString() }, { "namespace", "demo" } } },
                    { "spec",
                      { { "image", "nginx:1.27" }, { "replicas", 1 }, { "configJSON", "{}" } } } };
    bool done = false;
    bool ok = false;
    m_session->client()->create(
        ConsoleSession::CustomApps, u"demo"_s, app, [&](RestClient::JsonResult result) {
            done = true;
            ok = result.ok();
        });
    return QTest::qWaitFor([&] { return done; }, Timeout) && ok;
}

void tst_ConsoleDemo::expectAgreement()
{
    StateGraphScene *scene = m_window->graphPanel()->scene();
    const auto &stats = m_session->tracker().stats();
    // Per state: the graph's node counter is the table's count.
    for (int i = 0; i < LifecycleStateCount; ++i) {
        const auto state = S(i);
        QCOMPARE(scene->nodeCounter(state), m_session->tableModel()->countIn(state));
    }
    // Per edge: the graph's counter is the number of live transitions the session announced
    // (moves found across a watch gap are counted apart); per node, its census the number of
    // objects announced as found there at connect.
    QHash<QPair<int, int>, qint64> fromLog;
    QHash<QPair<int, int>, qint64> gapsFromLog;
    std::array<int, LifecycleStateCount> census{};
    for (const Transition &t : std::as_const(m_observed)) {
        if (t.observed == Observed::AtConnect)
            ++census[std::size_t(*t.to)];
        else
            ++(t.observed == Observed::AcrossGap
                   ? gapsFromLog
                   : fromLog)[{ t.from ? int(*t.from) : -1, t.to ? int(*t.to) : -1 }];
    }
    for (int i = 0; i < LifecycleStateCount; ++i) {
        QCOMPARE(stats.censusIn(S(i)), census[std::size_t(i)]);
        QCOMPARE(scene->nodeCensus(S(i)), census[std::size_t(i)]);
    }
    QList<StateNode> nodes{ std::nullopt };
    for (int i = 0; i < LifecycleStateCount; ++i)
        nodes << S(i);
    for (const StateNode &from : nodes) {
        for (const StateNode &to : nodes) {
            if (!from && !to)
                continue;
            const qint64 expected = fromLog.value({ from ? int(*from) : -1, to ? int(*to) : -1 });
            QCOMPARE(stats.edgeCount(from, to), expected);
            QCOMPARE(scene->edgeCounter({ from, to }), expected);
            const qint64 gaps = gapsFromLog.value({ from ? int(*from) : -1, to ? int(*to) : -1 });
            QCOMPARE(stats.gapEdgeCount(from, to), gaps);
            QCOMPARE(scene->edgeGapCounter({ from, to }), gaps);
            if (expected > 0)
                QVERIFY(scene->hasEdge({ from, to }));
        }
    }
}

void tst_ConsoleDemo::connectsThroughKubeconfig()
{
    QVERIFY(m_session->isDemo());
    QVERIFY(QFile::exists(m_session->kubeconfigPath()));
    QVERIFY(m_session->serverUrl().startsWith(u"https://127.0.0.1:"_s));
    // mTLS: the client presents the certificate the kubeconfig carries.
    QVERIFY(!m_session->client()->config().clientCertificate.isNull());
    QVERIFY(!m_session->client()->config().caCertificates.isEmpty());
    QVERIFY(m_session->writesEnabled());
}

void tst_ConsoleDemo::panelsShowTheDemo()
{
    // Seeded objects are all known to the table, with names.
    auto *model = m_session->tableModel();
    for (const QString &name : { u"web"_s, u"api"_s, u"worker"_s, u"billing"_s, u"reports"_s })
        QVERIFY2(model->rowOf(u"demo/"_s + name) >= 0, qPrintable(name));
    // The graph is fitted to its view at a legible scale (1400x900 window).
    const qreal scale = m_window->graphPanel()->view()->transform().m11();
    QVERIFY2(scale > 0.6 && scale < 2.0, qPrintable(QString::number(scale)));
    // Status bar: watching, writable demo.
    auto *status = m_window->consoleStatusBar();
    QTRY_VERIFY(status->connectionText().contains(u"watching"_s));
    QVERIFY(status->badgeText().startsWith(u"DEMO"_s));
    QVERIFY(status->contextText().contains(u"embedded cluster"_s));
    // Context picker: the kubeconfig's context, writes switch on and locked in demo mode.
    auto *picker = m_window->contextPicker();
    QCOMPARE(picker->contextBox()->count(), m_session->kubeconfig().contextNames().size());
    QCOMPARE(picker->contextBox()->currentText(), m_session->contextName());
    // Resource browser: CustomApp under its group, with counts per state.
    auto *browser = m_window->resourceBrowser();
    QTRY_VERIFY_WITH_TIMEOUT(browser->itemFor(u"customapps.infrastructure.internal.net"_s),
                             Timeout);
    const QString customApps = u"customapps.infrastructure.internal.net"_s;
    QCOMPARE(browser->itemFor(customApps)->parent()->text(0), u"infrastructure.internal.net"_s);
    QTRY_COMPARE(browser->itemFor(customApps)->text(1),
                 u"%1 objects"_s.arg(m_session->tableModel()->rowCount()));
    // One row per state with its count: all Pending so far.
    QTreeWidgetItem *item = browser->itemFor(customApps);
    QCOMPARE(item->childCount(), 1);
    QCOMPARE(item->child(0)->text(0), u"● Pending"_s);
    QCOMPARE(item->child(0)->text(1),
             QString::number(m_session->tableModel()->countIn(S::Pending)));
    QVERIFY(browser->countsText().contains(u"Pending"_s));
}

void tst_ConsoleDemo::scriptedTransitionAnimatesOnItsEdge()
{
    StateGraphScene *scene = m_window->graphPanel()->scene();
    QVERIFY(createApp(u"walker"_s));
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"demo/walker"_s) >= 0, Timeout);
    QCOMPARE(m_session->tracker().log().state(u"demo/walker"_s), std::optional<S>(S::Pending));

    const GraphEdge toReconciling{ S::Pending, S::Reconciling };
    QVERIFY(patchStatus(u"walker"_s,
                        { { "observedGeneration", 1 },
                          { "conditions",
                            { condition("Reconciling", "True", "Progressing", "rolling out"),
                              condition("Ready", "False", "Progressing", "0/1 replicas") } } }));
    QTRY_VERIFY_WITH_TIMEOUT(scene->animatingEdges().contains(toReconciling), Timeout);
    QCOMPARE(m_session->tracker().log().state(u"demo/walker"_s), std::optional<S>(S::Reconciling));
    // The dot is on that edge: between Pending's and Reconciling's nodes.
    const QPointF dot = *scene->animationPosition(toReconciling);
    QVERIFY2(dot.x() > 120 && dot.x() < 320 && std::abs(dot.y()) < 30,
             qPrintable(u"%1,%2"_s.arg(dot.x()).arg(dot.y())));
    QVERIFY(!scene->animatingEdges().contains(GraphEdge{ S::Reconciling, S::Ready }));
    expectAgreement();
}

void tst_ConsoleDemo::graphAgreesWithTableAndLog()
{
    // A little demo of our own: a controller walks objects through the lifecycle for a while.
    const QStringList names{ u"a1"_s, u"a2"_s, u"a3"_s, u"a4"_s, u"a5"_s, u"a6"_s };
    for (const QString &name : names)
        QVERIFY(createApp(name));
    const json reconciling{ { "observedGeneration", 1 },
                            { "conditions",
                              { condition("Reconciling", "True", "Progressing", "rolling out"),
                                condition("Ready", "False", "Progressing", "0/1 replicas") } } };
    const json ready{ { "observedGeneration", 1 },
                      { "conditions",
                        { condition("Reconciling", "False", "Done", "rolled out"),
                          condition("Ready", "True", "Available", "1/1 replicas") } } };
    const json degraded{ { "observedGeneration", 1 },
                         { "conditions",
                           { condition("Degraded", "True", "ImagePullBackOff", "image not found"),
                             condition("Ready", "False", "ImagePullBackOff", "0/1 replicas") } } };
    // Each phase is waited for: the informer coalesces changes of one key within a tick, and
    // this test wants every step seen.
    const auto waitFor = [this](const QString &name, S state) {
        return QTest::qWaitFor(
            [&] { return m_session->tracker().log().state(u"demo/"_s + name) == state; }, Timeout);
    };
    for (const QString &name : names)
        QVERIFY(waitFor(name, S::Pending));
    for (const QString &name : names)
        QVERIFY(patchStatus(name, reconciling));
    for (const QString &name : names)
        QVERIFY(waitFor(name, S::Reconciling));
    for (int i = 0; i < names.size(); ++i)
        QVERIFY(patchStatus(names[i], i % 3 == 0 ? degraded : ready));
    for (int i = 0; i < names.size(); ++i)
        QVERIFY(waitFor(names[i], i % 3 == 0 ? S::Degraded : S::Ready));
    // Off-design: Ready straight to Degraded, and Pending straight to Ready.
    QVERIFY(patchStatus(names[1], degraded));
    QVERIFY(createApp(u"a7"_s));
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"demo/a7"_s) >= 0, Timeout);
    QVERIFY(waitFor(u"a7"_s, S::Pending));
    QVERIFY(patchStatus(u"a7"_s, ready));
    // A deletion: Ready -> [*] (off-design without a finalizer's Terminating).
    bool deleted = false;
    m_session->client()->remove(ConsoleSession::CustomApps,
                                u"demo"_s,
                                names[2],
                                { .propagationPolicy = u"Background"_s },
                                [&](RestClient::JsonResult result) { deleted = result.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(deleted, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowOf(u"demo/a3"_s) < 0, Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_session->tracker().log().state(u"demo/a7"_s), std::optional<S>(S::Ready), Timeout);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_session->tracker().log().state(u"demo/a2"_s), std::optional<S>(S::Degraded), Timeout);

    expectAgreement();
    StateGraphScene *scene = m_window->graphPanel()->scene();
    QVERIFY(scene->hasEdge({ S::Ready, S::Degraded }));
    QVERIFY(!scene->isEdgeOnDesign({ S::Ready, S::Degraded }));
    QVERIFY(scene->hasEdge({ S::Pending, S::Ready }));
    QVERIFY(scene->hasEdge({ S::Ready, std::nullopt }));
    QCOMPARE(scene->edgeCounter({ S::Reconciling, S::Ready }), 4);
    QCOMPARE(scene->nodeCounter(S::Degraded), 3);
    QCOMPARE(scene->nodeCounter(S::Degraded), m_session->tableModel()->countIn(S::Degraded));
}

void tst_ConsoleDemo::detailPaneFollowsTheObject()
{
    DetailPane *detail = m_window->detailPane();
    QVERIFY(m_window->tablePanel()->selectKey(u"demo/a2"_s));
    QCOMPARE(detail->objectKey(), u"demo/a2"_s);
    QCOMPARE(m_window->graphPanel()->selectedObject(), u"demo/a2"_s);
    QCOMPARE(m_window->graphPanel()->scene()->highlightedNode(), std::optional<S>(S::Degraded));
    QVERIFY(detail->header()->text().contains(u"a2"_s));
    QVERIFY(detail->header()->text().contains(u"Degraded"_s));
    QVERIFY(detail->specView()->toPlainText().contains(u"\"image\": \"nginx:1.27\""_s));
    QVERIFY(detail->statusView()->toPlainText().contains(u"ImagePullBackOff"_s));
    QVERIFY(detail->rawView()->toPlainText().contains(u"\"resourceVersion\""_s));
    QCOMPARE(detail->conditionsModel()->rowCount(), 2);
    // [*]->Pending, Pending->Reconciling, Reconciling->Ready, Ready->Degraded.
    QCOMPARE(detail->timelineModel()->rowCount(), 4);
    QCOMPARE(detail->timelineModel()->index(3, TransitionTimelineModel::ToColumn).data().toString(),
             u"Degraded"_s);
    QVERIFY(
        !detail->timelineModel()->index(3, 0).data(TransitionTimelineModel::OnDesignRole).toBool());
    // The object moves on: the pane follows.
    const json recovering{ { "observedGeneration", 1 },
                           { "conditions",
                             { condition("Reconciling", "True", "Retrying", "pulling again"),
                               condition("Ready", "False", "Progressing", "0/1 replicas") } } };
    QVERIFY(patchStatus(u"a2"_s, recovering));
    QTRY_COMPARE_WITH_TIMEOUT(detail->timelineModel()->rowCount(), 5, Timeout);
    QTRY_VERIFY(detail->header()->text().contains(u"Reconciling"_s));
    QCOMPARE(detail->conditionsModel()->index(0, ConditionsModel::TypeColumn).data().toString(),
             u"Ready"_s);
    QTRY_COMPARE(m_window->graphPanel()->scene()->highlightedNode(),
                 std::optional<S>(S::Reconciling));
    // Events are listed (possibly none) without an error row.
    QSignalSpy events(detail, &DetailPane::eventsLoaded);
    detail->refreshEvents();
    QVERIFY(events.wait(Timeout));
}

void tst_ConsoleDemo::screenshots()
{
    // The seeded apps as a reconciler would leave them: web Ready, api rolling out, worker's image
    // unpullable, billing's config invalid.
    const json webReady{ { "observedGeneration", 1 },
                         { "replicas", 3 },
                         { "readyReplicas", 3 },
                         { "conditions",
                           { condition("Ready", "True", "Available", "3/3 replicas available"),
                             condition("Reconciling", "False", "Done", "rolled out") } } };
    const json apiRolling{
        { "observedGeneration", 1 },
        { "conditions",
          { condition("Reconciling", "True", "Progressing", "1/2 replicas updated"),
            condition("Ready", "False", "Progressing", "1/2 replicas available") } }
    };
    const json workerDegraded{
        { "observedGeneration", 1 },
        { "conditions",
          { condition("Degraded",
                      "True",
                      "ImagePullBackOff",
                      "Back-off pulling image ghcr.io/example/worker:missing"),
            condition("Ready", "False", "ImagePullBackOff", "0/1 replicas available") } }
    };
    const auto waitFor = [this](const QString &name, S state) {
        return QTest::qWaitFor(
            [&] { return m_session->tracker().log().state(u"demo/"_s + name) == state; }, Timeout);
    };
    QVERIFY(patchStatus(u"web"_s, apiRolling));
    QVERIFY(patchStatus(u"worker"_s, apiRolling));
    QVERIFY(patchStatus(u"api"_s, apiRolling));
    QVERIFY(waitFor(u"web"_s, S::Reconciling));
    QVERIFY(waitFor(u"worker"_s, S::Reconciling));
    QVERIFY(patchStatus(u"web"_s, webReady));
    QVERIFY(patchStatus(u"worker"_s, workerDegraded));
    QVERIFY(waitFor(u"web"_s, S::Ready));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_session->tracker().log().state(u"demo/worker"_s), std::optional<S>(S::Degraded), Timeout);
    QVERIFY(m_window->tablePanel()->selectKey(u"demo/worker"_s));
    m_window->resize(1400, 900);
    QTRY_VERIFY(m_window->graphPanel()->scene()->animatingEdges().isEmpty());
    QVERIFY(m_window->grab().save(docsPath(u"console-demo.png"_s)));
    QVERIFY(m_window->detailPane()->grab().save(docsPath(u"detail-pane.png"_s)));

    // Mid-transition: the dot halfway along Reconciling -> Ready.
    StateGraphScene *scene = m_window->graphPanel()->scene();
    QVERIFY(patchStatus(u"api"_s, webReady));
    const GraphEdge edge{ S::Reconciling, S::Ready };
    QTRY_VERIFY_WITH_TIMEOUT(
        scene->animationPosition(edge) && scene->animationPosition(edge)->y() > 60, Timeout);
    QVERIFY(m_window->graphPanel()->grab().save(docsPath(u"state-graph-transition.png"_s)));
    QVERIFY(m_window->graphPanel()->exportTo(docsPath(u"state-graph.svg"_s)));
}

QTEST_MAIN(tst_ConsoleDemo)
#include "tst_consoledemo.moc"
