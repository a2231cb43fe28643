#pragma once

#include "controller/apimachinery/options.h"
#include "controller/apimachinery/resourceref.h"
#include "controller/cluster/selectors.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// The values the embedded cluster's in-process API takes and gives (Cluster and its parts).
namespace reconscope::controller::cluster {

// One stored version of an object: its compact JSON (in the storage version, with
// metadata.resourceVersion) plus the small index that lists, selectors, watches and the garbage
// collector work on. Immutable once stored; shared between the store and the event history.
struct ObjectRecord
{
    std::string key; // "namespace/name", or "name" for cluster-scoped kinds
    QString ns;
    QString name;
    QString uid;
    qint64 resourceVersion = 0;
    QByteArray json;
    LabelSet labels;
    std::vector<std::pair<QString, QString>> fields; // selectable field path -> value
    QStringList ownerUids;
    QStringList finalizers;
    bool deleting = false; // metadata.deletionTimestamp is set
    // The serial of the type entry (TypeEntry::serial) whose schema last pruned and
    // defaulted every top-level member but the status, which a status write then keeps as they
    // are; 0 when not known.
    quint64 schemaStamp = 0;
};
using RecordPtr = std::shared_ptr<const ObjectRecord>;

enum class EventType { Added, Modified, Deleted };

// One committed change. DELETED events carry the last stored state with the deletion's RV.
struct ClusterEvent
{
    qint64 resourceVersion = 0;
    EventType type = EventType::Added;
    QString storageKey; // "<group>/<plural>", e.g. "apps/deployments", "/pods"
    RecordPtr object;
    RecordPtr previous; // null for ADDED
    // The watch line ({"type":...,"object":...}\n) of `object` as stored, rendered by the first
    // watcher that sends it and shared by the others (same type, no Table, no re-rendering).
    mutable QByteArray sharedLine;
    mutable const char *sharedLineType = nullptr;
};

enum class FieldValidation { Ignore, Warn, Strict };

struct WriteOptions
{
    bool dryRun = false;
    // Who writes, for managedFields: an apply's manager (required), else the Update manager's
    // name when given; without one, the Update manager is named after the User-Agent (up to its
    // first "/"), as kube-apiserver does, and "unknown" when there is none either.
    QString fieldManager;
    QString userAgent;
    // Server-side apply only: take the fields other managers own instead of failing on them.
    bool force = false;
    FieldValidation fieldValidation = FieldValidation::Warn;
    // false: a write that sets WriteResult::objectJson may leave WriteResult::object null, for
    // callers that only need the bytes or the outcome (the HTTP API, the churn mutator).
    bool returnObject = true;
};

struct WriteResult
{
    nlohmann::json object; // the stored (or dry-run) object; for immediate deletes the Status
    QStringList warnings; // e.g. `unknown field "spec.foo"`
    int httpStatus = 200; // 201 for create
    // The committed object as compact JSON in the request's version, set when a create, update
    // or patch stored a new version: `object` serialized, without serializing it again.
    QByteArray objectJson;
};

// A page of a list in storage form; ApiServer renders it without re-parsing the items.
struct ListPage
{
    std::vector<RecordPtr> items;
    qint64 resourceVersion = 0;
    QString continueToken;
    std::optional<qint64> remainingItemCount;
};

} // namespace reconscope::controller::cluster
