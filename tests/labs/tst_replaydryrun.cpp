// labs::ReplayDryRun: the CustomApp reconciler in dry-run over a kubectl capture of the real
// control plane (tests/record/data/kubectl/), played into a cluster of its own. Each recorded
// change of a CustomApp is one step, in the recorded order, and the writes planned at a step are
// those the reconciler's rules (reconciler.md) give for the object as recorded then: the finalizer,
// the Deployment of the recorded image, the status; a CustomApp naming a Secret the recording lacks
// is a terminal error; a deleted one needs nothing. A capture cut short plays what it holds.

#include "controller/labs/replaydryrun.h"
#include "controller/record/recordingset.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
namespace clabs = reconscope::controller::labs;
namespace record = reconscope::controller::record;

namespace {

QString dataFile(const QString &name)
{
    return QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/tests/record/data/kubectl/"_s + name;
}

struct Played
{
    QList<clabs::DryRunStep> steps;
    QString error;
    bool finished = false;
};

Played playDryRun(const QStringList &files)
{
    Played played;
    auto source = record::openRecordSource(files);
    if (!source) {
        played.error = source.error().message;
        return played;
    }
    clabs::ReplayDryRun dryRun(std::move(source.value()));
    QObject::connect(&dryRun,
                     &clabs::ReplayDryRun::stepPlanned,
                     &dryRun,
                     [&played](const clabs::DryRunStep &step) { played.steps << step; });
    QObject::connect(
        &dryRun, &clabs::ReplayDryRun::finished, &dryRun, [&played](const QString &error) {
            played.error = error;
            played.finished = true;
        });
    dryRun.start();
    if (!QTest::qWaitFor([&played] { return played.finished; }, 60000))
        played.error = u"the dry run did not finish in 60 s"_s;
    return played;
}

// The verbs and paths a step would write, "POST .../deployments".
QStringList writesOf(const clabs::DryRunStep &step)
{
    QStringList out;
    for (const auto &write : step.writes)
        out << write.verb + u' ' + write.path;
    return out;
}

const reconscope::controller::operators::PlannedWrite *
find(const clabs::DryRunStep &step, const QString &verb, const QString &pathEnd)
{
    for (const auto &write : step.writes) {
        if (write.verb == verb && write.path.endsWith(pathEnd))
            return &write;
    }
    return nullptr;
}

} // namespace

class tst_ReplayDryRun : public QObject
{
    Q_OBJECT

private slots:
    void stepsFollowTheRecording();
    void cutShortCapturePlaysWhatItHolds();
};

void tst_ReplayDryRun::stepsFollowTheRecording()
{
    const Played played
        = playDryRun({ dataFile(u"events-epoch.jsonl"_s), dataFile(u"crd.json"_s) });
    QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
    QStringList keys;
    for (const auto &step : played.steps)
        keys << step.key + u' ' + step.change;
    QCOMPARE(keys,
             (QStringList{ u"demo/api created or changed"_s,
                           u"demo/reports created or changed"_s,
                           u"demo/web created or changed"_s,
                           u"demo/worker created or changed"_s,
                           u"demo/web created or changed"_s,
                           u"demo/web created or changed"_s,
                           u"demo/worker created or changed"_s,
                           u"demo/reports deleted"_s }));
    for (qsizetype i = 0; i < played.steps.size(); ++i)
        QCOMPARE(played.steps[i].index, i + 1);
    QCOMPARE(played.steps[0].time,
             QDateTime::fromSecsSinceEpoch(1796324245, Qt::UTC).addMSecs(685));

    // api: the finalizer, the Deployment of its recorded image, then its status.
    const clabs::DryRunStep &api = played.steps[0];
    QCOMPARE(
        writesOf(api),
        (QStringList{
            u"PUT /apis/infrastructure.internal.net/v1/namespaces/demo/customapps/api"_s,
            u"POST /apis/apps/v1/namespaces/demo/deployments"_s,
            u"PUT /apis/infrastructure.internal.net/v1/namespaces/demo/customapps/api/status"_s }));
    const auto *deployment = find(api, u"POST"_s, u"/deployments"_s);
    QVERIFY(deployment);
    const std::string dumped = deployment->diff.dump();
    QVERIFY2(dumped.find("ghcr.io/example/api:2.4.1") != std::string::npos, dumped.c_str());
    QVERIFY(
        std::all_of(api.writes.begin(), api.writes.end(), [](const auto &w) { return !w.sent; }));

    // web names a Secret the recording does not hold: a terminal error, said in its status.
    const clabs::DryRunStep &web = played.steps[2];
    QVERIFY2(web.outcome.contains(u"Terminal"_s, Qt::CaseInsensitive), qPrintable(web.outcome));
    const auto *status = find(web, u"PUT"_s, u"/web/status"_s);
    QVERIFY(status);
    QVERIFY2(status->diff.dump().find("web-credentials") != std::string::npos,
             status->diff.dump().c_str());
    QVERIFY(!find(web, u"POST"_s, u"/deployments"_s));

    // reports, once deleted, needs nothing.
    QVERIFY(played.steps.last().writes.isEmpty());
}

void tst_ReplayDryRun::cutShortCapturePlaysWhatItHolds()
{
    QFile whole(dataFile(u"events-epoch.jsonl"_s));
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = whole.readAll().split('\n');
    QTemporaryDir dir;
    const QString cut = dir.filePath(u"cut.jsonl"_s);
    QFile part(cut);
    QVERIFY(part.open(QIODevice::WriteOnly));
    // The first four whole lines (the four ADDED), then half of the fifth: Ctrl-C mid-line.
    for (int i = 0; i < 4; ++i)
        part.write(lines[i] + '\n');
    part.write(lines[4].left(lines[4].size() / 2));
    part.close();
    const Played played = playDryRun({ cut, dataFile(u"crd.json"_s) });
    QVERIFY2(played.error.isEmpty(), qPrintable(played.error));
    QCOMPARE(played.steps.size(), 4);
}

QTEST_GUILESS_MAIN(tst_ReplayDryRun)
#include "tst_replaydryrun.moc"
