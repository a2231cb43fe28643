#include "models/resourcetablemodel.h"
#include "ui/resourcesortproxy.h"
#include "ui/resourcetablepanel.h"
#include "ui/statepalette.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using namespace reconscope::ui;

namespace {

ResourceRow row(const QString &name, LifecycleState state, qint64 observed = 1)
{
    ResourceRow row;
    row.name = name;
    row.namespaceName = u"demo"_s;
    row.key = objectKey(u"demo"_s, name);
    row.generation = 1;
    row.observedGeneration = observed;
    row.state = state;
    row.reason = state == LifecycleState::Degraded ? u"ImagePullBackOff"_s : u"ok"_s;
    return row;
}

int pixelsNear(const QImage &image, const QColor &colour)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            count += std::abs(c.red() - colour.red()) < 12
                && std::abs(c.green() - colour.green()) < 12
                && std::abs(c.blue() - colour.blue()) < 12;
        }
    }
    return count;
}

} // namespace

class tst_ResourceTablePanel final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void filterBox();
    void fightsColumnOnlyWhileThereAreFights();
    void keyboardNavigation();
    void selectKeyClearsHidingFilter();
    void chipsAndStaleHighlightPainted();
    void filterThroughEverySetter();
    void rankedRowsSortAsStrings_data();
    void rankedRowsSortAsStrings();

private:
    std::unique_ptr<ResourceTableModel> m_model;
    std::unique_ptr<ResourceTablePanel> m_panel;
};

void tst_ResourceTablePanel::init()
{
    m_model = std::make_unique<ResourceTableModel>();
    m_model->applyBatch({ row(u"web"_s, LifecycleState::Ready),
                          row(u"worker"_s, LifecycleState::Degraded),
                          row(u"api"_s, LifecycleState::Reconciling, 0),
                          row(u"billing"_s, LifecycleState::Pending) },
                        {});
    m_panel = std::make_unique<ResourceTablePanel>(m_model.get());
    m_panel->resize(900, 300);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
}

void tst_ResourceTablePanel::cleanup()
{
    m_panel.reset();
    m_model.reset();
}

void tst_ResourceTablePanel::filterBox()
{
    QAbstractItemModelTester tester(m_panel->proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m_panel->proxy()->rowCount(), 4);
    // Sorted by name.
    QCOMPARE(m_panel->proxy()->index(0, 0).data().toString(), u"api"_s);
    QTest::keyClicks(m_panel->filterEdit(), u"imagepull"_s);
    QCOMPARE(m_panel->proxy()->rowCount(), 1);
    QCOMPARE(m_panel->proxy()->index(0, 0).data().toString(), u"worker"_s);
    QTest::keyClick(m_panel->filterEdit(), Qt::Key_Escape);
    QCOMPARE(m_panel->filterEdit()->text(), QString());
    QCOMPARE(m_panel->proxy()->rowCount(), 4);
    // New rows of a batch land sorted.
    m_model->applyBatch({ row(u"aaa"_s, LifecycleState::Pending) }, {});
    QCOMPARE(m_panel->proxy()->index(0, 0).data().toString(), u"aaa"_s);
}

void tst_ResourceTablePanel::keyboardNavigation()
{
    QSignalSpy selected(m_panel.get(), &ResourceTablePanel::objectSelected);
    m_panel->activateWindow();
    // Ctrl+F focuses the filter; Down moves into the table onto the first row.
    QTest::keyClick(m_panel.get(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(m_panel->filterEdit()->hasFocus());
    QTest::keyClicks(m_panel->filterEdit(), u"w"_s);
    QTest::keyClick(m_panel->filterEdit(), Qt::Key_Down);
    QVERIFY(m_panel->view()->hasFocus());
    QCOMPARE(m_panel->selectedKey(), u"demo/web"_s);
    QTest::keyClick(m_panel->view(), Qt::Key_Down);
    QCOMPARE(m_panel->selectedKey(), u"demo/worker"_s);
    QCOMPARE(selected.size(), 2);
    QCOMPARE(selected.last().first().toString(), u"demo/worker"_s);
    // A batch that changes the selected row does not re-announce the selection.
    m_model->applyBatch({ row(u"worker"_s, LifecycleState::Ready) }, {});
    QCOMPARE(selected.size(), 2);
}

void tst_ResourceTablePanel::selectKeyClearsHidingFilter()
{
    m_panel->filterEdit()->setText(u"web"_s);
    QVERIFY(m_panel->selectKey(u"demo/billing"_s));
    QCOMPARE(m_panel->filterEdit()->text(), QString());
    QCOMPARE(m_panel->selectedKey(), u"demo/billing"_s);
    QVERIFY(!m_panel->selectKey(u"demo/nope"_s));
}

void tst_ResourceTablePanel::chipsAndStaleHighlightPainted()
{
    const QImage image = m_panel->view()->viewport()->grab().toImage();
    // Each state's chip in its accent colour.
    for (LifecycleState state : { LifecycleState::Ready,
                                  LifecycleState::Degraded,
                                  LifecycleState::Reconciling,
                                  LifecycleState::Pending }) {
        QVERIFY2(pixelsNear(image, stateColors(state).accent) > 40,
                 qPrintable(lifecycleStateName(state)));
    }
    // The stale generation cell of "api" in amber.
    QVERIFY(pixelsNear(image, QColor(0xff, 0xe0, 0xb2)) > 100);
    m_model->applyBatch({ row(u"api"_s, LifecycleState::Reconciling, 1) }, {});
    QApplication::processEvents();
    const QImage after = m_panel->view()->viewport()->grab().toImage();
    QCOMPARE(pixelsNear(after, QColor(0xff, 0xe0, 0xb2)), 0);
}

// The proxy takes every row without asking while no filter is set (it keeps that from the
// filter property's notifications, which Qt sends after filtering with setFilterFixedString):
// every way of setting and clearing the filter filters.
void tst_ResourceTablePanel::filterThroughEverySetter()
{
    ResourceTableModel model;
    model.applyBatch({ row(u"api"_s, LifecycleState::Ready),
                       row(u"web"_s, LifecycleState::Degraded),
                       row(u"worker"_s, LifecycleState::Ready) },
                     {});
    ResourceSortProxy proxy;
    proxy.setSourceModel(&model);
    proxy.setFilterKeyColumn(ResourceTableModel::NameColumn);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setFilterFixedString(u"web"_s);
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterFixedString(u"w"_s);
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setFilterFixedString(QString());
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setFilterRegularExpression(u"^a"_s);
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterRegularExpression(QString());
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setFilterRegularExpression(QRegularExpression(u"er$"_s));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterRegularExpression(QRegularExpression());
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setFilterWildcard(u"w*"_s);
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setFilterWildcard(QString());
    QCOMPARE(proxy.rowCount(), 3);
    // Rows inserted meanwhile are filtered too.
    proxy.setFilterFixedString(u"web"_s);
    model.applyBatch({ row(u"web2"_s, LifecycleState::Ready), row(u"db"_s, LifecycleState::Ready) },
                     {});
    QCOMPARE(proxy.rowCount(), 2);
}

void tst_ResourceTablePanel::rankedRowsSortAsStrings_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<Qt::SortOrder>("order");
    QTest::newRow("name") << int(ResourceTableModel::NameColumn) << Qt::AscendingOrder;
    QTest::newRow("name descending") << int(ResourceTableModel::NameColumn) << Qt::DescendingOrder;
    QTest::newRow("namespace") << int(ResourceTableModel::NamespaceColumn) << Qt::AscendingOrder;
    QTest::newRow("namespace descending")
        << int(ResourceTableModel::NamespaceColumn) << Qt::DescendingOrder;
}

// The sort proxy compares ranked rows by rank (ResourceTableModel::rankedLess): through appends in
// and out of order, changes and removals, with names and namespaces that repeat, it shows the
// rows exactly as comparing their strings does.
void tst_ResourceTablePanel::rankedRowsSortAsStrings()
{
    QFETCH(int, column);
    QFETCH(Qt::SortOrder, order);
    ResourceTableModel model;
    model.setPreferredOrder(column, order);
    ResourceSortProxy proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResourceTableModel::SortRole);
    proxy.setDynamicSortFilter(true);
    proxy.sort(column, order);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel reference; // QVariant comparisons of the sort role's strings
    reference.setSourceModel(&model);
    reference.setSortRole(ResourceTableModel::SortRole);
    reference.setDynamicSortFilter(true);
    reference.sort(column, order);
    QRandomGenerator random(20261130);
    // The sorted column's strings grow with the rounds (shrink, descending), each repeated a few
    // times, so that rows appended in order come after those shown.
    const auto make = [&](int round) {
        const int step = order == Qt::AscendingOrder ? round : 999 - round;
        const QString sorted
            = u"s%1-%2"_s.arg(step, 3, 10, QLatin1Char('0')).arg(random.bounded(3));
        const QString other = u"o%1"_s.arg(random.bounded(5));
        ResourceRow made = row(column == ResourceTableModel::NameColumn ? sorted : other,
                               LifecycleState::Pending);
        made.namespaceName = column == ResourceTableModel::NameColumn ? other : sorted;
        made.key = objectKey(made.namespaceName, made.name);
        return made;
    };
    const auto before = [&](const ResourceRow &a, const ResourceRow &b) {
        const int compared = ResourceTableModel::compareRows(a, b, column);
        return order == Qt::AscendingOrder ? compared < 0 : compared > 0;
    };
    int rankedMost = 0;
    for (int round = 0; round < 60; ++round) {
        QList<ResourceRow> rows;
        for (int i = 0; i < 1 + int(random.bounded(30)); ++i)
            rows << make(round);
        // Mostly appended in order after the rows shown, as a first list comes.
        if (round < 20 || random.bounded(4) != 0) {
            std::stable_sort(rows.begin(), rows.end(), before);
            if (model.rowCount() > 0) {
                const ResourceRow *last = model.rowAt(model.rowCount() - 1);
                rows.erase(std::remove_if(rows.begin(),
                                          rows.end(),
                                          [&](const ResourceRow &r) { return before(r, *last); }),
                           rows.end());
            }
        }
        QStringList removed;
        if (round % 7 == 6) {
            for (int i = 0; i < 5 && model.rowCount() > 0; ++i)
                removed << model.rowAt(int(random.bounded(model.rowCount())))->key;
        }
        if (round % 5 == 4 && model.rowCount() > 0) {
            ResourceRow changed = *model.rowAt(int(random.bounded(model.rowCount())));
            changed.state = LifecycleState::Ready;
            rows << changed;
        }
        model.applyBatch(rows, removed);
        rankedMost = std::max(rankedMost, model.rankedRows());
        // What the proxy shows is what a proxy comparing the strings shows, row for row.
        QCOMPARE(proxy.rowCount(), model.rowCount());
        QCOMPARE(reference.rowCount(), model.rowCount());
        for (int i = 0; i < proxy.rowCount(); ++i) {
            QCOMPARE(proxy.mapToSource(proxy.index(i, 0)).row(),
                     reference.mapToSource(reference.index(i, 0)).row());
            if (i > 0)
                QVERIFY(!before(*model.rowAt(proxy.mapToSource(proxy.index(i, 0)).row()),
                                *model.rowAt(proxy.mapToSource(proxy.index(i - 1, 0)).row())));
        }
    }
    QVERIFY2(rankedMost > 100, qPrintable(QString::number(rankedMost)));
    QVERIFY(model.rankedRows() < model.rowCount()); // appended out of order since
}

QTEST_MAIN(tst_ResourceTablePanel)
void tst_ResourceTablePanel::fightsColumnOnlyWhileThereAreFights()
{
    QTableView *view = m_panel->view();
    QVERIFY(view->isColumnHidden(ResourceTableModel::FightsColumn));
    const QString key = m_model->rowAt(0)->key;
    m_model->setFights({ { key, { u".spec.replicas: taken back and forth"_s } } });
    QVERIFY(!view->isColumnHidden(ResourceTableModel::FightsColumn));
    m_model->setFights({});
    QVERIFY(view->isColumnHidden(ResourceTableModel::FightsColumn));
}

#include "tst_resourcetablepanel.moc"
