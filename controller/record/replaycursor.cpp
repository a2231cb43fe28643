#include "controller/record/replaycursor.h"

#include "controller/kube/objectsummarizer.h"

namespace reconscope::controller::record {

ReplayCursor::ReplayCursor(RecordingHeader header, QString resource)
    : m_header(std::move(header))
    , m_resourceName(std::move(resource))
{ }

bool ReplayCursor::shown(int resource) const
{
    const auto it = m_state.resources().constFind(resource);
    return it != m_state.resources().cend() && it->qualifiedName() == m_resourceName;
}

void ReplayCursor::apply(const Record &record, ReplayStep *step)
{
    m_changes.clear();
    m_state.apply(record, &m_changes);
    if (m_changes.isEmpty())
        return;
    const QDateTime time = m_header.wallTime(record.time);
    for (const ReplayChange &change : std::as_const(m_changes)) {
        if (!shown(change.resource))
            continue;
        if (change.type == ReplayChange::Type::Upsert) {
            upsert(change, time, step);
            continue;
        }
        m_resourceOf.remove(change.key);
        if (!m_rows.remove(change.key))
            continue;
        const auto transition = m_tracker.remove(change.key, time, change.observed());
        if (step) {
            step->removed.append(change.key);
            if (transition)
                step->transitions.append(*transition);
        }
    }
}

void ReplayCursor::upsert(const ReplayChange &change, const QDateTime &time, ReplayStep *step)
{
    if (!m_summarizer) {
        // The recording declares its CRDs before any object: the first object's is known.
        m_mapping = m_state.mappingOf(m_state.resources().value(change.resource));
        m_summarizer = std::make_shared<const kube::ObjectSummarizer>(m_mapping);
    }
    const auto summary = m_summarizer->summarize(change.object);
    if (!summary)
        return; // `replay` says why on stderr; the console shows what it can read
    models::LifecycleVerdict verdict;
    QDateTime since;
    const auto transition
        = m_tracker.upsert(summary.value(), m_mapping, time, change.observed(), &verdict, &since);
    models::ResourceRow row = models::ResourceRow::fromSummary(summary.value(), verdict);
    row.setSince(since, verdict.since, verdict.sinceCondition);
    const QString key = row.key;
    m_rows.insert(key, std::move(row));
    m_resourceOf.insert(key, change.resource);
    if (step) {
        step->upserted.append(key);
        if (transition)
            step->transitions.append(*transition);
    }
}

QByteArray ReplayCursor::object(const QString &key) const
{
    const auto it = m_resourceOf.constFind(key);
    if (it == m_resourceOf.cend())
        return {};
    return m_state.objects(*it).value(key);
}

} // namespace reconscope::controller::record
