#pragma once

#include "reconciler.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace reconscope::controller::reconcile {

// A reconcile written as one straight list of asynchronous steps, in the order controller-runtime's
// Reconcile reads (fetch, handle deletion, ensure finalizer, compute desired, apply, report
// status). Each step is handed a StepControl and calls exactly one of its two functions, once,
// right away or later from a reply handler on the same thread:
// - proceed(): the next step runs; after the last step the sequence ends with success;
// - finish(outcome): the sequence ends with outcome; the remaining steps do not run.
// The sequence ends exactly once: further calls, and calls from a step that is no longer the
// current one, are ignored. A step may run a nested sequence and hand it control.finisher().
class StepControl
{
public:
    void proceed() const;
    void finish(ReconcileOutcome outcome) const;
    // finish() as a function, for a nested sequence or a callback that ends the run.
    std::function<void(ReconcileOutcome)> finisher() const;
    // The name of the step this control belongs to.
    QString step() const;

private:
    friend class StepSequence;
    struct State;
    StepControl(std::shared_ptr<State> state, qsizetype index);

    std::shared_ptr<State> m_state;
    qsizetype m_index = 0;
};

struct Step
{
    QString name;
    std::function<void(const StepControl &)> run;
};

class StepSequence
{
public:
    using Done = std::function<void(ReconcileOutcome)>;

    // Runs steps in order; done gets the one outcome. With no steps, done gets success at once.
    static void run(QList<Step> steps, Done done);
};

} // namespace reconscope::controller::reconcile
