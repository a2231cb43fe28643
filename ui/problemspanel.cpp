#include "ui/problemspanel.h"

#include "controller/console/crdoverview.h"
#include "models/problemlistmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::CrdOverview;
using models::ProblemKind;
using models::ProblemListModel;

ProblemsPanel::ProblemsPanel(CrdOverview *overview, QWidget *parent)
    : QWidget(parent)
    , m_overview(overview)
    , m_model(new ProblemListModel(this))
    , m_view(new QTreeView(this))
    , m_summary(new QLabel(this))
    , m_refreshTimer(new QTimer(this))
    , m_changeTimer(new QTimer(this))
{
    setWindowTitle(tr("Problems"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setStretchLastSection(true);
    for (int column : { ProblemListModel::KindColumn,
                        ProblemListModel::ResourceColumn,
                        ProblemListModel::ObjectColumn,
                        ProblemListModel::AgeColumn })
        m_view->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_summary->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_view);

    m_refreshTimer->setInterval(1000);
    connect(m_refreshTimer, &QTimer::timeout, this, &ProblemsPanel::refresh);
    m_refreshTimer->start();
    m_changeTimer->setInterval(200);
    m_changeTimer->setSingleShot(true);
    connect(m_changeTimer, &QTimer::timeout, this, &ProblemsPanel::refresh);
    connect(m_overview, &CrdOverview::countsChanged, m_changeTimer, qOverload<>(&QTimer::start));
    connect(m_overview, &CrdOverview::resourcesChanged, this, &ProblemsPanel::refresh);
    connect(m_view->selectionModel(),
            &QItemSelectionModel::currentChanged,
            this,
            &ProblemsPanel::handleCurrentChanged);
    refresh();
}

ProblemsPanel::~ProblemsPanel() = default;

void ProblemsPanel::setThresholds(const models::ProblemThresholds &thresholds)
{
    m_thresholds = thresholds;
    refresh();
}

void ProblemsPanel::refresh()
{
    const QDateTime now = m_overview->now();
    const QList<models::Problem> problems
        = m_overview->problemTracker().problems(now, m_thresholds);
    m_model->setProblems(problems, now);
    std::array<int, 4> perKind{};
    for (const models::Problem &problem : problems)
        ++perKind[int(problem.kind)];
    QStringList parts;
    for (int kind = 0; kind < int(perKind.size()); ++kind) {
        if (perKind[kind] > 0)
            parts << u"%1 %2"_s.arg(perKind[kind]).arg(models::problemKindName(ProblemKind(kind)));
    }
    m_summary->setText(
        parts.isEmpty()
            ? tr("No problems across %1 objects of %2 custom resources.")
                  .arg(m_overview->totalObjects())
                  .arg(m_overview->resources().size())
            : tr("%1 — across %2 objects of %3 custom resources (Terminating after %4 s, stale "
                 "after %5 s, Pending after %6 s).")
                  .arg(parts.join(u" · "_s))
                  .arg(m_overview->totalObjects())
                  .arg(m_overview->resources().size())
                  .arg(m_thresholds.terminating.count())
                  .arg(m_thresholds.stale.count())
                  .arg(m_thresholds.pending.count()));
}

void ProblemsPanel::handleCurrentChanged()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return;
    emit objectSelected(current.data(ProblemListModel::ResourceRole).toString(),
                        current.data(ProblemListModel::KeyRole).toString());
}

} // namespace reconscope::ui
