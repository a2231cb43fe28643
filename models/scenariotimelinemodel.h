#pragma once

#include "models/scenario.h"

#include <QAbstractTableModel>

namespace reconscope::models {

// The steps of a scenario as a timeline: when each starts (scenario time), what it does, what
// should follow, and how it went. The player's progress is applied with the set* calls; the rows
// stay (a replay only resets their outcome).
class ScenarioTimelineModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ScenarioTimelineModel)

public:
    enum Column { AtColumn, StepColumn, ExpectColumn, ResultColumn, ColumnCount };
    enum class StepState { Pending, Running, Done, Failed };
    enum Role { StepStateRole = Qt::UserRole + 1 };

    explicit ScenarioTimelineModel(QObject *parent = nullptr);
    ~ScenarioTimelineModel() override;

    void setScenario(const Scenario &scenario);
    const Scenario &scenario() const { return m_scenario; }
    // Every outcome back to Pending (a new round).
    void resetOutcomes();
    void setRunning(int step);
    void setFinished(int step, bool ok, const QString &message);
    // How long a waitFor step has waited (so far, or in all): the steps after it start that much
    // later than planned, and their "At" says so.
    void setWaited(int step, qint64 ms);
    qint64 waited(int step) const;
    // When the step starts: its planned scenario time plus what the waits before it took.
    qint64 startMs(int step) const;
    StepState state(int step) const;
    QString message(int step) const;
    int currentStep() const { return m_current; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Outcome
    {
        StepState state = StepState::Pending;
        QString message;
    };
    void changed(int step);

    Scenario m_scenario;
    QList<Outcome> m_outcomes;
    QList<qint64> m_waitedMs; // per step, kept apart from the outcome (setRunning resets that)
    int m_current = -1;
};

} // namespace reconscope::models
