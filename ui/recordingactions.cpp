#include "ui/recordingactions.h"

#include "controller/console/consolerecording.h"
#include "controller/console/consolesession.h"
#include "ui/replaywindow.h"

#include <QAction>
#include <QDateTime>
#include <QFileDialog>
#include <QLabel>
#include <QLocale>
#include <QMainWindow>
#include <QStatusBar>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleRecording;
using controller::record::RecorderStats;

RecordingActions::RecordingActions(controller::console::ConsoleSession *session, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_window(window)
    , m_recording(new ConsoleRecording(this))
    , m_open(new QAction(tr("&Open Recording…"), this))
    , m_record(new QAction(tr("&Record…"), this))
    , m_stop(new QAction(tr("S&top Recording"), this))
    , m_indicator(new QLabel(window))
{
    m_open->setShortcut(QKeySequence::Open);
    m_open->setToolTip(tr("Open a recording (or kubectl captures) read-only, with a timeline"));
    m_record->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_record->setToolTip(
        tr("Record what the console watches (its resource, their Events, discovery and CRDs)"));
    m_stop->setToolTip(tr("End the recording: the rest and its end are written"));
    connect(
        m_open, &QAction::triggered, this, [this] { ReplayWindow::openInteractively(m_window); });
    connect(m_record, &QAction::triggered, this, [this] {
        const QString stamp = QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd-HHmmss"_s);
        const QString path
            = QFileDialog::getSaveFileName(m_window,
                                           tr("Record to"),
                                           u"%1-%2.rrec"_s.arg(m_session->resource().plural, stamp),
                                           tr("Recordings (*.rrec)"));
        if (!path.isEmpty())
            startRecording(path);
    });
    connect(m_stop, &QAction::triggered, m_recording, &ConsoleRecording::stop);
    connect(m_recording, &ConsoleRecording::recording, this, [this](const QStringList &what) {
        m_indicator->setToolTip(
            tr("Recording %1 into %2").arg(what.join(u"; "_s), m_recording->path()));
    });
    connect(m_recording, &ConsoleRecording::progress, this, &RecordingActions::handleProgress);
    connect(m_recording, &ConsoleRecording::failed, this, [this](const QString &message) {
        handleEnded(tr("Recording failed: %1").arg(message));
    });
    connect(m_recording, &ConsoleRecording::finished, this, [this](const RecorderStats &stats) {
        handleEnded(stats.error.isEmpty() ? tr("Recorded %1 into %2")
                                                .arg(QLocale().formattedDataSize(stats.fileBytes),
                                                     m_recording->path())
                                          : tr("Recording failed: %1").arg(stats.error));
    });
    m_indicator->setTextFormat(Qt::RichText);
    m_indicator->hide();
    updateActions();
}

RecordingActions::~RecordingActions() = default;

QList<QAction *> RecordingActions::actions() const
{
    return { m_open, m_record, m_stop };
}

void RecordingActions::startRecording(const QString &path)
{
    if (m_recording->isRecording() || !m_session->isConnected())
        return;
    m_recording->start(m_session->clientConfig(), ConsoleRecording::optionsFor(*m_session, path));
    m_indicator->setText(tr("<span style='color:#c62828'>●</span> REC starting…"));
    m_indicator->show();
    updateActions();
}

void RecordingActions::handleProgress(const RecorderStats &stats)
{
    m_indicator->setText(tr("<span style='color:#c62828'>●</span> REC %1 · %2 events · %3 objects "
                            "listed")
                             .arg(QLocale().formattedDataSize(stats.fileBytes))
                             .arg(stats.events)
                             .arg(stats.listItems));
}

void RecordingActions::handleEnded(const QString &message)
{
    m_indicator->hide();
    updateActions();
    if (auto *main = qobject_cast<QMainWindow *>(m_window))
        main->statusBar()->showMessage(message, 10000);
}

void RecordingActions::updateActions()
{
    m_record->setEnabled(!m_recording->isRecording());
    m_stop->setEnabled(m_recording->isRecording());
}

} // namespace reconscope::ui
