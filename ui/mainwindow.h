#pragma once

#include <QMainWindow>

class QDockWidget;

namespace reconscope::ui {

class ConsoleSession;
class ContextPicker;
class DetailPane;
class ResourceBrowser;
class ReconcilerPanel;
class ResourceTablePanel;
class StateGraphPanel;
class ConsoleStatusBar;
class LogPane;
class PatchLabPanel;
class RawApiConsole;
class ScenarioPanel;

// The main window only composes panels (docks and a splitter) and wires the selection between
// them; each panel brings its own actions, which appear in the panel's menu.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    static constexpr int MaxDockMinimumWidth = 560;

    explicit MainWindow(ConsoleSession *session, QWidget *parent = nullptr);
    ~MainWindow() override;

    ContextPicker *contextPicker() const { return m_contextPicker; }
    ResourceBrowser *resourceBrowser() const { return m_browser; }
    ResourceTablePanel *tablePanel() const { return m_table; }
    StateGraphPanel *graphPanel() const { return m_graph; }
    DetailPane *detailPane() const { return m_detail; }
    ReconcilerPanel *reconcilerPanel() const { return m_reconciler; }
    ConsoleStatusBar *consoleStatusBar() const { return m_statusBar; }
    PatchLabPanel *patchLab() const { return m_patchLab; }
    RawApiConsole *rawApiConsole() const { return m_rawApi; }
    LogPane *logPane() const { return m_logPane; }
    ScenarioPanel *scenarioPanel() const { return m_scenario; }
    QAction *newObjectAction() const { return m_newObject; }
    QAction *editYamlAction() const { return m_editYaml; }
    // Opens the "New CustomApp" dialog / the YAML editor on the selected object (non-modal; null
    // when nothing is selected).
    class CustomAppDialog *openNewObjectDialog();
    class YamlEditor *openYamlEditor();

private:
    QDockWidget *addDock(QWidget *panel, Qt::DockWidgetArea area, QMenu *viewMenu);
    void handleObjectSelected(const QString &key);

    ConsoleSession *m_session;
    ContextPicker *m_contextPicker;
    ResourceBrowser *m_browser;
    ResourceTablePanel *m_table;
    StateGraphPanel *m_graph;
    DetailPane *m_detail;
    ReconcilerPanel *m_reconciler;
    ConsoleStatusBar *m_statusBar;
    PatchLabPanel *m_patchLab = nullptr;
    RawApiConsole *m_rawApi = nullptr;
    LogPane *m_logPane = nullptr;
    ScenarioPanel *m_scenario;
    QAction *m_newObject;
    QAction *m_editYaml;
};

} // namespace reconscope::ui
