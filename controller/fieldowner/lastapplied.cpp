#include "controller/fieldowner/lastapplied.h"

#include "controller/fieldowner/gotext.h"
#include "controller/fieldowner/typedvalue.h"

using json = nlohmann::json;

namespace reconscope::controller::fieldowner::lastapplied {

namespace {

const json *annotationsOf(const json &object)
{
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
        return nullptr;
    const json &metadata = object["metadata"];
    auto it = metadata.find("annotations");
    return it != metadata.end() && it->is_object() ? &*it : nullptr;
}

std::string lastAppliedOf(const json &object)
{
    const json *annotations = annotationsOf(object);
    if (!annotations)
        return {};
    auto it = annotations->find(annotation);
    return it != annotations->end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::optional<FieldSet>
allowedConflicts(const json &live, const std::string &apiVersion, const TypeRef &type)
{
    const std::string text = lastAppliedOf(live);
    if (text.empty())
        return std::nullopt;
    const json lastApplied = json::parse(text, nullptr, false);
    if (!lastApplied.is_object() || lastApplied.value("apiVersion", json()) != apiVersion)
        return std::nullopt;
    if (!fieldSetOf(live, type, true))
        return std::nullopt;
    auto applied = fieldSetOf(lastApplied, type, true);
    if (!applied)
        return std::nullopt;
    auto comparison = compareTyped(lastApplied, live, type);
    if (!comparison)
        return std::nullopt;
    return applied->difference(comparison->modified)
        .difference(comparison->added)
        .difference(comparison->removed);
}

void follow(json &object, const json &config)
{
    if (lastAppliedOf(object).empty())
        return;
    json applied = config;
    if (applied.is_object() && applied.contains("metadata") && applied["metadata"].is_object()) {
        json &metadata = applied["metadata"];
        if (auto it = metadata.find("annotations"); it != metadata.end() && it->is_object())
            it->erase(annotation);
    }
    json &annotations = object["metadata"]["annotations"];
    annotations[annotation] = gotext::json(applied) + "\n"; // json.Encoder ends with a newline
    std::size_t total = 0;
    for (const auto &[key, value] : annotations.items())
        total += key.size() + (value.is_string() ? value.get_ref<const std::string &>().size() : 0);
    if (total > 256 * 1024)
        annotations.erase(annotation);
}

} // namespace reconscope::controller::fieldowner::lastapplied
