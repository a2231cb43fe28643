// The Problems panel (issue 23) over the overview's informers: a scripted server lists CustomApps
// in every kind of trouble (two Degraded, a deletion held by a finalizer, a stale status, no
// status) and a healthy one; the panel lists them in severity order, oldest first within a kind,
// once each threshold has passed at the injected clock's time; selecting a row names its object.
// The picture is saved for the docs (RECONSCOPE_SCREENSHOT_DIR).
#include "../kube/testserver.h"
#include "controller/console/consolesession.h"
#include "controller/console/crdoverview.h"
#include "models/problemlistmodel.h"
#include "ui/problemspanel.h"
#include "uitestsupport.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QTreeView>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope;
using controller::console::CrdOverview;
using controller::console::OverviewResource;
using models::ProblemListModel;

namespace {

constexpr int Timeout = 20000;
const QDateTime Created = QDateTime::fromString(u"2026-11-30T00:00:00Z"_s, Qt::ISODate);

// A CustomApp created at `Created`, generation `generation`; `status` a JSON object or empty.
QByteArray app(const QByteArray &name,
               const QByteArray &status,
               int generation = 1,
               const QByteArray &extraMeta = {})
{
    QByteArray body = R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",)"
                      R"("metadata":{"name":")"
        + name + R"(","namespace":"shop","resourceVersion":"5","generation":)"
        + QByteArray::number(generation) + R"(,"creationTimestamp":"2026-11-30T00:00:00Z")"
        + extraMeta + R"(},"spec":{"image":"nginx:1.27"})";
    if (!status.isEmpty())
        body += R"(,"status":)" + status;
    return body + "}";
}

QByteArray status(const char *ready, const char *degraded, const char *since)
{
    return R"({"observedGeneration":1,"conditions":[{"type":"Ready","status":")" + QByteArray(ready)
        + R"(","reason":"Waiting","message":"m","lastTransitionTime":")" + since
        + R"("},{"type":"Degraded","status":")" + degraded
        + R"(","reason":"QuotaExceeded","message":"pods exceed the quota","lastTransitionTime":")"
        + since + R"("}]})";
}

OverviewResource customApps()
{
    controller::kube::DiscoveredResource resource;
    resource.group = u"infrastructure.internal.net"_s;
    resource.version = u"v1"_s;
    resource.plural = u"customapps"_s;
    resource.kind = u"CustomApp"_s;
    resource.namespaced = true;
    return { resource, models::LifecycleMapping::forCustomApp() };
}

} // namespace

class tst_ProblemsPanel final : public QObject
{
    Q_OBJECT

private slots:
    void listsInSeverityOrderAndSelects();
};

void tst_ProblemsPanel::listsInSeverityOrderAndSelects()
{
    TestServer server;
    const QList<QByteArray> objects{
        app("ready", status("True", "False", "2026-11-30T00:00:30Z")),
        app("fresh", {}),
        app("resized", status("True", "False", "2026-11-30T00:00:30Z"), 2),
        app("quota-new", status("False", "True", "2026-11-30T00:02:00Z")),
        app("old",
            status("True", "False", "2026-11-30T00:00:30Z"),
            1,
            R"(,"deletionTimestamp":"2026-11-30T00:00:40Z","finalizers":["example.com/hold"])"),
        app("quota-old", status("False", "True", "2026-11-30T00:01:00Z")),
    };
    server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (!request.path.endsWith(u"/customapps"_s)) {
            TestServer::respond(socket, 404, "application/json", R"({"kind":"Status","code":404})");
            return;
        }
        if (!request.query.hasQueryItem(u"watch"_s)) {
            TestServer::respond(
                socket, 200, "application/json", reconscope::tests::customAppListBody(objects, 10));
            return;
        }
        TestServer::startStream(socket);
    };
    QTemporaryDir dir;
    auto kubeconfig = controller::kube::Kubeconfig::load(
        reconscope::tests::writeTestServerKubeconfig(dir, server.port()));
    QVERIFY(kubeconfig.ok());
    auto config = kubeconfig->resolve({});
    QVERIFY(config.ok());

    QDateTime now = Created.addSecs(60); // when the overview sees the objects
    CrdOverview overview;
    overview.setClock([&now] { return now; });
    overview.setBatchInterval(5);
    ui::ProblemsPanel panel(&overview);
    QAbstractItemModelTester tester(panel.model());
    QSignalSpy synced(&overview, &CrdOverview::synced);
    overview.watch(config.value(), { customApps() });
    QVERIFY(synced.wait(Timeout));
    QCOMPARE(overview.objectCount(u"customapps.infrastructure.internal.net"_s), 6);

    // A minute after creation, with the default thresholds: only the Degraded ones.
    panel.refresh();
    const auto rows = [&panel] {
        QStringList lines;
        const ProblemListModel *model = panel.model();
        for (int row = 0; row < model->rowCount(); ++row)
            lines << model->index(row, ProblemListModel::KindColumn).data().toString() + u' '
                    + model->index(row, ProblemListModel::ObjectColumn).data().toString();
        return lines;
    };
    QCOMPARE(rows(), QStringList({ u"Degraded shop/quota-old"_s, u"Degraded shop/quota-new"_s }));

    // Ten minutes on, thresholds shortened: every kind, in order.
    models::ProblemThresholds thresholds;
    thresholds.terminating = std::chrono::seconds(120);
    thresholds.stale = std::chrono::seconds(30);
    thresholds.pending = std::chrono::seconds(60);
    now = Created.addSecs(600);
    panel.setThresholds(thresholds);
    QCOMPARE(rows(),
             QStringList({ u"Degraded shop/quota-old"_s,
                           u"Degraded shop/quota-new"_s,
                           u"Terminating shop/old"_s,
                           u"Stale status shop/resized"_s,
                           u"Pending shop/fresh"_s }));
    const ProblemListModel *model = panel.model();
    QCOMPARE(model->index(0, ProblemListModel::AgeColumn).data().toString(), u"9m0s"_s);
    QCOMPARE(model->index(0, ProblemListModel::CauseColumn).data().toString(),
             u"Degraded for 9m0s: QuotaExceeded: pods exceed the quota"_s);
    QCOMPARE(model->index(3, ProblemListModel::CauseColumn).data().toString(),
             u"status stale for 9m0s: generation 2, observed 1"_s);
    QVERIFY(panel.summaryLabel()->text().startsWith(
        u"2 Degraded · 1 Terminating · 1 Stale status · 1 Pending"_s));

    // Selecting a row names its resource and object.
    QSignalSpy selected(&panel, &ui::ProblemsPanel::objectSelected);
    panel.view()->setCurrentIndex(model->index(2, 0));
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected[0][0].toString(), u"customapps.infrastructure.internal.net"_s);
    QCOMPARE(selected[0][1].toString(), u"shop/old"_s);
    // A refresh keeps the selection (rows change data, not identity).
    now = now.addSecs(5);
    panel.refresh();
    QCOMPARE(panel.view()->currentIndex().row(), 2);
    QCOMPARE(selected.size(), 1);

    panel.resize(1100, 230);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QString shots = qEnvironmentVariable("RECONSCOPE_SCREENSHOT_DIR", QDir::tempPath());
    QVERIFY(panel.grab().save(shots + u"/problems-panel.png"_s));
}

QTEST_MAIN(tst_ProblemsPanel)
#include "tst_problemspanel.moc"
