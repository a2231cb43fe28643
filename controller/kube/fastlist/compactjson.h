#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

namespace reconscope::controller::kube {

// A zstd dictionary made of one sample object's bytes: objects of one resource share most of
// their structure (keys, apiVersion, kind, label keys, annotations), so with a sibling as the
// dictionary each object compresses to a few hundred bytes instead of most of a kilobyte.
// Immutable; shared by every CompactJson made with it (and kept alive by them).
class CompactJsonDictionary
{
public:
    static std::shared_ptr<const CompactJsonDictionary> fromSample(QByteArrayView sample);
    ~CompactJsonDictionary();
    CompactJsonDictionary(const CompactJsonDictionary &) = delete;
    CompactJsonDictionary &operator=(const CompactJsonDictionary &) = delete;

private:
    friend class CompactJson;
    CompactJsonDictionary() = default;
    struct Compression;
    struct Decompression;
    Compression *m_compression = nullptr;
    Decompression *m_decompression = nullptr;
};

// An object's JSON kept compressed (zstd, one frame per object) for the informer's cache: the raw
// text of a 50k-object list is most of the informer's memory, and only a detail view or a
// reconcile ever reads it whole. bytes() gives back exactly the bytes compress() was given.
// Implicitly shared (a QByteArray inside); compress() and bytes() are safe on any thread.
class CompactJson
{
public:
    CompactJson() = default;

    static CompactJson compress(QByteArrayView json,
                                std::shared_ptr<const CompactJsonDictionary> dictionary = {});
    // The bytes kept as they are (shared, not copied): for a cache that pays memory rather than
    // compression.
    static CompactJson uncompressed(QByteArray json);

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
    std::shared_ptr<const CompactJsonDictionary> m_dictionary; // set when the frame needs it
};

} // namespace reconscope::controller::kube
