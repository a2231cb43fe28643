#include "ui/mainwindow.h"

#include "controller/console/consolesession.h"
#include "ui/consolestatusbar.h"
#include "ui/contextpicker.h"
#include "ui/customappdialog.h"
#include "ui/detailpane.h"
#include "ui/labsarea.h"
#include "ui/overviewpanel.h"
#include "ui/problemspanel.h"
#include "ui/reconcilerpanel.h"
#include "ui/recordingactions.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"
#include "ui/scenariopanel.h"
#include "ui/stategraphpanel.h"
#include "ui/yamleditor.h"

#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QToolBar>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

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
    , m_labs(new LabsArea(session, this))
    , m_centre(new QStackedWidget(this))
    , m_operatorSplitter(new QSplitter(Qt::Vertical, this))
    , m_labsSplitter(new QSplitter(Qt::Vertical, this))
    , m_workspaceGroup(new QActionGroup(this))
    , m_newObject(new QAction(tr("&New CustomApp…"), this))
    , m_editYaml(new QAction(tr("&Edit as YAML…"), this))
    , m_recording(new RecordingActions(session, this))
{
    setWindowTitle(tr("Reconscope"));
    setStatusBar(m_statusBar);
    setDockNestingEnabled(true);
    installEventFilter(this); // the side columns follow the window's width (eventFilter)

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addActions(m_recording->actions());
    fileMenu->addSeparator();
    m_statusBar->addPermanentWidget(m_recording->indicator());
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

    // The centre: the operator's table over the state graph, or the table over the labs. The
    // table moves to the workspace shown (one table, one selection).
    m_operatorSplitter->addWidget(m_table);
    m_operatorSplitter->addWidget(m_graph);
    m_operatorSplitter->setChildrenCollapsible(false);
    m_operatorSplitter->setSizes({ 340, 480 });
    m_labsSplitter->addWidget(m_labs);
    m_labsSplitter->setChildrenCollapsible(false);
    m_centre->addWidget(m_operatorSplitter);
    m_centre->addWidget(m_labsSplitter);
    setCentralWidget(m_centre);

    addDock(m_contextPicker, Qt::LeftDockWidgetArea);
    addDock(m_browser, Qt::LeftDockWidgetArea);
    m_scenarioDock = addDock(m_scenario, Qt::LeftDockWidgetArea);
    // The scenario writes: it plays on the embedded cluster only.
    connect(session, &ConsoleSession::connected, this, [this, session] {
        m_scenarioDock->setVisible(session->isDemo());
        m_scenarioDock->widget()->setEnabled(session->isDemo());
    });
    m_detailDock = addDock(m_detail, Qt::RightDockWidgetArea);
    m_reconcilerDock = addDock(m_reconciler, Qt::RightDockWidgetArea);
    tabifyDockWidget(m_detailDock, m_reconcilerDock);
    m_detailDock->raise();
    for (QTabBar *tabs : findChildren<QTabBar *>())
        tabs->setElideMode(Qt::ElideNone);

    addOverviewPanels();
    buildViewMenu(viewMenu);
    connect(m_labs, &LabsArea::showRequested, this, [this] { showWorkspace(Workspace::Labs); });
    connect(m_table, &ResourceTablePanel::objectSelected, this, &MainWindow::handleObjectSelected);
    m_table->setFocus(); // keyboard navigation starts in the table

    // The layout settles its docks' tabs first: activated only when the window is first shown,
    // its minimum would still count the tabbed docks side by side and widen the window past the
    // size given here. 1600x1000, or less on a smaller screen (the offscreen platform's 800x600 is
    // not a screen anyone looks at: screenshots keep the full size).
    layout()->activate();
    QSize size(1600, 1000);
    if (const QScreen *screen = QGuiApplication::primaryScreen();
        screen && screen->availableSize().width() >= 1024)
        size = size.boundedTo(screen->availableSize() * 0.92);
    resize(size);
}

void MainWindow::buildViewMenu(QMenu *viewMenu)
{
    // The workspace switch: menu entries, Ctrl+1 / Ctrl+2, and buttons at the menu bar's right.
    auto *switcher = new QToolBar(this);
    switcher->setObjectName(u"workspaces"_s);
    switcher->setToolButtonStyle(Qt::ToolButtonTextOnly);
    switcher->setMovable(false);
    m_workspaceGroup->setExclusive(true);
    const QList<QPair<Workspace, QString>> workspaces{ { Workspace::Operator, tr("&Operator") },
                                                       { Workspace::Labs, tr("&Labs") } };
    for (const auto &[workspace, title] : workspaces) {
        auto *action = new QAction(title, m_workspaceGroup);
        action->setCheckable(true);
        action->setChecked(workspace == m_workspace);
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + int(workspace))));
        action->setToolTip(tr("%1 workspace (%2)")
                               .arg(QString(title).remove(u'&'),
                                    action->shortcut().toString(QKeySequence::NativeText)));
        connect(
            action, &QAction::triggered, this, [this, which = workspace] { showWorkspace(which); });
        switcher->addAction(action);
    }
    menuBar()->setCornerWidget(switcher, Qt::TopRightCorner);
    viewMenu->addSection(tr("Workspace"));
    viewMenu->addActions(m_workspaceGroup->actions());
    viewMenu->addSection(tr("Panels"));
    for (QDockWidget *dock : std::as_const(m_docks))
        viewMenu->addAction(dock->toggleViewAction());
    viewMenu->addSection(tr("Labs"));
    viewMenu->addActions(m_labs->showActions());
}

void MainWindow::showEvent(QShowEvent *event)
{
    // The docks' widths follow the size the window first appears at (the default, or whatever
    // it was given before): a fifth for the left column, three eighths (room for all the detail
    // tabs) for the details.
    if (!m_sized) {
        m_sized = true;
        m_settledWidth = width();
        // Docks already at their width get no resize event: their shares are taken once the
        // layout has settled.
        QMetaObject::invokeMethod(
            this,
            [this] {
                for (const QDockWidget *dock : std::as_const(m_docks)) {
                    if (dock->isVisible() && !dock->isFloating() && width() > 0)
                        m_columnShares.insert(dock, double(dock->width()) / width());
                }
            },
            Qt::QueuedConnection);
        resizeDocks({ dockOf(m_browser), m_detailDock },
                    { std::clamp(width() / 5, 250, 330), std::clamp(width() * 3 / 8, 470, 560) },
                    Qt::Horizontal);
    }
    QMainWindow::showEvent(event);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // QMainWindow gives all of a new width to the centre and takes a lost one from the docks as
    // well: keep each side column's share of the window instead, whatever the user made it by
    // dragging, so that a maximised window has wider details too, and a narrowed one a table.
    // A dock's share is what it had at the last width the window settled at; the columns are set
    // once the layout has taken in the window's new size.
    if (event->type() != QEvent::Resize || !m_sized)
        return QMainWindow::eventFilter(watched, event);
    if (watched != this) {
        auto *dock = qobject_cast<QDockWidget *>(watched);
        if (dock && !m_windowResizing && width() == m_settledWidth && width() > 0)
            m_columnShares.insert(dock, double(dock->width()) / width());
        return QMainWindow::eventFilter(watched, event);
    }
    if (width() == m_settledWidth || m_windowResizing)
        return QMainWindow::eventFilter(watched, event);
    m_windowResizing = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_windowResizing = false;
            m_settledWidth = width();
            QList<QDockWidget *> docks;
            QList<int> widths;
            for (QDockWidget *dock : sideColumnDocks()) {
                const auto share = m_columnShares.constFind(dock);
                if (share == m_columnShares.cend())
                    continue;
                docks << dock;
                widths << int(*share * width());
            }
            if (!docks.isEmpty())
                resizeDocks(docks, widths, Qt::Horizontal);
        },
        Qt::QueuedConnection);
    return QMainWindow::eventFilter(watched, event);
}

QList<QDockWidget *> MainWindow::sideColumnDocks() const
{
    QList<QDockWidget *> docks;
    for (const Qt::DockWidgetArea area : { Qt::LeftDockWidgetArea, Qt::RightDockWidgetArea }) {
        for (QDockWidget *dock : m_docks) {
            if (dock->isVisible() && !dock->isFloating() && dockWidgetArea(dock) == area) {
                docks << dock;
                break; // the rest of the column follows it
            }
        }
    }
    return docks;
}

QDockWidget *MainWindow::dockOf(const QWidget *panel) const
{
    for (QDockWidget *dock : m_docks) {
        auto *scroll = qobject_cast<QScrollArea *>(dock->widget());
        if (dock->widget() == panel || (scroll && scroll->widget() == panel))
            return dock;
    }
    return nullptr;
}

PatchLabPanel *MainWindow::patchLab() const
{
    return m_labs->patchLab();
}

RawApiConsole *MainWindow::rawApiConsole() const
{
    return m_labs->rawApiConsole();
}

LogPane *MainWindow::logPane() const
{
    return m_labs->logPane();
}

QAction *MainWindow::workspaceAction(Workspace workspace) const
{
    return m_workspaceGroup->actions().value(int(workspace));
}

void MainWindow::showWorkspace(Workspace workspace)
{
    workspaceAction(workspace)->setChecked(true);
    if (workspace == m_workspace)
        return;
    m_savedLayout[int(m_workspace)] = saveState();
    m_workspace = workspace;
    const bool labs = workspace == Workspace::Labs;
    // The table goes along: the labs act on the object selected in it.
    QSplitter *splitter = labs ? m_labsSplitter : m_operatorSplitter;
    splitter->insertWidget(0, m_table);
    if (labs)
        splitter->setSizes({ 260, 640 });
    m_centre->setCurrentWidget(splitter);
    if (!m_savedLayout[int(workspace)].isEmpty()) {
        restoreState(m_savedLayout[int(workspace)]);
        layout()->activate(); // the dock tabs as restored, before anything raises one
    } else if (labs) { // the first time: the labs take the room of the right-hand docks
        m_detailDock->hide();
        m_reconcilerDock->hide();
        for (QDockWidget *dock : std::as_const(m_overviewDocks))
            dock->hide();
    }
    // A real cluster never shows the scenario, whatever a saved layout says.
    if (!m_session->isDemo() && m_session->isConnected())
        m_scenarioDock->hide();
}

QStringList MainWindow::panelNames()
{
    return { u"window"_s,     u"operator"_s, u"labs"_s,    u"table"_s,    u"graph"_s,   u"detail"_s,
             u"reconciler"_s, u"scenario"_s, u"browser"_s, u"context"_s,  u"patch"_s,   u"raw"_s,
             u"conflict"_s,   u"lint"_s,     u"log"_s,     u"problems"_s, u"overview"_s };
}

QWidget *MainWindow::showPanel(const QString &name)
{
    if (name == u"window" || name == u"operator" || name == u"labs") {
        showWorkspace(name == u"labs" ? Workspace::Labs : Workspace::Operator);
        return this;
    }
    if (name == u"table")
        return m_table;
    if (name == u"graph") {
        showWorkspace(Workspace::Operator);
        return m_graph;
    }
    if (QWidget *lab = m_labs->panelNamed(name)) {
        showWorkspace(Workspace::Labs);
        m_labs->showPanel(lab);
        return lab;
    }
    const QList<QPair<QString, QWidget *>> docked{
        { u"detail"_s, m_detail },         { u"reconciler"_s, m_reconciler },
        { u"scenario"_s, m_scenario },     { u"browser"_s, m_browser },
        { u"context"_s, m_contextPicker }, { u"problems"_s, m_problems },
        { u"overview"_s, m_overviewPanel }
    };
    for (const auto &[panelName, panel] : docked) {
        if (name != panelName)
            continue;
        QDockWidget *dock = dockOf(panel);
        if (panel == m_detail || panel == m_reconciler || m_overviewDocks.contains(dock))
            showWorkspace(Workspace::Operator);
        dock->show();
        dock->raise();
        return panel;
    }
    return nullptr;
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

QDockWidget *MainWindow::addDock(QWidget *panel, Qt::DockWidgetArea area)
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
    m_docks.append(dock);
    dock->installEventFilter(this); // its share of the window's width (eventFilter)
    return dock;
}

void MainWindow::handleObjectSelected(const QString &key)
{
    m_detail->showObject(key);
    m_graph->setSelectedObject(key);
    m_reconciler->setSelectedObject(key);
    m_labs->setSelectedObject(key);
}

} // namespace reconscope::ui
