#pragma once

#include "controller/record/recordingformat.h"
#include "models/result.h"

#include <QByteArray>
#include <QString>

#include <memory>

class QIODevice;

namespace reconscope::controller::record {

// Writes a recording (docs/recording.md): the header, then the records in blocks, each block the
// next flushed part of one zstd stream, length-prefixed and checksummed. A block is written when
// `blockBytes` of records are pending and on flush(); a file cut short anywhere thus reads back
// up to the last block written whole. Not thread-safe: one thread writes (the recorder's worker).
class RecordingWriter
{
public:
    struct Options
    {
        // zstd level 1: on watch streams its window finds the previous version of each object, so
        // the file stays a fiftieth of the JSON or less (docs/performance.md) for less CPU than
        // level 3.
        int level = 1;
        qsizetype blockBytes = 1 << 20; // records (uncompressed) per block at most, about
    };

    ~RecordingWriter();
    RecordingWriter(const RecordingWriter &) = delete;
    RecordingWriter &operator=(const RecordingWriter &) = delete;

    // Creates (truncates) the file and writes the header.
    static models::Result<std::unique_ptr<RecordingWriter>>
    create(const QString &path, const RecordingHeader &header, Options options);
    static models::Result<std::unique_ptr<RecordingWriter>> create(const QString &path,
                                                                   const RecordingHeader &header)
    {
        return create(path, header, Options{});
    }
    // The same onto an open device the writer does not own (a QBuffer in tests and the fuzzer's
    // corpus maker).
    static models::Result<std::unique_ptr<RecordingWriter>>
    create(QIODevice *device, const RecordingHeader &header, Options options);

    // A record's time is clamped to be no earlier than the one before it.
    models::Status<> append(const Record &record);
    // Writes what is pending as a block: every record appended so far is then in the file.
    models::Status<> flush();
    // Appends the End record (`summary` as its JSON), ends the stream and writes the last block.
    // Nothing may be appended afterwards.
    models::Status<> finish(const nlohmann::json &summary);

    qint64 fileBytes() const { return m_fileBytes; }
    qint64 recordBytes() const { return m_recordBytes; } // uncompressed, as appended
    qint64 records() const { return m_records; }
    qint64 lastTime() const { return m_lastTime; }
    bool hasPending() const { return m_pendingRecords > 0; }

private:
    RecordingWriter() = default;
    models::Status<> compress(QByteArrayView input, int directive);
    models::Status<> writeBlock();
    models::Status<> write(QByteArrayView bytes);

    struct Stream;
    std::unique_ptr<QIODevice> m_owned;
    QIODevice *m_device = nullptr;
    std::unique_ptr<Stream> m_stream;
    Options m_options;
    QByteArray m_encoded; // scratch: the record being appended
    QByteArray m_block; // compressed bytes of the block being made
    qsizetype m_blockInput = 0; // uncompressed bytes in it
    qint64 m_pendingRecords = 0;
    qint64 m_fileBytes = 0;
    qint64 m_recordBytes = 0;
    qint64 m_records = 0;
    qint64 m_lastTime = 0;
    bool m_finished = false;
};

} // namespace reconscope::controller::record
