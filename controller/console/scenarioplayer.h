#pragma once

#include "controller/kube/restclient.h"
#include "models/scenario.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace reconscope::controller::console {

// Plays a demo scenario against a cluster: each step's API call goes through the kube client (as
// any user's would), `afterMs` of scenario time after the previous step's answer. Scenario time
// runs at `speed` (0.5x-8x) while playing and stands still while paused; a looping scenario starts
// over after its last step. The player writes only what the scenario says; what the reconciler and
// the workload simulator make of the writes is theirs.
//
// A waitFor step reads its object (a GET every PollIntervalMs) until the lifecycle rules give the
// state it waits for (or the object is gone), so a step that needs a previous state does not
// depend on a delay being long enough. Its timeout counts playing time (not scaled by the speed:
// the cluster's pace does not change with it) and stands still while paused. A wait that times
// out fails its step, and the player pauses with pauseReason() saying what the object was doing;
// Play goes on with the next step. "Run next step now" on a running wait skips it.
class ScenarioPlayer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ScenarioPlayer)

public:
    static constexpr double MinSpeed = 0.5;
    static constexpr double MaxSpeed = 8.0;
    static constexpr int PollIntervalMs = 200;

    explicit ScenarioPlayer(QObject *parent = nullptr);
    ~ScenarioPlayer() override;

    // The client the steps are sent through (not owned; null stops sending: steps then fail).
    void setClient(kube::RestClient *client);
    // Loads a scenario and rewinds (stays paused or playing as it was).
    void setScenario(const models::Scenario &scenario);
    const models::Scenario &scenario() const { return m_scenario; }
    // The default scenario compiled into the binary (resources/scenarios/customapp-tour.json).
    static models::Result<models::Scenario> defaultScenario();

    void play();
    void pause();
    void setPlaying(bool playing) { playing ? play() : pause(); }
    bool isPlaying() const { return m_playing; }
    // Clamped to [MinSpeed, MaxSpeed]; takes effect on the wait in progress too.
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    // Back to the first step, for the next round or a fresh start.
    void rewind();
    // Runs the next step now (also while paused); skips a running wait.
    void stepNow();

    // The step that runs next (or is running), the rounds completed, scenario time left until it.
    int nextStep() const { return m_next; }
    bool isStepRunning() const { return m_running; }
    int round() const { return m_round; }
    qint64 remainingMs() const;
    // A running waitFor step: playing time waited so far (once it finished: all it waited, until
    // the next wait starts), and what its object was last seen as ("Degraded (QuotaExceeded)",
    // "not found", an error).
    bool isWaiting() const;
    qint64 waitedMs() const;
    QString lastObserved() const { return m_observed; }
    // Why the player paused itself (a wait timed out); empty once playing again or rewound.
    QString pauseReason() const { return m_pauseReason; }

signals:
    void playingChanged(bool playing);
    void speedChanged(double speed);
    void scenarioChanged();
    void rewound();
    void stepStarted(int step);
    // ok false: the server refused (message is its Status as a line).
    void stepFinished(int step, bool ok, const QString &message);
    // The last step finished; a looping scenario rewinds right after.
    void roundFinished(int round);

private:
    using Answer = std::function<void(models::Result<nlohmann::json, apimachinery::ApiError>)>;
    // Answers `answer` with a "not connected" error on the next event-loop turn, as a request
    // would.
    void answerNotConnected(const Answer &answer);
    void schedule();
    void freezeRemaining();
    void runStep();
    void handleAnswer(int step,
                      const models::Result<nlohmann::json, apimachinery::ApiError> &answer);
    void finishStep(int step, bool ok, const QString &message);
    // waitFor: one GET of the object, its answer, the clock that counts the time waited.
    void poll();
    void handleWaitAnswer(int step,
                          const models::Result<nlohmann::json, apimachinery::ApiError> &answer);
    void suspendWait();
    void resumeWait();

    QPointer<kube::RestClient> m_client;
    models::Scenario m_scenario;
    QTimer m_timer;
    QTimer m_pollTimer;
    QElapsedTimer m_waitClock; // valid while a wait runs and the player plays
    qint64 m_waitedBeforeMs = 0; // playing time waited before m_waitClock started
    bool m_pollInFlight = false;
    QString m_observed;
    QString m_pauseReason;
    QElapsedTimer m_waitingSince;
    qint64 m_remainingMs = 0; // scenario time until the next step, as of m_waitingSince
    int m_next = 0;
    int m_round = 0;
    double m_speed = 1.0;
    bool m_playing = false;
    bool m_running = false;
    quint64 m_generation = 0; // answers of a previous scenario or round are dropped
};

} // namespace reconscope::controller::console
