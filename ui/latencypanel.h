#pragma once

#include <QWidget>

class QBarSeries;
class QBarCategoryAxis;
class QChart;
class QTimer;
class QTreeWidget;
class QValueAxis;

namespace reconscope::controller::console {
class CrdOverview;
}

namespace reconscope::ui {

// Reconcile latency (issue 23) across every custom resource the overview watches: per resource
// the p50, p95 and p99 of spec change -> Ready or Degraded, as bars, and the slowest objects with
// both of their latencies (status caught up, settled). Refreshed every two seconds.
class LatencyPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LatencyPanel)

public:
    static constexpr int SlowestShown = 10;

    explicit LatencyPanel(controller::console::CrdOverview *overview, QWidget *parent = nullptr);
    ~LatencyPanel() override;

    void refresh();
    QChart *chart() const { return m_chart; }
    QBarSeries *series() const { return m_series; }
    QTreeWidget *slowestTable() const { return m_slowest; }

private:
    controller::console::CrdOverview *m_overview;
    QChart *m_chart;
    QBarSeries *m_series;
    QBarCategoryAxis *m_categories;
    QValueAxis *m_seconds;
    QTreeWidget *m_slowest;
    QTimer *m_timer;
};

} // namespace reconscope::ui
