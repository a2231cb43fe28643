#include "ui/replayscrubber.h"

#include "controller/record/replaytimeline.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolButton>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::record::ReplayTimeline;

MarkedSlider::MarkedSlider(QWidget *parent)
    : QSlider(Qt::Horizontal, parent)
{
    setMinimumHeight(28);
}

void MarkedSlider::setMarkers(QList<int> values)
{
    m_markers = std::move(values);
    update();
}

void MarkedSlider::paintEvent(QPaintEvent *event)
{
    QSlider::paintEvent(event);
    if (m_markers.isEmpty() || maximum() <= minimum())
        return;
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect groove
        = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const QRect handle
        = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    // The handle's centre travels over the groove less the handle's width.
    const int span = groove.width() - handle.width();
    QPainter painter(this);
    painter.setPen(QPen(QColor(0xd8, 0x43, 0x15), 2));
    for (const int value : std::as_const(m_markers)) {
        const int x = groove.left() + handle.width() / 2
            + QStyle::sliderPositionFromValue(minimum(), maximum(), value, span);
        painter.drawLine(x, groove.top() - 3, x, groove.top() + 2);
        painter.drawLine(x, groove.bottom() - 2, x, groove.bottom() + 3);
    }
}

QList<double> ReplayScrubber::speeds()
{
    return { 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64 };
}

ReplayScrubber::ReplayScrubber(ReplayTimeline *timeline, QWidget *parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_slider(new MarkedSlider(this))
    , m_time(new QLabel(this))
    , m_speed(new QComboBox(this))
    , m_play(new QAction(tr("&Play"), this))
    , m_stepForward(new QAction(tr("Step to &Next Transition"), this))
    , m_stepBackward(new QAction(tr("Step to P&revious Transition"), this))
{
    m_play->setShortcut(QKeySequence(Qt::Key_Space));
    m_stepForward->setShortcut(QKeySequence(Qt::Key_Right));
    m_stepBackward->setShortcut(QKeySequence(Qt::Key_Left));
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_stepForward->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_stepBackward->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
    for (QAction *action : { m_stepBackward, m_play, m_stepForward })
        action->setToolTip(u"%1 (%2)"_s.arg(action->text().remove(u'&'),
                                            action->shortcut().toString(QKeySequence::NativeText)));
    connect(m_play, &QAction::triggered, this, [this] {
        if (m_timeline->isPlaying())
            m_timeline->pause();
        else
            m_timeline->play();
    });
    connect(m_stepForward, &QAction::triggered, this, [this] { m_timeline->stepForward(); });
    connect(m_stepBackward, &QAction::triggered, this, [this] { m_timeline->stepBackward(); });
    addActions({ m_play, m_stepBackward, m_stepForward });

    for (const double speed : speeds())
        m_speed->addItem(u"%1×"_s.arg(speed), speed);
    m_speed->setCurrentIndex(int(speeds().indexOf(1.0)));
    m_speed->setToolTip(tr("Replay speed"));
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_timeline->setSpeed(m_speed->itemData(index).toDouble());
    });

    // The slider counts milliseconds from the first record; a move of it seeks.
    m_slider->setRange(0, int((m_timeline->endTime() - m_timeline->startTime()) / 1000));
    m_slider->setPageStep(std::max(1, m_slider->maximum() / 20));
    m_slider->setFocusPolicy(Qt::NoFocus); // the arrows step between transitions instead
    connect(m_slider, &QSlider::valueChanged, this, &ReplayScrubber::handleSliderMoved);
    m_time->setTextFormat(Qt::PlainText);
    m_time->setMinimumWidth(m_time->fontMetrics().horizontalAdvance(
        u"2026-12-31 23:59:59.999  +99m 59.9s / 99m 59.9s"_s));

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    for (QAction *action : { m_stepBackward, m_play, m_stepForward }) {
        auto *button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        layout->addWidget(button);
    }
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_time);
    layout->addWidget(m_speed);

    connect(m_timeline, &ReplayTimeline::positionChanged, this, &ReplayScrubber::handlePosition);
    connect(m_timeline, &ReplayTimeline::playingChanged, this, &ReplayScrubber::handlePlaying);
    handlePosition(m_timeline->position());
    handlePlaying(m_timeline->isPlaying());
}

ReplayScrubber::~ReplayScrubber() = default;

void ReplayScrubber::setMarkedObject(const QString &key)
{
    m_markedKey = key;
    QList<int> values;
    for (const qint64 time : m_timeline->transitionTimesOf(key))
        values.append(int((time - m_timeline->startTime()) / 1000));
    m_slider->setMarkers(values);
}

void ReplayScrubber::handlePosition(qint64 time)
{
    m_updating = true;
    m_slider->setValue(int((time - m_timeline->startTime()) / 1000));
    m_updating = false;
    m_time->setText(describeTime(time));
}

void ReplayScrubber::handlePlaying(bool playing)
{
    m_play->setText(playing ? tr("&Pause") : tr("&Play"));
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void ReplayScrubber::handleSliderMoved(int value)
{
    if (m_updating)
        return;
    // The slider's last millisecond is the recording's end (its last record, to the microsecond).
    m_timeline->seek(value >= m_slider->maximum() ? m_timeline->endTime()
                                                  : m_timeline->startTime() + qint64(value) * 1000);
}

QString ReplayScrubber::describeTime(qint64 time) const
{
    const auto span = [](qint64 micros) {
        const qint64 tenths = micros / 100'000;
        const qint64 minutes = tenths / 600;
        const QString seconds = u"%1.%2s"_s.arg((tenths / 10) % 60).arg(tenths % 10);
        return minutes > 0 ? u"%1m %2"_s.arg(minutes).arg(seconds) : seconds;
    };
    return u"%1  +%2 / %3"_s.arg(m_timeline->wallTime(time).toString(u"yyyy-MM-dd HH:mm:ss.zzz"_s),
                                 span(time - m_timeline->startTime()),
                                 span(m_timeline->endTime() - m_timeline->startTime()));
}

} // namespace reconscope::ui
