#include "controller/cluster/controllers/crdcontroller.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/deletion.h"
#include "controller/cluster/registry/fieldmanagers.h"
#include "controller/cluster/schema/crd.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

CrdController::CrdController(Store &store, const ClusterClock &clock)
    : m_store(store)
    , m_clock(clock)
{ }

void CrdController::recordStored(const TypeEntry &type, const RecordPtr &record, const RecordPtr &)
{
    if (record->deleting && isCrdType(type.type))
        m_terminating.insert(record->name);
}

TypePtr CrdController::crdType() const
{
    return m_store.lookup(u"apiextensions.k8s.io"_s, u"v1"_s, u"customresourcedefinitions"_s);
}

void CrdController::establish(const RecordPtr &crdRecord)
{
    TypePtr crdType = this->crdType();
    if (!crdType || crdRecord->deleting)
        return;
    json crd = m_store.parseRecord(*crdType, crdRecord);
    const json before = crd;
    auto types = resourceTypesFromCrd(crd);
    if (!types)
        return;
    m_store.registerTypes(*types);

    json status = crd.value("status", json::object());
    const json &names = crd["spec"]["names"];
    json accepted = json::object();
    for (const char *key :
         { "plural", "singular", "shortNames", "kind", "listKind", "categories" }) {
        if (names.contains(key))
            accepted[key] = names[key];
    }
    status["acceptedNames"] = accepted;
    json storedVersions = status.value("storedVersions", json::array());
    for (const json &version : crd["spec"]["versions"]) {
        if (version.value("storage", false)) {
            const json name = version.value("name", json(""));
            if (std::find(storedVersions.begin(), storedVersions.end(), name)
                == storedVersions.end())
                storedVersions.push_back(name);
        }
    }
    status["storedVersions"] = storedVersions;
    json conditions = status.value("conditions", json::array());
    if (!conditions.is_array())
        conditions = json::array();
    const std::string now = timestampNow(m_clock).toStdString();
    auto setCondition = [&](const char *conditionType, const char *reason, const char *message) {
        for (json &condition : conditions) {
            if (condition.value("type", "") == conditionType) {
                if (condition.value("status", "") != "True")
                    condition["lastTransitionTime"] = now;
                condition["status"] = "True";
                condition["reason"] = reason;
                condition["message"] = message;
                return;
            }
        }
        conditions.push_back({ { "type", conditionType },
                               { "status", "True" },
                               { "lastTransitionTime", now },
                               { "reason", reason },
                               { "message", message } });
    };
    setCondition("NamesAccepted", "NoConflicts", "no conflicts found");
    setCondition("Established", "InitialNamesAccepted", "the initial names have been accepted");
    status["conditions"] = conditions;
    if (crd["status"] == status)
        return;
    crd["status"] = status;
    // Written as kube-apiserver's naming and establishing controllers write it: an Update of
    // the status by "kube-apiserver".
    if (crdType->fieldManagers)
        crd = crdType->fieldManagers->of(true).update(before, std::move(crd), "kube-apiserver");
    m_store.commitPut(*crdType, std::move(crd), crdRecord);
}

void CrdController::sync()
{
    const QSet<QString> crds = m_terminating;
    for (const QString &crdName : crds) {
        TypePtr crdType = this->crdType();
        RecordPtr crd = crdType ? m_store.find(*crdType, {}, crdName) : RecordPtr();
        if (!crd) {
            m_terminating.remove(crdName);
            continue;
        }
        const json object = m_store.parseRecord(*crdType, crd);
        const QString storageKey
            = storageKeyOf(objectjson::string(object["spec"], "group"),
                           objectjson::string(object["spec"]["names"], "plural"));
        const Bucket *b = m_store.findBucket(storageKey);
        TypePtr type = m_store.storageTypeFor(storageKey);
        std::vector<RecordPtr> instances;
        if (b) {
            for (const auto &[key, record] : b->objects)
                instances.push_back(record);
        }
        for (const RecordPtr &record : instances) {
            if (!record->deleting && type)
                (void)deleteRecord(m_store, m_clock, type, record, {}, false);
        }
        b = m_store.findBucket(storageKey);
        if (!b || b->objects.empty()) {
            m_terminating.remove(crdName);
            removeFinalizer(m_store, *crdType, crd, kCrdCleanupFinalizer);
        }
    }
}

} // namespace reconscope::controller::cluster
