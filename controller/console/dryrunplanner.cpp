#include "controller/console/dryrunplanner.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace reconscope::controller::console {

namespace {

operators::CustomAppReconciler::Options dryRunOptions()
{
    operators::CustomAppReconciler::Options options;
    options.dryRun = true;
    return options;
}

QString describe(const reconcile::ReconcileOutcome &outcome)
{
    if (outcome.error)
        return outcome.error->terminal
            ? DryRunPlanner::tr("terminal error, no retry: %1").arg(outcome.error->message)
            : DryRunPlanner::tr("error, would retry with backoff: %1").arg(outcome.error->message);
    if (outcome.result.requeueAfter > reconcile::Duration::zero())
        return DryRunPlanner::tr("would requeue after %1")
            .arg(reconcile::formatDuration(outcome.result.requeueAfter));
    if (outcome.result.requeue)
        return DryRunPlanner::tr("would requeue (rate limited)");
    return DryRunPlanner::tr("success");
}

} // namespace

DryRunPlanner::DryRunPlanner(kube::ClientConfig config, QObject *parent)
    : QObject(parent)
    , m_reconciler(
          new operators::CustomAppReconciler(std::move(config), m_clock, dryRunOptions(), this))
{
    // Watch events need no queue here: plans are made on demand.
    m_reconciler->setEnqueue([](const QString &, const QString &) {});
    connect(m_reconciler,
            &operators::CustomAppReconciler::cachesSynced,
            this,
            &DryRunPlanner::runPending);
    m_reconciler->start();
}

DryRunPlanner::~DryRunPlanner()
{
    m_reconciler->stop();
}

bool DryRunPlanner::isReady() const
{
    return m_reconciler->hasSynced();
}

void DryRunPlanner::plan(const QString &key)
{
    if (!m_pending.contains(key))
        m_pending.append(key);
    if (m_reconciler->hasSynced())
        runPending();
}

void DryRunPlanner::runPending()
{
    const QStringList keys = std::exchange(m_pending, {});
    for (const QString &key : keys) {
        QPointer<DryRunPlanner> self(this);
        m_reconciler->reconcileAsync(key, [self, key](reconcile::ReconcileOutcome outcome) {
            if (self)
                emit self->planned(key, self->m_reconciler->lastWrites(key), describe(outcome));
        });
    }
}

} // namespace reconscope::controller::console
