#pragma once

#include "controller/record/recordingformat.h"
#include "models/result.h"

#include <QByteArray>
#include <QSet>
#include <QString>

#include <memory>
#include <optional>

class QIODevice;

namespace reconscope::controller::record {

// Reads a recording record by record, a block at a time (memory: one block, whatever the file's
// size). Every input is answered without a crash: a file cut short (a recorder killed, a copy of a
// file still being written) reads up to the last whole block and end() says where it stopped; a
// damaged header, block or record, a record that breaks the format's rules and a format version
// newer than this build are errors naming the byte offset.
class RecordingReader
{
public:
    using OpenResult = models::Result<std::unique_ptr<RecordingReader>, RecordingError>;
    using NextResult = models::Result<std::optional<Record>, RecordingError>;

    ~RecordingReader();
    RecordingReader(const RecordingReader &) = delete;
    RecordingReader &operator=(const RecordingReader &) = delete;

    // Opens the file and reads its header.
    static OpenResult open(const QString &path);
    // The same from a device open for reading, which must outlive the reader.
    static OpenResult open(QIODevice *device);
    // Whether bytes start as a recording does (the file's first 8 bytes suffice).
    static bool hasMagic(QByteArrayView firstBytes);

    const RecordingHeader &header() const { return m_header; }
    // The next record, or nothing at the end: after the End record (end().complete) or where the
    // file stops short (end() says where).
    NextResult next();
    const RecordingEnd &end() const { return m_end; }

private:
    RecordingReader() = default;
    models::Result<bool, RecordingError> readBlock();
    models::Result<bool, RecordingError> decompress(const QByteArray &payload, quint32 size);
    RecordingError recordError(const QString &what) const;
    std::optional<RecordingError> check(const Record &record);
    void stopShort(qint64 at, const QString &detail);

    struct Stream;
    std::unique_ptr<QIODevice> m_owned;
    QIODevice *m_device = nullptr;
    std::unique_ptr<Stream> m_stream;
    RecordingHeader m_header;
    RecordingEnd m_end;
    qint64 m_position = 0; // where the next block starts
    QByteArray m_block; // the current block's records
    qsizetype m_at = 0; // the next record in m_block
    qint64 m_blockOffset = 0;
    int m_blockRecord = 0; // index of the next record in the block
    qint64 m_lastTime = 0;
    bool m_sawEnd = false;
    bool m_done = false;
    QSet<int> m_resources; // ids declared so far
    QSet<int> m_openLists; // resources whose list has started and not ended
};

} // namespace reconscope::controller::record
