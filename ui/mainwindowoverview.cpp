// MainWindow's part for every custom resource at once (issue 23): the overview the Problems list
// reads, its dock, and the selection of a problem's object, which may belong to another resource
// than the one watched.
#include "ui/mainwindow.h"

#include "controller/console/consolesession.h"
#include "controller/console/crdoverview.h"
#include "controller/console/fightwatch.h"
#include "models/resourcetablemodel.h"
#include "ui/fightspanel.h"
#include "ui/latencypanel.h"
#include "ui/overviewpanel.h"
#include "ui/problemspanel.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"

#include <QDockWidget>
#include <QTimer>

#include <spdlog/spdlog.h>

namespace reconscope::ui {

using controller::console::ConsoleSession;
using controller::console::CrdOverview;

void MainWindow::addOverviewPanels()
{
    m_overview = new CrdOverview(m_session, this);
    m_problems = new ProblemsPanel(m_overview, this);
    m_overviewPanel = new OverviewPanel(m_overview, this);
    // Below the table and the graph, between the side columns (which keep the full height).
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    m_problemsDock = addDock(m_problems, Qt::BottomDockWidgetArea);
    QDockWidget *overviewDock = addDock(m_overviewPanel, Qt::BottomDockWidgetArea);
    QDockWidget *latencyDock
        = addDock(new LatencyPanel(m_overview, this), Qt::BottomDockWidgetArea);
    QDockWidget *fightsDock = addDock(addFightsPanel(), Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_problemsDock, overviewDock);
    tabifyDockWidget(overviewDock, latencyDock);
    tabifyDockWidget(latencyDock, fightsDock);
    m_overviewDocks = { m_problemsDock, overviewDock, latencyDock, fightsDock };
    m_problemsDock->raise();
    resizeDocks({ m_problemsDock }, { 180 }, Qt::Vertical);
    m_browser->setOverview(m_overview);
    connect(m_problems, &ProblemsPanel::objectSelected, this, &MainWindow::handleProblemSelected);
    connect(m_overviewPanel,
            &OverviewPanel::resourceSelected,
            this,
            &MainWindow::handleOverviewResourceSelected);
    connect(m_session, &ConsoleSession::objectsChanged, this, &MainWindow::selectPendingObject);
}

// Field-manager fights among the watched objects (issue 22): each one that starts goes to the log;
// the list shows those going on, and drops those that stopped, every few seconds.
QWidget *MainWindow::addFightsPanel()
{
    auto *watch = new controller::console::FightWatch(m_session, this);
    auto *panel = new FightsPanel(this);
    panel->setWindowTitle(tr("Fights"));
    // The list, and the table's Fights column of the objects in it.
    const auto refresh = [this, watch, panel] {
        const QList<controller::fieldowner::Fight> fights = watch->current();
        panel->setFights(fights);
        QHash<QString, QStringList> byObject;
        for (const auto &fight : fights)
            byObject[fight.object] << fight.describe();
        m_session->tableModel()->setFights(std::move(byObject));
    };
    connect(watch,
            &controller::console::FightWatch::fightsStarted,
            panel,
            [refresh](const QList<controller::fieldowner::Fight> &started) {
                for (const auto &fight : started)
                    spdlog::warn("field-manager fight on {}: {}",
                                 fight.object.toStdString(),
                                 fight.describe().toStdString());
                refresh();
            });
    connect(watch, &controller::console::FightWatch::reset, panel, refresh);
    auto *timer = new QTimer(panel);
    timer->setInterval(5000);
    connect(timer, &QTimer::timeout, panel, refresh);
    timer->start();
    connect(panel, &FightsPanel::objectActivated, this, [this](const QString &key) {
        m_pendingSelection = key;
        selectPendingObject();
    });
    m_fights = watch;
    return panel;
}

void MainWindow::handleProblemSelected(const QString &resource, const QString &key)
{
    m_pendingSelection = key;
    if (resource != m_session->resource().qualifiedName()) {
        if (const auto *watched = m_overview->resource(resource))
            m_session->setResource(watched->resource);
    }
    selectPendingObject();
}

void MainWindow::handleOverviewResourceSelected(const QString &resource)
{
    const auto *watched = m_overview->resource(resource);
    if (watched && resource != m_session->resource().qualifiedName())
        m_session->setResource(watched->resource);
}

void MainWindow::selectPendingObject()
{
    if (!m_pendingSelection.isEmpty() && m_table->selectKey(m_pendingSelection))
        m_pendingSelection.clear();
}

} // namespace reconscope::ui
