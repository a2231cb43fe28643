// The main window's arrangement: the Operator and Labs workspaces (Ctrl+1 / Ctrl+2, the View
// menu, each lab's Alt+N), each keeping its own dock layout, the table following the workspace
// with its selection, and room for every panel at the default size and at 1280x800. With
// RECONSCOPE_LAYOUT_SHOTS=DIR set it saves what it checks as PNGs there, for a look.
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/contextpicker.h"
#include "ui/detailpane.h"
#include "ui/labsarea.h"
#include "ui/mainwindow.h"
#include "ui/patchlabpanel.h"
#include "ui/rawapiconsole.h"
#include "ui/reconcilerpanel.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"
#include "ui/scenariopanel.h"
#include "ui/stategraphpanel.h"

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QtTest>

#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope::ui;

namespace {

constexpr int Timeout = 45000;

void maybeSave(QWidget *widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("RECONSCOPE_LAYOUT_SHOTS");
    if (!dir.isEmpty())
        QVERIFY(widget->grab().save(dir + u'/' + name + u".png"_s));
}

// The right-hand dock area's tab bar (the one holding "Details"), if any.
QTabBar *rightDockTabs(MainWindow *window)
{
    for (QTabBar *tabs : window->findChildren<QTabBar *>()) {
        if (tabs->parentWidget() != window)
            continue; // a panel's own tabs
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->tabText(i) == u"Details")
                return tabs;
        }
    }
    return nullptr;
}

// Shown and not moved out of view (a dock behind another's tab stays "visible" out of view).
bool onScreen(QWidget *widget)
{
    return widget->isVisible() && !widget->visibleRegion().isEmpty();
}

QStringList menuTexts(QMenu *menu)
{
    QStringList texts;
    for (QAction *action : menu->actions()) {
        if (!action->isSeparator())
            texts << action->text().remove(u'&');
    }
    return texts;
}

} // namespace

class tst_MainWindowLayout final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void operatorViewIsUncluttered();
    void viewMenuHasEveryPanel();
    void workspacesSwitchAndRemember();
    void labActionsShowTheirTab();
    void showPanelByName();
    void roomAtDefaultSizes_data();
    void roomAtDefaultSizes();
    void docksFollowTheWindowWidth();

private:
    QWidget *visibleDockWidget(QWidget *panel) const;

    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<MainWindow> m_window;
};

void tst_MainWindowLayout::initTestCase()
{
    m_session = std::make_unique<ConsoleSession>();
    m_session->setRunReconciler(false);
    m_session->setPlayScenario(false);
    m_window = std::make_unique<MainWindow>(m_session.get());
    QVERIFY(m_session->startDemo().ok());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QTRY_VERIFY_WITH_TIMEOUT(m_session->isConnected(), Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->tableModel()->rowCount() >= 5, Timeout);
}

void tst_MainWindowLayout::cleanupTestCase()
{
    m_window.reset();
    m_session.reset();
}

QWidget *tst_MainWindowLayout::visibleDockWidget(QWidget *panel) const
{
    QDockWidget *dock = m_window->dockOf(panel);
    return dock && dock->isVisible() ? dock : nullptr;
}

void tst_MainWindowLayout::operatorViewIsUncluttered()
{
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Operator);
    QVERIFY(m_window->workspaceAction(MainWindow::Workspace::Operator)->isChecked());
    // Details and reconciler share the right-hand tabs; the Problems list, all resources and the
    // latency share the bottom ones; no lab or tool is docked anywhere.
    QTabBar *tabs = rightDockTabs(m_window.get());
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 2);
    QCOMPARE(tabs->tabText(1), u"Reconciler"_s);
    QCOMPARE(tabs->elideMode(), Qt::ElideNone);
    const auto docks = m_window->findChildren<QDockWidget *>();
    QStringList titles;
    for (QDockWidget *dock : docks)
        titles << dock->windowTitle();
    titles.sort();
    QCOMPARE(titles,
             QStringList({ u"All Resources"_s,
                           u"Cluster"_s,
                           u"Details"_s,
                           u"Fights"_s,
                           u"Problems"_s,
                           u"Reconcile Latency"_s,
                           u"Reconciler"_s,
                           u"Resources"_s,
                           u"Scenario"_s }));
    QVERIFY(m_window->graphPanel()->isVisible());
    QVERIFY(m_window->tablePanel()->isVisible());
    QVERIFY(m_window->detailPane()->isVisible());
    QVERIFY(m_window->scenarioPanel()->isVisible()); // the embedded cluster: the demo plays
    QVERIFY(!m_window->labsArea()->isVisible());
}

void tst_MainWindowLayout::viewMenuHasEveryPanel()
{
    QMenu *view = nullptr;
    for (QAction *action : m_window->menuBar()->actions()) {
        if (action->text() == u"&View")
            view = action->menu();
    }
    QVERIFY(view);
    const QStringList texts = menuTexts(view);
    for (const QString &entry : { u"Operator"_s,
                                  u"Labs"_s,
                                  u"Cluster"_s,
                                  u"Resources"_s,
                                  u"Scenario"_s,
                                  u"Details"_s,
                                  u"Reconciler"_s,
                                  u"Patch Lab"_s,
                                  u"Raw API"_s,
                                  u"Conflict lab"_s,
                                  u"Boundary verifier"_s,
                                  u"Log"_s })
        QVERIFY2(texts.contains(entry), qPrintable(texts.join(u", "_s)));
    QCOMPARE(m_window->workspaceAction(MainWindow::Workspace::Operator)->shortcut(),
             QKeySequence(Qt::CTRL | Qt::Key_1));
    QCOMPARE(m_window->workspaceAction(MainWindow::Workspace::Labs)->shortcut(),
             QKeySequence(Qt::CTRL | Qt::Key_2));
    const auto labs = m_window->labsArea()->showActions();
    QCOMPARE(labs.size(), 5);
    QCOMPARE(labs.first()->shortcut(), QKeySequence(Qt::ALT | Qt::Key_1));
    QCOMPARE(labs.last()->shortcut(), QKeySequence(Qt::ALT | Qt::Key_5));
    // The switch is also on screen, at the menu bar's right.
    QVERIFY(m_window->menuBar()->cornerWidget(Qt::TopRightCorner));
    QVERIFY(m_window->menuBar()->cornerWidget(Qt::TopRightCorner)->isVisible());
}

void tst_MainWindowLayout::workspacesSwitchAndRemember()
{
    QVERIFY(m_window->tablePanel()->selectKey(u"demo/web"_s));
    m_window->activateWindow();
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Labs);
    QVERIFY(m_window->workspaceAction(MainWindow::Workspace::Labs)->isChecked());
    QVERIFY(m_window->labsArea()->isVisible());
    QVERIFY(!m_window->graphPanel()->isVisible());
    QVERIFY(!visibleDockWidget(m_window->detailPane()));
    QVERIFY(!visibleDockWidget(m_window->reconcilerPanel()));
    QVERIFY(visibleDockWidget(m_window->contextPicker()));
    // The table came along, selection and all: the labs act on it.
    QVERIFY(m_window->tablePanel()->isVisible());
    QVERIFY(m_window->labsArea()->parentWidget()->isAncestorOf(m_window->tablePanel()));
    QCOMPARE(m_window->tablePanel()->selectedKey(), u"demo/web"_s);
    QCOMPARE(m_window->patchLab()->selectedObject(), u"demo/web"_s);

    // A dock shown in Labs stays a Labs arrangement.
    m_window->dockOf(m_window->reconcilerPanel())->show();
    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Operator);
    QVERIFY(m_window->graphPanel()->isVisible());
    QVERIFY(!m_window->labsArea()->isVisible());
    QVERIFY(onScreen(m_window->detailPane())); // raised again, as it was
    QVERIFY(!onScreen(m_window->reconcilerPanel()));
    QVERIFY(visibleDockWidget(m_window->reconcilerPanel()));
    QCOMPARE(rightDockTabs(m_window.get())->count(), 2);
    QCOMPARE(m_window->tablePanel()->selectedKey(), u"demo/web"_s);
    // ... and closing the browser in Operator does not close it in Labs.
    m_window->dockOf(m_window->resourceBrowser())->hide();
    m_window->showWorkspace(MainWindow::Workspace::Labs);
    QVERIFY(visibleDockWidget(m_window->reconcilerPanel()));
    QVERIFY(visibleDockWidget(m_window->resourceBrowser()));
    m_window->dockOf(m_window->reconcilerPanel())->hide();
    m_window->showWorkspace(MainWindow::Workspace::Operator);
    QVERIFY(!visibleDockWidget(m_window->resourceBrowser()));
    m_window->dockOf(m_window->resourceBrowser())->show();
    QVERIFY(m_window->detailPane()->isVisible());
}

void tst_MainWindowLayout::labActionsShowTheirTab()
{
    m_window->showWorkspace(MainWindow::Workspace::Operator);
    m_window->activateWindow();
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::AltModifier); // Raw API
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Labs);
    QTabWidget *tabs = m_window->labsArea()->tabs();
    QCOMPARE(tabs->tabText(tabs->currentIndex()), u"Raw API"_s);
    QVERIFY(m_window->rawApiConsole()->isVisible());
    m_window->labsArea()->showActions().constLast()->trigger();
    QCOMPARE(tabs->tabText(tabs->currentIndex()), u"Log"_s);
    // Every lab's tab shows its whole title.
    for (int i = 0; i < tabs->count(); ++i) {
        const QRect rect = tabs->tabBar()->tabRect(i);
        QVERIFY2(rect.width() >= tabs->tabBar()->fontMetrics().horizontalAdvance(tabs->tabText(i)),
                 qPrintable(tabs->tabText(i)));
    }
    m_window->showWorkspace(MainWindow::Workspace::Operator);
}

void tst_MainWindowLayout::showPanelByName()
{
    QCOMPARE(m_window->showPanel(u"patch"_s), static_cast<QWidget *>(m_window->patchLab()));
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Labs);
    QVERIFY(m_window->patchLab()->isVisible());
    QCOMPARE(m_window->showPanel(u"reconciler"_s),
             static_cast<QWidget *>(m_window->reconcilerPanel()));
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Operator);
    QTRY_VERIFY(onScreen(m_window->reconcilerPanel()));
    QTRY_VERIFY(!onScreen(m_window->detailPane())); // behind the reconciler's tab
    QCOMPARE(m_window->showPanel(u"detail"_s), static_cast<QWidget *>(m_window->detailPane()));
    QTRY_VERIFY(onScreen(m_window->detailPane()));
    QVERIFY(!onScreen(m_window->reconcilerPanel()));
    QCOMPARE(m_window->showPanel(u"labs"_s), static_cast<QWidget *>(m_window.get()));
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Labs);
    QCOMPARE(m_window->showPanel(u"window"_s), static_cast<QWidget *>(m_window.get()));
    QCOMPARE(m_window->workspace(), MainWindow::Workspace::Operator);
    QVERIFY(!m_window->showPanel(u"nonsense"_s));
    for (const QString &name : MainWindow::panelNames())
        QVERIFY2(m_window->showPanel(name), qPrintable(name));
    m_window->showWorkspace(MainWindow::Workspace::Operator);
}

void tst_MainWindowLayout::roomAtDefaultSizes_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("default") << QSize(1600, 1000);
    QTest::newRow("1280x800") << QSize(1280, 800);
}

void tst_MainWindowLayout::roomAtDefaultSizes()
{
    QFETCH(QSize, size);
    // A window that opens at this size (its screen's size).
    m_window.reset();
    m_window = std::make_unique<MainWindow>(m_session.get());
    m_window->resize(size);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QTRY_COMPARE(m_window->size(), size);
    QCoreApplication::processEvents();
    // Nothing grew the window past the size asked for.
    QVERIFY2(m_window->minimumSizeHint().width() <= size.width(),
             qPrintable(QString::number(m_window->minimumSizeHint().width())));
    const int tableWidth = m_window->tablePanel()->width();
    QVERIFY2(tableWidth >= 0.35 * size.width(), qPrintable(QString::number(tableWidth)));
    QVERIFY2(m_window->graphPanel()->height() >= 280,
             qPrintable(QString::number(m_window->graphPanel()->height())));
    QVERIFY2(m_window->detailPane()->width() >= 400,
             qPrintable(QString::number(m_window->detailPane()->width())));
    QVERIFY(m_window->scenarioPanel()->height() >= 200);
    maybeSave(m_window.get(), u"operator-%1x%2"_s.arg(size.width()).arg(size.height()));

    m_window->showWorkspace(MainWindow::Workspace::Labs);
    QCoreApplication::processEvents();
    QVERIFY2(m_window->labsArea()->width() >= 0.6 * size.width(),
             qPrintable(QString::number(m_window->labsArea()->width())));
    QVERIFY2(m_window->labsArea()->height() >= 0.5 * size.height(),
             qPrintable(QString::number(m_window->labsArea()->height())));
    QVERIFY(m_window->tablePanel()->height() >= 150);
    m_window->showPanel(u"patch"_s);
    maybeSave(m_window.get(), u"labs-%1x%2"_s.arg(size.width()).arg(size.height()));
    m_window->showWorkspace(MainWindow::Workspace::Operator);
}

void tst_MainWindowLayout::docksFollowTheWindowWidth()
{
    m_window.reset();
    m_window = std::make_unique<MainWindow>(m_session.get());
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QTRY_COMPARE(m_window->width(), 1280);
    QCoreApplication::processEvents();
    const int left = m_window->dockOf(m_window->resourceBrowser())->width();
    const int details = m_window->dockOf(m_window->detailPane())->width();

    const auto leftWidth = [this] {
        return m_window->dockOf(m_window->resourceBrowser())->width();
    };
    const auto detailsWidth = [this] {
        return m_window->dockOf(m_window->detailPane())->width();
    };
    const auto near = [](int actual, double expected) {
        return std::abs(actual - expected) <= 0.05 * expected;
    };

    // Wider: each column keeps its share (QMainWindow alone would give it all to the table).
    m_window->resize(2000, 1000);
    QTRY_COMPARE(m_window->width(), 2000);
    QTRY_VERIFY2(near(leftWidth(), left * 2000.0 / 1280),
                 qPrintable(u"%1 -> %2"_s.arg(left).arg(leftWidth())));
    QTRY_VERIFY2(near(detailsWidth(), details * 2000.0 / 1280),
                 qPrintable(u"%1 -> %2"_s.arg(details).arg(detailsWidth())));
    QVERIFY(m_window->tablePanel()->width() >= 0.35 * 2000);

    // And back.
    m_window->resize(1280, 800);
    QTRY_COMPARE(m_window->width(), 1280);
    QTRY_VERIFY2(near(leftWidth(), left), qPrintable(QString::number(leftWidth())));
    QTRY_VERIFY2(near(detailsWidth(), details), qPrintable(QString::number(detailsWidth())));

    // A column the user widened keeps that share.
    m_window->resizeDocks({ m_window->dockOf(m_window->detailPane()) }, { 640 }, Qt::Horizontal);
    QTRY_VERIFY(detailsWidth() >= 560); // as far as the table's minimum lets it
    const int dragged = detailsWidth();
    m_window->resize(1600, 800);
    QTRY_COMPARE(m_window->width(), 1600);
    QTRY_VERIFY2(near(detailsWidth(), dragged * 1600.0 / 1280),
                 qPrintable(u"%1 -> %2"_s.arg(dragged).arg(detailsWidth())));
}

QTEST_MAIN(tst_MainWindowLayout)
#include "tst_mainwindowlayout.moc"
