#pragma once

#include <QObject>
#include <QString>

class QAction;
class QLabel;
class QWidget;

namespace reconscope::controller::console {
class ConsoleRecording;
class ConsoleSession;
} // namespace reconscope::controller::console

namespace reconscope::controller::record {
struct RecorderStats;
}

namespace reconscope::ui {

// The console's recording actions for its File menu: Open Recording… (Ctrl+O: a replay window),
// Record… (what the console watches, into a file) and Stop Recording, and the status-bar
// indicator of a recording running (bytes and events written).
class RecordingActions final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecordingActions)

public:
    RecordingActions(controller::console::ConsoleSession *session, QWidget *window);
    ~RecordingActions() override;

    QList<QAction *> actions() const;
    QAction *openAction() const { return m_open; }
    QAction *recordAction() const { return m_record; }
    QAction *stopAction() const { return m_stop; }
    QLabel *indicator() const { return m_indicator; }
    controller::console::ConsoleRecording *recording() const { return m_recording; }

    // Records what the console watches into `path` (Record… asks for it).
    void startRecording(const QString &path);

private:
    void handleProgress(const controller::record::RecorderStats &stats);
    void handleEnded(const QString &message);
    void updateActions();

    controller::console::ConsoleSession *m_session;
    QWidget *m_window;
    controller::console::ConsoleRecording *m_recording;
    QAction *m_open;
    QAction *m_record;
    QAction *m_stop;
    QLabel *m_indicator;
};

} // namespace reconscope::ui
