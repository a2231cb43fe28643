#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/operator/customappreconciler.h"
#include "controller/reconcile/clock.h"
#include "controller/record/recordingset.h"
#include "controller/record/replaystate.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace reconscope::controller::kube {
class RestClient;
}
namespace reconscope::controller::operators {
class CustomAppOperator;
}
namespace reconscope::controller::record {
class RecordingPlayer;
}

namespace reconscope::controller::labs {

class LabCluster;

// One recorded change of a CustomApp and what the reconciler, run on the recorded world as it was
// right after that change, would have written.
struct DryRunStep
{
    qint64 index = 0; // 1, 2, ... over the recording's CustomApp changes
    QDateTime time; // when it was recorded
    bool timeEstimated = false;
    QString key; // "namespace/name"
    QString change; // "created or changed", "deleted"
    QList<operators::PlannedWrite> writes;
    QString outcome; // the reconcile's result in the loop's words, or why none ran
};

// The CustomApp reconciler in dry-run over a replay (issue 24): a recording (or kubectl captures)
// played into a LabCluster of its own, change by change (record::RecordingPlayer, as fast as the
// cluster takes it), while a CustomAppOperator in dry-run, its ControllerLoop paused, watches
// there. After each recorded change of a CustomApp the player waits while the loop runs exactly
// that key once (ControllerLoop::step), reading the cluster as the recording had it at that
// moment; the writes it plans are that step's. Reconciles the watch would trigger in between are
// held by the pause, so no step sees a half-made change.
class ReplayDryRun final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplayDryRun)

public:
    explicit ReplayDryRun(std::unique_ptr<record::RecordSource> source, QObject *parent = nullptr);
    ~ReplayDryRun() override;

    void start();
    const record::RecordSource &source() const { return *m_sourceView; }

signals:
    void stepPlanned(const reconscope::controller::labs::DryRunStep &step);
    // Once: the whole recording was played (error empty), or why it stopped.
    void finished(const QString &error);

private:
    void handleClusterReady(const kube::ClientConfig &config);
    void
    afterChange(const record::ReplayChange &change, qint64 writes, std::function<void()> resume);
    void finishStep();
    void fail(const QString &message);

    std::unique_ptr<record::RecordSource> m_source; // until the player takes it
    const record::RecordSource *m_sourceView;
    reconcile::RealClock m_clock;
    LabCluster *m_cluster;
    kube::RestClient *m_client = nullptr;
    record::RecordingPlayer *m_player = nullptr;
    operators::CustomAppOperator *m_operator = nullptr;
    DryRunStep m_step; // the step waiting for its reconcile
    std::function<void()> m_resume; // set while a step waits
    quint64 m_stepReconcile = 0; // the id of the reconcile the step runs
    qint64 m_steps = 0;
    bool m_done = false;
};

} // namespace reconscope::controller::labs

Q_DECLARE_METATYPE(reconscope::controller::labs::DryRunStep)
