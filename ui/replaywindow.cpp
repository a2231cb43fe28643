#include "ui/replaywindow.h"

#include "controller/record/replaytimeline.h"
#include "ui/replaydetailpane.h"
#include "ui/replayscrubber.h"
#include "ui/resourcetablepanel.h"
#include "ui/stategraphpanel.h"

#include <QActionGroup>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::record::ReplayTimeline;

ReplayWindow::ReplayWindow(std::unique_ptr<ReplayTimeline> timeline,
                           const QStringList &files,
                           QWidget *parent)
    : QMainWindow(parent)
    , m_timeline(std::move(timeline))
    , m_table(new ResourceTablePanel(m_timeline->tableModel(), this))
    , m_graph(new StateGraphPanel(
          StateGraphPanel::Source{
              [this]() -> const models::LifecycleTracker & { return m_timeline->tracker(); },
              [this] {
                  return m_timeline->now();
              } },
          this))
    , m_detail(new ReplayDetailPane(m_timeline.get(), this))
    , m_scrubber(new ReplayScrubber(m_timeline.get(), this))
    , m_recordingLabel(new QLabel(this))
    , m_files(files)
{
    QStringList names;
    for (const QString &file : files)
        names.append(QFileInfo(file).fileName());
    setWindowTitle(tr("%1 — %2 — recording, read-only — Reconscope")
                       .arg(names.join(u", "_s), m_timeline->resourceName()));
    resize(1600, 1000);

    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *openOther = fileMenu->addAction(tr("&Open Recording…"), this, [this] {
        openInteractively(parentWidget() ? parentWidget() : this);
    });
    openOther->setShortcut(QKeySequence::Open);
    auto *close = fileMenu->addAction(tr("&Close"), this, &QWidget::close);
    close->setShortcut(QKeySequence::Close);
    // A recording of several resources (record --all-crds, merged captures) shows one per window.
    m_resourceMenu = menuBar()->addMenu(tr("Re&source"));
    auto *resources = new QActionGroup(this);
    for (const QString &resource : m_timeline->resourceNames()) {
        if (resource == u"events"_s || resource.startsWith(u"events."_s))
            continue;
        QAction *action = m_resourceMenu->addAction(resource);
        action->setData(resource);
        action->setCheckable(true);
        action->setChecked(resource == m_timeline->resourceName());
        resources->addAction(action);
        connect(action, &QAction::triggered, this, [this, resource] { openResource(resource); });
    }
    auto *replayMenu = menuBar()->addMenu(tr("&Replay"));
    replayMenu->addActions(m_scrubber->actions());
    auto *graphMenu = menuBar()->addMenu(tr("&Graph"));
    graphMenu->addActions(m_graph->actions());

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_graph);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({ 340, 480 });
    auto *centre = new QWidget(this);
    auto *layout = new QVBoxLayout(centre);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_scrubber);
    setCentralWidget(centre);

    auto *dock = new QDockWidget(m_detail->windowTitle(), this);
    dock->setObjectName(u"details"_s);
    dock->setWidget(m_detail);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    resizeDocks({ dock }, { 560 }, Qt::Horizontal);

    const auto &end = m_timeline->end();
    QString said = tr("Recording, read-only · %1 records · %2")
                       .arg(m_timeline->recordCount())
                       .arg(end.complete ? tr("complete") : end.describe());
    if (!m_timeline->warnings().isEmpty())
        said += tr(" · %n warning(s)", nullptr, int(m_timeline->warnings().size()));
    m_recordingLabel->setText(said);
    m_recordingLabel->setToolTip(m_timeline->warnings().join(u'\n'));
    statusBar()->addWidget(m_recordingLabel, 1);

    connect(
        m_table, &ResourceTablePanel::objectSelected, this, &ReplayWindow::handleObjectSelected);
    connect(m_timeline.get(),
            &ReplayTimeline::transitionsObserved,
            m_graph,
            &StateGraphPanel::handleTransitions);
    connect(m_timeline.get(), &ReplayTimeline::positionChanged, m_graph, &StateGraphPanel::refresh);
    connect(
        m_timeline.get(), &ReplayTimeline::positionChanged, this, &ReplayWindow::handlePosition);
    m_graph->refresh();
    m_table->setFocus();
}

ReplayWindow::~ReplayWindow()
{
    m_timeline->pause();
}

void ReplayWindow::openResource(const QString &resource)
{
    if (resource == m_timeline->resourceName())
        return;
    // This window keeps showing its resource (its action checked again): the other opens beside.
    for (QAction *action : m_resourceMenu->actions())
        action->setChecked(action->data().toString() == m_timeline->resourceName());
    QString error;
    ReplayWindow *window = open(m_files, parentWidget(), &error, resource);
    if (!window) {
        QMessageBox::warning(this, tr("Open Recording"), error);
        return;
    }
    window->resize(size());
    window->show();
    emit resourceWindowOpened(window);
}

ReplayWindow *ReplayWindow::open(const QStringList &paths,
                                 QWidget *parent,
                                 QString *error,
                                 const QString &resource)
{
    auto timeline = ReplayTimeline::open(paths, resource);
    if (!timeline) {
        *error = timeline.error().message;
        return nullptr;
    }
    auto *window = new ReplayWindow(std::move(timeline).value(), paths, parent);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setWindowFlag(Qt::Window);
    return window;
}

ReplayWindow *ReplayWindow::openInteractively(QWidget *parent)
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        parent,
        tr("Open Recording"),
        QString(),
        tr("Recordings and kubectl captures (*.rrec *.jsonl *.json);;All files (*)"));
    if (paths.isEmpty())
        return nullptr;
    QString error;
    ReplayWindow *window = open(paths, parent, &error);
    if (!window) {
        QMessageBox::warning(parent, tr("Open Recording"), error);
        return nullptr;
    }
    window->show();
    return window;
}

void ReplayWindow::handleObjectSelected(const QString &key)
{
    // The replay took the selected object's row away (before it existed, after its deletion) and
    // the table's current row moved: the object stays selected (shown as not existing then),
    // and its row is selected again once it exists.
    if (m_timeline->isUpdatingTable() && !m_selectedKey.isEmpty())
        return;
    m_selectedKey = key;
    m_detail->showObject(key);
    m_graph->setSelectedObject(key);
    m_scrubber->setMarkedObject(key);
}

void ReplayWindow::handlePosition()
{
    if (!m_selectedKey.isEmpty() && m_table->selectedKey() != m_selectedKey
        && m_timeline->cursor().rows().contains(m_selectedKey))
        m_table->selectKey(m_selectedKey);
}

} // namespace reconscope::ui
