#pragma once

// The recording file format (docs/recording.md): the values a recording holds and the byte layout
// they are written in. The writer (recordingwriter.h) and the reader (recordingreader.h) are its
// only users of the layout; everything else sees Records.
#include "controller/apimachinery/resourceref.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>
#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace reconscope::controller::record {

// The version this build writes and the newest it reads.
inline constexpr quint16 FormatVersion = 1;

// "\x89RSCREC\n": a high byte first so that no text file starts with it, a newline last so that
// a transfer that rewrites line ends shows at once (PNG's trick).
inline constexpr char FileMagic[8] = { '\x89', 'R', 'S', 'C', 'R', 'E', 'C', '\n' };
inline constexpr qsizetype FileHeaderFixedSize = 24; // magic, version, flags, start, length
inline constexpr char BlockTag[4] = { 'R', 'B', 'L', 'K' };
inline constexpr qsizetype BlockHeaderSize = 20;
// Bounds a reader holds every length to, so that no input makes it allocate more.
inline constexpr quint32 MaxMetadataBytes = 1u << 20;
inline constexpr quint32 MaxBlockBytes = 64u << 20;
// The compressed stream's window: the writer's, and the most a reader accepts (8 MiB).
inline constexpr int WindowLog = 23;

enum class RecordType : quint8 {
    Resource = 0x01, // varint id, JSON (RecordedResource)
    Discovery = 0x02, // JSON array of the cluster's served resources
    Crd = 0x03, // a CustomResourceDefinition's JSON
    ListStart = 0x10, // varint id: a list of the resource begins
    ListItem = 0x11, // varint id, object JSON
    ListEnd = 0x12, // varint id, resourceVersion: the list is complete; what it lacks is gone
    Event = 0x20, // varint id, event type byte, object JSON
    Note = 0x30, // varint (id + 1, 0 for none), UTF-8 text: a reconnect, a relist, a warning
    End = 0x7f, // JSON summary; the last record of a complete recording
};

enum class EventType : quint8 { Added = 1, Modified = 2, Deleted = 3, Bookmark = 4 };

// "ADDED", "MODIFIED", "DELETED", "BOOKMARK" (the watch stream's words).
QString eventTypeName(EventType type);
std::optional<EventType> eventTypeFromName(QStringView name);

// One record. `time` is microseconds since the recording's start (RecordingHeader::startMicros);
// times never decrease along a recording.
struct Record
{
    RecordType type = RecordType::Event;
    qint64 time = 0;
    bool estimated = false; // the time was inferred (an untimed kubectl capture)
    int resource = -1; // for the list, event and note records (-1: a note about no resource)
    EventType event = EventType::Added; // for Event
    QByteArray data; // object, JSON document, resourceVersion or text, by type

    friend bool operator==(const Record &, const Record &) = default;
};

// A resource a recording holds objects of: what was watched, and where.
struct RecordedResource
{
    QString group; // empty for the core group
    QString version;
    QString plural;
    QString kind;
    bool namespaced = true;
    QString namespace_; // the namespace recorded; empty: all namespaces (or cluster-scoped)
    QString fieldSelector; // the Events of one kind: "involvedObject.kind=CustomApp"
    bool pluralGuessed = false; // imported from objects alone: the plural is the kind's guess

    friend bool operator==(const RecordedResource &, const RecordedResource &) = default;

    apimachinery::ResourceRef ref() const { return { group, version, plural, namespaced }; }
    QString apiVersion() const { return group.isEmpty() ? version : group + u'/' + version; }
    // "customapps.infrastructure.internal.net" or "pods".
    QString qualifiedName() const { return group.isEmpty() ? plural : plural + u'.' + group; }
    bool isEvents() const;

    nlohmann::json toJson() const;
    static models::Result<RecordedResource> fromJson(QByteArrayView json);
};

struct RecordingHeader
{
    quint16 version = FormatVersion;
    qint64 startMicros = 0; // wall time of the start, microseconds since the Unix epoch, UTC
    // {"producer", "source": "record" | "import", "context", "server", "files", ...}
    nlohmann::json metadata = nlohmann::json::object();

    QDateTime startTime() const;
    // The wall time of a record's time (microseconds since the start), UTC, milliseconds kept.
    QDateTime wallTime(qint64 time) const;
};

// What went wrong reading a recording, and where: `offset` is the file's byte offset of the
// damaged header, block or line; `message` says it in words and names the offset too.
struct RecordingError
{
    qint64 offset = -1;
    QString message;
};

// How a read recording ended: complete (its End record) or cut short, and then where.
struct RecordingEnd
{
    bool complete = false;
    qint64 fileSize = 0;
    qint64 stoppedAt = 0; // where the last whole block (or line) ends
    qint64 records = 0; // whole records read
    qint64 lastTime = 0; // the time of the last whole record
    QString detail; // what follows stoppedAt when cut short ("an incomplete block of 4 KiB")

    // "complete" or "cut short at byte N of M: ...; read up to its last whole record (+12.3 s)".
    QString describe() const;
};

// The byte layout's pieces, shared by the writer and the reader.
namespace format {
quint32 crc32(QByteArrayView bytes);
void appendVarint(QByteArray &out, quint64 value);
// Reads a LEB128 varint at *at (at most 10 bytes); advances *at; nothing when malformed.
std::optional<quint64> readVarint(QByteArrayView in, qsizetype *at);
void appendU16(QByteArray &out, quint16 value);
void appendU32(QByteArray &out, quint32 value);
void appendU64(QByteArray &out, quint64 value);
quint16 readU16(const char *at);
quint32 readU32(const char *at);
quint64 readU64(const char *at);

// The record's bytes in the decompressed stream: type, flags, varint time since `previousTime`,
// varint payload length, payload.
void appendRecord(QByteArray &out, const Record &record, qint64 previousTime);
// Reads one record at *at of a block's decompressed bytes; nothing and *error when malformed.
std::optional<Record>
readRecord(QByteArrayView in, qsizetype *at, qint64 previousTime, QString *error);

// The file header's bytes, checksum included.
QByteArray fileHeader(const RecordingHeader &header);
} // namespace format

} // namespace reconscope::controller::record
