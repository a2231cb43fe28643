// The Fields tab: each YAML line with its owners, shared fields tinted, the manager filter, and
// unreadable managedFields named while the rest is shown.
#include "tests/fieldmanager/blamedata.h"
#include "ui/fieldspanel.h"

#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using reconscope::ui::FieldsPanel;

namespace {

const QDateTime Now = QDateTime(QDate(2026, 12, 5), QTime(1, 5), Qt::UTC);

int rowOf(const FieldsPanel &panel, const QString &yaml)
{
    for (int row = 0; row < panel.table()->rowCount(); ++row) {
        if (panel.table()->item(row, FieldsPanel::YamlColumn)->text() == yaml)
            return row;
    }
    return -1;
}

QString ownersAt(const FieldsPanel &panel, int row)
{
    return panel.table()->item(row, FieldsPanel::OwnersColumn)->text();
}

} // namespace

class tst_FieldsPanel : public QObject
{
    Q_OBJECT

private slots:
    void showsOwnersAndFilters();
    void unreadableEntriesAreNamed();
};

void tst_FieldsPanel::showsOwnersAndFilters()
{
    FieldsPanel panel;
    panel.resize(900, 600);
    panel.setObject(nlohmann::json::parse(Object), Now);
    QCOMPARE(panel.table()->rowCount(), int(panel.blame().lines.size()));
    const int replicas = rowOf(panel, u"  replicas: 3"_s);
    QVERIFY(replicas >= 0);
    QCOMPARE(ownersAt(panel, replicas), u"gitops (Apply) 5m, argo (Apply) 2m"_s);
    QVERIFY(panel.table()->item(replicas, FieldsPanel::OwnersColumn)->background() != QBrush());
    QVERIFY(panel.table()->item(replicas, 0)->toolTip().startsWith(u".spec.replicas\n"_s));
    const int arg = rowOf(panel, u"  - --b"_s);
    QCOMPARE(ownersAt(panel, arg), u"^gitops (Apply) 5m"_s);
    const int name = rowOf(panel, u"  name: web"_s);
    QVERIFY(ownersAt(panel, name).isEmpty());

    // Four readable managers, one entry not: the filter lists the four.
    QCOMPARE(panel.managerFilter()->count(), 5);
    panel.managerFilter()->setCurrentIndex(panel.managerFilter()->findData(u"argo"_s));
    QCOMPARE(ownersAt(panel, replicas), u"argo (Apply) 2m"_s);
    QVERIFY(ownersAt(panel, arg).isEmpty());
    // A new version keeps the filter.
    panel.setObject(nlohmann::json::parse(Object), Now.addSecs(60));
    QCOMPARE(panel.managerFilter()->currentData().toString(), u"argo"_s);
    QCOMPARE(ownersAt(panel, replicas), u"argo (Apply) 3m"_s);

    if (const QByteArray dir = qgetenv("RECONSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        panel.managerFilter()->setCurrentIndex(0);
        panel.show();
        QVERIFY(panel.grab().save(QString::fromLocal8Bit(dir) + u"/fields-tab.png"_s));
    }
}

void tst_FieldsPanel::unreadableEntriesAreNamed()
{
    FieldsPanel panel;
    panel.setObject(nlohmann::json::parse(Object), Now);
    QVERIFY(!panel.problemsLabel()->isHidden());
    QVERIFY2(panel.problemsLabel()->text().contains(u"managedFields[4]"_s),
             qPrintable(panel.problemsLabel()->text()));
    for (const char *managed : UnreadableManagedFields) {
        const QByteArray object
            = QByteArray(R"({"metadata": {"name": "a", )") + managed + R"(}, "spec": {"x": 1}})";
        panel.setObject(nlohmann::json::parse(object.toStdString()), Now);
        QVERIFY(rowOf(panel, u"  x: 1"_s) >= 0);
        QVERIFY(!panel.problemsLabel()->isHidden());
    }
    panel.clear();
    QCOMPARE(panel.table()->rowCount(), 0);
    QVERIFY(panel.problemsLabel()->isHidden());
}

QTEST_MAIN(tst_FieldsPanel)
#include "tst_fieldspanel.moc"
