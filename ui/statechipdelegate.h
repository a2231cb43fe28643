#pragma once

#include <QStyledItemDelegate>

namespace reconscope::ui {

// Paints the resource table's state column as a coloured chip
// (models::ResourceTableModel::StateRole) and highlights a stale status (StaleRole) in the
// generation column.
class StateChipDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StateChipDelegate)

public:
    explicit StateChipDelegate(QObject *parent = nullptr);
    ~StateChipDelegate() override;

    void paint(QPainter *painter,
               const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace reconscope::ui
