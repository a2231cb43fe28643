#pragma once

#include <QPointer>
#include <QWidget>

class QAction;
class QLabel;
class QTableWidget;
class QTimer;

namespace reconscope::controller::reconcile {
class ControllerLoop;
struct ReconcileRecord;
} // namespace reconscope::controller::reconcile

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// The embedded reconciler's controller loop: run / pause / step, the work queue (state, retries,
// next retry), the selected object's reconcile history (why each run happened, result, writes,
// how the loop handled it), and reconciles and errors per second as a chart.
class ReconcilerPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReconcilerPanel)

public:
    static constexpr int ChartSeconds = 60;

    explicit ReconcilerPanel(controller::console::ConsoleSession *session,
                             QWidget *parent = nullptr);
    ~ReconcilerPanel() override;

    // The loop shown (the session's, or a test's); null shows "no reconciler".
    void setLoop(controller::reconcile::ControllerLoop *loop);
    void setSelectedObject(const QString &key);

    QAction *pauseAction() const { return m_pause; }
    QAction *stepAction() const { return m_step; }
    QTableWidget *queueTable() const { return m_queue; }
    QTableWidget *historyTable() const { return m_history; }
    QLabel *summaryLabel() const { return m_summary; }
    // Finished reconciles (and errors) per second, oldest first, one sample per second.
    const QList<int> &reconcileRate() const { return m_rate; }
    const QList<int> &errorRate() const { return m_errors; }
    void refresh();

private:
    void handleFinished(const controller::reconcile::ReconcileRecord &record);
    void sample();
    void updateChart();

    controller::console::ConsoleSession *m_session;
    QPointer<controller::reconcile::ControllerLoop> m_loop;
    QString m_key;
    QAction *m_pause;
    QAction *m_step;
    QLabel *m_summary;
    QTableWidget *m_queue;
    QTableWidget *m_history;
    QWidget *m_chartView;
    QTimer *m_refreshTimer;
    QTimer *m_sampleTimer;
    int m_finishedThisSecond = 0;
    int m_errorsThisSecond = 0;
    QList<int> m_rate;
    QList<int> m_errors;
    QList<QMetaObject::Connection> m_connections;
};

} // namespace reconscope::ui
