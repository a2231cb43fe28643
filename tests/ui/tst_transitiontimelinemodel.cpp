#include "models/transitiontimelinemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

namespace {

Transition transition(StateNode from, StateNode to, int second)
{
    Transition t;
    t.key = u"demo/web"_s;
    t.from = from;
    t.to = to;
    t.time = QDateTime::fromSecsSinceEpoch(1'700'000'000 + second, Qt::UTC);
    t.reason = u"because"_s;
    t.generation = 2;
    t.observedGeneration = 1;
    t.onDesign = isDesignedTransition(from, to);
    return t;
}

} // namespace

class tst_TransitionTimelineModel final : public QObject
{
    Q_OBJECT

private slots:
    void appendAndTrim();
    void offDesignFlagged();
};

void tst_TransitionTimelineModel::appendAndTrim()
{
    TransitionTimelineModel model(3);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    using S = LifecycleState;
    model.setTransitions({ transition(std::nullopt, S::Pending, 0) });
    QCOMPARE(model.rowCount(), 1);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    model.append({ transition(S::Pending, S::Reconciling, 1),
                   transition(S::Reconciling, S::Ready, 2),
                   transition(S::Ready, S::Terminating, 3) });
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(removed.size(), 1);
    QCOMPARE(model.index(0, TransitionTimelineModel::FromColumn).data().toString(), u"Pending"_s);
    QCOMPARE(model.index(2, TransitionTimelineModel::ToColumn).data().toString(), u"Terminating"_s);
    QCOMPARE(model.index(2, TransitionTimelineModel::GenerationColumn).data().toString(),
             u"2 / 1"_s);
    model.append({ transition(S::Terminating, std::nullopt, 4) });
    QCOMPARE(model.index(2, TransitionTimelineModel::ToColumn).data().toString(), u"[*]"_s);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void tst_TransitionTimelineModel::offDesignFlagged()
{
    TransitionTimelineModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    using S = LifecycleState;
    model.append(
        { transition(S::Pending, S::Ready, 0), transition(S::Pending, S::Reconciling, 1) });
    QCOMPARE(model.index(0, 0).data(TransitionTimelineModel::OnDesignRole).toBool(), false);
    QVERIFY(model.index(0, TransitionTimelineModel::ReasonColumn)
                .data()
                .toString()
                .startsWith(u"off-design"_s));
    QVERIFY(model.index(0, 0).data(Qt::ForegroundRole).isValid());
    QCOMPARE(model.index(1, 0).data(TransitionTimelineModel::OnDesignRole).toBool(), true);
    QVERIFY(!model.index(1, 0).data(Qt::ForegroundRole).isValid());
}

QTEST_GUILESS_MAIN(tst_TransitionTimelineModel)
#include "tst_transitiontimelinemodel.moc"
