#include "controller/record/recordingwriter.h"

#include <zstd.h>

#include <QFile>
#include <QIODevice>

using namespace Qt::StringLiterals;

namespace reconscope::controller::record {

struct RecordingWriter::Stream
{
    ZSTD_CCtx *context = ZSTD_createCCtx();
    ~Stream() { ZSTD_freeCCtx(context); }
};

RecordingWriter::~RecordingWriter() = default;

models::Result<std::unique_ptr<RecordingWriter>>
RecordingWriter::create(const QString &path, const RecordingHeader &header, Options options)
{
    auto file = std::make_unique<QFile>(path);
    // Unbuffered: each block reaches the system as it is written, so that a process killed
    // between blocks leaves every block before it in the file.
    if (!file->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
        return models::Result<std::unique_ptr<RecordingWriter>>::failure(
            u"cannot write %1: %2"_s.arg(path, file->errorString()));
    }
    auto writer = create(file.get(), header, options);
    if (writer)
        writer.value()->m_owned = std::move(file);
    return writer;
}

models::Result<std::unique_ptr<RecordingWriter>>
RecordingWriter::create(QIODevice *device, const RecordingHeader &header, Options options)
{
    std::unique_ptr<RecordingWriter> writer(new RecordingWriter);
    writer->m_device = device;
    writer->m_options = options;
    writer->m_stream = std::make_unique<Stream>();
    ZSTD_CCtx *context = writer->m_stream->context;
    if (!context
        || ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, options.level))
        || ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, WindowLog))
        || ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0))) {
        return models::Result<std::unique_ptr<RecordingWriter>>::failure(
            u"cannot set up the zstd compressor"_s);
    }
    if (auto written = writer->write(format::fileHeader(header)); !written)
        return written.error();
    return writer;
}

models::Status<> RecordingWriter::write(QByteArrayView bytes)
{
    if (m_device->write(bytes.data(), bytes.size()) != bytes.size())
        return models::Status<>::failure(
            u"cannot write the recording: %1"_s.arg(m_device->errorString()));
    m_fileBytes += bytes.size();
    return {};
}

models::Status<> RecordingWriter::compress(QByteArrayView input, int directive)
{
    ZSTD_inBuffer in{ input.data(), size_t(input.size()), 0 };
    for (;;) {
        const qsizetype before = m_block.size();
        const size_t room = std::max<size_t>(ZSTD_CStreamOutSize(), size_t(input.size()) / 2);
        m_block.resize(before + qsizetype(room));
        ZSTD_outBuffer out{ m_block.data() + before, room, 0 };
        const size_t left
            = ZSTD_compressStream2(m_stream->context, &out, &in, ZSTD_EndDirective(directive));
        m_block.resize(before + qsizetype(out.pos));
        if (ZSTD_isError(left))
            return models::Status<>::failure(
                u"zstd: %1"_s.arg(QString::fromLatin1(ZSTD_getErrorName(left))));
        const bool consumed = in.pos == in.size;
        // ZSTD_e_continue is done once the input is taken; flush and end once nothing is left.
        if (consumed && (directive == ZSTD_e_continue || left == 0))
            return {};
    }
}

models::Status<> RecordingWriter::append(const Record &record)
{
    if (m_finished)
        return models::Status<>::failure(u"the recording is finished"_s);
    const qint64 time = std::max(record.time, m_lastTime);
    m_encoded.clear();
    format::appendRecord(m_encoded, record, m_lastTime);
    m_lastTime = time;
    if (auto compressed = compress(m_encoded, ZSTD_e_continue); !compressed)
        return compressed;
    m_blockInput += m_encoded.size();
    m_recordBytes += m_encoded.size();
    ++m_records;
    ++m_pendingRecords;
    // A block is cut only between records, so every block holds whole records.
    if (m_blockInput >= m_options.blockBytes)
        return flush();
    return {};
}

models::Status<> RecordingWriter::flush()
{
    if (m_pendingRecords == 0)
        return {};
    if (auto compressed = compress({}, ZSTD_e_flush); !compressed)
        return compressed;
    return writeBlock();
}

models::Status<> RecordingWriter::writeBlock()
{
    QByteArray header(BlockTag, sizeof BlockTag);
    format::appendU32(header, quint32(m_block.size()));
    format::appendU32(header, quint32(m_blockInput));
    format::appendU32(header, format::crc32(m_block));
    format::appendU32(header, format::crc32(header));
    auto written = write(header);
    if (written)
        written = write(m_block);
    m_block.clear();
    m_blockInput = 0;
    m_pendingRecords = 0;
    return written;
}

models::Status<> RecordingWriter::finish(const nlohmann::json &summary)
{
    Record end;
    end.type = RecordType::End;
    end.time = m_lastTime;
    end.data = QByteArray::fromStdString(summary.dump());
    if (auto appended = append(end); !appended)
        return appended;
    m_finished = true;
    if (auto compressed = compress({}, ZSTD_e_end); !compressed)
        return compressed;
    auto written = writeBlock();
    if (m_owned && written) {
        auto *file = static_cast<QFile *>(m_owned.get());
        if (!file->flush())
            written = models::Status<>::failure(
                u"cannot write the recording: %1"_s.arg(file->errorString()));
        file->close();
    }
    return written;
}

} // namespace reconscope::controller::record
