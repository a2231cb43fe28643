#include "ui/resourcesortproxy.h"

#include "models/resourcetablemodel.h"

namespace reconscope::ui {

using models::ResourceRow;
using models::ResourceTableModel;

ResourceSortProxy::ResourceSortProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    connect(this, &QSortFilterProxyModel::sortRoleChanged, this, [this] { updateCompareMode(); });
    connect(this, &QSortFilterProxyModel::sortCaseSensitivityChanged, this, [this] {
        updateCompareMode();
    });
    connect(this, &QSortFilterProxyModel::sortLocaleAwareChanged, this, [this] {
        updateCompareMode();
    });
    updateCompareMode();
    m_filterNotifier = bindableFilterRegularExpression().addNotifier([this] {
        const bool unfiltered = filterRegularExpression().pattern().isEmpty();
        if (unfiltered == m_unfiltered)
            return;
        m_unfiltered = unfiltered;
        // Qt tells once it has filtered the rows (setFilterFixedString), with the old answer:
        // again with the new one.
        invalidateFilter();
    });
}

void ResourceSortProxy::updateCompareMode()
{
    m_rowsCompare = sortRole() == ResourceTableModel::SortRole;
    m_plainStrings = !isSortLocaleAware() && sortCaseSensitivity() == Qt::CaseSensitive;
}

ResourceSortProxy::~ResourceSortProxy() = default;

void ResourceSortProxy::setSourceModel(QAbstractItemModel *model)
{
    m_table = qobject_cast<const ResourceTableModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

bool ResourceSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const ResourceRow *a = m_table && m_rowsCompare ? m_table->rowAt(left.row()) : nullptr;
    const ResourceRow *b = a ? m_table->rowAt(right.row()) : nullptr;
    if (!a || !b || left.column() != right.column())
        return QSortFilterProxyModel::lessThan(left, right);
    const int column = left.column();
    if (column == ResourceTableModel::NameColumn || column == ResourceTableModel::NamespaceColumn
        || column == ResourceTableModel::ReasonColumn) {
        if (!m_plainStrings)
            return QSortFilterProxyModel::lessThan(left, right);
        // Rows of a first list ranked as they came: two numbers instead of two strings.
        if (const auto less = m_table->rankedLess(left.row(), right.row(), column))
            return *less;
    }
    if (column < 0 || column >= ResourceTableModel::ColumnCount
        || column == ResourceTableModel::FightsColumn) // kept beside the rows: by SortRole
        return QSortFilterProxyModel::lessThan(left, right);
    // The model's own order, which it also inserts large batches in.
    return ResourceTableModel::compareRows(*a, *b, column) < 0;
}

bool ResourceSortProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_unfiltered)
        return true;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace reconscope::ui
