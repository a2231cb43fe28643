#include "models/problems.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

QString candidateKey(const QString &resource, const QString &key)
{
    return resource + u'\n' + key;
}

// Older than `threshold` at `now` (an unknown start never is).
bool olderThan(const QDateTime &since, const QDateTime &now, std::chrono::seconds threshold)
{
    return since.isValid() && since.secsTo(now) > threshold.count();
}

QString ageAt(const QDateTime &since, const QDateTime &now)
{
    return since.isValid() ? problemAge(since.secsTo(now)) : u"an unknown time"_s;
}

} // namespace

QString problemKindName(ProblemKind kind)
{
    switch (kind) {
    case ProblemKind::Degraded:
        return u"Degraded"_s;
    case ProblemKind::StuckTerminating:
        return u"Terminating"_s;
    case ProblemKind::StaleStatus:
        return u"Stale status"_s;
    case ProblemKind::LongPending:
        return u"Pending"_s;
    }
    return {};
}

QString problemAge(qint64 seconds)
{
    seconds = std::max<qint64>(seconds, 0);
    if (seconds < 60)
        return u"%1s"_s.arg(seconds);
    if (seconds < 3600)
        return u"%1m%2s"_s.arg(seconds / 60).arg(seconds % 60);
    if (seconds < 86400)
        return u"%1h%2m"_s.arg(seconds / 3600).arg(seconds % 3600 / 60);
    return u"%1d%2h"_s.arg(seconds / 86400).arg(seconds % 86400 / 3600);
}

void ProblemTracker::observe(const QString &resource,
                             const ObjectSummary &summary,
                             const LifecycleVerdict &verdict,
                             const QDateTime &now)
{
    const QString id = candidateKey(resource, summary.key);
    const bool stale = summary.generation && summary.observedGeneration
        && *summary.observedGeneration < *summary.generation;
    const bool mayBeProblem = verdict.state == LifecycleState::Degraded
        || verdict.state == LifecycleState::Pending || summary.markedForDeletion || stale;
    if (!mayBeProblem) {
        m_candidates.remove(id);
        return;
    }
    Candidate &candidate = m_candidates[id];
    const bool staleBefore
        = candidate.staleSeen.isValid() && candidate.generation == summary.generation;
    const bool degradedBefore
        = candidate.state == LifecycleState::Degraded && candidate.degradedSeen.isValid();
    candidate.resource = resource;
    candidate.key = summary.key;
    candidate.state = verdict.state;
    candidate.reason = verdict.reason;
    candidate.message = verdict.message;
    candidate.conditionSince = verdict.since;
    candidate.created = summary.creationTimestamp;
    candidate.deleting = summary.markedForDeletion;
    candidate.deletionTimestamp = summary.deletionTimestamp;
    candidate.finalizers = summary.finalizers;
    candidate.generation = summary.generation;
    candidate.observedGeneration = summary.observedGeneration;
    // Stale since the first observation at this generation: a later observation of the same
    // generation (a status write that did not catch up) keeps the first time.
    candidate.staleSeen = stale ? (staleBefore ? candidate.staleSeen : now) : QDateTime();
    const bool degraded = verdict.state == LifecycleState::Degraded;
    candidate.degradedSeen
        = degraded ? (degradedBefore ? candidate.degradedSeen : now) : QDateTime();
}

void ProblemTracker::remove(const QString &resource, const QString &key)
{
    m_candidates.remove(candidateKey(resource, key));
}

void ProblemTracker::removeResource(const QString &resource)
{
    m_candidates.removeIf([&resource](const auto &it) { return it.value().resource == resource; });
}

std::optional<Problem> ProblemTracker::classify(const Candidate &candidate,
                                                const QDateTime &now,
                                                const ProblemThresholds &thresholds)
{
    Problem problem;
    problem.resource = candidate.resource;
    problem.key = candidate.key;
    if (candidate.state == LifecycleState::Degraded) {
        problem.kind = ProblemKind::Degraded;
        problem.since = candidate.conditionSince.isValid() ? candidate.conditionSince
                                                           : candidate.degradedSeen;
        problem.cause = u"Degraded for %1: %2"_s.arg(ageAt(problem.since, now), candidate.reason);
        if (!candidate.message.isEmpty())
            problem.cause += u": "_s + candidate.message;
        return problem;
    }
    if (candidate.deleting && olderThan(candidate.deletionTimestamp, now, thresholds.terminating)) {
        problem.kind = ProblemKind::StuckTerminating;
        problem.since = candidate.deletionTimestamp;
        problem.cause = candidate.finalizers.isEmpty()
            ? u"deletion requested %1 ago, no finalizer left"_s.arg(ageAt(problem.since, now))
            : u"deletion requested %1 ago waits for finalizers: %2"_s.arg(
                ageAt(problem.since, now), candidate.finalizers.join(u", "_s));
        return problem;
    }
    if (candidate.state != LifecycleState::Pending
        && olderThan(candidate.staleSeen, now, thresholds.stale)) {
        problem.kind = ProblemKind::StaleStatus;
        problem.since = candidate.staleSeen;
        problem.cause
            = u"status stale for %1: generation %2, observed %3"_s.arg(ageAt(problem.since, now))
                  .arg(candidate.generation.value_or(0))
                  .arg(candidate.observedGeneration.value_or(0));
        return problem;
    }
    if (candidate.state == LifecycleState::Pending && !candidate.deleting
        && olderThan(candidate.created, now, thresholds.pending)) {
        problem.kind = ProblemKind::LongPending;
        problem.since = candidate.created;
        problem.cause = u"no status written %1 after creation: no controller has acted"_s.arg(
            ageAt(problem.since, now));
        return problem;
    }
    return std::nullopt;
}

QList<Problem> ProblemTracker::problems(const QDateTime &now,
                                        const ProblemThresholds &thresholds) const
{
    QList<Problem> found;
    for (const Candidate &candidate : m_candidates) {
        if (auto problem = classify(candidate, now, thresholds))
            found << std::move(*problem);
    }
    std::sort(found.begin(), found.end(), [](const Problem &a, const Problem &b) {
        if (a.kind != b.kind)
            return a.kind < b.kind;
        if (a.since.isValid() != b.since.isValid())
            return a.since.isValid();
        if (a.since != b.since)
            return a.since < b.since;
        if (a.resource != b.resource)
            return a.resource < b.resource;
        return a.key < b.key;
    });
    return found;
}

} // namespace reconscope::models
