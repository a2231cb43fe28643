#include "controller/console/scenarioplayer.h"

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
    m_waitingSince.start();
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
    if (m_running || m_scenario.steps.isEmpty())
        return;
    m_timer.stop();
    runStep();
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
    auto answer = [self, generation, index](models::Result<nlohmann::json, kube::ApiError> result) {
        if (self && self->m_generation == generation)
            self->handleAnswer(index, result);
    };
    if (step.verb == ScenarioStep::Verb::Wait) {
        QMetaObject::invokeMethod(
            this, [answer] { answer(nlohmann::json::object()); }, Qt::QueuedConnection);
        return;
    }
    if (!m_client) {
        QMetaObject::invokeMethod(
            this,
            [answer] {
                answer(kube::ApiError::make(kube::ApiError::Category::Network,
                                            tr("not connected to a cluster")));
            },
            Qt::QueuedConnection);
        return;
    }
    const kube::ResourceRef ref{
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
                        kube::PatchType::Merge,
                        QByteArray::fromStdString(step.body.dump()),
                        answer);
        break;
    case ScenarioStep::Verb::Delete:
        m_client->remove(ref, step.namespaceName, step.name, kube::DeleteOptions(), answer);
        break;
    case ScenarioStep::Verb::Wait:
        break;
    }
}

void ScenarioPlayer::handleAnswer(int index,
                                  const models::Result<nlohmann::json, kube::ApiError> &answer)
{
    const ScenarioStep &step = m_scenario.steps[index];
    bool ok = answer.ok();
    QString message;
    if (!ok) {
        const kube::ApiError &error = answer.error();
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
    m_running = false;
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

} // namespace reconscope::controller::console
