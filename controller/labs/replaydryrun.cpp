#include "controller/labs/replaydryrun.h"

#include "controller/kube/restclient.h"
#include "controller/labs/labcluster.h"
#include "controller/operator/customappoperator.h"
#include "controller/record/recordingplayer.h"

#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::controller::labs {

namespace {

// How long one step may wait for its reconcile (the reconciler reads the cluster, nothing else).
constexpr int StepTimeoutMs = 30'000;

} // namespace

ReplayDryRun::ReplayDryRun(std::unique_ptr<record::RecordSource> source, QObject *parent)
    : QObject(parent)
    , m_source(std::move(source))
    , m_sourceView(m_source.get())
    , m_cluster(new LabCluster(this))
{
    connect(m_cluster, &LabCluster::ready, this, &ReplayDryRun::handleClusterReady);
    connect(m_cluster, &LabCluster::failed, this, &ReplayDryRun::fail);
}

ReplayDryRun::~ReplayDryRun()
{
    if (m_operator)
        m_operator->stop();
}

void ReplayDryRun::start()
{
    if (const auto started = m_cluster->start(); !started)
        fail(started.error().message);
}

void ReplayDryRun::handleClusterReady(const kube::ClientConfig &config)
{
    m_client = new kube::RestClient(config, this);
    m_player = new record::RecordingPlayer(m_client, std::move(m_source), 0, this);
    m_player->setAfterChange(
        [this](const record::ReplayChange &change, qint64 writes, std::function<void()> resume) {
            afterChange(change, writes, std::move(resume));
        });
    connect(m_player, &record::RecordingPlayer::finished, this, [this](const QString &error) {
        if (!error.isEmpty()) {
            fail(error);
            return;
        }
        m_done = true;
        m_operator->stop();
        emit finished(QString());
    });

    operators::CustomAppOperator::Options options;
    options.reconciler.dryRun = true;
    options.leaderElection = false;
    m_operator = new operators::CustomAppOperator(config, m_clock, options, this);
    reconcile::ControllerLoop &loop = m_operator->loop();
    // Only the steps run reconciles: what the watch would trigger waits in the paused queue.
    loop.setPaused(true);
    connect(&m_operator->reconciler(),
            &operators::CustomAppReconciler::writeRecorded,
            this,
            [this](const QString &key, const operators::PlannedWrite &write) {
                if (m_resume && m_stepReconcile != 0 && key == m_step.key)
                    m_step.writes.append(write);
            });
    connect(&loop,
            &reconcile::ControllerLoop::reconcileStarted,
            this,
            [this](const QString &key, quint64 id) {
                if (m_resume && key == m_step.key)
                    m_stepReconcile = id;
            });
    connect(&loop,
            &reconcile::ControllerLoop::reconcileFinished,
            this,
            [this](const reconcile::ReconcileRecord &record) {
                if (!m_resume || record.id != m_stepReconcile)
                    return;
                m_step.outcome = record.explanation.isEmpty() ? reconcile::resultName(record.result)
                                                              : record.explanation;
                finishStep();
            });
    connect(
        &m_operator->reconciler(),
        &operators::CustomAppReconciler::cachesSynced,
        this,
        [this] { m_player->start(); },
        Qt::SingleShotConnection);
    m_operator->start();
}

void ReplayDryRun::afterChange(const record::ReplayChange &change,
                               qint64 writes,
                               std::function<void()> resume)
{
    const record::RecordedResource &resource = m_player->state().resources()[change.resource];
    if (resource.kind != u"CustomApp"_s || writes == 0) {
        resume(); // not the reconciler's, or nothing changed in the cluster
        return;
    }
    m_step = {};
    m_step.index = ++m_steps;
    m_step.time = m_sourceView->header().wallTime(change.time);
    m_step.timeEstimated = change.estimated;
    m_step.key = change.key;
    m_step.change = change.type == record::ReplayChange::Type::Delete ? u"deleted"_s
                                                                      : u"created or changed"_s;
    m_resume = std::move(resume);
    m_stepReconcile = 0;
    reconcile::ControllerLoop &loop = m_operator->loop();
    loop.enqueue(change.key, u"replayed change"_s);
    if (!loop.step(change.key)) {
        m_step.outcome = u"the paused loop would not run it"_s;
        finishStep();
        return;
    }
    const qint64 index = m_step.index;
    QTimer::singleShot(StepTimeoutMs, this, [this, index] {
        if (m_resume && m_step.index == index) {
            m_step.outcome = u"no reconcile finished within %1 s"_s.arg(StepTimeoutMs / 1000);
            finishStep();
        }
    });
}

void ReplayDryRun::finishStep()
{
    emit stepPlanned(m_step);
    m_stepReconcile = 0;
    if (auto resume = std::exchange(m_resume, {}))
        resume();
}

void ReplayDryRun::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    if (m_operator)
        m_operator->stop();
    emit finished(message);
}

} // namespace reconscope::controller::labs
