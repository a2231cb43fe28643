#include "controller/console/scenarioplayer.h"

#include "models/lifecycle.h"
#include "models/objectsummary.h"

#include <QFile>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

using models::ScenarioStep;

ScenarioPlayer::ScenarioPlayer(QObject *parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ScenarioPlayer::runStep);
    m_pollTimer.setSingleShot(true);
    m_pollTimer.setInterval(PollIntervalMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &ScenarioPlayer::poll);
}

ScenarioPlayer::~ScenarioPlayer() = default;

models::Result<models::Scenario> ScenarioPlayer::defaultScenario()
{
    QFile file(u":/scenarios/customapp-tour.json"_s);
    if (!file.open(QIODevice::ReadOnly))
        return models::Result<models::Scenario>::failure(
            tr("the default scenario is missing: %1").arg(file.errorString()));
    return models::parseScenario(file.readAll());
}

void ScenarioPlayer::setClient(kube::RestClient *client)
{
    m_client = client;
}

void ScenarioPlayer::setScenario(const models::Scenario &scenario)
{
    m_scenario = scenario;
    emit scenarioChanged();
    rewind();
}

void ScenarioPlayer::rewind()
{
    ++m_generation;
    m_running = false;
    m_pollTimer.stop();
    m_waitClock.invalidate();
    m_pollInFlight = false;
    m_pauseReason.clear();
    m_next = 0;
    m_remainingMs = m_scenario.steps.isEmpty() ? 0 : m_scenario.steps.first().afterMs;
    m_waitingSince.start();
    emit rewound();
    schedule();
}

void ScenarioPlayer::play()
{
    if (m_playing)
        return;
    if (m_next >= m_scenario.steps.size())
        rewind();
    m_playing = true;
    m_pauseReason.clear();
    m_waitingSince.start();
    resumeWait();
    emit playingChanged(true);
    schedule();
}

void ScenarioPlayer::pause()
{
    if (!m_playing)
        return;
    freezeRemaining();
    m_playing = false;
    m_timer.stop();
    suspendWait();
    emit playingChanged(false);
}

void ScenarioPlayer::setSpeed(double speed)
{
    speed = std::clamp(speed, MinSpeed, MaxSpeed);
    if (speed == m_speed)
        return;
    freezeRemaining();
    m_speed = speed;
    emit speedChanged(speed);
    schedule();
}

qint64 ScenarioPlayer::remainingMs() const
{
    if (!m_playing || m_running)
        return m_remainingMs;
    const double elapsed = double(m_waitingSince.elapsed()) * m_speed;
    return std::max<qint64>(0, m_remainingMs - qint64(elapsed));
}

void ScenarioPlayer::freezeRemaining()
{
    m_remainingMs = remainingMs();
    m_waitingSince.start();
}

void ScenarioPlayer::schedule()
{
    m_timer.stop();
    if (!m_playing || m_running || m_scenario.steps.isEmpty())
        return;
    m_timer.start(int(std::ceil(double(m_remainingMs) / m_speed)));
}

void ScenarioPlayer::stepNow()
{
    if (isWaiting()) {
        ++m_generation; // an answer in flight no longer counts
        m_pollInFlight = false;
        finishStep(m_next,
                   true,
                   tr("skipped after %1 s (%2 was %3)")
                       .arg(double(waitedMs()) / 1000.0, 0, 'f', 1)
                       .arg(m_scenario.steps[m_next].objectKey(), m_observed));
        return;
    }
    if (m_running || m_scenario.steps.isEmpty())
        return;
    m_timer.stop();
    runStep();
}

void ScenarioPlayer::answerNotConnected(const Answer &answer)
{
    QMetaObject::invokeMethod(
        this,
        [answer] {
            answer(apimachinery::ApiError::make(apimachinery::ApiError::Category::Network,
                                                tr("not connected to a cluster")));
        },
        Qt::QueuedConnection);
}

void ScenarioPlayer::runStep()
{
    if (m_next >= m_scenario.steps.size())
        return;
    const int index = m_next;
    const ScenarioStep &step = m_scenario.steps[index];
    m_running = true;
    m_remainingMs = 0;
    emit stepStarted(index);

    const quint64 generation = m_generation;
    QPointer<ScenarioPlayer> self(this);
    auto answer
        = [self, generation, index](models::Result<nlohmann::json, apimachinery::ApiError> result) {
              if (self && self->m_generation == generation)
                  self->handleAnswer(index, result);
          };
    if (step.verb == ScenarioStep::Verb::WaitFor) {
        m_waitedBeforeMs = 0;
        m_waitClock.invalidate();
        m_observed = tr("not read yet");
        resumeWait();
        if (!m_playing)
            poll(); // run by hand while paused: one look, then on when Play is pressed
        return;
    }
    if (step.verb == ScenarioStep::Verb::Wait) {
        QMetaObject::invokeMethod(
            this, [answer] { answer(nlohmann::json::object()); }, Qt::QueuedConnection);
        return;
    }
    if (!m_client) {
        answerNotConnected(answer);
        return;
    }
    const apimachinery::ResourceRef ref{
        step.group, step.version, step.plural, !step.namespaceName.isEmpty()
    };
    switch (step.verb) {
    case ScenarioStep::Verb::Create:
        m_client->create(ref, step.namespaceName, step.body, answer);
        break;
    case ScenarioStep::Verb::Patch:
        m_client->patch(ref,
                        step.namespaceName,
                        step.name,
                        apimachinery::PatchType::Merge,
                        QByteArray::fromStdString(step.body.dump()),
                        answer);
        break;
    case ScenarioStep::Verb::Delete:
        m_client->remove(ref,
                         step.namespaceName,
                         step.name,
                         apimachinery::DeleteOptions{ .propagationPolicy = u"Background"_s },
                         answer);
        break;
    case ScenarioStep::Verb::Wait:
    case ScenarioStep::Verb::WaitFor:
        break;
    }
}

void ScenarioPlayer::handleAnswer(
    int index, const models::Result<nlohmann::json, apimachinery::ApiError> &answer)
{
    const ScenarioStep &step = m_scenario.steps[index];
    bool ok = answer.ok();
    QString message;
    if (!ok) {
        const apimachinery::ApiError &error = answer.error();
        if ((step.ignoreAlreadyExists && error.isAlreadyExists())
            || (step.ignoreNotFound && error.isNotFound())) {
            ok = true;
            message = tr("already so (%1)").arg(error.reason);
        } else {
            message = error.toString();
        }
    } else if (step.verb != ScenarioStep::Verb::Wait) {
        const auto meta = answer.value().find("metadata");
        if (meta != answer.value().end() && meta->is_object() && meta->contains("resourceVersion"))
            message
                = tr("resourceVersion %1")
                      .arg(QString::fromStdString(meta->value("resourceVersion", std::string())));
    }
    finishStep(index, ok, message);
}

void ScenarioPlayer::finishStep(int index, bool ok, const QString &message)
{
    m_running = false;
    m_pollTimer.stop();
    m_waitedBeforeMs = waitedMs(); // a finished wait keeps its figure (for the timeline)
    m_waitClock.invalidate();
    m_next = index + 1;
    emit stepFinished(index, ok, message);
    if (m_next >= m_scenario.steps.size()) {
        ++m_round;
        emit roundFinished(m_round);
        if (!m_scenario.loop) {
            m_remainingMs = 0;
            pause();
            return;
        }
        rewind();
        return;
    }
    m_remainingMs = m_scenario.steps[m_next].afterMs;
    m_waitingSince.start();
    schedule();
}

bool ScenarioPlayer::isWaiting() const
{
    return m_running && m_next < m_scenario.steps.size()
        && m_scenario.steps[m_next].verb == ScenarioStep::Verb::WaitFor;
}

qint64 ScenarioPlayer::waitedMs() const
{
    return m_waitedBeforeMs + (m_waitClock.isValid() ? m_waitClock.elapsed() : 0);
}

void ScenarioPlayer::suspendWait()
{
    if (!isWaiting())
        return;
    m_waitedBeforeMs = waitedMs();
    m_waitClock.invalidate();
    m_pollTimer.stop();
}

void ScenarioPlayer::resumeWait()
{
    if (!isWaiting() || !m_playing || m_waitClock.isValid())
        return;
    m_waitClock.start();
    poll();
}

void ScenarioPlayer::poll()
{
    m_pollTimer.stop();
    if (!isWaiting() || m_pollInFlight)
        return;
    const int index = m_next;
    const ScenarioStep &step = m_scenario.steps[index];
    const quint64 generation = m_generation;
    QPointer<ScenarioPlayer> self(this);
    auto answer
        = [self, generation, index](models::Result<nlohmann::json, apimachinery::ApiError> result) {
              if (!self || self->m_generation != generation)
                  return;
              self->m_pollInFlight = false;
              self->handleWaitAnswer(index, result);
          };
    m_pollInFlight = true;
    if (!m_client) {
        answerNotConnected(answer);
        return;
    }
    const apimachinery::ResourceRef ref{
        step.group, step.version, step.plural, !step.namespaceName.isEmpty()
    };
    m_client->get(ref, step.namespaceName, step.name, answer);
}

void ScenarioPlayer::handleWaitAnswer(
    int index, const models::Result<nlohmann::json, apimachinery::ApiError> &answer)
{
    if (!isWaiting() || index != m_next)
        return;
    const ScenarioStep &step = m_scenario.steps[index];
    bool reached = false;
    if (!answer.ok()) {
        const apimachinery::ApiError &error = answer.error();
        reached = error.isNotFound() && !step.waitState;
        m_observed = error.isNotFound() ? tr("not found") : error.toString();
    } else {
        const bool customApp
            = step.group == u"infrastructure.internal.net"_s && step.plural == u"customapps"_s;
        const models::LifecycleMapping mapping = customApp
            ? models::LifecycleMapping::forCustomApp()
            : models::LifecycleMapping::defaults();
        const auto summary = models::ObjectSummary::fromJson(answer.value(), mapping);
        if (!summary.ok()) {
            m_observed = summary.error().message;
        } else {
            const models::LifecycleVerdict verdict = models::deriveLifecycle(*summary, mapping);
            const QString state = models::lifecycleStateName(verdict.state);
            m_observed = verdict.reason.isEmpty() ? state : u"%1 (%2)"_s.arg(state, verdict.reason);
            reached = step.waitState == verdict.state
                && (step.waitReason.isEmpty() || step.waitReason == verdict.reason);
        }
    }
    const qint64 waited = waitedMs();
    if (reached) {
        finishStep(index,
                   true,
                   tr("%1 is %2 after %3 s")
                       .arg(step.objectKey(), step.waitTargetText())
                       .arg(double(waited) / 1000.0, 0, 'f', 1));
        return;
    }
    if (waited >= step.timeoutMs) {
        const QString message = tr("timed out after %1 s: %2 is not %3 (it is %4)")
                                    .arg(double(step.timeoutMs) / 1000.0, 0, 'f', 0)
                                    .arg(step.objectKey(), step.waitTargetText(), m_observed);
        finishStep(index, false, message);
        // What follows relies on that state: stop here and say why.
        m_pauseReason = tr("Step %1 %2").arg(index + 1).arg(message);
        if (m_playing)
            pause();
        else
            emit playingChanged(false);
        return;
    }
    if (m_playing)
        m_pollTimer.start();
}

} // namespace reconscope::controller::console
