// kubectl captures as recordings. data/kubectl/ holds what kubectl 1.36 printed against
// `reconscope serve` while a scenario ran in namespace demo (web Ready=False, then True; worker
// Degraded; reports deleted) and demo-quota (batch Ready), each capture stopped with SIGINT:
//   events.jsonl         kubectl get customapps -n demo -w --output-watch-events -o json
//   events-epoch.jsonl   the same | ts '%.s'
//   events-syslog.jsonl  the same | ts
//   events-elapsed.jsonl the same | ts -s '%H:%M:%.S'
//   quota-epoch.jsonl    the same of -n demo-quota | ts '%.s'
//   pretty.json          kubectl get customapps -n demo -w -o json
//   pretty-iso.json      the same | ts '%Y-%m-%dT%H:%M:%.SZ'
//   list.json            kubectl get customapps -n demo -o json (after the scenario)
//   crd.json             kubectl get crd customapps.infrastructure.internal.net -o json
// The captures were made in UTC; the tests run with TZ=UTC.
#include "controller/record/kubectlimport.h"
#include "controller/record/recordingset.h"
#include "controller/record/replaystate.h"
#include "controller/record/timestampprefix.h"
#include "tests/record/recordtestsupport.h"

#include <QFile>
#include <QtTest>

#include <ctime>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::record;

namespace {

QString data(const QString &name)
{
    return QStringLiteral(RECONSCOPE_TEST_DATA) + u"/kubectl/"_s + name;
}

QByteArray readData(const QString &name)
{
    QFile file(data(name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(name));
    return file.readAll();
}

Recording import(const QByteArray &text)
{
    KubectlImportOptions options;
    options.fileTime = QDateTime(QDate(2026, 12, 3), QTime(19, 0), Qt::UTC);
    auto recording = importKubectlCapture(text, options);
    if (!recording)
        qFatal("import failed: %s", qPrintable(recording.error().message));
    return std::move(recording).value();
}

QList<Record> eventsOf(const Recording &recording)
{
    QList<Record> events;
    for (const Record &record : recording.records) {
        if (record.type == RecordType::Event)
            events.append(record);
    }
    return events;
}

QString nameOf(const Record &record)
{
    const auto object = nlohmann::json::parse(record.data.toStdString());
    return QString::fromStdString(object["metadata"]["name"].get<std::string>());
}

// The epoch micros of a `ts '%.s'` line.
qint64 epochOfLine(const QByteArray &line)
{
    const QByteArray number = line.left(line.indexOf(' '));
    const qsizetype dot = number.indexOf('.');
    return number.left(dot).toLongLong() * 1'000'000
        + number.mid(dot + 1).leftJustified(6, '0').toLongLong();
}

const QList<QPair<EventType, QString>> ScenarioEvents{
    { EventType::Added, u"api"_s },       { EventType::Added, u"reports"_s },
    { EventType::Added, u"web"_s },       { EventType::Added, u"worker"_s },
    { EventType::Modified, u"web"_s },    { EventType::Modified, u"web"_s },
    { EventType::Modified, u"worker"_s }, { EventType::Deleted, u"reports"_s },
};

QList<QPair<EventType, QString>> typesAndNames(const QList<Record> &events)
{
    QList<QPair<EventType, QString>> out;
    for (const Record &event : events)
        out.append({ event.event, nameOf(event) });
    return out;
}

} // namespace

class tst_KubectlImport final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void timestampPrefixes_data();
    void timestampPrefixes();
    void pluralGuesses_data();
    void pluralGuesses();
    void untimedCaptureIsEstimated();
    void epochCaptureTakesItsTimes();
    void otherTimestampFormatsAgree_data();
    void otherTimestampFormatsAgree();
    void prettyPrintedObjectsWithoutTypes();
    void prettyPrintedWithTimestamps();
    void listAndCrd();
    void mergeByTime();
    void cutShortCaptureReadsToItsLastValue();
    void warningLinesAreSkipped();
    void garbageInsideAValueIsRefused();
    void replayStateOfACapture();
};

void tst_KubectlImport::initTestCase()
{
    qputenv("TZ", "UTC");
    tzset();
}

void tst_KubectlImport::timestampPrefixes_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<qint64>("micros"); // epochMicros(2026); -1: no prefix
    QTest::addColumn<qsizetype>("length");
    const qint64 t
        = QDateTime(QDate(2026, 12, 3), QTime(15, 4, 5), Qt::UTC).toMSecsSinceEpoch() * 1000;
    using K = TimestampPrefix::Kind;
    QTest::newRow("ts") << QByteArray("Dec 03 15:04:05 {") << int(K::Syslog) << t << qsizetype(16);
    QTest::newRow("ts %e") << QByteArray("Dec  3 15:04:05 {") << int(K::Syslog) << t
                           << qsizetype(16);
    QTest::newRow("ts %.S") << QByteArray("Dec 03 15:04:05.250000 {") << int(K::Syslog)
                            << t + 250000 << qsizetype(23);
    QTest::newRow("iso Z") << QByteArray("2026-12-03T15:04:05.123Z {") << int(K::Iso) << t + 123000
                           << qsizetype(25);
    QTest::newRow("iso offset") << QByteArray("2026-12-03T16:04:05+01:00 {") << int(K::Iso) << t
                                << qsizetype(26);
    QTest::newRow("iso local space")
        << QByteArray("2026-12-03 15:04:05 {") << int(K::Iso) << t << qsizetype(20);
    QTest::newRow("epoch") << QByteArray("1796310245 {") << int(K::Epoch)
                           << qint64(1796310245) * 1000000 << qsizetype(11);
    QTest::newRow("epoch fraction") << QByteArray("1796310245.5 {") << int(K::Epoch)
                                    << qint64(1796310245) * 1000000 + 500000 << qsizetype(13);
    QTest::newRow("elapsed") << QByteArray("00:01:02.5 {") << int(K::Elapsed) << qint64(62500000)
                             << qsizetype(11);
    QTest::newRow("json") << QByteArray("{\"type\":1}") << 0 << qint64(-1) << qsizetype(0);
    QTest::newRow("short number") << QByteArray("12345 {") << 0 << qint64(-1) << qsizetype(0);
    QTest::newRow("klog") << QByteArray("W1203 15:04:05.123456   12 reflector.go:1] x") << 0
                          << qint64(-1) << qsizetype(0);
    QTest::newRow("bad month day")
        << QByteArray("Dec 32 15:04:05 {") << 0 << qint64(-1) << qsizetype(0);
    QTest::newRow("no space") << QByteArray("2026-12-03T15:04:05Z{") << 0 << qint64(-1)
                              << qsizetype(0);
}

void tst_KubectlImport::timestampPrefixes()
{
    QFETCH(QByteArray, line);
    QFETCH(int, kind);
    QFETCH(qint64, micros);
    QFETCH(qsizetype, length);
    const auto prefix = parseTimestampPrefix(line);
    if (micros < 0) {
        QVERIFY(!prefix);
        return;
    }
    QVERIFY(prefix);
    QCOMPARE(int(prefix->kind), kind);
    QCOMPARE(prefix->length, length);
    QCOMPARE(prefix->epochMicros(2026), micros);
}

void tst_KubectlImport::pluralGuesses_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("plural");
    QTest::newRow("customapp") << u"CustomApp"_s << u"customapps"_s;
    QTest::newRow("ingress") << u"Ingress"_s << u"ingresses"_s;
    QTest::newRow("policy") << u"NetworkPolicy"_s << u"networkpolicies"_s;
    QTest::newRow("gateway") << u"Gateway"_s << u"gateways"_s;
    QTest::newRow("box") << u"Box"_s << u"boxes"_s;
}

void tst_KubectlImport::pluralGuesses()
{
    QFETCH(QString, kind);
    QFETCH(QString, plural);
    QCOMPARE(guessPlural(kind), plural);
}

void tst_KubectlImport::untimedCaptureIsEstimated()
{
    const Recording recording = import(readData(u"events.jsonl"_s));
    QVERIFY(recording.end.complete);
    QCOMPARE(recording.records.first().type, RecordType::Resource);
    const auto resource = RecordedResource::fromJson(recording.records.first().data);
    QVERIFY(resource);
    QCOMPARE(resource->plural, u"customapps"_s);
    QVERIFY(resource->pluralGuessed);
    QCOMPARE(resource->group, u"infrastructure.internal.net"_s);
    const QList<Record> events = eventsOf(recording);
    QCOMPARE(typesAndNames(events), ScenarioEvents);
    qint64 previous = 0;
    for (const Record &event : events) {
        QVERIFY(event.estimated);
        QVERIFY(event.time >= previous);
        previous = event.time;
    }
    // web's Ready=True came with a lastTransitionTime, which its estimate is.
    const QDateTime webReady = recording.header.wallTime(events[5].time);
    QCOMPARE(webReady, QDateTime(QDate(2026, 12, 3), QTime(18, 57, 27), Qt::UTC));
    QCOMPARE(recording.header.metadata["times"], "estimated");
    QVERIFY(recording.warnings.join(u'\n').contains(u"estimated from the object's own"_s));
}

void tst_KubectlImport::epochCaptureTakesItsTimes()
{
    const QByteArray text = readData(u"events-epoch.jsonl"_s);
    const Recording recording = import(text);
    const QList<Record> events = eventsOf(recording);
    QCOMPARE(typesAndNames(events), ScenarioEvents);
    const QList<QByteArray> lines = text.trimmed().split('\n');
    QCOMPARE(recording.header.startMicros, epochOfLine(lines.first()));
    for (qsizetype i = 0; i < events.size(); ++i) {
        QVERIFY(!events[i].estimated);
        QCOMPARE(recording.header.startMicros + events[i].time, epochOfLine(lines[i]));
    }
    QCOMPARE(recording.header.metadata["times"], "epoch");
    QVERIFY(recording.warnings.isEmpty());
}

void tst_KubectlImport::otherTimestampFormatsAgree_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("tolerance"); // microseconds, against the epoch capture
    QTest::newRow("ts") << u"events-syslog.jsonl"_s << qint64(1'100'000);
    QTest::newRow("ts -s") << u"events-elapsed.jsonl"_s << qint64(1'100'000);
}

// Captures of the same watch, made side by side, give the same times within their precision.
void tst_KubectlImport::otherTimestampFormatsAgree()
{
    QFETCH(QString, file);
    QFETCH(qint64, tolerance);
    const Recording epoch = import(readData(u"events-epoch.jsonl"_s));
    const Recording other = import(readData(file));
    const QList<Record> a = eventsOf(epoch);
    const QList<Record> b = eventsOf(other);
    QCOMPARE(typesAndNames(b), ScenarioEvents);
    for (qsizetype i = 0; i < a.size(); ++i) {
        const qint64 difference
            = (epoch.header.startMicros + a[i].time) - (other.header.startMicros + b[i].time);
        QVERIFY2(std::abs(difference) <= tolerance,
                 qPrintable(u"event %1: %2 µs apart"_s.arg(i).arg(difference)));
    }
    // Relative offsets are exact whatever the estimated start.
    if (file.contains(u"elapsed"_s)) {
        for (qsizetype i = 1; i < a.size(); ++i)
            QVERIFY(std::abs((a[i].time - a[0].time) - (b[i].time - b[0].time)) < 50'000);
    }
}

void tst_KubectlImport::prettyPrintedObjectsWithoutTypes()
{
    const Recording recording = import(readData(u"pretty.json"_s));
    QVERIFY(recording.end.complete);
    QList<QPair<EventType, QString>> expected = ScenarioEvents;
    expected.last().first = EventType::Modified; // kubectl prints a deletion as the object
    QCOMPARE(typesAndNames(eventsOf(recording)), expected);
    QVERIFY(recording.warnings.join(u'\n').contains(u"8 objects came without event types"_s));
}

void tst_KubectlImport::prettyPrintedWithTimestamps()
{
    const QByteArray text = readData(u"pretty-iso.json"_s);
    const Recording recording = import(text);
    const QList<Record> events = eventsOf(recording);
    QCOMPARE(events.size(), 8);
    // Each value takes its first line's time.
    QList<QDateTime> starts;
    for (const QByteArray &line : text.split('\n')) {
        if (line.size() != 29 || !line.endsWith(" {"))
            continue;
        const QDateTime seconds
            = QDateTime::fromString(QString::fromLatin1(line.left(19) + 'Z'), Qt::ISODate);
        starts.append(seconds.addMSecs(line.mid(20, 6).toInt() / 1000));
    }
    QCOMPARE(starts.size(), 8);
    for (qsizetype i = 0; i < events.size(); ++i) {
        QVERIFY(!events[i].estimated);
        QCOMPARE(recording.header.wallTime(events[i].time).toMSecsSinceEpoch(),
                 starts[i].toMSecsSinceEpoch());
    }
}

void tst_KubectlImport::listAndCrd()
{
    const Recording list = import(readData(u"list.json"_s));
    QCOMPARE(eventsOf(list).size(), 3); // reports is gone
    const Recording crd = import(readData(u"crd.json"_s));
    QCOMPARE(eventsOf(crd).size(), 0);
    QCOMPARE(crd.records.size(), 1);
    QCOMPARE(crd.records.first().type, RecordType::Crd);
    // Merged with a capture, the CRD names the resource's plural.
    const Recording merged = mergeRecordings({ import(readData(u"events.jsonl"_s)), crd });
    const auto resource = RecordedResource::fromJson(merged.records.first().data);
    QVERIFY(resource);
    QVERIFY(!resource->pluralGuessed);
    QCOMPARE(resource->plural, u"customapps"_s);
    ReplayState state;
    QList<ReplayChange> changes;
    for (const Record &record : merged.records)
        state.apply(record, &changes);
    QVERIFY(!state.crdOf(*resource).isEmpty());
}

void tst_KubectlImport::mergeByTime()
{
    const Recording demo = import(readData(u"events-epoch.jsonl"_s));
    const Recording quota = import(readData(u"quota-epoch.jsonl"_s));
    const Recording merged = mergeRecordings({ demo, quota });
    QCOMPARE(merged.header.startMicros,
             std::min(demo.header.startMicros, quota.header.startMicros));
    QCOMPARE(merged.header.metadata["source"], "merge");
    // One resource (the same apiVersion and kind, all namespaces), then 10 events in time order.
    QCOMPARE(merged.records.first().type, RecordType::Resource);
    QCOMPARE(merged.records[1].type, RecordType::Event);
    const QList<Record> events = eventsOf(merged);
    QCOMPARE(events.size(), 10);
    qint64 previous = -1;
    QStringList names;
    for (const Record &event : events) {
        QCOMPARE(event.resource, 0);
        QVERIFY(event.time >= previous);
        previous = event.time;
        names.append(nameOf(event));
    }
    // batch's Ready came last in the scenario, after reports was deleted.
    QCOMPARE(names.last(), u"batch"_s);
    QCOMPARE(names.count(u"batch"_s), 2);
}

void tst_KubectlImport::cutShortCaptureReadsToItsLastValue()
{
    const QByteArray whole = readData(u"events.jsonl"_s);
    const qsizetype lastLine = whole.lastIndexOf('\n', whole.size() - 2) + 1;
    const QByteArray cut = whole.first(lastLine + 100); // Ctrl-C in the middle of line 8
    const Recording recording = import(cut);
    QVERIFY(!recording.end.complete);
    QCOMPARE(recording.end.stoppedAt, lastLine);
    QCOMPARE(eventsOf(recording).size(), 7);
    const QString said = recording.end.describe();
    QVERIFY2(said.contains(u"cut short at byte %1 of %2"_s.arg(lastLine).arg(cut.size())),
             qPrintable(said));
    QVERIFY2(said.contains(u"line 8"_s), qPrintable(said));
    // Cut inside a pretty-printed value too.
    const QByteArray pretty = readData(u"pretty.json"_s);
    const Recording prettyCut = import(pretty.first(pretty.size() - 300));
    QVERIFY(!prettyCut.end.complete);
    QCOMPARE(eventsOf(prettyCut).size(), 7);
    // Every cut reads without an error.
    for (qsizetype at = 0; at < whole.size(); at += 97) {
        KubectlImportOptions options;
        QVERIFY(importKubectlCapture(QByteArrayView(whole).first(at), options));
    }
}

void tst_KubectlImport::warningLinesAreSkipped()
{
    QByteArray text = readData(u"events.jsonl"_s);
    text.prepend("W1203 18:57:25.000000   4242 warnings.go:70] something deprecated\n");
    text.insert(text.indexOf("{\"type\":\"MODIFIED\""), "error: watch closed\n");
    const Recording recording = import(text);
    QCOMPARE(typesAndNames(eventsOf(recording)), ScenarioEvents);
    QVERIFY2(recording.warnings.join(u'\n').contains(u"2 lines that are not JSON were skipped "
                                                     "(the first is line 1)"_s),
             qPrintable(recording.warnings.join(u'\n')));
}

void tst_KubectlImport::garbageInsideAValueIsRefused()
{
    QByteArray text = readData(u"pretty.json"_s);
    // Line 40 is inside the second object.
    qsizetype at = 0;
    for (int line = 1; line < 40; ++line)
        at = text.indexOf('\n', at) + 1;
    text.insert(at, "this is not JSON\n");
    KubectlImportOptions options;
    const auto recording = importKubectlCapture(text, options);
    QVERIFY(!recording);
    const qsizetype secondValue = text.indexOf("\n{") + 1;
    QCOMPARE(recording.error().offset, secondValue);
    QVERIFY2(recording.error().message.contains(u"byte %1: not JSON"_s.arg(secondValue)),
             qPrintable(recording.error().message));
    QVERIFY2(recording.error().message.startsWith(u"line "_s),
             qPrintable(recording.error().message));
    // Text after a value on its line.
    const auto after = importKubectlCapture("{\"a\":1} x\n", options);
    QVERIFY(!after);
    QCOMPARE(after.error().offset, 8);
}

void tst_KubectlImport::replayStateOfACapture()
{
    ReplayState state;
    QList<ReplayChange> changes;
    for (const Record &record : import(readData(u"events.jsonl"_s)).records)
        state.apply(record, &changes);
    QCOMPARE(changes.size(), 8);
    QCOMPARE(changes.last().type, ReplayChange::Type::Delete);
    QCOMPARE(changes.last().key, u"demo/reports"_s);
    const auto objects = state.objects(0);
    QCOMPARE(objects.size(), 3);
    QVERIFY(objects.contains(u"demo/web"_s));
}

QTEST_GUILESS_MAIN(tst_KubectlImport)
#include "tst_kubectlimport.moc"
