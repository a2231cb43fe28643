#include "models/scenariotimelinemodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

QString minutesAndSeconds(qint64 ms)
{
    const qint64 seconds = ms / 1000;
    return u"%1:%2"_s.arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

ScenarioTimelineModel::ScenarioTimelineModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

ScenarioTimelineModel::~ScenarioTimelineModel() = default;

void ScenarioTimelineModel::setScenario(const Scenario &scenario)
{
    beginResetModel();
    m_scenario = scenario;
    m_outcomes = QList<Outcome>(scenario.steps.size());
    m_waitedMs = QList<qint64>(scenario.steps.size(), 0);
    m_current = -1;
    endResetModel();
}

void ScenarioTimelineModel::resetOutcomes()
{
    if (m_outcomes.isEmpty())
        return;
    for (Outcome &outcome : m_outcomes)
        outcome = Outcome();
    m_waitedMs.fill(0);
    m_current = -1;
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void ScenarioTimelineModel::setRunning(int step)
{
    if (step < 0 || step >= m_outcomes.size())
        return;
    const int previous = m_current;
    m_current = step;
    m_outcomes[step] = { StepState::Running, QString() };
    if (previous >= 0 && previous != step)
        changed(previous);
    changed(step);
}

void ScenarioTimelineModel::setFinished(int step, bool ok, const QString &message)
{
    if (step < 0 || step >= m_outcomes.size())
        return;
    m_outcomes[step] = { ok ? StepState::Done : StepState::Failed, message };
    changed(step);
}

void ScenarioTimelineModel::setWaited(int step, qint64 ms)
{
    if (step < 0 || step >= m_waitedMs.size() || m_waitedMs[step] == ms)
        return;
    m_waitedMs[step] = ms;
    // Every later step moves.
    if (step + 1 < rowCount())
        emit dataChanged(index(step + 1, AtColumn), index(rowCount() - 1, AtColumn));
}

qint64 ScenarioTimelineModel::waited(int step) const
{
    return step >= 0 && step < m_waitedMs.size() ? m_waitedMs[step] : 0;
}

qint64 ScenarioTimelineModel::startMs(int step) const
{
    qint64 waitedBefore = 0;
    for (int i = 0; i < step && i < m_waitedMs.size(); ++i)
        waitedBefore += m_waitedMs[i];
    return m_scenario.startOf(step) + waitedBefore;
}

ScenarioTimelineModel::StepState ScenarioTimelineModel::state(int step) const
{
    return step >= 0 && step < m_outcomes.size() ? m_outcomes[step].state : StepState::Pending;
}

QString ScenarioTimelineModel::message(int step) const
{
    return step >= 0 && step < m_outcomes.size() ? m_outcomes[step].message : QString();
}

void ScenarioTimelineModel::changed(int step)
{
    emit dataChanged(index(step, 0), index(step, ColumnCount - 1));
}

int ScenarioTimelineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_scenario.steps.size());
}

int ScenarioTimelineModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScenarioTimelineModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ScenarioStep &step = m_scenario.steps[index.row()];
    const Outcome &outcome = m_outcomes[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AtColumn:
            return minutesAndSeconds(startMs(index.row()));
        case StepColumn:
            return step.title;
        case ExpectColumn:
            return step.expect;
        case ResultColumn:
            switch (outcome.state) {
            case StepState::Pending:
                return QString();
            case StepState::Running:
                return u"…"_s;
            case StepState::Done:
                return u"✓"_s;
            case StepState::Failed:
                return u"✗"_s; // a mark, as for Done: the message is the tooltip
            }
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == AtColumn) {
            const qint64 planned = m_scenario.startOf(index.row());
            const qint64 start = startMs(index.row());
            if (start == planned)
                return tr("Planned at %1 of scenario time").arg(minutesAndSeconds(planned));
            return tr("Planned at %1 of scenario time; %2 later because of the waits before it")
                .arg(minutesAndSeconds(planned), minutesAndSeconds(start - planned));
        }
        if (index.column() == ResultColumn && !outcome.message.isEmpty())
            return outcome.message;
        return step.expect.isEmpty() ? step.title : step.title + u"\n"_s + step.expect;
    case Qt::FontRole:
        if (index.row() == m_current) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        if (outcome.state == StepState::Failed)
            return QBrush(QColor(0xb7, 0x1c, 0x1c));
        if (outcome.state == StepState::Pending)
            return QBrush(QColor(0x61, 0x61, 0x61));
        return {};
    case Qt::BackgroundRole:
        if (index.row() == m_current)
            return QBrush(QColor(0xe3, 0xf2, 0xfd));
        return {};
    case StepStateRole:
        return int(outcome.state);
    default:
        return {};
    }
}

QVariant ScenarioTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case AtColumn:
        return tr("At");
    case StepColumn:
        return tr("Step");
    case ExpectColumn:
        return tr("Expected");
    case ResultColumn:
        return tr("Result");
    default:
        return {};
    }
}

} // namespace reconscope::models
