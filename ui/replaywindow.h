#pragma once

#include <QMainWindow>
#include <QStringList>

#include <memory>

class QLabel;
class QMenu;

namespace reconscope::controller::record {
class ReplayTimeline;
}

namespace reconscope::ui {

class ReplayDetailPane;
class ReplayScrubber;
class ResourceTablePanel;
class StateGraphPanel;

// A recording opened read-only (File → Open Recording…): the console's table over its state
// graph, the object details and timeline on the right, and the scrubber below, all fed by one
// ReplayTimeline and showing the moment the scrubber stands at. Nothing here writes to a cluster:
// the window has no write action at all, and its title says it shows a recording.
class ReplayWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayWindow)

public:
    // `files` name what was opened (the title).
    ReplayWindow(std::unique_ptr<controller::record::ReplayTimeline> timeline,
                 const QStringList &files,
                 QWidget *parent = nullptr);
    ~ReplayWindow() override;

    // Opens recording files (or kubectl captures, merged) in a new window, deleted on close,
    // showing `resource` (a qualified name; empty: the first recorded that is not Events); null
    // and `error` set when they cannot be read.
    static ReplayWindow *
    open(const QStringList &paths, QWidget *parent, QString *error, const QString &resource = {});
    // Asks for the files, then open(); says why when they cannot be read.
    static ReplayWindow *openInteractively(QWidget *parent);

    controller::record::ReplayTimeline *timeline() const { return m_timeline.get(); }
    ResourceTablePanel *tablePanel() const { return m_table; }
    StateGraphPanel *graphPanel() const { return m_graph; }
    ReplayDetailPane *detailPane() const { return m_detail; }
    ReplayScrubber *scrubber() const { return m_scrubber; }
    QLabel *recordingLabel() const { return m_recordingLabel; }
    // The Resource menu: one checkable action per recorded resource but Events (its data: the
    // qualified name); choosing another opens the same files in a window showing it.
    QMenu *resourceMenu() const { return m_resourceMenu; }

signals:
    // Another resource of the recording was opened in `window` (shown, deleted on close).
    void resourceWindowOpened(reconscope::ui::ReplayWindow *window);

private:
    void handleObjectSelected(const QString &key);
    void handlePosition();
    void openResource(const QString &resource);

    std::unique_ptr<controller::record::ReplayTimeline> m_timeline;
    ResourceTablePanel *m_table;
    StateGraphPanel *m_graph;
    ReplayDetailPane *m_detail;
    ReplayScrubber *m_scrubber;
    QLabel *m_recordingLabel;
    QMenu *m_resourceMenu = nullptr;
    QStringList m_files;
    QString m_selectedKey;
};

} // namespace reconscope::ui
