#pragma once

#include "controller/record/recordingformat.h"
#include "models/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace reconscope::controller::record {

// A recording held in memory: an imported kubectl capture, a recording file read whole, or
// several of them merged.
struct Recording
{
    RecordingHeader header;
    QList<Record> records; // in time order
    RecordingEnd end;
    QStringList warnings; // what the reader had to guess or leave out, in words
};

// Reads a whole recording file (as RecordingReader does, into memory).
models::Result<Recording, RecordingError> loadRecording(const QString &path);

// One recording of several, by wall time: the resources of all (one id for the same resource and
// namespace), their discovery and CRDs first, then every other record in time order (records of
// the same time keep their inputs' order, the first input's first). A resource imported from
// objects alone takes its plural from a CRD of its group and kind when one is among the inputs.
// `end` is the first input's that was cut short, if any; the warnings are all inputs'.
Recording mergeRecordings(QList<Recording> recordings);

// Where records come from, one at a time: a recording file read as it goes, or a recording in
// memory.
class RecordSource
{
public:
    virtual ~RecordSource();
    virtual const RecordingHeader &header() const = 0;
    // The next record; nothing at the end (then end() says how it ended).
    virtual models::Result<std::optional<Record>, RecordingError> next() = 0;
    virtual RecordingEnd end() const = 0;
    virtual QStringList warnings() const = 0;
};

// A RecordSource over a recording in memory.
std::unique_ptr<RecordSource> memorySource(Recording recording);

// Opens what `reconscope replay` is given: one recording file (read as it goes), or kubectl
// captures and recording files (each told by its first bytes), merged by time. Errors name the
// file and the byte offset.
models::Result<std::unique_ptr<RecordSource>, RecordingError>
openRecordSource(const QStringList &paths);

} // namespace reconscope::controller::record
