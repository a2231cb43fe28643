#pragma once

#include "models/lifecycle.h"
#include "models/objectsummary.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace reconscope::models {

// The Problems list (issue 23): what is wrong across everything watched, most severe first.

// How long a state may last before it is a problem.
struct ProblemThresholds
{
    std::chrono::seconds terminating{ 300 }; // deletionTimestamp this long ago
    std::chrono::seconds stale{ 60 }; // observedGeneration behind generation this long
    std::chrono::seconds pending{ 120 }; // no status written this long after creation
};

// In order of severity: the first kind an object qualifies for is the one it is listed as.
enum class ProblemKind {
    Degraded, // the lifecycle rules say Degraded (any age)
    StuckTerminating, // deletion requested longer than thresholds.terminating ago
    StaleStatus, // observedGeneration behind generation for longer than thresholds.stale
    LongPending, // no status written longer than thresholds.pending after creation
};
QString problemKindName(ProblemKind kind); // "Degraded", "Terminating", "Stale status", "Pending"

struct Problem
{
    ProblemKind kind = ProblemKind::Degraded;
    QString resource; // the resource's qualified name ("customapps.infrastructure.internal.net")
    QString key; // "namespace/name"
    // When the problem started: the Degraded condition's lastTransitionTime (else when the
    // object was first seen Degraded), the deletionTimestamp, when the object was first seen
    // stale at its generation, the creationTimestamp. Invalid when unknown.
    QDateTime since;
    QString cause; // one line

    friend bool operator==(const Problem &, const Problem &) = default;
};

// "45s", "3m12s", "2h5m", "3d4h": how long a problem has lasted.
QString problemAge(qint64 seconds);

// The objects that are, or may become, problems, across every resource watched: fed each object's
// summary and verdict as they change, it keeps only those that are Degraded, being deleted, stale
// or without a status (a healthy object costs nothing), and remembers when each was first seen
// stale or Degraded, since the object itself does not always say. The list is made on request for
// an injected `now`. Not thread-safe; pure (no clock of its own).
class ProblemTracker
{
public:
    // The object's latest state, observed at `now`.
    void observe(const QString &resource,
                 const ObjectSummary &summary,
                 const LifecycleVerdict &verdict,
                 const QDateTime &now);
    void remove(const QString &resource, const QString &key);
    // Every object of the resource (it is no longer watched).
    void removeResource(const QString &resource);
    void clear() { m_candidates.clear(); }
    // The objects kept (those that may be problems).
    qsizetype candidateCount() const { return m_candidates.size(); }

    // The problems at `now`: by kind in ProblemKind's order, within a kind oldest first (unknown
    // times last), then by resource and key.
    QList<Problem> problems(const QDateTime &now, const ProblemThresholds &thresholds = {}) const;

private:
    struct Candidate
    {
        QString resource;
        QString key;
        LifecycleState state = LifecycleState::Unknown;
        QString reason;
        QString message;
        QDateTime conditionSince; // the verdict's since
        QDateTime created;
        bool deleting = false;
        QDateTime deletionTimestamp;
        QStringList finalizers;
        std::optional<qint64> generation;
        std::optional<qint64> observedGeneration;
        QDateTime staleSeen; // first seen stale at `generation`
        QDateTime degradedSeen; // first seen Degraded (this time)
    };
    static std::optional<Problem>
    classify(const Candidate &candidate, const QDateTime &now, const ProblemThresholds &thresholds);

    // "resource\nkey" -> candidate
    QHash<QString, Candidate> m_candidates;
};

} // namespace reconscope::models
