#pragma once

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QTableView;
class QTimer;

namespace reconscope::controller::console {
class ScenarioPlayer;
}

namespace reconscope::models {
class ScenarioTimelineModel;
}

namespace reconscope::ui {

// The demo scenario player: play / pause, the speed (0.5x-8x), step now, rewind, and the timeline
// of the scenario's steps (when, what, what should follow, how it went), the running step
// highlighted and kept in view.
class ScenarioPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ScenarioPanel)

public:
    static const QList<double> Speeds;

    explicit ScenarioPanel(controller::console::ScenarioPlayer *player, QWidget *parent = nullptr);
    ~ScenarioPanel() override;

    QAction *playAction() const { return m_play; }
    QAction *stepAction() const { return m_step; }
    QAction *rewindAction() const { return m_rewind; }
    QComboBox *speedBox() const { return m_speed; }
    QLabel *statusLabel() const { return m_status; }
    QTableView *timelineView() const { return m_view; }
    models::ScenarioTimelineModel *timelineModel() const { return m_model; }

private:
    void handlePlayingChanged(bool playing);
    void handleStepFinished(int step, bool ok, const QString &message);
    void updateStatus();

    controller::console::ScenarioPlayer *m_player;
    models::ScenarioTimelineModel *m_model;
    QAction *m_play;
    QAction *m_step;
    QAction *m_rewind;
    QComboBox *m_speed;
    QLabel *m_status;
    QTableView *m_view;
    QTimer *m_countdown;
};

} // namespace reconscope::ui
