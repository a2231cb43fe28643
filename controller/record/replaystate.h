#pragma once

#include "controller/record/recordingformat.h"
#include "models/lifecyclemapping.h"
#include "models/transitionlog.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

namespace reconscope::controller::record {

// One change to a resource's objects a replay makes, as the client's Reflector hands it on: an
// object added or changed (its JSON), or a key gone.
struct ReplayChange
{
    enum class Type { Upsert, Delete };
    Type type = Type::Upsert;
    int resource = -1;
    QString key; // "ns/name" or "name"
    QByteArray object; // for upserts, and for deletes the watch reported
    qint64 time = 0; // the record's
    bool estimated = false;
    // How the client saw it: a watch event, an item of the resource's first list (the census when
    // the watch connected), or of a later list (a relist after a watch gap, and what it lacks).
    enum class Source { Event, FirstList, Relist };
    Source source = Source::Event;

    // As a watch saw it: its first list is the census, a relist finds moves across a watch gap.
    models::Observed observed() const;
};

// A recording's records turned back into what the client saw, with the Reflector's semantics: a
// list's items are upserts and, once it ends, the objects it lacks are deletes (by key order);
// ADDED and MODIFIED events are upserts, DELETED ones deletes, bookmarks nothing. It also keeps
// what the recording says of its cluster (resources, discovery, CRDs) and the objects as they
// are. Any sequence of records is taken without a crash; what makes no sense is skipped.
class ReplayState
{
public:
    // Takes one record; appends the changes it makes.
    void apply(const Record &record, QList<ReplayChange> *changes);

    const QMap<int, RecordedResource> &resources() const { return m_resources; }
    // The recorded CRDs' JSON by name (plural.group).
    const QHash<QString, QByteArray> &crds() const { return m_crds; }
    // The CRD of a resource, if the recording has it.
    QByteArray crdOf(const RecordedResource &resource) const;
    // The lifecycle rules `watch` reads the resource with: its recorded CRD's for a custom
    // resource, the defaults for a built-in one or when the CRD was not recorded.
    models::LifecycleMapping mappingOf(const RecordedResource &resource) const;
    const QByteArray &discovery() const { return m_discovery; }
    // The objects of a resource now, by key.
    QHash<QString, QByteArray> objects(int resource) const { return m_objects.value(resource); }

private:
    void endList(const Record &record, QList<ReplayChange> *changes);

    QMap<int, RecordedResource> m_resources;
    QHash<QString, QByteArray> m_crds;
    QByteArray m_discovery;
    QHash<int, QHash<QString, QByteArray>> m_objects;
    QHash<int, QHash<QString, bool>> m_listed; // the keys of each open list
    QHash<int, bool> m_synced; // the resources a list has completed for
};

} // namespace reconscope::controller::record
