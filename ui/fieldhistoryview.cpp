#include "ui/fieldhistoryview.h"

#include <QHeaderView>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

FieldHistoryView::FieldHistoryView(QWidget *parent)
    : QTableWidget(0, ColumnCount, parent)
{
    setObjectName(u"fieldHistory"_s);
    setHorizontalHeaderLabels(
        { tr("Time"), tr("Field"), tr("Before"), tr("After"), tr("Written by") });
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setWordWrap(false);
}

void FieldHistoryView::setHistory(const controller::fieldowner::FieldHistory *history)
{
    const int count = history ? int(history->changes().size()) : 0;
    setRowCount(count);
    for (int row = 0; row < count; ++row) {
        // Newest first.
        const auto &change = history->changes()[std::size_t(count - 1 - row)];
        const QStringList cells{ change.time.toString(Qt::ISODate),
                                 change.path,
                                 change.before.isEmpty() ? tr("(absent)") : change.before,
                                 change.after.isEmpty() ? tr("(removed)") : change.after,
                                 change.writer() };
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            item->setToolTip(tr("resourceVersion %1").arg(change.resourceVersion));
            setItem(row, column, item);
        }
    }
}

} // namespace reconscope::ui
