#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace reconscope::models {
class ConditionsModel;
class TransitionTimelineModel;
} // namespace reconscope::models

namespace reconscope::ui {

class ConsoleSession;

// Everything about one object: a header (name, state, reason), spec and status side by side, the
// conditions table (lastTransitionTime, observedGeneration), the object's transition timeline,
// the raw JSON, and its Events (core/v1, fieldSelector involvedObject). Follows the session: the
// shown object is refreshed when a batch changes it.
class DetailPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DetailPane)

public:
    explicit DetailPane(ConsoleSession *session, QWidget *parent = nullptr);
    ~DetailPane() override;

    void showObject(const QString &key);
    QString objectKey() const { return m_key; }

    QTabWidget *tabs() const { return m_tabs; }
    QLabel *header() const { return m_header; }
    QPlainTextEdit *specView() const { return m_spec; }
    QPlainTextEdit *statusView() const { return m_status; }
    QPlainTextEdit *rawView() const { return m_raw; }
    models::ConditionsModel *conditionsModel() const { return m_conditions; }
    models::TransitionTimelineModel *timelineModel() const { return m_timeline; }
    QTableWidget *eventsTable() const { return m_events; }
    void refreshEvents();

signals:
    void eventsLoaded(int count);

private:
    void refresh();
    void handleObjectsChanged(const QStringList &upserted, const QStringList &removed);

    ConsoleSession *m_session;
    QString m_key;
    QLabel *m_header;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_spec;
    QPlainTextEdit *m_status;
    QPlainTextEdit *m_raw;
    models::ConditionsModel *m_conditions;
    models::TransitionTimelineModel *m_timeline;
    QTableWidget *m_events;
    quint64 m_eventsRequest = 0;
};

} // namespace reconscope::ui
