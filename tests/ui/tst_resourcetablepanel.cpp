#include "models/resourcetablemodel.h"
#include "ui/resourcetablepanel.h"
#include "ui/statepalette.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
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
    void keyboardNavigation();
    void selectKeyClearsHidingFilter();
    void chipsAndStaleHighlightPainted();

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

QTEST_MAIN(tst_ResourceTablePanel)
#include "tst_resourcetablepanel.moc"
