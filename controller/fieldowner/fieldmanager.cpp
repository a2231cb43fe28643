#include "controller/fieldowner/fieldmanager.h"

#include "controller/fieldowner/fieldsv1.h"
#include "controller/fieldowner/lastapplied.h"
#include "controller/fieldowner/typedvalue.h"
#include "models/rfc3339.h"

#include <algorithm>
#include <map>

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

namespace {

using ApplyResult = models::Result<json, ApplyError>;

// Update entries kept beside the Apply ones; "ancient-changes" takes the oldest beyond.
constexpr std::size_t maxUpdateManagers = 10;

// The fields no entry keeps (stripMetaManager): identity and bookkeeping of the object.
const FieldSet &strippedFields()
{
    static const FieldSet set = [] {
        FieldSet s;
        for (const char *top : { "apiVersion", "kind", "metadata" })
            s.insert({ PathElement::field(top) });
        for (const char *meta : { "name",
                                  "namespace",
                                  "creationTimestamp",
                                  "selfLink",
                                  "uid",
                                  "clusterName",
                                  "generation",
                                  "managedFields",
                                  "resourceVersion" })
            s.insert({ PathElement::field("metadata"), PathElement::field(meta) });
        return s;
    }();
    return set;
}

std::string metadataString(const json &object, const char *key)
{
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
        return {};
    const json &metadata = object["metadata"];
    auto it = metadata.find(key);
    return it != metadata.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string memberString(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// schema.GroupVersionKind's String(): "group/version, Kind=Kind".
std::string gvkString(const json &object)
{
    const std::string apiVersion = memberString(object, "apiVersion");
    const auto slash = apiVersion.find('/');
    const std::string group
        = slash == std::string::npos ? std::string() : apiVersion.substr(0, slash);
    const std::string version
        = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
    return group + "/" + version + ", Kind=" + memberString(object, "kind");
}

ApplyError failure(int code, std::string reason, std::string message)
{
    ApplyError error;
    error.code = code;
    error.reason = std::move(reason);
    error.message = std::move(message);
    return error;
}

// isResetManagedFields: an empty list, or one entry with nothing in it.
bool resetsManagedFields(const json *managedFields)
{
    if (!managedFields || !managedFields->is_array())
        return false;
    if (managedFields->empty())
        return true;
    if (managedFields->size() != 1 || !(*managedFields)[0].is_object())
        return false;
    for (const auto &[key, value] : (*managedFields)[0].items()) {
        if (!value.is_null()
            && !(value.is_string() && value.get_ref<const std::string &>().empty()))
            return false;
    }
    return true;
}

// Whether the fieldsV1 `fields` hold `member`.`path`: its node exists and is a leaf ({}) or
// marks itself (".").
bool holds(const json &fields, const std::string &member, const Path &path)
{
    const json *node = &fields;
    const auto step = [&node](const std::string &key) {
        if (!node->is_object())
            return false;
        const auto it = node->find(key);
        if (it == node->end())
            return false;
        node = &*it;
        return true;
    };
    if (!step("f:" + member))
        return false;
    for (const PathElement &element : path) {
        if (!step(encodePathElement(element)))
            return false;
    }
    return node->is_object() && (node->empty() || node->contains("."));
}

Managed decodeOrEmpty(const json *managedFields)
{
    if (!managedFields)
        return {};
    auto managed = decodeManagedFields(*managedFields);
    return managed ? std::move(*managed) : Managed();
}

json withoutManagedFields(json object)
{
    if (object.is_object()) {
        if (auto metadata = object.find("metadata");
            metadata != object.end() && metadata->is_object())
            metadata->erase("managedFields");
    }
    return object;
}

} // namespace

json ApplyError::toStatus() const
{
    json status = { { "kind", "Status" },    { "apiVersion", "v1" }, { "metadata", json::object() },
                    { "status", "Failure" }, { "message", message }, { "code", code } };
    if (!reason.empty())
        status["reason"] = reason;
    if (!causes.empty()) {
        json list = json::array();
        for (const Cause &cause : causes)
            list.push_back({ { "reason", cause.type },
                             { "message", cause.message },
                             { "field", cause.field } });
        status["details"] = { { "causes", std::move(list) } };
    }
    return status;
}

ApplyError conflictError(const std::vector<Conflict> &conflicts)
{
    ApplyError error = failure(409, "Conflict", {});
    for (const Conflict &conflict : conflicts)
        error.causes.push_back({ "FieldManagerConflict",
                                 "conflict with " + conflict.manager.describe(),
                                 pathString(conflict.path) });
    if (conflicts.size() == 1) {
        error.message = "Apply failed with 1 conflict: conflict with "
            + conflicts[0].manager.describe() + ": " + pathString(conflicts[0].path);
        return error;
    }
    std::map<std::string, std::pair<const ManagerId *, std::vector<const Path *>>> byManager;
    for (const Conflict &conflict : conflicts) {
        auto &slot = byManager[conflict.manager.identifier()];
        slot.first = &conflict.manager;
        slot.second.push_back(&conflict.path);
    }
    std::string lines;
    for (const auto &[identifier, slot] : byManager) {
        lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ")
            + slot.first->describe() + ":";
        for (const Path *path : slot.second)
            lines += "\n- " + pathString(*path);
    }
    error.message
        = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
    return error;
}

FieldSet customResourceResetFields(bool statusSubresource, const std::string &subresource)
{
    FieldSet set;
    if (!statusSubresource)
        return set;
    if (subresource == "status") {
        set.insert({ PathElement::field("metadata") });
        set.insert({ PathElement::field("spec") });
    } else {
        set.insert({ PathElement::field("status") });
    }
    return set;
}

FieldManager::FieldManager(TypeRef type,
                           std::string apiVersion,
                           std::string kind,
                           std::string subresource,
                           FieldSet resetFields,
                           Clock clock)
    : m_type(std::move(type))
    , m_apiVersion(std::move(apiVersion))
    , m_kind(std::move(kind))
    , m_subresource(std::move(subresource))
    , m_resetFields(std::move(resetFields))
    , m_clock(std::move(clock))
{ }

QDateTime FieldManager::now() const
{
    return models::toWholeSecondsUtc(m_clock ? m_clock() : QDateTime::currentDateTimeUtc());
}

json FieldManager::emptyObject() const
{
    return { { "apiVersion", m_apiVersion }, { "kind", m_kind } };
}

models::Result<Managed> FieldManager::updateManaged(const json &live,
                                                    const json &updated,
                                                    Managed managed,
                                                    const ManagerId &id) const
{
    for (auto &[identifier, entry] : managed)
        entry.fields = reconcileWithSchema(entry.fields, m_type);
    auto comparison = compareTyped(live, updated, m_type);
    if (!comparison)
        return comparison.error();
    const FieldSet removed = comparison->removed.recursiveDifference(m_resetFields);
    const FieldSet changed
        = comparison->modified.unite(comparison->added).recursiveDifference(m_resetFields);
    for (auto it = managed.begin(); it != managed.end();) {
        it->second.fields = it->second.fields.difference(changed).difference(removed);
        it = it->second.fields.empty() ? managed.erase(it) : std::next(it);
    }
    const FieldSet own = changed.difference(strippedFields());
    if (own.empty())
        return managed;
    auto [entry, inserted] = managed.try_emplace(id.identifier());
    entry->second.id = id;
    entry->second.fields = inserted ? own : own.unite(entry->second.fields);
    entry->second.apiVersion = m_apiVersion;
    entry->second.time = now();
    return managed;
}

void FieldManager::capUpdateManagers(Managed &managed) const
{
    std::vector<std::string> updaters;
    for (const auto &[identifier, entry] : managed) {
        if (entry.id.operation == Operation::Update)
            updaters.push_back(identifier);
    }
    if (updaters.size() <= maxUpdateManagers)
        return;
    const auto seconds = [&](const std::string &m) {
        const QDateTime &t = managed.at(m).time;
        return t.isValid() ? t.toSecsSinceEpoch() : 0;
    };
    std::sort(updaters.begin(), updaters.end(), [&](const std::string &a, const std::string &b) {
        return seconds(a) != seconds(b) ? seconds(a) < seconds(b) : a < b;
    });
    std::map<std::string, std::string> firstOfVersion;
    std::size_t length = updaters.size();
    for (std::size_t i = 0; i < updaters.size() && length > maxUpdateManagers; ++i) {
        ManagedEntry entry = managed.at(updaters[i]);
        const ManagerId bucketId{ "ancient-changes", Operation::Update, entry.apiVersion, {} };
        const std::string bucket = bucketId.identifier();
        auto first = firstOfVersion.find(entry.apiVersion);
        if (first == firstOfVersion.end()) {
            firstOfVersion.emplace(entry.apiVersion, updaters[i]);
            continue;
        }
        if (!managed.count(bucket)) {
            ManagedEntry moved = managed.at(first->second);
            managed.erase(first->second);
            moved.id = bucketId;
            managed.emplace(bucket, std::move(moved));
        }
        ManagedEntry &target = managed.at(bucket);
        target.fields = entry.fields.unite(target.fields);
        target.apiVersion = entry.apiVersion;
        target.time = entry.time;
        managed.erase(updaters[i]);
        --length;
    }
}

json FieldManager::update(const json &live, json updated, const std::string &manager) const
{
    const json created = live.is_null() ? emptyObject() : json();
    const json &liveObject = live.is_null() ? created : live;
    Managed managed;
    if (!m_subresource.empty()) {
        managed = decodeOrEmpty(managedFieldsOf(liveObject));
    } else {
        const json *given = managedFieldsOf(updated);
        if (!resetsManagedFields(given)) {
            managed = decodeOrEmpty(given && !given->is_null() ? given : nullptr);
            if (managed.empty())
                managed = decodeOrEmpty(managedFieldsOf(liveObject));
        }
    }
    updated = withoutManagedFields(std::move(updated));
    // Objects that kept no managedFields are not tracked again by updates (skipNonApplied).
    if (managed.empty() && !metadataString(liveObject, "uid").empty())
        return updated;
    const ManagerId id{
        manager.empty() ? "unknown" : manager, Operation::Update, m_apiVersion, m_subresource
    };
    auto result = updateManaged(liveObject, updated, std::move(managed), id);
    if (!result)
        return updated; // UpdateNoErrors: stored without managedFields
    capUpdateManagers(*result);
    setManagedFields(updated, *result);
    return updated;
}

bool FieldManager::retimeSoleOwner(json &managedFields,
                                   const std::string &member,
                                   const json &before,
                                   const json &after,
                                   const std::string &manager) const
{
    const PathElement top = PathElement::field(member);
    if (!managedFields.is_array() || managedFields.empty() || !m_type || !m_type->map
        || m_resetFields.hasMember(top) || !m_resetFields.withPrefix(top).empty())
        return false;
    auto comparison = compareTyped(before, after, m_type->map->typeOf(member));
    if (!comparison || !comparison->added.empty() || !comparison->removed.empty()
        || comparison->modified.empty())
        return false;
    const std::vector<Path> changed = comparison->modified.paths();
    const ManagerId id{
        manager.empty() ? "unknown" : manager, Operation::Update, m_apiVersion, m_subresource
    };
    // The identifier's parts (ManagerId::identifier()): entries that share one are merged.
    const auto sameId = [](const ManagerId &a, const ManagerId &b) {
        return a.manager == b.manager && a.operation == b.operation && a.apiVersion == b.apiVersion
            && a.subresource == b.subresource;
    };
    std::vector<ManagedEntry> entries;
    entries.reserve(managedFields.size());
    std::size_t updaters = 0, own = managedFields.size();
    for (std::size_t i = 0; i < managedFields.size(); ++i) {
        auto entry = decodeEntryIdentity(managedFields[i], i);
        if (!entry)
            return false;
        for (const ManagedEntry &earlier : entries) {
            if (sameId(earlier.id, entry->id))
                return false;
        }
        const auto fields = managedFields[i].find("fieldsV1");
        if (fields == managedFields[i].end() || !fields->is_object())
            return false;
        const bool mine = sameId(entry->id, id);
        for (const Path &path : changed) {
            if (holds(*fields, member, path) != mine)
                return false;
        }
        if (mine)
            own = i;
        updaters += entry->id.operation == Operation::Update ? 1 : 0;
        entries.push_back(std::move(*entry));
    }
    if (own == managedFields.size() || updaters > maxUpdateManagers)
        return false;
    entries[own].time = now();
    managedFields[own]["time"] = models::formatRfc3339(entries[own].time).toStdString();
    std::vector<std::size_t> order(entries.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&entries](std::size_t p, std::size_t q) {
        return sortsBefore(entries[p], entries[q]);
    });
    json sorted = json::array();
    for (std::size_t i : order)
        sorted.push_back(std::move(managedFields[i]));
    managedFields = std::move(sorted);
    return true;
}

models::Result<json>
FieldManager::prune(const json &merged, const Managed &managed, const FieldSet &lastApplied) const
{
    if (lastApplied.empty())
        return merged;
    const FieldSet last = ensureNamedFieldsAreMembers(lastApplied, m_type);
    json pruned = removeItems(merged, last, m_type);
    // Put back what another manager (or this apply) owns...
    FieldSet owned;
    for (const auto &[identifier, entry] : managed)
        owned = owned.unite(entry.fields);
    const FieldSet mergedSet = ensureNamedFieldsAreMembers(*fieldSetOf(merged, m_type), m_type);
    FieldSet prunedSet = ensureNamedFieldsAreMembers(*fieldSetOf(pruned, m_type), m_type);
    pruned = removeItems(
        merged,
        mergedSet.difference(prunedSet.unite(ensureNamedFieldsAreMembers(owned, m_type))),
        m_type);
    // ...and what was pruned without having been applied by this manager before.
    prunedSet = ensureNamedFieldsAreMembers(*fieldSetOf(pruned, m_type), m_type);
    return removeItems(merged, mergedSet.difference(prunedSet).intersection(last), m_type);
}

ApplyResult FieldManager::applyManaged(const json &live,
                                       const json &config,
                                       Managed &managed,
                                       const ManagerId &id,
                                       bool force,
                                       std::vector<Conflict> *conflictsOut) const
{
    // Upstream reads the member as a list (GetManagedFields): only a list, even [], is refused.
    if (const json *given = managedFieldsOf(config); given && given->is_array())
        return failure(400, "BadRequest", "metadata.managedFields must be nil");
    for (auto &[identifier, entry] : managed)
        entry.fields = reconcileWithSchema(entry.fields, m_type);
    auto configSet = fieldSetOf(config, m_type, true);
    if (!configSet)
        return failure(500,
                       {},
                       "failed to create typed patch object (" + metadataString(config, "namespace")
                           + "/" + metadataString(config, "name") + "; " + gvkString(config)
                           + "): " + configSet.error().message.toStdString());
    auto merged = mergeTyped(live, config, m_type);
    if (!merged)
        return failure(500, {}, "failed to merge config: " + merged.error().message.toStdString());
    const auto previous = managed.find(id.identifier());
    const FieldSet lastApplied = previous == managed.end() ? FieldSet() : previous->second.fields;
    ManagedEntry &own = managed[id.identifier()];
    own.id = id;
    own.apiVersion = m_apiVersion;
    own.fields = configSet->recursiveDifference(m_resetFields);
    auto pruned = prune(*merged, managed, lastApplied);
    if (!pruned)
        return failure(500, {}, "failed to prune fields: " + pruned.error().message.toStdString());
    auto comparison = compareTyped(live, *pruned, m_type);
    if (!comparison)
        return failure(
            500, {}, "failed to compare objects: " + comparison.error().message.toStdString());
    const FieldSet removed = comparison->removed.recursiveDifference(m_resetFields);
    const FieldSet changed
        = comparison->modified.unite(comparison->added).recursiveDifference(m_resetFields);
    std::vector<Conflict> conflicts;
    for (const auto &item : managed) {
        if (item.first == id.identifier())
            continue;
        const ManagerId &other = item.second.id;
        item.second.fields.intersection(changed).forEach([&](const Path &path) {
            conflicts.push_back({ other, path });
        });
    }
    if (!force && !conflicts.empty()) {
        if (conflictsOut)
            *conflictsOut = conflicts;
        return conflictError(conflicts);
    }
    for (auto it = managed.begin(); it != managed.end();) {
        if (it->first != id.identifier())
            it->second.fields = it->second.fields.difference(changed).difference(removed);
        it->second.fields = it->first == id.identifier()
            ? it->second.fields.difference(strippedFields())
            : it->second.fields;
        it = it->second.fields.empty() ? managed.erase(it) : std::next(it);
    }
    if (*pruned == live)
        return withoutManagedFields(live); // nothing changed: no time is recorded
    if (auto entry = managed.find(id.identifier()); entry != managed.end())
        entry->second.time = now();
    return *pruned;
}

ApplyResult FieldManager::applyOnce(const json &live,
                                    const json &config,
                                    Managed managed,
                                    const std::string &manager,
                                    bool force,
                                    std::vector<Conflict> *conflicts) const
{
    if (managed.empty()) {
        // The fields of an object no one managed yet go to "before-first-apply" (skipNonApplied).
        const ManagerId before{
            "before-first-apply", Operation::Update, m_apiVersion, m_subresource
        };
        auto result
            = updateManaged(emptyObject(), withoutManagedFields(live), std::move(managed), before);
        if (!result)
            return failure(500,
                           {},
                           "failed to create manager for existing fields: "
                               + result.error().message.toStdString());
        managed = std::move(*result);
        capUpdateManagers(managed);
    }
    const ManagerId id{ manager, Operation::Apply, {}, m_subresource };
    auto object = applyManaged(live, config, managed, id, force, conflicts);
    if (object)
        setManagedFields(*object, managed);
    return object;
}

ApplyResult FieldManager::apply(const json &live,
                                const json &config,
                                const std::string &manager,
                                bool force) const
{
    if (memberString(config, "apiVersion") != m_apiVersion
        || memberString(config, "kind") != m_kind)
        return failure(400, "BadRequest", "invalid object type: " + gvkString(config));
    const json liveObject = live.is_null() ? emptyObject() : live;
    auto decoded
        = decodeManagedFields(managedFieldsOf(liveObject) ? *managedFieldsOf(liveObject) : json());
    if (!decoded)
        return failure(
            500, {}, "failed to decode managed fields: " + decoded.error().message.toStdString());
    std::vector<Conflict> conflicts;
    auto object = applyOnce(liveObject, config, *decoded, manager, force, &conflicts);
    // kubectl takes, unforced, what its client-side last-applied annotation still describes.
    if (!object && manager == "kubectl" && !conflicts.empty()) {
        if (auto allowed = lastapplied::allowedConflicts(liveObject, m_apiVersion, m_type)) {
            std::erase_if(conflicts, [&](const Conflict &c) { return allowed->has(c.path); });
            if (!conflicts.empty())
                return conflictError(conflicts);
            object = applyOnce(liveObject, config, *decoded, manager, true, nullptr);
        }
    }
    if (!object)
        return object;
    if (manager == "kubectl")
        lastapplied::follow(*object, config);
    return object;
}

} // namespace reconscope::controller::fieldowner
