#pragma once

#include "models/problems.h"

#include <QAbstractTableModel>
#include <QDateTime>

namespace reconscope::models {

// The Problems list as rows: kind, resource, object, how long, cause. A new list whose rows are
// the same problems in the same order only changes data (dataChanged: ages and causes move on);
// rows that appear or vanish are inserted or removed where they are, so a selection survives.
class ProblemListModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProblemListModel)

public:
    enum Column { KindColumn, ResourceColumn, ObjectColumn, AgeColumn, CauseColumn, ColumnCount };
    enum Role {
        ResourceRole = Qt::UserRole + 1, // the resource's qualified name
        KeyRole, // "namespace/name"
        KindRole, // int(ProblemKind)
    };

    explicit ProblemListModel(QObject *parent = nullptr);
    ~ProblemListModel() override;

    void setProblems(const QList<Problem> &problems, const QDateTime &now);
    const QList<Problem> &problems() const { return m_problems; }
    // The row of the resource's object, -1 when it is not listed.
    int rowOf(const QString &resource, const QString &key) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<Problem> m_problems;
    QDateTime m_now;
};

} // namespace reconscope::models
