#include "controller/record/replaystate.h"

#include "controller/kube/objectmeta.h"

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::record {

namespace {

ReplayChange changeOf(const Record &record, ReplayChange::Type type, QString key)
{
    ReplayChange change;
    change.type = type;
    change.resource = record.resource;
    change.key = std::move(key);
    change.object = record.data;
    change.time = record.time;
    change.estimated = record.estimated;
    return change;
}

} // namespace

models::Observed ReplayChange::observed() const
{
    switch (source) {
    case Source::FirstList:
        return models::Observed::AtConnect;
    case Source::Relist:
        return models::Observed::AcrossGap;
    case Source::Event:
        break;
    }
    return models::Observed::Live;
}

models::LifecycleMapping ReplayState::mappingOf(const RecordedResource &resource) const
{
    if (!models::LifecycleMapping::readsCrd(resource.group))
        return models::LifecycleMapping::defaults();
    const QByteArray bytes = crdOf(resource);
    const json crd = json::parse(bytes.begin(), bytes.end(), nullptr, false);
    return crd.is_object() ? models::LifecycleMapping::forCrd(crd)
                           : models::LifecycleMapping::defaults();
}

QByteArray ReplayState::crdOf(const RecordedResource &resource) const
{
    return m_crds.value(resource.plural + u'.' + resource.group);
}

void ReplayState::apply(const Record &record, QList<ReplayChange> *changes)
{
    switch (record.type) {
    case RecordType::Resource:
        if (auto resource = RecordedResource::fromJson(record.data))
            m_resources.insert(record.resource, resource.value());
        return;
    case RecordType::Discovery:
        m_discovery = record.data;
        return;
    case RecordType::Crd: {
        const json crd = json::parse(record.data.begin(), record.data.end(), nullptr, false);
        if (crd.is_object() && crd.value("metadata", json()).is_object()
            && crd["metadata"].value("name", json()).is_string())
            m_crds.insert(QString::fromStdString(crd["metadata"]["name"].get<std::string>()),
                          record.data);
        return;
    }
    case RecordType::ListStart:
        // A list that starts again (merged inputs of one resource) starts afresh.
        m_listed[record.resource].clear();
        return;
    case RecordType::ListEnd:
        endList(record, changes);
        return;
    case RecordType::ListItem:
    case RecordType::Event:
        break;
    case RecordType::Note:
    case RecordType::End:
        return;
    }
    if (!m_resources.contains(record.resource)
        || (record.type == RecordType::Event && record.event == EventType::Bookmark))
        return;
    kube::ObjectMeta meta;
    if (!kube::ObjectMeta::peek(record.data, &meta))
        return;
    const QString key = meta.key();
    if (record.type == RecordType::ListItem) {
        const auto list = m_listed.find(record.resource);
        if (list == m_listed.end())
            return; // an item outside a list
        list->insert(key, true);
    }
    auto &objects = m_objects[record.resource];
    if (record.type == RecordType::Event && record.event == EventType::Deleted) {
        objects.remove(key);
        changes->append(changeOf(record, ReplayChange::Type::Delete, key));
        return;
    }
    objects.insert(key, record.data);
    ReplayChange change = changeOf(record, ReplayChange::Type::Upsert, key);
    if (record.type == RecordType::ListItem)
        change.source = m_synced.value(record.resource) ? ReplayChange::Source::Relist
                                                        : ReplayChange::Source::FirstList;
    changes->append(std::move(change));
}

void ReplayState::endList(const Record &record, QList<ReplayChange> *changes)
{
    const auto list = m_listed.find(record.resource);
    if (list == m_listed.end())
        return;
    const QHash<QString, bool> listed = *list;
    m_listed.erase(list);
    const bool relist = std::exchange(m_synced[record.resource], true);
    auto &objects = m_objects[record.resource];
    QStringList gone;
    for (auto it = objects.cbegin(); it != objects.cend(); ++it) {
        if (!listed.contains(it.key()))
            gone.append(it.key());
    }
    // The Reflector reports what a relist lacks in key order.
    std::sort(gone.begin(), gone.end());
    for (const QString &key : std::as_const(gone)) {
        objects.remove(key);
        ReplayChange change = changeOf(record, ReplayChange::Type::Delete, key);
        change.object.clear();
        change.source = relist ? ReplayChange::Source::Relist : ReplayChange::Source::FirstList;
        changes->append(std::move(change));
    }
}

} // namespace reconscope::controller::record
