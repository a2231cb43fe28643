#pragma once

#include <QWidget>

class QGraphicsView;
class QLabel;
class QTimer;
class QTreeWidget;

namespace reconscope::controller::console {
class CrdOverview;
}

namespace reconscope::ui {

class StateGraphScene;

// All custom resources at once (issue 23): one row per resource the overview watches with its
// objects per lifecycle state, the sum of all on top, and the state graph of the row selected —
// the aggregated graph of every resource for the top row. Selecting a resource's row narrows the
// graph to it and asks for it to be watched (resourceSelected).
class OverviewPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OverviewPanel)

public:
    explicit OverviewPanel(controller::console::CrdOverview *overview, QWidget *parent = nullptr);
    ~OverviewPanel() override;

    QTreeWidget *table() const { return m_table; }
    StateGraphScene *scene() const { return m_scene; }
    // The resource whose graph is shown; empty for all of them.
    QString shownResource() const { return m_shown; }
    // Shows the resource's graph (empty: all), selecting its row.
    void showResource(const QString &qualifiedName);
    void refresh();

signals:
    void resourceSelected(const QString &qualifiedName);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void rebuildRows();
    void handleCurrentChanged();
    void refreshGraph();

    controller::console::CrdOverview *m_overview;
    QTreeWidget *m_table;
    StateGraphScene *m_scene;
    QGraphicsView *m_view;
    QLabel *m_title;
    QTimer *m_changeTimer; // coalesces the overview's ticks
    QString m_shown;
};

} // namespace reconscope::ui
