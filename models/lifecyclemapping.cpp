#include "models/lifecyclemapping.h"
#include "models/jsonfields.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

bool schemaDeclaresStatus(const nlohmann::json *validation)
{
    if (!validation)
        return false;
    const nlohmann::json *schema = jsonFind(*validation, "openAPIV3Schema");
    if (!schema)
        return false;
    const nlohmann::json *properties = jsonFind(*schema, "properties");
    if (properties && jsonFind(*properties, "status"))
        return true;
    // A root that keeps unknown fields may carry a status the schema does not spell out.
    const nlohmann::json *preserve = jsonFind(*schema, "x-kubernetes-preserve-unknown-fields");
    return preserve && preserve->is_boolean() && preserve->get<bool>();
}

bool hasSchema(const nlohmann::json *validation)
{
    return validation && jsonFind(*validation, "openAPIV3Schema");
}

void prependUnique(QStringList &list, const QString &value)
{
    list.removeAll(value);
    list.prepend(value);
}

Result<QStringList> stringList(const nlohmann::json &json, const char *key, QStringList fallback)
{
    const auto it = json.find(key);
    if (it == json.end())
        return fallback;
    if (!it->is_array())
        return Result<QStringList>::failure(
            u"mapping.%1: expected an array of strings"_s.arg(QString::fromUtf8(key)));
    QStringList values;
    for (const nlohmann::json &value : *it) {
        if (!value.is_string())
            return Result<QStringList>::failure(
                u"mapping.%1: expected an array of strings"_s.arg(QString::fromUtf8(key)));
        values << QString::fromStdString(value.get<std::string>());
    }
    return values;
}

nlohmann::json toJsonArray(const QStringList &list)
{
    nlohmann::json array = nlohmann::json::array();
    for (const QString &value : list)
        array.push_back(value.toStdString());
    return array;
}

} // namespace

QStringList LifecycleMapping::projectedPaths() const
{
    QStringList paths = statusFields;
    if (!healthPath.isEmpty() && !paths.contains(healthPath))
        paths << healthPath;
    return paths;
}

LifecycleMapping LifecycleMapping::defaults()
{
    return {};
}

LifecycleMapping LifecycleMapping::forCustomApp()
{
    LifecycleMapping mapping;
    mapping.origin = u"CustomApp: Ready / Degraded, Stalled / Reconciling"_s;
    return mapping;
}

bool LifecycleMapping::readsCrd(const QString &group)
{
    return !group.isEmpty() && group.contains(u'.');
}

LifecycleMapping LifecycleMapping::forCrd(const nlohmann::json &crd)
{
    LifecycleMapping mapping;
    const nlohmann::json *spec = jsonFind(crd, "spec");
    if (!spec || !spec->is_object())
        return mapping;
    const QString group = jsonString(*spec, "group");
    const QString kind = spec->contains("names") ? jsonString((*spec)["names"], "kind") : QString();

    // Status declared? v1 keeps schema and subresources per version; v1beta1 may keep them at
    // spec level. A CRD without any schema says nothing, so its objects keep a lifecycle.
    bool anySchema = hasSchema(jsonFind(*spec, "validation"));
    bool declaresStatus = schemaDeclaresStatus(jsonFind(*spec, "validation"));
    if (const nlohmann::json *subresources = jsonFind(*spec, "subresources"))
        declaresStatus = declaresStatus || jsonFind(*subresources, "status");
    QStringList columnConditions;
    static const QRegularExpression conditionColumn(
        u"^\\.?status\\.conditions\\[\\?\\(@\\.type\\s*==\\s*[\"']([^\"']+)[\"']\\)\\]\\.status$"_s);
    const auto collectColumns = [&](const nlohmann::json *columns) {
        if (!columns || !columns->is_array())
            return;
        for (const nlohmann::json &column : *columns) {
            QString path = jsonString(column, "jsonPath");
            if (path.isEmpty())
                path = jsonString(column, "JSONPath");
            const auto match = conditionColumn.match(path);
            if (match.hasMatch() && !columnConditions.contains(match.captured(1)))
                columnConditions << match.captured(1);
        }
    };
    collectColumns(jsonFind(*spec, "additionalPrinterColumns"));
    if (const nlohmann::json *versions = jsonFind(*spec, "versions");
        versions && versions->is_array()) {
        for (const nlohmann::json &version : *versions) {
            const nlohmann::json *schema = jsonFind(version, "schema");
            anySchema = anySchema || hasSchema(schema);
            declaresStatus = declaresStatus || schemaDeclaresStatus(schema);
            if (const nlohmann::json *subresources = jsonFind(version, "subresources"))
                declaresStatus = declaresStatus || jsonFind(*subresources, "status");
            collectColumns(jsonFind(version, "additionalPrinterColumns"));
        }
    }
    mapping.hasStatus = declaresStatus || !anySchema;

    QStringList notes;
    // Summary conditions the CRD shows as columns, when they are not the default Ready.
    if (!columnConditions.contains(u"Ready"_s)) {
        for (const QString &name : { u"Available"_s, u"Healthy"_s }) {
            if (columnConditions.contains(name)) {
                mapping.readyConditions << name;
                notes << u"%1 column"_s.arg(name);
            }
        }
    }

    if (group == u"argoproj.io" && kind == u"Application") {
        mapping.healthPath = u"status.health.status"_s;
        mapping.healthStates = {
            { u"Healthy"_s, LifecycleState::Ready },
            { u"Progressing"_s, LifecycleState::Reconciling },
            { u"Degraded"_s, LifecycleState::Degraded },
            // Suspended: paused on purpose, neither progressing nor ready.
            { u"Suspended"_s, LifecycleState::Unknown },
            // Missing: the application's resources are not (yet) in the cluster.
            { u"Missing"_s, LifecycleState::Reconciling },
            { u"Unknown"_s, LifecycleState::Unknown },
        };
        mapping.statusFields << u"status.sync.status"_s;
        notes << u"argoproj.io Application health in status.health.status"_s;
    } else if (group == u"crossplane.io" || group.endsWith(u".crossplane.io")) {
        // Packages (Provider, Function, Configuration) summarise in Healthy; managed and
        // composite resources in Ready.
        if (!mapping.readyConditions.contains(u"Healthy"_s))
            mapping.readyConditions << u"Healthy"_s;
        notes << u"crossplane: Ready or Healthy"_s;
    } else if (group == u"cluster.x-k8s.io" || group.endsWith(u".cluster.x-k8s.io")) {
        // v1beta1 summarises in Ready, v1beta2 Clusters in Available.
        prependUnique(mapping.readyConditions, u"Ready"_s);
        if (!mapping.readyConditions.contains(u"Available"_s))
            mapping.readyConditions << u"Available"_s;
        mapping.statusFields << u"status.phase"_s;
        notes << u"Cluster API: Ready or Available, phase"_s;
    } else if (group == u"cert-manager.io") {
        mapping.reconcilingConditions << u"Issuing"_s;
        notes << u"cert-manager: Issuing=True is progress"_s;
    }
    if (!mapping.hasStatus)
        notes << u"the CRD declares no status"_s;
    const QString name = kind.isEmpty() ? group : kind + u'.' + group;
    mapping.origin = notes.isEmpty() ? u"%1: default conditions"_s.arg(name)
                                     : u"%1: %2"_s.arg(name, notes.join(u"; "_s));
    return mapping;
}

Result<LifecycleMapping> LifecycleMapping::fromJson(const nlohmann::json &json)
{
    if (!json.is_object())
        return Result<LifecycleMapping>::failure(u"mapping: expected an object"_s);
    LifecycleMapping mapping;
    if (const auto it = json.find("hasStatus"); it != json.end()) {
        if (!it->is_boolean())
            return Result<LifecycleMapping>::failure(u"mapping.hasStatus: expected a boolean"_s);
        mapping.hasStatus = it->get<bool>();
    }
    auto ready = stringList(json, "readyConditions", mapping.readyConditions);
    if (!ready)
        return ready.error();
    mapping.readyConditions = *ready;
    auto degraded = stringList(json, "degradedConditions", mapping.degradedConditions);
    if (!degraded)
        return degraded.error();
    mapping.degradedConditions = *degraded;
    auto reconciling = stringList(json, "reconcilingConditions", mapping.reconcilingConditions);
    if (!reconciling)
        return reconciling.error();
    mapping.reconcilingConditions = *reconciling;
    auto fields = stringList(json, "statusFields", {});
    if (!fields)
        return fields.error();
    mapping.statusFields = *fields;
    mapping.healthPath = jsonString(json, "healthPath");
    if (const auto it = json.find("healthStates"); it != json.end()) {
        if (!it->is_object())
            return Result<LifecycleMapping>::failure(u"mapping.healthStates: expected an object"_s);
        for (const auto &[value, state] : it->items()) {
            const auto parsed = state.is_string()
                ? lifecycleStateFromString(QString::fromStdString(state.get<std::string>()))
                : std::nullopt;
            if (!parsed)
                return Result<LifecycleMapping>::failure(
                    u"mapping.healthStates.%1: not a lifecycle state: %2"_s.arg(
                        QString::fromStdString(value), QString::fromStdString(state.dump())));
            mapping.healthStates.insert(QString::fromStdString(value), *parsed);
        }
    }
    if (const QString origin = jsonString(json, "origin"); !origin.isEmpty())
        mapping.origin = origin;
    return mapping;
}

nlohmann::json LifecycleMapping::toJson() const
{
    nlohmann::json json = nlohmann::json::object();
    json["hasStatus"] = hasStatus;
    json["readyConditions"] = toJsonArray(readyConditions);
    json["degradedConditions"] = toJsonArray(degradedConditions);
    json["reconcilingConditions"] = toJsonArray(reconcilingConditions);
    json["healthPath"] = healthPath.toStdString();
    nlohmann::json states = nlohmann::json::object();
    for (auto it = healthStates.cbegin(); it != healthStates.cend(); ++it)
        states[it.key().toStdString()] = lifecycleStateName(it.value()).toStdString();
    json["healthStates"] = states;
    json["statusFields"] = toJsonArray(statusFields);
    json["origin"] = origin.toStdString();
    return json;
}

} // namespace reconscope::models
