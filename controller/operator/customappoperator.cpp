#include "controller/operator/customappoperator.h"

#include "models/lifecycle.h"

namespace reconscope::controller::operators {

CustomAppOperator::CustomAppOperator(kube::ClientConfig config,
                                     reconcile::Clock &clock,
                                     Options options,
                                     QObject *parent)
    : QObject(parent)
    , m_clock(clock)
{
    if (options.leaderElection && options.reconciler.instance.isEmpty())
        options.reconciler.instance = options.lease.identity;
    m_reconciler = new CustomAppReconciler(std::move(config), clock, options.reconciler, this);
    options.loop.startPaused = options.loop.startPaused || options.leaderElection;
    m_loop = new reconcile::ControllerLoop(clock, *m_reconciler, options.loop, this);
    m_reconciler->setEnqueue(
        [this](const QString &key, const QString &trigger) { m_loop->enqueue(key, trigger); });
    connect(m_reconciler,
            &CustomAppReconciler::customAppObserved,
            this,
            &CustomAppOperator::measureLatency);
    connect(m_reconciler, &CustomAppReconciler::customAppRemoved, this, [this](const QString &key) {
        m_latency.remove(QString(), key);
    });
    if (options.leaderElection) {
        m_elector = new LeaderElector(m_reconciler->client(), clock, options.lease, this);
        connect(m_elector, &LeaderElector::startedLeading, this, [this] { setActive(true); });
        connect(m_elector, &LeaderElector::stoppedLeading, this, [this] { setActive(false); });
    } else {
        m_active = !options.loop.startPaused;
    }
}

CustomAppOperator::~CustomAppOperator()
{
    // The loop refers to the reconciler: it goes first.
    delete m_elector;
    m_elector = nullptr;
    delete m_loop;
    m_loop = nullptr;
}

void CustomAppOperator::start()
{
    m_reconciler->start();
    if (m_elector)
        m_elector->start();
}

void CustomAppOperator::stop()
{
    if (m_elector)
        m_elector->stop();
    m_loop->stop();
    m_reconciler->stop();
    setActive(false);
}

void CustomAppOperator::measureLatency(const models::ObjectSummary &summary)
{
    const models::LifecycleVerdict verdict = models::deriveLifecycle(summary, m_mapping);
    const auto sample = m_latency.observe(
        QString(), summary, verdict.state, reconcile::toDateTime(m_clock.now()));
    if (sample && m_loop) // (none once the destructor took the loop)
        m_loop->recordEndToEnd(double(sample->observedMs) / 1000.0,
                               double(sample->settledMs) / 1000.0);
}

void CustomAppOperator::setActive(bool active)
{
    if (m_active == active)
        return;
    m_active = active;
    m_loop->setPaused(!active);
    emit activeChanged(active);
}

} // namespace reconscope::controller::operators
