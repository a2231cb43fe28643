#pragma once

#include "controller/record/replaystate.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/resourcetablemodel.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace reconscope::controller::kube {
class ObjectSummarizer;
}

namespace reconscope::controller::record {

// What one record did to the resource shown.
struct ReplayStep
{
    QList<models::Transition> transitions; // its moves and census entries
    QStringList upserted; // keys of rows added or changed
    QStringList removed; // keys of rows gone
};

// The state of one resource (by qualified name: every namespace recorded of it) after a prefix of
// a recording's records, as the console shows it live: the objects (ReplayState), the lifecycle
// tracker fed as the console's TableFeeder feeds it (the same times, the same census and gap
// marks `replay` prints), and a table row per object. A value: a copy is a checkpoint the replay
// can go back to, and applying the same records to equal cursors gives equal cursors.
class ReplayCursor
{
public:
    ReplayCursor(RecordingHeader header, QString resource);

    // Takes the next record; what it did to the resource shown goes to `step` (when given).
    void apply(const Record &record, ReplayStep *step = nullptr);

    const QString &resourceName() const { return m_resourceName; }
    const ReplayState &state() const { return m_state; }
    const models::LifecycleTracker &tracker() const { return m_tracker; }
    // The rows of the objects that exist now, by key.
    const QHash<QString, models::ResourceRow> &rows() const { return m_rows; }
    // The object's JSON now (empty when it does not exist).
    QByteArray object(const QString &key) const;
    // The lifecycle rules the resource is read with (known once its first object is seen).
    const models::LifecycleMapping &mapping() const { return m_mapping; }

private:
    bool shown(int resource) const;
    void upsert(const ReplayChange &change, const QDateTime &time, ReplayStep *step);

    RecordingHeader m_header;
    QString m_resourceName;
    ReplayState m_state;
    models::LifecycleTracker m_tracker;
    QHash<QString, models::ResourceRow> m_rows;
    QHash<QString, int> m_resourceOf; // the recorded resource each shown object belongs to
    models::LifecycleMapping m_mapping;
    // Built once the mapping is known; shared by copies (its methods are const and it holds no
    // state of the replay).
    std::shared_ptr<const kube::ObjectSummarizer> m_summarizer;
    QList<ReplayChange> m_changes; // scratch
};

} // namespace reconscope::controller::record
