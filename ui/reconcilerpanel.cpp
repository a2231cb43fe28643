#include "ui/reconcilerpanel.h"

#include "controller/console/consolesession.h"
#include "controller/reconcile/controllerloop.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <QValueAxis>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

using controller::reconcile::ControllerLoop;
using controller::reconcile::ReconcileRecord;

namespace {

QTableWidget *table(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return table;
}

QString seconds(controller::reconcile::Duration duration)
{
    using namespace std::chrono;
    const double ms = double(duration_cast<microseconds>(duration).count()) / 1000.0;
    return ms < 1000 ? u"%1 ms"_s.arg(ms, 0, 'f', 1) : u"%1 s"_s.arg(ms / 1000.0, 0, 'f', 2);
}

} // namespace

ReconcilerPanel::ReconcilerPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_pause(new QAction(tr("&Pause Reconciler"), this))
    , m_step(new QAction(tr("S&tep One Key"), this))
    , m_summary(new QLabel(this))
    , m_queue(table({ tr("Key"), tr("State"), tr("Retries"), tr("Next / ready in") }, this))
    , m_history(table({ tr("#"), tr("Result"), tr("Took"), tr("Why"), tr("Outcome") }, this))
    , m_refreshTimer(new QTimer(this))
    , m_sampleTimer(new QTimer(this))
{
    setWindowTitle(tr("Reconciler"));
    // Why and Outcome can both be long: Why keeps a fixed share (its full text in the tooltip)
    // so Outcome, the last column, stays in view instead of being pushed off to the right.
    m_history->horizontalHeader()->setSectionResizeMode(3, QHeaderView::Interactive);
    m_history->horizontalHeader()->resizeSection(3, 220);
    m_pause->setCheckable(true);
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_step->setShortcut(QKeySequence(Qt::Key_F10));
    connect(m_pause, &QAction::toggled, this, [this](bool paused) {
        if (m_loop)
            m_loop->setPaused(paused);
        refresh();
    });
    connect(m_step, &QAction::triggered, this, [this] {
        if (m_loop)
            m_loop->step(m_key);
        refresh();
    });
    addActions({ m_pause, m_step });

    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setTitle(tr("Reconciles per second"));
    auto *rate = new QLineSeries(chart);
    rate->setName(tr("reconciles"));
    auto *errors = new QLineSeries(chart);
    errors->setName(tr("errors"));
    errors->setColor(QColor(0xc6, 0x28, 0x28));
    chart->addSeries(rate);
    chart->addSeries(errors);
    auto *x = new QValueAxis(chart);
    x->setRange(-ChartSeconds, 0);
    x->setLabelFormat(u"%d s"_s);
    auto *y = new QValueAxis(chart);
    y->setRange(0, 5);
    y->setLabelFormat(u"%d"_s);
    // Three labels fit the dock's short chart; five were elided to "…".
    y->setTickCount(3);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto *series : { rate, errors }) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    auto *chartView = new QChartView(chart, this);
    chartView->setRenderHint(QPainter::Antialiasing);
    chartView->setMinimumHeight(190);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignRight);
    m_chartView = chartView;

    auto *toolbar = new QToolBar(this);
    toolbar->addActions(actions());
    toolbar->addSeparator();
    toolbar->addWidget(m_summary);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_queue);
    split->addWidget(m_history);
    split->addWidget(chartView);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(toolbar);
    layout->addWidget(split, 1);

    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(100);
    connect(m_refreshTimer, &QTimer::timeout, this, &ReconcilerPanel::refresh);
    m_sampleTimer->setInterval(1000);
    connect(m_sampleTimer, &QTimer::timeout, this, &ReconcilerPanel::sample);
    m_sampleTimer->start();

    connect(m_session, &ConsoleSession::reconcilerChanged, this, [this] {
        setLoop(m_session->controllerLoop());
    });
    setLoop(m_session->controllerLoop());
}

ReconcilerPanel::~ReconcilerPanel() = default;

void ReconcilerPanel::setLoop(ControllerLoop *loop)
{
    for (const auto &connection : std::as_const(m_connections))
        disconnect(connection);
    m_connections.clear();
    m_loop = loop;
    if (m_loop) {
        m_connections << connect(
            m_loop, &ControllerLoop::queueChanged, m_refreshTimer, qOverload<>(&QTimer::start))
                      << connect(m_loop,
                                 &ControllerLoop::reconcileFinished,
                                 this,
                                 &ReconcilerPanel::handleFinished)
                      << connect(m_loop, &ControllerLoop::pausedChanged, this, [this](bool paused) {
                             m_pause->setChecked(paused);
                         });
        m_pause->setChecked(m_loop->isPaused());
    }
    m_pause->setEnabled(m_loop);
    m_step->setEnabled(m_loop);
    refresh();
}

void ReconcilerPanel::setSelectedObject(const QString &key)
{
    m_key = key;
    refresh();
}

void ReconcilerPanel::handleFinished(const ReconcileRecord &record)
{
    ++m_finishedThisSecond;
    if (record.result == ReconcileRecord::Result::Error
        || record.result == ReconcileRecord::Result::TerminalError)
        ++m_errorsThisSecond;
    if (!m_refreshTimer->isActive())
        m_refreshTimer->start();
}

void ReconcilerPanel::refresh()
{
    if (!m_loop) {
        m_summary->setText(tr("no reconciler runs in this session"));
        m_queue->setRowCount(0);
        m_history->setRowCount(0);
        return;
    }
    const auto now = std::chrono::time_point_cast<controller::reconcile::Duration>(
        std::chrono::system_clock::now());
    const auto queue = m_loop->queueSnapshot();
    m_summary->setText(tr("%1 · %2 in flight · %3 queued")
                           .arg(m_loop->isPaused() ? tr("paused") : tr("running"))
                           .arg(m_loop->inFlight())
                           .arg(queue.size()));
    m_queue->setRowCount(int(queue.size()));
    for (int row = 0; row < queue.size(); ++row) {
        const auto &entry = queue[row];
        m_queue->setItem(row, 0, new QTableWidgetItem(entry.key));
        m_queue->setItem(
            row, 1, new QTableWidgetItem(controller::reconcile::stateName(entry.state)));
        m_queue->setItem(row, 2, new QTableWidgetItem(QString::number(entry.retries)));
        m_queue->setItem(
            row,
            3,
            new QTableWidgetItem(entry.readyAt ? seconds(*entry.readyAt - now) : QString()));
    }
    const auto history = m_key.isEmpty() ? QList<ReconcileRecord>() : m_loop->history(m_key);
    m_history->setRowCount(int(history.size()));
    for (int i = 0; i < history.size(); ++i) {
        // Newest first.
        const ReconcileRecord &record = history[history.size() - 1 - i];
        m_history->setItem(i, 0, new QTableWidgetItem(QString::number(record.id)));
        m_history->setItem(
            i, 1, new QTableWidgetItem(controller::reconcile::resultName(record.result)));
        m_history->setItem(i, 2, new QTableWidgetItem(seconds(record.duration)));
        auto *why = new QTableWidgetItem(record.triggers.join(u"; "_s));
        why->setToolTip(why->text());
        m_history->setItem(i, 3, why);
        // The error first: the explanation ("retried through the rate limiter") is the same for
        // many records, the error says what went wrong this time.
        QString outcome = record.error.isEmpty() ? record.explanation
                                                 : record.error + u" — "_s + record.explanation;
        if (!record.writes.isEmpty())
            outcome += u" [%1]"_s.arg(record.writes.join(u", "_s));
        auto *outcomeItem = new QTableWidgetItem(outcome);
        outcomeItem->setToolTip(outcome);
        m_history->setItem(i, 4, outcomeItem);
    }
}

void ReconcilerPanel::sample()
{
    m_rate.append(m_finishedThisSecond);
    m_errors.append(m_errorsThisSecond);
    m_finishedThisSecond = 0;
    m_errorsThisSecond = 0;
    while (m_rate.size() > ChartSeconds) {
        m_rate.removeFirst();
        m_errors.removeFirst();
    }
    updateChart();
}

void ReconcilerPanel::updateChart()
{
    auto *chart = static_cast<QChartView *>(m_chartView)->chart();
    const auto series = chart->series();
    int top = 5;
    for (int s = 0; s < 2; ++s) {
        const QList<int> &values = s == 0 ? m_rate : m_errors;
        QList<QPointF> points;
        for (int i = 0; i < values.size(); ++i) {
            points.append(QPointF(i - int(values.size()) + 1, values[i]));
            top = std::max(top, values[i] + 1);
        }
        static_cast<QLineSeries *>(series[s])->replace(points);
    }
    if (auto axes = chart->axes(Qt::Vertical); !axes.isEmpty())
        static_cast<QValueAxis *>(axes.first())->setRange(0, top);
}

} // namespace reconscope::ui
