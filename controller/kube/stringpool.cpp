#include "controller/kube/stringpool.h"

namespace reconscope::controller::kube {

void StringPool::intern(QString &text)
{
    if (text.isEmpty())
        return;
    const size_t hash = qHash(text);
    Shard &shard = m_shards[(hash >> 8) % Shards];
    QMutexLocker locker(&shard.mutex);
    const auto it = shard.strings.constFind(text);
    if (it != shard.strings.cend()) {
        text = *it;
        return;
    }
    if (shard.strings.size() >= ShardLimit)
        shard.strings.clear();
    shard.strings.insert(text);
}

void StringPool::intern(models::ObjectSummary &summary)
{
    intern(summary.apiVersion);
    intern(summary.kind);
    intern(summary.namespaceName);
    for (QString &finalizer : summary.finalizers)
        intern(finalizer);
    if (!summary.labels.isEmpty()) {
        QMap<QString, QString> labels;
        for (auto it = summary.labels.cbegin(); it != summary.labels.cend(); ++it) {
            QString key = it.key();
            QString value = it.value();
            intern(key);
            intern(value);
            labels.insert(labels.cend(), key, value); // already in order
        }
        summary.labels = std::move(labels);
    }
    for (models::Condition &condition : summary.conditions) {
        intern(condition.type);
        intern(condition.status);
        intern(condition.reason);
        intern(condition.message);
    }
    for (auto it = summary.fields.begin(); it != summary.fields.end(); ++it)
        intern(it.value());
}

qsizetype StringPool::size() const
{
    qsizetype total = 0;
    for (const Shard &shard : m_shards) {
        QMutexLocker locker(&shard.mutex);
        total += shard.strings.size();
    }
    return total;
}

} // namespace reconscope::controller::kube
