#include "models/problemlistmodel.h"

#include <QColor>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

bool sameProblem(const Problem &a, const Problem &b)
{
    return a.kind == b.kind && a.resource == b.resource && a.key == b.key;
}

} // namespace

ProblemListModel::ProblemListModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

ProblemListModel::~ProblemListModel() = default;

void ProblemListModel::setProblems(const QList<Problem> &problems, const QDateTime &now)
{
    m_now = now;
    // Walk both lists: a row of the old list not found at the front of the new one is removed, a
    // row of the new one not in the old one is inserted; kept rows change data only.
    int row = 0;
    for (const Problem &problem : problems) {
        int found = -1;
        for (int i = row; i < m_problems.size(); ++i) {
            if (sameProblem(m_problems[i], problem)) {
                found = i;
                break;
            }
        }
        if (found > row) {
            beginRemoveRows({}, row, found - 1);
            m_problems.remove(row, found - row);
            endRemoveRows();
        }
        if (found < 0) {
            beginInsertRows({}, row, row);
            m_problems.insert(row, problem);
            endInsertRows();
        } else {
            m_problems[row] = problem;
        }
        ++row;
    }
    if (row < m_problems.size()) {
        beginRemoveRows({}, row, int(m_problems.size()) - 1);
        m_problems.remove(row, m_problems.size() - row);
        endRemoveRows();
    }
    if (!m_problems.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_problems.size()) - 1, ColumnCount - 1));
}

int ProblemListModel::rowOf(const QString &resource, const QString &key) const
{
    for (int i = 0; i < m_problems.size(); ++i) {
        if (m_problems[i].resource == resource && m_problems[i].key == key)
            return i;
    }
    return -1;
}

int ProblemListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_problems.size());
}

int ProblemListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Problem &problem = m_problems[index.row()];
    switch (role) {
    case ResourceRole:
        return problem.resource;
    case KeyRole:
        return problem.key;
    case KindRole:
        return int(problem.kind);
    case Qt::ToolTipRole:
        return problem.cause;
    case Qt::ForegroundRole:
        if (index.column() != KindColumn)
            return {};
        // The state chips' accents: Degraded red, Terminating purple, stale amber, Pending grey.
        switch (problem.kind) {
        case ProblemKind::Degraded:
            return QColor(0xc6, 0x28, 0x28);
        case ProblemKind::StuckTerminating:
            return QColor(0x6a, 0x1b, 0x9a);
        case ProblemKind::StaleStatus:
            return QColor(0xb2, 0x6a, 0x00);
        case ProblemKind::LongPending:
            return QColor(0x54, 0x6e, 0x7a);
        }
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case KindColumn:
        return problemKindName(problem.kind);
    case ResourceColumn:
        return problem.resource.section(u'.', 0, 0);
    case ObjectColumn:
        return problem.key;
    case AgeColumn:
        return problem.since.isValid() ? problemAge(problem.since.secsTo(m_now)) : u"?"_s;
    case CauseColumn:
        return problem.cause;
    default:
        return {};
    }
}

QVariant ProblemListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn:
        return tr("Problem");
    case ResourceColumn:
        return tr("Resource");
    case ObjectColumn:
        return tr("Object");
    case AgeColumn:
        return tr("For");
    case CauseColumn:
        return tr("Cause");
    default:
        return {};
    }
}

} // namespace reconscope::models
