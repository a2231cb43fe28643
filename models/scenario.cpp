#include "models/scenario.h"

#include "models/jsonfields.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::models {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("Scenario", text);
}

} // namespace

QString scenarioVerbName(ScenarioStep::Verb verb)
{
    switch (verb) {
    case ScenarioStep::Verb::Create:
        return u"create"_s;
    case ScenarioStep::Verb::Patch:
        return u"patch"_s;
    case ScenarioStep::Verb::Delete:
        return u"delete"_s;
    case ScenarioStep::Verb::Wait:
        break;
    }
    return u"wait"_s;
}

qint64 Scenario::startOf(qsizetype index) const
{
    qint64 start = 0;
    for (qsizetype i = 0; i <= index && i < steps.size(); ++i)
        start += steps[i].afterMs;
    return start;
}

qint64 Scenario::durationMs() const
{
    return startOf(steps.size() - 1);
}

Result<Scenario> parseScenario(QByteArrayView bytes)
{
    const json document = json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (document.is_discarded() || !document.is_object())
        return Result<Scenario>::failure(tr("a scenario must be a JSON object"));
    const auto steps = document.find("steps");
    if (steps == document.end() || !steps->is_array() || steps->empty())
        return Result<Scenario>::failure(tr("a scenario needs a non-empty \"steps\" array"));

    Scenario scenario;
    scenario.name = jsonString(document, "name");
    scenario.description = jsonString(document, "description");
    scenario.loop = document.value("loop", false);
    for (std::size_t i = 0; i < steps->size(); ++i) {
        const json &item = (*steps)[i];
        const auto fail = [i](const QString &why) {
            return Result<Scenario>::failure(tr("step %1: %2").arg(i + 1).arg(why));
        };
        if (!item.is_object())
            return fail(tr("not an object"));
        ScenarioStep step;
        const auto after = item.find("after");
        if (after != item.end()) {
            if (!after->is_number_integer() || after->get<qint64>() < 0)
                return fail(tr("\"after\" must be a non-negative number of milliseconds"));
            step.afterMs = after->get<qint64>();
        }
        step.title = jsonString(item, "title");
        step.expect = jsonString(item, "expect");
        step.ignoreAlreadyExists = item.value("ignoreAlreadyExists", false);
        step.ignoreNotFound = item.value("ignoreNotFound", false);
        const QString verb = jsonString(item, "verb");
        if (verb == u"create")
            step.verb = ScenarioStep::Verb::Create;
        else if (verb == u"patch")
            step.verb = ScenarioStep::Verb::Patch;
        else if (verb == u"delete")
            step.verb = ScenarioStep::Verb::Delete;
        else if (verb == u"wait")
            step.verb = ScenarioStep::Verb::Wait;
        else
            return fail(tr("unknown verb \"%1\" (create, patch, delete, wait)").arg(verb));
        if (step.title.isEmpty())
            return fail(tr("a step needs a title"));
        if (step.verb == ScenarioStep::Verb::Wait) {
            scenario.steps.append(std::move(step));
            continue;
        }

        const QString apiVersion = jsonString(item, "apiVersion");
        const qsizetype slash = apiVersion.indexOf(u'/');
        step.group = slash < 0 ? QString() : apiVersion.left(slash);
        step.version = slash < 0 ? apiVersion : apiVersion.mid(slash + 1);
        step.plural = jsonString(item, "resource");
        if (step.version.isEmpty() || step.plural.isEmpty())
            return fail(tr("\"apiVersion\" and \"resource\" are required"));
        step.namespaceName = jsonString(item, "namespace");
        step.name = jsonString(item, "name");
        if (step.verb == ScenarioStep::Verb::Create) {
            const auto object = item.find("object");
            if (object == item.end() || !object->is_object())
                return fail(tr("a create needs an \"object\""));
            step.body = *object;
            const json meta = step.body.value("metadata", json::object());
            if (step.name.isEmpty())
                step.name = jsonString(meta, "name");
            if (step.namespaceName.isEmpty())
                step.namespaceName = jsonString(meta, "namespace");
        } else if (step.verb == ScenarioStep::Verb::Patch) {
            const auto patch = item.find("patch");
            if (patch == item.end() || !patch->is_object())
                return fail(tr("a patch needs a \"patch\" object (JSON merge patch)"));
            step.body = *patch;
        }
        if (step.name.isEmpty())
            return fail(tr("the object's name is missing"));
        scenario.steps.append(std::move(step));
    }
    return scenario;
}

} // namespace reconscope::models
