#pragma once

#include "models/lifecyclestate.h"
#include "models/objectsummary.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace reconscope::models {

// Reconcile latency from the watch stream (issue 23): for each spec change seen (a generation
// bump), how long until the status caught up (status.observedGeneration reached it) and until the
// object settled, Ready or Degraded, after that.
struct LatencySample
{
    QString resource;
    QString key;
    qint64 generation = 0;
    qint64 observedMs = 0; // bump -> observedGeneration caught up
    qint64 settledMs = 0; // bump -> Ready or Degraded (at or after catching up)
    LifecycleState outcome = LifecycleState::Ready;
};

// Nearest-rank percentiles of one resource's settled latencies, in milliseconds.
struct LatencySummary
{
    qsizetype count = 0;
    qint64 p50 = 0;
    qint64 p95 = 0;
    qint64 p99 = 0;
    qint64 max = 0;
};

// The nearest-rank percentile (0 < p <= 100) of ascending values: the smallest value with at least
// p% of them at or below it; 0 for none.
qint64 nearestRankPercentile(const std::vector<qint64> &ascending, double p);

// Fed each object's summary and state as the watch delivers them, at an injected `now`. An
// object's first observation (the census) starts nothing: its bump was not seen. A bump while a
// measurement is open restarts it (the controller now works toward the newer spec). Keeps the
// newest `samplesPerResource` samples of each resource. Not thread-safe.
class ReconcileLatency
{
public:
    explicit ReconcileLatency(qsizetype samplesPerResource = 10000);

    // The sample the observation completed, if it did.
    std::optional<LatencySample> observe(const QString &resource,
                                         const ObjectSummary &summary,
                                         LifecycleState state,
                                         const QDateTime &now);
    void remove(const QString &resource, const QString &key);
    void clear();

    QStringList resources() const; // those with samples, sorted
    LatencySummary summary(const QString &resource) const;
    // The `count` slowest samples kept (settled latency, slowest first), of every resource.
    QList<LatencySample> slowest(qsizetype count) const;

private:
    struct Track
    {
        qint64 generation = 0;
        bool open = false; // a bump seen, not settled yet
        bool caughtUp = false;
        QDateTime bumpedAt;
        QDateTime caughtUpAt;
    };
    qsizetype m_limit;
    QHash<QString, Track> m_tracks; // "resource\nkey"
    QHash<QString, QList<LatencySample>> m_samples; // resource -> oldest first
};

} // namespace reconscope::models
