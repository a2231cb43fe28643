#include "controller/reconcile/stepsequence.h"

#include <QtTest>

#include <optional>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::reconcile;

class tst_StepSequence : public QObject
{
    Q_OBJECT

private slots:
    void emptyEndsWithSuccess();
    void runsStepsInOrderThenSucceeds();
    void finishSkipsTheRest();
    void asynchronousStepsContinueLater();
    void secondCallOfAStepIsIgnored();
    void staleControlIsIgnored();
    void nestedSequenceEndsTheOuterOne();
    void stepNamesStayAfterTheEnd();
};

namespace {

struct Outcome
{
    int calls = 0;
    std::optional<ReconcileOutcome> last;

    StepSequence::Done done()
    {
        return [this](ReconcileOutcome outcome) {
            ++calls;
            last = std::move(outcome);
        };
    }
};

Step recordingStep(const QString &name, QStringList &log)
{
    return { name, [name, &log](const StepControl &control) {
                log << name;
                control.proceed();
            } };
}

} // namespace

void tst_StepSequence::emptyEndsWithSuccess()
{
    Outcome outcome;
    StepSequence::run({}, outcome.done());
    QCOMPARE(outcome.calls, 1);
    QVERIFY(!outcome.last->error);
    QVERIFY(outcome.last->result.isZero());
}

void tst_StepSequence::runsStepsInOrderThenSucceeds()
{
    QStringList log;
    Outcome outcome;
    StepSequence::run({ recordingStep(u"fetch"_s, log),
                        recordingStep(u"apply"_s, log),
                        recordingStep(u"status"_s, log) },
                      outcome.done());
    QCOMPARE(log, QStringList({ u"fetch"_s, u"apply"_s, u"status"_s }));
    QCOMPARE(outcome.calls, 1);
    QVERIFY(!outcome.last->error);
}

void tst_StepSequence::finishSkipsTheRest()
{
    QStringList log;
    Outcome outcome;
    StepSequence::run({ recordingStep(u"fetch"_s, log),
                        { u"check"_s,
                          [&log](const StepControl &control) {
                              log << control.step();
                              control.finish(ReconcileOutcome::terminalFailure(u"invalid"_s));
                          } },
                        recordingStep(u"apply"_s, log) },
                      outcome.done());
    QCOMPARE(log, QStringList({ u"fetch"_s, u"check"_s }));
    QCOMPARE(outcome.calls, 1);
    QVERIFY(outcome.last->error);
    QVERIFY(outcome.last->error->terminal);
    QCOMPARE(outcome.last->error->message, u"invalid"_s);
}

void tst_StepSequence::asynchronousStepsContinueLater()
{
    QStringList log;
    Outcome outcome;
    QObject context;
    auto later = [&log, &context](const QString &name) {
        return Step{ name, [name, &log, &context](const StepControl &control) {
                        QTimer::singleShot(1, &context, [name, &log, control] {
                            log << name;
                            control.proceed();
                        });
                    } };
    };
    StepSequence::run({ later(u"one"_s), later(u"two"_s) }, outcome.done());
    QCOMPARE(outcome.calls, 0);
    QTRY_COMPARE(outcome.calls, 1);
    QCOMPARE(log, QStringList({ u"one"_s, u"two"_s }));
}

void tst_StepSequence::secondCallOfAStepIsIgnored()
{
    QStringList log;
    Outcome outcome;
    StepSequence::run({ { u"twice"_s,
                          [](const StepControl &control) {
                              control.finish(ReconcileOutcome::failure(u"first"_s));
                              control.finish(ReconcileOutcome::failure(u"second"_s));
                              control.proceed();
                          } },
                        recordingStep(u"after"_s, log) },
                      outcome.done());
    QCOMPARE(outcome.calls, 1);
    QCOMPARE(outcome.last->error->message, u"first"_s);
    QVERIFY(log.isEmpty());
}

void tst_StepSequence::staleControlIsIgnored()
{
    std::optional<StepControl> first;
    QStringList log;
    Outcome outcome;
    StepSequence::run({ { u"first"_s,
                          [&first](const StepControl &control) {
                              first = control;
                              control.proceed();
                          } },
                        { u"second"_s,
                          [](const StepControl &) {
                          } },
                        recordingStep(u"third"_s, log) },
                      outcome.done());
    // "second" holds the sequence; the first step's control no longer moves it.
    first->proceed();
    first->finish(ReconcileOutcome::failure(u"stale"_s));
    QCOMPARE(outcome.calls, 0);
    QVERIFY(log.isEmpty());
}

void tst_StepSequence::nestedSequenceEndsTheOuterOne()
{
    QStringList log;
    Outcome outcome;
    StepSequence::run({ { u"branch"_s,
                          [&log](const StepControl &control) {
                              StepSequence::run({ recordingStep(u"inner one"_s, log),
                                                  recordingStep(u"inner two"_s, log) },
                                                control.finisher());
                          } },
                        recordingStep(u"outer"_s, log) },
                      outcome.done());
    QCOMPARE(log, QStringList({ u"inner one"_s, u"inner two"_s }));
    QCOMPARE(outcome.calls, 1);
    QVERIFY(!outcome.last->error);
}

void tst_StepSequence::stepNamesStayAfterTheEnd()
{
    std::optional<StepControl> kept;
    Outcome outcome;
    StepSequence::run({ { u"only"_s,
                          [&kept](const StepControl &control) {
                              kept = control;
                              control.proceed();
                          } } },
                      outcome.done());
    QCOMPARE(outcome.calls, 1);
    QCOMPARE(kept->step(), u"only"_s);
}

QTEST_GUILESS_MAIN(tst_StepSequence)
#include "tst_stepsequence.moc"
