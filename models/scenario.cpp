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

// The "waitFor" member of a step: which object, which state, how long at most.
Status<> parseWaitFor(const json &wait, ScenarioStep &step)
{
    if (!wait.is_object())
        return Status<>::failure(tr("\"waitFor\" must be an object"));
    const QString object = jsonString(wait, "object");
    const qsizetype slash = object.indexOf(u'/');
    step.namespaceName = slash < 0 ? QString() : object.left(slash);
    step.name = slash < 0 ? object : object.mid(slash + 1);
    if (step.name.isEmpty() || step.name.contains(u'/'))
        return Status<>::failure(tr("\"waitFor\" needs an \"object\" as NAMESPACE/NAME (or NAME)"));
    const QString state = jsonString(wait, "state");
    if (state.compare(u"Gone"_s, Qt::CaseInsensitive) == 0) {
        step.waitState.reset();
    } else if (const auto known = lifecycleStateFromString(state)) {
        step.waitState = *known;
    } else {
        return Status<>::failure(tr("\"waitFor\" needs a \"state\": Pending, Reconciling, "
                                    "Ready, Degraded, Terminating or Gone (not \"%1\")")
                                     .arg(state));
    }
    step.waitReason = jsonString(wait, "reason");
    const json &timeout = jsonMember(wait, "timeoutSeconds");
    if (!timeout.is_null()) {
        if (!timeout.is_number() || timeout.get<double>() <= 0)
            return Status<>::failure(tr("\"timeoutSeconds\" must be a positive number of seconds"));
        step.timeoutMs = qint64(timeout.get<double>() * 1000.0);
    }
    return {};
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
    case ScenarioStep::Verb::WaitFor:
        return u"waitFor"_s;
    case ScenarioStep::Verb::Wait:
        break;
    }
    return u"wait"_s;
}

QString ScenarioStep::objectKey() const
{
    return namespaceName.isEmpty() ? name : namespaceName + u'/' + name;
}

QString ScenarioStep::waitTargetText() const
{
    if (!waitState)
        return tr("gone");
    const QString state = lifecycleStateName(*waitState);
    return waitReason.isEmpty() ? state : u"%1 (%2)"_s.arg(state, waitReason);
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
        const bool hasWaitFor = item.contains("waitFor");
        const QString verb
            = hasWaitFor && !item.contains("verb") ? u"waitFor"_s : jsonString(item, "verb");
        if (verb == u"waitFor" && !hasWaitFor)
            return fail(tr("a waitFor step needs a \"waitFor\" object"));
        if (hasWaitFor && verb != u"waitFor")
            return fail(tr("\"waitFor\" belongs to a waitFor step, not a %1").arg(verb));
        if (verb == u"create")
            step.verb = ScenarioStep::Verb::Create;
        else if (verb == u"patch")
            step.verb = ScenarioStep::Verb::Patch;
        else if (verb == u"delete")
            step.verb = ScenarioStep::Verb::Delete;
        else if (verb == u"wait")
            step.verb = ScenarioStep::Verb::Wait;
        else if (verb == u"waitFor")
            step.verb = ScenarioStep::Verb::WaitFor;
        else
            return fail(tr("unknown verb \"%1\" (create, patch, delete, wait, waitFor)").arg(verb));
        if (step.verb == ScenarioStep::Verb::WaitFor) {
            if (const auto parsed = parseWaitFor(item["waitFor"], step); !parsed.ok())
                return fail(parsed.error().message);
            if (step.title.isEmpty())
                step.title = tr("Wait until %1 is %2").arg(step.objectKey(), step.waitTargetText());
        }
        if (step.title.isEmpty())
            return fail(tr("a step needs a title"));
        if (step.verb == ScenarioStep::Verb::Wait) {
            scenario.steps.append(std::move(step));
            continue;
        }

        QString apiVersion = jsonString(item, "apiVersion");
        step.plural = jsonString(item, "resource");
        if (step.verb == ScenarioStep::Verb::WaitFor && apiVersion.isEmpty()
            && step.plural.isEmpty()) {
            apiVersion = u"infrastructure.internal.net/v1"_s;
            step.plural = u"customapps"_s;
        }
        const qsizetype slash = apiVersion.indexOf(u'/');
        step.group = slash < 0 ? QString() : apiVersion.left(slash);
        step.version = slash < 0 ? apiVersion : apiVersion.mid(slash + 1);
        if (step.version.isEmpty() || step.plural.isEmpty())
            return fail(tr("\"apiVersion\" and \"resource\" are required"));
        if (step.verb == ScenarioStep::Verb::WaitFor) {
            scenario.steps.append(std::move(step));
            continue;
        }
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
