#pragma once

#include "controller/record/recordingset.h"
#include "controller/record/replaycursor.h"
#include "models/result.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <vector>

class QTimer;

namespace reconscope::models {
class ResourceTableModel;
}

namespace reconscope::controller::record {

// The time a replay plays by: milliseconds from any fixed point, never decreasing. Tests give a
// fake one; the console a steady clock.
class ReplayClock
{
public:
    virtual ~ReplayClock();
    virtual qint64 msecs() const = 0;
    static std::shared_ptr<ReplayClock> steady();
};

// A recording (or several, merged) opened read-only for the console: one resource's objects as
// they were at any moment of it. seek() puts the table model, the tracker (the state graph's
// counts and edge counters, each object's transition timeline) and the objects exactly where
// playing the recording from its start to that moment puts them; play() moves on by an injected
// clock at 0.25× to 64×; step to the next or previous transition.
//
// The recording is held in memory and played through once when opened, keeping a copy of the
// state (a checkpoint) every so often: every max(CheckpointRecords, objects) records, so that
// the checkpoints take memory in proportion to the recording, and a seek anywhere restores the
// checkpoint before it and applies at most that many records. Every transition's time is noted
// on that pass (the scrubber's markers). Lives on the UI thread, as the table model does.
class ReplayTimeline final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayTimeline)

public:
    static constexpr double MinSpeed = 0.25;
    static constexpr double MaxSpeed = 64;
    static constexpr qsizetype CheckpointRecords = 2000;

    using OpenResult = models::Result<std::unique_ptr<ReplayTimeline>, RecordingError>;
    // Opens what `reconscope replay` takes: a recording file or kubectl captures (merged by
    // time). A file cut short opens up to its last whole record (end() says where it stopped);
    // a damaged one or a newer format version is refused, the error naming the file and offset.
    static OpenResult open(const QStringList &paths, const QString &resource = {});
    // `resource`: the qualified name of the resource shown; empty: the first recorded that is
    // not Events. `checkpointRecords`: the least number of records between checkpoints.
    explicit ReplayTimeline(Recording recording,
                            const QString &resource = {},
                            qsizetype checkpointRecords = CheckpointRecords,
                            QObject *parent = nullptr);
    ~ReplayTimeline() override;

    const RecordingHeader &header() const { return m_recording.header; }
    const RecordingEnd &end() const { return m_recording.end; }
    const QStringList &warnings() const { return m_recording.warnings; }
    // The qualified names of the resources recorded, Events last.
    QStringList resourceNames() const;
    const QString &resourceName() const { return m_cursor.resourceName(); }

    // Times are microseconds since the recording's start, as its records'.
    qint64 startTime() const { return m_startTime; }
    qint64 endTime() const { return m_endTime; }
    qint64 position() const { return m_position; }
    QDateTime wallTime(qint64 time) const { return m_recording.header.wallTime(time); }
    // The wall time of the position: "now" for ages and time in state.
    QDateTime now() const { return wallTime(m_position); }

    // The state after every record up to `time` (clamped to the recording).
    void seek(qint64 time);
    // The times at which the resource's objects moved (or entered the census), ascending,
    // distinct; and those of one object.
    const QList<qint64> &transitionTimes() const { return m_transitionTimes; }
    QList<qint64> transitionTimesOf(const QString &key) const { return m_objectTimes.value(key); }
    // Seeks to the next (previous) transition time; false when there is none.
    bool stepForward();
    bool stepBackward();

    void setClock(std::shared_ptr<ReplayClock> clock);
    // Plays from the position (from the start when at the end), until the end or pause().
    void play();
    void pause();
    bool isPlaying() const { return m_playing; }
    // Clamped to [MinSpeed, MaxSpeed].
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    // Moves the position to where the clock says playing has reached (the play timer calls it).
    void advance();

    models::ResourceTableModel *tableModel() const { return m_table; }
    const models::LifecycleTracker &tracker() const { return m_cursor.tracker(); }
    const ReplayCursor &cursor() const { return m_cursor; }
    // The object's JSON at the position (empty when it does not exist then).
    QByteArray object(const QString &key) const { return m_cursor.object(key); }
    qsizetype recordCount() const { return m_recording.records.size(); }
    qsizetype checkpointCount() const { return qsizetype(m_checkpoints.size()); }
    // Whether the table model is being changed by a move now: a view's selection that moves
    // then was moved by the replay (its row went), not by the user.
    bool isUpdatingTable() const { return m_updatingTable; }
    // Records applied by the last seek (at most the checkpoint interval after a restore).
    qsizetype lastSeekRecords() const { return m_lastSeekRecords; }

signals:
    void positionChanged(qint64 time);
    void playingChanged(bool playing);
    void speedChanged(double speed);
    // A move forward without a restore: the transitions it made, in order, after the table
    // model was updated.
    void transitionsObserved(const QList<reconscope::models::Transition> &transitions);
    // The objects whose rows changed with the move (any way), after the table model was updated.
    void objectsChanged(const QStringList &upserted, const QStringList &removed);

private:
    struct Checkpoint
    {
        qsizetype records; // applied
        ReplayCursor cursor;
    };
    void index();
    // Applies records until `target` of them are, restoring a checkpoint when that is shorter.
    void moveTo(qsizetype target);
    // The table model made equal to the cursor's rows: the keys given, or all (`keys` null).
    void syncTable(const QSet<QString> *keys, QStringList *upserted, QStringList *removed);
    void anchor();

    Recording m_recording;
    qsizetype m_checkpointRecords;
    std::vector<Checkpoint> m_checkpoints; // ascending
    ReplayCursor m_cursor;
    qsizetype m_applied = 0; // records applied to m_cursor
    qint64 m_startTime = 0;
    qint64 m_endTime = 0;
    qint64 m_position = 0;
    qsizetype m_lastSeekRecords = 0;
    bool m_updatingTable = false;
    QList<qint64> m_transitionTimes;
    QHash<QString, QList<qint64>> m_objectTimes;
    models::ResourceTableModel *m_table;

    std::shared_ptr<ReplayClock> m_clock;
    QTimer *m_playTimer;
    bool m_playing = false;
    double m_speed = 1;
    qint64 m_anchorClock = 0; // the clock and the position when playing last (re)started
    qint64 m_anchorPosition = 0;
};

} // namespace reconscope::controller::record
