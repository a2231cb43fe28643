#include "controller/operator/customappoperator.h"

namespace reconscope::controller::operators {

CustomAppOperator::CustomAppOperator(kube::ClientConfig config,
                                     reconcile::Clock &clock,
                                     Options options,
                                     QObject *parent)
    : QObject(parent)
{
    if (options.leaderElection && options.reconciler.instance.isEmpty())
        options.reconciler.instance = options.lease.identity;
    m_reconciler = new CustomAppReconciler(std::move(config), clock, options.reconciler, this);
    options.loop.startPaused = options.loop.startPaused || options.leaderElection;
    m_loop = new reconcile::ControllerLoop(clock, *m_reconciler, options.loop, this);
    m_reconciler->setEnqueue(
        [this](const QString &key, const QString &trigger) { m_loop->enqueue(key, trigger); });
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

void CustomAppOperator::setActive(bool active)
{
    if (m_active == active)
        return;
    m_active = active;
    m_loop->setPaused(!active);
    emit activeChanged(active);
}

} // namespace reconscope::controller::operators
