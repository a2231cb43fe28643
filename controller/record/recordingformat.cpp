#include "controller/record/recordingformat.h"
#include "models/jsonfields.h"

#include <zlib.h>

#include <QTimeZone>
#include <QtEndian>

#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::controller::record {

namespace {

constexpr quint8 EstimatedFlag = 0x01;

bool isKnownType(quint8 type)
{
    switch (RecordType(type)) {
    case RecordType::Resource:
    case RecordType::Discovery:
    case RecordType::Crd:
    case RecordType::ListStart:
    case RecordType::ListItem:
    case RecordType::ListEnd:
    case RecordType::Event:
    case RecordType::Note:
    case RecordType::End:
        return true;
    }
    return false;
}

// Whether the payload starts with a varint resource id (a note's is the id + 1).
bool hasResourceId(RecordType type)
{
    switch (type) {
    case RecordType::Resource:
    case RecordType::ListStart:
    case RecordType::ListItem:
    case RecordType::ListEnd:
    case RecordType::Event:
    case RecordType::Note:
        return true;
    default:
        return false;
    }
}

using models::jsonString;

} // namespace

QString eventTypeName(EventType type)
{
    switch (type) {
    case EventType::Added:
        return u"ADDED"_s;
    case EventType::Modified:
        return u"MODIFIED"_s;
    case EventType::Deleted:
        return u"DELETED"_s;
    case EventType::Bookmark:
        return u"BOOKMARK"_s;
    }
    return {};
}

std::optional<EventType> eventTypeFromName(QStringView name)
{
    for (const EventType type :
         { EventType::Added, EventType::Modified, EventType::Deleted, EventType::Bookmark }) {
        if (name == eventTypeName(type))
            return type;
    }
    return std::nullopt;
}

bool RecordedResource::isEvents() const
{
    return plural == u"events"_s && (group.isEmpty() || group == u"events.k8s.io"_s);
}

nlohmann::json RecordedResource::toJson() const
{
    nlohmann::json json{
        { "group", group.toStdString() },   { "version", version.toStdString() },
        { "plural", plural.toStdString() }, { "kind", kind.toStdString() },
        { "namespaced", namespaced },       { "namespace", namespace_.toStdString() },
    };
    if (!fieldSelector.isEmpty())
        json["fieldSelector"] = fieldSelector.toStdString();
    if (pluralGuessed)
        json["pluralGuessed"] = true;
    return json;
}

models::Result<RecordedResource> RecordedResource::fromJson(QByteArrayView bytes)
{
    const auto json = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!json.is_object())
        return models::Result<RecordedResource>::failure(u"a resource that is not a JSON object"_s);
    RecordedResource resource;
    resource.group = jsonString(json, "group");
    resource.version = jsonString(json, "version");
    resource.plural = jsonString(json, "plural");
    resource.kind = jsonString(json, "kind");
    resource.namespace_ = jsonString(json, "namespace");
    resource.fieldSelector = jsonString(json, "fieldSelector");
    const auto namespaced = json.find("namespaced");
    resource.namespaced
        = namespaced == json.end() || !namespaced->is_boolean() || namespaced->get<bool>();
    const auto guessed = json.find("pluralGuessed");
    resource.pluralGuessed = guessed != json.end() && guessed->is_boolean() && guessed->get<bool>();
    if (resource.version.isEmpty() || resource.plural.isEmpty())
        return models::Result<RecordedResource>::failure(u"a resource without version or plural"_s);
    return resource;
}

QDateTime RecordingHeader::startTime() const
{
    return QDateTime::fromMSecsSinceEpoch(startMicros / 1000, Qt::UTC);
}

QDateTime RecordingHeader::wallTime(qint64 time) const
{
    return QDateTime::fromMSecsSinceEpoch((startMicros + time) / 1000, Qt::UTC);
}

QString RecordingEnd::describe() const
{
    if (complete)
        return u"complete: %1 records over %2 s"_s.arg(records).arg(lastTime / 1e6, 0, 'f', 1);
    return u"cut short at byte %1 of %2 (%3); read up to its last whole record, %4 records "
           "(+%5 s)"_s.arg(stoppedAt)
               .arg(fileSize)
               .arg(detail)
               .arg(records)
               .arg(lastTime / 1e6, 0, 'f', 1);
}

namespace format {

quint32 crc32(QByteArrayView bytes)
{
    uLong crc = ::crc32(0L, Z_NULL, 0);
    // zlib takes a uInt length: feed very large inputs in parts.
    qsizetype at = 0;
    while (at < bytes.size()) {
        const auto part = std::min<qsizetype>(bytes.size() - at, 1 << 30);
        crc = ::crc32(crc, reinterpret_cast<const Bytef *>(bytes.data() + at), uInt(part));
        at += part;
    }
    return quint32(crc);
}

void appendVarint(QByteArray &out, quint64 value)
{
    while (value >= 0x80) {
        out.append(char(quint8(value) | 0x80));
        value >>= 7;
    }
    out.append(char(value));
}

std::optional<quint64> readVarint(QByteArrayView in, qsizetype *at)
{
    quint64 value = 0;
    for (int shift = 0, i = 0; i < 10; ++i, shift += 7) {
        if (*at >= in.size())
            return std::nullopt;
        const quint8 byte = quint8(in[*at]);
        ++*at;
        // The tenth byte may hold one bit only.
        if (i == 9 && byte > 1)
            return std::nullopt;
        value |= quint64(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return value;
    }
    return std::nullopt;
}

void appendU16(QByteArray &out, quint16 value)
{
    char bytes[2];
    qToLittleEndian(value, bytes);
    out.append(bytes, 2);
}

void appendU32(QByteArray &out, quint32 value)
{
    char bytes[4];
    qToLittleEndian(value, bytes);
    out.append(bytes, 4);
}

void appendU64(QByteArray &out, quint64 value)
{
    char bytes[8];
    qToLittleEndian(value, bytes);
    out.append(bytes, 8);
}

quint16 readU16(const char *at)
{
    return qFromLittleEndian<quint16>(at);
}

quint32 readU32(const char *at)
{
    return qFromLittleEndian<quint32>(at);
}

quint64 readU64(const char *at)
{
    return qFromLittleEndian<quint64>(at);
}

void appendRecord(QByteArray &out, const Record &record, qint64 previousTime)
{
    out.append(char(record.type));
    out.append(char(record.estimated ? EstimatedFlag : 0));
    appendVarint(out, quint64(std::max<qint64>(0, record.time - previousTime)));
    QByteArray prefix;
    if (record.type == RecordType::Note)
        appendVarint(prefix, quint64(record.resource + 1));
    else if (hasResourceId(record.type))
        appendVarint(prefix, quint64(std::max(0, record.resource)));
    if (record.type == RecordType::Event)
        prefix.append(char(record.event));
    appendVarint(out, quint64(prefix.size() + record.data.size()));
    out.append(prefix);
    out.append(record.data);
}

std::optional<Record>
readRecord(QByteArrayView in, qsizetype *at, qint64 previousTime, QString *error)
{
    if (in.size() - *at < 2) {
        *error = u"a record cut off inside its block"_s;
        return std::nullopt;
    }
    const quint8 type = quint8(in[*at]);
    const quint8 flags = quint8(in[*at + 1]);
    *at += 2;
    if (!isKnownType(type)) {
        *error = u"unknown record type 0x%1"_s.arg(type, 2, 16, QChar(u'0'));
        return std::nullopt;
    }
    if (flags & ~EstimatedFlag) {
        *error = u"unknown record flags 0x%1"_s.arg(flags, 2, 16, QChar(u'0'));
        return std::nullopt;
    }
    const auto delta = readVarint(in, at);
    const auto length = delta ? readVarint(in, at) : std::nullopt;
    if (!delta || !length || *delta > quint64(1) << 52
        || previousTime > (qint64(1) << 60) - qint64(*delta)) {
        *error = u"a malformed record time or length"_s;
        return std::nullopt;
    }
    if (*length > quint64(in.size() - *at)) {
        *error = u"a record of %1 bytes where its block has %2 left"_s.arg(*length).arg(in.size()
                                                                                        - *at);
        return std::nullopt;
    }
    const QByteArrayView payload = in.sliced(*at, qsizetype(*length));
    *at += qsizetype(*length);
    Record record;
    record.type = RecordType(type);
    record.estimated = flags & EstimatedFlag;
    record.time = previousTime + qint64(*delta);
    qsizetype p = 0;
    if (hasResourceId(record.type)) {
        const auto id = readVarint(payload, &p);
        if (!id || *id > 1u << 20) {
            *error = u"a malformed resource id"_s;
            return std::nullopt;
        }
        record.resource = record.type == RecordType::Note ? int(*id) - 1 : int(*id);
    }
    if (record.type == RecordType::Event) {
        if (p >= payload.size() || quint8(payload[p]) < 1 || quint8(payload[p]) > 4) {
            *error = u"an event without a known type"_s;
            return std::nullopt;
        }
        record.event = EventType(quint8(payload[p]));
        ++p;
    }
    record.data = payload.sliced(p).toByteArray();
    return record;
}

QByteArray fileHeader(const RecordingHeader &header)
{
    const QByteArray metadata = QByteArray::fromStdString(header.metadata.dump());
    QByteArray out(FileMagic, sizeof FileMagic);
    appendU16(out, header.version);
    appendU16(out, 0); // flags
    appendU64(out, quint64(header.startMicros));
    appendU32(out, quint32(metadata.size()));
    out.append(metadata);
    appendU32(out, crc32(out));
    return out;
}

} // namespace format

} // namespace reconscope::controller::record
