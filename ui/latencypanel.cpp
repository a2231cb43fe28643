#include "ui/latencypanel.h"

#include "controller/console/crdoverview.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QTimer>
#include <QTreeWidget>
#include <QValueAxis>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::CrdOverview;

namespace {

QString seconds(qint64 ms)
{
    return QString::number(double(ms) / 1000.0, 'f', ms < 10000 ? 2 : 1) + u" s"_s;
}

} // namespace

LatencyPanel::LatencyPanel(CrdOverview *overview, QWidget *parent)
    : QWidget(parent)
    , m_overview(overview)
    , m_chart(new QChart)
    , m_series(new QBarSeries(m_chart))
    , m_categories(new QBarCategoryAxis(m_chart))
    , m_seconds(new QValueAxis(m_chart))
    , m_slowest(new QTreeWidget(this))
    , m_timer(new QTimer(this))
{
    setWindowTitle(tr("Reconcile Latency"));
    m_chart->setTitle(tr("Spec change → Ready or Degraded, per resource"));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->addSeries(m_series);
    m_chart->addAxis(m_categories, Qt::AlignBottom);
    m_chart->addAxis(m_seconds, Qt::AlignLeft);
    m_series->attachAxis(m_categories);
    m_series->attachAxis(m_seconds);
    m_seconds->setTitleText(tr("seconds"));
    m_seconds->setLabelFormat(u"%.1f"_s);
    auto *view = new QChartView(m_chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumWidth(320);

    m_slowest->setColumnCount(4);
    m_slowest->setHeaderLabels(
        { tr("Slowest object"), tr("Generation"), tr("Caught up"), tr("Settled") });
    m_slowest->setRootIsDecorated(false);
    m_slowest->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view, 3);
    layout->addWidget(m_slowest, 2);

    m_timer->setInterval(2000);
    connect(m_timer, &QTimer::timeout, this, &LatencyPanel::refresh);
    m_timer->start();
    refresh();
}

LatencyPanel::~LatencyPanel() = default;

void LatencyPanel::refresh()
{
    const models::ReconcileLatency &latency = m_overview->latency();
    const QStringList resources = latency.resources();
    m_series->clear();
    auto *p50 = new QBarSet(u"p50"_s);
    auto *p95 = new QBarSet(u"p95"_s);
    auto *p99 = new QBarSet(u"p99"_s);
    QStringList names;
    qint64 top = 0;
    for (const QString &resource : resources) {
        const models::LatencySummary summary = latency.summary(resource);
        *p50 << double(summary.p50) / 1000.0;
        *p95 << double(summary.p95) / 1000.0;
        *p99 << double(summary.p99) / 1000.0;
        top = std::max(top, summary.p99);
        names << u"%1 (%2)"_s.arg(resource.section(u'.', 0, 0)).arg(summary.count);
    }
    m_series->append({ p50, p95, p99 });
    m_categories->setCategories(names);
    m_seconds->setRange(0, std::max(1.0, double(top) / 1000.0 * 1.1));

    m_slowest->clear();
    for (const models::LatencySample &sample : latency.slowest(SlowestShown)) {
        auto *item = new QTreeWidgetItem(m_slowest,
                                         QStringList{ sample.key,
                                                      QString::number(sample.generation),
                                                      seconds(sample.observedMs),
                                                      seconds(sample.settledMs) });
        item->setToolTip(
            0, u"%1 — %2"_s.arg(sample.resource, models::lifecycleStateName(sample.outcome)));
    }
}

} // namespace reconscope::ui
