#include "controller/cluster/controllers/namespacecontroller.h"

#include "controller/cluster/registry/deletion.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

NamespaceController::NamespaceController(Store &store, const ClusterClock &clock)
    : m_store(store)
    , m_clock(clock)
{ }

void NamespaceController::recordStored(const TypeEntry &type,
                                       const RecordPtr &record,
                                       const RecordPtr &)
{
    if (record->deleting && isNamespaceType(type.type))
        m_terminating.insert(record->name);
}

void NamespaceController::sync()
{
    const QSet<QString> namespaces = m_terminating;
    for (const QString &ns : namespaces) {
        if (deleteContent(ns))
            finalize(ns);
    }
}

bool NamespaceController::deleteContent(const QString &ns)
{
    bool empty = true;
    const std::string prefix = ns.toStdString() + '/';
    // Deleting runs subscribers, which may register types: never hold the store's bucket
    // iterators or references across it.
    QStringList namespacedKeys;
    for (const Bucket &b : m_store.buckets()) {
        if (b.namespaced)
            namespacedKeys << b.storageKey;
    }
    for (const QString &storageKey : std::as_const(namespacedKeys)) {
        const Bucket *b = m_store.findBucket(storageKey);
        if (!b)
            continue;
        TypePtr type = m_store.storageTypeFor(storageKey);
        std::vector<RecordPtr> inNamespace;
        for (auto it = b->objects.lower_bound(prefix);
             it != b->objects.end() && it->first.compare(0, prefix.size(), prefix) == 0;
             ++it)
            inNamespace.push_back(it->second);
        for (const RecordPtr &record : inNamespace) {
            empty = false;
            if (!record->deleting && type)
                (void)deleteRecord(m_store, m_clock, type, record, {}, false);
        }
    }
    return empty;
}

void NamespaceController::finalize(const QString &ns)
{
    TypePtr nsType = m_store.lookup({}, u"v1"_s, u"namespaces"_s);
    RecordPtr record = nsType ? m_store.find(*nsType, {}, ns) : RecordPtr();
    m_terminating.remove(ns);
    if (!record)
        return;
    json object = m_store.parseRecord(*nsType, record);
    if (!object["spec"].is_object())
        object["spec"] = json::object();
    object["spec"]["finalizers"] = json::array();
    RecordPtr finalized = m_store.commitPut(*nsType, object, record);
    if (finalized->finalizers.isEmpty())
        m_store.commitDelete(*nsType, finalized);
    else
        m_terminating.insert(ns);
}

} // namespace reconscope::controller::cluster
