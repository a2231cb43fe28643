#include "ui/fightspanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using reconscope::controller::fieldowner::Fight;

namespace reconscope::ui {

FightsPanel::FightsPanel(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, 6, this))
{
    setObjectName(u"fights"_s);
    m_table->setObjectName(u"fightsTable"_s);
    m_table->setHorizontalHeaderLabels(
        { tr("Object"), tr("Field"), tr("Managers"), tr("Changes"), tr("Rate"), tr("Kind") });
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        emit objectActivated(m_table->item(row, ObjectColumn)->text());
    });
    setFights({});
}

void FightsPanel::setFights(const QList<Fight> &fights)
{
    m_summary->setText(fights.isEmpty()
                           ? tr("No field-manager fights among the watched objects.")
                           : tr("%n fight(s): fields that managers keep taking from each other, "
                                "or spec fields the status writer owns.",
                                nullptr,
                                int(fights.size())));
    m_table->setRowCount(int(fights.size()));
    for (int row = 0; row < fights.size(); ++row) {
        const Fight &fight = fights[row];
        const bool alternating = fight.kind == Fight::Kind::Alternating;
        const QStringList cells{
            fight.object,
            fight.field,
            alternating ? u"%1 ⇄ %2"_s.arg(fight.managerA, fight.managerB) : fight.managerA,
            alternating ? QString::number(fight.changes) : QString(),
            alternating ? tr("%1/min").arg(fight.perMinute(), 0, 'f', 1) : QString(),
            alternating ? tr("taken back and forth") : tr("status writer owns spec"),
        };
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            item->setToolTip(fight.describe());
            m_table->setItem(row, column, item);
        }
    }
    m_table->resizeColumnsToContents();
}

} // namespace reconscope::ui
