#include "ui/mainwindow.h"

#include "ui/conflictlabpanel.h"
#include "ui/consolesession.h"
#include "ui/consolestatusbar.h"
#include "ui/contextpicker.h"
#include "ui/customappdialog.h"
#include "ui/detailpane.h"
#include "ui/lintpanel.h"
#include "ui/logpane.h"
#include "ui/patchlabpanel.h"
#include "ui/rawapiconsole.h"
#include "ui/reconcilerpanel.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"
#include "ui/scenariopanel.h"
#include "ui/stategraphpanel.h"
#include "ui/yamleditor.h"

#include <QApplication>
#include <QDockWidget>
#include <QMenuBar>
#include <QScrollArea>
#include <QSplitter>
#include <QTabBar>

namespace reconscope::ui {

MainWindow::MainWindow(ConsoleSession *session, QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
    , m_contextPicker(new ContextPicker(session, this))
    , m_browser(new ResourceBrowser(session, this))
    , m_table(new ResourceTablePanel(session->tableModel(), this))
    , m_graph(new StateGraphPanel(session, this))
    , m_detail(new DetailPane(session, this))
    , m_reconciler(new ReconcilerPanel(session, this))
    , m_statusBar(new ConsoleStatusBar(session, this))
    , m_scenario(new ScenarioPanel(session->scenarioPlayer(), this))
    , m_newObject(new QAction(tr("&New CustomApp…"), this))
    , m_editYaml(new QAction(tr("&Edit as YAML…"), this))
{
    setWindowTitle(tr("Reconscope"));
    resize(1600, 1000);
    setStatusBar(m_statusBar);
    setDockNestingEnabled(true);

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *quit = fileMenu->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    auto *objectsMenu = menuBar()->addMenu(tr("&Objects"));
    m_newObject->setShortcut(QKeySequence::New);
    m_editYaml->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(m_newObject, &QAction::triggered, this, [this] { openNewObjectDialog(); });
    connect(m_editYaml, &QAction::triggered, this, [this] { openYamlEditor(); });
    objectsMenu->addActions({ m_newObject, m_editYaml });
    objectsMenu->addSeparator();
    objectsMenu->addActions(m_table->actions());
    auto *graphMenu = menuBar()->addMenu(tr("&Graph"));
    graphMenu->addActions(m_graph->actions());
    auto *reconcilerMenu = menuBar()->addMenu(tr("&Reconciler"));
    reconcilerMenu->addActions(m_reconciler->actions());
    auto *scenarioMenu = menuBar()->addMenu(tr("&Scenario"));
    scenarioMenu->addActions(m_scenario->actions());
    auto *viewMenu = menuBar()->addMenu(tr("&View"));

    auto *centre = new QSplitter(Qt::Vertical, this);
    centre->addWidget(m_table);
    centre->addWidget(m_graph);
    centre->setStretchFactor(0, 1);
    centre->setStretchFactor(1, 1);
    centre->setChildrenCollapsible(false);
    setCentralWidget(centre);

    addDock(m_contextPicker, Qt::LeftDockWidgetArea, viewMenu);
    QDockWidget *browserDock = addDock(m_browser, Qt::LeftDockWidgetArea, viewMenu);
    QDockWidget *scenarioDock = addDock(m_scenario, Qt::LeftDockWidgetArea, viewMenu);
    // The scenario writes: it plays on the embedded cluster only.
    connect(session, &ConsoleSession::connected, scenarioDock, [session, scenarioDock] {
        scenarioDock->setVisible(session->isDemo());
        scenarioDock->widget()->setEnabled(session->isDemo());
    });
    QDockWidget *detailDock = addDock(m_detail, Qt::RightDockWidgetArea, viewMenu);
    QDockWidget *reconcilerDock = addDock(m_reconciler, Qt::RightDockWidgetArea, viewMenu);
    tabifyDockWidget(detailDock, reconcilerDock);
    tabifyDockWidget(
        reconcilerDock,
        addDock(new ConflictLabPanel(session, this), Qt::RightDockWidgetArea, viewMenu));
    // The patch lab, the raw API console and the log pane, tabbed with the other right docks.
    m_patchLab = new PatchLabPanel(session, this);
    m_rawApi = new RawApiConsole(session, this);
    m_logPane = new LogPane(this);
    for (QWidget *panel : { static_cast<QWidget *>(m_patchLab),
                            static_cast<QWidget *>(m_rawApi),
                            static_cast<QWidget *>(m_logPane) })
        tabifyDockWidget(reconcilerDock, addDock(panel, Qt::RightDockWidgetArea, viewMenu));
    // The API boundary verifier (CRD lint, live dry-run check), tabbed with them too.
    auto *lintPanel = new LintPanel(session, this);
    tabifyDockWidget(reconcilerDock, addDock(lintPanel, Qt::RightDockWidgetArea, viewMenu));
    connect(m_table, &ResourceTablePanel::objectSelected, lintPanel, &LintPanel::setSelectedObject);
    detailDock->raise();
    // Seven docks share the right-hand tab bar: whole titles with scroll arrows rather than
    // titles elided to "Det…" and "Reconci…".
    for (QTabBar *tabs : findChildren<QTabBar *>()) {
        tabs->setElideMode(Qt::ElideNone);
        tabs->setUsesScrollButtons(true);
    }
    resizeDocks({ browserDock, detailDock }, { 330, 560 }, Qt::Horizontal);
    centre->setSizes({ 340, 480 });

    connect(m_table, &ResourceTablePanel::objectSelected, this, &MainWindow::handleObjectSelected);
}

MainWindow::~MainWindow() = default;

CustomAppDialog *MainWindow::openNewObjectDialog()
{
    auto *dialog = new CustomAppDialog(m_session, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &CustomAppDialog::created, this, [this](const QString &key) {
        statusBar()->showMessage(tr("Created %1").arg(key), 5000);
    });
    dialog->show();
    return dialog;
}

YamlEditor *MainWindow::openYamlEditor()
{
    const QString key = m_table->selectedKey();
    if (key.isEmpty()) {
        statusBar()->showMessage(tr("Select an object to edit first."), 5000);
        return nullptr;
    }
    auto *editor = new YamlEditor(m_session, m_session->resource().ref(), key, this);
    editor->setAttribute(Qt::WA_DeleteOnClose);
    if (!editor->loadFromCache())
        editor->reload();
    editor->show();
    return editor;
}

QDockWidget *MainWindow::addDock(QWidget *panel, Qt::DockWidgetArea area, QMenu *viewMenu)
{
    auto *dock = new QDockWidget(panel->windowTitle(), this);
    dock->setObjectName(panel->windowTitle());
    // A panel that needs more room than a dock's share scrolls instead of widening the dock
    // area (tabbed docks share the widest one's minimum, which would squeeze the table and the
    // graph).
    if (panel->minimumSizeHint().width() > MaxDockMinimumWidth) {
        auto *scroll = new QScrollArea(dock);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(panel);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(panel);
    }
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                      | QDockWidget::DockWidgetClosable);
    addDockWidget(area, dock);
    viewMenu->addAction(dock->toggleViewAction());
    return dock;
}

void MainWindow::handleObjectSelected(const QString &key)
{
    m_detail->showObject(key);
    m_graph->setSelectedObject(key);
    m_reconciler->setSelectedObject(key);
    m_patchLab->setSelectedObject(key);
    m_rawApi->setSelectedObject(key);
}

} // namespace reconscope::ui
