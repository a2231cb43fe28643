#include "models/conditionsmodel.h"

#include "models/rfc3339.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace reconscope::models {

ConditionsModel::ConditionsModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

ConditionsModel::~ConditionsModel() = default;

void ConditionsModel::setConditions(const ConditionList &conditions,
                                    std::optional<qint64> generation)
{
    m_generation = generation;
    // Remove the types that are gone (from the bottom), update the ones that stay, append the new
    // ones: the order of the object's list is kept for rows that stay.
    for (int row = int(m_conditions.size()) - 1; row >= 0; --row) {
        if (!findStatusCondition(conditions, m_conditions[row].type)) {
            beginRemoveRows({}, row, row);
            m_conditions.removeAt(row);
            endRemoveRows();
        }
    }
    ConditionList added;
    for (const Condition &condition : conditions) {
        if (Condition *existing = findStatusCondition(m_conditions, condition.type))
            *existing = condition;
        else if (!findStatusCondition(added, condition.type))
            added.append(condition);
    }
    if (!m_conditions.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_conditions.size()) - 1, ColumnCount - 1));
    if (!added.isEmpty()) {
        const int first = int(m_conditions.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_conditions.append(added);
        endInsertRows();
    }
}

bool ConditionsModel::isStale(const Condition &condition) const
{
    return m_generation && condition.observedGeneration > 0
        && condition.observedGeneration < *m_generation;
}

int ConditionsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_conditions.size());
}

int ConditionsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConditionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Condition &condition = m_conditions[index.row()];
    switch (role) {
    case StaleRole:
        return isStale(condition);
    case Qt::DisplayRole:
        switch (index.column()) {
        case TypeColumn:
            return condition.type;
        case StatusColumn:
            return condition.status;
        case ReasonColumn:
            return condition.reason;
        case MessageColumn:
            return condition.message;
        case LastTransitionColumn:
            return condition.lastTransitionTime.isValid()
                ? formatRfc3339(condition.lastTransitionTime)
                : QString();
        case ObservedGenerationColumn:
            return condition.observedGeneration > 0 ? QString::number(condition.observedGeneration)
                                                    : QString();
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == MessageColumn)
            return condition.message;
        if (index.column() == ObservedGenerationColumn && isStale(condition))
            return tr("Stale: the object is at generation %1").arg(m_generation.value_or(0));
        break;
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn) {
            if (condition.isTrue())
                return QBrush(QColor(0x1b, 0x7f, 0x3b));
            if (condition.isFalse())
                return QBrush(QColor(0xb3, 0x26, 0x1e));
        }
        if (index.column() == ObservedGenerationColumn && isStale(condition))
            return QBrush(QColor(0xa3, 0x5b, 0x00));
        break;
    }
    return {};
}

QVariant ConditionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TypeColumn:
        return tr("Type");
    case StatusColumn:
        return tr("Status");
    case ReasonColumn:
        return tr("Reason");
    case MessageColumn:
        return tr("Message");
    case LastTransitionColumn:
        return tr("Last transition");
    case ObservedGenerationColumn:
        return tr("Obs. gen");
    }
    return {};
}

} // namespace reconscope::models
