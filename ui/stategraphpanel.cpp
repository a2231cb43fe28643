#include "ui/stategraphpanel.h"

#include "controller/console/consolesession.h"
#include "ui/stategraphscene.h"

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QGraphicsView>
#include <QLabel>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

StateGraphPanel::StateGraphPanel(ConsoleSession *session, QWidget *parent)
    : StateGraphPanel(
        Source{ [session]() -> const models::LifecycleTracker & { return session->tracker(); },
                [] {
                    return QDateTime::currentDateTimeUtc();
                } },
        parent)
{
    connect(
        session, &ConsoleSession::transitionsObserved, this, &StateGraphPanel::handleTransitions);
    connect(session, &ConsoleSession::trackerReset, this, &StateGraphPanel::refresh);
}

StateGraphPanel::StateGraphPanel(Source source, QWidget *parent)
    : QWidget(parent)
    , m_source(std::move(source))
    , m_scene(new StateGraphScene(this))
    , m_view(new QGraphicsView(m_scene, this))
    , m_objectMode(new QAction(tr("&Object Mode"), this))
    , m_clockTimer(new QTimer(this))
{
    setWindowTitle(tr("State Graph"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setFocusPolicy(Qt::NoFocus);
    // Keep the drawing fitted whenever the view's own size changes (the panel's resize comes
    // before its children are laid out, and the first one before it is shown).
    m_view->viewport()->installEventFilter(this);

    m_objectMode->setCheckable(true);
    m_objectMode->setToolTip(
        tr("Count only the selected object's moves (aggregate mode counts the whole resource)"));
    m_objectMode->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    connect(m_objectMode, &QAction::toggled, this, [this](bool checked) {
        m_scene->setMode(checked ? StateGraphScene::Mode::Object
                                 : StateGraphScene::Mode::Aggregate);
    });
    auto *exportSvg = new QAction(tr("Export Graph as &SVG…"), this);
    connect(exportSvg, &QAction::triggered, this, [this] { exportInteractively(u"svg"_s); });
    auto *exportPng = new QAction(tr("Export Graph as &PNG…"), this);
    connect(exportPng, &QAction::triggered, this, [this] { exportInteractively(u"png"_s); });
    addActions({ m_objectMode, exportSvg, exportPng });

    auto *toolbar = new QToolBar(this);
    toolbar->setIconSize(QSize(16, 16));
    auto *title = new QLabel(tr("<b>State graph</b>"), toolbar);
    title->setContentsMargins(6, 0, 12, 0);
    toolbar->addWidget(title);
    toolbar->addActions(actions());

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(toolbar);
    layout->addWidget(m_view, 1);

    // Time-in-state figures move on while nothing happens.
    m_clockTimer->setInterval(1000);
    connect(m_clockTimer, &QTimer::timeout, this, &StateGraphPanel::refreshStatistics);
    m_clockTimer->start();
    refreshStatistics();
}

StateGraphPanel::~StateGraphPanel() = default;

void StateGraphPanel::handleTransitions(const QList<models::Transition> &transitions)
{
    refreshStatistics();
    bool selectedMoved = false;
    for (const models::Transition &transition : transitions) {
        m_scene->animateTransition(transition);
        selectedMoved = selectedMoved || transition.key == m_selectedKey;
    }
    if (selectedMoved)
        refreshSelection();
}

void StateGraphPanel::refresh()
{
    refreshStatistics();
    refreshSelection();
}

void StateGraphPanel::refreshStatistics()
{
    m_scene->setStatistics(m_source.tracker().stats(), m_source.now());
    // Off-design edges may have widened the drawing.
    if (m_scene->contentRect() != m_fitted)
        fit();
}

void StateGraphPanel::setSelectedObject(const QString &key)
{
    m_selectedKey = key;
    refreshSelection();
}

void StateGraphPanel::refreshSelection()
{
    const auto &log = m_source.tracker().log();
    m_scene->setSelectedObject(m_selectedKey, log.history(m_selectedKey), log.state(m_selectedKey));
}

void StateGraphPanel::fit()
{
    m_fitted = m_scene->contentRect();
    m_view->fitInView(m_fitted, Qt::KeepAspectRatio);
}

bool StateGraphPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        fit();
    return QWidget::eventFilter(watched, event);
}

bool StateGraphPanel::exportTo(const QString &fileName)
{
    if (fileName.endsWith(u".svg"_s, Qt::CaseInsensitive))
        return m_scene->exportSvg(fileName);
    return m_scene->exportPng(fileName);
}

void StateGraphPanel::exportInteractively(const QString &suffix)
{
    const QString filter = suffix == u"svg" ? tr("SVG images (*.svg)") : tr("PNG images (*.png)");
    QString fileName = QFileDialog::getSaveFileName(
        this, tr("Export State Graph"), u"state-graph."_s + suffix, filter);
    if (fileName.isEmpty())
        return;
    if (!fileName.endsWith(u'.' + suffix, Qt::CaseInsensitive))
        fileName += u'.' + suffix;
    exportTo(fileName);
}

} // namespace reconscope::ui
