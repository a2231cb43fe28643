#pragma once

#include "controller/kube/clientconfig.h"
#include "models/result.h"

#include <QObject>

#include <memory>

namespace reconscope::controller::cluster {
class BackgroundCluster;
class EmbeddedServer;
} // namespace reconscope::controller::cluster

namespace reconscope::controller::kube {
class RestClient;
}

namespace reconscope::controller::operators {
class CustomAppOperator;
}

namespace reconscope::controller::reconcile {
class Clock;
class ControllerLoop;
} // namespace reconscope::controller::reconcile

namespace reconscope::controller::console {

class ScenarioPlayer;

// What demo mode adds to a console session: the embedded cluster on a thread of its own (demo
// objects seeded), the CustomApp operator run against it as a client like any other, and the demo
// scenario player. The player exists in every session, loaded with the default scenario, but only
// sends in demo mode (a real cluster is never written to by a scenario).
class DemoEnvironment final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoEnvironment)

public:
    explicit DemoEnvironment(QObject *parent = nullptr);
    // The player and the operator stop before the embedded cluster they talk to.
    ~DemoEnvironment() override;

    // Starts the embedded cluster; started() or failed() follows.
    models::Status<> startCluster();
    bool clusterRunning() const { return m_cluster != nullptr; }
    // The embedded cluster's server, living on its thread (null when none runs).
    cluster::EmbeddedServer *embeddedServer() const;

    // Runs the CustomApp operator with `config`'s credentials (the session's own).
    void startReconciler(const kube::ClientConfig &config);
    void stopReconciler();
    // The operator's loop, null when none runs.
    reconcile::ControllerLoop *controllerLoop() const;

    ScenarioPlayer *scenarioPlayer() const { return m_player; }
    // The client the scenario sends through (null: it does not send).
    void setScenarioClient(kube::RestClient *client);

signals:
    void started(const QString &kubeconfigPath);
    void failed(const QString &message);
    void reconcilerChanged();

private:
    ScenarioPlayer *m_player;
    std::unique_ptr<reconcile::Clock> m_clock;
    operators::CustomAppOperator *m_operator = nullptr;
    cluster::BackgroundCluster *m_cluster = nullptr;
};

} // namespace reconscope::controller::console
