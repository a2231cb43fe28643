#include "controller/record/recordingset.h"

#include "controller/record/kubectlimport.h"
#include "controller/record/recordingreader.h"

#include <QFile>
#include <QHash>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::record {

namespace {

RecordingError inFile(const QString &path, RecordingError error)
{
    error.message = path + u": "_s + error.message;
    return error;
}

class ReaderSource final : public RecordSource
{
public:
    ReaderSource(std::unique_ptr<RecordingReader> reader, QString path)
        : m_reader(std::move(reader))
        , m_path(std::move(path))
    { }
    const RecordingHeader &header() const override { return m_reader->header(); }
    models::Result<std::optional<Record>, RecordingError> next() override
    {
        auto next = m_reader->next();
        if (!next)
            return inFile(m_path, next.error());
        return next;
    }
    RecordingEnd end() const override { return m_reader->end(); }
    QStringList warnings() const override { return {}; }

private:
    std::unique_ptr<RecordingReader> m_reader;
    QString m_path;
};

class MemorySource final : public RecordSource
{
public:
    explicit MemorySource(Recording recording)
        : m_recording(std::move(recording))
    { }
    const RecordingHeader &header() const override { return m_recording.header; }
    models::Result<std::optional<Record>, RecordingError> next() override
    {
        if (m_next >= m_recording.records.size())
            return std::optional<Record>();
        return std::optional<Record>(std::move(m_recording.records[m_next++]));
    }
    RecordingEnd end() const override { return m_recording.end; }
    QStringList warnings() const override { return m_recording.warnings; }

private:
    Recording m_recording;
    qsizetype m_next = 0;
};

// group/kind -> plural, from the CRDs among the inputs.
QHash<QString, QString> pluralsOfCrds(const QList<Recording> &recordings)
{
    QHash<QString, QString> plurals;
    for (const Recording &recording : recordings) {
        for (const Record &record : recording.records) {
            if (record.type != RecordType::Crd)
                continue;
            const json crd = json::parse(record.data.begin(), record.data.end(), nullptr, false);
            const json spec = crd.is_object() ? crd.value("spec", json::object()) : json();
            const json names = spec.is_object() ? spec.value("names", json::object()) : json();
            if (!names.is_object() || !spec.value("group", json()).is_string()
                || !names.value("kind", json()).is_string()
                || !names.value("plural", json()).is_string())
                continue;
            plurals.insert(QString::fromStdString(spec["group"].get<std::string>()) + u'/'
                               + QString::fromStdString(names["kind"].get<std::string>()),
                           QString::fromStdString(names["plural"].get<std::string>()));
        }
    }
    return plurals;
}

QString crdName(const QByteArray &bytes)
{
    const json crd = json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!crd.is_object() || !crd.value("metadata", json()).is_object())
        return {};
    const json name = crd["metadata"].value("name", json());
    return name.is_string() ? QString::fromStdString(name.get<std::string>()) : QString();
}

} // namespace

RecordSource::~RecordSource() = default;

std::unique_ptr<RecordSource> memorySource(Recording recording)
{
    return std::make_unique<MemorySource>(std::move(recording));
}

models::Result<Recording, RecordingError> loadRecording(const QString &path)
{
    auto reader = RecordingReader::open(path);
    if (!reader)
        return reader.error();
    Recording recording;
    recording.header = reader.value()->header();
    for (;;) {
        auto next = reader.value()->next();
        if (!next)
            return next.error();
        if (!next.value())
            break;
        recording.records.append(std::move(*next.value()));
    }
    recording.end = reader.value()->end();
    return recording;
}

Recording mergeRecordings(QList<Recording> recordings)
{
    Recording merged;
    if (recordings.isEmpty())
        return merged;
    merged.header = recordings.first().header;
    merged.end = recordings.first().end;
    qint64 start = recordings.first().header.startMicros;
    json inputs = json::array();
    for (const Recording &recording : std::as_const(recordings)) {
        start = std::min(start, recording.header.startMicros);
        inputs.push_back(recording.header.metadata);
        merged.warnings += recording.warnings;
        if (merged.end.complete && !recording.end.complete)
            merged.end = recording.end;
    }
    merged.header.startMicros = start;
    if (recordings.size() > 1)
        merged.header.metadata = { { "source", "merge" }, { "inputs", inputs } };
    const QHash<QString, QString> plurals = pluralsOfCrds(recordings);
    QList<RecordedResource> resources;
    QSet<QString> crds;
    bool discovery = false;
    QList<Record> timed;
    for (Recording &recording : recordings) {
        QHash<int, int> ids; // this input's resource id -> the merged one
        const qint64 shift = recording.header.startMicros - start;
        for (Record &record : recording.records) {
            if (record.type == RecordType::Resource) {
                auto resource = RecordedResource::fromJson(record.data);
                if (!resource)
                    continue;
                if (resource->pluralGuessed) {
                    const auto plural = plurals.constFind(resource->group + u'/' + resource->kind);
                    if (plural != plurals.cend()) {
                        resource->plural = *plural;
                        resource->pluralGuessed = false;
                    }
                }
                qsizetype id = resources.indexOf(*resource);
                if (id < 0) {
                    id = resources.size();
                    resources.append(*resource);
                    Record declared = record;
                    declared.resource = int(id);
                    declared.time = 0;
                    declared.data = QByteArray::fromStdString(resource->toJson().dump());
                    merged.records.append(std::move(declared));
                }
                ids.insert(record.resource, int(id));
                continue;
            }
            if (record.type == RecordType::Discovery) {
                if (!std::exchange(discovery, true))
                    merged.records.append(
                        { record.type, 0, false, -1, EventType::Added, record.data });
                continue;
            }
            if (record.type == RecordType::Crd) {
                const QString name = crdName(record.data);
                if (!crds.contains(name)) {
                    crds.insert(name);
                    merged.records.append(
                        { record.type, 0, false, -1, EventType::Added, record.data });
                }
                continue;
            }
            if (record.type == RecordType::End)
                continue;
            if (record.resource >= 0)
                record.resource = ids.value(record.resource, -1);
            if (record.resource < 0 && record.type != RecordType::Note)
                continue;
            record.time += shift;
            timed.append(std::move(record));
        }
    }
    std::stable_sort(timed.begin(), timed.end(), [](const Record &a, const Record &b) {
        return a.time < b.time;
    });
    merged.records += timed;
    merged.end.records = merged.records.size();
    merged.end.lastTime = merged.records.isEmpty() ? 0 : merged.records.last().time;
    return merged;
}

models::Result<std::unique_ptr<RecordSource>, RecordingError>
openRecordSource(const QStringList &paths)
{
    const auto isRecording = [](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) && RecordingReader::hasMagic(file.read(8));
    };
    if (paths.size() == 1 && isRecording(paths.first())) {
        auto reader = RecordingReader::open(paths.first());
        if (!reader)
            return inFile(paths.first(), reader.error());
        return std::unique_ptr<RecordSource>(
            std::make_unique<ReaderSource>(std::move(reader).value(), paths.first()));
    }
    QList<Recording> recordings;
    for (const QString &path : paths) {
        auto recording = isRecording(path) ? loadRecording(path) : importKubectlCapture(path);
        if (!recording)
            return inFile(path, recording.error());
        for (QString &warning : recording->warnings)
            warning = path + u": "_s + warning;
        if (!recording->end.complete)
            recording->end.detail = path + u": "_s + recording->end.detail;
        recordings.append(std::move(recording).value());
    }
    return std::unique_ptr<RecordSource>(
        std::make_unique<MemorySource>(mergeRecordings(std::move(recordings))));
}

} // namespace reconscope::controller::record
