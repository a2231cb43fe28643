#pragma once

#include <QHash>
#include <QList>

#include <utility>

namespace reconscope::controller::kube {

// A hash whose entries can be noted first as a list (in order, no hashing) and are hashed on the
// first use of hash(): a 50k-object first list then reaches its consumer without 50k inserts (and
// as many rehashes) before it, reserved at the exact size when they are made.
template<typename Key, typename Value>
class LazyHash
{
public:
    using Entry = std::pair<Key, Value>;

    bool isEmpty() const { return m_hash.isEmpty() && m_later.isEmpty(); }
    // Whether entries wait to be hashed.
    bool hasNoted() const { return !m_later.isEmpty(); }
    // The contents become `hash`.
    void assign(QHash<Key, Value> hash)
    {
        m_hash = std::move(hash);
        m_later = {};
    }
    // More entries, hashed (after what is there) on the next use of hash().
    void note(QList<Entry> entries)
    {
        if (m_later.isEmpty())
            m_later = std::move(entries);
        else
            m_later += std::move(entries);
    }
    // Every entry, hashed.
    QHash<Key, Value> &hash()
    {
        if (!m_later.isEmpty()) {
            m_hash.reserve(m_hash.size() + m_later.size());
            for (const Entry &entry : std::as_const(m_later))
                m_hash.insert(entry.first, entry.second);
            m_later = QList<Entry>();
        }
        return m_hash;
    }

private:
    QHash<Key, Value> m_hash;
    QList<Entry> m_later;
};

// How long after a first list is handed on the entries noted then are hashed (unless used
// before): past the time its receivers take to apply it, so that they have the cores meanwhile.
inline constexpr int HashNotedLaterMs = 1000;

} // namespace reconscope::controller::kube
