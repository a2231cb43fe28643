#pragma once

// Helpers of the recording tests: a whole recording read from bytes.
#include "controller/record/recordingreader.h"

#include <QBuffer>
#include <QList>
#include <QString>
#include <QTest>

namespace reconscope::tests::record {

struct ReadAll
{
    controller::record::RecordingHeader header;
    QList<controller::record::Record> records; // those read before an error, if any
    controller::record::RecordingEnd end;
    QString error; // empty when the recording read to its end
    qint64 errorOffset = -1;
};

inline ReadAll readAll(const QByteArray &bytes)
{
    ReadAll out;
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    auto reader = controller::record::RecordingReader::open(&buffer);
    if (!reader) {
        out.error = reader.error().message;
        out.errorOffset = reader.error().offset;
        return out;
    }
    out.header = reader.value()->header();
    for (;;) {
        auto next = reader.value()->next();
        if (!next) {
            out.error = next.error().message;
            out.errorOffset = next.error().offset;
            return out;
        }
        if (!next.value())
            break;
        out.records.append(std::move(*next.value()));
    }
    out.end = reader.value()->end();
    return out;
}

} // namespace reconscope::tests::record

namespace QTest {

template<>
inline char *toString(const reconscope::controller::record::Record &record)
{
    return qstrdup(QStringLiteral("Record{type 0x%1, time %2%3, resource %4, event %5, %6}")
                       .arg(int(record.type), 2, 16, QChar(u'0'))
                       .arg(record.time)
                       .arg(record.estimated ? QStringLiteral(" (estimated)") : QString())
                       .arg(record.resource)
                       .arg(int(record.event))
                       .arg(QString::fromUtf8(record.data.left(120)))
                       .toUtf8()
                       .constData());
}

} // namespace QTest
