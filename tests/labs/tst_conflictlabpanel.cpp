// The conflict lab panel (offscreen): a tiny run of all three designs on the console's embedded
// cluster, results in the table and the chart, the UI thread kept free; the write switch on a
// real cluster.
#include "../ui/uitestsupport.h"
#include "controller/console/consolesession.h"
#include "ui/conflictlabpanel.h"
#include "ui/writegate.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
namespace clabs = reconscope::controller::labs;
using reconscope::controller::console::ConsoleSession;
using reconscope::ui::ConflictLabPanel;

class tst_ConflictLabPanel : public QObject
{
    Q_OBJECT

private slots:
    void runsAllThreeDesignsAndShowsResults();
    void realClusterNeedsTheWriteSwitch();
};

void tst_ConflictLabPanel::runsAllThreeDesignsAndShowsResults()
{
    ConsoleSession session;
    session.setRunReconciler(false);
    ConflictLabPanel panel(&session);
    panel.resize(900, 800);
    panel.show();
    QVERIFY(session.startDemo().ok());
    QTRY_VERIFY_WITH_TIMEOUT(session.isConnected(), 30000);
    QTRY_VERIFY(panel.runButton()->isEnabled());

    panel.setDesigns({ clabs::ConflictDesign::SeparatedPut,
                       clabs::ConflictDesign::SeparatedMergePatch,
                       clabs::ConflictDesign::Mixed,
                       clabs::ConflictDesign::SeparatedApply,
                       clabs::ConflictDesign::MixedApply });
    panel.setSeconds(1);
    panel.setObjects(1);
    QSignalSpy finished(&panel, &ConflictLabPanel::runFinished);

    // The lab is asynchronous: the UI thread's loop keeps turning while it runs.
    int ticks = 0;
    QTimer ticker;
    ticker.setInterval(50);
    connect(&ticker, &QTimer::timeout, &panel, [&ticks] { ++ticks; });
    ticker.start();

    QVERIFY(panel.run());
    QVERIFY(panel.isRunning());
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(!panel.run()); // one run at a time
    QTRY_VERIFY_WITH_TIMEOUT(panel.progressBar()->value() > 0, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(panel.liveLabel()->text().contains(u"GitOps"_s), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    QVERIFY2(ticks >= 20, qPrintable(QString::number(ticks)));
    QCOMPARE(panel.progressBar()->value(), panel.progressBar()->maximum());
    QVERIFY(panel.runButton()->isEnabled());

    const auto &results = panel.results();
    QCOMPARE(results.size(), 5);
    for (const auto &result : results)
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(results[0].design, clabs::ConflictDesign::SeparatedPut);
    QCOMPARE(results[1].design, clabs::ConflictDesign::SeparatedMergePatch);
    QCOMPARE(results[2].design, clabs::ConflictDesign::Mixed);
    QCOMPARE(results[1].reconciler().conflicts, 0);
    QCOMPARE(results[1].gitops().lostUpdates + results[1].reconciler().lostUpdates, 0);
    QVERIFY(results[2].reconciler().generationBumps > 0);
    QCOMPARE(results[3].design, clabs::ConflictDesign::SeparatedApply);
    QCOMPARE(results[4].design, clabs::ConflictDesign::MixedApply);
    QCOMPARE(results[3].reconciler().applyConflicts, 0);
    QVERIFY(results[4].reconciler().applyConflicts > 0);

    // The table: one row per design and writer, with the figures.
    QTableWidget *table = panel.resultsTable();
    QCOMPARE(table->rowCount(), 10);
    QCOMPARE(table->item(0, ConflictLabPanel::DesignColumn)->text(), u"(a)"_s);
    QCOMPARE(table->item(0, ConflictLabPanel::WriterColumn)->text(), u"gitops"_s);
    QCOMPARE(table->item(3, ConflictLabPanel::WriterColumn)->text(), u"reconciler"_s);
    QCOMPARE(table->item(3, ConflictLabPanel::ConflictsColumn)->data(Qt::DisplayRole).toLongLong(),
             results[1].reconciler().conflicts);
    QCOMPARE(table->item(5, ConflictLabPanel::GenerationColumn)->data(Qt::DisplayRole).toLongLong(),
             results[2].reconciler().generationBumps);
    QCOMPARE(table->item(1, ConflictLabPanel::ReconcilesColumn)->data(Qt::DisplayRole).toLongLong(),
             results[0].reconciler().reconciles);
    QCOMPARE(
        table->item(9, ConflictLabPanel::ApplyConflictsColumn)->data(Qt::DisplayRole).toLongLong(),
        results[4].reconciler().applyConflicts);
    QCOMPARE(table->item(8, ConflictLabPanel::OwnershipChangesColumn)
                 ->data(Qt::DisplayRole)
                 .toLongLong(),
             results[4].gitops().ownershipChanges);
    QCOMPARE(table->item(6, ConflictLabPanel::FightsColumn)->data(Qt::DisplayRole).toLongLong(),
             qint64(results[3].fights.size()));

    // The chart: 409s, lost updates, generation bumps, reconciles and ownership changes for each
    // design and writer.
    const auto series = panel.chartView()->chart()->series();
    QCOMPARE(series.size(), 1);
    const auto *bars = qobject_cast<QBarSeries *>(series.first());
    QVERIFY(bars);
    QCOMPARE(bars->count(), 5);
    for (const QBarSet *set : bars->barSets())
        QCOMPARE(set->count(), 10);
    QCOMPARE(bars->barSets().at(2)->at(5), double(results[2].reconciler().generationBumps));
    QCOMPARE(bars->barSets().at(3)->at(0), double(results[0].gitops().reconciles));
    QVERIFY(panel.statusLabel()->text().contains(u"Done"_s));
    const QString picture = QStringLiteral(RECONSCOPE_BINARY_DIR "/conflictlabpanel.png");
    QVERIFY(panel.grab().save(picture, "PNG"));
}

void tst_ConflictLabPanel::realClusterNeedsTheWriteSwitch()
{
    QTemporaryDir dir;
    const QString kubeconfig = reconscope::tests::writeTwoContextKubeconfig(dir);
    ConsoleSession session;
    ConflictLabPanel panel(&session);
    QVERIFY(session.openKubeconfig(kubeconfig, u"staging"_s).ok());
    QVERIFY(!session.writesEnabled());
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(!panel.run());
    QVERIFY(!panel.isRunning());
    QVERIFY(panel.statusLabel()->text().contains(u"Writes are disabled"_s));
    // The requests the lab would send are shown before anything is sent.
    const QString requests = panel.requestsView()->toPlainText();
    QVERIFY(requests.contains(u"PUT /apis/kafka.internal.net/v1/namespaces/reconscope-conflict-lab/"
                              "consumergroups/NAME/status"_s));
    QVERIFY(requests.contains(u"mixedconsumergroups"_s));
    panel.setDesigns({ clabs::ConflictDesign::SeparatedMergePatch });
    QVERIFY(!panel.requestsView()->toPlainText().contains(u"mixedconsumergroups"_s));

    session.setWritesEnabled(true);
    QVERIFY(panel.runButton()->isEnabled());
    // With the switch on, the exact requests are confirmed before anything is sent.
    QVERIFY(panel.run());
    QVERIFY(!panel.isRunning());
    QMessageBox *confirmation = panel.writeGate()->pendingConfirmation();
    QVERIFY(confirmation);
    QVERIFY(confirmation->informativeText().contains(
        u"PATCH /apis/kafka.internal.net/v1/namespaces/reconscope-conflict-lab/consumergroups/NAME/status"_s));
    confirmation->button(QMessageBox::Cancel)->click();
    QVERIFY(!panel.isRunning());
    QVERIFY(panel.results().isEmpty());
    session.setWritesEnabled(false);
    QVERIFY(!panel.runButton()->isEnabled());
}

QTEST_MAIN(tst_ConflictLabPanel)
#include "tst_conflictlabpanel.moc"
