#pragma once

#include "controller/kube/clientconfig.h"
#include "controller/kube/discovery.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/problems.h"
#include "models/reconcilelatency.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QStringList>

#include <array>
#include <functional>
#include <map>
#include <memory>

namespace reconscope::controller::kube {
class InformerStore;
}

namespace reconscope::controller::console {

class ConsoleSession;

// One resource the overview watches, with the rules its objects are judged by.
struct OverviewResource
{
    kube::DiscoveredResource resource;
    models::LifecycleMapping mapping;
};

// How the console reads a resource's lifecycle: the CustomApp's own mapping, a CRD's from its
// definition (status conditions, health field), the defaults otherwise.
models::LifecycleMapping lifecycleMappingFor(const kube::DiscoveredResource &resource,
                                             const QHash<QString, QByteArray> &crds);
// Every served custom resource discovery knows, one per CRD (its preferred version when
// discovery says which), in qualified-name order, each with lifecycleMappingFor's mapping.
QList<OverviewResource> servedCustomResources(const kube::DiscoveryClient &discovery);

// All custom resources at once (issue 23): one informer per resource, keeping summaries only
// (kube::summaryTransform(): the list fast path, no bytes), each feeding a lifecycle tracker of
// its own (the first list as the census, a relist after a gap across it), one ProblemTracker and
// one ReconcileLatency across all of them. Per-resource state counts and graph statistics, and
// their sum, are read between ticks. Time comes from an injected clock.
//
// Threads: lives on the console's UI thread; each informer lists and watches on a thread of its
// own and hands over one batch per tick.
class CrdOverview final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CrdOverview)

public:
    using Clock = std::function<QDateTime()>;
    using Counts = std::array<int, models::LifecycleStateCount>;

    explicit CrdOverview(QObject *parent = nullptr);
    // Follows the session: every served custom resource of the cluster it connects to, in its
    // namespace filter, restarted when either changes and updated as CRDs come and go.
    explicit CrdOverview(ConsoleSession *session, QObject *parent = nullptr);
    ~CrdOverview() override;

    void setClock(Clock clock) { m_clock = std::move(clock); }
    QDateTime now() const { return m_clock(); }
    // The informers' batch interval (for those started next).
    void setBatchInterval(int milliseconds) { m_batchIntervalMs = milliseconds; }

    // Watches these resources through `config` ("" = all namespaces): a resource no longer listed
    // stops being watched (and leaves the counts and the problems), a new one starts, one watched
    // already keeps its informer unless the config or the namespace changed.
    void watch(const kube::ClientConfig &config,
               const QList<OverviewResource> &resources,
               const QString &namespace_ = {});
    void stop();

    QStringList resources() const; // qualified names, sorted
    const OverviewResource *resource(const QString &qualifiedName) const;
    // Every informer has its first list.
    bool hasSynced() const;
    Counts counts(const QString &qualifiedName) const; // zeros for an unknown resource
    int objectCount(const QString &qualifiedName) const;
    int totalObjects() const;
    // The state graph's statistics of one resource (empty for an unknown one), and of all.
    models::StateGraphStats stats(const QString &qualifiedName) const;
    models::StateGraphStats aggregatedStats() const;
    const models::ProblemTracker &problemTracker() const { return m_problems; }
    // Spec change -> status caught up -> Ready or Degraded, per object and per resource, from
    // the watch (an object's first observation starts nothing).
    const models::ReconcileLatency &latency() const { return m_latency; }

signals:
    // After a tick's changes were applied: the resources whose objects changed.
    void countsChanged(const QStringList &resources);
    // The set of resources watched changed (watch(), stop()).
    void resourcesChanged();
    // Every informer has its first list (once per watch() that started one).
    void synced();

private:
    struct Watched;
    void start(Watched &watched);
    void
    handleObjectsChanged(Watched &watched, const QStringList &upserted, const QStringList &removed);
    void followSession();

    Clock m_clock;
    int m_batchIntervalMs = 100;
    kube::ClientConfig m_config;
    QString m_namespace;
    std::map<QString, std::unique_ptr<Watched>> m_watched;
    models::ProblemTracker m_problems;
    models::ReconcileLatency m_latency;
    bool m_syncAnnounced = false;
    ConsoleSession *m_session = nullptr;
};

} // namespace reconscope::controller::console
