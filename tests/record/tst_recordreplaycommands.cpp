// `reconscope record` and `reconscope replay` end to end, as separate processes against `reconscope
// serve` with its demo objects: while the reconciler (`reconscope reconcile`) walks the demo's
// CustomApps through their lifecycle, `watch` prints the transitions live and `record` records the
// same watch; the replay of the recording must print the same transitions, in the same order,
// with the same reasons and marks, at any speed.
#include "../conformance/servefixture.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// A transition line of `watch -o json` / `replay -o json` less its time: `watch` stamps the time it
// saw the change, the replay the time the recorder received it (two processes, a few ms apart).
QString withoutTime(const QByteArray &line)
{
    QJsonObject object = QJsonDocument::fromJson(line).object();
    object.remove(u"time"_s);
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QStringList transitions(const QByteArray &output)
{
    QStringList out;
    for (const QByteArray &line : output.split('\n')) {
        if (!line.trimmed().isEmpty())
            out << withoutTime(line);
    }
    return out;
}

// The transitions that end in `state`.
qsizetype endingIn(const QStringList &lines, const QString &state)
{
    return std::count_if(lines.begin(), lines.end(), [&](const QString &line) {
        return line.contains(u"\"to\":\""_s + state + u'"');
    });
}

} // namespace

class tst_RecordReplayCommands : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void replayPrintsWhatWatchPrintedLive();
    void replayAtOtherSpeeds_data();
    void replayAtOtherSpeeds();
    void interruptedRecordingReplaysWhatItHolds();

private:
    QProcess *start(const QStringList &arguments);
    QByteArray replay(const QStringList &extra, int timeoutMs = 60000);

    ServeFixture m_serve;
    QTemporaryDir m_dir;
    QString m_file;
    QStringList m_live;
    QList<QProcess *> m_processes;
};

QProcess *tst_RecordReplayCommands::start(const QStringList &arguments)
{
    auto *process = new QProcess(this);
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"KUBECONFIG"_s, m_serve.kubeconfigPath());
    process->setProcessEnvironment(env);
    process->start(QStringLiteral(RECONSCOPE_EXECUTABLE), arguments);
    m_processes << process;
    return process;
}

QByteArray tst_RecordReplayCommands::replay(const QStringList &extra, int timeoutMs)
{
    QProcess process;
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                  QStringList{ u"replay"_s, m_file, u"-o"_s, u"json"_s } + extra);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        qWarning("replay %s did not finish in %d ms", qPrintable(extra.join(u' ')), timeoutMs);
        return {};
    }
    if (process.exitCode() != 0)
        qWarning("replay: %s", process.readAllStandardError().constData());
    return process.readAllStandardOutput();
}

void tst_RecordReplayCommands::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_file = m_dir.filePath(u"demo.rrec"_s);
    QVERIFY(m_serve.start());

    QProcess *watch = start({ u"watch"_s, u"customapps"_s, u"-A"_s, u"-o"_s, u"json"_s });
    QByteArray seen;
    // The census first: every demo object in the state it is found in (no transition).
    QTRY_VERIFY_WITH_TIMEOUT(
        (seen += watch->readAllStandardOutput()).contains("\"type\":\"census\""), 20000);
    QProcess *record = start({ u"record"_s, u"customapps"_s, u"-A"_s, u"-o"_s, m_file });
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += record->readAllStandardError()).contains("Ctrl-C ends"),
                             20000);

    // The reconciler walks the demo objects through their states; both see the same watch.
    // (web and api end Ready, billing and reports Degraded by their invalid specs, worker and batch
    // Degraded by their workloads.)
    QProcess *reconcile = start({ u"reconcile"_s,
                                  u"--kubeconfig"_s,
                                  m_serve.kubeconfigPath(),
                                  u"-A"_s,
                                  u"--leader-elect=false"_s });
    QTRY_VERIFY_WITH_TIMEOUT(
        endingIn(transitions(seen += watch->readAllStandardOutput()), u"Ready"_s) >= 2, 60000);
    // Until the changes have settled: two seconds without a new line.
    for (qsizetype before = -1; before != seen.size();) {
        before = seen.size();
        QTest::qWait(2000);
        seen += watch->readAllStandardOutput();
    }
    reconcile->terminate();
    QVERIFY(reconcile->waitForFinished(15000));
    QTest::qWait(500);
    seen += watch->readAllStandardOutput();

    record->terminate(); // SIGTERM, as Ctrl-C: the recording is closed with its End record
    QVERIFY(record->waitForFinished(15000));
    said += record->readAllStandardError();
    QVERIFY2(record->exitStatus() == QProcess::NormalExit && record->exitCode() == 0,
             said.constData());
    watch->terminate();
    watch->waitForFinished(5000);
    seen += watch->readAllStandardOutput();
    m_live = transitions(seen);
    QVERIFY(QFile::exists(m_file));
}

void tst_RecordReplayCommands::cleanupTestCase()
{
    for (QProcess *process : std::as_const(m_processes)) {
        if (process->state() != QProcess::NotRunning) {
            process->kill();
            process->waitForFinished(5000);
        }
    }
    m_serve.stop();
}

void tst_RecordReplayCommands::replayPrintsWhatWatchPrintedLive()
{
    const QStringList replayed = transitions(replay({ u"--speed"_s, u"max"_s }));
    // The recording's first list is the census, as `watch` printed it.
    QVERIFY(replayed.constFirst().contains(u"\"type\":\"census\""_s));
    // More than the initial states: the reconciler's transitions are in it.
    QVERIFY2(endingIn(m_live, u"Ready"_s) >= 2 && endingIn(m_live, u"Degraded"_s) >= 2,
             qPrintable(m_live.join(u'\n')));
    QCOMPARE(replayed, m_live);
}

void tst_RecordReplayCommands::replayAtOtherSpeeds_data()
{
    QTest::addColumn<QString>("speed");
    QTest::newRow("64x") << u"64"_s;
    QTest::newRow("0.25x") << u"0.25"_s;
}

// The pace changes when lines are printed, never what they say.
void tst_RecordReplayCommands::replayAtOtherSpeeds()
{
    QFETCH(QString, speed);
    QCOMPARE(transitions(replay({ u"--speed"_s, speed }, 240000)), m_live);
}

// A recorder killed mid-way (no End record, a block cut short) still replays up to its last whole
// block, and says where it stopped.
void tst_RecordReplayCommands::interruptedRecordingReplaysWhatItHolds()
{
    QFile whole(m_file);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    const QString cut = m_dir.filePath(u"cut.rrec"_s);
    QFile part(cut);
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(bytes.left(bytes.size() - 7));
    part.close();
    QProcess process;
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE),
                  { u"replay"_s, cut, u"--speed"_s, u"max"_s, u"-o"_s, u"json"_s });
    QVERIFY(process.waitForFinished(60000));
    const QString said = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(said.contains(u"cut short at byte"_s), qPrintable(said));
    const QStringList replayed = transitions(process.readAllStandardOutput());
    // What it printed is where the whole recording begins.
    QVERIFY(replayed.size() <= m_live.size());
    QCOMPARE(replayed, m_live.mid(0, replayed.size()));
}

QTEST_GUILESS_MAIN(tst_RecordReplayCommands)
#include "tst_recordreplaycommands.moc"
