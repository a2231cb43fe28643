#pragma once

#include "controller/labs/conflictlab.h"

#include <QList>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QChartView;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

class WriteGate;

// The conflict lab (the seed's opening story): pick designs (a) separated + PUT /status, (b)
// separated + merge patch /status, (c) mixed spec with full-object PUTs, seconds and objects; run
// them one after the other against the session's cluster, asynchronously (the lab is event-driven
// on the UI thread's loop, never blocking it). Progress while it runs; then a table of the figures
// per design and writer and a bar chart of 409s, lost updates, generation bumps and reconciles.
// On a real cluster the lab writes only when the context's write switch is on, and the requests
// it will send are shown before it runs.
class ConflictLabPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConflictLabPanel)

public:
    enum Column {
        DesignColumn,
        WriterColumn,
        ConflictsColumn,
        WritesColumn,
        LostColumn,
        GenerationColumn,
        ReconcilesColumn,
        ErrorsColumn,
        ApplyConflictsColumn,
        OwnershipChangesColumn,
        FightsColumn, // the design's field-manager fights, on both writers' rows
        ColumnCount
    };

    explicit ConflictLabPanel(controller::console::ConsoleSession *session,
                              QWidget *parent = nullptr);
    ~ConflictLabPanel() override;

    void setDesigns(const QList<controller::labs::ConflictDesign> &designs);
    QList<controller::labs::ConflictDesign> designs() const;
    void setSeconds(double seconds);
    void setObjects(int objects);

    // Starts the selected designs; false (and a message in the status line) when it cannot. On a
    // real cluster the write gate asks for confirmation of the lab's requests first.
    bool run();
    void cancel();
    bool isRunning() const { return m_lab != nullptr; }

    const QList<controller::labs::ConflictLabResult> &results() const { return m_results; }
    QPushButton *runButton() const { return m_run; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *statusLabel() const { return m_status; }
    // The running design's counters, updated while it runs.
    QLabel *liveLabel() const { return m_live; }
    QTableWidget *resultsTable() const { return m_table; }
    QChartView *chartView() const { return m_chartView; }
    QPlainTextEdit *requestsView() const { return m_requests; }
    WriteGate *writeGate() const { return m_gate; }

signals:
    void runFinished();

private:
    controller::labs::ConflictLabOptions optionsFor(controller::labs::ConflictDesign design) const;
    void startRun(const QList<controller::labs::ConflictDesign> &designs);
    void startNext();
    void handleProgress(double fraction, const QString &text);
    void handleFinished(const controller::labs::ConflictLabResult &result);
    void handleFigures(const controller::labs::ConflictLabResult &figures);
    void updateWriteState();
    void updateRequests();
    void showResults();

    controller::console::ConsoleSession *m_session;
    QCheckBox *m_designBoxes[5];
    QDoubleSpinBox *m_seconds;
    QSpinBox *m_objects;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QProgressBar *m_progress;
    QLabel *m_status;
    QLabel *m_live;
    QLabel *m_writeHint;
    QPlainTextEdit *m_requests;
    QTableWidget *m_table;
    QChartView *m_chartView;
    WriteGate *m_gate;

    QList<controller::labs::ConflictDesign> m_pending;
    int m_total = 0;
    QPointer<controller::labs::ConflictLab> m_lab;
    QList<controller::labs::ConflictLabResult> m_results;
};

} // namespace reconscope::ui
