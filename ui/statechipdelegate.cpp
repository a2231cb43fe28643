#include "ui/statechipdelegate.h"

#include "models/resourcetablemodel.h"
#include "ui/statepalette.h"

#include <QApplication>
#include <QPainter>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using models::ResourceTableModel;

StateChipDelegate::StateChipDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{ }

StateChipDelegate::~StateChipDelegate() = default;

void StateChipDelegate::paint(QPainter *painter,
                              const QStyleOptionViewItem &option,
                              const QModelIndex &index) const
{
    const bool stale = index.data(ResourceTableModel::StaleRole).toBool();
    if (index.column() == ResourceTableModel::GenerationColumn && stale) {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        if (!(opt.state & QStyle::State_Selected))
            painter->fillRect(opt.rect, QColor(0xff, 0xe0, 0xb2));
        opt.text = u"⚠ "_s + opt.text;
        opt.font.setBold(true);
        opt.palette.setColor(QPalette::Text, QColor(0x8a, 0x4b, 0x00));
        opt.backgroundBrush = Qt::NoBrush;
        QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        return;
    }
    if (index.column() != ResourceTableModel::StateColumn) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background and selection as usual, then the chip.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const auto state = models::LifecycleState(index.data(ResourceTableModel::StateRole).toInt());
    const StateColors colors = stateColors(state);
    QFont font = opt.font;
    font.setBold(true);
    const QFontMetrics metrics(font);
    const int height = std::min(opt.rect.height() - 4, metrics.height() + 4);
    const int width = std::min(opt.rect.width() - 8, metrics.horizontalAdvance(text) + 18);
    const QRect chip(
        opt.rect.left() + 4, opt.rect.top() + (opt.rect.height() - height) / 2, width, height);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(colors.accent);
    painter->drawRoundedRect(chip, height / 2.0, height / 2.0);
    painter->setFont(font);
    painter->setPen(colors.chipText);
    painter->drawText(chip, Qt::AlignCenter, metrics.elidedText(text, Qt::ElideRight, width - 8));
    painter->restore();
}

QSize StateChipDelegate::sizeHint(const QStyleOptionViewItem &option,
                                  const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (index.column() == ResourceTableModel::StateColumn)
        size.rwidth() += 24;
    if (index.column() == ResourceTableModel::GenerationColumn)
        size.rwidth() += 20;
    return size.expandedTo(QSize(0, option.fontMetrics.height() + 10));
}

} // namespace reconscope::ui
