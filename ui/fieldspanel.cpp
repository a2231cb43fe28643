#include "ui/fieldspanel.h"

#include "models/resourcetablemodel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
namespace fieldowner = reconscope::controller::fieldowner;

namespace reconscope::ui {

namespace {

const QColor SharedTint(0xff, 0xf3, 0xe0); // fields more than one manager owns

} // namespace

FieldsPanel::FieldsPanel(QWidget *parent)
    : QWidget(parent)
    , m_filter(new QComboBox(this))
    , m_problems(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    setObjectName(u"fields"_s);
    m_filter->setObjectName(u"fieldsManagerFilter"_s);
    m_filter->setToolTip(tr("Show one manager's fields in the gutter"));
    m_problems->setObjectName(u"fieldsProblems"_s);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(u"color:#b71c1c"_s);
    m_problems->hide();
    m_table->setObjectName(u"fieldsTable"_s);
    m_table->setHorizontalHeaderLabels({ tr("Owned by"), tr("YAML") });
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setSectionResizeMode(OwnersColumn, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(OwnersColumn, 260);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Manager:"), this));
    bar->addWidget(m_filter, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_problems);
    layout->addWidget(m_table, 1);
    connect(m_filter, &QComboBox::currentIndexChanged, this, &FieldsPanel::fill);
    refillFilter();
}

void FieldsPanel::clear()
{
    m_blame = {};
    refillFilter();
    fill();
}

void FieldsPanel::setObject(const nlohmann::json &object, const QDateTime &now)
{
    m_blame = fieldowner::blame(object);
    m_now = now;
    refillFilter();
    fill();
}

void FieldsPanel::refillFilter()
{
    const QString current
        = m_filter->currentIndex() > 0 ? m_filter->currentData().toString() : QString();
    QStringList managers;
    for (const auto &owner : m_blame.managers) {
        if (!managers.contains(owner.manager))
            managers << owner.manager;
    }
    const QSignalBlocker blocker(m_filter);
    m_filter->clear();
    m_filter->addItem(tr("All managers (%1)").arg(managers.size()), QString());
    for (const QString &manager : managers)
        m_filter->addItem(manager, manager);
    const int index = m_filter->findData(current);
    m_filter->setCurrentIndex(index > 0 ? index : 0);
}

void FieldsPanel::fill()
{
    const QString manager = m_filter->currentData().toString();
    const int scroll = m_table->verticalScrollBar()->value();
    m_table->setRowCount(int(m_blame.lines.size()));
    for (int row = 0; row < m_blame.lines.size(); ++row) {
        const fieldowner::BlameLine &line = m_blame.lines[row];
        QStringList owners;
        QStringList details;
        for (const auto &owner : line.owners) {
            details << owner.label() + u" at "_s + owner.time.toString(Qt::ISODate);
            if (!manager.isEmpty() && owner.manager != manager)
                continue;
            owners << owner.label()
                    + (owner.time.isValid() ? u" "_s
                               + models::ResourceTableModel::formatAge(owner.time.msecsTo(m_now))
                                            : QString());
        }
        QString gutter = owners.join(u", "_s);
        if (line.inherited && !gutter.isEmpty())
            gutter.prepend(u'^');
        auto *ownersItem = new QTableWidgetItem(gutter);
        auto *yamlItem = new QTableWidgetItem(line.text);
        const QString tip = line.path.isEmpty() ? QString()
                                                : line.path + u"\n"_s
                + (details.isEmpty() ? tr("owned by no manager") : details.join(u'\n'))
                + (line.inherited ? tr("\n(owned whole through the list or map it is part of)")
                                  : QString());
        for (auto *item : { ownersItem, yamlItem }) {
            item->setToolTip(tip);
            if (line.owners.size() > 1 && !owners.isEmpty())
                item->setBackground(SharedTint);
        }
        m_table->setItem(row, OwnersColumn, ownersItem);
        m_table->setItem(row, YamlColumn, yamlItem);
    }
    m_table->verticalScrollBar()->setValue(scroll);
    m_problems->setVisible(!m_blame.problems.isEmpty());
    m_problems->setText(tr("managedFields that cannot be read (the rest is shown): %1")
                            .arg(m_blame.problems.join(u"; "_s)));
}

} // namespace reconscope::ui
