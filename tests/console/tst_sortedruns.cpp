#include "controller/console/sortedruns.h"

#include <QRandomGenerator>
#include <QtTest>

#include <algorithm>
#include <vector>

using reconscope::controller::console::SortedRuns;

// SortedRuns against std::stable_sort of the same rows: any split into runs, any number of merge
// steps between closes, a prepended run, and keys with many ties (stability shows).
class TstSortedRuns : public QObject
{
    Q_OBJECT

private slots:
    void equalsStableSort_data();
    void equalsStableSort();
    void unorderedKeepsPushOrder();
    void prependedRunGoesFirstInOrder();
    void sortedRunsAreNotMergedAgain();
};

void TstSortedRuns::equalsStableSort_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed = 1; seed <= 200; ++seed)
        QTest::addRow("seed %u", seed) << seed;
}

void TstSortedRuns::equalsStableSort()
{
    QFETCH(quint32, seed);
    QRandomGenerator random(seed);
    const int rows = int(random.bounded(1, 3000));
    const int distinct = int(random.bounded(1, 50)); // few keys: many ties
    std::vector<int> keys(static_cast<std::size_t>(rows));
    for (int &key : keys)
        key = int(random.bounded(distinct));
    const auto less = [&keys](std::uint32_t a, std::uint32_t b) {
        return keys[a] < keys[b];
    };

    SortedRuns runs;
    std::uint32_t next = 0;
    while (next < std::uint32_t(rows)) {
        const std::uint32_t run = random.bounded(1u, 400u);
        for (std::uint32_t i = 0; i < run && next < std::uint32_t(rows); ++i)
            runs.push(next++);
        runs.closeRun(true, less);
        for (quint32 steps = random.bounded(3u); steps > 0; --steps)
            runs.mergeStep(true, less);
    }
    while (!runs.merged())
        runs.mergeStep(true, less);

    std::vector<std::uint32_t> expected(static_cast<std::size_t>(rows));
    for (std::uint32_t i = 0; i < std::uint32_t(rows); ++i)
        expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(), less);
    QCOMPARE(runs.order(), expected);
}

void TstSortedRuns::unorderedKeepsPushOrder()
{
    SortedRuns runs;
    int compared = 0;
    const auto less = [&compared](std::uint32_t a, std::uint32_t b) {
        ++compared;
        return a > b;
    };
    for (std::uint32_t i = 0; i < 10; ++i) {
        runs.push(i);
        if (i % 3 == 2)
            runs.closeRun(false, less);
    }
    runs.closeRun(false, less);
    while (!runs.merged())
        runs.mergeStep(false, less);
    QCOMPARE(runs.order(), (std::vector<std::uint32_t>{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }));
    QCOMPARE(compared, 0);
}

void TstSortedRuns::prependedRunGoesFirstInOrder()
{
    // Rows 0..5 pushed (two runs), then rows 6..8 (shown before) prepended as a sorted run.
    const std::vector<int> keys{ 5, 1, 9, 4, 4, 0, 2, 4, 7 };
    const auto less = [&keys](std::uint32_t a, std::uint32_t b) {
        return keys[a] < keys[b];
    };
    SortedRuns runs;
    for (std::uint32_t i = 0; i < 3; ++i)
        runs.push(i);
    runs.closeRun(true, less);
    for (std::uint32_t i = 3; i < 6; ++i)
        runs.push(i);
    runs.closeRun(true, less);
    runs.prependRun({ 6, 7, 8 });
    QCOMPARE(runs.size(), std::size_t(9));
    while (!runs.merged())
        runs.mergeStep(true, less);
    // Ties keep the prepended run's rows first (7 before 3 and 4: all key 4).
    QCOMPARE(runs.order(), (std::vector<std::uint32_t>{ 5, 1, 6, 7, 3, 4, 0, 8, 2 }));
}

void TstSortedRuns::sortedRunsAreNotMergedAgain()
{
    // Runs that arrive in order are one run at the cost of one comparison per merge.
    int compared = 0;
    const auto less = [&compared](std::uint32_t a, std::uint32_t b) {
        ++compared;
        return a < b;
    };
    SortedRuns runs;
    for (std::uint32_t i = 0; i < 1000; ++i) {
        runs.push(i);
        if (i % 100 == 99)
            runs.closeRun(true, less);
    }
    const int closing = compared; // is_sorted: 99 comparisons a run
    QCOMPARE(closing, 10 * 99);
    int steps = 0;
    while (!runs.merged()) {
        runs.mergeStep(true, less);
        ++steps;
    }
    QCOMPARE(steps, 9);
    QCOMPARE(compared - closing, 9);
    QVERIFY(std::is_sorted(runs.order().begin(), runs.order().end()));
}

QTEST_APPLESS_MAIN(TstSortedRuns)
#include "tst_sortedruns.moc"
