#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QDateTime>

#include <map>
#include <string>

// metadata.managedFields as kube-apiserver reads and writes it (apimachinery's
// util/managedfields/internal: DecodeManagedFields, encodeManagedFields,
// BuildManagerIdentifier).
namespace reconscope::controller::fieldowner {

enum class Operation { Apply, Update };

// Who owns a set: the manager's name, its operation, the subresource it wrote through and, for
// Update managers only, the apiVersion (an applier keeps one entry across versions).
struct ManagerId
{
    std::string manager;
    Operation operation = Operation::Update;
    std::string apiVersion; // empty for Apply
    std::string subresource;

    // Upstream's identifier: the entry's JSON without fields and time,
    // {"manager":"gitops","operation":"Apply"}; managers are ordered by it.
    std::string identifier() const;
    // As upstream names the manager in a conflict: "\"gitops\"", "\"hpa\" using apps/v1",
    // "\"ctl\" with subresource \"status\" using v1".
    std::string describe() const;
};

// One entry: what the manager owns, at which apiVersion, and when it last changed something.
struct ManagedEntry
{
    ManagerId id;
    std::string apiVersion;
    FieldSet fields;
    QDateTime time; // invalid: none recorded
};

// Entries by their manager's identifier.
using Managed = std::map<std::string, ManagedEntry>;

// The entries of a managedFields list; an error for what upstream refuses (an operation other
// than Apply/Update, no apiVersion, a fieldsType other than FieldsV1, broken fieldsV1).
models::Result<Managed> decodeManagedFields(const nlohmann::json &managedFields);
// One entry's identity, apiVersion and time, its fieldsV1 not read (`fields` left empty); the
// errors of decodeManagedFields() but those of fieldsV1. `index` names the entry in them.
models::Result<ManagedEntry> decodeEntryIdentity(const nlohmann::json &entry, std::size_t index);
// Upstream's order of a managedFields list (sortEncodedManagedFields): Apply before Update,
// then by time in whole seconds (none first), manager, apiVersion, subresource.
bool sortsBefore(const ManagedEntry &p, const ManagedEntry &q);
// The managedFields list, sorted as upstream sorts it (operation, time in seconds, manager,
// apiVersion, subresource); null when there are no entries (the member is then removed).
nlohmann::json encodeManagedFields(const Managed &managed);

// The managedFields list of an object's metadata, or nullptr when it has none.
const nlohmann::json *managedFieldsOf(const nlohmann::json &object);
// Sets the object's metadata.managedFields from `managed`, removing it when empty.
void setManagedFields(nlohmann::json &object, const Managed &managed);

// What the store keeps of an update (the registry's IgnoreManagedFieldsTimestampsTransformer):
// `stored` itself when `updated` differs from it only in the times of managedFields entries,
// so that a write that changes nothing else changes no time either; otherwise `updated`.
nlohmann::json ignoreTimeOnlyChanges(const nlohmann::json &stored, nlohmann::json updated);

// The manager of a write other than apply as kube-apiserver names it (managerOrUserAgent):
// `fieldManager` when given, else the User-Agent up to its first "/", non-printable characters
// dropped and cut at 128 bytes; "unknown" when that leaves nothing.
std::string updateManagerName(const std::string &fieldManager, const std::string &userAgent);

} // namespace reconscope::controller::fieldowner
