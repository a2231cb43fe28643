// The detail pane's Owned and Dry Run tabs on the embedded cluster, with no reconciler running so
// that the dry run has work to plan: what the CustomApp reconciler would write (finalizer,
// Deployment, status) is shown as a diff and nothing is written; a Deployment owned by the object
// and its Pods appear under Owned with their status, and the next plan diffs against it.
#include "controller/console/consolesession.h"
#include "models/ownedobjectsmodel.h"
#include "models/plannedchangesmodel.h"
#include "models/resourcetablemodel.h"
#include "ui/detailpane.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::models;
using namespace reconscope::ui;
using nlohmann::json;

namespace {
constexpr int Timeout = 30000;
}

class tst_DetailPaneExtras final : public QObject
{
    Q_OBJECT

private slots:
    void dryRunAndOwnedObjects();
};

void tst_DetailPaneExtras::dryRunAndOwnedObjects()
{
    ConsoleSession session;
    session.setRunReconciler(false);
    session.setPlayScenario(false);
    QVERIFY(session.startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(session.tableModel()->rowOf(u"demo/web"_s) >= 0, Timeout);

    DetailPane pane(&session);
    QAbstractItemModelTester ownedTester(pane.ownedModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester dryRunTester(pane.dryRunModel(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy planned(&pane, &DetailPane::dryRunPlanned);
    QSignalSpy owned(&pane, &DetailPane::ownedLoaded);
    pane.showObject(u"demo/web"_s);
    QTRY_VERIFY_WITH_TIMEOUT(owned.count() >= 1, Timeout);
    QCOMPARE(pane.ownedModel()->rowCount(), 0); // nothing reconciled it yet
    QVERIFY(pane.showTab(u"dryrun"_s));
    QVERIFY(!pane.showTab(u"no-such-tab"_s));
    QTRY_VERIFY_WITH_TIMEOUT(planned.count() >= 1, Timeout);

    const auto &changes = pane.dryRunModel()->changes();
    QStringList requests;
    for (const PlannedChange &change : changes)
        requests << change.verb + u' ' + change.path;
    const QString all = requests.join(u'\n');
    QVERIFY2(
        all.contains(u"PUT /apis/infrastructure.internal.net/v1/namespaces/demo/customapps/web"_s),
        qPrintable(all));
    QVERIFY2(all.contains(u"POST /apis/apps/v1/namespaces/demo/deployments"_s), qPrintable(all));
    QVERIFY2(all.contains(u"/customapps/web/status"_s), qPrintable(all));
    QVERIFY(pane.dryRunLabel()->text().contains(u"not sent"_s));
    const QString diff = pane.dryRunText()->toPlainText();
    QVERIFY2(diff.contains(u"+ /metadata/finalizers"_s), qPrintable(diff));

    // Nothing was written: no finalizer, no status, no Deployment.
    QTest::qWait(300);
    const json web = session.informer()->entry(u"demo/web"_s)->json();
    QVERIFY(!web["metadata"].contains("finalizers"));
    QVERIFY(!web.contains("status"));

    // A Deployment owned by web (as the reconciler would make it), with its Pods.
    json deployment
        = { { "apiVersion", "apps/v1" },
            { "kind", "Deployment" },
            { "metadata",
              { { "name", "web" },
                { "namespace", "demo" },
                { "ownerReferences",
                  json::array({ { { "apiVersion", "infrastructure.internal.net/v1" },
                                  { "kind", "CustomApp" },
                                  { "name", "web" },
                                  { "uid", web["metadata"]["uid"] },
                                  { "controller", true } } }) } } },
            { "spec",
              { { "replicas", 2 },
                { "selector", { { "matchLabels", { { "app", "web-by-hand" } } } } },
                { "template",
                  { { "metadata", { { "labels", { { "app", "web-by-hand" } } } } },
                    { "spec",
                      { { "containers",
                          json::array(
                              { { { "name", "app" }, { "image", "nginx:1.27" } } }) } } } } } } } };
    bool created = false;
    session.client()->create({ u"apps"_s, u"v1"_s, u"deployments"_s, true },
                             u"demo"_s,
                             deployment,
                             [&created](auto result) { created = result.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(created, Timeout);
    const auto podsRunning = [&pane] {
        int running = 0;
        for (const OwnedObject &object : pane.ownedModel()->objects())
            running += object.kind == u"Pod" && object.status == u"Running";
        return running;
    };
    QTRY_VERIFY_WITH_TIMEOUT((pane.refreshOwned(), podsRunning() == 2), Timeout);
    const auto &objects = pane.ownedModel()->objects();
    QCOMPARE(objects.first().kind, u"Deployment"_s);
    QCOMPARE(objects.first().depth, 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        (pane.refreshOwned(), pane.ownedModel()->objects().value(0).status == u"2/2 ready"_s),
        Timeout);

    // The next plan updates that Deployment: its diff shows the values it has now.
    planned.clear();
    pane.planDryRun();
    QTRY_VERIFY_WITH_TIMEOUT(planned.count() >= 1, Timeout);
    bool deploymentBefore = false;
    for (const PlannedChange &change : pane.dryRunModel()->changes()) {
        if (change.path == u"/apis/apps/v1/namespaces/demo/deployments/web"_s
            && change.verb == u"PUT" && !change.before.isEmpty())
            deploymentBefore = true;
    }
    QVERIFY2(deploymentBefore, qPrintable(pane.dryRunText()->toPlainText()));
}

QTEST_MAIN(tst_DetailPaneExtras)
#include "tst_detailpaneextras.moc"
