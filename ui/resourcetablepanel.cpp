#include "ui/resourcetablepanel.h"

#include "models/resourcetablemodel.h"
#include "ui/resourcesortproxy.h"
#include "ui/statechipdelegate.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using models::ResourceTableModel;

namespace {
constexpr int ListingPaintIntervalMs = 200;
}

ResourceTablePanel::ResourceTablePanel(ResourceTableModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new ResourceSortProxy(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_summary(new QLabel(this))
    , m_listingPaint(new QTimer(this))
{
    setWindowTitle(tr("Objects"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ResourceTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setDynamicSortFilter(true);

    m_view->setModel(m_proxy);
    m_view->setItemDelegate(new StateChipDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    // The model inserts large batches in the order shown, so that the proxy places each as a block.
    connect(m_view->horizontalHeader(),
            &QHeaderView::sortIndicatorChanged,
            this,
            [this](int column, Qt::SortOrder order) { m_model->setPreferredOrder(column, order); });
    m_view->sortByColumn(ResourceTableModel::NameColumn, Qt::AscendingOrder);
    m_model->setPreferredOrder(ResourceTableModel::NameColumn, Qt::AscendingOrder);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 12);
    auto *header = m_view->horizontalHeader();
    header->setHighlightSections(false);
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(ResourceTableModel::ReasonColumn, QHeaderView::Stretch);
    const int em = m_view->fontMetrics().horizontalAdvance(u'M');
    QFont bold = m_view->font();
    bold.setBold(true);
    const int chip = QFontMetrics(bold).horizontalAdvance(u"Reconciling"_s) + 30;
    m_view->setColumnWidth(ResourceTableModel::NameColumn, 8 * em);
    m_view->setColumnWidth(ResourceTableModel::NamespaceColumn, 7 * em);
    m_view->setColumnWidth(ResourceTableModel::StateColumn, chip);
    m_view->setColumnWidth(ResourceTableModel::GenerationColumn, 6 * em);
    m_view->setColumnWidth(ResourceTableModel::AgeColumn, 4 * em);
    // Room for the condition a time comes from when the move was not seen.
    m_view->setColumnWidth(ResourceTableModel::LastTransitionColumn,
                           m_view->fontMetrics().horizontalAdvance(u"119s ago (Degraded)"_s)
                               + 2 * em);
    header->setMinimumSectionSize(3 * em);
    // The Fights column takes room from Reason only while some object has a fight.
    m_view->setColumnHidden(ResourceTableModel::FightsColumn, !m_model->hasFights());
    connect(m_model, &ResourceTableModel::hasFightsChanged, m_view, [this](bool hasFights) {
        m_view->setColumnHidden(ResourceTableModel::FightsColumn, !hasFights);
    });
    // No column narrower than its title and the sort arrow ("Namespace" was clipped at 1280 px).
    for (int column = 0; column < ResourceTableModel::ColumnCount; ++column) {
        if (column == ResourceTableModel::ReasonColumn)
            continue;
        const QString title
            = m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
        const int needed = header->fontMetrics().horizontalAdvance(title) + 3 * em;
        m_view->setColumnWidth(column, std::max(m_view->columnWidth(column), needed));
    }

    m_filter->setPlaceholderText(tr("Filter by name, namespace, state or reason (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text);
        updateSummary();
    });
    auto *focusFilter = new QAction(tr("&Filter Objects"), this);
    focusFilter->setShortcut(QKeySequence::Find);
    focusFilter->setShortcutContext(Qt::WindowShortcut);
    connect(focusFilter, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });
    addAction(focusFilter);

    connect(m_view->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            &ResourceTablePanel::handleCurrentChanged);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ResourceTablePanel::updateSummary);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ResourceTablePanel::updateSummary);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ResourceTablePanel::updateSummary);
    connect(m_model,
            &ResourceTableModel::listingChanged,
            this,
            &ResourceTablePanel::handleListingChanged);
    m_listingPaint->setInterval(ListingPaintIntervalMs);
    connect(m_listingPaint, &QTimer::timeout, this, &ResourceTablePanel::paintListing);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(6, 6, 6, 2);
    top->addWidget(m_filter, 1);
    top->addWidget(m_summary);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    updateSummary();
}

ResourceTablePanel::~ResourceTablePanel() = default;

void ResourceTablePanel::updateSummary()
{
    if (const auto listing = m_model->listing()) {
        // The first list is still arriving: how much of it is in.
        m_summary->setText(tr("Listing… %L1 objects").arg(*listing));
        return;
    }
    const int shown = m_proxy->rowCount();
    const int total = m_model->rowCount();
    m_summary->setText(shown == total ? (total == 1 ? tr("1 object") : tr("%1 objects").arg(total))
                                      : tr("%1 of %2 objects").arg(shown).arg(total));
}

void ResourceTablePanel::handleListingChanged()
{
    updateSummary();
    QWidget *viewport = m_view->viewport();
    if (m_model->listing()) {
        if (!m_listingPaint->isActive()) {
            viewport->setUpdatesEnabled(false);
            m_listingPaint->start();
        }
    } else if (m_listingPaint->isActive()) {
        m_listingPaint->stop();
        viewport->setUpdatesEnabled(true); // and painted
    }
}

void ResourceTablePanel::paintListing()
{
    QWidget *viewport = m_view->viewport();
    viewport->setUpdatesEnabled(true);
    viewport->repaint();
    viewport->setUpdatesEnabled(false);
}

QString ResourceTablePanel::summaryText() const
{
    return m_summary->text();
}

void ResourceTablePanel::handleCurrentChanged()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    const QString key = current.data(ResourceTableModel::KeyRole).toString();
    if (key == m_selectedKey)
        return;
    m_selectedKey = key;
    emit objectSelected(key);
}

bool ResourceTablePanel::selectKey(const QString &key)
{
    const int sourceRow = m_model->rowOf(key);
    if (sourceRow < 0)
        return false;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!index.isValid()) {
        m_filter->clear();
        index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    }
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    return true;
}

bool ResourceTablePanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape && !m_filter->text().isEmpty()) {
            m_filter->clear();
            return true;
        }
        if (key->key() == Qt::Key_Down || key->key() == Qt::Key_Return
            || key->key() == Qt::Key_Enter) {
            m_view->setFocus(Qt::OtherFocusReason);
            if (!m_view->selectionModel()->currentIndex().isValid() && m_proxy->rowCount() > 0)
                m_view->selectionModel()->setCurrentIndex(m_proxy->index(0, 0),
                                                          QItemSelectionModel::ClearAndSelect
                                                              | QItemSelectionModel::Rows);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace reconscope::ui
