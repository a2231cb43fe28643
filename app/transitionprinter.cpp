#include "app/transitionprinter.h"

#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace Qt::StringLiterals;
namespace models = reconscope::models;

namespace reconscope::app {

bool lifecycleNeedsCrd(const QString &group)
{
    return !group.isEmpty() && group.contains(u'.');
}

models::LifecycleMapping lifecycleMapping(const nlohmann::json *crd)
{
    return crd ? models::LifecycleMapping::forCrd(*crd) : models::LifecycleMapping::defaults();
}

TransitionPrinter::TransitionPrinter(const char *command,
                                     models::LifecycleMapping mapping,
                                     bool json)
    : m_command(command)
    , m_mapping(std::move(mapping))
    , m_summarizer(std::make_unique<controller::kube::ObjectSummarizer>(m_mapping))
    , m_json(json)
{ }

void TransitionPrinter::upsert(QByteArrayView object,
                               const QString &key,
                               const QDateTime &time,
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
    if (const auto transition = m_tracker.upsert(summary.value(), m_mapping, time))
        print(*transition, estimated);
}

void TransitionPrinter::remove(const QString &key, const QDateTime &time, bool estimated)
{
    if (const auto transition = m_tracker.remove(key, time))
        print(*transition, estimated);
}

QString TransitionPrinter::format(const models::Transition &t, bool json, bool estimated)
{
    if (json) {
        nlohmann::json object = t.toJson();
        if (estimated)
            object["timeEstimated"] = true;
        return QString::fromStdString(object.dump());
    }
    auto number = [](const std::optional<qint64> &n) {
        return n ? QString::number(*n) : u"-"_s;
    };
    const QString mark = estimated ? u"  [time estimated]"_s : QString();
    return u"%1  %2  %3 → %4  %5  gen %6/%7%8"_s.arg(t.time.toString(Qt::ISODate),
                                                     t.key,
                                                     models::stateNodeName(t.from),
                                                     models::stateNodeName(t.to),
                                                     t.reason.isEmpty() ? u"-"_s : t.reason,
                                                     number(t.generation),
                                                     number(t.observedGeneration),
                                                     t.onDesign ? QString() : u"  [off-design]"_s)
        + mark;
}

void TransitionPrinter::print(const models::Transition &transition, bool estimated) const
{
    std::puts(format(transition, m_json, estimated).toUtf8().constData());
}

} // namespace reconscope::app
