#pragma once

#include <nlohmann/json.hpp>

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace reconscope::models {

// An object that belongs to the selected one through ownerReferences, directly (its Deployment)
// or through it (the Deployment's Pods, directly or through a ReplicaSet), with its status in a
// few words.
struct OwnedObject
{
    QString kind;
    QString name;
    QString namespaceName;
    int depth = 0; // 0: owned by the object itself; 1: by one of its owned objects ...
    QString status; // "2/3 ready", "Running", "ImagePullBackOff"
    QString detail; // a failing condition's message, a container's waiting message
    bool healthy = false;
};

// The objects among `candidates` (Deployments, ReplicaSets, Pods ... in any order) owned by the
// object with `ownerUid`, transitively, ordered owner first, then by kind and name.
QList<OwnedObject> ownedObjects(const QString &ownerUid, const QList<nlohmann::json> &candidates);

class OwnedObjectsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OwnedObjectsModel)

public:
    enum Column { KindColumn, NameColumn, StatusColumn, DetailColumn, ColumnCount };

    explicit OwnedObjectsModel(QObject *parent = nullptr);
    ~OwnedObjectsModel() override;

    // Rows that stay (same kind and name) are updated in place, others inserted or removed.
    void setObjects(const QList<OwnedObject> &objects);
    const QList<OwnedObject> &objects() const { return m_objects; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<OwnedObject> m_objects;
};

} // namespace reconscope::models
