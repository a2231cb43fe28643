#pragma once

#include "controller/cluster/apitypes.h"
#include "controller/cluster/cluster.h"
#include "models/result.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <optional>
#include <vector>

namespace reconscope::controller::cluster {

// A load generator inside the embedded cluster: it writes the status of the objects of one
// resource itself, round robin, at a given rate, through the cluster's normal write path
// (Cluster::updateStatus: validation, a new resourceVersion, a MODIFIED watch event to every
// watcher). Nothing goes over the network, so the rate is not bound by an HTTP client.
//
// Each write upserts one condition of type "Churn" (status True, reason Churn) in
// status.conditions and leaves everything else of the status alone; its message carries the send
// time as "churn-ts <ns> seq <n>", <ns> being CLOCK_MONOTONIC (std::chrono::steady_clock) in
// nanoseconds, which every process of the machine shares, so a client can tell how long the change
// took to reach it. The condition survives pruning: the CustomApp schema (and any CRD whose
// conditions follow metav1.Condition) keeps type, status, reason, message, lastTransitionTime and
// observedGeneration.
//
// The objects are known from the cluster's own events (subscribe()), plus one paged list of the
// resource when churning starts on a resource not listed before.
class ChurnMutator final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChurnMutator)

public:
    static constexpr char TimestampPrefix[] = "churn-ts ";
    static constexpr char ConditionType[] = "Churn";

    explicit ChurnMutator(Cluster *cluster, QObject *parent = nullptr);
    ~ChurnMutator() override;

    // `resource`: a plural ("customapps") or plural.group
    // ("customapps.infrastructure.internal.net") of a served resource with a status subresource;
    // `namespace_` empty for all namespaces. `rate` > 0 changes per second. Replaces any running
    // churn.
    models::Status<> start(const QString &resource, double rate, const QString &namespace_ = {});
    void stop();

    bool isRunning() const { return m_timer.isActive(); }
    double rate() const { return m_rate; }
    // Changes committed and refused (e.g. the object went away) since start().
    qint64 applied() const { return m_applied; }
    qint64 failed() const { return m_failed; }
    // Changes that were due but dropped because the cluster could not keep up (the debt is
    // capped at a tenth of a second's worth).
    qint64 skipped() const { return m_skipped; }
    // Objects of the churned resource (in the namespace) it knows of.
    qsizetype targetCount() const;
    // {"running","resource","namespace","rate","applied","failed","skipped","objects",
    //  "seconds","appliedPerSecond","lastError"}: "seconds" from start() to stop() (or now);
    // "appliedPerSecond" the rate times the share of the changes due by the last tick that were
    // made (the rate itself when none was skipped, failed or left behind; applied/seconds would
    // read a little less even then, the changes due after the last 5 ms tick not being made).
    nlohmann::json state() const;

    // The send time in a message written by the mutator (CLOCK_MONOTONIC ns), if it is one.
    static std::optional<qint64> sentAt(QStringView message);
    // CLOCK_MONOTONIC now, ns.
    static qint64 monotonicNs();

private:
    struct Target
    {
        QString ns;
        QString name;
        // Where the last write put the Churn condition in status.conditions (-1: unknown): the
        // next write is then a JSON patch that tests that entry's type and replaces its message,
        // which spares reading the object first; a failed test falls back to read and update.
        int conditionIndex = -1;
    };
    struct KeySet
    {
        std::vector<Target> items;
        QHash<QString, qsizetype> index; // "ns/name" -> position in items
        bool listed = false;
        void add(const QString &ns, const QString &name);
        void remove(const QString &ns, const QString &name);
    };

    void handleEvent(const ClusterEvent &event);
    void handleTick();
    void churnOne();
    bool patchKnownCondition(Target &target, const std::string &message);
    void listExisting(KeySet &keys);

    QPointer<Cluster> m_cluster;
    int m_subscription = 0;
    QHash<QString, KeySet> m_keys; // storage key ("group/plural") -> objects

    apimachinery::ResourceRef m_ref;
    QString m_resourceName; // plural.group as given back in state()
    QString m_storageKey;
    QString m_namespace;
    double m_rate = 0;
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_due = 0; // changes due since start, including skipped ones
    qint64 m_applied = 0;
    qint64 m_failed = 0;
    qint64 m_skipped = 0;
    qint64 m_sequence = 0;
    qint64 m_lastTarget = 0; // changes due since start at the last tick
    qint64 m_runNs = -1; // how long it ran, once stopped
    qint64 m_inPlaceAtStart = 0;
    qsizetype m_cursor = 0;
    QString m_lastError;
};

// Wraps an API handler with the mutator's control endpoint, which no Kubernetes path can collide
// with (kube-apiserver serves /debug/pprof, /debug/flags and /debug/api_priority_and_fairness;
// nothing under /debug/reconscope/):
//   GET  /debug/reconscope/churn                                  -> state() as JSON
//   POST /debug/reconscope/churn?rate=N&resource=R[&namespace=NS] -> starts (rate 0 stops), state
// Only group system:masters may use it (403 otherwise); other paths go to `inner`.
ApiHandler withChurnEndpoint(ApiHandler inner, QPointer<ChurnMutator> mutator);

inline constexpr char ChurnEndpointPath[] = "/debug/reconscope/churn";

} // namespace reconscope::controller::cluster
