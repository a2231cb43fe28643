#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include <array>
#include <cstdint>
#include <optional>

namespace reconscope::controller::labs {

// The two writers of the conflict lab.
enum class ConflictWriter { GitOps = 0, Reconciler = 1 };
QString conflictWriterName(ConflictWriter writer); // "gitops", "reconciler"

// One committed state of a lab object, in the order the watch delivered them: the field each writer
// owns (GitOps: spec.replicas; the reconciler: the observed count) and the generation.
struct ConflictVersion
{
    QString key; // "ns/name"
    QString resourceVersion;
    std::int64_t generation = 0;
    std::optional<std::int64_t> desired; // spec.replicas
    std::optional<std::int64_t> observed; // status.observedReplicas or spec.currentReplicas
};

// A write a writer got a 2xx for: the resourceVersion of the answer and the value it set.
struct ConflictAck
{
    QString key;
    QString resourceVersion;
    ConflictWriter writer = ConflictWriter::GitOps;
    std::int64_t value = 0;
};

// The lab's history audit. Only exact resourceVersion matches are used (never their order, which
// the API does not promise): the watch gives the order of the versions, the 2xx answers say which
// writer produced which version.
//
// Definitions (per writer W and object):
// - W's field is its own: GitOps spec.replicas, the reconciler the observed count.
// - W "owns" value v from the version its acknowledged write produced (the version whose
//   resourceVersion is the answer's) until its next acknowledged write.
// - lostUpdates: an acknowledged write of W whose value is gone from a later version that W did
//   not produce, before W wrote that object again; each write counts at most once. Another
//   writer's full-object PUT that drops or resets W's field is the typical cause.
// - generationBumps: versions produced by W whose metadata.generation is above the previous
//   version's.
// A version that no writer acknowledged (the creation, a third party) is nobody's; a no-op write
// (same resourceVersion as the stored object) re-confirms W's value without producing a version.
class ConflictAudit
{
public:
    // Appends a version (watch order per object); an already recorded resourceVersion of the same
    // object is ignored (a relist repeats the current state).
    void recordVersion(const ConflictVersion &version);
    void recordAck(const ConflictAck &ack);

    struct Figures
    {
        std::array<std::int64_t, 2> lostUpdates{};
        std::array<std::int64_t, 2> generationBumps{};
        // Acknowledged writes whose version never showed up in the history (a watch gap): the
        // figures are a lower bound when this is not zero.
        std::int64_t unmatchedAcks = 0;
    };
    Figures analyse() const;

    int versionCount() const;
    void clear();

private:
    QHash<QString, QList<ConflictVersion>> m_versions; // by key, in watch order
    QList<QString> m_keys; // first-seen order
    QList<ConflictAck> m_acks;
};

} // namespace reconscope::controller::labs
