#pragma once

#include "models/transitionlog.h"

#include <QAbstractTableModel>
#include <QList>

namespace reconscope::models {

// The transitions of one object (or of a whole resource), oldest first: time, from -> to, reason,
// generation / observedGeneration, and whether the edge is on the designed graph; the census entry
// (observed at connect) and moves across a watch gap are said to be so. New transitions
// are appended; beyond `limit` rows the oldest are removed.
class TransitionTimelineModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TransitionTimelineModel)

public:
    enum Column {
        TimeColumn,
        KeyColumn,
        FromColumn,
        ToColumn,
        ReasonColumn,
        GenerationColumn,
        ColumnCount
    };
    enum Role {
        OnDesignRole = Qt::UserRole + 1, // bool
    };

    explicit TransitionTimelineModel(int limit = TransitionLog::DefaultHistoryLimit,
                                     QObject *parent = nullptr);
    ~TransitionTimelineModel() override;

    void setTransitions(const QList<Transition> &transitions);
    void append(const QList<Transition> &transitions);
    void clear() { setTransitions({}); }
    const QList<Transition> &transitions() const { return m_transitions; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    // The reason, said to be off-design, observed at connect or across a gap when it is.
    static QString reasonText(const Transition &transition);

    int m_limit;
    QList<Transition> m_transitions;
};

} // namespace reconscope::models
