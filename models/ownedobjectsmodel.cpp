#include "models/ownedobjectsmodel.h"

#include "models/jsonfields.h"

#include <QBrush>
#include <QColor>
#include <QHash>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::models {

namespace {

void describeWorkload(const json &object, OwnedObject &row)
{
    const json &spec = jsonMember(object, "spec");
    const json &status = jsonMember(object, "status");
    const qint64 desired
        = jsonMember(spec, "replicas").is_number_integer() ? jsonInteger(spec, "replicas") : 1;
    const qint64 ready = jsonInteger(status, "readyReplicas");
    row.status = OwnedObjectsModel::tr("%1/%2 ready").arg(ready).arg(desired);
    row.healthy = ready >= desired;
    for (const json &condition : jsonMember(status, "conditions")) {
        const QString type = jsonString(condition, "type");
        const QString value = jsonString(condition, "status");
        const bool bad = (type == u"ReplicaFailure" && value == u"True")
            || ((type == u"Available" || type == u"Progressing") && value == u"False");
        // The status column stays short; the first failing condition goes to the detail.
        if (bad && row.detail.isEmpty()) {
            row.detail = u"%1 %2: %3"_s.arg(
                type, jsonString(condition, "reason"), jsonString(condition, "message"));
            row.healthy = false;
        } else if (bad) {
            row.healthy = false;
        }
    }
}

void describePod(const json &object, OwnedObject &row)
{
    const json &status = jsonMember(object, "status");
    row.status = jsonString(status, "phase");
    row.healthy = row.status == u"Running" || row.status == u"Succeeded";
    for (const json &container : jsonMember(status, "containerStatuses")) {
        const json &waiting = jsonMember(jsonMember(container, "state"), "waiting");
        if (waiting.is_object()) {
            row.status = jsonString(waiting, "reason");
            row.detail = jsonString(waiting, "message");
            row.healthy = false;
            return;
        }
        if (container.is_object() && container.value("ready", true) == false)
            row.healthy = false;
    }
    if (row.status.isEmpty())
        row.status = OwnedObjectsModel::tr("Pending");
}

} // namespace

QList<OwnedObject> ownedObjects(const QString &ownerUid, const QList<json> &candidates)
{
    // uid -> candidates owned by it
    QHash<QString, QList<const json *>> children;
    for (const json &object : candidates) {
        for (const json &reference : jsonMember(jsonMember(object, "metadata"), "ownerReferences"))
            children[jsonString(reference, "uid")].append(&object);
    }
    QList<OwnedObject> rows;
    QSet<QString> seen{ ownerUid };
    QList<QPair<QString, int>> owners{ { ownerUid, 0 } };
    while (!owners.isEmpty()) {
        const auto [uid, depth] = owners.takeFirst();
        QList<const json *> owned = children.value(uid);
        std::sort(owned.begin(), owned.end(), [](const json *a, const json *b) {
            const auto key = [](const json *o) {
                return jsonString(*o, "kind") + u'/'
                    + jsonString(jsonMember(*o, "metadata"), "name");
            };
            return key(a) < key(b);
        });
        for (const json *object : owned) {
            const json &meta = jsonMember(*object, "metadata");
            const QString childUid = jsonString(meta, "uid");
            if (seen.contains(childUid))
                continue;
            seen.insert(childUid);
            OwnedObject row;
            row.kind = jsonString(*object, "kind");
            row.name = jsonString(meta, "name");
            row.namespaceName = jsonString(meta, "namespace");
            row.depth = depth;
            if (row.kind == u"Pod")
                describePod(*object, row);
            else
                describeWorkload(*object, row);
            if (meta.contains("deletionTimestamp")) {
                row.status = OwnedObjectsModel::tr("Terminating");
                row.healthy = false;
            }
            rows.append(std::move(row));
            if (!childUid.isEmpty())
                owners.append({ childUid, depth + 1 });
        }
    }
    return rows;
}

OwnedObjectsModel::OwnedObjectsModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

OwnedObjectsModel::~OwnedObjectsModel() = default;

void OwnedObjectsModel::setObjects(const QList<OwnedObject> &objects)
{
    const auto same = [](const OwnedObject &a, const OwnedObject &b) {
        return a.kind == b.kind && a.name == b.name && a.namespaceName == b.namespaceName;
    };
    const bool sameRows = objects.size() == m_objects.size()
        && std::equal(objects.begin(), objects.end(), m_objects.begin(), same);
    if (!sameRows) {
        // The selection within this small table is not worth keeping across structural changes.
        beginResetModel();
        m_objects = objects;
        endResetModel();
        return;
    }
    m_objects = objects;
    if (!m_objects.isEmpty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int OwnedObjectsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_objects.size());
}

int OwnedObjectsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OwnedObjectsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OwnedObject &object = m_objects[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KindColumn:
            return QString(object.depth * 2, u' ') + object.kind;
        case NameColumn:
            return object.name;
        case StatusColumn:
            return object.status;
        case DetailColumn:
            return object.detail;
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return object.detail.isEmpty() ? object.status : object.detail;
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn)
            return QBrush(object.healthy ? QColor(0x1b, 0x5e, 0x20) : QColor(0xb7, 0x1c, 0x1c));
        return {};
    default:
        return {};
    }
}

QVariant OwnedObjectsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KindColumn:
        return tr("Kind");
    case NameColumn:
        return tr("Name");
    case StatusColumn:
        return tr("Status");
    case DetailColumn:
        return tr("Detail");
    default:
        return {};
    }
}

} // namespace reconscope::models
