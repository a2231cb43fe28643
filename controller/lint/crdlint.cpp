#include "controller/lint/crdlint.h"

#include "models/jsonfields.h"
#include "models/yamljson.h"

#include <QFile>
#include <QFileInfo>

#include <functional>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::lint {

namespace {

QString name(const std::string &key)
{
    return QString::fromStdString(key);
}

// "name" starts with the word `prefix` in camelCase: the prefix alone, or followed by an upper-case
// letter or a digit ("readyReplicas" but not "readinessProbe").
bool startsWithWord(const QString &fieldName, QStringView prefix)
{
    if (!fieldName.startsWith(prefix))
        return false;
    if (fieldName.size() == prefix.size())
        return true;
    const QChar next = fieldName.at(prefix.size());
    return next.isUpper() || next.isDigit();
}

bool isPreservingUnknownFields(const json &schema)
{
    const json &flag = models::jsonMember(schema, "x-kubernetes-preserve-unknown-fields");
    return flag.is_boolean() && flag.get<bool>();
}

// Visits every property below `schema` (properties, items, additionalProperties), depth first, with
// its schema path. The visitor returns false to not descend into that property. Embedded resources
// (x-kubernetes-embedded-resource) are whole objects of another API and are not looked into.
struct WalkLimits
{
    bool intoArrays = true;
    int maxDepth = 1000;
};

void walkProperties(
    const json &schema,
    const QString &path,
    const std::function<bool(const QString &, const json &, const QString &)> &visit,
    WalkLimits limits = {},
    int depth = 1)
{
    if (depth > limits.maxDepth)
        return;
    if (!schema.is_object())
        return;
    const json &embedded = models::jsonMember(schema, "x-kubernetes-embedded-resource");
    if (embedded.is_boolean() && embedded.get<bool>())
        return;
    const json &properties = models::jsonMember(schema, "properties");
    if (properties.is_object()) {
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            const QString propertyPath = path + u".properties."_s + name(it.key());
            if (visit(name(it.key()), it.value(), propertyPath))
                walkProperties(it.value(), propertyPath, visit, limits, depth + 1);
        }
    }
    if (!limits.intoArrays)
        return;
    const json &items = models::jsonMember(schema, "items");
    if (items.is_object())
        walkProperties(items, path + u".items"_s, visit, limits, depth);
    const json &additional = models::jsonMember(schema, "additionalProperties");
    if (additional.is_object())
        walkProperties(additional, path + u".additionalProperties"_s, visit, limits, depth);
}

// The last field name of a printer column's JSONPath:
// ".status.conditions[?(@.type=="Ready")].status"
// -> "status", ".spec.currentReplicas" -> "currentReplicas".
QString lastField(const QString &jsonPath)
{
    QString stripped;
    int depth = 0;
    for (const QChar c : jsonPath) {
        if (c == u'[')
            ++depth;
        else if (c == u']')
            depth = std::max(0, depth - 1);
        else if (depth == 0)
            stripped += c;
    }
    const QStringList parts = stripped.split(u'.', Qt::SkipEmptyParts);
    return parts.isEmpty() ? QString() : parts.last();
}

bool readsSpec(const QString &jsonPath)
{
    const QString path = jsonPath.trimmed();
    return path == u".spec" || path.startsWith(u".spec.") || path.startsWith(u".spec[")
        || path.startsWith(u"{.spec");
}

// A printer column whose title says it shows state ("Ready", "Status", "Phase", "Current", ...).
bool columnShowsState(const QString &columnName)
{
    QString lowered = columnName;
    if (!lowered.isEmpty())
        lowered[0] = lowered[0].toLower();
    static const QStringList stateWords{ u"status"_s, u"state"_s,  u"health"_s,
                                         u"sync"_s,   u"synced"_s, u"observed"_s };
    return looksObserved(lowered) || stateWords.contains(columnName.toLower());
}

class VersionLinter
{
public:
    VersionLinter(const json &version, QList<Finding> &findings)
        : m_version(version)
        , m_findings(findings)
    {
        m_name = models::jsonString(version, "name");
        m_prefix = u"spec.versions[%1]"_s.arg(m_name);
        m_root = models::jsonMember(models::jsonMember(version, "schema"), "openAPIV3Schema");
        m_rootPath = m_prefix + u".schema.openAPIV3Schema"_s;
    }

    void run()
    {
        const json &properties = models::jsonMember(m_root, "properties");
        const json &spec = models::jsonMember(properties, "spec");
        const json &status = models::jsonMember(properties, "status");
        const json &subresources = models::jsonMember(m_version, "subresources");
        const bool statusSubresource = models::jsonMember(subresources, "status").is_object();

        const int observedInSpec = lintSpec(spec);
        const bool hasStatus = !status.is_null() || isPreservingUnknownFields(m_root);
        if (!statusSubresource) {
            if (hasStatus || observedInSpec > 0) {
                add(u"no-status-subresource"_s,
                    Severity::Error,
                    m_prefix + u".subresources.status"_s,
                    hasStatus
                        ? u"No status subresource: the observed state (status) is an ordinary "
                          "field of the object. The controller must write it through the main "
                          "resource, where every status write bumps metadata.generation and "
                          "competes with the users and GitOps tools that write spec; both "
                          "writers then rewrite the same object and fight with 409 Conflicts. "
                          "Add `subresources: {status: {}}` so status is written only through "
                          "/status."_s
                        : u"No status subresource, and the schema keeps observed fields in spec "
                          "(see observed-field-in-spec): the controller reports what it observed "
                          "by writing the same object that users and GitOps declare, so both "
                          "writers race on one resourceVersion (409 Conflicts) and every report "
                          "bumps metadata.generation. Move the observed fields into status and "
                          "add `subresources: {status: {}}`."_s);
            } else {
                add(u"no-status"_s,
                    Severity::Info,
                    m_rootPath + u".properties"_s,
                    u"No status and no observed fields: a configuration-only resource that no "
                    "controller reports on. Nothing on the Spec/Status boundary to verify; if a "
                    "controller ever reports back, give it a status with conditions and the "
                    "/status subresource."_s);
            }
        }
        if (!status.is_null())
            lintStatus(status, m_rootPath + u".properties.status"_s);
        lintScale(models::jsonMember(subresources, "scale"));
        lintPrinterColumns(models::jsonMember(m_version, "additionalPrinterColumns"));
    }

private:
    void add(QString id, Severity severity, QString path, QString message)
    {
        m_findings.append({ std::move(id), severity, m_name, std::move(path), std::move(message) });
    }

    int lintSpec(const json &spec)
    {
        int found = 0;
        walkProperties(
            spec,
            m_rootPath + u".properties.spec"_s,
            [&](const QString &field, const json &, const QString &path) {
                // Expressions about readiness (Flux's readyExpr) are desired
                // configuration, not observations.
                if (!looksObserved(field) || field.endsWith(u"Expr")
                    || field.endsWith(u"Expression"))
                    return true;
                ++found;
                add(u"observed-field-in-spec"_s,
                    Severity::Error,
                    path,
                    u"`%1` looks like observed state but sits in spec. Spec is the "
                    "desired state, written only by users and GitOps and read-only to "
                    "the controller; if the controller writes `%1` here, it rewrites "
                    "the object that GitOps owns (the seed's desired and observed "
                    "replicas side by side: 409 Conflicts, GitOps reverting the "
                    "controller, generation churn). Move it to status."_s.arg(field));
                return false;
            },
            // Lists in spec are declared entries (dependsOn[], health checks[]):
            // their members are not looked into.
            WalkLimits{ .intoArrays = false, .maxDepth = 1000 });
        return found;
    }

    void lintStatus(const json &status, const QString &statusPath)
    {
        const json &properties = models::jsonMember(status, "properties");
        if (isPreservingUnknownFields(status) && !properties.is_object()) {
            add(u"opaque-status"_s,
                Severity::Info,
                statusPath,
                u"status is x-kubernetes-preserve-unknown-fields without declared properties: "
                "observedGeneration and conditions cannot be checked, and clients get no schema "
                "to read the observed state by."_s);
            return;
        }

        walkProperties(
            status,
            statusPath,
            [&](const QString &field, const json &, const QString &path) {
                if (!looksDesired(field))
                    return true;
                add(u"desired-field-in-status"_s,
                    Severity::Warning,
                    path,
                    u"`%1` looks like desired state but sits in status. Status holds only what the "
                    "controller observed and is written only through /status; a desired value that "
                    "users or GitOps set belongs in spec, where a change bumps generation and "
                    "triggers a reconcile. (A value the controller computes and reports, like an "
                    "autoscaler's decision, may stay: then say so in its description.)"_s.arg(
                        field));
                return false;
            },
            // Status often embeds copies of spec (Argo CD's sync.comparedTo, history[]): only
            // status' own fields and those of its direct sub-objects are its vocabulary.
            WalkLimits{ .intoArrays = false, .maxDepth = 2 });

        const json &conditions = models::jsonMember(properties, "conditions");
        const json &conditionItems = models::jsonMember(conditions, "items");
        const json &conditionProperties = models::jsonMember(conditionItems, "properties");

        if (models::jsonMember(properties, "observedGeneration").is_null()) {
            const bool perCondition
                = !models::jsonMember(conditionProperties, "observedGeneration").is_null();
            add(u"missing-observed-generation"_s,
                perCondition ? Severity::Info : Severity::Warning,
                statusPath + u".properties.observedGeneration"_s,
                perCondition
                    ? u"No status.observedGeneration; the conditions carry observedGeneration "
                      "each, so a reader can still tell whether a condition describes the "
                      "current spec (metadata.generation), but kstatus-style tools look at "
                      "status.observedGeneration first."_s
                    : u"No status.observedGeneration: a reader cannot tell whether the status "
                      "describes the current spec (metadata.generation) or an older one, so "
                      "\"Ready\" may be stale right after a spec change. The controller should "
                      "write the generation it reconciled."_s);
        }

        if (!conditions.is_null()) {
            const QString conditionsPath = statusPath + u".properties.conditions"_s;
            QStringList missing;
            for (const char *field :
                 { "type", "status", "reason", "message", "lastTransitionTime" }) {
                if (models::jsonMember(conditionProperties, field).is_null())
                    missing << QString::fromLatin1(field);
            }
            if (!missing.isEmpty())
                add(u"conditions-shape"_s,
                    Severity::Warning,
                    conditionsPath + u".items"_s,
                    u"status.conditions items lack %1: they are not shaped like metav1.Condition "
                    "(type, status, reason, message, lastTransitionTime, observedGeneration), so "
                    "kubectl wait --for=condition, kstatus and consoles cannot read the observed "
                    "state the standard way."_s.arg(missing.join(u", "_s)));
            const QString listType = models::jsonString(conditions, "x-kubernetes-list-type");
            const json &keys = models::jsonMember(conditions, "x-kubernetes-list-map-keys");
            const bool keyedByType = keys.is_array() && keys.size() == 1 && keys[0] == "type";
            if (listType != u"map" || !keyedByType)
                add(u"conditions-list-type"_s,
                    Severity::Warning,
                    conditionsPath + u".x-kubernetes-list-type"_s,
                    u"status.conditions is not `x-kubernetes-list-type: map` keyed by `type`: "
                    "the API server does not enforce one entry per type, and server-side apply "
                    "replaces the whole list instead of merging each writer's condition."_s);

            const json &typeEnum
                = models::jsonMember(models::jsonMember(conditionProperties, "type"), "enum");
            if (typeEnum.is_array() && !typeEnum.empty()) {
                bool summary = false;
                for (const json &value : typeEnum)
                    summary = summary || value == "Ready" || value == "Available";
                if (!summary)
                    add(u"no-summary-condition"_s,
                        Severity::Warning,
                        conditionsPath + u".items.properties.type.enum"_s,
                        u"The condition types are a closed enum without Ready or Available: no "
                        "summary condition tells a reader (kubectl wait, GitOps health checks) "
                        "whether the observed state matches spec."_s);
            }
        } else if (!models::jsonMember(properties, "phase").is_null()) {
            add(u"phase-without-conditions"_s,
                Severity::Warning,
                statusPath + u".properties.phase"_s,
                u"status.phase is a single string state machine and there are no conditions: a "
                "phase cannot say why (reason, message), since when (lastTransitionTime) or for "
                "which generation, and adding a phase later breaks every client that switches "
                "on it. Report conditions (Ready, Degraded, ...) and keep phase for display."_s);
        }
    }

    void lintScale(const json &scale)
    {
        if (!scale.is_object())
            return;
        const QString statusReplicas = models::jsonString(scale, "statusReplicasPath");
        if (readsSpec(statusReplicas))
            add(u"scale-status-path-in-spec"_s,
                Severity::Error,
                m_prefix + u".subresources.scale.statusReplicasPath"_s,
                u"The scale subresource reads the observed replica count from %1, a spec field: "
                "the HPA and kubectl scale then see the desired count echoed back as observed, "
                "and whoever keeps it current writes spec beside GitOps. statusReplicasPath "
                "must point into status (kube-apiserver refuses to create such a CRD: \"should be a json path under .status\")."_s
                    .arg(statusReplicas));
    }

    void lintPrinterColumns(const json &columns)
    {
        if (!columns.is_array())
            return;
        for (const json &column : columns) {
            const QString columnName = models::jsonString(column, "name");
            const QString jsonPath = models::jsonString(column, "jsonPath");
            if (!readsSpec(jsonPath))
                continue;
            if (!looksObserved(lastField(jsonPath)) && !columnShowsState(columnName))
                continue;
            add(u"printer-column-reads-spec"_s,
                Severity::Warning,
                m_prefix + u".additionalPrinterColumns[%1].jsonPath"_s.arg(columnName),
                u"The printer column %1 shows state (%2) read from spec: kubectl get then "
                "presents the desired state, or an observation someone wrote into spec, as the "
                "object's actual state. Observed state columns should read status."_s.arg(
                    columnName, jsonPath));
        }
    }

    const json &m_version;
    QList<Finding> &m_findings;
    QString m_name;
    QString m_prefix;
    json m_root;
    QString m_rootPath;
};

void collectCrds(const json &document, QList<json> &crds)
{
    if (!document.is_object())
        return;
    const QString kind = models::jsonString(document, "kind");
    if (kind == u"CustomResourceDefinition") {
        crds.append(document);
    } else if (kind == u"List" || kind == u"CustomResourceDefinitionList") {
        const json &items = models::jsonMember(document, "items");
        if (items.is_array()) {
            for (const json &item : items)
                collectCrds(item, crds);
        }
    }
}

} // namespace

QString severityName(Severity severity)
{
    switch (severity) {
    case Severity::Error:
        return u"error"_s;
    case Severity::Warning:
        return u"warning"_s;
    case Severity::Info:
        break;
    }
    return u"info"_s;
}

bool CrdLintResult::hasErrors() const
{
    return count(Severity::Error) > 0;
}

int CrdLintResult::count(Severity severity) const
{
    int n = 0;
    for (const Finding &finding : findings)
        n += finding.severity == severity ? 1 : 0;
    return n;
}

bool looksObserved(const QString &fieldName)
{
    if (fieldName == u"phase" || fieldName == u"conditions")
        return true;
    for (const QStringView prefix :
         { u"observed", u"current", u"ready", u"available", u"healthy" }) {
        if (startsWithWord(fieldName, prefix))
            return true;
    }
    return startsWithWord(fieldName, u"last")
        && (fieldName.endsWith(u"Time") || fieldName.endsWith(u"Timestamp"));
}

bool looksDesired(const QString &fieldName)
{
    return startsWithWord(fieldName, u"desired") || startsWithWord(fieldName, u"target");
}

models::Result<CrdLintResult> lintCrd(const json &crd)
{
    if (!crd.is_object() || models::jsonString(crd, "kind") != u"CustomResourceDefinition")
        return models::Result<CrdLintResult>::failure(
            u"not a CustomResourceDefinition (kind is \"%1\")"_s.arg(
                models::jsonString(crd, "kind")));
    if (models::jsonString(crd, "apiVersion") != u"apiextensions.k8s.io/v1")
        return models::Result<CrdLintResult>::failure(
            u"CustomResourceDefinition %1 is %2; only apiextensions.k8s.io/v1 is linted"_s.arg(
                models::jsonString(models::jsonMember(crd, "metadata"), "name"),
                models::jsonString(crd, "apiVersion")));
    const json &spec = models::jsonMember(crd, "spec");
    const json &versions = models::jsonMember(spec, "versions");
    if (!versions.is_array() || versions.empty())
        return models::Result<CrdLintResult>::failure(
            u"CustomResourceDefinition %1 has no spec.versions"_s.arg(
                models::jsonString(models::jsonMember(crd, "metadata"), "name")));

    CrdLintResult result;
    result.crdName = models::jsonString(models::jsonMember(crd, "metadata"), "name");
    result.group = models::jsonString(spec, "group");
    result.kind = models::jsonString(models::jsonMember(spec, "names"), "kind");
    for (const json &version : versions) {
        const json &served = models::jsonMember(version, "served");
        if (!served.is_boolean() || !served.get<bool>())
            continue;
        result.servedVersions << models::jsonString(version, "name");
        VersionLinter(version, result.findings).run();
    }
    return result;
}

models::Result<QList<json>> crdsFromManifest(const QByteArray &bytes, const QString &source)
{
    QList<json> documents;
    const QByteArray trimmed = bytes.trimmed();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        json parsed = json::parse(trimmed.constBegin(), trimmed.constEnd(), nullptr, false);
        if (parsed.is_discarded())
            return models::Result<QList<json>>::failure(u"%1: not valid JSON"_s.arg(source));
        if (parsed.is_array()) {
            for (json &item : parsed)
                documents.append(std::move(item));
        } else {
            documents.append(std::move(parsed));
        }
    } else {
        auto parsed = models::yamlDocumentsToJson(bytes);
        if (!parsed)
            return models::Result<QList<json>>::failure(
                u"%1: not valid YAML: %2"_s.arg(source, parsed.error().message));
        documents = std::move(parsed.value());
    }
    QList<json> crds;
    for (const json &document : documents)
        collectCrds(document, crds);
    if (crds.isEmpty())
        return models::Result<QList<json>>::failure(
            u"%1: no CustomResourceDefinition in it (%2 document(s) of other kinds)"_s.arg(source)
                .arg(documents.size()));
    return crds;
}

models::Result<QList<CrdLintResult>> lintCrdFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return models::Result<QList<CrdLintResult>>::failure(
            u"%1: cannot read: %2"_s.arg(path, file.errorString()));
    auto crds = crdsFromManifest(file.readAll(), path);
    if (!crds)
        return models::Result<QList<CrdLintResult>>::failure(crds.error().message);
    QList<CrdLintResult> results;
    for (qsizetype i = 0; i < crds->size(); ++i) {
        auto linted = lintCrd(crds->at(i));
        if (!linted)
            return models::Result<QList<CrdLintResult>>::failure(
                u"%1 (document %2): %3"_s.arg(path).arg(i + 1).arg(linted.error().message));
        linted->source = crds->size() > 1 ? u"%1#%2"_s.arg(QFileInfo(path).fileName()).arg(i + 1)
                                          : QFileInfo(path).fileName();
        results.append(std::move(linted.value()));
    }
    return results;
}

} // namespace reconscope::controller::lint
