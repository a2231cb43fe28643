#pragma once

#include <QByteArray>
#include <QHash>
#include <QMainWindow>

class QActionGroup;
class QDockWidget;
class QSplitter;
class QStackedWidget;

namespace reconscope::controller::console {
class ConsoleSession;
class CrdOverview;
class FightWatch;
} // namespace reconscope::controller::console

namespace reconscope::ui {

class ContextPicker;
class DetailPane;
class ResourceBrowser;
class ReconcilerPanel;
class ResourceTablePanel;
class StateGraphPanel;
class ConsoleStatusBar;
class LabsArea;
class LogPane;
class PatchLabPanel;
class OverviewPanel;
class ProblemsPanel;
class RecordingActions;
class RawApiConsole;
class ScenarioPanel;

// The main window only composes panels (docks, splitters, the labs area) and wires the selection
// between them; each panel brings its own actions, which appear in the panel's menu.
//
// Two workspaces (View menu, Ctrl+1 / Ctrl+2, the switch at the menu bar's right): Operator — the
// context and resource browser and the scenario on the left, the table over the state graph,
// details and reconciler on the right — and Labs — the same left column, the table (to pick the
// object the labs act on) over the labs area (patch lab, raw API, conflict lab, boundary verifier,
// log), no right-hand docks. Each workspace keeps its own dock layout while the other is shown.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    static constexpr int MaxDockMinimumWidth = 560;
    enum class Workspace { Operator, Labs };

    explicit MainWindow(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~MainWindow() override;

    ContextPicker *contextPicker() const { return m_contextPicker; }
    ResourceBrowser *resourceBrowser() const { return m_browser; }
    ResourceTablePanel *tablePanel() const { return m_table; }
    StateGraphPanel *graphPanel() const { return m_graph; }
    DetailPane *detailPane() const { return m_detail; }
    ReconcilerPanel *reconcilerPanel() const { return m_reconciler; }
    ConsoleStatusBar *consoleStatusBar() const { return m_statusBar; }
    LabsArea *labsArea() const { return m_labs; }
    PatchLabPanel *patchLab() const;
    RawApiConsole *rawApiConsole() const;
    LogPane *logPane() const;
    ScenarioPanel *scenarioPanel() const { return m_scenario; }
    // Every custom resource at once (mainwindowoverview.cpp): the overview and its panels.
    controller::console::CrdOverview *overview() const { return m_overview; }
    ProblemsPanel *problemsPanel() const { return m_problems; }
    // Field-manager fights among the watched objects (the Fights dock reads it).
    controller::console::FightWatch *fightWatch() const { return m_fights; }
    OverviewPanel *overviewPanel() const { return m_overviewPanel; }
    // File → Open Recording…, Record…, Stop Recording.
    RecordingActions *recordingActions() const { return m_recording; }
    // The dock holding this panel (null for the table, the graph and the labs).
    QDockWidget *dockOf(const QWidget *panel) const;

    Workspace workspace() const { return m_workspace; }
    void showWorkspace(Workspace workspace);
    QAction *workspaceAction(Workspace workspace) const;
    // Shows a panel wherever it lives (its workspace, its dock raised, its lab tab) and returns
    // it; "window"/"operator" and "labs" give the window in that workspace. Null for a name not
    // in panelNames().
    QWidget *showPanel(const QString &name);
    static QStringList panelNames();
    QAction *newObjectAction() const { return m_newObject; }
    QAction *editYamlAction() const { return m_editYaml; }
    // Opens the "New CustomApp" dialog / the YAML editor on the selected object (non-modal; null
    // when nothing is selected).
    class CustomAppDialog *openNewObjectDialog();
    class YamlEditor *openYamlEditor();

protected:
    void showEvent(QShowEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QDockWidget *addDock(QWidget *panel, Qt::DockWidgetArea area);
    void handleObjectSelected(const QString &key);
    // The overview's docks (mainwindowoverview.cpp).
    void addOverviewPanels();
    QWidget *addFightsPanel(); // the Fights dock's panel, fed by a FightWatch
    // A problem's object: its resource watched, then its row selected once it is listed.
    void handleProblemSelected(const QString &resource, const QString &key);
    void selectPendingObject();
    // A resource chosen in the overview: watched, its rows in the table.
    void handleOverviewResourceSelected(const QString &resource);
    void buildViewMenu(QMenu *viewMenu);
    // The first visible docked dock of the left and of the right column.
    QList<QDockWidget *> sideColumnDocks() const;

    controller::console::ConsoleSession *m_session;
    ContextPicker *m_contextPicker;
    ResourceBrowser *m_browser;
    ResourceTablePanel *m_table;
    StateGraphPanel *m_graph;
    DetailPane *m_detail;
    ReconcilerPanel *m_reconciler;
    ConsoleStatusBar *m_statusBar;
    ScenarioPanel *m_scenario;
    LabsArea *m_labs;
    QStackedWidget *m_centre;
    QSplitter *m_operatorSplitter;
    QSplitter *m_labsSplitter;
    QList<QDockWidget *> m_docks;
    QDockWidget *m_detailDock = nullptr;
    QDockWidget *m_reconcilerDock = nullptr;
    QDockWidget *m_scenarioDock = nullptr;
    QActionGroup *m_workspaceGroup;
    Workspace m_workspace = Workspace::Operator;
    bool m_sized = false;
    // The side columns follow the window's width (eventFilter): each dock's share of it, at the
    // width the window last settled at.
    QHash<const QDockWidget *, double> m_columnShares;
    int m_settledWidth = 0;
    bool m_windowResizing = false;
    QByteArray m_savedLayout[2]; // each workspace's dock layout while the other is shown
    QAction *m_newObject;
    QAction *m_editYaml;
    controller::console::CrdOverview *m_overview = nullptr;
    ProblemsPanel *m_problems = nullptr;
    controller::console::FightWatch *m_fights = nullptr;
    QDockWidget *m_problemsDock = nullptr;
    QList<QDockWidget *> m_overviewDocks; // the bottom ones: problems, all resources, latency
    OverviewPanel *m_overviewPanel = nullptr;
    QString m_pendingSelection; // the object to select once its resource's rows arrive
    RecordingActions *m_recording;
};

} // namespace reconscope::ui
