// The console's first list of a large resource: applied over several event-loop turns in slices
// that arrive in the table's sort order (so the sorted proxy takes each as one block at its end),
// ending complete and sorted; watch events that arrive meanwhile wait behind it and win.
#include "controller/cluster/churn.h"
#include "controller/cluster/sim/backgroundcluster.h"
#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/resourcetablepanel.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <memory>

using reconscope::controller::console::ConsoleSession;
using namespace Qt::StringLiterals;
using namespace reconscope;
using namespace reconscope::ui;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
using models::ResourceTableModel;
using nlohmann::json;

namespace {

constexpr int Timeout = 60000;
constexpr int Objects = 6000; // three slices

// Creates `count` CustomApps with shuffled names in namespaces "east" and "west", on the
// cluster's thread; returns the number of failed creates. With `statuses`, three of every four are
// given a status (Ready, not ready, Degraded; the fourth stays Pending).
int seed(cluster::EmbeddedServer *server, int count, bool statuses = false)
{
    int failures = 0;
    QMetaObject::invokeMethod(
        server,
        [server, count, statuses, &failures] {
            cluster::Cluster *store = cluster::clusterOf(*server);
            const apimachinery::ResourceRef namespaces{ {}, u"v1"_s, u"namespaces"_s };
            for (const char *ns : { "east", "west" }) {
                failures += !store->create(namespaces,
                                           {},
                                           json{ { "apiVersion", "v1" },
                                                 { "kind", "Namespace" },
                                                 { "metadata", { { "name", ns } } } });
            }
            const apimachinery::ResourceRef apps{ u"infrastructure.internal.net"_s,
                                                  u"v1"_s,
                                                  u"customapps"_s };
            QRandomGenerator random(20261130);
            for (int i = 0; i < count; ++i) {
                const std::string name
                    = "app-" + std::to_string(random.bounded(1000000)) + "-" + std::to_string(i);
                const QString ns = i % 2 ? u"east"_s : u"west"_s;
                auto created = store->create(
                    apps,
                    ns,
                    json{ { "apiVersion", "infrastructure.internal.net/v1" },
                          { "kind", "CustomApp" },
                          { "metadata", { { "name", name } } },
                          { "spec", { { "image", "nginx:1.27" }, { "replicas", 1 } } } });
                failures += !created.ok();
                if (!created.ok() || !statuses || i % 4 == 0)
                    continue;
                const char *type = i % 4 == 3 ? "Degraded" : "Ready";
                const char *status = i % 4 == 2 ? "False" : "True";
                json object = created->object;
                object["status"] = { { "observedGeneration", 1 },
                                     { "conditions",
                                       { { { "type", type },
                                           { "status", status },
                                           { "reason", "Seeded" + std::to_string(i % 7) },
                                           { "message", "object " + std::to_string(i) },
                                           { "lastTransitionTime", "2026-11-30T10:00:00Z" } } } } };
                const auto written
                    = store->updateStatus(apps, ns, QString::fromStdString(name), object);
                if (!written.ok() && failures++ == 0)
                    qWarning() << written.error().message;
            }
        },
        Qt::BlockingQueuedConnection);
    return failures;
}

// An embedded cluster with no demo and no simulated workloads, started; null when it did not
// start.
std::unique_ptr<cluster::BackgroundCluster> startQuietCluster()
{
    cluster::EmbeddedClusterOptions options;
    options.demo = false;
    options.simulateWorkloads = false;
    auto background = std::make_unique<cluster::BackgroundCluster>(options, u"test-cluster"_s);
    QSignalSpy started(background.get(), &cluster::BackgroundCluster::started);
    if (!background->start().ok() || !started.wait(Timeout))
        return nullptr;
    return background;
}

// Every transition the session announces, appended to `into`.
void collectTransitions(ConsoleSession &session, QList<models::Transition> *into)
{
    QObject::connect(&session,
                     &ConsoleSession::transitionsObserved,
                     &session,
                     [into](const QList<models::Transition> &observed) { *into += observed; });
}

} // namespace

class tst_ConsoleLargeBatch final : public QObject
{
    Q_OBJECT

private slots:
    void firstListInSortedSlices_data();
    void firstListInSortedSlices();
    void watchEventsDuringTheFillWin();
    void firstListInOrderStreams_data();
    void firstListInOrderStreams();
    void resortWhileStreamingHoldsTheList();
    void rowsOverManyTurnsAreTheObjects_data();
    void rowsOverManyTurnsAreTheObjects();
};

void tst_ConsoleLargeBatch::firstListInSortedSlices_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<Qt::SortOrder>("order");
    QTest::newRow("name ascending") << int(ResourceTableModel::NameColumn) << Qt::AscendingOrder;
    QTest::newRow("name descending") << int(ResourceTableModel::NameColumn) << Qt::DescendingOrder;
    QTest::newRow("namespace") << int(ResourceTableModel::NamespaceColumn) << Qt::AscendingOrder;
}

void tst_ConsoleLargeBatch::firstListInSortedSlices()
{
    QFETCH(int, column);
    QFETCH(Qt::SortOrder, order);
    const auto background = startQuietCluster();
    QVERIFY(background);
    QCOMPARE(seed(background->server(), Objects), 0);

    ConsoleSession session;
    ResourceTablePanel panel(session.tableModel());
    panel.view()->sortByColumn(column, order);
    QCOMPARE(session.tableModel()->preferredSortColumn(), column);
    QCOMPARE(session.tableModel()->preferredSortOrder(), order);
    QAbstractItemModelTester modelTester(session.tableModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&session, &ConsoleSession::objectsChanged);
    QSignalSpy proxyInserts(panel.proxy(), &QAbstractItemModel::rowsInserted);
    QList<models::Transition> transitions;
    collectTransitions(session, &transitions);
    panel.show();

    QVERIFY(session.openKubeconfig(background->kubeconfigPath()).ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), Objects, Timeout);
    QCOMPARE(panel.proxy()->rowCount(), Objects);

    // Several slices, none larger than a slice, every key once.
    QVERIFY2(changed.count() >= 3, qPrintable(QString::number(changed.count())));
    QSet<QString> keys;
    for (const auto &arguments : std::as_const(changed)) {
        const QStringList upserted = arguments.at(0).toStringList();
        QVERIFY(upserted.size() <= 2000);
        for (const QString &key : upserted)
            keys.insert(key);
    }
    QCOMPARE(keys.size(), Objects);
    // Each slice came in the table's order: the model's own rows are sorted, and the proxy took
    // each slice as one block.
    QCOMPARE(proxyInserts.count(), changed.count());
    const ResourceTableModel *model = session.tableModel();
    for (int row = 1; row < Objects; ++row) {
        const int order
            = ResourceTableModel::compareRows(*model->rowAt(row - 1), *model->rowAt(row), column);
        QVERIFY2(order == 0 || (order < 0) == (panel.proxy()->sortOrder() == Qt::AscendingOrder),
                 qPrintable(u"row %1"_s.arg(row)));
    }
    // The proxy shows the same order.
    for (int row = 0; row < Objects; row += 97) {
        const QModelIndex source = panel.proxy()->mapToSource(panel.proxy()->index(row, 0));
        QCOMPARE(source.row(), row);
    }
    // Each object's census entry (Pending: no status yet, found at connect: no transition) was
    // announced once, with its slice, as the tracker's log holds it; the tracker's counts are the
    // table's. Nothing says since when the objects are Pending: their time is unknown, never the
    // connect time.
    const models::LifecycleTracker &tracker = session.tracker();
    QCOMPARE(transitions.size(), Objects);
    QSet<QString> moved;
    for (const models::Transition &transition : std::as_const(transitions)) {
        QVERIFY(!transition.from);
        QCOMPARE(transition.observed, models::Observed::AtConnect);
        QCOMPARE(transition.to, models::StateNode(models::LifecycleState::Pending));
        QCOMPARE(tracker.log().history(transition.key), QList<models::Transition>{ transition });
        const models::ResourceRow *row = model->find(transition.key);
        QVERIFY(row);
        QVERIFY(!row->stateSince.isValid());
        QVERIFY(!row->lastTransition.isValid());
        moved.insert(transition.key);
    }
    QCOMPARE(moved.size(), Objects);
    for (int state = 0; state < models::LifecycleStateCount; ++state) {
        const auto s = models::LifecycleState(state);
        QCOMPARE(tracker.stats().objectsIn(s), model->countIn(s));
    }
    QCOMPARE(tracker.stats().censusIn(models::LifecycleState::Pending), Objects);
    QCOMPARE(tracker.stats().totalTransitions(), 0);
}

void tst_ConsoleLargeBatch::firstListInOrderStreams_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<Qt::SortOrder>("order");
    QTest::addColumn<bool>("streams");
    // The list comes by namespace, then name: in the order of a table sorted by namespace; not by
    // name (two namespaces of shuffled names), nor namespaces descending.
    QTest::newRow("namespace") << int(ResourceTableModel::NamespaceColumn) << Qt::AscendingOrder
                               << true;
    QTest::newRow("namespace descending")
        << int(ResourceTableModel::NamespaceColumn) << Qt::DescendingOrder << false;
    QTest::newRow("name") << int(ResourceTableModel::NameColumn) << Qt::AscendingOrder << false;
    QTest::newRow("state") << int(ResourceTableModel::StateColumn) << Qt::AscendingOrder << false;
}

// A first list whose keys come in the order shown goes into the table chunk by chunk while the
// pool derives and tracks the next chunk: when its first rows are announced, the tracker knows
// only the objects of a chunk or two. Any other list is built whole (all tracked) first.
void tst_ConsoleLargeBatch::firstListInOrderStreams()
{
    QFETCH(int, column);
    QFETCH(Qt::SortOrder, order);
    QFETCH(bool, streams);
    const auto background = startQuietCluster();
    QVERIFY(background);
    QCOMPARE(seed(background->server(), Objects), 0);

    ConsoleSession session;
    ResourceTablePanel panel(session.tableModel());
    panel.view()->sortByColumn(column, order);
    QAbstractItemModelTester modelTester(session.tableModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    qsizetype trackedAtFirst = -1;
    int shownAtFirst = -1;
    int announced = 0;
    connect(&session,
            &ConsoleSession::objectsChanged,
            this,
            [&](const QStringList &upserted, const QStringList &) {
                if (trackedAtFirst < 0) {
                    trackedAtFirst = session.tracker().log().objectCount();
                    shownAtFirst = session.tableModel()->rowCount();
                }
                announced += int(upserted.size());
            });
    int transitions = 0;
    connect(
        &session,
        &ConsoleSession::transitionsObserved,
        this,
        [&](const QList<models::Transition> &observed) { transitions += int(observed.size()); });
    panel.show();
    QVERIFY(session.openKubeconfig(background->kubeconfigPath()).ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), Objects, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(!session.tableModel()->listing(), Timeout);

    QVERIFY(shownAtFirst > 0);
    if (streams) {
        // The first chunk (a slice), and the next one when the turn had time to start it.
        QVERIFY2(trackedAtFirst < Objects / 2, qPrintable(QString::number(trackedAtFirst)));
        QVERIFY(shownAtFirst <= trackedAtFirst);
    } else {
        QCOMPARE(trackedAtFirst, Objects);
    }
    QCOMPARE(announced, Objects);
    QCOMPARE(transitions, Objects);
    const ResourceTableModel *model = session.tableModel();
    for (int row = 1; row < Objects; ++row) {
        const int compared
            = ResourceTableModel::compareRows(*model->rowAt(row - 1), *model->rowAt(row), column);
        QVERIFY2(compared == 0 || (compared < 0) == (order == Qt::AscendingOrder),
                 qPrintable(u"row %1"_s.arg(row)));
        QCOMPARE(panel.proxy()->mapToSource(panel.proxy()->index(row, 0)).row(), row);
    }
    QCOMPARE(session.tracker().log().objectCount(), Objects);
}

// The table sorted by another column while a first list streams in: the rest of the list would
// land among the rows shown, so they are taken back and the whole list goes in again in the new
// order, each object announced and its transition sent once.
void tst_ConsoleLargeBatch::resortWhileStreamingHoldsTheList()
{
    const auto background = startQuietCluster();
    QVERIFY(background);
    QCOMPARE(seed(background->server(), Objects), 0);

    ConsoleSession session;
    session.setTurnBudget(std::chrono::nanoseconds(0)); // a chunk a turn
    ResourceTablePanel panel(session.tableModel());
    panel.view()->sortByColumn(ResourceTableModel::NamespaceColumn, Qt::AscendingOrder);
    QAbstractItemModelTester modelTester(session.tableModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(session.tableModel(), &QAbstractItemModel::modelReset);
    QStringList announced;
    bool resorted = false;
    connect(&session,
            &ConsoleSession::objectsChanged,
            this,
            [&](const QStringList &upserted, const QStringList &) {
                announced += upserted;
                if (!resorted) {
                    resorted = true;
                    QTimer::singleShot(0, &panel, [&] {
                        QVERIFY(session.tableModel()->rowCount() < Objects);
                        panel.view()->sortByColumn(ResourceTableModel::NameColumn,
                                                   Qt::AscendingOrder);
                    });
                }
            });
    QList<models::Transition> transitions;
    collectTransitions(session, &transitions);
    panel.show();
    QVERIFY(session.openKubeconfig(background->kubeconfigPath()).ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), Objects, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(!session.tableModel()->listing(), Timeout);

    QVERIFY(resorted);
    QCOMPARE(resets.count(), 1); // the rows shown taken back
    QCOMPARE(announced.size(), Objects);
    QCOMPARE(QSet<QString>(announced.cbegin(), announced.cend()).size(), Objects);
    QCOMPARE(transitions.size(), Objects);
    const ResourceTableModel *model = session.tableModel();
    const models::LifecycleTracker &tracker = session.tracker();
    for (const models::Transition &transition : std::as_const(transitions)) {
        QCOMPARE(tracker.log().history(transition.key), QList<models::Transition>{ transition });
        QCOMPARE(model->find(transition.key)->stateSince, transition.since);
    }
    for (int row = 1; row < Objects; ++row) {
        QVERIFY2(ResourceTableModel::compareRows(
                     *model->rowAt(row - 1), *model->rowAt(row), ResourceTableModel::NameColumn)
                     <= 0,
                 qPrintable(u"row %1"_s.arg(row)));
        QCOMPARE(panel.proxy()->mapToSource(panel.proxy()->index(row, 0)).row(), row);
    }
}

void tst_ConsoleLargeBatch::rowsOverManyTurnsAreTheObjects_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<qint64>("turnBudgetNs");
    // Turns of one chunk each: many sorted runs, merged (names) or found in order already
    // (namespaces: the list's own order); and turns of the default length, whose chunks after the
    // first are derived beside the UI thread.
    QTest::newRow("names, one chunk a turn") << int(ResourceTableModel::NameColumn) << qint64(0);
    QTest::newRow("namespaces, one chunk a turn")
        << int(ResourceTableModel::NamespaceColumn) << qint64(0);
    QTest::newRow("names, default turns")
        << int(ResourceTableModel::NameColumn) << ConsoleSession::DefaultTurnBudgetNs;
}

// Every row of a first list built over many turns (its verdicts derived in chunks, some on another
// thread) is what the object's summary and the lifecycle rules give, once, in order; the tracker
// holds the same verdicts and one transition per object.
void tst_ConsoleLargeBatch::rowsOverManyTurnsAreTheObjects()
{
    QFETCH(int, column);
    QFETCH(qint64, turnBudgetNs);
    constexpr int Count = 4000;
    const auto background = startQuietCluster();
    QVERIFY(background);
    QCOMPARE(seed(background->server(), Count, true), 0);

    ConsoleSession session;
    session.setTurnBudget(std::chrono::nanoseconds(turnBudgetNs));
    ResourceTablePanel panel(session.tableModel());
    panel.view()->sortByColumn(column, Qt::AscendingOrder);
    QAbstractItemModelTester modelTester(session.tableModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<models::Transition> transitions;
    collectTransitions(session, &transitions);
    QVERIFY(session.openKubeconfig(background->kubeconfigPath()).ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), Count, Timeout);
    QTRY_VERIFY_WITH_TIMEOUT(!session.tableModel()->listing(), Timeout);
    QCOMPARE(panel.proxy()->rowCount(), Count);

    const ResourceTableModel *model = session.tableModel();
    const models::LifecycleTracker &tracker = session.tracker();
    const models::LifecycleMapping &mapping = session.mapping();
    std::array<int, models::LifecycleStateCount> states{};
    for (int row = 0; row < Count; ++row) {
        const models::ResourceRow &shown = *model->rowAt(row);
        if (row > 0)
            QVERIFY2(ResourceTableModel::compareRows(*model->rowAt(row - 1), shown, column) <= 0,
                     qPrintable(u"row %1"_s.arg(row)));
        QCOMPARE(panel.proxy()->mapToSource(panel.proxy()->index(row, 0)).row(), row);
        const controller::kube::InformerEntry *entry = session.informer()->entry(shown.key);
        QVERIFY2(entry, qPrintable(shown.key));
        const models::LifecycleVerdict verdict = models::deriveLifecycle(entry->summary, mapping);
        models::ResourceRow expected = models::ResourceRow::fromSummary(entry->summary, verdict);
        expected.stateSince = tracker.log().stateSince(shown.key);
        expected.lastTransition = expected.stateSince;
        QCOMPARE(shown.key, expected.key);
        QCOMPARE(shown.namespaceName, expected.namespaceName);
        QCOMPARE(shown.name, expected.name);
        QCOMPARE(shown.resourceVersion, expected.resourceVersion);
        QCOMPARE(shown.generation, expected.generation);
        QCOMPARE(shown.observedGeneration, expected.observedGeneration);
        QCOMPARE(shown.creationTimestamp, expected.creationTimestamp);
        QCOMPARE(shown.state, expected.state);
        QCOMPARE(shown.reason, expected.reason);
        QCOMPARE(shown.message, expected.message);
        // Found at connect: in the state since its deciding condition says (or unknown).
        QCOMPARE(shown.stateSince, verdict.since);
        QCOMPARE(shown.sinceCondition, verdict.sinceCondition);
        QCOMPARE(shown.stateSince, expected.stateSince);
        QCOMPARE(shown.lastTransition, expected.lastTransition);
        QCOMPARE(tracker.verdict(shown.key), verdict);
        QCOMPARE(tracker.log().historySize(shown.key), 1);
        ++states[std::size_t(shown.state)];
    }
    // The seeded mix: a quarter each Pending, Ready, Reconciling (not ready) and Degraded.
    QCOMPARE(states[std::size_t(models::LifecycleState::Pending)], Count / 4);
    QCOMPARE(states[std::size_t(models::LifecycleState::Ready)], Count / 4);
    QCOMPARE(states[std::size_t(models::LifecycleState::Reconciling)], Count / 4);
    QCOMPARE(states[std::size_t(models::LifecycleState::Degraded)], Count / 4);
    for (int state = 0; state < models::LifecycleStateCount; ++state)
        QCOMPARE(model->countIn(models::LifecycleState(state)), states[std::size_t(state)]);
    QCOMPARE(tracker.log().objectCount(), Count);
    QCOMPARE(transitions.size(), Count);
    QSet<QString> announced;
    for (const models::Transition &transition : std::as_const(transitions)) {
        QVERIFY(!transition.from);
        QCOMPARE(tracker.log().history(transition.key), QList<models::Transition>{ transition });
        announced.insert(transition.key);
    }
    QCOMPARE(announced.size(), Count);
}

void tst_ConsoleLargeBatch::watchEventsDuringTheFillWin()
{
    const auto background = startQuietCluster();
    QVERIFY(background);
    QCOMPARE(seed(background->server(), Objects), 0);
    cluster::ChurnMutator *churn = nullptr;
    QMetaObject::invokeMethod(
        background->server(),
        [&] {
            cluster::Cluster *store = cluster::clusterOf(*background->server());
            churn = new cluster::ChurnMutator(store, store);
            QVERIFY(churn->start(u"customapps"_s, 400).ok());
        },
        Qt::BlockingQueuedConnection);

    ConsoleSession session;
    ResourceTablePanel panel(session.tableModel());
    QAbstractItemModelTester proxyTester(panel.proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.show();
    QVERIFY(session.openKubeconfig(background->kubeconfigPath()).ok());
    QTRY_COMPARE_WITH_TIMEOUT(session.tableModel()->rowCount(), Objects, Timeout);
    // Let some changes arrive after the fill too, then stop them.
    QSignalSpy changed(&session, &ConsoleSession::objectsChanged);
    QVERIFY(changed.wait(Timeout));
    QMetaObject::invokeMethod(
        background->server(), [&] { churn->stop(); }, Qt::BlockingQueuedConnection);
    qint64 applied = 0;
    QMetaObject::invokeMethod(
        background->server(), [&] { applied = churn->applied(); }, Qt::BlockingQueuedConnection);
    QVERIFY(applied > 0);

    // Once the informer has caught up, every row shows the informer's latest version.
    const auto caughtUp = [&] {
        const ResourceTableModel *model = session.tableModel();
        for (int row = 0; row < model->rowCount(); ++row) {
            const auto *entry = session.informer()->entry(model->rowAt(row)->key);
            if (!entry || entry->summary.resourceVersion != model->rowAt(row)->resourceVersion)
                return false;
        }
        return model->rowCount() == Objects;
    };
    QTRY_VERIFY_WITH_TIMEOUT(caughtUp(), Timeout);
    int churned = 0;
    for (int row = 0; row < Objects; ++row) {
        const auto *entry = session.informer()->entry(session.tableModel()->rowAt(row)->key);
        for (const auto &condition : entry->summary.conditions)
            churned += condition.type == u"Churn";
    }
    QVERIFY(churned > 0);
    QCOMPARE(panel.proxy()->rowCount(), Objects);
}

QTEST_MAIN(tst_ConsoleLargeBatch)
#include "tst_consolelargebatch.moc"
