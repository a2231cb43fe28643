#pragma once

#include "models/problems.h"

#include <QWidget>

class QLabel;
class QTimer;
class QTreeView;

namespace reconscope::models {
class ProblemListModel;
}

namespace reconscope::controller::console {
class CrdOverview;
}

namespace reconscope::ui {

// The Problems list (issue 23) across every custom resource the overview watches: Degraded,
// deletions waiting, stale statuses, objects no controller has acted on, most severe first and
// oldest first within a kind, each with its cause. Refreshed as objects change and every second
// (ages grow, thresholds pass). Selecting a row asks for its object (objectSelected).
class ProblemsPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProblemsPanel)

public:
    explicit ProblemsPanel(controller::console::CrdOverview *overview, QWidget *parent = nullptr);
    ~ProblemsPanel() override;

    void setThresholds(const models::ProblemThresholds &thresholds);
    const models::ProblemThresholds &thresholds() const { return m_thresholds; }
    // The list again, at the overview's clock's now.
    void refresh();

    QTreeView *view() const { return m_view; }
    models::ProblemListModel *model() const { return m_model; }
    QLabel *summaryLabel() const { return m_summary; }

signals:
    // A problem's object was selected: the resource's qualified name and the object's key.
    void objectSelected(const QString &resource, const QString &key);

private:
    void handleCurrentChanged();

    controller::console::CrdOverview *m_overview;
    models::ProblemThresholds m_thresholds;
    models::ProblemListModel *m_model;
    QTreeView *m_view;
    QLabel *m_summary;
    QTimer *m_refreshTimer; // every second
    QTimer *m_changeTimer; // coalesces the overview's ticks
};

} // namespace reconscope::ui
