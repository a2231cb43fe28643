#include "controller/cluster/controllers/garbagecollector.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/deletion.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

GarbageCollector::GarbageCollector(Store &store, const ClusterClock &clock)
    : m_store(store)
    , m_clock(clock)
{ }

void GarbageCollector::recordStored(const TypeEntry &, const RecordPtr &record, const RecordPtr &)
{
    if (record->deleting
        && (record->finalizers.contains(kOrphanFinalizer)
            || record->finalizers.contains(kForegroundFinalizer)))
        m_deletingOwners.append(record->uid);
}

void GarbageCollector::recordDeleted(const TypeEntry &, const RecordPtr &last)
{
    for (const QString &owner : last->ownerUids)
        m_deletingOwners.append(owner); // a foreground owner may be waiting for this dependent
    if (m_store.hasDependents(last->uid))
        m_removedOwners.append(last->uid);
}

bool GarbageCollector::processNext()
{
    if (!m_deletingOwners.isEmpty()) {
        handleDeletingOwner(m_deletingOwners.takeFirst());
        return true;
    }
    if (!m_removedOwners.isEmpty()) {
        handleRemovedOwner(m_removedOwners.takeFirst());
        return true;
    }
    return false;
}

void GarbageCollector::handleDeletingOwner(const QString &uid)
{
    auto [type, owner] = m_store.locate(uid);
    if (!owner || !owner->deleting)
        return;
    const QStringList dependents = m_store.dependents(uid);
    if (owner->finalizers.contains(kOrphanFinalizer))
        orphanDependents(uid, dependents);
    else if (owner->finalizers.contains(kForegroundFinalizer))
        deleteDependentsFirst(uid, dependents);
}

void GarbageCollector::orphanDependents(const QString &uid, const QStringList &dependents)
{
    for (const QString &dependentUid : dependents) {
        auto [dependentType, dependent] = m_store.locate(dependentUid);
        if (!dependent)
            continue;
        json object = m_store.parseRecord(*dependentType, dependent);
        json &refs = object["metadata"]["ownerReferences"];
        json kept = json::array();
        for (const json &ref : refs) {
            if (objectjson::string(ref, "uid") != uid)
                kept.push_back(ref);
        }
        if (kept.empty())
            object["metadata"].erase("ownerReferences");
        else
            refs = kept;
        m_store.commitPut(*dependentType, std::move(object), dependent);
    }
    auto [ownerType, current] = m_store.locate(uid);
    if (current)
        removeFinalizer(m_store, *ownerType, current, kOrphanFinalizer);
}

void GarbageCollector::deleteDependentsFirst(const QString &uid, const QStringList &dependents)
{
    bool waiting = false;
    for (const QString &dependentUid : dependents) {
        auto [dependentType, dependent] = m_store.locate(dependentUid);
        if (!dependent)
            continue;
        waiting = true;
        if (!dependent->deleting)
            (void)deleteRecord(m_store, m_clock, dependentType, dependent, u"Foreground"_s, false);
    }
    if (!waiting || m_store.dependents(uid).isEmpty()) {
        auto [ownerType, current] = m_store.locate(uid);
        if (current)
            removeFinalizer(m_store, *ownerType, current, kForegroundFinalizer);
    }
}

void GarbageCollector::handleRemovedOwner(const QString &uid)
{
    // Delete the dependents that have no owner left, strip dangling references from the others.
    const QStringList dependents = m_store.dependents(uid);
    for (const QString &dependentUid : dependents) {
        auto [dependentType, dependent] = m_store.locate(dependentUid);
        if (!dependent)
            continue;
        bool anyOwnerLeft = false;
        for (const QString &ownerUid : dependent->ownerUids) {
            if (m_store.containsUid(ownerUid))
                anyOwnerLeft = true;
        }
        if (!anyOwnerLeft) {
            if (!dependent->deleting)
                (void)deleteRecord(
                    m_store, m_clock, dependentType, dependent, u"Background"_s, false);
            continue;
        }
        json object = m_store.parseRecord(*dependentType, dependent);
        json kept = json::array();
        for (const json &ref : object["metadata"]["ownerReferences"]) {
            if (m_store.containsUid(objectjson::string(ref, "uid")))
                kept.push_back(ref);
        }
        object["metadata"]["ownerReferences"] = kept;
        m_store.commitPut(*dependentType, std::move(object), dependent);
    }
    m_store.forgetDependents(uid);
}

} // namespace reconscope::controller::cluster
