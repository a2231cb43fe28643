// The console's replay view (File → Open Recording…): the demo tour's recording opened read-only,
// driven through its scrubber (the slider, Space, Left/Right, the speed box), with the table, the
// state graph and the details checked against the replay model at each moment; screenshots of the
// window and of the scrubber go to build/docs (docs/ with RECONSCOPE_UPDATE_DOCS=1).

#include "controller/record/replaytimeline.h"
#include "models/resourcetablemodel.h"
#include "models/transitiontimelinemodel.h"
#include "ui/replaydetailpane.h"
#include "ui/replayscrubber.h"
#include "ui/replaywindow.h"
#include "ui/resourcetablepanel.h"
#include "ui/stategraphpanel.h"
#include "ui/stategraphscene.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
namespace record = reconscope::controller::record;
namespace models = reconscope::models;
namespace ui = reconscope::ui;
using record::ReplayTimeline;

namespace {

const QString TourPath
    = QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/recordings/customapp-tour.rrec"_s;

class FakeClock final : public record::ReplayClock
{
public:
    qint64 msecs() const override { return now; }
    qint64 now = 0;
};

QList<models::StateNode> nodes()
{
    QList<models::StateNode> all{ std::nullopt };
    for (int s = 0; s < models::LifecycleStateCount; ++s)
        all << models::LifecycleState(s);
    return all;
}

} // namespace

class tst_ReplayWindow : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void readOnlyAndSaysItIsARecording();
    void sliderSeeksTableAndGraph();
    void keysPlayPauseAndStep();
    void speedBoxAndClockPlay();
    void selectedObjectsTransitionsAreMarked();
    void resourceMenuOpensAnotherResource();
    void screenshots();

private:
    // The table and the graph show the timeline's state at its position.
    void checkShown();

    ui::ReplayWindow *m_window = nullptr;
    ReplayTimeline *m_timeline = nullptr;
};

void tst_ReplayWindow::init()
{
    QString error;
    m_window = ui::ReplayWindow::open({ TourPath }, nullptr, &error);
    QVERIFY2(m_window, qPrintable(error));
    m_timeline = m_window->timeline();
    m_window->resize(1500, 950);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window));
}

void tst_ReplayWindow::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void tst_ReplayWindow::checkShown()
{
    const auto &rows = m_timeline->cursor().rows();
    auto *table = m_window->tablePanel();
    QCOMPARE(table->proxy()->rowCount(), int(rows.size()));
    for (int i = 0; i < table->proxy()->rowCount(); ++i) {
        const QString key
            = table->proxy()->index(i, 0).data(models::ResourceTableModel::KeyRole).toString();
        QVERIFY2(rows.contains(key), qPrintable(key));
        QCOMPARE(
            table->proxy()->index(i, models::ResourceTableModel::StateColumn).data().toString(),
            models::lifecycleStateName(rows[key].state));
    }
    const ui::StateGraphScene *scene = m_window->graphPanel()->scene();
    const models::StateGraphStats &stats = m_timeline->tracker().stats();
    for (int s = 0; s < models::LifecycleStateCount; ++s) {
        const auto state = models::LifecycleState(s);
        QCOMPARE(scene->nodeCounter(state), stats.objectsIn(state));
    }
    for (const models::StateNode &from : nodes()) {
        for (const models::StateNode &to : nodes()) {
            if (scene->hasEdge({ from, to }))
                QCOMPARE(scene->edgeCounter({ from, to }), stats.edgeCount(from, to));
        }
    }
}

void tst_ReplayWindow::readOnlyAndSaysItIsARecording()
{
    QVERIFY2(m_window->windowTitle().contains(u"customapp-tour.rrec"_s),
             qPrintable(m_window->windowTitle()));
    QVERIFY(m_window->windowTitle().contains(u"recording, read-only"_s));
    QVERIFY(m_window->recordingLabel()->text().contains(u"complete"_s));
    // No action that writes: no Objects menu, nothing to create, edit, patch or delete.
    for (QAction *action : m_window->findChildren<QAction *>()) {
        const QString text = action->text().remove(u'&');
        for (const QString &word : { u"New"_s, u"Edit"_s, u"Delete"_s, u"Patch"_s, u"Apply"_s })
            QVERIFY2(!text.contains(word), qPrintable(text));
    }
    QCOMPARE(m_timeline->resourceName(), u"customapps.infrastructure.internal.net"_s);
    checkShown();
}

void tst_ReplayWindow::sliderSeeksTableAndGraph()
{
    auto *slider = m_window->scrubber()->slider();
    QVERIFY(slider->maximum() > 1000);
    // Across the recording and back, in uneven steps.
    QList<int> values;
    for (int i = 0; i <= 12; ++i)
        values << slider->maximum() * i / 12;
    for (int i = 12; i >= 0; i -= 5)
        values << slider->maximum() * i / 12 - 7;
    for (const int value : std::as_const(values)) {
        slider->setValue(value);
        QCOMPARE(m_timeline->position(),
                 value == slider->maximum() ? m_timeline->endTime()
                                            : m_timeline->startTime() + qint64(value) * 1000);
        checkShown();
        if (QTest::currentTestFailed())
            QFAIL(qPrintable(u"at slider value %1"_s.arg(value)));
        QVERIFY(m_window->scrubber()->timeLabel()->text().contains(
            m_timeline->now().toString(u"HH:mm:ss"_s)));
    }
    slider->setValue(slider->maximum());
    QCOMPARE(m_timeline->position(), m_timeline->endTime());
    // At the end of the tour every CustomApp is deleted: the graph counts their moves to [*].
    QVERIFY(
        m_timeline->tracker().stats().edgeCount(models::LifecycleState::Terminating, std::nullopt)
        > 0);
    checkShown();
}

void tst_ReplayWindow::keysPlayPauseAndStep()
{
    QWidget *focus = m_window->tablePanel()->view();
    focus->setFocus();
    const QList<qint64> &times = m_timeline->transitionTimes();
    QVERIFY(times.size() > 5);
    const qint64 start = m_timeline->position();
    QTest::keyClick(focus, Qt::Key_Right);
    QVERIFY(m_timeline->position() > start);
    QVERIFY(times.contains(m_timeline->position()));
    const qint64 first = m_timeline->position();
    QTest::keyClick(focus, Qt::Key_Right);
    QTest::keyClick(focus, Qt::Key_Right);
    QCOMPARE(m_timeline->position(), times.at(times.indexOf(first) + 2));
    checkShown();
    QTest::keyClick(focus, Qt::Key_Left);
    QCOMPARE(m_timeline->position(), times.at(times.indexOf(first) + 1));
    checkShown();
    QVERIFY(!m_timeline->isPlaying());
    QTest::keyClick(focus, Qt::Key_Space);
    QVERIFY(m_timeline->isPlaying());
    QCOMPARE(m_window->scrubber()->playAction()->text().remove(u'&'), u"Pause"_s);
    QTest::keyClick(focus, Qt::Key_Space);
    QVERIFY(!m_timeline->isPlaying());
    QCOMPARE(m_window->scrubber()->playAction()->text().remove(u'&'), u"Play"_s);
}

void tst_ReplayWindow::speedBoxAndClockPlay()
{
    auto clock = std::make_shared<FakeClock>();
    m_timeline->setClock(clock);
    QComboBox *speed = m_window->scrubber()->speedBox();
    QCOMPARE(speed->count(), 9);
    QCOMPARE(speed->itemText(0), u"0.25×"_s);
    QCOMPARE(speed->itemText(speed->count() - 1), u"64×"_s);
    speed->setCurrentIndex(speed->count() - 1);
    QCOMPARE(m_timeline->speed(), 64.0);
    m_window->scrubber()->playAction()->trigger();
    QVERIFY(m_timeline->isPlaying());
    const qint64 start = m_timeline->position();
    int steps = 0;
    while (m_timeline->isPlaying() && steps < 10'000) {
        clock->now += 100;
        ++steps;
        m_timeline->advance();
        QCOMPARE(m_timeline->position(),
                 std::min(m_timeline->endTime(), start + qint64(steps) * 100 * 1000 * 64));
        QCOMPARE(m_window->scrubber()->slider()->value(),
                 int((m_timeline->position() - m_timeline->startTime()) / 1000));
        if (steps % 10 == 0) {
            checkShown();
            if (QTest::currentTestFailed())
                return;
        }
    }
    QVERIFY(!m_timeline->isPlaying());
    QCOMPARE(m_timeline->position(), m_timeline->endTime());
    checkShown();
    speed->setCurrentIndex(0);
    QCOMPARE(m_timeline->speed(), 0.25);
}

void tst_ReplayWindow::selectedObjectsTransitionsAreMarked()
{
    m_timeline->seek(m_timeline->endTime() - 1);
    m_timeline->seek(m_timeline->transitionTimes().at(m_timeline->transitionTimes().size() / 2));
    const auto &rows = m_timeline->cursor().rows();
    QVERIFY(!rows.isEmpty());
    const QString key = rows.begin().key();
    QVERIFY(m_window->tablePanel()->selectKey(key));
    const QList<qint64> times = m_timeline->transitionTimesOf(key);
    QVERIFY(times.size() >= 3);
    QCOMPARE(m_window->scrubber()->slider()->markers().size(), times.size());
    QCOMPARE(m_window->scrubber()->slider()->markers().first(),
             int((times.first() - m_timeline->startTime()) / 1000));
    QVERIFY(m_window->detailPane()->header()->text().contains(key.section(u'/', 1)));
    QCOMPARE(m_window->detailPane()->timelineModel()->transitions(),
             m_timeline->tracker().log().history(key));
    QCOMPARE(m_window->graphPanel()->selectedObject(), key);
    // Back to the object's first transition: its timeline holds that one alone.
    m_timeline->seek(times.first());
    QCOMPARE(m_window->detailPane()->timelineModel()->transitions().size(), 1);
    // Before it, the object does not exist yet.
    if (times.first() > m_timeline->startTime()) {
        m_timeline->seek(times.first() - 1);
        QVERIFY(m_window->detailPane()->header()->text().contains(u"does not exist"_s));
        QCOMPARE(m_window->detailPane()->objectKey(), key);
        // It is selected again once it exists.
        m_timeline->seek(times.last() - 1);
        QCOMPARE(m_window->tablePanel()->selectedKey(), key);
        QCOMPARE(m_window->detailPane()->objectKey(), key);
    }
}

// The tour merged with a kubectl capture of another resource: the Resource menu lists both (not
// Events), this window keeps its own, and choosing the other opens it in a window of its own.
void tst_ReplayWindow::resourceMenuOpensAnotherResource()
{
    QTemporaryDir dir;
    QFile capture(dir.filePath(u"kustomizations.jsonl"_s));
    QVERIFY(capture.open(QIODevice::WriteOnly));
    const nlohmann::json ready{ { "type", "Ready" },
                                { "status", "True" },
                                { "reason", "ReconciliationSucceeded" },
                                { "lastTransitionTime", "2026-12-03T17:33:00Z" } };
    const nlohmann::json event{
        { "type", "ADDED" },
        { "object",
          { { "apiVersion", "kustomize.toolkit.fluxcd.io/v1" },
            { "kind", "Kustomization" },
            { "metadata",
              { { "name", "apps" },
                { "namespace", "flux-system" },
                { "generation", 1 },
                { "resourceVersion", "7" },
                { "creationTimestamp", "2026-12-03T17:32:26Z" } } },
            { "spec", { { "interval", "10m" } } },
            { "status",
              { { "observedGeneration", 1 },
                { "conditions", nlohmann::json::array({ ready }) } } } } }
    };
    capture.write(QByteArray::fromStdString(event.dump() + "\n"));
    capture.close();
    QString error;
    std::unique_ptr<ui::ReplayWindow> merged(
        ui::ReplayWindow::open({ TourPath, capture.fileName() }, nullptr, &error));
    QVERIFY2(merged, qPrintable(error));
    const QString tour = merged->timeline()->resourceName();
    QCOMPARE(tour, u"customapps.infrastructure.internal.net"_s);
    QAction *other = nullptr;
    QStringList names;
    for (QAction *action : merged->resourceMenu()->actions()) {
        names << action->data().toString();
        QCOMPARE(action->isChecked(), action->data().toString() == tour);
        if (action->data().toString() != tour)
            other = action;
    }
    QCOMPARE(names.size(), 2);
    QVERIFY2(other && other->data().toString().startsWith(u"kustomizations."_s),
             qPrintable(names.join(u", "_s)));

    QSignalSpy opened(merged.get(), &ui::ReplayWindow::resourceWindowOpened);
    other->trigger();
    QCOMPARE(opened.size(), 1);
    std::unique_ptr<ui::ReplayWindow> second(opened.first().first().value<ui::ReplayWindow *>());
    QVERIFY(second);
    second->setAttribute(Qt::WA_DeleteOnClose, false);
    QCOMPARE(second->timeline()->resourceName(), other->data().toString());
    QVERIFY(second->windowTitle().contains(other->data().toString()));
    second->timeline()->seek(second->timeline()->endTime());
    QCOMPARE(second->tablePanel()->proxy()->rowCount(), 1);
    // This window still shows the tour, its own resource checked.
    QCOMPARE(merged->timeline()->resourceName(), tour);
    QVERIFY(!other->isChecked());
}

void tst_ReplayWindow::screenshots()
{
    // A moment with objects in several states, one selected with its markers.
    const QList<qint64> &times = m_timeline->transitionTimes();
    qint64 best = times.first();
    int mostStates = 0;
    for (const qint64 time : times) {
        m_timeline->seek(time);
        int states = 0;
        for (int s = 0; s < models::LifecycleStateCount; ++s)
            states += m_timeline->tracker().stats().objectsIn(models::LifecycleState(s)) > 0;
        if (states > mostStates) {
            mostStates = states;
            best = time;
        }
    }
    m_timeline->seek(best);
    QVERIFY(mostStates >= 3);
    QString selected;
    for (auto it = m_timeline->cursor().rows().cbegin(); it != m_timeline->cursor().rows().cend();
         ++it) {
        if (it->state == models::LifecycleState::Degraded)
            selected = it.key();
    }
    if (selected.isEmpty())
        selected = m_timeline->cursor().rows().begin().key();
    QVERIFY(m_window->tablePanel()->selectKey(selected));
    QApplication::processEvents(); // the layout settles
    // Into the build tree; RECONSCOPE_UPDATE_DOCS=1 refreshes the README's in docs/.
    const QString dir = qEnvironmentVariableIsSet("RECONSCOPE_UPDATE_DOCS")
        ? QStringLiteral(RECONSCOPE_SOURCE_DIR "/docs")
        : QStringLiteral(RECONSCOPE_BINARY_DIR "/docs");
    QDir().mkpath(dir);
    QVERIFY(m_window->grab().save(dir + u"/replay-window.png"_s, "PNG"));
    QVERIFY(m_window->scrubber()->grab().save(dir + u"/replay-scrubber.png"_s, "PNG"));
}

QTEST_MAIN(tst_ReplayWindow)
#include "tst_replaywindow.moc"
