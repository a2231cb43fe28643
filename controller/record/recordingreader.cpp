#include "controller/record/recordingreader.h"

#include <zstd.h>

#include <QFile>
#include <QIODevice>

#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::controller::record {

namespace {

RecordingError errorAt(qint64 offset, const QString &what)
{
    return RecordingError{ offset, u"byte %1: %2"_s.arg(offset).arg(what) };
}

} // namespace

struct RecordingReader::Stream
{
    ZSTD_DCtx *context = ZSTD_createDCtx();
    ~Stream() { ZSTD_freeDCtx(context); }
};

RecordingReader::~RecordingReader() = default;

bool RecordingReader::hasMagic(QByteArrayView firstBytes)
{
    return firstBytes.size() >= qsizetype(sizeof FileMagic)
        && std::memcmp(firstBytes.data(), FileMagic, sizeof FileMagic) == 0;
}

RecordingReader::OpenResult RecordingReader::open(const QString &path)
{
    auto file = std::make_unique<QFile>(path);
    if (!file->open(QIODevice::ReadOnly))
        return RecordingError{ -1, u"cannot read %1: %2"_s.arg(path, file->errorString()) };
    auto reader = open(file.get());
    if (reader)
        reader.value()->m_owned = std::move(file);
    return reader;
}

RecordingReader::OpenResult RecordingReader::open(QIODevice *device)
{
    std::unique_ptr<RecordingReader> reader(new RecordingReader);
    reader->m_device = device;
    reader->m_stream = std::make_unique<Stream>();
    if (!reader->m_stream->context
        || ZSTD_isError(
            ZSTD_DCtx_setParameter(reader->m_stream->context, ZSTD_d_windowLogMax, WindowLog)))
        return RecordingError{ -1, u"cannot set up the zstd decompressor"_s };
    const QByteArray fixed = device->read(FileHeaderFixedSize);
    if (!hasMagic(fixed)) {
        const bool prefix = !fixed.isEmpty()
            && std::memcmp(fixed.data(), FileMagic, std::min<size_t>(fixed.size(), 8)) == 0;
        return errorAt(0,
                       prefix ? u"the recording is cut short inside its header"_s
                              : u"not a reconscope recording (its first bytes are not the "
                                "recording magic)"_s);
    }
    if (fixed.size() < FileHeaderFixedSize)
        return errorAt(fixed.size(), u"the recording is cut short inside its header"_s);
    RecordingHeader &header = reader->m_header;
    header.version = format::readU16(fixed.data() + 8);
    if (header.version > FormatVersion)
        return errorAt(8,
                       u"recording format version %1 is newer than this build reads (version %2 "
                       "and older): open it with a newer reconscope"_s.arg(header.version)
                           .arg(FormatVersion));
    if (header.version == 0)
        return errorAt(8, u"recording format version 0 does not exist"_s);
    if (const quint16 flags = format::readU16(fixed.data() + 10); flags != 0)
        return errorAt(10, u"unknown header flags 0x%1"_s.arg(flags, 4, 16, QChar(u'0')));
    header.startMicros = qint64(format::readU64(fixed.data() + 12));
    const quint32 metadataSize = format::readU32(fixed.data() + 20);
    if (metadataSize > MaxMetadataBytes)
        return errorAt(
            20, u"a header of %1 bytes (at most %2)"_s.arg(metadataSize).arg(MaxMetadataBytes));
    const QByteArray rest = device->read(qint64(metadataSize) + 4);
    if (rest.size() < qsizetype(metadataSize) + 4)
        return errorAt(FileHeaderFixedSize + rest.size(),
                       u"the recording is cut short inside its header"_s);
    const qint64 crcAt = FileHeaderFixedSize + metadataSize;
    if (format::crc32(fixed + rest.first(metadataSize))
        != format::readU32(rest.data() + metadataSize))
        return errorAt(
            0, u"the header is damaged (its checksum at byte %1 does not match)"_s.arg(crcAt));
    header.metadata
        = nlohmann::json::parse(rest.begin(), rest.begin() + metadataSize, nullptr, false);
    if (!header.metadata.is_object())
        return errorAt(FileHeaderFixedSize, u"the header's metadata is not a JSON object"_s);
    reader->m_position = crcAt + 4;
    reader->m_end.fileSize = device->isSequential() ? -1 : device->size();
    reader->m_end.stoppedAt = reader->m_position;
    return reader;
}

void RecordingReader::stopShort(qint64 at, const QString &detail)
{
    m_done = true;
    m_end.complete = false;
    m_end.stoppedAt = at;
    m_end.detail = detail;
    if (m_end.fileSize < 0)
        m_end.fileSize = m_position;
}

models::Result<bool, RecordingError> RecordingReader::readBlock()
{
    const qint64 at = m_position;
    const QByteArray header = m_device->read(BlockHeaderSize);
    if (header.isEmpty()) {
        if (m_sawEnd) {
            m_done = true;
            m_end.complete = true;
            if (m_end.fileSize < 0)
                m_end.fileSize = at;
            m_end.stoppedAt = at;
            return false;
        }
        stopShort(at, u"no end record after it: the recorder did not finish"_s);
        return false;
    }
    if (header.size() < BlockHeaderSize) {
        stopShort(at, u"an incomplete block header of %1 bytes"_s.arg(header.size()));
        return false;
    }
    if (std::memcmp(header.data(), BlockTag, sizeof BlockTag) != 0
        || format::crc32(QByteArrayView(header).first(16)) != format::readU32(header.data() + 16))
        return errorAt(at,
                       u"a damaged block header (not a block, or its checksum does not match)"_s);
    const quint32 compressed = format::readU32(header.data() + 4);
    const quint32 size = format::readU32(header.data() + 8);
    if (compressed == 0 || compressed > MaxBlockBytes || size > MaxBlockBytes)
        return errorAt(at,
                       u"a block of %1 bytes holding %2 (at most %3 each)"_s.arg(compressed)
                           .arg(size)
                           .arg(MaxBlockBytes));
    const QByteArray payload = m_device->read(compressed);
    if (payload.size() < qsizetype(compressed)) {
        stopShort(at,
                  u"an incomplete block: %1 of its %2 bytes"_s.arg(payload.size()).arg(compressed));
        return false;
    }
    if (format::crc32(payload) != format::readU32(header.data() + 12))
        return errorAt(
            at, u"a damaged block (its checksum does not match its %1 bytes)"_s.arg(compressed));
    m_blockOffset = at;
    if (auto decompressed = decompress(payload, size); !decompressed)
        return decompressed.error();
    m_position = at + BlockHeaderSize + compressed;
    m_end.stoppedAt = m_position;
    m_at = 0;
    m_blockRecord = 0;
    return true;
}

models::Result<bool, RecordingError> RecordingReader::decompress(const QByteArray &payload,
                                                                 quint32 size)
{
    m_block.resize(qsizetype(size));
    ZSTD_inBuffer in{ payload.constData(), size_t(payload.size()), 0 };
    ZSTD_outBuffer out{ m_block.data(), size_t(size), 0 };
    char extra = 0;
    ZSTD_outBuffer probe{ &extra, 1, 0 }; // past `size`: must stay empty
    for (;;) {
        ZSTD_outBuffer &target = out.pos < out.size ? out : probe;
        const size_t inBefore = in.pos;
        const size_t outBefore = target.pos;
        const size_t result = ZSTD_decompressStream(m_stream->context, &target, &in);
        if (ZSTD_isError(result))
            return errorAt(m_blockOffset,
                           u"a block that does not decompress (%1)"_s.arg(
                               QString::fromLatin1(ZSTD_getErrorName(result))));
        if (probe.pos > 0)
            return errorAt(m_blockOffset,
                           u"a block holding more than the %1 bytes it says"_s.arg(size));
        // With room left in the output, zstd has given all it can of the input taken.
        if (in.pos == in.size && target.pos < target.size)
            break;
        if (in.pos == inBefore && target.pos == outBefore)
            return errorAt(m_blockOffset, u"a block that does not decompress"_s);
    }
    if (out.pos != size)
        return errorAt(m_blockOffset,
                       u"a block holding %1 bytes where it says %2"_s.arg(out.pos).arg(size));
    return true;
}

RecordingError RecordingReader::recordError(const QString &what) const
{
    return RecordingError{ m_blockOffset,
                           u"byte %1: record %2 of the block there is corrupt: %3"_s
                               .arg(m_blockOffset)
                               .arg(m_blockRecord)
                               .arg(what) };
}

std::optional<RecordingError> RecordingReader::check(const Record &record)
{
    if (m_sawEnd)
        return recordError(u"a record after the end record"_s);
    const bool listed = record.type == RecordType::ListStart || record.type == RecordType::ListItem
        || record.type == RecordType::ListEnd;
    if (record.type == RecordType::Resource) {
        if (m_resources.contains(record.resource))
            return recordError(u"resource %1 declared twice"_s.arg(record.resource));
        if (auto parsed = RecordedResource::fromJson(record.data); !parsed)
            return recordError(parsed.error().message);
        m_resources.insert(record.resource);
    } else if ((listed || record.type == RecordType::Event
                || (record.type == RecordType::Note && record.resource >= 0))
               && !m_resources.contains(record.resource)) {
        return recordError(u"resource %1 is not declared"_s.arg(record.resource));
    }
    if (record.type == RecordType::ListStart && m_openLists.contains(record.resource))
        return recordError(u"a list of resource %1 starts inside another"_s.arg(record.resource));
    if ((record.type == RecordType::ListItem || record.type == RecordType::ListEnd)
        && !m_openLists.contains(record.resource))
        return recordError(u"a list item of resource %1 outside a list"_s.arg(record.resource));
    if (record.type == RecordType::ListStart)
        m_openLists.insert(record.resource);
    if (record.type == RecordType::ListEnd)
        m_openLists.remove(record.resource);
    if (record.type == RecordType::End)
        m_sawEnd = true;
    return std::nullopt;
}

RecordingReader::NextResult RecordingReader::next()
{
    while (!m_done) {
        if (m_at < m_block.size()) {
            QString problem;
            auto record = format::readRecord(m_block, &m_at, m_lastTime, &problem);
            if (!record)
                return recordError(problem);
            if (auto error = check(*record))
                return *error;
            ++m_blockRecord;
            m_lastTime = record->time;
            ++m_end.records;
            m_end.lastTime = record->time;
            return std::optional<Record>(std::move(*record));
        }
        auto more = readBlock();
        if (!more)
            return more.error();
    }
    return std::optional<Record>();
}

} // namespace reconscope::controller::record
