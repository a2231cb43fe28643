#pragma once

#include "controller/labs/rawapi.h"

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// The raw API console: `kubectl get --raw PATH` for any path with the answer as
// pretty JSON, the paths asked so far (history, newest first, with their HTTP codes), and a watch
// mode that streams a collection's events (?watch=1) until stopped.
class RawApiConsole final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RawApiConsole)

public:
    static constexpr int MaxEvents = 2000; // the oldest events go first

    explicit RawApiConsole(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~RawApiConsole() override;

    controller::labs::RawApi *api() const { return m_api; }
    void setPath(const QString &path);
    QString path() const;
    // The path of the selected object (the table's selection), as the seed's get --raw.
    void setSelectedObject(const QString &key);

    void get();
    bool startWatch();
    void stopWatch();

    QAction *getAction() const { return m_get; }
    QAction *watchAction() const { return m_watch; }
    QAction *stopAction() const { return m_stop; }
    QPlainTextEdit *output() const { return m_output; }
    QLabel *statusLabel() const { return m_status; }
    QListWidget *historyList() const { return m_history; }
    QListWidget *eventList() const { return m_events; }

private:
    void handleAnswered(const controller::labs::RawResult &result);
    void handleWatchEvent(const QString &type, const QByteArray &object);
    void handleWatchEnded(const QString &message);
    void updateActions();

    controller::console::ConsoleSession *m_session;
    controller::labs::RawApi *m_api;
    QComboBox *m_path;
    QLabel *m_status;
    QPlainTextEdit *m_output;
    QListWidget *m_history;
    QListWidget *m_events;
    QAction *m_get;
    QAction *m_watch;
    QAction *m_stop;
    QList<controller::labs::RawResult> m_results; // newest first, as the history list
    QList<QByteArray> m_eventObjects; // as the event list
};

} // namespace reconscope::ui
