// "Why is it not Ready?" in the console's details (issue 23): the selected object's causes ranked
// by the rules of `reconscope explain`, each with its evidence, read from a scripted server: a
// CustomApp whose Stalled condition says InvalidSpec has the Stalled cause first (ahead of its
// failing Ready condition); one whose status is stale has the stale status first; the embedded
// reconciler's verdict, when there is one, is said in one line. The picture is saved for the docs.
#include "../kube/testserver.h"
#include "controller/console/consoleexplainer.h"
#include "controller/console/consolesession.h"
#include "controller/reconcile/controllerloop.h"
#include "ui/detailpane.h"
#include "ui/explainpanel.h"
#include "uitestsupport.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope;
using controller::console::ConsoleSession;

namespace {

constexpr int Timeout = 20000;
const QDateTime Now = QDateTime::fromString(u"2026-11-30T01:00:00Z"_s, Qt::ISODate);

QByteArray app(const QByteArray &name, int generation, const QByteArray &conditions)
{
    return R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp","metadata":{"name":")"
        + name + R"(","namespace":"shop","uid":"u-)" + name
        + R"(","resourceVersion":"5","generation":)" + QByteArray::number(generation)
        + R"(,"creationTimestamp":"2026-11-30T00:00:00Z"},"spec":{"image":"nginx:1.27"},)"
          R"("status":{"observedGeneration":1,"conditions":[)"
        + conditions + "]}}";
}

QByteArray condition(const char *type, const char *status, const char *reason)
{
    return R"({"type":")" + QByteArray(type) + R"(","status":")" + status + R"(","reason":")"
        + reason + R"(","message":")" + reason
        + R"( happened","lastTransitionTime":"2026-11-30T00:30:00Z"})";
}

} // namespace

class tst_ExplainPanel final : public QObject
{
    Q_OBJECT

private slots:
    void ranksTheSelectedObjectsCauses();
    void reconcilerVerdictInOneLine();
};

void tst_ExplainPanel::ranksTheSelectedObjectsCauses()
{
    const QByteArray ledger = app("ledger",
                                  1,
                                  condition("Ready", "False", "InvalidSpec") + ','
                                      + condition("Stalled", "True", "InvalidSpec"));
    const QByteArray shop = app("shop", 2, condition("Ready", "True", "Available"));
    TestServer server;
    server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (request.path.endsWith(u"/customapps/ledger"_s)) {
            TestServer::respond(socket, 200, "application/json", ledger);
        } else if (request.path.endsWith(u"/customapps/shop"_s)) {
            TestServer::respond(socket, 200, "application/json", shop);
        } else if (request.path.endsWith(u"/customapps"_s)) {
            if (request.query.hasQueryItem(u"watch"_s))
                TestServer::startStream(socket);
            else
                TestServer::respond(socket,
                                    200,
                                    "application/json",
                                    reconscope::tests::customAppListBody({ ledger, shop }, 10));
        } else {
            // Events, Deployments, Leases: none.
            TestServer::respond(
                socket, 200, "application/json", R"({"kind":"List","metadata":{},"items":[]})");
        }
    };
    QTemporaryDir dir;
    ConsoleSession session;
    session.setBatchInterval(5);
    QVERIFY(session.openKubeconfig(reconscope::tests::writeTestServerKubeconfig(dir, server.port()))
                .ok());
    ui::DetailPane details(&session);
    ui::ExplainPanel *panel = details.explainPanel();
    panel->explainer()->setClock([] { return Now; });
    QVERIFY(details.showTab(u"explain"_s));
    QCOMPARE(details.tabs()->currentWidget(), panel);
    details.resize(640, 420);
    details.show();
    QVERIFY(QTest::qWaitForWindowExposed(&details));

    // Shown: selecting the object explains it.
    QSignalSpy shown(panel, &ui::ExplainPanel::explanationShown);
    details.showObject(u"shop/ledger"_s);
    QVERIFY(shown.wait(Timeout));
    QTreeWidget *causes = panel->causesTree();
    QVERIFY(causes->topLevelItemCount() >= 2);
    QCOMPARE(causes->topLevelItem(0)->text(0),
             u"1. Stalled=True: InvalidSpec: InvalidSpec happened"_s);
    QCOMPARE(causes->topLevelItem(0)->text(1), u"stalled"_s);
    QCOMPARE(causes->topLevelItem(1)->text(1), u"condition-failing"_s);
    QVERIFY(causes->topLevelItem(0)->child(0)->text(0).contains(u"30m0s ago"_s));
    QVERIFY2(panel->summaryLabel()->text().contains(u"Degraded"_s),
             qPrintable(panel->summaryLabel()->text()));
    const QString shots = qEnvironmentVariable("RECONSCOPE_SCREENSHOT_DIR", QDir::tempPath());
    QVERIFY(details.grab().save(shots + u"/explain-panel.png"_s));

    // Another object: the stale status first.
    details.showObject(u"shop/shop"_s);
    QVERIFY(shown.wait(Timeout));
    QCOMPARE(panel->explanation().key, u"shop/shop"_s);
    QCOMPARE(causes->topLevelItem(0)->text(1), u"stale-status"_s);
    QCOMPARE(causes->topLevelItem(0)->text(0),
             u"1. the status is stale: generation 2, observed 1"_s);
}

void tst_ExplainPanel::reconcilerVerdictInOneLine()
{
    using controller::reconcile::ReconcileRecord;
    QCOMPARE(controller::console::reconcilerVerdict(std::nullopt, Now), QString());
    ReconcileRecord record;
    record.startedAt = controller::reconcile::TimePoint(
        std::chrono::milliseconds(Now.addSecs(-75).toMSecsSinceEpoch()));
    record.result = ReconcileRecord::Result::InProgress;
    QCOMPARE(controller::console::reconcilerVerdict(record, Now), QString());
    record.result = ReconcileRecord::Result::TerminalError;
    record.error = u"spec.replicas must be at least 1"_s;
    record.explanation = u"not requeued"_s;
    QCOMPARE(controller::console::reconcilerVerdict(record, Now),
             u"the embedded reconciler's last reconcile (1m15s ago): terminal_error: "
             u"spec.replicas must be at least 1 — not requeued"_s);
}

QTEST_MAIN(tst_ExplainPanel)
#include "tst_explainpanel.moc"
