#include "models/lifecycletracker.h"
#include "ui/stategraphscene.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using namespace reconscope::ui;

using S = LifecycleState;

namespace {

QDateTime at(int second)
{
    return QDateTime::fromSecsSinceEpoch(1'700'000'000 + second, Qt::UTC);
}

// A transition log fed like the session feeds it.
struct Script
{
    TransitionLog log;
    QList<Transition> transitions;
    void move(const QString &key,
              S state,
              int second,
              Observed observed = Observed::Live,
              const QDateTime &enters = QDateTime())
    {
        if (auto t = log.observe(key, state, u"scripted"_s, 1, 1, at(second), observed, enters))
            transitions << *t;
    }
    void remove(const QString &key, int second)
    {
        if (auto t = log.remove(key, at(second)))
            transitions << *t;
    }
};

} // namespace

class tst_StateGraphScene final : public QObject
{
    Q_OBJECT

private slots:
    void designedEdgesDrawn();
    void countsAndCounters();
    void offDesignEdgeDashedAndFlagged();
    void censusAndGapCountedApart();
    void animationRunsAlongTheEdge();
    void selectedPathHighlighted();
    void objectModeCountsOneObject();
    void exports();
};

void tst_StateGraphScene::designedEdgesDrawn()
{
    StateGraphScene scene;
    const QList<GraphEdge> designed{
        { std::nullopt, S::Pending },    { S::Pending, S::Reconciling },
        { S::Reconciling, S::Ready },    { S::Ready, S::Reconciling },
        { S::Reconciling, S::Degraded }, { S::Degraded, S::Reconciling },
        { S::Ready, S::Terminating },    { S::Terminating, std::nullopt },
    };
    for (const GraphEdge &edge : designed) {
        QVERIFY(scene.hasEdge(edge));
        QVERIFY(scene.isEdgeOnDesign(edge));
        QCOMPARE(scene.edgeCounter(edge), 0);
    }
    QVERIFY(!scene.hasEdge({ S::Pending, S::Ready }));
}

void tst_StateGraphScene::countsAndCounters()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"b"_s, S::Pending, 0);
    script.move(u"a"_s, S::Reconciling, 2);
    script.move(u"a"_s, S::Ready, 5);
    script.move(u"a"_s, S::Reconciling, 6);
    script.move(u"a"_s, S::Ready, 8);
    StateGraphScene scene;
    scene.setStatistics(script.log.stats(), at(10));
    QCOMPARE(scene.nodeCounter(S::Pending), 1);
    QCOMPARE(scene.nodeCounter(S::Ready), 1);
    QCOMPARE(scene.nodeCounter(S::Reconciling), 0);
    QCOMPARE(scene.edgeCounter({ std::nullopt, S::Pending }), 2);
    QCOMPARE(scene.edgeCounter({ S::Reconciling, S::Ready }), 2);
    QCOMPARE(scene.edgeCounter({ S::Ready, S::Reconciling }), 1);
    // Reconciling: 3 s then 2 s over two visits.
    QCOMPARE(scene.nodeTimeText(S::Reconciling), u"avg 2.5 s · Σ 5.0 s"_s);
    QCOMPARE(scene.nodeTimeText(S::Terminating), QString());
}

void tst_StateGraphScene::offDesignEdgeDashedAndFlagged()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"a"_s, S::Ready, 1); // skips Reconciling
    StateGraphScene scene;
    QVERIFY(!scene.hasEdge({ S::Pending, S::Ready }));
    scene.setStatistics(script.log.stats(), at(2));
    QVERIFY(scene.hasEdge({ S::Pending, S::Ready }));
    QVERIFY(!scene.isEdgeOnDesign({ S::Pending, S::Ready }));
    QCOMPARE(scene.edgeCounter({ S::Pending, S::Ready }), 1);
    // Drawn dashed in the off-design colour, with a warning sign in its label: render and look.
    QImage image(scene.contentRect().size().toSize(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    scene.render(&painter, QRectF(QPointF(), image.size()), scene.contentRect());
    painter.end();
    int red = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            red += c.red() > 180 && c.green() < 90 && c.blue() < 90;
        }
    }
    QVERIFY2(red > 50, qPrintable(QString::number(red)));
}

// Objects found at connect are the nodes' census, not moves from [*]: no edge counts them and none
// is off-design. A live move counts on its edge; a move found across a watch gap counts apart
// ("+1 gap"), grey and dotted when the designed graph has a path for it, red when not.
void tst_StateGraphScene::censusAndGapCountedApart()
{
    Script script;
    const QList<S> every{ S::Pending, S::Reconciling, S::Ready, S::Degraded, S::Terminating };
    for (int i = 0; i < every.size(); ++i)
        script.move(u"o%1"_s.arg(i), every[i], 0, Observed::AtConnect, at(-3600));
    script.move(u"ready2"_s, S::Ready, 0, Observed::AtConnect); // untimed
    StateGraphScene scene;
    scene.setStatistics(script.log.stats(), at(10));
    for (const S state : every)
        QCOMPARE(scene.nodeCounter(state), state == S::Ready ? 2 : 1);
    QCOMPARE(scene.nodeCensus(S::Ready), 2);
    QCOMPARE(scene.nodeCensus(S::Degraded), 1);
    QCOMPARE(scene.edgeCounter({ std::nullopt, S::Pending }), 0);
    QCOMPARE(scene.edgeCounter({ std::nullopt, S::Ready }), 0);
    QVERIFY(!scene.hasEdge({ std::nullopt, S::Ready }));
    for (const S state : every)
        QVERIFY(!scene.isEdgeAlarming({ std::nullopt, state }));
    // In Ready an hour (by its condition) for the timed object; the untimed one adds nothing.
    QCOMPARE(scene.nodeTimeText(S::Ready), u"avg 1.0 h · Σ 1.0 h"_s);
    QCOMPARE(script.log.stats().totalTransitions(), 0);
    // The census entry animates nothing.
    scene.animateTransition(script.transitions.first());
    QVERIFY(scene.animatingEdges().isEmpty());

    // A real change: one transition on its edge.
    script.move(u"o2"_s, S::Reconciling, 20);
    scene.setStatistics(script.log.stats(), at(21));
    QCOMPARE(scene.edgeCounter({ S::Ready, S::Reconciling }), 1);
    QCOMPARE(scene.nodeCensus(S::Ready), 2); // what the census found stays
    QCOMPARE(scene.nodeCounter(S::Ready), 1);

    // Across a gap: Pending -> Degraded (a path of the design, its states unseen), Terminating ->
    // Ready (no path: off-design).
    script.move(u"o0"_s, S::Degraded, 60, Observed::AcrossGap);
    script.move(u"o4"_s, S::Ready, 60, Observed::AcrossGap);
    scene.setStatistics(script.log.stats(), at(61));
    QVERIFY(scene.hasEdge({ S::Pending, S::Degraded }));
    QCOMPARE(scene.edgeCounter({ S::Pending, S::Degraded }), 0);
    QCOMPARE(scene.edgeGapCounter({ S::Pending, S::Degraded }), 1);
    QVERIFY(!scene.isEdgeAlarming({ S::Pending, S::Degraded }));
    QCOMPARE(scene.edgeGapCounter({ S::Terminating, S::Ready }), 1);
    QVERIFY(scene.isEdgeAlarming({ S::Terminating, S::Ready }));
    QCOMPARE(script.log.stats().totalTransitions(), 3);
    QCOMPARE(script.log.stats().gapTransitions(), 2);
    // To look at (as tst_mainwindowlayout's shots): RECONSCOPE_LAYOUT_SHOTS=dir.
    if (const QString dir = qEnvironmentVariable("RECONSCOPE_LAYOUT_SHOTS"); !dir.isEmpty())
        QVERIFY(scene.exportPng(dir + u"/state-graph-census-gap.png"_s));
    // A selected census object's path has no edge from [*].
    scene.setSelectedObject(u"o1"_s, script.log.history(u"o1"_s), script.log.state(u"o1"_s));
    QVERIFY(!scene.isEdgeHighlighted({ std::nullopt, S::Reconciling }));
    QCOMPARE(scene.highlightedNode(), std::optional<S>(S::Reconciling));
}

void tst_StateGraphScene::animationRunsAlongTheEdge()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"a"_s, S::Reconciling, 1);
    StateGraphScene scene;
    QSignalSpy finished(&scene, &StateGraphScene::animationFinished);
    const GraphEdge edge{ S::Pending, S::Reconciling };
    scene.animateTransition(script.transitions.last());
    QCOMPARE(scene.animatingEdges(), QList<GraphEdge>{ edge });
    const QPointF first = *scene.animationPosition(edge);
    // The dot travels from Pending (left) to Reconciling (right) on the same row.
    QTRY_VERIFY(scene.animationPosition(edge)
                && scene.animationPosition(edge)->x() > first.x() + 40);
    QVERIFY(std::abs(scene.animationPosition(edge)->y() - first.y()) < 1);
    QVERIFY(finished.wait(StateGraphScene::AnimationMs * 4));
    QVERIFY(scene.animatingEdges().isEmpty());
}

void tst_StateGraphScene::selectedPathHighlighted()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"a"_s, S::Reconciling, 1);
    script.move(u"a"_s, S::Degraded, 2);
    script.move(u"b"_s, S::Pending, 2);
    StateGraphScene scene;
    scene.setStatistics(script.log.stats(), at(3));
    scene.setSelectedObject(u"a"_s, script.log.history(u"a"_s), script.log.state(u"a"_s));
    QCOMPARE(scene.highlightedNode(), std::optional<S>(S::Degraded));
    QVERIFY(scene.isEdgeHighlighted({ std::nullopt, S::Pending }));
    QVERIFY(scene.isEdgeHighlighted({ S::Reconciling, S::Degraded }));
    QVERIFY(!scene.isEdgeHighlighted({ S::Reconciling, S::Ready }));
    scene.setSelectedObject(QString(), {}, std::nullopt);
    QCOMPARE(scene.highlightedNode(), std::nullopt);
    QVERIFY(!scene.isEdgeHighlighted({ S::Reconciling, S::Degraded }));
}

void tst_StateGraphScene::objectModeCountsOneObject()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"a"_s, S::Reconciling, 1);
    script.move(u"a"_s, S::Ready, 2);
    script.move(u"a"_s, S::Reconciling, 3);
    script.move(u"a"_s, S::Ready, 4);
    script.move(u"b"_s, S::Pending, 4);
    script.move(u"b"_s, S::Reconciling, 5);
    script.move(u"b"_s, S::Ready, 6);
    StateGraphScene scene;
    scene.setStatistics(script.log.stats(), at(7));
    scene.setSelectedObject(u"a"_s, script.log.history(u"a"_s), script.log.state(u"a"_s));
    QCOMPARE(scene.edgeCounter({ S::Reconciling, S::Ready }), 3);
    QCOMPARE(scene.nodeCounter(S::Ready), 2);
    scene.setMode(StateGraphScene::Mode::Object);
    QCOMPARE(scene.edgeCounter({ S::Reconciling, S::Ready }), 2);
    QCOMPARE(scene.edgeCounter({ std::nullopt, S::Pending }), 1);
    QCOMPARE(scene.nodeCounter(S::Ready), 1);
    QCOMPARE(scene.nodeCounter(S::Pending), 0);
    scene.setMode(StateGraphScene::Mode::Aggregate);
    QCOMPARE(scene.edgeCounter({ std::nullopt, S::Pending }), 2);
}

void tst_StateGraphScene::exports()
{
    Script script;
    script.move(u"a"_s, S::Pending, 0);
    script.move(u"a"_s, S::Reconciling, 1);
    StateGraphScene scene;
    scene.setStatistics(script.log.stats(), at(2));
    QTemporaryDir dir;
    const QString svg = dir.filePath(u"graph.svg"_s);
    const QString png = dir.filePath(u"graph.png"_s);
    QVERIFY(scene.exportSvg(svg));
    QVERIFY(scene.exportPng(png, 1.5));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.startsWith("<?xml"));
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Reconciling"));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(), qRound(scene.contentRect().width() * 1.5));
    QVERIFY(!scene.exportSvg(dir.filePath(u"missing/dir/graph.svg"_s)));
}

QTEST_MAIN(tst_StateGraphScene)
#include "tst_stategraphscene.moc"
