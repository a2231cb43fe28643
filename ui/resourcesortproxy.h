#pragma once

#include <QProperty>
#include <QSortFilterProxyModel>

namespace reconscope::models {
class ResourceTableModel;
}

namespace reconscope::ui {

// The resource table's sort/filter proxy: sorts by comparing the rows' own values (the same order
// as ResourceTableModel::SortRole gives, without a QVariant per comparison) and accepts every row
// at once while no filter is set.
class ResourceSortProxy final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourceSortProxy)

public:
    explicit ResourceSortProxy(QObject *parent = nullptr);
    ~ResourceSortProxy() override;

    void setSourceModel(QAbstractItemModel *model) override;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    // What lessThan() would otherwise ask for at each of the (tens of thousands of) comparisons
    // a large insertion makes: kept up to date from the properties' change signals.
    void updateCompareMode();

    const models::ResourceTableModel *m_table = nullptr;
    bool m_rowsCompare = false; // sorted by SortRole: the rows' own values are compared
    bool m_plainStrings = true; // case-sensitive and not locale-aware
    // No filter pattern: every row accepted without a copy of the expression per row (each row a
    // first list inserts is asked).
    bool m_unfiltered = true;
    QPropertyNotifier m_filterNotifier;
};

} // namespace reconscope::ui
