#include "ui/scenariopanel.h"

#include "controller/console/scenarioplayer.h"
#include "models/scenariotimelinemodel.h"

#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ScenarioPlayer;

const QList<double> ScenarioPanel::Speeds{ 0.5, 1, 2, 4, 8 };

ScenarioPanel::ScenarioPanel(ScenarioPlayer *player, QWidget *parent)
    : QWidget(parent)
    , m_player(player)
    , m_model(new models::ScenarioTimelineModel(this))
    , m_play(new QAction(tr("&Play Scenario"), this))
    , m_step(new QAction(tr("Run &Next Step Now"), this))
    , m_rewind(new QAction(tr("Re&wind Scenario"), this))
    , m_speed(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_view(new QTableView(this))
    , m_countdown(new QTimer(this))
{
    setWindowTitle(tr("Scenario"));
    m_play->setCheckable(true);
    m_play->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Space));
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_step->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_rewind->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
    connect(m_play, &QAction::toggled, m_player, &ScenarioPlayer::setPlaying);
    connect(m_step, &QAction::triggered, m_player, &ScenarioPlayer::stepNow);
    connect(m_rewind, &QAction::triggered, m_player, &ScenarioPlayer::rewind);
    addActions({ m_play, m_step, m_rewind });

    for (double speed : Speeds)
        m_speed->addItem(u"%1×"_s.arg(speed), speed);
    m_speed->setToolTip(tr("Playback speed of the scenario's timings"));
    m_speed->setCurrentIndex(int(Speeds.indexOf(m_player->speed())));
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            m_player->setSpeed(m_speed->itemData(index).toDouble());
    });

    auto *toolbar = new QToolBar(this);
    toolbar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    toolbar->addActions(actions());
    toolbar->addSeparator();
    toolbar->addWidget(new QLabel(tr(" Speed "), toolbar));
    toolbar->addWidget(m_speed);

    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::NoSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    // Whole step titles, wrapped, rather than "Wait until tour-quota/in…" in a narrow dock.
    m_view->setWordWrap(true);
    m_view->setTextElideMode(Qt::ElideNone);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setAlternatingRowColors(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The step's title takes the room; the result is a mark (the message is its tooltip).
    m_view->horizontalHeader()->setSectionResizeMode(models::ScenarioTimelineModel::StepColumn,
                                                     QHeaderView::Stretch);
    m_view->setColumnHidden(models::ScenarioTimelineModel::ExpectColumn, true);

    m_status->setContentsMargins(6, 2, 6, 2);
    m_status->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(toolbar);
    layout->addWidget(m_status);
    layout->addWidget(m_view, 1);

    const auto loadScenario = [this] {
        m_model->setScenario(m_player->scenario());
        updateStatus();
    };
    connect(m_player, &ScenarioPlayer::scenarioChanged, this, loadScenario);
    connect(m_player, &ScenarioPlayer::rewound, this, [this] {
        m_model->resetOutcomes();
        updateStatus();
    });
    connect(m_player, &ScenarioPlayer::playingChanged, this, &ScenarioPanel::handlePlayingChanged);
    connect(m_player, &ScenarioPlayer::speedChanged, this, [this](double speed) {
        const int index = m_speed->findData(speed);
        if (index >= 0)
            m_speed->setCurrentIndex(index);
        updateStatus();
    });
    connect(m_player, &ScenarioPlayer::stepStarted, this, [this](int step) {
        m_model->setRunning(step);
        m_view->scrollTo(m_model->index(step, 0));
        updateStatus();
    });
    connect(m_player, &ScenarioPlayer::stepFinished, this, &ScenarioPanel::handleStepFinished);
    m_countdown->setInterval(250);
    connect(m_countdown, &QTimer::timeout, this, &ScenarioPanel::updateStatus);

    loadScenario();
    handlePlayingChanged(m_player->isPlaying());
}

ScenarioPanel::~ScenarioPanel() = default;

void ScenarioPanel::handlePlayingChanged(bool playing)
{
    const QSignalBlocker blocker(m_play);
    m_play->setChecked(playing);
    m_play->setText(playing ? tr("&Pause Scenario") : tr("&Play Scenario"));
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    if (playing)
        m_countdown->start();
    else
        m_countdown->stop();
    updateStatus();
}

void ScenarioPanel::handleStepFinished(int step, bool ok, const QString &message)
{
    m_model->setFinished(step, ok, message);
    if (m_player->scenario().steps.value(step).verb == models::ScenarioStep::Verb::WaitFor)
        m_model->setWaited(step, m_player->waitedMs());
    updateStatus();
}

void ScenarioPanel::updateStatus()
{
    const auto &scenario = m_player->scenario();
    if (scenario.steps.isEmpty()) {
        m_status->setText(tr("<i>No scenario loaded.</i>"));
        return;
    }
    const int next = m_player->nextStep();
    if (m_player->isWaiting())
        m_model->setWaited(next, m_player->waitedMs()); // the steps after it move on live
    QString where;
    if (next >= scenario.steps.size())
        where = tr("finished");
    else if (m_player->isWaiting())
        where = tr("step %1/%2 waiting for %3 to be %4 (%5 s of %6; now %7)")
                    .arg(next + 1)
                    .arg(scenario.steps.size())
                    .arg(scenario.steps[next].objectKey().toHtmlEscaped(),
                         scenario.steps[next].waitTargetText())
                    .arg(m_player->waitedMs() / 1000)
                    .arg(scenario.steps[next].timeoutMs / 1000)
                    .arg(m_player->lastObserved().toHtmlEscaped());
    else if (m_player->isStepRunning())
        where = tr("step %1/%2 running").arg(next + 1).arg(scenario.steps.size());
    else
        where = tr("step %1/%2 in %3 s")
                    .arg(next + 1)
                    .arg(scenario.steps.size())
                    .arg(double(m_player->remainingMs()) / 1000.0 / m_player->speed(), 0, 'f', 1);
    QString text = u"<b>%1</b> — %2 · %3 · %4×%5"_s.arg(
        scenario.name.toHtmlEscaped(),
        m_player->isPlaying() ? tr("playing") : tr("paused"),
        where,
        QString::number(m_player->speed()),
        m_player->round() > 0 ? tr(" · round %1").arg(m_player->round() + 1) : QString());
    // A wait that timed out paused the player: say so until it plays again.
    if (!m_player->pauseReason().isEmpty())
        text += u"<br><span style=\"color:#b71c1c\"><b>%1</b> %2</span>"_s.arg(
            tr("Paused:"),
            tr("%1. Play goes on with the next step.")
                .arg(m_player->pauseReason().toHtmlEscaped()));
    m_status->setText(text);
}

} // namespace reconscope::ui
