#pragma once

#include "models/transitionlog.h"

#include <QDateTime>
#include <QWidget>

#include <functional>

class QAction;
class QGraphicsView;
class QTimer;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::models {
class LifecycleTracker;
}

namespace reconscope::ui {

class StateGraphScene;

// The live state graph of the watched resource: the scene in a view that keeps it fitted, fed by
// the session's tracker (counts and counters every tick, an animation per transition), plus its
// actions: aggregate/object mode and export as SVG or PNG.
class StateGraphPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StateGraphPanel)

public:
    explicit StateGraphPanel(controller::console::ConsoleSession *session,
                             QWidget *parent = nullptr);
    // What the panel draws: a tracker, and the time its figures are for (time in state).
    struct Source
    {
        std::function<const models::LifecycleTracker &()> tracker;
        std::function<QDateTime()> now;
    };
    // Fed by the owner, which calls handleTransitions() and refresh() (a replay).
    explicit StateGraphPanel(Source source, QWidget *parent = nullptr);
    ~StateGraphPanel() override;

    StateGraphScene *scene() const { return m_scene; }
    QGraphicsView *view() const { return m_view; }
    QAction *objectModeAction() const { return m_objectMode; }

    // The object whose path is highlighted ("" for none).
    void setSelectedObject(const QString &key);
    QString selectedObject() const { return m_selectedKey; }
    // Export by file suffix (.svg or .png).
    bool exportTo(const QString &fileName);
    // New transitions: the figures, an animation per transition, the selected path.
    void handleTransitions(const QList<models::Transition> &transitions);
    // The tracker changed without transitions to show (cleared, or a replay's seek).
    void refresh();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refreshStatistics();
    void refreshSelection();
    void fit();
    void exportInteractively(const QString &suffix);

    Source m_source;
    StateGraphScene *m_scene;
    QGraphicsView *m_view;
    QAction *m_objectMode;
    QTimer *m_clockTimer;
    QString m_selectedKey;
    QRectF m_fitted;
};

} // namespace reconscope::ui
