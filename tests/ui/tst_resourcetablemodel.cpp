#include "models/resourcetablemodel.h"

#include <QAbstractItemModelTester>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <array>
#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

ResourceRow row(const QString &name,
                LifecycleState state,
                std::optional<qint64> generation = 1,
                std::optional<qint64> observed = 1)
{
    ResourceRow row;
    row.name = name;
    row.namespaceName = u"demo"_s;
    row.key = objectKey(u"demo"_s, name);
    row.generation = generation;
    row.observedGeneration = observed;
    row.creationTimestamp = QDateTime::fromSecsSinceEpoch(1'700'000'000, Qt::UTC);
    row.state = state;
    row.reason = u"reason of "_s + name;
    return row;
}

} // namespace

class tst_ResourceTableModel final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void batchInsertsContiguously();
    void removalsInRanges();
    void upsertReplacesInPlace();
    void keyInBothListsIsRemoved();
    void randomBatchesKeepIndexAndCounts();
    void countsPerState();
    void takeRowsEmptiesTheModel();
    void listingProgress();
    void reserveGrowsGeometrically();
    void staleFlag_data();
    void staleFlag();
    void formatAge_data();
    void formatAge();
    void movedSaysWhereItsTimeComesFrom();
    void sortedProxyGetsOneInsertPerBatch();
    void int64GenerationsExact();
    void fiftyThousandObjectsPerTick();
    void firstFillKeepsFirstPlacesAndLastStates();
    void ranksFollowRowsAppendedInOrder();
    void fightsColumnShowsTheObjectsFights();

private:
    std::unique_ptr<ResourceTableModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

void tst_ResourceTableModel::init()
{
    m_model = std::make_unique<ResourceTableModel>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void tst_ResourceTableModel::cleanup()
{
    m_tester.reset();
    m_model.reset();
}

void tst_ResourceTableModel::fightsColumnShowsTheObjectsFights()
{
    QList<ResourceRow> rows;
    for (int i = 0; i < 5; ++i)
        rows << row(u"app-%1"_s.arg(i), LifecycleState::Ready);
    m_model->applyBatch(rows, {});
    QCOMPARE(m_model->headerData(ResourceTableModel::FightsColumn, Qt::Horizontal, Qt::DisplayRole)
                 .toString(),
             u"Fights"_s);
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    QSignalSpy any(m_model.get(), &ResourceTableModel::hasFightsChanged);
    QVERIFY(!m_model->hasFights());
    const QString one = u".spec.replicas: \"gitops\" and \"reconciler\" took it"_s;
    const QString two = u".spec.image: \"gitops\" and \"helm\" took it"_s;
    m_model->setFights({ { u"demo/app-1"_s, { one } }, { u"demo/app-3"_s, { one, two } } });
    QCOMPARE(changed.size(), 2);
    auto cell = [this](int row, int role = Qt::DisplayRole) {
        return m_model->index(row, ResourceTableModel::FightsColumn).data(role);
    };
    QCOMPARE(cell(0).toString(), QString());
    QCOMPARE(cell(1).toString(), one);
    QCOMPARE(cell(3).toString(), one + u" (+1 more)"_s);
    QCOMPARE(cell(3, Qt::ToolTipRole).toString(), one + u'\n' + two);
    QCOMPARE(cell(3, ResourceTableModel::SortRole).toInt(), 2);
    QCOMPARE(m_model->fightsOf(u"demo/app-3"_s).size(), 2);
    QCOMPARE(any.size(), 1);
    QVERIFY(m_model->hasFights());

    // Only the rows whose fights changed are announced; a fight that stopped clears its cell.
    changed.clear();
    m_model->setFights({ { u"demo/app-3"_s, { one, two } }, { u"demo/gone"_s, { two } } });
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
    QCOMPARE(cell(1).toString(), QString());

    // A sorting view orders by the number of fights.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(m_model.get());
    proxy.setSortRole(ResourceTableModel::SortRole);
    proxy.sort(ResourceTableModel::FightsColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, ResourceTableModel::NameColumn).data().toString(), u"app-3"_s);

    m_model->setFights({});
    QCOMPARE(any.size(), 2);
    QCOMPARE(any.last().first().toBool(), false);
}

void tst_ResourceTableModel::batchInsertsContiguously()
{
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    QList<ResourceRow> rows;
    for (int i = 0; i < 100; ++i)
        rows << row(u"app-%1"_s.arg(i), LifecycleState::Pending);
    m_model->applyBatch(rows, {});
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.first().at(1).toInt(), 0);
    QCOMPARE(inserted.first().at(2).toInt(), 99);
    QCOMPARE(m_model->rowCount(), 100);
    QCOMPARE(m_model->rowOf(u"demo/app-42"_s), 42);
    QCOMPARE(m_model->index(42, ResourceTableModel::NameColumn).data().toString(), u"app-42"_s);
    QCOMPARE(m_model->index(42, ResourceTableModel::StateColumn).data().toString(), u"Pending"_s);
    QCOMPARE(m_model->index(42, ResourceTableModel::GenerationColumn).data().toString(),
             u"1 / 1"_s);
}

void tst_ResourceTableModel::removalsInRanges()
{
    QList<ResourceRow> rows;
    for (int i = 0; i < 10; ++i)
        rows << row(u"r%1"_s.arg(i), LifecycleState::Ready);
    m_model->applyBatch(rows, {});
    QSignalSpy removed(m_model.get(), &QAbstractItemModel::rowsRemoved);
    // Rows 2,3,4 and 7,8: two contiguous ranges, removed bottom first.
    m_model->applyBatch({},
                        { u"demo/r2"_s,
                          u"demo/r8"_s,
                          u"demo/r3"_s,
                          u"demo/r7"_s,
                          u"demo/r4"_s,
                          u"demo/unknown"_s });
    QCOMPARE(removed.size(), 2);
    QCOMPARE(removed.at(0).at(1).toInt(), 7);
    QCOMPARE(removed.at(0).at(2).toInt(), 8);
    QCOMPARE(removed.at(1).at(1).toInt(), 2);
    QCOMPARE(removed.at(1).at(2).toInt(), 4);
    QCOMPARE(m_model->rowCount(), 5);
    const QStringList expected{ u"r0"_s, u"r1"_s, u"r5"_s, u"r6"_s, u"r9"_s };
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(m_model->index(i, 0).data().toString(), expected[i]);
        QCOMPARE(m_model->rowOf(u"demo/"_s + expected[i]), i);
    }
    QCOMPARE(m_model->countIn(LifecycleState::Ready), 5);
}

void tst_ResourceTableModel::upsertReplacesInPlace()
{
    m_model->applyBatch(
        { row(u"a"_s, LifecycleState::Pending), row(u"b"_s, LifecycleState::Pending) }, {});
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    m_model->applyBatch({ row(u"b"_s, LifecycleState::Ready),
                          row(u"c"_s, LifecycleState::Pending),
                          row(u"c"_s, LifecycleState::Reconciling) },
                        {});
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
    QCOMPARE(m_model->rowCount(), 3);
    QCOMPARE(m_model->find(u"demo/b"_s)->state, LifecycleState::Ready);
    // The later entry of a key in one batch wins.
    QCOMPARE(m_model->find(u"demo/c"_s)->state, LifecycleState::Reconciling);
}

void tst_ResourceTableModel::keyInBothListsIsRemoved()
{
    m_model->applyBatch({ row(u"a"_s, LifecycleState::Pending) }, {});
    m_model->applyBatch({ row(u"a"_s, LifecycleState::Ready), row(u"b"_s, LifecycleState::Ready) },
                        { u"demo/a"_s });
    QCOMPARE(m_model->rowCount(), 1);
    QCOMPARE(m_model->rowOf(u"demo/a"_s), -1);
    QCOMPARE(m_model->rowOf(u"demo/b"_s), 0);
}

void tst_ResourceTableModel::randomBatchesKeepIndexAndCounts()
{
    // Batches of new, changed, repeated and removed keys (the tester watches every signal): each
    // key is found at its row with the last state given, and the counts add up.
    QRandomGenerator random(20261130);
    QHash<QString, LifecycleState> expected;
    for (int round = 0; round < 200; ++round) {
        QList<ResourceRow> upserts;
        QStringList removals;
        QHash<QString, LifecycleState> next = expected;
        const int size = int(random.bounded(1, 40));
        for (int i = 0; i < size; ++i) {
            const QString name = u"app-%1"_s.arg(random.bounded(60));
            const QString key = objectKey(u"demo"_s, name);
            if (random.bounded(4) == 0) {
                removals << key;
            } else {
                const auto state = LifecycleState(random.bounded(LifecycleStateCount));
                upserts << row(name, state);
                next.insert(key, state);
            }
        }
        for (const QString &key : std::as_const(removals))
            next.remove(key);
        m_model->applyBatch(upserts, removals);
        expected = next;
        QCOMPARE(m_model->rowCount(), int(expected.size()));
        std::array<int, LifecycleStateCount> counts{};
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            const int at = m_model->rowOf(it.key());
            QVERIFY2(at >= 0, qPrintable(it.key()));
            QCOMPARE(m_model->rowAt(at)->key, it.key());
            QCOMPARE(m_model->rowAt(at)->state, it.value());
            counts[std::size_t(it.value())] += 1;
        }
        for (int state = 0; state < LifecycleStateCount; ++state)
            QCOMPARE(m_model->countIn(LifecycleState(state)), counts[std::size_t(state)]);
    }
}

void tst_ResourceTableModel::takeRowsEmptiesTheModel()
{
    m_model->applyBatch({ row(u"b"_s, LifecycleState::Pending),
                          row(u"a"_s, LifecycleState::Ready),
                          row(u"c"_s, LifecycleState::Degraded) },
                        {});
    QSignalSpy resets(m_model.get(), &QAbstractItemModel::modelReset);
    const QList<ResourceRow> taken = m_model->takeRows();
    QCOMPARE(resets.size(), 1);
    QCOMPARE(taken.size(), 3);
    QCOMPARE(taken.at(0).key, u"demo/b"_s); // in the model's order
    QCOMPARE(taken.at(2).state, LifecycleState::Degraded);
    QCOMPARE(m_model->rowCount(), 0);
    QCOMPARE(m_model->rowOf(u"demo/a"_s), -1);
    for (int state = 0; state < LifecycleStateCount; ++state)
        QCOMPARE(m_model->countIn(LifecycleState(state)), 0);
    // They can go in again.
    m_model->applyBatch(taken, {});
    QCOMPARE(m_model->rowOf(u"demo/c"_s), 2);
    QCOMPARE(m_model->countIn(LifecycleState::Ready), 1);
    QVERIFY(m_model->takeRows().size() == 3 && m_model->takeRows().isEmpty());
    QCOMPARE(resets.size(), 2); // nothing to take: no reset
}

void tst_ResourceTableModel::listingProgress()
{
    QSignalSpy changed(m_model.get(), &ResourceTableModel::listingChanged);
    QCOMPARE(m_model->listing(), std::nullopt);
    m_model->setListing(0);
    m_model->setListing(0);
    m_model->setListing(2300);
    QCOMPARE(m_model->listing(), std::optional<qsizetype>(2300));
    m_model->setListing(std::nullopt);
    QCOMPARE(m_model->listing(), std::nullopt);
    QCOMPARE(changed.size(), 3);
}

void tst_ResourceTableModel::reserveGrowsGeometrically()
{
    m_model->reserve(1000);
    QList<ResourceRow> rows;
    for (int i = 0; i < 1000; ++i)
        rows << row(u"r%1"_s.arg(i, 4, 10, QChar(u'0')), LifecycleState::Ready);
    m_model->applyBatch(rows, {});
    // A list arriving batch by batch: rows are there, so room for half as many again.
    m_model->reserve(1100);
    rows.clear();
    for (int i = 1000; i < 1500; ++i)
        rows << row(u"r%1"_s.arg(i, 4, 10, QChar(u'0')), LifecycleState::Ready);
    m_model->applyBatch(rows, {});
    QCOMPARE(m_model->rowCount(), 1500);
    QCOMPARE(m_model->rowOf(u"demo/r1499"_s), 1499);
    QCOMPARE(m_model->find(u"demo/r0007"_s)->name, u"r0007"_s);
}

void tst_ResourceTableModel::countsPerState()
{
    m_model->applyBatch({ row(u"a"_s, LifecycleState::Pending),
                          row(u"b"_s, LifecycleState::Pending),
                          row(u"c"_s, LifecycleState::Degraded) },
                        {});
    QCOMPARE(m_model->countIn(LifecycleState::Pending), 2);
    m_model->applyBatch({ row(u"a"_s, LifecycleState::Ready) }, { u"demo/c"_s });
    QCOMPARE(m_model->countIn(LifecycleState::Pending), 1);
    QCOMPARE(m_model->countIn(LifecycleState::Ready), 1);
    QCOMPARE(m_model->countIn(LifecycleState::Degraded), 0);
    m_model->clear();
    QCOMPARE(m_model->countIn(LifecycleState::Pending), 0);
    QCOMPARE(m_model->rowCount(), 0);
}

void tst_ResourceTableModel::staleFlag_data()
{
    QTest::addColumn<std::optional<qint64>>("generation");
    QTest::addColumn<std::optional<qint64>>("observed");
    QTest::addColumn<bool>("stale");
    QTest::newRow("equal") << std::optional<qint64>(3) << std::optional<qint64>(3) << false;
    QTest::newRow("behind") << std::optional<qint64>(3) << std::optional<qint64>(2) << true;
    QTest::newRow("crd default -1")
        << std::optional<qint64>(1) << std::optional<qint64>(-1) << true;
    QTest::newRow("no status") << std::optional<qint64>(1) << std::optional<qint64>() << false;
    QTest::newRow("ahead") << std::optional<qint64>(1) << std::optional<qint64>(2) << false;
}

void tst_ResourceTableModel::staleFlag()
{
    QFETCH(std::optional<qint64>, generation);
    QFETCH(std::optional<qint64>, observed);
    QFETCH(bool, stale);
    m_model->applyBatch({ row(u"x"_s, LifecycleState::Ready, generation, observed) }, {});
    QCOMPARE(m_model->index(0, 0).data(ResourceTableModel::StaleRole).toBool(), stale);
}

void tst_ResourceTableModel::formatAge_data()
{
    QTest::addColumn<qint64>("msecs");
    QTest::addColumn<QString>("text");
    QTest::newRow("negative") << qint64(-5000) << u"0s"_s;
    QTest::newRow("seconds") << qint64(59'000) << u"59s"_s;
    QTest::newRow("119s") << qint64(119'999) << u"119s"_s;
    QTest::newRow("minutes") << qint64(120'000) << u"2m"_s;
    QTest::newRow("hours") << qint64(3 * 3600'000) << u"3h"_s;
    QTest::newRow("days") << qint64(5 * 86400'000LL) << u"5d"_s;
}

void tst_ResourceTableModel::formatAge()
{
    QFETCH(qint64, msecs);
    QFETCH(QString, text);
    QCOMPARE(ResourceTableModel::formatAge(msecs), text);
}

// A move seen: "12s ago". Not seen (the census, a move across a watch gap): the condition's
// lastTransitionTime, named, or "—" when the object gives none, never the connect time.
void tst_ResourceTableModel::movedSaysWhereItsTimeComesFrom()
{
    const QDateTime now = QDateTime::fromSecsSinceEpoch(1'700'010'000, Qt::UTC);
    ResourceRow seen = row(u"seen"_s, LifecycleState::Ready);
    seen.stateSince = seen.lastTransition = now.addSecs(-12);
    ResourceRow reported = row(u"reported"_s, LifecycleState::Degraded);
    reported.stateSince = reported.lastTransition = now.addSecs(-3 * 3600);
    reported.sinceCondition = u"Degraded"_s;
    const ResourceRow unknown = row(u"unknown"_s, LifecycleState::Pending);
    m_model->setNow(now);
    m_model->applyBatch({ seen, reported, unknown }, {});
    const auto moved = [this](int row, int role = Qt::DisplayRole) {
        return m_model->index(row, ResourceTableModel::LastTransitionColumn).data(role).toString();
    };
    QCOMPARE(moved(0), u"12s ago"_s);
    QCOMPARE(moved(1), u"3h ago (Degraded)"_s);
    QVERIFY(moved(1, Qt::ToolTipRole).contains(u"Degraded condition's lastTransitionTime"_s));
    QCOMPARE(moved(2), u"—"_s);
    QVERIFY(moved(2, Qt::ToolTipRole).startsWith(u"Unknown"_s));
}

void tst_ResourceTableModel::sortedProxyGetsOneInsertPerBatch()
{
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(m_model.get());
    proxy.setSortRole(ResourceTableModel::SortRole);
    proxy.sort(ResourceTableModel::NameColumn, Qt::DescendingOrder);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<ResourceRow> rows;
    for (int i = 0; i < 2000; ++i)
        rows << row(u"n%1"_s.arg(i, 5, 10, QLatin1Char('0')), LifecycleState::Pending);
    QSignalSpy sourceInserts(m_model.get(), &QAbstractItemModel::rowsInserted);
    QElapsedTimer timer;
    timer.start();
    m_model->applyBatch(rows, {});
    qInfo("2000 rows into a live-sorted proxy in %lld ms", timer.elapsed());
    QCOMPARE(sourceInserts.size(), 1);
    QCOMPARE(proxy.rowCount(), 2000);
    QCOMPARE(proxy.index(0, 0).data().toString(), u"n01999"_s);
    QCOMPARE(proxy.index(1999, 0).data().toString(), u"n00000"_s);
    // A state change re-sorts in place.
    proxy.sort(ResourceTableModel::StateColumn, Qt::DescendingOrder);
    m_model->applyBatch({ row(u"n00007"_s, LifecycleState::Terminating) }, {});
    QCOMPARE(proxy.index(0, 0).data().toString(), u"n00007"_s);
}

void tst_ResourceTableModel::int64GenerationsExact()
{
    constexpr qint64 big = 9007199254740993LL; // 2^53 + 1: not representable as a double
    m_model->applyBatch({ row(u"big"_s, LifecycleState::Reconciling, big, big - 1) }, {});
    QCOMPARE(m_model->index(0, ResourceTableModel::GenerationColumn).data().toString(),
             u"9007199254740993 / 9007199254740992"_s);
    QCOMPARE(m_model->index(0, ResourceTableModel::GenerationColumn)
                 .data(ResourceTableModel::SortRole)
                 .toLongLong(),
             big);
    QVERIFY(m_model->index(0, 0).data(ResourceTableModel::StaleRole).toBool());
}

void tst_ResourceTableModel::fiftyThousandObjectsPerTick()
{
    // The informer's first batch of 50k objects, then ticks of 150 changes (5k events/s at ~30 ms
    // per tick) into a proxy sorted by state: the UI thread's work per tick.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(m_model.get());
    proxy.setSortRole(ResourceTableModel::SortRole);
    proxy.sort(ResourceTableModel::StateColumn);
    m_tester.reset(); // the tester's per-change checks are O(rows): measure the model alone
    QList<ResourceRow> rows;
    rows.reserve(50'000);
    for (int i = 0; i < 50'000; ++i)
        rows << row(u"o%1"_s.arg(i), LifecycleState::Pending);
    QElapsedTimer timer;
    timer.start();
    m_model->applyBatch(rows, {});
    const qint64 firstBatch = timer.elapsed();
    QCOMPARE(proxy.rowCount(), 50'000);
    qint64 worstTick = 0;
    QSet<QString> expected;
    for (int i = 0; i < 50'000; ++i)
        expected.insert(u"demo/o%1"_s.arg(i));
    for (int tick = 0; tick < 20; ++tick) {
        QList<ResourceRow> changes;
        QStringList removals;
        for (int i = 0; i < 140; ++i)
            changes << row(u"o%1"_s.arg((tick * 977 + i * 331) % 50'000),
                           LifecycleState((tick + i) % 5));
        for (int i = 0; i < 5; ++i)
            changes << row(u"new-%1-%2"_s.arg(tick).arg(i), LifecycleState::Pending);
        for (int i = 0; i < 5; ++i)
            removals << u"demo/o%1"_s.arg(tick * 5 + i);
        for (const ResourceRow &change : std::as_const(changes))
            expected.insert(change.key);
        for (const QString &key : std::as_const(removals))
            expected.remove(key);
        timer.restart();
        m_model->applyBatch(changes, removals);
        worstTick = std::max(worstTick, timer.elapsed());
    }
    qInfo("50k rows: first batch %lld ms, worst tick of 150 changes %lld ms (sorted proxy)",
          firstBatch,
          worstTick);
    QCOMPARE(m_model->rowCount(), int(expected.size()));
    QCOMPARE(proxy.rowCount(), int(expected.size()));
    for (const QString &key : std::as_const(expected))
        QVERIFY(m_model->rowOf(key) >= 0);
    QVERIFY2(worstTick < 1000, qPrintable(QString::number(worstTick)));
}

// A first fill large enough for one reset, with a key given twice and one removed in the same
// batch: each key once, where it first came, with the state it was given last.
void tst_ResourceTableModel::firstFillKeepsFirstPlacesAndLastStates()
{
    const int count = int(ResourceTableModel::ResetThreshold) + 100;
    QList<ResourceRow> rows;
    for (int i = 0; i < count; ++i)
        rows << row(u"app-%1"_s.arg(i), LifecycleState::Pending);
    rows << row(u"app-7"_s, LifecycleState::Ready) << row(u"app-9"_s, LifecycleState::Degraded);
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    m_model->applyBatch(rows, { u"demo/app-8"_s });
    QCOMPARE(reset.size(), 1);
    QCOMPARE(inserted.size(), 0);
    QCOMPARE(m_model->rowCount(), count - 1);
    QCOMPARE(m_model->rowOf(u"demo/app-8"_s), -1);
    for (int at = 0; at < m_model->rowCount(); ++at) {
        const int i = at < 8 ? at : at + 1;
        QCOMPARE(m_model->rowAt(at)->key, u"demo/app-%1"_s.arg(i));
        QCOMPARE(m_model->rowOf(m_model->rowAt(at)->key), at);
    }
    QCOMPARE(m_model->find(u"demo/app-7"_s)->state, LifecycleState::Ready);
    QCOMPARE(m_model->find(u"demo/app-9"_s)->state, LifecycleState::Degraded);
    QCOMPARE(m_model->countIn(LifecycleState::Pending), count - 3);
    QCOMPARE(m_model->countIn(LifecycleState::Ready), 1);
    QCOMPARE(m_model->countIn(LifecycleState::Degraded), 1);
}

namespace {

ResourceRow rowIn(const QString &namespace_, const QString &name)
{
    ResourceRow made = row(name, LifecycleState::Pending);
    made.namespaceName = namespace_;
    made.key = objectKey(namespace_, name);
    return made;
}

// Each pair of ranked rows compares by rank as compareRows compares them.
bool ranksAgree(const ResourceTableModel &model, int column)
{
    for (int a = 0; a < model.rankedRows(); ++a) {
        for (int b = 0; b < model.rankedRows(); ++b) {
            const auto less = model.rankedLess(a, b, column);
            if (!less
                || *less
                    != (ResourceTableModel::compareRows(*model.rowAt(a), *model.rowAt(b), column)
                        < 0))
                return false;
        }
    }
    return true;
}

} // namespace

// Rows appended to an empty model in the order of the preferred column are ranked (equal values
// equal ranks), until one comes out of that order; removals keep the others' ranks.
void tst_ResourceTableModel::ranksFollowRowsAppendedInOrder()
{
    constexpr int Name = ResourceTableModel::NameColumn;
    m_model->setPreferredOrder(Name, Qt::AscendingOrder);
    m_model->applyBatch({ rowIn(u"b"_s, u"api"_s), rowIn(u"a"_s, u"cache"_s) }, {});
    m_model->applyBatch({ rowIn(u"c"_s, u"cache"_s), rowIn(u"a"_s, u"db"_s) }, {});
    QCOMPARE(m_model->rankedRows(), 4);
    QVERIFY(ranksAgree(*m_model, Name));
    QCOMPARE(m_model->rankedLess(1, 2, Name), std::optional<bool>(false)); // the same name
    QCOMPARE(m_model->rankedLess(0, 3, Name), std::optional<bool>(true));
    QCOMPARE(m_model->rankedLess(0, 3, ResourceTableModel::NamespaceColumn), std::nullopt);
    QCOMPARE(m_model->rankedLess(0, 4, Name), std::nullopt);
    // A change in place keeps the ranks; a row out of order ends them, also for rows after it.
    m_model->applyBatch({ rowIn(u"a"_s, u"cache"_s) }, {});
    QCOMPARE(m_model->rankedRows(), 4);
    m_model->applyBatch({ rowIn(u"a"_s, u"web"_s), rowIn(u"a"_s, u"api2"_s) }, {});
    QCOMPARE(m_model->rankedRows(), 5);
    m_model->applyBatch({ rowIn(u"a"_s, u"zed"_s) }, {});
    QCOMPARE(m_model->rankedRows(), 5);
    QCOMPARE(m_model->rankedLess(0, 6, Name), std::nullopt);
    QVERIFY(ranksAgree(*m_model, Name));
    // Removed rows take their ranks with them.
    m_model->applyBatch({}, { objectKey(u"c"_s, u"cache"_s), objectKey(u"a"_s, u"api2"_s) });
    QCOMPARE(m_model->rankedRows(), 4);
    QVERIFY(ranksAgree(*m_model, Name));
    m_model->clear();
    QCOMPARE(m_model->rankedRows(), 0);

    // Descending, and a first fill taken as one reset.
    const int column = ResourceTableModel::NamespaceColumn;
    m_model->setPreferredOrder(column, Qt::DescendingOrder);
    QList<ResourceRow> rows;
    for (int i = int(ResourceTableModel::ResetThreshold); i > 0; --i)
        rows << rowIn(u"ns%1"_s.arg(i / 2, 5, 10, QLatin1Char('0')), u"app%1"_s.arg(i));
    m_model->applyBatch(rows, {});
    QCOMPARE(m_model->rankedRows(), int(ResourceTableModel::ResetThreshold));
    const int last = m_model->rankedRows() - 1;
    QCOMPARE(m_model->rankedLess(last, 0, column), std::optional<bool>(true));
    QCOMPARE(m_model->rankedLess(0, last, column), std::optional<bool>(false));
    // ns02500 (once), ns02499 (twice), ns02498...
    QCOMPARE(m_model->rankedLess(1, 0, column), std::optional<bool>(true));
    QCOMPARE(m_model->rankedLess(1, 2, column), std::optional<bool>(false));
    QCOMPARE(m_model->rankedLess(2, 1, column), std::optional<bool>(false));
    QCOMPARE(m_model->rankedLess(3, 2, column), std::optional<bool>(true));
    // Not ranked in another column, nor when the views sort by one that is not a string's.
    QCOMPARE(m_model->rankedLess(0, 1, Name), std::nullopt);
    m_model->clear();
    m_model->setPreferredOrder(ResourceTableModel::StateColumn, Qt::AscendingOrder);
    m_model->applyBatch({ rowIn(u"a"_s, u"x"_s), rowIn(u"a"_s, u"y"_s) }, {});
    QCOMPARE(m_model->rankedRows(), 0);
}

QTEST_GUILESS_MAIN(tst_ResourceTableModel)
#include "tst_resourcetablemodel.moc"
