#include "ui/overviewpanel.h"

#include "controller/console/crdoverview.h"
#include "ui/stategraphscene.h"
#include "ui/statepalette.h"

#include <QEvent>
#include <QGraphicsView>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::CrdOverview;
using models::LifecycleState;

namespace {

constexpr int ResourceRole = Qt::UserRole + 1;
// The states shown as columns, in the graph's order.
const QList<LifecycleState> Columns{ LifecycleState::Pending,     LifecycleState::Reconciling,
                                     LifecycleState::Ready,       LifecycleState::Degraded,
                                     LifecycleState::Terminating, LifecycleState::Unknown };

void setCounts(QTreeWidgetItem *item, const CrdOverview::Counts &counts, int total)
{
    item->setText(1, QString::number(total));
    for (int i = 0; i < Columns.size(); ++i) {
        const int count = counts[int(Columns[i])];
        item->setText(2 + i, count ? QString::number(count) : QString());
        item->setForeground(2 + i, stateColors(Columns[i]).accent);
        item->setTextAlignment(2 + i, Qt::AlignRight | Qt::AlignVCenter);
    }
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
}

} // namespace

OverviewPanel::OverviewPanel(CrdOverview *overview, QWidget *parent)
    : QWidget(parent)
    , m_overview(overview)
    , m_table(new QTreeWidget(this))
    , m_scene(new StateGraphScene(this))
    , m_view(new QGraphicsView(m_scene, this))
    , m_title(new QLabel(this))
    , m_changeTimer(new QTimer(this))
{
    setWindowTitle(tr("All Resources"));
    QStringList headers{ tr("Custom resource"), tr("Objects") };
    for (LifecycleState state : Columns)
        headers << models::lifecycleStateName(state);
    m_table->setColumnCount(int(headers.size()));
    m_table->setHeaderLabels(headers);
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setAlternatingRowColors(true);
    m_table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->header()->setStretchLastSection(false);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->viewport()->installEventFilter(this);
    m_title->setContentsMargins(6, 4, 6, 4);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    auto *graph = new QWidget(splitter);
    auto *graphLayout = new QVBoxLayout(graph);
    graphLayout->setContentsMargins(0, 0, 0, 0);
    graphLayout->addWidget(m_title);
    graphLayout->addWidget(m_view, 1);
    splitter->addWidget(graph);
    // The table with every state column, the graph beside it.
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({ 600, 400 });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    m_changeTimer->setInterval(250);
    m_changeTimer->setSingleShot(true);
    connect(m_changeTimer, &QTimer::timeout, this, &OverviewPanel::refresh);
    connect(m_overview, &CrdOverview::countsChanged, m_changeTimer, qOverload<>(&QTimer::start));
    connect(m_overview, &CrdOverview::resourcesChanged, this, &OverviewPanel::rebuildRows);
    connect(m_table, &QTreeWidget::currentItemChanged, this, &OverviewPanel::handleCurrentChanged);
    rebuildRows();
}

OverviewPanel::~OverviewPanel() = default;

void OverviewPanel::rebuildRows()
{
    const QSignalBlocker blocker(m_table);
    m_table->clear();
    auto *all = new QTreeWidgetItem(m_table, QStringList{ tr("All custom resources") });
    QFont bold = all->font(0);
    bold.setBold(true);
    for (int column = 0; column < m_table->columnCount(); ++column)
        all->setFont(column, bold);
    for (const QString &name : m_overview->resources()) {
        const auto *resource = m_overview->resource(name);
        auto *item = new QTreeWidgetItem(m_table,
                                         QStringList{ resource ? resource->resource.kind : name });
        item->setData(0, ResourceRole, name);
        item->setToolTip(0, name);
    }
    if (!m_shown.isEmpty() && !m_overview->resource(m_shown))
        m_shown.clear();
    refresh();
}

void OverviewPanel::refresh()
{
    CrdOverview::Counts sum{};
    for (int row = 1; row < m_table->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_table->topLevelItem(row);
        const QString name = item->data(0, ResourceRole).toString();
        const CrdOverview::Counts counts = m_overview->counts(name);
        setCounts(item, counts, m_overview->objectCount(name));
        for (int i = 0; i < models::LifecycleStateCount; ++i)
            sum[i] += counts[i];
    }
    if (QTreeWidgetItem *all = m_table->topLevelItem(0))
        setCounts(all, sum, m_overview->totalObjects());
    const QSignalBlocker blocker(m_table);
    for (int row = 0; row < m_table->topLevelItemCount(); ++row) {
        QTreeWidgetItem *item = m_table->topLevelItem(row);
        if (item->data(0, ResourceRole).toString() == m_shown)
            m_table->setCurrentItem(item);
    }
    refreshGraph();
}

void OverviewPanel::refreshGraph()
{
    const QDateTime now = m_overview->now();
    if (m_shown.isEmpty()) {
        m_scene->setStatistics(m_overview->aggregatedStats(), now);
        m_title->setText(tr("<b>State graph</b> — all %1 custom resources, %2 objects")
                             .arg(m_overview->resources().size())
                             .arg(m_overview->totalObjects()));
    } else {
        m_scene->setStatistics(m_overview->stats(m_shown), now);
        m_title->setText(tr("<b>State graph</b> — %1, %2 objects")
                             .arg(m_shown)
                             .arg(m_overview->objectCount(m_shown)));
    }
    m_view->fitInView(m_scene->contentRect(), Qt::KeepAspectRatio);
}

void OverviewPanel::showResource(const QString &qualifiedName)
{
    m_shown = m_overview->resource(qualifiedName) ? qualifiedName : QString();
    refresh();
}

void OverviewPanel::handleCurrentChanged()
{
    const QTreeWidgetItem *item = m_table->currentItem();
    if (!item)
        return;
    m_shown = item->data(0, ResourceRole).toString();
    refreshGraph();
    if (!m_shown.isEmpty())
        emit resourceSelected(m_shown);
}

bool OverviewPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        m_view->fitInView(m_scene->contentRect(), Qt::KeepAspectRatio);
    return QWidget::eventFilter(watched, event);
}

} // namespace reconscope::ui
