#pragma once

#include <QWidget>

class QAction;
class QTabWidget;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

class ConflictLabPanel;
class LintPanel;
class LogPane;
class PatchLabPanel;
class RawApiConsole;

// The console's experiments and tools, apart from the operator view: patch lab, raw API console,
// conflict lab, boundary verifier and the log, as tabs. Each tab has an action (Alt+1…Alt+5) that
// shows it; the window puts them in its View menu and switches to the Labs workspace when one is
// triggered (showRequested). The selected object reaches the labs that act on one.
class LabsArea final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LabsArea)

public:
    // A lab whose panel needs more width than this scrolls inside its tab instead of widening the
    // window's centre.
    static constexpr int MaxTabMinimumWidth = 720;

    explicit LabsArea(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~LabsArea() override;

    PatchLabPanel *patchLab() const { return m_patchLab; }
    RawApiConsole *rawApiConsole() const { return m_rawApi; }
    ConflictLabPanel *conflictLab() const { return m_conflictLab; }
    LintPanel *lintPanel() const { return m_lint; }
    LogPane *logPane() const { return m_log; }
    QTabWidget *tabs() const { return m_tabs; }
    // One action per lab, in tab order ("Patch Lab", Alt+1, …).
    QList<QAction *> showActions() const { return m_showActions; }

    // Raises the tab holding this panel (one of the getters above); false for any other widget.
    bool showPanel(QWidget *panel);
    // By the panel's object name or window title, case-insensitive: "patch", "raw", "conflict",
    // "lint"/"boundary", "log" also match.
    QWidget *panelNamed(const QString &name) const;
    void setSelectedObject(const QString &key);

signals:
    // A lab's action was triggered: the window should show this area.
    void showRequested();

private:
    void addLab(QWidget *panel, const QString &shortName);

    QTabWidget *m_tabs;
    PatchLabPanel *m_patchLab;
    RawApiConsole *m_rawApi;
    ConflictLabPanel *m_conflictLab;
    LintPanel *m_lint;
    LogPane *m_log;
    QList<QAction *> m_showActions;
    QList<QPair<QString, QWidget *>> m_shortNames;
};

} // namespace reconscope::ui
