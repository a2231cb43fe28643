#include "controller/labs/conflictaudit.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace reconscope::controller::labs {

QString conflictWriterName(ConflictWriter writer)
{
    return writer == ConflictWriter::GitOps ? u"gitops"_s : u"reconciler"_s;
}

void ConflictAudit::recordVersion(const ConflictVersion &version)
{
    auto it = m_versions.find(version.key);
    if (it == m_versions.end()) {
        m_keys.append(version.key);
        it = m_versions.insert(version.key, {});
    }
    for (const auto &known : std::as_const(*it)) {
        if (known.resourceVersion == version.resourceVersion)
            return;
    }
    it->append(version);
}

void ConflictAudit::recordAck(const ConflictAck &ack)
{
    m_acks.append(ack);
}

int ConflictAudit::versionCount() const
{
    int count = 0;
    for (const auto &versions : m_versions)
        count += int(versions.size());
    return count;
}

void ConflictAudit::clear()
{
    m_versions.clear();
    m_keys.clear();
    m_acks.clear();
}

namespace {

std::optional<std::int64_t> fieldOf(const ConflictVersion &version, ConflictWriter writer)
{
    return writer == ConflictWriter::GitOps ? version.desired : version.observed;
}

} // namespace

ConflictAudit::Figures ConflictAudit::analyse() const
{
    Figures figures;
    // key -> resourceVersion -> the acks that carry it, in the order they were received.
    QHash<QString, QHash<QString, QList<ConflictAck>>> acksByVersion;
    for (const auto &ack : m_acks)
        acksByVersion[ack.key][ack.resourceVersion].append(ack);

    for (const QString &key : m_keys) {
        const QList<ConflictVersion> &versions = m_versions.value(key);
        const auto keyAcks = acksByVersion.value(key);
        QSet<QString> matched;
        std::array<std::optional<std::int64_t>, 2> owned;
        std::array<bool, 2> lost{ false, false };
        const ConflictVersion *previous = nullptr;
        for (const ConflictVersion &version : versions) {
            const QList<ConflictAck> acks = keyAcks.value(version.resourceVersion);
            if (!acks.isEmpty())
                matched.insert(version.resourceVersion);
            std::array<bool, 2> acked{ false, false };
            for (const auto &ack : acks)
                acked[size_t(ack.writer)] = true;

            // The producer of the version: the only writer that acknowledged it, or, when a
            // no-op write of the other one carries the same resourceVersion, the one whose field
            // changed.
            std::optional<ConflictWriter> producer;
            if (acked[0] != acked[1]) {
                producer = acked[0] ? ConflictWriter::GitOps : ConflictWriter::Reconciler;
            } else if (acked[0] && previous) {
                const bool gitopsChanged = fieldOf(*previous, ConflictWriter::GitOps)
                    != fieldOf(version, ConflictWriter::GitOps);
                producer = gitopsChanged ? ConflictWriter::GitOps : ConflictWriter::Reconciler;
            } else if (acked[0]) {
                producer = acks.constFirst().writer;
            }
            if (producer && previous && version.generation > previous->generation)
                ++figures.generationBumps[size_t(*producer)];

            for (const ConflictWriter writer :
                 { ConflictWriter::GitOps, ConflictWriter::Reconciler }) {
                const size_t w = size_t(writer);
                if (acked[w]) {
                    for (const auto &ack : acks) {
                        if (ack.writer == writer)
                            owned[w] = ack.value;
                    }
                    lost[w] = false;
                } else if (owned[w] && !lost[w] && fieldOf(version, writer) != owned[w]) {
                    ++figures.lostUpdates[w];
                    lost[w] = true;
                }
            }
            previous = &version;
        }
        for (auto it = keyAcks.begin(); it != keyAcks.end(); ++it) {
            if (!matched.contains(it.key()))
                figures.unmatchedAcks += it->size();
        }
    }
    return figures;
}

} // namespace reconscope::controller::labs
