#include "controller/kube/compactjson.h"

#include <zstd.h>

#include <memory>

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

CompactJson CompactJson::compress(QByteArrayView json)
{
    CompactJson compact;
    compact.m_size = json.size();
    if (json.size() >= MinimumSize) {
        QByteArray frame(qsizetype(ZSTD_compressBound(size_t(json.size()))), Qt::Uninitialized);
        const size_t written = ZSTD_compressCCtx(compressionContext(),
                                                 frame.data(),
                                                 size_t(frame.size()),
                                                 json.data(),
                                                 size_t(json.size()),
                                                 Level);
        if (!ZSTD_isError(written) && qsizetype(written) < json.size()) {
            frame.truncate(qsizetype(written));
            frame.squeeze();
            compact.m_data = std::move(frame);
            compact.m_compressed = true;
            return compact;
        }
    }
    compact.m_data = json.toByteArray();
    return compact;
}

QByteArray CompactJson::bytes() const
{
    if (!m_compressed)
        return m_data;
    QByteArray out(m_size, Qt::Uninitialized);
    const size_t written = ZSTD_decompressDCtx(decompressionContext(),
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
