// The recording file format (docs/recording.md): what is written reads back record for record; a
// file cut anywhere reads up to its last whole block and says where it stopped; damage in the
// middle, a future format version and records that break the format's rules are refused with
// the byte offset named.
#include "controller/record/recordingreader.h"
#include "controller/record/recordingwriter.h"
#include "tests/record/recordtestsupport.h"

#include <QBuffer>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::record;
using reconscope::tests::record::readAll;
using reconscope::tests::record::ReadAll;

namespace {

Record makeRecord(RecordType type, qint64 time, int resource, QByteArray data)
{
    Record record;
    record.type = type;
    record.time = time;
    record.resource = resource;
    record.data = std::move(data);
    return record;
}

Record makeEvent(qint64 time, EventType event, QByteArray object, bool estimated = false)
{
    Record record = makeRecord(RecordType::Event, time, 0, std::move(object));
    record.event = event;
    record.estimated = estimated;
    return record;
}

QByteArray customApp(int i, const QString &state)
{
    return u"{\"apiVersion\":\"infrastructure.internal.net/v1\",\"kind\":\"CustomApp\","
           "\"metadata\":{\"name\":\"app-%1\",\"namespace\":\"demo\",\"resourceVersion\":\"%2\"},"
           "\"spec\":{\"image\":\"nginx:1.27\",\"replicas\":2},\"status\":{\"conditions\":[{"
           "\"type\":\"Ready\",\"status\":\"%3\"}]}}"_s.arg(i)
               .arg(100 + i)
               .arg(state)
               .toUtf8();
}

// A recording of every record type: one resource, discovery, a CRD, a list, events of each type
// and a note.
QList<Record> sampleRecords(int events)
{
    RecordedResource resource;
    resource.group = u"infrastructure.internal.net"_s;
    resource.version = u"v1"_s;
    resource.plural = u"customapps"_s;
    resource.kind = u"CustomApp"_s;
    QList<Record> records{
        makeRecord(RecordType::Resource, 0, 0, QByteArray::fromStdString(resource.toJson().dump())),
        makeRecord(RecordType::Discovery, 10, -1, R"([{"group":"","version":"v1"}])"),
        makeRecord(RecordType::Crd, 20, -1, R"({"kind":"CustomResourceDefinition"})"),
        makeRecord(RecordType::ListStart, 1000, 0, {}),
        makeRecord(RecordType::ListItem, 1000, 0, customApp(1, u"False"_s)),
        makeRecord(RecordType::ListItem, 1000, 0, customApp(2, u"False"_s)),
        makeRecord(RecordType::ListEnd, 1000, 0, "102"),
    };
    const EventType types[] = { EventType::Added, EventType::Modified, EventType::Deleted };
    for (int i = 0; i < events; ++i)
        records << makeEvent(2000 + i * 1500, types[i % 3], customApp(i, u"True"_s), i % 5 == 0);
    records << makeEvent(2000 + events * 1500, EventType::Bookmark, R"({"metadata":{}})");
    records << makeRecord(RecordType::Note, 2000 + events * 1500, 0, "relisting");
    records << makeRecord(RecordType::Note, 2000 + events * 1500, -1, "a note about nothing");
    return records;
}

RecordingHeader sampleHeader()
{
    RecordingHeader header;
    header.startMicros = 1'764'775'465'123'456;
    header.metadata = { { "producer", "tst_recordingformat" }, { "source", "record" } };
    return header;
}

QByteArray write(const QList<Record> &records, qsizetype blockBytes, bool finish = true)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    auto writer = RecordingWriter::create(&buffer, sampleHeader(), { 3, blockBytes });
    if (!writer)
        qFatal("%s", qPrintable(writer.error().message));
    for (const Record &record : records) {
        if (!writer.value()->append(record))
            qFatal("append failed");
    }
    if (finish && !writer.value()->finish({ { "records", records.size() } }))
        qFatal("finish failed");
    if (!finish && !writer.value()->flush())
        qFatal("flush failed");
    return buffer.data();
}

// Where each block starts and ends in a written file.
QList<QPair<qint64, qint64>> blocksOf(const QByteArray &file)
{
    QList<QPair<qint64, qint64>> blocks;
    qint64 at = format::fileHeader(sampleHeader()).size();
    while (at + BlockHeaderSize <= file.size()) {
        const qint64 length = format::readU32(file.constData() + at + 4);
        blocks.append({ at, at + BlockHeaderSize + length });
        at += BlockHeaderSize + length;
    }
    return blocks;
}

} // namespace

class tst_RecordingFormat final : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void varints_data();
    void varints();
    void everyCutReadsUpToTheLastWholeBlock();
    void cutShortSaysWhereItStopped();
    void unfinishedRecordingIsCutShort();
    void damagedBlockInTheMiddleIsRefused_data();
    void damagedBlockInTheMiddleIsRefused();
    void damagedLastBlockIsRefusedNotCut();
    void futureVersionIsRefused();
    void damagedHeaderIsRefused();
    void notARecording();
    void recordsBreakingTheRulesAreRefused_data();
    void recordsBreakingTheRulesAreRefused();
    void dataAfterTheEndIsRefused();
    void fileRoundTrip();
};

void tst_RecordingFormat::roundTrip_data()
{
    QTest::addColumn<qsizetype>("blockBytes");
    QTest::addColumn<int>("events");
    QTest::newRow("one block") << qsizetype(1 << 20) << 30;
    QTest::newRow("a block per record") << qsizetype(1) << 30;
    QTest::newRow("small blocks") << qsizetype(700) << 300;
    QTest::newRow("no events") << qsizetype(1 << 20) << 0;
}

void tst_RecordingFormat::roundTrip()
{
    QFETCH(qsizetype, blockBytes);
    QFETCH(int, events);
    const QList<Record> records = sampleRecords(events);
    const QByteArray file = write(records, blockBytes);
    const ReadAll read = readAll(file);
    QVERIFY2(read.error.isEmpty(), qPrintable(read.error));
    QVERIFY(read.end.complete);
    QCOMPARE(read.header.startMicros, sampleHeader().startMicros);
    QCOMPARE(read.header.metadata, sampleHeader().metadata);
    QCOMPARE(read.records.size(), records.size() + 1);
    for (qsizetype i = 0; i < records.size(); ++i)
        QCOMPARE(read.records[i], records[i]);
    QCOMPARE(read.records.last().type, RecordType::End);
    QCOMPARE(read.end.fileSize, file.size());
    QCOMPARE(read.end.stoppedAt, file.size());
}

void tst_RecordingFormat::varints_data()
{
    QTest::addColumn<quint64>("value");
    for (const quint64 value : { quint64(0),
                                 quint64(1),
                                 quint64(127),
                                 quint64(128),
                                 quint64(300),
                                 quint64(1) << 35,
                                 ~quint64(0) })
        QTest::addRow("%llu", static_cast<unsigned long long>(value)) << value;
}

void tst_RecordingFormat::varints()
{
    QFETCH(quint64, value);
    QByteArray bytes;
    format::appendVarint(bytes, value);
    qsizetype at = 0;
    QCOMPARE(format::readVarint(bytes, &at), std::optional<quint64>(value));
    QCOMPARE(at, bytes.size());
    at = 0;
    QCOMPARE(format::readVarint(QByteArrayView(bytes).chopped(1), &at), std::nullopt);
    // Eleven continuation bytes are no varint.
    at = 0;
    QCOMPARE(format::readVarint(QByteArray(11, '\x80'), &at), std::nullopt);
}

// A file cut at any byte after its header reads without an error, up to the last whole block.
void tst_RecordingFormat::everyCutReadsUpToTheLastWholeBlock()
{
    const QList<Record> records = sampleRecords(40);
    const QByteArray file = write(records, 400);
    const auto blocks = blocksOf(file);
    QVERIFY(blocks.size() > 5);
    const qint64 headerSize = format::fileHeader(sampleHeader()).size();
    qsizetype previous = 0;
    for (qint64 cut = headerSize; cut < file.size(); ++cut) {
        const ReadAll read = readAll(file.first(cut));
        QVERIFY2(read.error.isEmpty(), qPrintable(u"cut at %1: %2"_s.arg(cut).arg(read.error)));
        QVERIFY(!read.end.complete);
        qint64 wholeEnd = headerSize;
        for (const auto &[start, end] : blocks) {
            if (end <= cut)
                wholeEnd = end;
        }
        QCOMPARE(read.end.stoppedAt, wholeEnd);
        QCOMPARE(read.end.fileSize, cut);
        QVERIFY(read.records.size() >= previous);
        previous = read.records.size();
        for (qsizetype i = 0; i < read.records.size(); ++i)
            QCOMPARE(read.records[i], records[i]);
    }
}

void tst_RecordingFormat::cutShortSaysWhereItStopped()
{
    const QByteArray file = write(sampleRecords(40), 400);
    const auto blocks = blocksOf(file);
    const auto [start, end] = blocks[3];
    const ReadAll read = readAll(file.first(start + 30)); // inside the fourth block
    QVERIFY(read.error.isEmpty());
    QCOMPARE(read.end.stoppedAt, start);
    const QString said = read.end.describe();
    QVERIFY2(said.contains(u"cut short at byte %1 of %2"_s.arg(start).arg(start + 30)),
             qPrintable(said));
    QVERIFY2(said.contains(u"an incomplete block: 10 of its %1 bytes"_s.arg(end - start - 20)),
             qPrintable(said));
    QVERIFY2(said.contains(u"%1 records"_s.arg(read.records.size())), qPrintable(said));
}

// Flushed but not finished (a recorder killed between blocks): every record, then "cut short".
void tst_RecordingFormat::unfinishedRecordingIsCutShort()
{
    const QList<Record> records = sampleRecords(10);
    const QByteArray file = write(records, 1 << 20, false);
    const ReadAll read = readAll(file);
    QVERIFY(read.error.isEmpty());
    QVERIFY(!read.end.complete);
    QCOMPARE(read.records, records);
    QCOMPARE(read.end.stoppedAt, file.size());
    QVERIFY2(read.end.describe().contains(u"no end record"_s), qPrintable(read.end.describe()));
}

void tst_RecordingFormat::damagedBlockInTheMiddleIsRefused_data()
{
    QTest::addColumn<int>("inBlock"); // bytes past the block's start
    QTest::addColumn<QString>("said");
    QTest::newRow("tag") << 0 << u"a damaged block header"_s;
    QTest::newRow("length") << 5 << u"a damaged block header"_s;
    QTest::newRow("header checksum") << 17 << u"a damaged block header"_s;
    QTest::newRow("payload") << 25 << u"a damaged block (its checksum"_s;
}

void tst_RecordingFormat::damagedBlockInTheMiddleIsRefused()
{
    QFETCH(int, inBlock);
    QFETCH(QString, said);
    QByteArray file = write(sampleRecords(40), 400);
    const qint64 start = blocksOf(file)[2].first;
    file[start + inBlock] = char(file[start + inBlock] ^ 0x55);
    const ReadAll read = readAll(file);
    QCOMPARE(read.errorOffset, start);
    QVERIFY2(read.error.startsWith(u"byte %1: "_s.arg(start)), qPrintable(read.error));
    QVERIFY2(read.error.contains(said), qPrintable(read.error));
    // What came before the damage was read.
    QVERIFY(read.records.size() > 3);
}

// A whole last block that does not check is damage, not a cut.
void tst_RecordingFormat::damagedLastBlockIsRefusedNotCut()
{
    QByteArray file = write(sampleRecords(40), 400);
    const qint64 start = blocksOf(file).last().first;
    file[file.size() - 1] = char(file[file.size() - 1] ^ 1);
    const ReadAll read = readAll(file);
    QCOMPARE(read.errorOffset, start);
}

void tst_RecordingFormat::futureVersionIsRefused()
{
    QByteArray file = write(sampleRecords(3), 400);
    file[8] = char(FormatVersion + 1);
    const ReadAll read = readAll(file);
    QCOMPARE(read.errorOffset, 8);
    QCOMPARE(read.error,
             u"byte 8: recording format version 2 is newer than this build reads (version 1 and "
             "older): open it with a newer reconscope"_s);
}

void tst_RecordingFormat::damagedHeaderIsRefused()
{
    QByteArray file = write(sampleRecords(3), 400);
    file[14] = char(file[14] ^ 1); // the start time
    const ReadAll read = readAll(file);
    QCOMPARE(read.errorOffset, 0);
    QVERIFY2(read.error.contains(u"the header is damaged"_s), qPrintable(read.error));
    const ReadAll cut = readAll(file.first(30));
    QVERIFY2(cut.error.contains(u"cut short inside its header"_s), qPrintable(cut.error));
}

void tst_RecordingFormat::notARecording()
{
    const ReadAll read = readAll(R"({"type":"ADDED","object":{}})");
    QCOMPARE(read.errorOffset, 0);
    QVERIFY2(read.error.contains(u"not a reconscope recording"_s), qPrintable(read.error));
    QVERIFY(!RecordingReader::hasMagic("{\"type\""));
    QVERIFY(RecordingReader::hasMagic(write({}, 400)));
}

void tst_RecordingFormat::recordsBreakingTheRulesAreRefused_data()
{
    QTest::addColumn<QList<Record>>("records");
    QTest::addColumn<QString>("said");
    const QList<Record> sample = sampleRecords(0);
    const Record resource = sample[0];
    QTest::newRow("undeclared resource")
        << QList<Record>{ makeEvent(0, EventType::Added, "{}") } << u"resource 0 is not declared"_s;
    QTest::newRow("declared twice")
        << QList<Record>{ resource, resource } << u"resource 0 declared twice"_s;
    QTest::newRow("bad resource") << QList<Record>{
        makeRecord(RecordType::Resource, 0, 0, "{\"plural\":1}")
    } << u"a resource without version or plural"_s;
    QTest::newRow("item outside a list")
        << QList<Record>{ resource, makeRecord(RecordType::ListItem, 0, 0, "{}") }
        << u"a list item of resource 0 outside a list"_s;
    QTest::newRow("nested list") << QList<Record>{ resource,
                                                   makeRecord(RecordType::ListStart, 0, 0, {}),
                                                   makeRecord(RecordType::ListStart, 0, 0, {}) }
                                 << u"starts inside another"_s;
}

void tst_RecordingFormat::recordsBreakingTheRulesAreRefused()
{
    QFETCH(QList<Record>, records);
    QFETCH(QString, said);
    const QByteArray file = write(records, 1 << 20);
    const ReadAll read = readAll(file);
    QCOMPARE(read.errorOffset, blocksOf(file).first().first);
    QVERIFY2(
        read.error.contains(u"record %1 of the block there is corrupt"_s.arg(records.size() - 1)),
        qPrintable(read.error));
    QVERIFY2(read.error.contains(said), qPrintable(read.error));
}

void tst_RecordingFormat::dataAfterTheEndIsRefused()
{
    const QByteArray once = write(sampleRecords(3), 1 << 20);
    const qint64 header = format::fileHeader(sampleHeader()).size();
    // A second stream's blocks after the first's end: its records come after the End record.
    const ReadAll read = readAll(once + once.sliced(header));
    QVERIFY2(read.error.contains(u"a record after the end record"_s), qPrintable(read.error));
    QCOMPARE(read.errorOffset, once.size());
}

void tst_RecordingFormat::fileRoundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"r.rscrec"_s);
    const QList<Record> records = sampleRecords(100);
    {
        auto writer = RecordingWriter::create(path, sampleHeader());
        QVERIFY(writer);
        for (const Record &record : records)
            QVERIFY(writer.value()->append(record));
        QVERIFY(writer.value()->finish({}));
        QCOMPARE(QFileInfo(path).size(), writer.value()->fileBytes());
        QCOMPARE(writer.value()->records(), records.size() + 1);
    }
    auto reader = RecordingReader::open(path);
    QVERIFY2(reader, reader ? "" : qPrintable(reader.error().message));
    qsizetype count = 0;
    for (;;) {
        auto next = reader.value()->next();
        QVERIFY(next);
        if (!next.value())
            break;
        if (count < records.size())
            QCOMPARE(*next.value(), records[count]);
        ++count;
    }
    QCOMPARE(count, records.size() + 1);
    QVERIFY(reader.value()->end().complete);
    QVERIFY(!RecordingReader::open(dir.filePath(u"missing"_s)));
}

QTEST_GUILESS_MAIN(tst_RecordingFormat)
#include "tst_recordingformat.moc"
