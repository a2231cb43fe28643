#pragma once

#include "models/objectsummary.h"

#include <QMutex>
#include <QSet>
#include <QString>

#include <array>

namespace reconscope::controller::kube {

// Shares equal strings between objects (apiVersion, kind, namespace, label keys and values,
// conditions...): at 50k objects most of them repeat, and one shared QString costs nothing per
// object. Safe on any thread (the pool's threads intern listed objects while the informer's
// thread interns watch events): the strings are spread over shards, each with its own lock.
class StringPool
{
public:
    StringPool();
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    // Replaces `text` with the pool's equal string, or adds it. Strings met again are also kept in
    // a small cache of the calling thread, which answers most calls without a lock.
    void intern(QString &text);
    // The pool's string equal to `latin1` (Latin-1 text, in practice ASCII read from JSON): when
    // the calling thread met it again recently, straight from its cache of such texts, with no
    // QString built and no UTF-16 hashed or compared.
    QString internLatin1(QByteArrayView latin1);
    // Every string of a summary that other objects are likely to share.
    void intern(models::ObjectSummary &summary);
    // The part of them a reader interning as it reads (internLatin1) leaves: the conditions'
    // texts and the mapping's fields.
    void internStatus(models::ObjectSummary &summary);

    qsizetype size() const;

private:
    // intern(), telling whether the text was in the pool already (met again).
    bool internFound(QString &text, size_t hash);
    static constexpr int Shards = 16;
    // A bound per shard, so that strings no object uses any more do not pile up over a long watch.
    static constexpr qsizetype ShardLimit = 200'000 / Shards;
    struct Shard
    {
        mutable QMutex mutex;
        QSet<QString> strings;
    };
    std::array<Shard, Shards> m_shards;
    quint64 m_id; // tells this pool's entries in the threads' caches from other pools'
};

} // namespace reconscope::controller::kube
