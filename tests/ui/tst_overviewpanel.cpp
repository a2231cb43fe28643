// All custom resources at once (issue 23), the panel: a scripted server serves two resources
// (CustomApps and a CRD's Widgets); the panel has one row per resource with its objects per state
// and the sum on top, the aggregated state graph for the top row, and the row's own graph once a
// resource is selected, which it also asks to watch. The picture is saved for the docs.
#include "../kube/testserver.h"
#include "controller/console/crdoverview.h"
#include "ui/overviewpanel.h"
#include "ui/stategraphscene.h"
#include "uitestsupport.h"

#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope;
using controller::console::CrdOverview;
using controller::console::OverviewResource;
using S = models::LifecycleState;

namespace {

constexpr int Timeout = 20000;

QByteArray object(const QByteArray &apiVersion,
                  const QByteArray &kind,
                  const QByteArray &name,
                  const char *ready,
                  const char *degraded = "False")
{
    QByteArray body = R"({"apiVersion":")" + apiVersion + R"(","kind":")" + kind
        + R"(","metadata":{"name":")" + name
        + R"(","namespace":"team","resourceVersion":"3","generation":1},"spec":{})";
    if (!ready)
        return body + "}";
    return body + R"(,"status":{"observedGeneration":1,"conditions":[{"type":"Ready","status":")"
        + ready + R"(","reason":"R"},{"type":"Degraded","status":")" + degraded
        + R"(","reason":"D"}]}})";
}

QByteArray list(const QList<QByteArray> &items)
{
    QByteArray body
        = R"({"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[)";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

OverviewResource resource(const QString &group, const QString &plural, const QString &kind)
{
    controller::kube::DiscoveredResource discovered;
    discovered.group = group;
    discovered.version = u"v1"_s;
    discovered.plural = plural;
    discovered.kind = kind;
    return { discovered, models::LifecycleMapping::defaults() };
}

} // namespace

class tst_OverviewPanel final : public QObject
{
    Q_OBJECT

private slots:
    void countsPerResourceAndAggregatedGraph();
};

void tst_OverviewPanel::countsPerResourceAndAggregatedGraph()
{
    const QByteArray apps = "infrastructure.internal.net/v1";
    const QByteArray widgets = "example.com/v1";
    const QByteArray appList = list({ object(apps, "CustomApp", "a", nullptr),
                                      object(apps, "CustomApp", "b", "True"),
                                      object(apps, "CustomApp", "c", "True") });
    const QByteArray widgetList = list({ object(widgets, "Widget", "w1", "False", "True"),
                                         object(widgets, "Widget", "w2", "False"),
                                         object(widgets, "Widget", "w3", "True"),
                                         object(widgets, "Widget", "w4", nullptr) });
    TestServer server;
    server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
        const bool isApps = request.path.endsWith(u"/customapps"_s);
        const bool isWidgets = request.path.endsWith(u"/widgets"_s);
        if (!isApps && !isWidgets) {
            TestServer::respond(socket, 404, "application/json", R"({"kind":"Status","code":404})");
        } else if (request.query.hasQueryItem(u"watch"_s)) {
            TestServer::startStream(socket);
        } else {
            TestServer::respond(socket, 200, "application/json", isApps ? appList : widgetList);
        }
    };
    QTemporaryDir dir;
    auto kubeconfig = controller::kube::Kubeconfig::load(
        reconscope::tests::writeTestServerKubeconfig(dir, server.port()));
    QVERIFY(kubeconfig.ok());
    const auto config = kubeconfig->resolve({});
    QVERIFY(config.ok());

    CrdOverview overview;
    overview.setBatchInterval(5);
    ui::OverviewPanel panel(&overview);
    QSignalSpy synced(&overview, &CrdOverview::synced);
    overview.watch(config.value(),
                   { resource(u"infrastructure.internal.net"_s, u"customapps"_s, u"CustomApp"_s),
                     resource(u"example.com"_s, u"widgets"_s, u"Widget"_s) });
    QVERIFY(synced.wait(Timeout));
    panel.refresh();

    // Rows: the sum, then each resource by qualified name; columns: objects, then per state.
    QTreeWidget *table = panel.table();
    QCOMPARE(table->topLevelItemCount(), 3);
    const auto row = [table](int index) {
        QStringList cells;
        for (int column = 0; column < table->columnCount(); ++column)
            cells << table->topLevelItem(index)->text(column);
        return cells.join(u'|');
    };
    // Pending, Reconciling, Ready, Degraded, Terminating, Unknown.
    QCOMPARE(row(0), u"All custom resources|7|2|1|3|1||"_s);
    QCOMPARE(row(1), u"CustomApp|3|1||2|||"_s);
    QCOMPARE(row(2), u"Widget|4|1|1|1|1||"_s);

    // The top row: every resource's graph as one (the census of all seven objects).
    QCOMPARE(panel.shownResource(), QString());
    QCOMPARE(panel.scene()->nodeCounter(S::Ready), 3);
    QCOMPARE(panel.scene()->nodeCensus(S::Pending), 2);

    // A resource's row: its own graph, and a request to watch it.
    QSignalSpy selected(&panel, &ui::OverviewPanel::resourceSelected);
    table->setCurrentItem(table->topLevelItem(2));
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected[0][0].toString(), u"widgets.example.com"_s);
    QCOMPARE(panel.shownResource(), u"widgets.example.com"_s);
    QCOMPARE(panel.scene()->nodeCounter(S::Ready), 1);
    QCOMPARE(panel.scene()->nodeCounter(S::Degraded), 1);
    table->setCurrentItem(table->topLevelItem(0));
    QCOMPARE(panel.shownResource(), QString());
    QCOMPARE(panel.scene()->nodeCounter(S::Ready), 3);

    panel.resize(1100, 420);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QString shots = qEnvironmentVariable("RECONSCOPE_SCREENSHOT_DIR", QDir::tempPath());
    QVERIFY(panel.grab().save(shots + u"/overview-panel.png"_s));
}

QTEST_MAIN(tst_OverviewPanel)
#include "tst_overviewpanel.moc"
