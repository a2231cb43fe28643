#include "controller/record/kubectlimport.h"

#include "controller/record/timestampprefix.h"
#include "models/jsonfields.h"
#include "models/rfc3339.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QTimeZone>

#include <cstdlib>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::record {

namespace {

// Deeper than any Kubernetes object; what a parser may nest before it refuses.
constexpr int MaxDepth = 256;

// One complete JSON value of a capture, where it starts, and the time prefix of its first line.
struct Value
{
    QByteArrayView text;
    qint64 offset = 0;
    int line = 0;
    std::optional<TimestampPrefix> prefix;
};

// Splits a capture into its JSON values, line by line: a value starts at a line's first '{' or
// '[' (after the time prefix) and ends where its brackets close, over as many lines as it takes.
class CaptureScanner
{
public:
    std::function<std::optional<RecordingError>(const Value &)> onValue;

    std::optional<RecordingError> run(QByteArrayView text);

    std::optional<TimestampPrefix::Kind> kind; // the time prefix the lines carry, if any
    int skippedLines = 0;
    int firstSkippedLine = 0;
    bool cutShort = false;
    qint64 cutAt = 0;
    int cutLine = 0;
    qint64 wholeEnd = 0; // where the last whole value ends

private:
    std::optional<RecordingError> line(QByteArrayView line, qint64 offset, bool last);
    void decideKind(QByteArrayView line);
    std::optional<RecordingError> scan(QByteArrayView line, qsizetype from, qint64 offset);

    bool m_decided = false;
    int m_line = 0;
    int m_depth = 0;
    bool m_inString = false;
    bool m_escape = false;
    QByteArray m_buffer; // the current value's lines so far
    Value m_value;
    std::optional<TimestampPrefix> m_prefix; // of the line being scanned
};

bool startsValue(char c)
{
    return c == '{' || c == '[';
}

qsizetype skipSpace(QByteArrayView line, qsizetype at)
{
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
        ++at;
    return at;
}

void CaptureScanner::decideKind(QByteArrayView line)
{
    const qsizetype first = skipSpace(line, 0);
    if (first == line.size())
        return;
    if (startsValue(line[first])) {
        m_decided = true;
        return;
    }
    if (const auto prefix = parseTimestampPrefix(line)) {
        const qsizetype rest = skipSpace(line, prefix->length);
        if (rest < line.size() && startsValue(line[rest])) {
            kind = prefix->kind;
            m_decided = true;
        }
    }
}

std::optional<RecordingError> CaptureScanner::run(QByteArrayView text)
{
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf('\n', start);
        const bool last = end < 0;
        if (last)
            end = text.size();
        QByteArrayView content = text.sliced(start, end - start);
        if (content.endsWith('\r'))
            content.chop(1);
        if (auto error = line(content, start, last))
            return error;
        if (cutShort)
            return std::nullopt;
        start = end + 1;
    }
    if (m_depth > 0) {
        cutShort = true;
        cutAt = m_value.offset;
        cutLine = m_value.line;
    }
    return std::nullopt;
}

std::optional<RecordingError> CaptureScanner::line(QByteArrayView content, qint64 offset, bool last)
{
    ++m_line;
    if (!m_decided && m_depth == 0)
        decideKind(content);
    qsizetype at = 0;
    m_prefix.reset();
    if (kind) {
        m_prefix = parseTimestampPrefix(content, kind);
        if (m_prefix)
            at = m_prefix->length;
    }
    if (m_depth == 0) {
        at = skipSpace(content, at);
        if (at == content.size())
            return std::nullopt;
        if (!startsValue(content[at])) {
            if (last) { // a line cut off before its value began
                cutShort = true;
                cutAt = offset;
                cutLine = m_line;
                return std::nullopt;
            }
            if (skippedLines++ == 0)
                firstSkippedLine = m_line;
            return std::nullopt;
        }
    }
    return scan(content, at, offset);
}

std::optional<RecordingError>
CaptureScanner::scan(QByteArrayView content, qsizetype from, qint64 offset)
{
    qsizetype segment = from; // the start of this line's part of the current value
    for (qsizetype i = from; i < content.size(); ++i) {
        const char c = content[i];
        if (m_depth == 0) {
            if (c == ' ' || c == '\t')
                continue;
            if (!startsValue(c))
                return RecordingError{
                    offset + i,
                    u"line %1, byte %2: text after a JSON value"_s.arg(m_line).arg(offset + i)
                };
            m_value = Value{ {}, offset + i, m_line, m_prefix };
            m_buffer.clear();
            segment = i;
        }
        if (m_inString) {
            if (m_escape)
                m_escape = false;
            else if (c == '\\')
                m_escape = true;
            else if (c == '"')
                m_inString = false;
            continue;
        }
        if (c == '"') {
            m_inString = true;
        } else if (startsValue(c)) {
            if (++m_depth > MaxDepth)
                return RecordingError{ offset + i,
                                       u"line %1, byte %2: JSON nested deeper than %3 levels"_s
                                           .arg(m_line)
                                           .arg(offset + i)
                                           .arg(MaxDepth) };
        } else if ((c == '}' || c == ']') && --m_depth == 0) {
            m_buffer.append(content.sliced(segment, i + 1 - segment));
            m_value.text = m_buffer;
            if (auto error = onValue(m_value))
                return error;
            wholeEnd = offset + i + 1;
        }
    }
    if (m_depth > 0) {
        m_buffer.append(content.sliced(segment));
        m_buffer.append('\n');
    }
    return std::nullopt;
}

// The latest of an object's own times, in microseconds since the epoch.
std::optional<qint64> ownTime(const json &object)
{
    std::optional<qint64> latest;
    const auto consider = [&latest](const json &value) {
        if (!value.is_string())
            return;
        const auto time = models::parseRfc3339(QString::fromStdString(value.get<std::string>()));
        if (time && (!latest || time->toMSecsSinceEpoch() * 1000 > *latest))
            latest = time->toMSecsSinceEpoch() * 1000;
    };
    const auto each = [](const json &array, const char *key, const auto &f) {
        if (!array.is_array())
            return;
        for (const json &item : array) {
            if (item.is_object() && item.contains(key))
                f(item[key]);
        }
    };
    const json meta = object.value("metadata", json::object());
    if (meta.is_object()) {
        consider(meta.value("creationTimestamp", json()));
        consider(meta.value("deletionTimestamp", json()));
        each(meta.value("managedFields", json()), "time", consider);
    }
    const json status = object.value("status", json::object());
    if (status.is_object()) {
        each(status.value("conditions", json()), "lastTransitionTime", consider);
        each(status.value("conditions", json()), "lastUpdateTime", consider);
    }
    // An Event's own times.
    for (const char *key : { "firstTimestamp", "lastTimestamp", "eventTime" })
        consider(object.value(key, json()));
    return latest;
}

bool isCrd(const json &object)
{
    return object.value("kind", json()) == "CustomResourceDefinition"
        && object.value("apiVersion", json()).is_string()
        && object["apiVersion"].get<std::string>().starts_with("apiextensions.k8s.io/");
}

bool isObject(const json &value)
{
    return value.is_object() && value.value("apiVersion", json()).is_string()
        && value.value("kind", json()).is_string() && value.value("metadata", json()).is_object();
}

QByteArray bytesOf(const json &value)
{
    return QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

using models::jsonMember;
using models::jsonString;

// The records a capture makes, with what each one's time is to be found from.
class CaptureImport
{
public:
    struct Pending
    {
        Record record;
        std::optional<TimestampPrefix> prefix;
        std::optional<qint64> own;
    };

    std::optional<RecordingError> take(const Value &value);
    QList<Pending> pending;
    int untyped = 0;
    int errors = 0;
    int unknown = 0;
    int firstUnknownLine = 0;

private:
    void addObject(const json &object, std::optional<EventType> type, const Value &value);
    int resourceFor(const json &object, const Value &value);

    QHash<QString, int> m_resources; // "apiVersion/kind" -> id
    QSet<QString> m_keys; // "apiVersion/kind/ns/name" seen and not deleted (untyped objects)
};

std::optional<RecordingError> CaptureImport::take(const Value &value)
{
    const json parsed = json::parse(value.text.begin(), value.text.end(), nullptr, false);
    if (parsed.is_discarded())
        return RecordingError{ value.offset,
                               u"line %1, byte %2: not JSON"_s.arg(value.line).arg(value.offset) };
    if (parsed.is_object() && parsed.value("type", json()).is_string()
        && parsed.value("object", json()).is_object()) {
        const QString typeName = jsonString(parsed, "type");
        const auto type = eventTypeFromName(typeName);
        if (!type) {
            ++errors; // ERROR: the watch ended with a Status; kubectl stops there
            return std::nullopt;
        }
        addObject(parsed["object"], type, value);
        return std::nullopt;
    }
    if (parsed.is_object() && parsed.value("items", json()).is_array()) {
        for (const json &item : parsed["items"]) {
            if (isObject(item))
                addObject(
                    item, isCrd(item) ? std::nullopt : std::optional(EventType::Added), value);
        }
        return std::nullopt;
    }
    if (isObject(parsed)) {
        addObject(parsed, std::nullopt, value);
        return std::nullopt;
    }
    if (unknown++ == 0)
        firstUnknownLine = value.line;
    return std::nullopt;
}

int CaptureImport::resourceFor(const json &object, const Value &value)
{
    const QString apiVersion = jsonString(object, "apiVersion");
    const QString kind = jsonString(object, "kind");
    const QString id = apiVersion + u'/' + kind;
    if (const auto it = m_resources.constFind(id); it != m_resources.cend())
        return *it;
    RecordedResource resource;
    const qsizetype slash = apiVersion.indexOf(u'/');
    resource.group = slash < 0 ? QString() : apiVersion.first(slash);
    resource.version = slash < 0 ? apiVersion : apiVersion.sliced(slash + 1);
    resource.kind = kind;
    resource.plural = guessPlural(kind);
    resource.pluralGuessed = true;
    resource.namespaced = !jsonString(jsonMember(object, "metadata"), "namespace").isEmpty();
    const int number = int(m_resources.size());
    m_resources.insert(id, number);
    Record record;
    record.type = RecordType::Resource;
    record.resource = number;
    record.data = QByteArray::fromStdString(resource.toJson().dump());
    pending.append({ std::move(record), value.prefix, std::nullopt });
    return number;
}

void CaptureImport::addObject(const json &object, std::optional<EventType> type, const Value &value)
{
    const auto own = ownTime(object);
    if (isCrd(object)) {
        Record crd;
        crd.type = RecordType::Crd;
        crd.data = bytesOf(object);
        pending.append({ std::move(crd), value.prefix, own });
        if (!type)
            return; // a CRD listed or printed alone: the recording's CRD, no event
    }
    const json &meta = jsonMember(object, "metadata");
    const QString key = jsonString(object, "apiVersion") + u'/' + jsonString(object, "kind") + u'/'
        + jsonString(meta, "namespace") + u'/' + jsonString(meta, "name");
    if (!type) {
        ++untyped;
        type = m_keys.contains(key) ? EventType::Modified : EventType::Added;
    }
    if (*type == EventType::Deleted)
        m_keys.remove(key);
    else if (*type != EventType::Bookmark)
        m_keys.insert(key);
    Record record;
    record.type = RecordType::Event;
    record.event = *type;
    record.resource = resourceFor(object, value);
    record.data = bytesOf(object);
    pending.append({ std::move(record), value.prefix, own });
}

// Syslog times carry no year: the one that puts the first line nearest `reference`.
int yearNear(const TimestampPrefix &prefix, qint64 reference)
{
    const int referenceYear
        = QDateTime::fromMSecsSinceEpoch(reference / 1000, Qt::UTC).date().year();
    int best = referenceYear;
    for (const int year : { referenceYear - 1, referenceYear + 1 }) {
        if (std::abs(prefix.epochMicros(year) - reference)
            < std::abs(prefix.epochMicros(best) - reference))
            best = year;
    }
    return best;
}

// Times from the lines' prefixes; lines without one take the time before them.
void timesFromPrefixes(QList<CaptureImport::Pending> &pending,
                       TimestampPrefix::Kind kind,
                       qint64 fallback,
                       QStringList *warnings)
{
    std::optional<qint64> latestOwn;
    for (const auto &p : std::as_const(pending)) {
        if (p.own && (!latestOwn || *p.own > *latestOwn))
            latestOwn = p.own;
    }
    int year = 0;
    qint64 anchor = 0; // Elapsed: the wall time of offset 0
    std::optional<qint64> previous;
    for (auto &p : pending) {
        qint64 time = previous.value_or(0);
        if (p.prefix && kind == TimestampPrefix::Kind::Syslog) {
            if (year == 0)
                year = yearNear(*p.prefix, latestOwn.value_or(fallback));
            time = p.prefix->epochMicros(year);
            // A capture over New Year's Eve.
            if (previous && time < *previous - qint64(180) * 86'400'000'000)
                time = p.prefix->epochMicros(++year);
        } else if (p.prefix && kind == TimestampPrefix::Kind::Elapsed) {
            if (!previous) {
                // The capture's start. An object's own times are no later than the event that
                // carried it (start + its offset), so each bounds the start from below; the
                // latest bound is taken (seconds-precise, as the objects' times are).
                std::optional<qint64> bound;
                for (const auto &q : std::as_const(pending)) {
                    if (q.prefix && q.own)
                        bound = std::max(bound.value_or(std::numeric_limits<qint64>::min()),
                                         *q.own - q.prefix->micros);
                }
                anchor = bound.value_or(fallback - p.prefix->micros);
                warnings->append(u"the capture's times are relative (ts -s): its start is "
                                 "estimated from the objects' own times"_s);
            }
            time = anchor + p.prefix->micros;
        } else if (p.prefix) {
            time = p.prefix->epochMicros(0);
        } else if (!previous) {
            time = p.own.value_or(fallback);
        }
        if (previous && time < *previous)
            time = *previous;
        p.record.time = time;
        previous = time;
    }
}

// Times estimated from the objects' own: never earlier than the event before.
void estimateTimes(QList<CaptureImport::Pending> &pending, qint64 fallback)
{
    std::optional<qint64> first;
    for (const auto &p : std::as_const(pending)) {
        if (p.own) {
            first = p.own;
            break;
        }
    }
    qint64 previous = first.value_or(fallback);
    for (auto &p : pending) {
        previous = std::max(previous, p.own.value_or(previous));
        p.record.time = previous;
        p.record.estimated = true;
    }
}

QString kindName(std::optional<TimestampPrefix::Kind> kind)
{
    if (!kind)
        return u"estimated"_s;
    switch (*kind) {
    case TimestampPrefix::Kind::Syslog:
        return u"ts"_s;
    case TimestampPrefix::Kind::Iso:
        return u"iso"_s;
    case TimestampPrefix::Kind::Epoch:
        return u"epoch"_s;
    case TimestampPrefix::Kind::Elapsed:
        return u"elapsed"_s;
    }
    return {};
}

} // namespace

QString guessPlural(const QString &kind)
{
    const QString lower = kind.toLower();
    if (lower.isEmpty())
        return lower;
    if (lower.endsWith(u's') || lower.endsWith(u'x') || lower.endsWith(u'z')
        || lower.endsWith(u"ch"_s) || lower.endsWith(u"sh"_s))
        return lower + u"es"_s;
    if (lower.endsWith(u'y') && lower.size() > 1
        && !QStringView(u"aeiou").contains(lower[lower.size() - 2]))
        return lower.chopped(1) + u"ies"_s;
    return lower + u's';
}

models::Result<Recording, RecordingError> importKubectlCapture(QByteArrayView text,
                                                               const KubectlImportOptions &options)
{
    CaptureScanner scanner;
    CaptureImport import;
    scanner.onValue = [&import](const Value &value) {
        return import.take(value);
    };
    if (auto error = scanner.run(text))
        return *error;
    Recording recording;
    const qint64 fallback
        = (options.fileTime.isValid() ? options.fileTime : QDateTime::currentDateTimeUtc())
              .toMSecsSinceEpoch()
        * 1000;
    if (scanner.kind)
        timesFromPrefixes(import.pending, *scanner.kind, fallback, &recording.warnings);
    else
        estimateTimes(import.pending, fallback);
    recording.header.startMicros
        = import.pending.isEmpty() ? fallback : import.pending.first().record.time;
    recording.header.metadata
        = { { "source", "kubectl" }, { "times", kindName(scanner.kind).toStdString() } };
    recording.records.reserve(import.pending.size());
    for (auto &p : import.pending) {
        p.record.time -= recording.header.startMicros;
        recording.records.append(std::move(p.record));
    }
    recording.end.fileSize = text.size();
    recording.end.records = recording.records.size();
    recording.end.lastTime = recording.records.isEmpty() ? 0 : recording.records.last().time;
    recording.end.complete = !scanner.cutShort;
    recording.end.stoppedAt = scanner.cutShort ? scanner.cutAt : text.size();
    if (scanner.cutShort)
        recording.end.detail = u"a JSON value cut off at line %1"_s.arg(scanner.cutLine);
    if (!scanner.kind && !import.pending.isEmpty())
        recording.warnings.append(u"the capture's lines carry no times: each event's time is "
                                  "estimated from the object's own (conditions, managedFields, "
                                  "creation and deletion) and marked estimated"_s);
    if (import.untyped > 0)
        recording.warnings.append(
            u"%1 objects came without event types (kubectl -w without --output-watch-events): "
            "the first of each object is ADDED, the others MODIFIED; a deletion cannot be told "
            "apart from a change"_s.arg(import.untyped));
    if (scanner.skippedLines > 0)
        recording.warnings.append(u"%1 lines that are not JSON were skipped (the first is line "
                                  "%2)"_s.arg(scanner.skippedLines)
                                      .arg(scanner.firstSkippedLine));
    if (import.unknown > 0)
        recording.warnings.append(u"%1 JSON values that are neither a watch event nor an object "
                                  "were skipped (the first at line %2)"_s.arg(import.unknown)
                                      .arg(import.firstUnknownLine));
    if (import.errors > 0)
        recording.warnings.append(
            u"the watch ended with an ERROR event %1 times (kubectl stops there)"_s.arg(
                import.errors));
    return recording;
}

models::Result<Recording, RecordingError> importKubectlCapture(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return RecordingError{ -1, u"cannot read %1: %2"_s.arg(path, file.errorString()) };
    const QByteArray text = file.readAll();
    KubectlImportOptions options;
    options.fileTime = QFileInfo(path).lastModified().toUTC();
    auto recording = importKubectlCapture(text, options);
    if (recording)
        recording->header.metadata["files"] = json::array({ path.toStdString() });
    return recording;
}

} // namespace reconscope::controller::record
