#include "ui/conflictlabpanel.h"

#include "controller/console/consolesession.h"
#include "ui/writegate.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <iterator>

using namespace Qt::StringLiterals;
namespace clabs = reconscope::controller::labs;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace {

constexpr clabs::ConflictDesign allDesigns[] = { clabs::ConflictDesign::SeparatedPut,
                                                 clabs::ConflictDesign::SeparatedMergePatch,
                                                 clabs::ConflictDesign::Mixed,
                                                 clabs::ConflictDesign::SeparatedApply,
                                                 clabs::ConflictDesign::MixedApply };
constexpr size_t designCount = std::size(allDesigns);

} // namespace

ConflictLabPanel::ConflictLabPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_seconds(new QDoubleSpinBox(this))
    , m_objects(new QSpinBox(this))
    , m_run(new QPushButton(tr("Run"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_live(new QLabel(this))
    , m_writeHint(new QLabel(this))
    , m_requests(new QPlainTextEdit(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_chartView(new QChartView(this))
    , m_gate(new WriteGate(session, this))
{
    setWindowTitle(tr("Conflict lab"));

    // Short names in one row; the whole title in the tooltip.
    auto *designs = new QHBoxLayout;
    for (size_t i = 0; i < designCount; ++i) {
        m_designBoxes[i] = new QCheckBox(clabs::conflictDesignShortTitle(allDesigns[i]), this);
        m_designBoxes[i]->setToolTip(clabs::conflictDesignTitle(allDesigns[i]));
        m_designBoxes[i]->setChecked(true);
        designs->addWidget(m_designBoxes[i]);
        connect(m_designBoxes[i], &QCheckBox::toggled, this, &ConflictLabPanel::updateRequests);
    }
    designs->addStretch();
    m_seconds->setRange(0.5, 600);
    m_seconds->setDecimals(1);
    m_seconds->setValue(10);
    m_seconds->setSuffix(tr(" s"));
    m_objects->setRange(1, 50);
    m_objects->setValue(3);
    connect(m_objects, &QSpinBox::valueChanged, this, &ConflictLabPanel::updateRequests);

    auto *form = new QFormLayout;
    form->addRow(tr("Designs"), designs);
    auto *sizes = new QHBoxLayout;
    sizes->addWidget(m_seconds);
    sizes->addWidget(new QLabel(tr("objects"), this));
    sizes->addWidget(m_objects);
    sizes->addStretch();
    sizes->addWidget(m_run);
    sizes->addWidget(m_cancel);
    form->addRow(tr("Duration"), sizes);

    m_cancel->setEnabled(false);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_writeHint->setWordWrap(true);
    m_requests->setReadOnly(true);
    m_requests->setMaximumBlockCount(200);
    m_requests->setToolTip(tr("The requests the lab sends"));

    m_table->setHorizontalHeaderLabels({ tr("Design"),
                                         tr("Writer"),
                                         tr("409s"),
                                         tr("Writes"),
                                         tr("Lost updates"),
                                         tr("Generation bumps"),
                                         tr("Reconciles"),
                                         tr("Errors"),
                                         tr("Apply 409s"),
                                         tr("Ownership changes"),
                                         tr("Fights") });
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto *chart = new QChart;
    chart->setTitle(tr("Per design and writer"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_chartView->setChart(chart);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(220);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_requests);
    splitter->addWidget(m_table);
    splitter->addWidget(m_chartView);
    splitter->setStretchFactor(2, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_writeHint);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_live);
    layout->addWidget(splitter, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { (void)run(); });
    connect(m_cancel, &QPushButton::clicked, this, &ConflictLabPanel::cancel);
    connect(m_session,
            &ConsoleSession::writesEnabledChanged,
            this,
            &ConflictLabPanel::updateWriteState);
    connect(m_session, &ConsoleSession::connected, this, &ConflictLabPanel::updateWriteState);
    updateWriteState();
    updateRequests();
}

ConflictLabPanel::~ConflictLabPanel()
{
    // The lab's clients are children of the lab; it goes before the session's cluster does.
    delete m_lab;
}

void ConflictLabPanel::setDesigns(const QList<clabs::ConflictDesign> &designs)
{
    for (size_t i = 0; i < designCount; ++i)
        m_designBoxes[i]->setChecked(designs.contains(allDesigns[i]));
}

QList<clabs::ConflictDesign> ConflictLabPanel::designs() const
{
    QList<clabs::ConflictDesign> chosen;
    for (size_t i = 0; i < designCount; ++i) {
        if (m_designBoxes[i]->isChecked())
            chosen << allDesigns[i];
    }
    return chosen;
}

void ConflictLabPanel::setSeconds(double seconds)
{
    m_seconds->setValue(seconds);
}

void ConflictLabPanel::setObjects(int objects)
{
    m_objects->setValue(objects);
}

clabs::ConflictLabOptions ConflictLabPanel::optionsFor(clabs::ConflictDesign design) const
{
    clabs::ConflictLabOptions options;
    options.design = design;
    options.durationMs = int(m_seconds->value() * 1000);
    options.objects = m_objects->value();
    return options;
}

bool ConflictLabPanel::run()
{
    if (m_lab)
        return false;
    if (!m_session->client()) {
        m_status->setText(tr("Not connected."));
        return false;
    }
    if (!m_session->writesEnabled()) {
        m_status->setText(tr("Writes are disabled for context \"%1\": enable them first.")
                              .arg(m_session->contextName()));
        return false;
    }
    const auto chosen = designs();
    if (chosen.isEmpty()) {
        m_status->setText(tr("Choose at least one design."));
        return false;
    }
    // The exact requests, confirmed once for the whole run on a real cluster.
    const QString url = m_session->serverUrl() + u"/apis/kafka.internal.net/v1/namespaces/"_s
        + optionsFor(chosen.first()).namespace_;
    const bool accepted = m_gate->request(u"POST, GET, PATCH, PUT, DELETE"_s,
                                          url,
                                          m_requests->toPlainText(),
                                          [this, chosen] { startRun(chosen); });
    if (!accepted)
        m_status->setText(tr("Refused: writes are not possible on this context."));
    else if (!m_lab)
        m_status->setText(tr("Confirm the lab's requests to start."));
    return accepted;
}

void ConflictLabPanel::startRun(const QList<clabs::ConflictDesign> &designs)
{
    if (m_lab)
        return;
    m_pending = designs;
    m_total = int(m_pending.size());
    m_results.clear();
    showResults();
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    startNext();
}

void ConflictLabPanel::cancel()
{
    m_pending.clear();
    if (m_lab)
        m_lab->cancel();
}

void ConflictLabPanel::startNext()
{
    if (m_pending.isEmpty()) {
        m_progress->setValue(m_progress->maximum());
        m_status->setText(tr("Done: %n design(s).", nullptr, int(m_results.size())));
        m_cancel->setEnabled(false);
        updateWriteState();
        emit runFinished();
        return;
    }
    const auto design = m_pending.takeFirst();
    m_lab = new clabs::ConflictLab(m_session->client()->config(), optionsFor(design), this);
    connect(m_lab, &clabs::ConflictLab::progress, this, &ConflictLabPanel::handleProgress);
    connect(m_lab, &clabs::ConflictLab::finished, this, &ConflictLabPanel::handleFinished);
    connect(m_lab, &clabs::ConflictLab::figuresChanged, this, &ConflictLabPanel::handleFigures);
    m_lab->start();
}

void ConflictLabPanel::handleProgress(double fraction, const QString &text)
{
    const int done = int(m_results.size());
    const double overall = m_total > 0 ? (done + fraction) / m_total : fraction;
    m_progress->setValue(int(overall * m_progress->maximum()));
    if (m_lab)
        m_status->setText(
            u"%1 — %2"_s.arg(clabs::conflictDesignTitle(m_lab->options().design), text));
}

void ConflictLabPanel::handleFinished(const clabs::ConflictLabResult &result)
{
    m_results << result;
    if (!result.error.isEmpty())
        m_pending.clear();
    if (m_lab)
        m_lab->deleteLater();
    m_lab = nullptr;
    showResults();
    startNext();
    if (!result.error.isEmpty())
        m_status->setText(tr("Failed: %1").arg(result.error));
}

void ConflictLabPanel::handleFigures(const clabs::ConflictLabResult &figures)
{
    const auto &g = figures.gitops();
    const auto &r = figures.reconciler();
    m_live->setText(tr("(%1) GitOps: %2 writes, %3 409s · reconciler: %4 reconciles, %5 writes, %6 "
                       "409s")
                        .arg(clabs::conflictDesignLetter(figures.design))
                        .arg(g.writes)
                        .arg(g.conflicts)
                        .arg(r.reconciles)
                        .arg(r.writes)
                        .arg(r.conflicts));
}

void ConflictLabPanel::updateWriteState()
{
    const bool writable = m_session->writesEnabled();
    m_run->setEnabled(!m_lab && writable);
    if (m_session->isDemo())
        m_writeHint->setText(tr("Embedded cluster: the lab writes to its own namespace."));
    else if (writable)
        m_writeHint->setText(tr("Writes are enabled for context \"%1\": the lab sends the requests "
                                "below.")
                                 .arg(m_session->contextName()));
    else
        m_writeHint->setText(tr("Writes are disabled for context \"%1\": the lab would send the "
                                "requests below. Enable writes for the context to run it.")
                                 .arg(m_session->contextName()));
}

void ConflictLabPanel::updateRequests()
{
    QStringList lines;
    for (const auto design : designs()) {
        lines << clabs::conflictDesignTitle(design);
        for (const QString &line : clabs::ConflictLab::plannedRequests(optionsFor(design)))
            lines << u"  "_s + line;
    }
    m_requests->setPlainText(lines.join(u'\n'));
}

void ConflictLabPanel::showResults()
{
    m_table->setRowCount(int(m_results.size()) * 2);
    QStringList categories;
    const char *metricNames[]
        = { "409s", "Lost updates", "Generation bumps", "Reconciles", "Ownership changes" };
    QList<QBarSet *> sets;
    for (const char *name : metricNames)
        sets << new QBarSet(tr(name));
    int row = 0;
    for (const auto &result : std::as_const(m_results)) {
        for (const auto writer :
             { clabs::ConflictWriter::GitOps, clabs::ConflictWriter::Reconciler }) {
            const auto &f = result.writers[size_t(writer)];
            const QString design = u"(%1)"_s.arg(clabs::conflictDesignLetter(result.design));
            const QString name = clabs::conflictWriterName(writer);
            const QList<qint64> values{
                f.conflicts,       f.writes,           f.lostUpdates,
                f.generationBumps, f.reconciles,       f.errors,
                f.applyConflicts,  f.ownershipChanges, qint64(result.fights.size())
            };
            m_table->setItem(row, DesignColumn, new QTableWidgetItem(design));
            m_table->setItem(row, WriterColumn, new QTableWidgetItem(name));
            for (int c = 0; c < values.size(); ++c) {
                auto *item = new QTableWidgetItem;
                item->setData(Qt::DisplayRole, values[c]);
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_table->setItem(row, ConflictsColumn + c, item);
            }
            if (!result.error.isEmpty())
                m_table->item(row, DesignColumn)->setToolTip(result.error);
            QStringList fights;
            for (const auto &fight : result.fights)
                fights << fight.object + u' ' + fight.describe();
            m_table->item(row, FightsColumn)->setToolTip(fights.join(u'\n'));
            categories << design + u' ' + name;
            *sets[0] << double(f.conflicts);
            *sets[1] << double(f.lostUpdates);
            *sets[2] << double(f.generationBumps);
            *sets[3] << double(f.reconciles);
            *sets[4] << double(f.ownershipChanges);
            ++row;
        }
    }

    QChart *chart = m_chartView->chart();
    chart->removeAllSeries();
    for (QAbstractAxis *axis : chart->axes())
        chart->removeAxis(axis);
    auto *series = new QBarSeries;
    series->append(sets);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    auto *y = new QValueAxis;
    double top = 1;
    for (const QBarSet *set : std::as_const(sets)) {
        for (int i = 0; i < set->count(); ++i)
            top = std::max(top, set->at(i));
    }
    y->setRange(0, top * 1.1);
    y->applyNiceNumbers();
    y->setLabelFormat(u"%d"_s);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

} // namespace reconscope::ui
