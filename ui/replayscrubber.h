#pragma once

#include <QList>
#include <QSlider>
#include <QString>
#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QToolButton;

namespace reconscope::controller::record {
class ReplayTimeline;
}

namespace reconscope::ui {

// A slider over a recording's time with a marker at each of the given times.
class MarkedSlider final : public QSlider
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MarkedSlider)

public:
    explicit MarkedSlider(QWidget *parent = nullptr);
    // Marker positions, in the slider's values.
    void setMarkers(QList<int> values);
    const QList<int> &markers() const { return m_markers; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QList<int> m_markers;
};

// The replay's transport: a slider over the whole recording (milliseconds from its first record)
// with the time it stands at, play/pause, step to the previous/next transition, the speed
// (0.25×–64×), and a marker on the slider for every transition of the selected object. Its
// actions carry the keys: Space plays or pauses, Left/Right step.
class ReplayScrubber final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayScrubber)

public:
    explicit ReplayScrubber(controller::record::ReplayTimeline *timeline,
                            QWidget *parent = nullptr);
    ~ReplayScrubber() override;

    // The object whose transitions are marked ("" for none).
    void setMarkedObject(const QString &key);

    MarkedSlider *slider() const { return m_slider; }
    QLabel *timeLabel() const { return m_time; }
    QComboBox *speedBox() const { return m_speed; }
    QAction *playAction() const { return m_play; }
    QAction *stepForwardAction() const { return m_stepForward; }
    QAction *stepBackwardAction() const { return m_stepBackward; }
    // "0.25×" ... "64×": the speeds offered.
    static QList<double> speeds();

private:
    void handlePosition(qint64 time);
    void handlePlaying(bool playing);
    void handleSliderMoved(int value);
    QString describeTime(qint64 time) const;

    controller::record::ReplayTimeline *m_timeline;
    MarkedSlider *m_slider;
    QLabel *m_time;
    QComboBox *m_speed;
    QAction *m_play;
    QAction *m_stepForward;
    QAction *m_stepBackward;
    QString m_markedKey;
    bool m_updating = false;
};

} // namespace reconscope::ui
