#include "stepsequence.h"

namespace reconscope::controller::reconcile {

struct StepControl::State
{
    QList<Step> steps;
    QStringList names; // kept after the end, for step()
    StepSequence::Done done;
    qsizetype current = 0;
    bool finished = false;
};

StepControl::StepControl(std::shared_ptr<State> state, qsizetype index)
    : m_state(std::move(state))
    , m_index(index)
{ }

void StepControl::proceed() const
{
    if (m_state->finished || m_state->current != m_index)
        return;
    const qsizetype next = m_index + 1;
    if (next >= m_state->steps.size()) {
        finish(ReconcileOutcome::success());
        return;
    }
    m_state->current = next;
    // A copy: the step may end the sequence, which releases the list.
    const auto step = m_state->steps.at(next).run;
    step(StepControl(m_state, next));
}

void StepControl::finish(ReconcileOutcome outcome) const
{
    if (m_state->finished || m_state->current != m_index)
        return;
    m_state->finished = true;
    // Release the steps (and what they captured) before handing on the outcome.
    auto done = std::move(m_state->done);
    m_state->steps.clear();
    if (done)
        done(std::move(outcome));
}

std::function<void(ReconcileOutcome)> StepControl::finisher() const
{
    return [control = *this](ReconcileOutcome outcome) {
        control.finish(std::move(outcome));
    };
}

QString StepControl::step() const
{
    return m_state->names.value(m_index);
}

void StepSequence::run(QList<Step> steps, Done done)
{
    auto state = std::make_shared<StepControl::State>();
    state->steps = std::move(steps);
    for (const auto &step : std::as_const(state->steps))
        state->names << step.name;
    state->done = std::move(done);
    if (state->steps.isEmpty()) {
        StepControl(state, 0).finish(ReconcileOutcome::success());
        return;
    }
    const auto first = state->steps.constFirst().run;
    first(StepControl(state, 0));
}

} // namespace reconscope::controller::reconcile
