#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace reconscope::controller::record {
class ReplayTimeline;
}

namespace reconscope::models {
class ConditionsModel;
class TransitionTimelineModel;
} // namespace reconscope::models

namespace reconscope::ui {

// One object of a replay as it was at the replay's position: the header (state, reason,
// generations), spec and status, conditions, its transition timeline up to that moment and the
// raw JSON. Follows the timeline: refreshed whenever the position moves.
class ReplayDetailPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayDetailPane)

public:
    explicit ReplayDetailPane(controller::record::ReplayTimeline *timeline,
                              QWidget *parent = nullptr);
    ~ReplayDetailPane() override;

    void showObject(const QString &key);
    QString objectKey() const { return m_key; }
    QLabel *header() const { return m_header; }
    QTabWidget *tabs() const { return m_tabs; }
    QPlainTextEdit *rawView() const { return m_raw; }
    models::TransitionTimelineModel *timelineModel() const { return m_timeline; }
    models::ConditionsModel *conditionsModel() const { return m_conditions; }

private:
    void refresh();

    controller::record::ReplayTimeline *m_replay;
    QString m_key;
    QLabel *m_header;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_spec;
    QPlainTextEdit *m_status;
    QPlainTextEdit *m_raw;
    models::ConditionsModel *m_conditions;
    models::TransitionTimelineModel *m_timeline;
};

} // namespace reconscope::ui
