// The console's replay model (controller/record/replaytimeline.h): a seek anywhere, backwards or
// forwards, leaves the table, the state graph's figures, each object's timeline and its JSON
// exactly as playing the recording from its start to that moment does (random seeks with a fixed
// seed, over the demo tour and a generated recording with relists and deletions, the table under
// QAbstractItemModelTester); playing moves by the injected clock at 0.25× to 64×; stepping visits
// every transition; files cut short open up to their last whole record, damaged ones and newer
// format versions are refused with the offset.

#include "controller/record/replaytimeline.h"
#include "models/resourcetablemodel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
namespace record = reconscope::controller::record;
namespace models = reconscope::models;
using record::Record;
using record::RecordType;
using record::ReplayTimeline;

namespace {

const QString TourPath
    = QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/recordings/customapp-tour.rrec"_s;

class FakeClock final : public record::ReplayClock
{
public:
    qint64 msecs() const override { return now; }
    qint64 now = 1000;
};

Record makeRecord(RecordType type, qint64 time, int resource, const QByteArray &data = {})
{
    Record record;
    record.type = type;
    record.time = time;
    record.resource = resource;
    record.data = data;
    return record;
}

QByteArray widget(int n, int generation, int state, int version)
{
    static const char *const conditions[] = {
        "", // no conditions: Pending
        R"([{"type":"Ready","status":"False","reason":"Progressing","lastTransitionTime":"2026-01-01T00:00:01Z"}])",
        R"([{"type":"Ready","status":"True","reason":"Available","lastTransitionTime":"2026-01-01T00:00:02Z"}])",
        R"([{"type":"Degraded","status":"True","reason":"Broken","lastTransitionTime":"2026-01-01T00:00:03Z"}])",
    };
    QByteArray status = QByteArray(R"({"observedGeneration":)") + QByteArray::number(generation);
    if (*conditions[state])
        status += QByteArray(R"(,"conditions":)") + conditions[state];
    status += '}';
    return QByteArray(
               R"({"apiVersion":"demo.example.com/v1","kind":"Widget","metadata":{"name":"w-)")
        + QByteArray::number(n) + R"(","namespace":"ns-)" + QByteArray::number(n % 3)
        + R"(","resourceVersion":")" + QByteArray::number(version) + R"(","generation":)"
        + QByteArray::number(generation)
        + R"(,"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"size":)" + QByteArray::number(n)
        + R"(},"status":)" + status + '}';
}

// Widgets listed, then changed, added and deleted at random, with a relist (a watch gap) in the
// middle and records sharing a time; Events declared too (never the resource shown by default).
record::Recording generated(int objects, int events, quint32 seed)
{
    QRandomGenerator random(seed);
    record::Recording recording;
    recording.header.startMicros = 1'767'225'600'000'000; // 2026-01-01T00:00:00Z
    record::RecordedResource events_{ {}, u"v1"_s, u"events"_s, u"Event"_s };
    record::RecordedResource widgets{ u"demo.example.com"_s, u"v1"_s, u"widgets"_s, u"Widget"_s };
    auto &records = recording.records;
    records << makeRecord(
        RecordType::Resource, 0, 0, QByteArray::fromStdString(events_.toJson().dump()))
            << makeRecord(
                   RecordType::Resource, 0, 1, QByteArray::fromStdString(widgets.toJson().dump()));
    int version = 1;
    QMap<int, int> generations; // live objects, in key order (a QHash would order them per run)
    qint64 time = 1000;
    const auto list = [&](const QList<int> &items) {
        records << makeRecord(RecordType::ListStart, time, 1);
        for (const int n : items) {
            generations[n] = generations.value(n, 1);
            records << makeRecord(RecordType::ListItem,
                                  time,
                                  1,
                                  widget(n, generations[n], int(random.bounded(4)), ++version));
        }
        records << makeRecord(RecordType::ListEnd, time, 1, QByteArray::number(version));
        for (auto it = generations.begin(); it != generations.end();)
            it = items.contains(it.key()) ? std::next(it) : generations.erase(it);
    };
    QList<int> first;
    for (int n = 0; n < objects; ++n)
        first << n;
    list(first);
    int next = objects;
    for (int i = 0; i < events; ++i) {
        time += random.bounded(3) == 0 ? 0 : qint64(random.bounded(50'000));
        if (i == events / 2) { // a relist that lacks some objects and changes others
            QList<int> kept;
            for (auto it = generations.cbegin(); it != generations.cend(); ++it) {
                if (random.bounded(4) != 0)
                    kept << it.key();
            }
            list(kept);
            continue;
        }
        const int what = int(random.bounded(10));
        Record event = makeRecord(RecordType::Event, time, 1);
        if (what == 0 || generations.isEmpty()) {
            generations[next] = 1;
            event.event = record::EventType::Added;
            event.data = widget(next, 1, 0, ++version);
            ++next;
        } else {
            const int n = generations.keys().at(int(random.bounded(int(generations.size()))));
            if (what == 1) {
                event.event = record::EventType::Deleted;
                event.data = widget(n, generations[n], 2, ++version);
                generations.remove(n);
            } else {
                generations[n] += int(random.bounded(2));
                event.event = record::EventType::Modified;
                event.data = widget(n, generations[n], int(random.bounded(4)), ++version);
            }
        }
        records << event;
    }
    return recording;
}

// What playing the recording from its start to the timeline's position gives.
record::ReplayCursor played(const record::Recording &recording, const ReplayTimeline &timeline)
{
    record::ReplayCursor cursor(recording.header, timeline.resourceName());
    for (const Record &r : recording.records) {
        if (r.time > timeline.position())
            break;
        cursor.apply(r);
    }
    return cursor;
}

QList<models::StateNode> nodes()
{
    QList<models::StateNode> all{ std::nullopt };
    for (int s = 0; s < models::LifecycleStateCount; ++s)
        all << models::LifecycleState(s);
    return all;
}

void compareWithPlayed(const ReplayTimeline &timeline, const record::Recording &recording)
{
    const record::ReplayCursor expected = played(recording, timeline);
    // The table.
    QHash<QString, models::ResourceRow> shown;
    const models::ResourceTableModel *table = timeline.tableModel();
    for (int i = 0; i < table->rowCount(); ++i)
        shown.insert(table->rowAt(i)->key, *table->rowAt(i));
    QCOMPARE(shown.size(), expected.rows().size());
    QVERIFY(shown == expected.rows());
    // The state graph's figures.
    const models::StateGraphStats &a = timeline.tracker().stats();
    const models::StateGraphStats &b = expected.tracker().stats();
    for (int s = 0; s < models::LifecycleStateCount; ++s) {
        const auto state = models::LifecycleState(s);
        QCOMPARE(a.objectsIn(state), b.objectsIn(state));
        QCOMPARE(table->countIn(state), b.objectsIn(state));
        QCOMPARE(a.censusIn(state), b.censusIn(state));
        QCOMPARE(a.msecsIn(state, timeline.now()), b.msecsIn(state, timeline.now()));
    }
    for (const models::StateNode &from : nodes()) {
        for (const models::StateNode &to : nodes()) {
            QCOMPARE(a.edgeCount(from, to), b.edgeCount(from, to));
            QCOMPARE(a.gapEdgeCount(from, to), b.gapEdgeCount(from, to));
        }
    }
    QCOMPARE(a.totalTransitions(), b.totalTransitions());
    // Each object's details and transition timeline.
    for (auto it = expected.rows().cbegin(); it != expected.rows().cend(); ++it) {
        QCOMPARE(timeline.tracker().log().history(it.key()),
                 expected.tracker().log().history(it.key()));
        QCOMPARE(timeline.object(it.key()), expected.object(it.key()));
    }
}

QByteArray tourBytes()
{
    QFile file(TourPath);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class tst_ReplayTimeline : public QObject
{
    Q_OBJECT

private slots:
    void randomSeeksMatchPlaying_data();
    void randomSeeksMatchPlaying();
    void playsByTheClockAtEverySpeed_data();
    void playsByTheClockAtEverySpeed();
    void stepsVisitEveryTransition();
    void markersAreTheObjectsTransitions();
    void cutShortOpensUpToTheLastWholeRecord();
    void damagedOrNewerIsRefusedWithTheOffset();
};

void tst_ReplayTimeline::randomSeeksMatchPlaying_data()
{
    QTest::addColumn<bool>("tour");
    QTest::addColumn<int>("checkpointRecords");
    QTest::newRow("tour") << true << 5;
    QTest::newRow("generated") << false << 50;
}

void tst_ReplayTimeline::randomSeeksMatchPlaying()
{
    QFETCH(bool, tour);
    QFETCH(int, checkpointRecords);
    record::Recording recording;
    if (tour) {
        auto loaded = record::loadRecording(TourPath);
        QVERIFY2(loaded, loaded ? "" : qPrintable(loaded.error().message));
        recording = std::move(loaded).value();
    } else {
        recording = generated(120, 3000, 24);
    }
    ReplayTimeline timeline(recording, {}, checkpointRecords);
    QAbstractItemModelTester tester(timeline.tableModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(timeline.resourceName(),
             tour ? u"customapps.infrastructure.internal.net"_s : u"widgets.demo.example.com"_s);
    QVERIFY(timeline.checkpointCount() > 3);
    QVERIFY(timeline.transitionTimes().size() > 10);
    compareWithPlayed(timeline, recording);
    if (QTest::currentTestFailed())
        return;
    // The most objects at once: the checkpoint interval is never longer than that (or the least).
    qsizetype mostObjects = 0;
    {
        record::ReplayCursor cursor(recording.header, timeline.resourceName());
        for (const Record &r : std::as_const(recording.records)) {
            cursor.apply(r);
            mostObjects = std::max<qsizetype>(mostObjects, cursor.rows().size());
        }
    }
    const qsizetype interval = std::max<qsizetype>(checkpointRecords, mostObjects);
    QRandomGenerator random(24);
    for (int i = 0; i < 300; ++i) {
        // Half the seeks land on a transition's time (records sharing a time), half anywhere.
        const qint64 time = random.bounded(2) == 0 ? timeline.transitionTimes().at(
                                int(random.bounded(int(timeline.transitionTimes().size()))))
                                                   : timeline.startTime()
                + qint64(random.bounded(double(timeline.endTime() - timeline.startTime() + 1)));
        timeline.seek(time);
        QCOMPARE(timeline.position(), time);
        compareWithPlayed(timeline, recording);
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(u"seek %1 to %2"_s.arg(i).arg(time)));
        // Never from the start: at most a checkpoint interval of records per seek.
        QVERIFY2(timeline.lastSeekRecords() <= interval,
                 qPrintable(QString::number(timeline.lastSeekRecords())));
    }
    // Forwards record by record, as playing goes, and back to the start.
    for (const qint64 time : timeline.transitionTimes())
        timeline.seek(time);
    compareWithPlayed(timeline, recording);
    timeline.seek(timeline.startTime());
    compareWithPlayed(timeline, recording);
}

void tst_ReplayTimeline::playsByTheClockAtEverySpeed_data()
{
    QTest::addColumn<double>("speed");
    QTest::newRow("0.25x") << 0.25;
    QTest::newRow("1x") << 1.0;
    QTest::newRow("64x") << 64.0;
}

void tst_ReplayTimeline::playsByTheClockAtEverySpeed()
{
    QFETCH(double, speed);
    const record::Recording recording = generated(20, 400, 7);
    ReplayTimeline timeline(recording);
    auto clock = std::make_shared<FakeClock>();
    timeline.setClock(clock);
    timeline.setSpeed(speed);
    QCOMPARE(timeline.speed(), speed);
    QSignalSpy playing(&timeline, &ReplayTimeline::playingChanged);
    QSignalSpy transitions(&timeline, &ReplayTimeline::transitionsObserved);
    timeline.play();
    QVERIFY(timeline.isPlaying());
    const qint64 start = timeline.position();
    qint64 elapsedMs = 0;
    QList<models::Transition> seen;
    while (timeline.isPlaying()) {
        clock->now += 250;
        elapsedMs += 250;
        timeline.advance();
        const qint64 expected = start + qint64(double(elapsedMs) * 1000 * speed);
        QCOMPARE(timeline.position(), std::min(expected, timeline.endTime()));
        if (elapsedMs % 4000 == 0) {
            compareWithPlayed(timeline, recording);
            if (QTest::currentTestFailed())
                return;
        }
    }
    QCOMPARE(timeline.position(), timeline.endTime());
    QCOMPARE(playing.size(), 2);
    compareWithPlayed(timeline, recording);
    // The transitions played are those of the records after the start, in order.
    for (const auto &signal : std::as_const(transitions))
        seen += signal.at(0).value<QList<models::Transition>>();
    record::ReplayCursor cursor(recording.header, timeline.resourceName());
    record::ReplayStep step;
    for (const Record &r : recording.records)
        cursor.apply(r, r.time > start ? &step : nullptr);
    QVERIFY(seen.size() > 10);
    QCOMPARE(seen, step.transitions);
    // A speed out of range is held to it.
    timeline.setSpeed(1000);
    QCOMPARE(timeline.speed(), ReplayTimeline::MaxSpeed);
    timeline.setSpeed(0.01);
    QCOMPARE(timeline.speed(), ReplayTimeline::MinSpeed);
}

void tst_ReplayTimeline::stepsVisitEveryTransition()
{
    const record::Recording recording = generated(10, 200, 3);
    ReplayTimeline timeline(recording, {}, 20);
    QList<qint64> forward;
    while (timeline.stepForward())
        forward << timeline.position();
    QList<qint64> expected = timeline.transitionTimes();
    if (!expected.isEmpty() && expected.first() == timeline.startTime())
        expected.removeFirst(); // the census, shown when opened
    QCOMPARE(forward, expected);
    QCOMPARE(timeline.position(), timeline.transitionTimes().last());
    QList<qint64> backward;
    while (timeline.stepBackward())
        backward << timeline.position();
    std::reverse(backward.begin(), backward.end());
    QCOMPARE(backward, timeline.transitionTimes().mid(0, timeline.transitionTimes().size() - 1));
    compareWithPlayed(timeline, recording);
}

void tst_ReplayTimeline::markersAreTheObjectsTransitions()
{
    const record::Recording recording = generated(10, 300, 5);
    ReplayTimeline timeline(recording);
    const QString key = u"ns-1/w-1"_s;
    const QList<qint64> times = timeline.transitionTimesOf(key);
    QVERIFY(times.size() > 2);
    QVERIFY(timeline.transitionTimesOf(u"nobody"_s).isEmpty());
    for (const qint64 time : times) {
        QVERIFY(timeline.transitionTimes().contains(time));
        timeline.seek(time);
        const auto last = timeline.tracker().log().lastTransition(key);
        if (!last) { // its deletion: the object's last transition, and it is gone
            QCOMPARE(time, times.last());
            QVERIFY(!timeline.cursor().rows().contains(key));
            continue;
        }
        QCOMPARE(last->time, timeline.wallTime(time));
    }
    // Between two of them, the object's last transition is the first's.
    timeline.seek(times[1] - 1);
    QCOMPARE(timeline.tracker().log().lastTransition(key)->time, timeline.wallTime(times[0]));
}

void tst_ReplayTimeline::cutShortOpensUpToTheLastWholeRecord()
{
    const QByteArray file = tourBytes();
    QVERIFY(file.size() > 1000);
    QTemporaryDir dir;
    const QString path = dir.filePath(u"cut.rrec"_s);
    int opened = 0;
    for (qsizetype cut = 8; cut < file.size(); cut += 97) { // 8: the magic, else a capture
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(file.first(cut));
        out.close();
        auto timeline = ReplayTimeline::open({ path });
        if (!timeline) { // too short to be a recording at all
            QVERIFY2(timeline.error().message.startsWith(path),
                     qPrintable(timeline.error().message));
            continue;
        }
        ++opened;
        QVERIFY(!timeline.value()->end().complete);
        const QString said = timeline.value()->end().describe();
        QVERIFY2(
            said.contains(
                u"cut short at byte %1 of %2"_s.arg(timeline.value()->end().stoppedAt).arg(cut)),
            qPrintable(said));
        timeline.value()->seek(timeline.value()->endTime());
        timeline.value()->seek(timeline.value()->startTime());
    }
    QVERIFY(opened > 10);
}

void tst_ReplayTimeline::damagedOrNewerIsRefusedWithTheOffset()
{
    const QByteArray whole = tourBytes();
    QTemporaryDir dir;
    const QString path = dir.filePath(u"damaged.rrec"_s);
    const auto openWith = [&](const QByteArray &bytes) {
        QFile out(path);
        out.open(QIODevice::WriteOnly | QIODevice::Truncate);
        out.write(bytes);
        out.close();
        return ReplayTimeline::open({ path });
    };
    QByteArray newer = whole;
    newer[8] = char(record::FormatVersion + 1);
    auto refused = openWith(newer);
    QVERIFY(!refused);
    QCOMPARE(refused.error().offset, 8);
    QVERIFY2(refused.error().message.contains(u"byte 8: recording format version 2 is newer"_s),
             qPrintable(refused.error().message));
    // A byte flipped anywhere past the header: refused naming where, or (in the header's
    // metadata's padding, say) still read; never a crash.
    int refusedCount = 0;
    for (qsizetype at = 24; at < whole.size() - 64; at += 53) {
        QByteArray damaged = whole;
        damaged[at] = char(damaged[at] ^ 0x5a);
        auto opened = openWith(damaged);
        if (opened)
            continue;
        ++refusedCount;
        QVERIFY(opened.error().offset >= 0);
        QVERIFY(opened.error().offset <= at);
        QVERIFY2(opened.error().message.contains(u"byte %1"_s.arg(opened.error().offset)),
                 qPrintable(opened.error().message));
    }
    QVERIFY(refusedCount > 10);
}

QTEST_GUILESS_MAIN(tst_ReplayTimeline)
#include "tst_replaytimeline.moc"
