#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "models/objectsummary.h"

#include <nlohmann/json_fwd.hpp>

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

// Field-manager fights, read from the managedFields the summaries keep (never whole objects).
namespace reconscope::controller::fieldowner {

struct FightSettings
{
    int changes = 3; // ownership changes between the same two managers ...
    qint64 windowMs = 60'000; // ... within this long
};

// A field two managers keep taking from each other, or a spec field written by the manager that
// writes the object's /status (the controller writing desired state).
struct Fight
{
    enum class Kind { Alternating, StatusWriterOwnsSpec };
    Kind kind = Kind::Alternating;
    QString object; // the key
    QString field; // upstream's path text: ".spec.replicas"
    // Alternating: both managers, in name order. StatusWriterOwnsSpec: the writer, and nothing.
    QString managerA;
    QString managerB;
    int changes = 0; // Alternating: ownership changes between them within the window
    QDateTime first; // the first counted change (StatusWriterOwnsSpec: when it was seen)
    QDateTime last; // the last counted change

    // Changes per minute over the span they took (0 when they took no time to measure).
    double perMinute() const;
    QString kindName() const; // "alternating-owners", "status-writer-owns-spec"
    // One line: `.spec.replicas: "gitops" and "reconciler" took it from each other 3 times in
    // 12 s (15.0/min)`.
    QString describe() const;
    // The watch record: {"type":"fight","kind":...,"object":...,"field":...,"managers":[...],
    // "changes":...,"first":...,"last":...,"perMinute":...}.
    nlohmann::json toJson() const;
};

// What each manager owns: the union of its entries' fields, by manager name (an applier's and an
// updater's entries of one name are one manager). Entries of another fieldsType, or whose fields
// do not decode, own nothing readable.
using FieldOwners = std::map<QString, FieldSet>;
FieldOwners fieldOwnersOf(const QList<models::ManagedFieldsEntry> &entries);

// A spec field owned by a manager that writes the object's status.
struct SpecOwnership
{
    QString manager;
    QString field; // ".spec.replicas"
};
// The spec fields (leaves below .spec) owned by managers that write status: those with a /status
// entry, those owning a field below .status, and those owning one of `observations` (paths of
// observed state a CRD keeps in spec, such as ".spec.observedReplicas"). By manager, then field.
QList<SpecOwnership> specFieldsOfStatusWriters(const QList<models::ManagedFieldsEntry> &entries,
                                               const FieldOwners &owners,
                                               const QStringList &observations = {});

// Watches objects' managedFields version after version. An ownership change is a field (a path
// of a fieldsV1 set) that a manager holds in the new version and another held in the previous one
// and holds no longer; a field a manager sets for the first time, or comes to share, is none.
// A field that nobody owns any more counts as taken by the one other manager that wrote that
// version (its entry changed, or failing that carries the version's newest time: it removed the
// field, as a write of a manifest without it does), and the former owner setting it again as
// taken back.
// Managers are told apart by name (an applier's and an updater's entries of one name are one
// manager). Not thread-safe.
class FightDetector
{
public:
    explicit FightDetector(FightSettings settings = {});
    ~FightDetector();

    // A version of the object, seen at `time` (the first one seen only sets the baseline). Returns
    // the fights this version starts: each is reported once, until it has stopped (fewer changes
    // in the window than the setting, or the spec field no longer owned by the status writer).
    QList<Fight> observe(const QString &key,
                         const QList<models::ManagedFieldsEntry> &entries,
                         const QDateTime &time);
    // The object is gone: its fights end.
    void remove(const QString &key);
    void clear();

    // The fights going on at `now`, worst first (most changes), then by object and field.
    QList<Fight> current(const QDateTime &now) const;
    // The object's fights going on at `now` (for a table column).
    QList<Fight> currentFor(const QString &key, const QDateTime &now) const;

    const FightSettings &settings() const { return m_settings; }

private:
    struct Change
    {
        QDateTime time;
        QString from;
        QString to;
    };
    struct FieldHistory
    {
        std::deque<Change> changes; // within the window of the newest, at most a bounded few
        bool reported = false;
    };
    struct ObjectState
    {
        QList<models::ManagedFieldsEntry> entries;
        std::map<QString, FieldHistory> fields; // by path text; only fields that changed owner
        std::map<QString, Fight> specOwnedByStatusWriter; // by "manager\npath"
    };
    using Owners = FieldOwners;

    // fieldOwnersOf(), through the cache of decoded texts.
    Owners ownersOf(const QList<models::ManagedFieldsEntry> &entries);
    void recordChanges(ObjectState &state,
                       const QString &key,
                       const Owners &before,
                       const Owners &after,
                       const std::set<QString> &writers,
                       const QDateTime &time,
                       QList<Fight> *started);
    void checkStatusWriter(ObjectState &state,
                           const QString &key,
                           const QList<models::ManagedFieldsEntry> &entries,
                           const Owners &after,
                           const QDateTime &time,
                           QList<Fight> *started);
    std::optional<Fight> alternation(const QString &key,
                                     const QString &field,
                                     const FieldHistory &history,
                                     const QDateTime &now) const;

    FightSettings m_settings;
    QHash<QString, ObjectState> m_objects;
    // fieldsV1 texts decoded, shared by the objects written alike (bounded: dropped when full).
    QHash<QString, std::shared_ptr<const FieldSet>> m_decoded;
};

} // namespace reconscope::controller::fieldowner
