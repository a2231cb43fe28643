#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace reconscope::models {
class ResourceTableModel;
}

namespace reconscope::ui {

// The objects of the watched resource: a sortable table (state chips, stale-status highlight)
// behind a filter box. Keyboard: Ctrl+F focuses the filter, Down/Return in the filter moves into
// the table, Escape clears the filter; the current row is the selected object.
class ResourceTablePanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourceTablePanel)

public:
    explicit ResourceTablePanel(models::ResourceTableModel *model, QWidget *parent = nullptr);
    ~ResourceTablePanel() override;

    QTableView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    // "12 objects", "3 of 12 objects", "Listing… 23,000 objects" (a first list arriving).
    QString summaryText() const;

    QString selectedKey() const { return m_selectedKey; }
    // Makes the object's row current (clearing the filter if it hides the row).
    bool selectKey(const QString &key);

signals:
    void objectSelected(const QString &key);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void handleCurrentChanged();
    void updateSummary();
    void handleListingChanged();
    void paintListing();

    models::ResourceTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
    QLabel *m_summary;
    // While a first list arrives, the table is painted a few times a second rather than after
    // each batch of rows (a paint of the visible rows costs a few ms, batches come every ~30 ms).
    QTimer *m_listingPaint;
    QString m_selectedKey;
};

} // namespace reconscope::ui
