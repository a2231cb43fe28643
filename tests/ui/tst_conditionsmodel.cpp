#include "models/conditionsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

Condition condition(const QString &type, const QString &status, qint64 observedGeneration = 0)
{
    Condition c;
    c.type = type;
    c.status = status;
    c.reason = type + u"Reason"_s;
    c.message = u"message of "_s + type;
    c.lastTransitionTime = QDateTime(QDate(2026, 8, 9), QTime(0, 15), Qt::UTC);
    c.observedGeneration = observedGeneration;
    return c;
}

} // namespace

class tst_ConditionsModel final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void showsFields();
    void updateKeepsRowsOfSameType();
    void staleObservedGeneration_data();
    void staleObservedGeneration();

private:
    std::unique_ptr<ConditionsModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

void tst_ConditionsModel::init()
{
    m_model = std::make_unique<ConditionsModel>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void tst_ConditionsModel::cleanup()
{
    m_tester.reset();
    m_model.reset();
}

void tst_ConditionsModel::showsFields()
{
    m_model->setConditions({ condition(u"Ready"_s, u"True"_s, 3) }, 3);
    QCOMPARE(m_model->rowCount(), 1);
    QCOMPARE(m_model->index(0, ConditionsModel::TypeColumn).data().toString(), u"Ready"_s);
    QCOMPARE(m_model->index(0, ConditionsModel::StatusColumn).data().toString(), u"True"_s);
    QCOMPARE(m_model->index(0, ConditionsModel::ReasonColumn).data().toString(), u"ReadyReason"_s);
    QCOMPARE(m_model->index(0, ConditionsModel::LastTransitionColumn).data().toString(),
             u"2026-08-09T00:15:00Z"_s);
    QCOMPARE(m_model->index(0, ConditionsModel::ObservedGenerationColumn).data().toString(),
             u"3"_s);
    QCOMPARE(
        m_model->headerData(ConditionsModel::LastTransitionColumn, Qt::Horizontal, Qt::DisplayRole)
            .toString(),
        u"Last transition"_s);
}

void tst_ConditionsModel::updateKeepsRowsOfSameType()
{
    m_model->setConditions(
        { condition(u"Ready"_s, u"False"_s), condition(u"Degraded"_s, u"True"_s) }, 1);
    QSignalSpy removed(m_model.get(), &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);
    m_model->setConditions(
        { condition(u"Reconciling"_s, u"True"_s), condition(u"Ready"_s, u"True"_s) }, 1);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(removed.size(), 1); // Degraded
    QCOMPARE(removed.first().at(1).toInt(), 1);
    QCOMPARE(inserted.size(), 1); // Reconciling, appended
    QCOMPARE(m_model->rowCount(), 2);
    QCOMPARE(m_model->index(0, 0).data().toString(), u"Ready"_s);
    QCOMPARE(m_model->index(0, ConditionsModel::StatusColumn).data().toString(), u"True"_s);
    QCOMPARE(m_model->index(1, 0).data().toString(), u"Reconciling"_s);
    m_model->clear();
    QCOMPARE(m_model->rowCount(), 0);
}

void tst_ConditionsModel::staleObservedGeneration_data()
{
    QTest::addColumn<qint64>("observed");
    QTest::addColumn<qint64>("generation");
    QTest::addColumn<bool>("stale");
    QTest::newRow("current") << qint64(4) << qint64(4) << false;
    QTest::newRow("behind") << qint64(3) << qint64(4) << true;
    QTest::newRow("unset") << qint64(0) << qint64(4) << false;
}

void tst_ConditionsModel::staleObservedGeneration()
{
    QFETCH(qint64, observed);
    QFETCH(qint64, generation);
    QFETCH(bool, stale);
    m_model->setConditions({ condition(u"Ready"_s, u"True"_s, observed) }, generation);
    QCOMPARE(m_model->index(0, 0).data(ConditionsModel::StaleRole).toBool(), stale);
}

QTEST_GUILESS_MAIN(tst_ConditionsModel)
#include "tst_conditionsmodel.moc"
