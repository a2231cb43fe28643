#pragma once

#include <nlohmann/json.hpp>

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace reconscope::models {

// One write a reconciler would send, as the console shows it: the request, and its JSON patch
// (RFC 6902, from the object read to the object written) one operation per row, with the value
// the field had before when the caller knows the object written to.
struct PlannedChange
{
    QString verb; // POST, PUT, DELETE
    QString path; // the request path
    QString op; // add, remove, replace (empty: the whole request, e.g. a DELETE)
    QString field; // JSON pointer into the object ("/status/conditions/0/reason")
    QString before; // compact JSON, empty when unknown or absent
    QString after; // compact JSON, empty for remove
};

// Rows for one write. `before` is the object the write starts from when known (null otherwise).
QList<PlannedChange> plannedChanges(const QString &verb,
                                    const QString &path,
                                    const nlohmann::json &patch,
                                    const nlohmann::json &before);
// The rows as a unified-diff-like text ("PUT /apis/...", "- /spec/replicas: 5", "+ ...: 2").
QString plannedChangesText(const QList<PlannedChange> &changes);

class PlannedChangesModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PlannedChangesModel)

public:
    enum Column { RequestColumn, OpColumn, FieldColumn, BeforeColumn, AfterColumn, ColumnCount };

    explicit PlannedChangesModel(QObject *parent = nullptr);
    ~PlannedChangesModel() override;

    void setChanges(const QList<PlannedChange> &changes);
    const QList<PlannedChange> &changes() const { return m_changes; }
    void clear() { setChanges({}); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<PlannedChange> m_changes;
};

} // namespace reconscope::models
