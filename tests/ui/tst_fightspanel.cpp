// The fights list: one row per fight with its managers, count and rate; activating a row names
// the object.
#include "ui/fightspanel.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using reconscope::controller::fieldowner::Fight;
using reconscope::ui::FightsPanel;

class tst_FightsPanel : public QObject
{
    Q_OBJECT

private slots:
    void listsFightsAndActivates();
};

void tst_FightsPanel::listsFightsAndActivates()
{
    FightsPanel panel;
    QCOMPARE(panel.table()->rowCount(), 0);
    QVERIFY(panel.summaryLabel()->text().startsWith(u"No field-manager fights"_s));

    const QDateTime start = QDateTime(QDate(2026, 12, 5), QTime(1, 0), Qt::UTC);
    Fight alternating;
    alternating.object = u"lab/orders"_s;
    alternating.field = u".spec.replicas"_s;
    alternating.managerA = u"gitops"_s;
    alternating.managerB = u"reconciler"_s;
    alternating.changes = 4;
    alternating.first = start;
    alternating.last = start.addSecs(20);
    Fight owned;
    owned.kind = Fight::Kind::StatusWriterOwnsSpec;
    owned.object = u"lab/mixed"_s;
    owned.field = u".spec.currentReplicas"_s;
    owned.managerA = u"reconciler"_s;
    owned.first = owned.last = start;
    panel.setFights({ alternating, owned });

    QCOMPARE(panel.table()->rowCount(), 2);
    QCOMPARE(panel.table()->item(0, FightsPanel::ManagersColumn)->text(), u"gitops ⇄ reconciler"_s);
    QCOMPARE(panel.table()->item(0, FightsPanel::ChangesColumn)->text(), u"4"_s);
    QCOMPARE(panel.table()->item(0, FightsPanel::RateColumn)->text(), u"12.0/min"_s);
    QCOMPARE(panel.table()->item(1, FightsPanel::KindColumn)->text(), u"status writer owns spec"_s);
    QVERIFY(panel.table()->item(1, 0)->toolTip().contains(u"which also writes /status"_s));
    QVERIFY(panel.summaryLabel()->text().startsWith(u"2 fight"_s));

    QSignalSpy activated(&panel, &FightsPanel::objectActivated);
    emit panel.table()->cellActivated(1, 2);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.front().front().toString(), u"lab/mixed"_s);

    if (const QByteArray dir = qgetenv("RECONSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        panel.resize(800, 200);
        panel.show();
        QVERIFY(panel.grab().save(QString::fromLocal8Bit(dir) + u"/fights-list.png"_s));
    }
    panel.setFights({});
    QCOMPARE(panel.table()->rowCount(), 0);
}

QTEST_MAIN(tst_FightsPanel)
#include "tst_fightspanel.moc"
