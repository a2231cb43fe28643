#pragma once

#include "models/condition.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <optional>

namespace reconscope::models {

// The status conditions of one object: type, status, reason, message, lastTransitionTime and
// observedGeneration (flagged when it lags metadata.generation). Updating the same object keeps
// rows of unchanged types in place (dataChanged); only the types that appear or vanish are inserted
// or removed.
class ConditionsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConditionsModel)

public:
    enum Column {
        TypeColumn,
        StatusColumn,
        ReasonColumn,
        MessageColumn,
        LastTransitionColumn,
        ObservedGenerationColumn,
        ColumnCount
    };
    enum Role {
        StaleRole = Qt::UserRole + 1, // observedGeneration set and below the object's generation
    };

    explicit ConditionsModel(QObject *parent = nullptr);
    ~ConditionsModel() override;

    void setConditions(const ConditionList &conditions, std::optional<qint64> generation);
    void clear() { setConditions({}, std::nullopt); }
    const ConditionList &conditions() const { return m_conditions; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    bool isStale(const Condition &condition) const;

    ConditionList m_conditions;
    std::optional<qint64> m_generation;
};

} // namespace reconscope::models
