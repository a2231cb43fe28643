#include "controller/kube/fastlist/stringpool.h"

#include <atomic>
#include <iterator>
#include <map>
#include <string_view>

namespace reconscope::controller::kube {

namespace {

std::atomic<quint64> nextPoolId{ 1 };

// One thread's cache of strings met at least twice: direct-mapped by hash, so a lookup is an
// index and a comparison. An entry may outlive its pool's shard (cleared at its bound) or the
// pool itself: it is then a valid string that is merely no longer shared, and a few hundred of
// them per thread at most.
struct CachedString
{
    quint64 pool = 0;
    size_t hash = 0;
    QString text;
};
constexpr size_t CacheSize = 512;

// The same for texts met as Latin-1 bytes: the bytes kept to compare with, and the string.
struct CachedLatin1
{
    quint64 pool = 0;
    size_t hash = 0;
    QByteArray bytes;
    QString text;
};

} // namespace

StringPool::StringPool()
    : m_id(nextPoolId.fetch_add(1, std::memory_order_relaxed))
{ }

void StringPool::intern(QString &text)
{
    if (text.isEmpty())
        return;
    internFound(text, qHash(text));
}

bool StringPool::internFound(QString &text, size_t hash)
{
    thread_local std::array<CachedString, CacheSize> cache;
    CachedString &cached = cache[hash % CacheSize];
    if (cached.pool == m_id && cached.hash == hash && cached.text == text) {
        text = cached.text;
        return true;
    }
    Shard &shard = m_shards[(hash >> 8) % Shards];
    QMutexLocker locker(&shard.mutex);
    const auto it = shard.strings.constFind(text);
    if (it != shard.strings.cend()) {
        text = *it;
        locker.unlock();
        // Met again: likely to come back (one seen once, such as a name, is never cached).
        cached.pool = m_id;
        cached.hash = hash;
        cached.text = text;
        return true;
    }
    if (shard.strings.size() >= ShardLimit)
        shard.strings.clear();
    shard.strings.insert(text);
    return false;
}

QString StringPool::internLatin1(QByteArrayView latin1)
{
    if (latin1.isEmpty())
        return QString();
    const size_t hash
        = std::hash<std::string_view>()(std::string_view(latin1.data(), size_t(latin1.size())));
    thread_local std::array<CachedLatin1, CacheSize> cache;
    CachedLatin1 &cached = cache[hash % CacheSize];
    if (cached.pool == m_id && cached.hash == hash && cached.bytes == latin1)
        return cached.text;
    QString text = QString::fromLatin1(latin1);
    if (internFound(text, qHash(text))) {
        // Met again, as intern() caches: from now on answered from the bytes.
        cached.pool = m_id;
        cached.hash = hash;
        cached.bytes = latin1.toByteArray();
        cached.text = text;
    }
    return text;
}

void StringPool::intern(models::ObjectSummary &summary)
{
    intern(summary.apiVersion);
    intern(summary.kind);
    intern(summary.namespaceName);
    for (QString &finalizer : summary.finalizers)
        intern(finalizer);
    if (!summary.labels.isEmpty()) {
        // The map's nodes are taken out and put back with their strings interned (a key may be
        // replaced by an equal one through a node handle): no node is allocated again.
        std::map<QString, QString> labels = std::move(summary.labels).toStdMap();
        for (auto it = labels.begin(); it != labels.end();) {
            const auto next = std::next(it);
            auto node = labels.extract(it);
            intern(node.key());
            intern(node.mapped());
            labels.insert(next, std::move(node));
            it = next;
        }
        summary.labels = QMap<QString, QString>(std::move(labels));
    }
    for (models::ManagedFieldsEntry &entry : summary.managedFields) {
        intern(entry.manager);
        intern(entry.operation);
        intern(entry.apiVersion);
        intern(entry.subresource);
        intern(entry.fieldsType);
        intern(entry.fieldsV1);
    }
    internStatus(summary);
}

void StringPool::internStatus(models::ObjectSummary &summary)
{
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
