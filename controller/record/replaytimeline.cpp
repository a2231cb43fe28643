#include "controller/record/replaytimeline.h"

#include "models/resourcetablemodel.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::record {

namespace {

class SteadyClock final : public ReplayClock
{
public:
    SteadyClock() { m_timer.start(); }
    qint64 msecs() const override { return m_timer.elapsed(); }

private:
    QElapsedTimer m_timer;
};

// The recorded resources' qualified names in their order, Events last.
QStringList recordedResources(const Recording &recording)
{
    QStringList names;
    QStringList events;
    for (const Record &record : recording.records) {
        if (record.type != RecordType::Resource)
            continue;
        const auto resource = RecordedResource::fromJson(record.data);
        if (!resource)
            continue;
        QStringList &into = resource->isEvents() ? events : names;
        if (!into.contains(resource->qualifiedName()))
            into.append(resource->qualifiedName());
    }
    return names + events;
}

QString chosenResource(const Recording &recording, const QString &resource)
{
    if (!resource.isEmpty())
        return resource;
    return recordedResources(recording).value(0);
}

} // namespace

ReplayClock::~ReplayClock() = default;

std::shared_ptr<ReplayClock> ReplayClock::steady()
{
    return std::make_shared<SteadyClock>();
}

ReplayTimeline::OpenResult ReplayTimeline::open(const QStringList &paths, const QString &resource)
{
    auto source = openRecordSource(paths);
    if (!source)
        return source.error();
    Recording recording;
    recording.header = source.value()->header();
    for (;;) {
        auto next = source.value()->next();
        if (!next)
            return next.error();
        if (!next.value())
            break;
        recording.records.append(std::move(*next.value()));
    }
    recording.end = source.value()->end();
    recording.warnings = source.value()->warnings();
    return std::make_unique<ReplayTimeline>(std::move(recording), resource);
}

ReplayTimeline::ReplayTimeline(Recording recording,
                               const QString &resource,
                               qsizetype checkpointRecords,
                               QObject *parent)
    : QObject(parent)
    , m_recording(std::move(recording))
    , m_checkpointRecords(std::max<qsizetype>(1, checkpointRecords))
    , m_cursor(m_recording.header, chosenResource(m_recording, resource))
    , m_table(new models::ResourceTableModel(this))
    , m_clock(ReplayClock::steady())
    , m_playTimer(new QTimer(this))
{
    index();
    m_startTime = m_recording.records.isEmpty() ? 0 : m_recording.records.first().time;
    m_endTime = m_recording.records.isEmpty() ? 0 : m_recording.records.last().time;
    m_playTimer->setInterval(33);
    connect(m_playTimer, &QTimer::timeout, this, &ReplayTimeline::advance);
    seek(m_startTime);
}

ReplayTimeline::~ReplayTimeline() = default;

void ReplayTimeline::index()
{
    // One pass over the whole recording: the checkpoints and every transition's time.
    ReplayCursor cursor = m_cursor;
    ReplayStep step;
    qsizetype sinceCheckpoint = 0;
    m_checkpoints.push_back({ 0, cursor });
    for (qsizetype i = 0; i < m_recording.records.size(); ++i) {
        if (sinceCheckpoint >= std::max<qsizetype>(m_checkpointRecords, cursor.rows().size())) {
            m_checkpoints.push_back({ i, cursor });
            sinceCheckpoint = 0;
        }
        const Record &record = m_recording.records[i];
        step.transitions.clear();
        cursor.apply(record, &step);
        ++sinceCheckpoint;
        for (const models::Transition &transition : std::as_const(step.transitions)) {
            QList<qint64> &times = m_objectTimes[transition.key];
            if (times.isEmpty() || times.last() != record.time)
                times.append(record.time);
            if (m_transitionTimes.isEmpty() || m_transitionTimes.last() != record.time)
                m_transitionTimes.append(record.time);
        }
    }
}

QStringList ReplayTimeline::resourceNames() const
{
    return recordedResources(m_recording);
}

void ReplayTimeline::seek(qint64 time)
{
    time = std::clamp(time, m_startTime, m_endTime);
    const auto after = std::upper_bound(m_recording.records.cbegin(),
                                        m_recording.records.cend(),
                                        time,
                                        [](qint64 t, const Record &r) { return t < r.time; });
    m_position = time;
    moveTo(after - m_recording.records.cbegin());
    m_table->setNow(now());
    anchor(); // playing goes on from here
    emit positionChanged(m_position);
}

void ReplayTimeline::moveTo(qsizetype target)
{
    // The last checkpoint at or before the target; restored when the cursor is past the target
    // or behind the checkpoint (then it is fewer records away than the cursor).
    const auto checkpoint
        = std::upper_bound(m_checkpoints.cbegin(),
                           m_checkpoints.cend(),
                           target,
                           [](qsizetype t, const Checkpoint &c) { return t < c.records; })
        - 1;
    const bool restore = target < m_applied || checkpoint->records > m_applied;
    if (restore) {
        m_cursor = checkpoint->cursor;
        m_applied = checkpoint->records;
    }
    ReplayStep step;
    m_lastSeekRecords = target - m_applied;
    while (m_applied < target)
        m_cursor.apply(m_recording.records[m_applied++], restore ? nullptr : &step);
    QStringList upserted;
    QStringList removed;
    if (restore) {
        syncTable(nullptr, &upserted, &removed);
    } else {
        QSet<QString> keys(step.upserted.cbegin(), step.upserted.cend());
        keys.unite(QSet<QString>(step.removed.cbegin(), step.removed.cend()));
        syncTable(&keys, &upserted, &removed);
    }
    if (!upserted.isEmpty() || !removed.isEmpty())
        emit objectsChanged(upserted, removed);
    if (!step.transitions.isEmpty())
        emit transitionsObserved(step.transitions);
}

void ReplayTimeline::syncTable(const QSet<QString> *keys,
                               QStringList *upserted,
                               QStringList *removed)
{
    const auto &rows = m_cursor.rows();
    QList<models::ResourceRow> changed;
    const auto check = [&](const QString &key) {
        const auto row = rows.constFind(key);
        const models::ResourceRow *shown = m_table->find(key);
        if (row == rows.cend()) {
            if (shown)
                removed->append(key);
        } else if (!shown || !(*shown == *row)) {
            changed.append(*row);
            upserted->append(key);
        }
    };
    if (keys) {
        for (const QString &key : *keys)
            check(key);
    } else {
        for (int i = 0; i < m_table->rowCount(); ++i) {
            if (!rows.contains(m_table->rowAt(i)->key))
                removed->append(m_table->rowAt(i)->key);
        }
        for (auto it = rows.cbegin(); it != rows.cend(); ++it)
            check(it.key());
    }
    // Keys in a stable order, so that a batch's new rows go in the same order however reached.
    std::sort(
        changed.begin(), changed.end(), [](const auto &a, const auto &b) { return a.key < b.key; });
    std::sort(upserted->begin(), upserted->end());
    std::sort(removed->begin(), removed->end());
    if (!changed.isEmpty() || !removed->isEmpty()) {
        m_updatingTable = true;
        m_table->applyBatch(std::move(changed), *removed);
        m_updatingTable = false;
    }
}

bool ReplayTimeline::stepForward()
{
    const auto next
        = std::upper_bound(m_transitionTimes.cbegin(), m_transitionTimes.cend(), m_position);
    if (next == m_transitionTimes.cend())
        return false;
    seek(*next);
    return true;
}

bool ReplayTimeline::stepBackward()
{
    const auto at
        = std::lower_bound(m_transitionTimes.cbegin(), m_transitionTimes.cend(), m_position);
    if (at == m_transitionTimes.cbegin())
        return false;
    seek(*(at - 1));
    return true;
}

void ReplayTimeline::setClock(std::shared_ptr<ReplayClock> clock)
{
    m_clock = std::move(clock);
    anchor();
}

void ReplayTimeline::anchor()
{
    m_anchorClock = m_clock->msecs();
    m_anchorPosition = m_position;
}

void ReplayTimeline::play()
{
    if (m_playing)
        return;
    if (m_position >= m_endTime)
        seek(m_startTime);
    m_playing = true;
    anchor();
    m_playTimer->start();
    emit playingChanged(true);
}

void ReplayTimeline::pause()
{
    if (!m_playing)
        return;
    m_playing = false;
    m_playTimer->stop();
    emit playingChanged(false);
}

void ReplayTimeline::setSpeed(double speed)
{
    speed = std::clamp(speed, MinSpeed, MaxSpeed);
    if (speed == m_speed)
        return;
    advance(); // the time played so far, at the old speed
    m_speed = speed;
    anchor();
    emit speedChanged(m_speed);
}

void ReplayTimeline::advance()
{
    if (!m_playing)
        return;
    const double played = double(m_clock->msecs() - m_anchorClock) * 1000.0 * m_speed;
    const qint64 target = m_anchorPosition + qint64(played);
    if (target >= m_endTime) {
        seek(m_endTime);
        pause();
        return;
    }
    if (target != m_position)
        seek(target);
}

} // namespace reconscope::controller::record
