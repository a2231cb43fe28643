#include "models/reconcilelatency.h"

#include <algorithm>
#include <cmath>

namespace reconscope::models {

qint64 nearestRankPercentile(const std::vector<qint64> &ascending, double p)
{
    if (ascending.empty())
        return 0;
    const auto rank = qsizetype(std::ceil(p / 100.0 * double(ascending.size())));
    return ascending[std::size_t(std::clamp<qsizetype>(rank, 1, qsizetype(ascending.size())) - 1)];
}

ReconcileLatency::ReconcileLatency(qsizetype samplesPerResource)
    : m_limit(std::max<qsizetype>(1, samplesPerResource))
{ }

std::optional<LatencySample> ReconcileLatency::observe(const QString &resource,
                                                       const ObjectSummary &summary,
                                                       LifecycleState state,
                                                       const QDateTime &now)
{
    const QString id = resource + u'\n' + summary.key;
    const qint64 generation = summary.generation.value_or(0);
    auto it = m_tracks.find(id);
    if (it == m_tracks.end()) {
        m_tracks.insert(id, Track{ generation, false, false, {}, {} });
        return std::nullopt;
    }
    Track &track = it.value();
    if (generation > track.generation) {
        track = Track{ generation, true, false, now, {} };
    }
    if (!track.open)
        return std::nullopt;
    if (!track.caughtUp && summary.observedGeneration
        && *summary.observedGeneration >= track.generation) {
        track.caughtUp = true;
        track.caughtUpAt = now;
    }
    const bool settled = state == LifecycleState::Ready || state == LifecycleState::Degraded;
    if (!track.caughtUp || !settled)
        return std::nullopt;
    track.open = false;
    LatencySample sample{ resource,
                          summary.key,
                          track.generation,
                          track.bumpedAt.msecsTo(track.caughtUpAt),
                          track.bumpedAt.msecsTo(now),
                          state };
    QList<LatencySample> &samples = m_samples[resource];
    samples.append(sample);
    if (samples.size() > m_limit)
        samples.removeFirst();
    return sample;
}

void ReconcileLatency::remove(const QString &resource, const QString &key)
{
    m_tracks.remove(resource + u'\n' + key);
}

void ReconcileLatency::clear()
{
    m_tracks.clear();
    m_samples.clear();
}

QStringList ReconcileLatency::resources() const
{
    QStringList names = m_samples.keys();
    names.sort();
    return names;
}

LatencySummary ReconcileLatency::summary(const QString &resource) const
{
    std::vector<qint64> values;
    for (const LatencySample &sample : m_samples.value(resource))
        values.push_back(sample.settledMs);
    std::sort(values.begin(), values.end());
    LatencySummary out;
    out.count = qsizetype(values.size());
    out.p50 = nearestRankPercentile(values, 50);
    out.p95 = nearestRankPercentile(values, 95);
    out.p99 = nearestRankPercentile(values, 99);
    out.max = values.empty() ? 0 : values.back();
    return out;
}

QList<LatencySample> ReconcileLatency::slowest(qsizetype count) const
{
    QList<LatencySample> all;
    for (const QList<LatencySample> &samples : m_samples)
        all << samples;
    std::stable_sort(all.begin(), all.end(), [](const LatencySample &a, const LatencySample &b) {
        if (a.settledMs != b.settledMs)
            return a.settledMs > b.settledMs;
        return std::tie(a.resource, a.key) < std::tie(b.resource, b.key);
    });
    if (all.size() > count)
        all.resize(count);
    return all;
}

} // namespace reconscope::models
