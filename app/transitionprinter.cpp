#include "app/transitionprinter.h"

#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace models = reconscope::models;

namespace reconscope::app {

bool lifecycleNeedsCrd(const QString &group)
{
    return models::LifecycleMapping::readsCrd(group);
}

models::LifecycleMapping lifecycleMapping(const nlohmann::json *crd)
{
    return crd ? models::LifecycleMapping::forCrd(*crd) : models::LifecycleMapping::defaults();
}

TransitionPrinter::TransitionPrinter(const char *command,
                                     models::LifecycleMapping mapping,
                                     bool json,
                                     controller::fieldowner::FightSettings fights)
    : m_command(command)
    , m_mapping(std::move(mapping))
    , m_summarizer(std::make_unique<controller::kube::ObjectSummarizer>(m_mapping))
    , m_fights(fights)
    , m_json(json)
{ }

void TransitionPrinter::upsert(QByteArrayView object,
                               const QString &key,
                               const QDateTime &time,
                               models::Observed observed,
                               bool estimated)
{
    const auto summary = m_summarizer->summarize(object);
    if (!summary) {
        std::fprintf(stderr,
                     "reconscope %s: %s: %s\n",
                     m_command,
                     key.toLocal8Bit().constData(),
                     summary.error().message.toLocal8Bit().constData());
        return;
    }
    models::LifecycleVerdict verdict;
    const auto transition
        = m_tracker.upsert(summary.value(), m_mapping, time, observed, &verdict, nullptr);
    if (transition)
        print(*transition, estimated);
    for (const auto &fight : m_fights.observe(key, summary->managedFields, time))
        std::puts(format(fight, time, m_json).toUtf8().constData());
    if (m_json && !m_latencyResource.isEmpty()) {
        if (const auto sample
            = m_latency.observe(m_latencyResource, summary.value(), verdict.state, time))
            std::puts(
                formatLatency(*sample, m_latency.summary(m_latencyResource)).toUtf8().constData());
    }
}

QString TransitionPrinter::formatLatency(const models::LatencySample &sample,
                                         const models::LatencySummary &summary)
{
    const nlohmann::json object{ { "type", "latency" },
                                 { "resource", sample.resource.toStdString() },
                                 { "key", sample.key.toStdString() },
                                 { "generation", sample.generation },
                                 { "observedMs", sample.observedMs },
                                 { "settledMs", sample.settledMs },
                                 { "outcome",
                                   models::lifecycleStateName(sample.outcome).toStdString() },
                                 { "count", summary.count },
                                 { "p50Ms", summary.p50 },
                                 { "p95Ms", summary.p95 },
                                 { "p99Ms", summary.p99 } };
    return QString::fromStdString(object.dump());
}

void TransitionPrinter::remove(const QString &key,
                               const QDateTime &time,
                               models::Observed observed,
                               bool estimated)
{
    if (const auto transition = m_tracker.remove(key, time, observed))
        print(*transition, estimated);
    m_latency.remove(m_latencyResource, key);
    m_fights.remove(key);
}

QString TransitionPrinter::format(const controller::fieldowner::Fight &fight,
                                  const QDateTime &time,
                                  bool json)
{
    if (json)
        return QString::fromStdString(fight.toJson().dump());
    return u"%1  %2  FIGHT %3"_s.arg(time.toString(Qt::ISODate), fight.object, fight.describe());
}

QString TransitionPrinter::format(const models::Transition &t,
                                  bool json,
                                  bool estimated,
                                  const QString &sinceCondition)
{
    const bool seen = t.observed == models::Observed::Live;
    const QString sinceFrom = !seen && t.since.isValid() && !sinceCondition.isEmpty()
        ? sinceCondition + u".lastTransitionTime"_s
        : QString();
    if (json) {
        nlohmann::json object = t.toJson();
        if (!seen && t.to) // a state's since: the object's word, or unknown
            object["sinceFrom"]
                = sinceFrom.isEmpty() ? nlohmann::json() : nlohmann::json(sinceFrom.toStdString());
        if (estimated)
            object["timeEstimated"] = true;
        return QString::fromStdString(object.dump());
    }
    auto number = [](const std::optional<qint64> &n) {
        return n ? QString::number(*n) : u"-"_s;
    };
    const QString reason = t.reason.isEmpty() ? u"-"_s : t.reason;
    QString mark;
    if (!seen && t.to)
        mark += t.since.isValid()
            ? u"  since %1 (%2)"_s.arg(t.since.toString(Qt::ISODate),
                                       sinceFrom.isEmpty() ? u"the object's"_s : sinceFrom)
            : u"  since unknown"_s;
    if (t.observed == models::Observed::AcrossGap)
        mark += u"  [across a gap]"_s;
    if (!t.onDesign)
        mark += u"  [off-design]"_s;
    if (estimated)
        mark += u"  [time estimated]"_s;
    if (t.observed == models::Observed::AtConnect)
        return u"%1  %2  at connect: %3  %4  gen %5/%6%7"_s.arg(t.time.toString(Qt::ISODate),
                                                                t.key,
                                                                models::stateNodeName(t.to),
                                                                reason,
                                                                number(t.generation),
                                                                number(t.observedGeneration),
                                                                mark);
    return u"%1  %2  %3 → %4  %5  gen %6/%7%8"_s.arg(t.time.toString(Qt::ISODate),
                                                     t.key,
                                                     models::stateNodeName(t.from),
                                                     models::stateNodeName(t.to),
                                                     reason,
                                                     number(t.generation),
                                                     number(t.observedGeneration),
                                                     mark);
}

void TransitionPrinter::print(const models::Transition &transition, bool estimated) const
{
    const QString condition = m_tracker.verdict(transition.key).sinceCondition;
    std::puts(format(transition, m_json, estimated, condition).toUtf8().constData());
}

} // namespace reconscope::app
