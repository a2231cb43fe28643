// MainWindow's part for every custom resource at once (issue 23): the overview the Problems list
// reads, its dock, and the selection of a problem's object, which may belong to another resource
// than the one watched.
#include "ui/mainwindow.h"

#include "controller/console/consolesession.h"
#include "controller/console/crdoverview.h"
#include "ui/latencypanel.h"
#include "ui/overviewpanel.h"
#include "ui/problemspanel.h"
#include "ui/resourcebrowser.h"
#include "ui/resourcetablepanel.h"

#include <QDockWidget>

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
    tabifyDockWidget(m_problemsDock, overviewDock);
    tabifyDockWidget(overviewDock, latencyDock);
    m_overviewDocks = { m_problemsDock, overviewDock, latencyDock };
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
