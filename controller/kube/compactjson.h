#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace reconscope::controller::kube {

// An object's JSON kept compressed (zstd, one frame per object) for the informer's cache: the raw
// text of a 50k-object list is most of the informer's memory, and only a detail view or a
// reconcile ever reads it whole. bytes() gives back exactly the bytes compress() was given.
// Implicitly shared (a QByteArray inside); compress() and bytes() are safe on any thread.
class CompactJson
{
public:
    CompactJson() = default;

    static CompactJson compress(QByteArrayView json);

    // The original bytes (an empty array for a default-constructed value).
    QByteArray bytes() const;
    // The original size, and what is held for it.
    qsizetype size() const { return m_size; }
    qsizetype storedSize() const { return m_data.size(); }
    bool isEmpty() const { return m_size == 0; }
    bool isCompressed() const { return m_compressed; }

    friend bool operator==(const CompactJson &a, const CompactJson &b)
    {
        return a.m_size == b.m_size && a.bytes() == b.bytes();
    }

private:
    QByteArray m_data; // a zstd frame, or the bytes themselves when compressing did not pay
    qsizetype m_size = 0;
    bool m_compressed = false;
};

} // namespace reconscope::controller::kube
