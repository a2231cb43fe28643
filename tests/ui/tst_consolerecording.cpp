// File → Record in the live console (issue 24): the console on the embedded cluster records what
// it watches through the File menu's actions, a status of an object changes while it records, the
// recording is stopped and read back: whole, with discovery, the CRD, the resource and its Events,
// the first list and the watch event, and a replay of it ends where the console stands.

#include "controller/console/consolerecording.h"
#include "controller/console/consolesession.h"
#include "controller/record/recordingset.h"
#include "controller/record/replaytimeline.h"
#include "models/resourcetablemodel.h"
#include "ui/mainwindow.h"
#include "ui/recordingactions.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace Qt::StringLiterals;
namespace record = reconscope::controller::record;
namespace models = reconscope::models;
using reconscope::controller::console::ConsoleRecording;
using reconscope::controller::console::ConsoleSession;

namespace {
constexpr int Timeout = 30000;
}

class tst_ConsoleRecording : public QObject
{
    Q_OBJECT

private slots:
    void recordsWhatTheConsoleWatches();
};

void tst_ConsoleRecording::recordsWhatTheConsoleWatches()
{
    ConsoleSession session;
    session.setRunReconciler(false); // the test makes the one change recorded
    session.setPlayScenario(false);
    reconscope::ui::MainWindow window(&session);
    QVERIFY2(session.startDemo().ok(), "the embedded cluster did not start");
    window.show();
    QVERIFY(QTest::qWaitFor([&] { return session.informer() && session.informer()->hasSynced(); },
                            Timeout));
    QVERIFY(QTest::qWaitFor([&] { return session.tableModel()->rowCount() >= 3; }, Timeout));

    reconscope::ui::RecordingActions *actions = window.recordingActions();
    ConsoleRecording *recording = actions->recording();
    QVERIFY(actions->recordAction()->isEnabled());
    QVERIFY(!actions->stopAction()->isEnabled());
    QSignalSpy started(recording, &ConsoleRecording::recording);
    QSignalSpy finished(recording, &ConsoleRecording::finished);
    QSignalSpy failed(recording, &ConsoleRecording::failed);
    record::RecorderStats progress;
    connect(recording, &ConsoleRecording::progress, this, [&](const record::RecorderStats &stats) {
        progress = stats;
    });
    QTemporaryDir dir;
    const QString path = dir.filePath(u"console.rrec"_s);
    actions->startRecording(path);
    QVERIFY(recording->isRecording());
    QVERIFY(!actions->recordAction()->isEnabled());
    QVERIFY(actions->stopAction()->isEnabled());
    QVERIFY(!actions->indicator()->isHidden());
    // The recording's client and session run on a thread of their own.
    const auto *thread = recording->findChild<QThread *>();
    QVERIFY(thread && thread != QThread::currentThread() && thread->isRunning());
    QVERIFY(QTest::qWaitFor([&] { return !started.isEmpty() || !failed.isEmpty(); }, Timeout));
    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QVERIFY(started.first().first().toStringList().join(u' ').contains(u"customapps"_s));
    const int rows = session.tableModel()->rowCount();
    QVERIFY2(QTest::qWaitFor([&] { return progress.listItems >= rows; }, Timeout),
             qPrintable(QString::fromStdString(progress.toJson().dump())));

    // One change while recording: an object's Ready condition goes False.
    const models::ResourceRow *row = session.tableModel()->rowAt(0);
    const QString key = row->key;
    const nlohmann::json status
        = { { "conditions",
              nlohmann::json::array({ { { "type", "Ready" },
                                        { "status", "False" },
                                        { "reason", "RecordedChange" },
                                        { "message", "made while recording" },
                                        { "lastTransitionTime", "2026-01-01T00:00:00Z" } } }) } };
    bool patched = false;
    session.patchObject(row->namespaceName,
                        row->name,
                        QByteArray::fromStdString(nlohmann::json{ { "status", status } }.dump()),
                        u"status"_s,
                        [&](auto result) { patched = result.ok(); });
    QVERIFY(QTest::qWaitFor([&] { return patched; }, Timeout));
    QVERIFY(QTest::qWaitFor([&] { return progress.events >= 1; }, Timeout));
    QVERIFY(QTest::qWaitFor([&] { return actions->indicator()->text().contains(u"events"_s); },
                            Timeout));

    actions->stopAction()->trigger();
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, Timeout));
    const auto stats = finished.first().first().value<record::RecorderStats>();
    QVERIFY2(stats.error.isEmpty(), qPrintable(stats.error));
    QVERIFY(!recording->isRecording());
    QVERIFY(actions->indicator()->isHidden());
    QVERIFY(actions->recordAction()->isEnabled());

    // Read back: whole, and everything a replay needs.
    auto loaded = record::loadRecording(path);
    QVERIFY2(loaded, loaded ? "" : qPrintable(loaded.error().message));
    QVERIFY(loaded->end.complete);
    QCOMPARE(QString::fromStdString(loaded->header.metadata.value("recordedBy", std::string())),
             u"console"_s);
    QMap<record::RecordType, int> counts;
    QStringList resources;
    bool changeRecorded = false;
    for (const record::Record &r : std::as_const(loaded->records)) {
        ++counts[r.type];
        if (r.type == record::RecordType::Resource)
            resources << record::RecordedResource::fromJson(r.data)->qualifiedName();
        if (r.type == record::RecordType::Event && r.data.contains("RecordedChange"))
            changeRecorded = true;
    }
    QCOMPARE(resources, QStringList({ u"customapps.infrastructure.internal.net"_s, u"events"_s }));
    QCOMPARE(counts.value(record::RecordType::Discovery), 1);
    QVERIFY(counts.value(record::RecordType::Crd) >= 1);
    QVERIFY(counts.value(record::RecordType::ListItem) >= rows);
    QVERIFY(changeRecorded);
    QCOMPARE(qint64(stats.fileBytes), QFileInfo(path).size());

    // Replayed to its end, it shows what the console shows.
    record::ReplayTimeline timeline(std::move(loaded).value());
    timeline.seek(timeline.endTime());
    QCOMPARE(timeline.cursor().rows().size(), qsizetype(session.tableModel()->rowCount()));
    QCOMPARE(timeline.cursor().rows().value(key).state, models::LifecycleState::Reconciling);
    QCOMPARE(timeline.cursor().rows().value(key).reason, u"RecordedChange"_s);
    QCOMPARE(session.tableModel()->find(key)->state, models::LifecycleState::Reconciling);
}

QTEST_MAIN(tst_ConsoleRecording)
#include "tst_consolerecording.moc"
