#include "controller/console/consolesession.h"
#include "controller/reconcile/controllerloop.h"
#include "ui/reconcilerpanel.h"

#include <QAction>
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include <memory>
#include <numeric>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;
using namespace reconscope::controller::reconcile;

namespace {

// Fails "demo/bad" (transiently), succeeds otherwise; counts calls.
class ScriptedReconciler final : public Reconciler
{
public:
    ReconcileOutcome reconcile(const QString &key) override
    {
        ++calls;
        if (key == u"demo/bad")
            return ReconcileOutcome::failure(u"image pull failed"_s);
        return ReconcileOutcome::success();
    }
    int calls = 0;
};

} // namespace

class tst_ReconcilerPanel final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void withoutReconciler();
    void pauseStepAndHistory();
    void errorsRetryAndChart();

private:
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<RealClock> m_clock;
    std::unique_ptr<ScriptedReconciler> m_reconciler;
    std::unique_ptr<ControllerLoop> m_loop;
    std::unique_ptr<ReconcilerPanel> m_panel;
};

void tst_ReconcilerPanel::init()
{
    m_session = std::make_unique<ConsoleSession>();
    m_clock = std::make_unique<RealClock>();
    m_reconciler = std::make_unique<ScriptedReconciler>();
    ControllerLoop::Options options;
    options.startPaused = true;
    options.tokenBucket = false;
    m_loop = std::make_unique<ControllerLoop>(*m_clock, *m_reconciler, options);
    m_panel = std::make_unique<ReconcilerPanel>(m_session.get());
    m_panel->show();
}

void tst_ReconcilerPanel::cleanup()
{
    m_panel.reset();
    m_loop.reset();
    m_reconciler.reset();
    m_clock.reset();
    m_session.reset();
}

void tst_ReconcilerPanel::withoutReconciler()
{
    QVERIFY(!m_panel->pauseAction()->isEnabled());
    QVERIFY(!m_panel->stepAction()->isEnabled());
    QCOMPARE(m_panel->summaryLabel()->text(), u"no reconciler runs in this session"_s);
}

void tst_ReconcilerPanel::pauseStepAndHistory()
{
    m_panel->setLoop(m_loop.get());
    QVERIFY(m_panel->pauseAction()->isChecked());
    m_loop->enqueue(u"demo/web"_s, u"ADDED customapps demo/web rv=12"_s);
    m_loop->enqueue(u"demo/api"_s, u"ADDED customapps demo/api rv=13"_s);
    QTRY_COMPARE(m_panel->queueTable()->rowCount(), 2);
    QCOMPARE(m_panel->queueTable()->item(0, 1)->text(), u"ready"_s);
    QVERIFY(m_panel->summaryLabel()->text().startsWith(u"paused"_s));

    m_panel->setSelectedObject(u"demo/web"_s);
    m_panel->stepAction()->trigger();
    QTRY_COMPARE(m_reconciler->calls, 1);
    QTRY_COMPARE(m_panel->historyTable()->rowCount(), 1);
    QCOMPARE(m_panel->historyTable()->item(0, 1)->text(), u"success"_s);
    QVERIFY(m_panel->historyTable()->item(0, 3)->text().contains(u"ADDED customapps demo/web"_s));
    QTRY_COMPARE(m_panel->queueTable()->rowCount(), 1);

    // Resuming runs the rest.
    m_panel->pauseAction()->setChecked(false);
    QVERIFY(!m_loop->isPaused());
    QTRY_COMPARE(m_reconciler->calls, 2);
    QTRY_COMPARE(m_panel->queueTable()->rowCount(), 0);
    QVERIFY(m_panel->summaryLabel()->text().startsWith(u"running"_s));
}

void tst_ReconcilerPanel::errorsRetryAndChart()
{
    m_panel->setLoop(m_loop.get());
    m_panel->pauseAction()->setChecked(false);
    m_panel->setSelectedObject(u"demo/bad"_s);
    m_loop->enqueue(u"demo/bad"_s, u"manual"_s);
    QTRY_VERIFY(m_panel->historyTable()->rowCount() >= 1);
    QCOMPARE(m_panel->historyTable()->item(0, 1)->text(), u"error"_s);
    QVERIFY(m_panel->historyTable()->item(0, 4)->text().contains(u"image pull failed"_s));
    // The rate-limited retry waits in the queue with its retry count.
    QTRY_VERIFY(m_panel->queueTable()->rowCount() == 1
                && m_panel->queueTable()->item(0, 2)->text().toInt() >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(!m_panel->reconcileRate().isEmpty(), 3000);
    QTRY_VERIFY_WITH_TIMEOUT(
        std::accumulate(m_panel->errorRate().cbegin(), m_panel->errorRate().cend(), 0) >= 1, 3000);
}

QTEST_MAIN(tst_ReconcilerPanel)
#include "tst_reconcilerpanel.moc"
