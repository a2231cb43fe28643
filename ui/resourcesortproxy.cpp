#include "ui/resourcesortproxy.h"

#include "models/resourcetablemodel.h"

namespace reconscope::ui {

using models::ResourceRow;
using models::ResourceTableModel;

namespace {

// -1, 0, 1 like QString::compare.
template<typename T>
int compareValues(const T &a, const T &b)
{
    return a < b ? -1 : (b < a ? 1 : 0);
}

} // namespace

ResourceSortProxy::ResourceSortProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{ }

ResourceSortProxy::~ResourceSortProxy() = default;

void ResourceSortProxy::setSourceModel(QAbstractItemModel *model)
{
    m_table = qobject_cast<const ResourceTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

bool ResourceSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const ResourceRow *a = m_table && sortRole() == ResourceTableModel::SortRole
        ? m_table->rowAt(left.row())
        : nullptr;
    const ResourceRow *b = a ? m_table->rowAt(right.row()) : nullptr;
    if (!a || !b || left.column() != right.column())
        return QSortFilterProxyModel::lessThan(left, right);
    const Qt::CaseSensitivity cs = sortCaseSensitivity();
    int order = 0;
    switch (left.column()) {
    case ResourceTableModel::NameColumn:
        order = isSortLocaleAware() ? a->summary.name.localeAwareCompare(b->summary.name)
                                    : a->summary.name.compare(b->summary.name, cs);
        break;
    case ResourceTableModel::NamespaceColumn:
        order = isSortLocaleAware()
            ? a->summary.namespaceName.localeAwareCompare(b->summary.namespaceName)
            : a->summary.namespaceName.compare(b->summary.namespaceName, cs);
        break;
    case ResourceTableModel::StateColumn:
        order = compareValues(int(a->verdict.state), int(b->verdict.state));
        break;
    case ResourceTableModel::GenerationColumn:
        order
            = compareValues(a->summary.generation.value_or(-1), b->summary.generation.value_or(-1));
        break;
    case ResourceTableModel::AgeColumn: {
        // Oldest first when ascending, as SortRole gives it.
        auto age = [](const ResourceRow *row) {
            return row->summary.creationTimestamp.isValid()
                ? -row->summary.creationTimestamp.toMSecsSinceEpoch()
                : qint64(0);
        };
        order = compareValues(age(a), age(b));
        break;
    }
    case ResourceTableModel::LastTransitionColumn: {
        auto moved = [](const ResourceRow *row) {
            return row->lastTransition.isValid() ? row->lastTransition.toMSecsSinceEpoch()
                                                 : qint64(0);
        };
        order = compareValues(moved(a), moved(b));
        break;
    }
    default:
        return QSortFilterProxyModel::lessThan(left, right);
    }
    return order < 0;
}

bool ResourceSortProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (filterRegularExpression().pattern().isEmpty())
        return true;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace reconscope::ui
