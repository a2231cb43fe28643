#include "controller/cluster/schema/crd.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

QString str(const nlohmann::json &object, const char *key)
{
    if (object.is_object()) {
        auto it = object.find(key);
        if (it != object.end() && it->is_string())
            return QString::fromStdString(it->get<std::string>());
    }
    return {};
}

} // namespace

void applyCrdDefaults(nlohmann::json &crd)
{
    if (!crd.is_object() || !crd.contains("spec") || !crd["spec"].is_object())
        return;
    nlohmann::json &names = crd["spec"]["names"];
    if (names.is_object()) {
        const QString kind = str(names, "kind");
        if (str(names, "singular").isEmpty() && !kind.isEmpty())
            names["singular"] = kind.toLower().toStdString();
        if (str(names, "listKind").isEmpty() && !kind.isEmpty())
            names["listKind"] = (kind + u"List"_s).toStdString();
    }
}

QList<FieldError> validateCrd(const nlohmann::json &)
{
    return {};
}

models::Result<QList<ResourceType>> resourceTypesFromCrd(const nlohmann::json &input)
{
    nlohmann::json crd = input;
    applyCrdDefaults(crd);
    const QList<FieldError> errors = validateCrd(crd);
    if (!errors.isEmpty())
        return models::Result<QList<ResourceType>>::failure(formatFieldErrors(errors));
    QList<ResourceType> types;
    const nlohmann::json &spec = crd["spec"];
    const nlohmann::json &names = spec["names"];
    for (const nlohmann::json &version : spec["versions"]) {
        ResourceType type;
        type.group = str(spec, "group");
        type.version = str(version, "name");
        type.plural = str(names, "plural");
        type.singular = str(names, "singular");
        type.kind = str(names, "kind");
        type.listKind = str(names, "listKind");
        type.namespaced = str(spec, "scope") != u"Cluster"_s;
        type.served = version.value("served", false);
        type.storage = version.value("storage", false);
        if (version.contains("schema") && version["schema"].contains("openAPIV3Schema"))
            type.schema = version["schema"]["openAPIV3Schema"];
        types.append(type);
    }
    return types;
}

} // namespace reconscope::controller::cluster
