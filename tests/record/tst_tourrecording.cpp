// The demo tour as a recording (resources/recordings/customapp-tour.rrec, compiled into the binary,
// made by make_tour_recording): it was made from the tour in the tree (the scenario's SHA-256 in
// its metadata), and `reconscope replay` of the copy inside the binary shows what the tour is
// for: each of its four CustomApps through Pending and Reconciling to Ready or to each kind of
// Degraded (quota exceeded, image pull back-off, the terminal InvalidSpec), drift put right, and
// every object through Terminating to its deletion, with the file whole.

#include "controller/record/recordingreader.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace Qt::StringLiterals;
namespace record = reconscope::controller::record;

namespace {

const QString Recording
    = QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/recordings/customapp-tour.rrec"_s;
const QString Scenario
    = QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/scenarios/customapp-tour.json"_s;

} // namespace

class tst_TourRecording : public QObject
{
    Q_OBJECT

private slots:
    void madeFromTheTourInTheTree();
    void replayShowsEveryState();
};

void tst_TourRecording::madeFromTheTourInTheTree()
{
    auto reader = record::RecordingReader::open(Recording);
    QVERIFY2(reader, reader ? "" : qPrintable(reader.error().message));
    const nlohmann::json &metadata = reader.value()->header().metadata;
    QFile scenario(Scenario);
    QVERIFY(scenario.open(QIODevice::ReadOnly));
    const QByteArray sha
        = QCryptographicHash::hash(scenario.readAll(), QCryptographicHash::Sha256).toHex();
    QVERIFY2(metadata.value("scenarioSha256", "") == sha.toStdString(),
             "the tour changed since resources/recordings/customapp-tour.rrec was made: make it "
             "again with build/tests/record/make_tour_recording");
}

void tst_TourRecording::replayShowsEveryState()
{
    QProcess replay;
    replay.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                 { u"replay"_s,
                   u":/recordings/customapp-tour.rrec"_s,
                   u"--speed"_s,
                   u"max"_s,
                   u"-o"_s,
                   u"json"_s });
    QVERIFY(replay.waitForFinished(60000));
    const QString said = QString::fromUtf8(replay.readAllStandardError());
    QCOMPARE(replay.exitCode(), 0);
    QVERIFY2(!said.contains(u"cut short"_s), qPrintable(said));
    QStringList seen; // "key to reason"
    QSet<QString> deleted;
    for (const QByteArray &line : replay.readAllStandardOutput().split('\n')) {
        const QJsonObject t = QJsonDocument::fromJson(line).object();
        if (t.isEmpty())
            continue;
        const QString key = t.value(u"key"_s).toString();
        const QString to = t.value(u"to"_s).toString();
        seen << key + u' ' + to + u' ' + t.value(u"reason"_s).toString();
        if (to == u"[*]"_s)
            deleted.insert(key);
    }
    const QString all = seen.join(u'\n');
    for (const QString &expected : { u"tour/shop Pending"_s,
                                     u"tour/shop Reconciling"_s,
                                     u"tour/shop Ready"_s,
                                     u"tour/shop Reconciling DriftDetected"_s,
                                     u"tour-quota/ingest Degraded QuotaExceeded"_s,
                                     u"tour/thumbnailer Degraded ImagePullBackOff"_s,
                                     u"tour/ledger Degraded InvalidSpec"_s,
                                     u"tour/ledger Terminating"_s }) {
        QVERIFY2(all.contains(expected), qPrintable(expected + u" not in:\n"_s + all));
    }
    QCOMPARE(
        deleted,
        (QSet<QString>{
            u"tour/shop"_s, u"tour-quota/ingest"_s, u"tour/thumbnailer"_s, u"tour/ledger"_s }));
}

QTEST_GUILESS_MAIN(tst_TourRecording)
#include "tst_tourrecording.moc"
