#include "controller/kube/fastlist/compactjson.h"

#include <zstd.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace reconscope::controller::kube {

namespace {

// zstd's fastest regular level: ~3x on typical objects at several hundred MB/s, so a 50k-object
// list is compressed about as fast as it arrives.
constexpr int Level = 1;
// Below this, a frame's header costs more than it saves.
constexpr qsizetype MinimumSize = 64;

struct ContextDeleter
{
    void operator()(ZSTD_CCtx *context) const { ZSTD_freeCCtx(context); }
    void operator()(ZSTD_DCtx *context) const { ZSTD_freeDCtx(context); }
};

ZSTD_CCtx *compressionContext()
{
    thread_local std::unique_ptr<ZSTD_CCtx, ContextDeleter> context(ZSTD_createCCtx());
    return context.get();
}

ZSTD_DCtx *decompressionContext()
{
    thread_local std::unique_ptr<ZSTD_DCtx, ContextDeleter> context(ZSTD_createDCtx());
    return context.get();
}

} // namespace

struct CompactJsonDictionary::Compression
{
    ZSTD_CDict *dictionary;
};
struct CompactJsonDictionary::Decompression
{
    ZSTD_DDict *dictionary;
};

std::shared_ptr<const CompactJsonDictionary>
CompactJsonDictionary::fromSample(QByteArrayView sample)
{
    if (sample.size() < MinimumSize)
        return nullptr;
    std::shared_ptr<CompactJsonDictionary> dictionary(new CompactJsonDictionary);
    // Raw content: the sample's bytes as they are (JSON never starts with zstd's dictionary
    // magic number); both digests copy them.
    dictionary->m_compression
        = new Compression{ ZSTD_createCDict(sample.data(), size_t(sample.size()), Level) };
    dictionary->m_decompression
        = new Decompression{ ZSTD_createDDict(sample.data(), size_t(sample.size())) };
    if (!dictionary->m_compression->dictionary || !dictionary->m_decompression->dictionary)
        return nullptr;
    return dictionary;
}

CompactJsonDictionary::~CompactJsonDictionary()
{
    if (m_compression)
        ZSTD_freeCDict(m_compression->dictionary);
    if (m_decompression)
        ZSTD_freeDDict(m_decompression->dictionary);
    delete m_compression;
    delete m_decompression;
}

CompactJson CompactJson::compress(QByteArrayView json,
                                  std::shared_ptr<const CompactJsonDictionary> dictionary)
{
    CompactJson compact;
    compact.m_size = json.size();
    if (json.size() >= MinimumSize) {
        // Compressed into this thread's scratch buffer, then copied once at its exact size (no
        // worst-case allocation shrunk per object).
        thread_local std::vector<char> scratch;
        const size_t bound = ZSTD_compressBound(size_t(json.size()));
        if (scratch.size() < bound)
            scratch.resize(std::max(bound, size_t(64) * 1024));
        const size_t written = dictionary
            ? ZSTD_compress_usingCDict(compressionContext(),
                                       scratch.data(),
                                       bound,
                                       json.data(),
                                       size_t(json.size()),
                                       dictionary->m_compression->dictionary)
            : ZSTD_compressCCtx(compressionContext(),
                                scratch.data(),
                                bound,
                                json.data(),
                                size_t(json.size()),
                                Level);
        const bool compressed = !ZSTD_isError(written) && qsizetype(written) < json.size();
        if (compressed)
            compact.m_data = QByteArray(scratch.data(), qsizetype(written));
        if (scratch.size() > size_t(1) << 20)
            std::vector<char>().swap(scratch); // after an outsized object: not kept
        if (compressed) {
            compact.m_compressed = true;
            compact.m_dictionary = std::move(dictionary);
            return compact;
        }
    }
    compact.m_data = json.toByteArray();
    return compact;
}

CompactJson CompactJson::uncompressed(QByteArray json)
{
    CompactJson compact;
    compact.m_size = json.size();
    compact.m_data = std::move(json);
    return compact;
}

QByteArray CompactJson::bytes() const
{
    if (!m_compressed)
        return m_data;
    QByteArray out(m_size, Qt::Uninitialized);
    const size_t written = m_dictionary
        ? ZSTD_decompress_usingDDict(decompressionContext(),
                                     out.data(),
                                     size_t(out.size()),
                                     m_data.constData(),
                                     size_t(m_data.size()),
                                     m_dictionary->m_decompression->dictionary)
        : ZSTD_decompressDCtx(decompressionContext(),
                              out.data(),
                              size_t(out.size()),
                              m_data.constData(),
                              size_t(m_data.size()));
    // The frame was made here from exactly m_size bytes; anything else is memory corruption.
    Q_ASSERT(!ZSTD_isError(written) && qsizetype(written) == m_size);
    if (ZSTD_isError(written) || qsizetype(written) != m_size)
        return {};
    return out;
}

} // namespace reconscope::controller::kube
