#include "models/plannedchangesmodel.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::models {

namespace {

QString compact(const json &value)
{
    return QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

} // namespace

QList<PlannedChange>
plannedChanges(const QString &verb, const QString &path, const json &patch, const json &before)
{
    QList<PlannedChange> rows;
    if (!patch.is_array() || patch.empty()) {
        rows.append({ verb, path, QString(), QString(), QString(), QString() });
        return rows;
    }
    for (const json &operation : patch) {
        if (!operation.is_object())
            continue;
        PlannedChange change;
        change.verb = verb;
        change.path = path;
        change.op = QString::fromStdString(operation.value("op", std::string()));
        const std::string pointer = operation.value("path", std::string());
        change.field = pointer.empty() ? u"/"_s : QString::fromStdString(pointer);
        if (operation.contains("value"))
            change.after = compact(operation["value"]);
        if (change.op != u"add" && before.is_object()) {
            try {
                const json::json_pointer where(pointer);
                if (before.contains(where))
                    change.before = compact(before.at(where));
            } catch (const json::exception &) {
                // Not a pointer into this object: the value before stays unknown.
            }
        }
        rows.append(std::move(change));
    }
    return rows;
}

QString plannedChangesText(const QList<PlannedChange> &changes)
{
    QString text;
    QString request;
    for (const PlannedChange &change : changes) {
        const QString line = change.verb + u' ' + change.path;
        if (line != request) {
            if (!text.isEmpty())
                text += u'\n';
            text += line + u'\n';
            request = line;
        }
        if (change.op.isEmpty())
            continue;
        if (!change.before.isEmpty())
            text += u"- %1: %2\n"_s.arg(change.field, change.before);
        if (change.op != u"remove")
            text += u"+ %1: %2\n"_s.arg(change.field, change.after);
        else if (change.before.isEmpty())
            text += u"- %1\n"_s.arg(change.field);
    }
    return text;
}

PlannedChangesModel::PlannedChangesModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

PlannedChangesModel::~PlannedChangesModel() = default;

void PlannedChangesModel::setChanges(const QList<PlannedChange> &changes)
{
    beginResetModel();
    m_changes = changes;
    endResetModel();
}

int PlannedChangesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_changes.size());
}

int PlannedChangesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlannedChangesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PlannedChange &change = m_changes[index.row()];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case RequestColumn:
            return change.verb + u' ' + change.path;
        case OpColumn:
            return change.op;
        case FieldColumn:
            return change.field;
        case BeforeColumn:
            return change.before;
        case AfterColumn:
            return change.after;
        default:
            return {};
        }
    case Qt::ForegroundRole:
        if (index.column() == BeforeColumn)
            return QBrush(QColor(0xb7, 0x1c, 0x1c));
        if (index.column() == AfterColumn)
            return QBrush(QColor(0x1b, 0x5e, 0x20));
        return {};
    default:
        return {};
    }
}

QVariant PlannedChangesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RequestColumn:
        return tr("Request");
    case OpColumn:
        return tr("Op");
    case FieldColumn:
        return tr("Field");
    case BeforeColumn:
        return tr("Now");
    case AfterColumn:
        return tr("Would be");
    default:
        return {};
    }
}

} // namespace reconscope::models
