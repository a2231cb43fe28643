#include "controller/cluster/registry/builtinvalidation.h"

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/metavalidation.h"
#include "controller/cluster/registry/podvalidation.h"
#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/gofmt.h"
#include "models/dnsnames.h"
#include "models/gojson.h"
#include "models/jsonfields.h"

#include <QByteArray>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

using Errors = QList<FieldError>;
using metavalidation::NameRule;
namespace fe = fielderrors;

constexpr qint64 kMaxSecretSize = 1024 * 1024;
constexpr const char *kImmutableWhenSet = "field is immutable when `immutable` is set";

using models::jsonBool;
using models::jsonMember;
using models::jsonString;

QString quote(const QString &value)
{
    return gofmt::quote(value);
}

QString keyed(const char *path, const std::string &key)
{
    return QString::fromLatin1(path) + u'[' + QString::fromStdString(key) + u']';
}

// ValidateObjectMeta of pkg/apis/core/validation: apimachinery's and the finalizer rule.
Errors coreMeta(const json &object, bool namespaced, NameRule rule)
{
    const json &metadata = jsonMember(object, "metadata");
    Errors errors = metavalidation::validateObjectMeta(metadata, namespaced, rule);
    errors.append(metavalidation::validateKubeFinalizers(metadata));
    return errors;
}

Errors coreMetaUpdate(const json &object, const json &old)
{
    const json &metadata = jsonMember(object, "metadata");
    Errors errors = metavalidation::validateObjectMetaUpdate(metadata, jsonMember(old, "metadata"));
    errors.append(metavalidation::validateKubeFinalizers(metadata));
    return errors;
}

qint64 decodedSize(const json &value)
{
    return value.is_string()
        ? QByteArray::fromBase64(QByteArray::fromStdString(value.get<std::string>())).size()
        : 0;
}

void configKeys(Errors &errors, const json &map, const char *path, const json *others)
{
    if (!map.is_object())
        return;
    for (auto it = map.begin(); it != map.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        for (const QString &message : models::isConfigMapKey(key))
            errors.append(fe::invalid(keyed(path, it.key()), quote(key), message));
        if (others && others->is_object() && others->contains(it.key()))
            errors.append(fe::invalid(
                keyed(path, it.key()), quote(key), u"duplicate of key present in binaryData"_s));
    }
}

// The immutability of a ConfigMap or Secret whose old version set `immutable`.
void immutableData(Errors &errors, const json &object, const json &old, bool binaryData)
{
    if (!jsonBool(old, "immutable"))
        return;
    if (!jsonBool(object, "immutable"))
        errors.append(fe::forbidden(u"immutable"_s, QString::fromLatin1(kImmutableWhenSet)));
    for (const char *key : { "data", "binaryData" }) {
        if (!binaryData && std::string_view(key) == "binaryData")
            continue;
        if (!objectjson::identical(jsonMember(object, key), jsonMember(old, key)))
            errors.append(
                fe::forbidden(QString::fromLatin1(key), QString::fromLatin1(kImmutableWhenSet)));
    }
}

Errors validateConfigMap(const json &object)
{
    Errors errors = coreMeta(object, true, NameRule::DnsSubdomain);
    const json &data = jsonMember(object, "data");
    const json &binary = jsonMember(object, "binaryData");
    configKeys(errors, data, "data", &binary);
    configKeys(errors, binary, "binaryData", nullptr);
    qint64 size = 0;
    for (const json *map : { &data, &binary }) {
        if (!map->is_object())
            continue;
        for (auto it = map->begin(); it != map->end(); ++it)
            size += map == &data
                ? qint64(it->is_string() ? it->get_ref<const std::string &>().size() : 0)
                : decodedSize(*it);
    }
    if (size > kMaxSecretSize)
        errors.append(fe::tooLong(u"[]"_s, kMaxSecretSize)); // the whole object
    return errors;
}

Errors validateConfigMapUpdate(const json &object, const json &old)
{
    Errors errors = coreMetaUpdate(object, old);
    immutableData(errors, object, old, true);
    errors.append(validateConfigMap(object));
    return errors;
}

// The JSON a docker config Secret must hold: json.Unmarshal into a map.
void dockerConfig(Errors &errors, const json &data, const char *key)
{
    const QString path = keyed("data", key);
    const json &value = jsonMember(data, key);
    if (value.is_null()) {
        errors.append(fe::required(path));
        return;
    }
    const QByteArray text = QByteArray::fromBase64(
        QByteArray::fromStdString(value.is_string() ? value.get<std::string>() : std::string()));
    if (const auto error = models::goUnmarshalError(text, "object", "map[string]interface {}"))
        errors.append(
            fe::invalid(path, u"\"<secret contents redacted>\""_s, QString::fromStdString(*error)));
}

Errors validateSecret(const json &object)
{
    Errors errors = coreMeta(object, true, NameRule::DnsSubdomain);
    const json &data = jsonMember(object, "data");
    configKeys(errors, data, "data", nullptr);
    qint64 size = 0;
    if (data.is_object()) {
        for (auto it = data.begin(); it != data.end(); ++it)
            size += decodedSize(*it);
    }
    if (size > kMaxSecretSize)
        errors.append(fe::tooLong(u"data"_s, kMaxSecretSize));
    const QString type = jsonString(object, "type");
    const auto has = [&data](const char *key) {
        return data.is_object() && data.contains(key);
    };
    if (type == u"kubernetes.io/service-account-token") {
        const json &annotations = jsonMember(jsonMember(object, "metadata"), "annotations");
        if (jsonString(annotations, "kubernetes.io/service-account.name").isEmpty())
            errors.append(
                fe::required(u"metadata.annotations[kubernetes.io/service-account.name]"_s));
    } else if (type == u"kubernetes.io/dockercfg") {
        dockerConfig(errors, data, ".dockercfg");
    } else if (type == u"kubernetes.io/dockerconfigjson") {
        dockerConfig(errors, data, ".dockerconfigjson");
    } else if (type == u"kubernetes.io/basic-auth") {
        if (!has("username") && !has("password")) {
            errors.append(fe::required(u"data[username]"_s));
            errors.append(fe::required(u"data[password]"_s));
        }
    } else if (type == u"kubernetes.io/ssh-auth") {
        if (decodedSize(jsonMember(data, "ssh-privatekey")) == 0)
            errors.append(fe::required(u"data[ssh-privatekey]"_s));
    } else if (type == u"kubernetes.io/tls") {
        for (const char *key : { "tls.crt", "tls.key" }) {
            if (!has(key))
                errors.append(fe::required(keyed("data", key)));
        }
    }
    return errors;
}

Errors validateSecretUpdate(const json &object, const json &old)
{
    Errors errors = coreMetaUpdate(object, old);
    const QString type = jsonString(object, "type");
    if (type != jsonString(old, "type"))
        errors.append(fe::invalid(u"type"_s, quote(type), u"field is immutable"_s));
    immutableData(errors, object, old, false);
    errors.append(validateSecret(object));
    return errors;
}

// legacyValidateEvent for requests of core/v1: the namespaces, and the members an Event with an
// eventTime must have.
Errors validateEvent(const json &event)
{
    Errors errors;
    const QString ns = jsonString(jsonMember(event, "metadata"), "namespace");
    const QString involved = jsonString(jsonMember(event, "involvedObject"), "namespace");
    const auto mismatch = [&] {
        errors.append(fe::invalid(
            u"involvedObject.namespace"_s, quote(involved), u"does not match event.namespace"_s));
    };
    const json &eventTime = jsonMember(event, "eventTime");
    if (eventTime.is_null() || eventTime == "") {
        if (involved.isEmpty() ? !ns.isEmpty() && ns != u"default" : ns != involved)
            mismatch();
    } else {
        if (involved.isEmpty() && ns != u"default" && ns != u"kube-system")
            mismatch();
        const QString controller = jsonString(event, "reportingComponent");
        if (controller.isEmpty())
            errors.append(fe::required(u"reportingComponent"_s));
        for (const QString &message : models::isQualifiedName(controller))
            errors.append(fe::invalid(u"reportingComponent"_s, quote(controller), message));
        for (const auto &[key, limit] : { std::pair{ "reportingInstance", 128 },
                                          std::pair{ "action", 128 },
                                          std::pair{ "reason", 128 },
                                          std::pair{ "message", 1024 } }) {
            const QString value = jsonString(event, key);
            if (value.isEmpty() && std::string_view(key) != "message")
                errors.append(fe::required(QString::fromLatin1(key)));
            if (value.toUtf8().size() > limit)
                errors.append(fe::invalid(QString::fromLatin1(key),
                                          u"\"\""_s,
                                          u"can have at most %1 characters"_s.arg(limit)));
        }
    }
    for (const QString &message : models::isDNS1123Subdomain(ns))
        errors.append(fe::invalid(u"namespace"_s, quote(ns), message));
    return errors;
}

Errors validateLeaseSpec(const json &object)
{
    Errors errors;
    const json &spec = jsonMember(object, "spec");
    const json &duration = jsonMember(spec, "leaseDurationSeconds");
    if (duration.is_number() && duration.get<double>() <= 0)
        errors.append(fe::invalid(
            u"spec.leaseDurationSeconds"_s, gofmt::marshal(duration), u"must be greater than 0"_s));
    const json &transitions = jsonMember(spec, "leaseTransitions");
    if (transitions.is_number() && transitions.get<double>() < 0)
        errors.append(fe::invalid(u"spec.leaseTransitions"_s,
                                  gofmt::marshal(transitions),
                                  u"must be greater than or equal to 0"_s));
    return errors;
}

Errors validateLease(const json &object)
{
    Errors errors = metavalidation::validateObjectMeta(
        jsonMember(object, "metadata"), true, NameRule::DnsSubdomain);
    errors.append(validateLeaseSpec(object));
    return errors;
}

Errors validateLeaseUpdate(const json &object, const json &old)
{
    Errors errors = metavalidation::validateObjectMetaUpdate(jsonMember(object, "metadata"),
                                                             jsonMember(old, "metadata"));
    errors.append(validateLeaseSpec(object));
    return errors;
}

Errors validateQuotaSpec(const json &object)
{
    Errors errors;
    const json &hard = jsonMember(jsonMember(object, "spec"), "hard");
    if (!hard.is_object())
        return errors;
    for (auto it = hard.begin(); it != hard.end(); ++it) {
        const QString name = QString::fromStdString(it.key());
        const QString path = keyed("spec.hard", it.key());
        errors.append(podvalidation::validateResourceName(name, path));
        if (!name.contains(u'/') && !podvalidation::isStandardQuotaResource(name))
            errors.append(
                fe::invalid(path, quote(name), u"must be a standard resource for quota"_s));
        if (const auto value = apimachinery::Quantity::fromJson(*it))
            errors.append(podvalidation::validateQuantityValue(name, *value, path));
    }
    return errors;
}

Errors validateQuota(const json &object)
{
    Errors errors = coreMeta(object, true, NameRule::DnsSubdomain);
    errors.append(validateQuotaSpec(object));
    return errors;
}

Errors validateQuotaUpdate(const json &object, const json &old)
{
    Errors errors = coreMetaUpdate(object, old);
    errors.append(validateQuotaSpec(object));
    QStringList scopes = objectjson::strings(jsonMember(jsonMember(object, "spec"), "scopes"));
    QStringList oldScopes = objectjson::strings(jsonMember(jsonMember(old, "spec"), "scopes"));
    scopes.removeDuplicates();
    oldScopes.removeDuplicates();
    std::sort(scopes.begin(), scopes.end());
    std::sort(oldScopes.begin(), oldScopes.end());
    if (scopes != oldScopes)
        errors.append(fe::invalid(u"spec.scopes"_s,
                                  gofmt::marshal(jsonMember(jsonMember(object, "spec"), "scopes")),
                                  u"field is immutable"_s));
    return errors;
}

// json.Marshal of a metav1.LabelSelector: matchLabels, then matchExpressions (key, operator,
// values), each left out when empty.
QString marshalSelector(const json &selector)
{
    if (!selector.is_object())
        return u"null"_s;
    QStringList parts;
    const json &labels = jsonMember(selector, "matchLabels");
    if (labels.is_object() && !labels.empty())
        parts << u"\"matchLabels\":"_s + gofmt::marshal(labels);
    const json &expressions = jsonMember(selector, "matchExpressions");
    if (expressions.is_array() && !expressions.empty()) {
        QStringList items;
        for (const json &e : expressions) {
            QString item = u"{\"key\":"_s + gofmt::marshal(json(jsonString(e, "key").toStdString()))
                + u",\"operator\":"_s
                + gofmt::marshal(json(jsonString(e, "operator").toStdString()));
            if (jsonMember(e, "values").is_array() && !jsonMember(e, "values").empty())
                item += u",\"values\":"_s + gofmt::marshal(jsonMember(e, "values"));
            items << item + u'}';
        }
        parts << u"\"matchExpressions\":["_s + items.join(u',') + u']';
    }
    return u'{' + parts.join(u',') + u'}';
}

// ValidateLabelSelector (label values checked strictly).
Errors validateSelector(const json &selector, const QString &path)
{
    Errors errors = metavalidation::validateLabels(jsonMember(selector, "matchLabels"),
                                                   path + u".matchLabels"_s);
    const json &expressions = jsonMember(selector, "matchExpressions");
    if (!expressions.is_array())
        return errors;
    for (qsizetype i = 0; i < qsizetype(expressions.size()); ++i) {
        const json &e = expressions[std::size_t(i)];
        const QString p = path + u".matchExpressions["_s + QString::number(i) + u']';
        const QString op = jsonString(e, "operator");
        const QStringList values = objectjson::strings(jsonMember(e, "values"));
        if (op == u"In" || op == u"NotIn") {
            if (values.isEmpty())
                errors.append(fe::required(
                    p + u".values"_s, u"must be specified when `operator` is 'In' or 'NotIn'"_s));
        } else if (op == u"Exists" || op == u"DoesNotExist") {
            if (!values.isEmpty())
                errors.append(fe::forbidden(
                    p + u".values"_s,
                    u"may not be specified when `operator` is 'Exists' or 'DoesNotExist'"_s));
        } else {
            errors.append(
                fe::invalid(p + u".operator"_s, quote(op), u"not a valid selector operator"_s));
        }
        const QString key = jsonString(e, "key");
        for (const QString &message : models::isQualifiedName(key))
            errors.append(fe::invalid(p + u".key"_s, quote(key), message));
        for (qsizetype v = 0; v < values.size(); ++v) {
            for (const QString &message : models::isValidLabelValue(values[v]))
                errors.append(fe::invalid(
                    p + u".values["_s + QString::number(v) + u']', quote(values[v]), message));
        }
    }
    return errors;
}

// LabelSelectorAsSelector: whether the selector converts, and whether it selects `labels`
// (a null selector selects nothing, an empty one everything).
struct SelectorView
{
    bool valid = true;
    bool everything = false;
    bool nothing = false;
};

SelectorView viewSelector(const json &selector)
{
    SelectorView view;
    if (!selector.is_object()) {
        view.nothing = true;
        return view;
    }
    const json &labels = jsonMember(selector, "matchLabels");
    const json &expressions = jsonMember(selector, "matchExpressions");
    view.everything = (!labels.is_object() || labels.empty())
        && (!expressions.is_array() || expressions.empty());
    if (labels.is_object()) {
        for (auto it = labels.begin(); it != labels.end(); ++it)
            view.valid = view.valid
                && models::isQualifiedName(QString::fromStdString(it.key())).isEmpty()
                && it->is_string()
                && models::isValidLabelValue(QString::fromStdString(it->get<std::string>()))
                       .isEmpty();
    }
    if (expressions.is_array()) {
        for (const json &e : expressions) {
            const QString op = jsonString(e, "operator");
            const QStringList values = objectjson::strings(jsonMember(e, "values"));
            const bool set = op == u"In" || op == u"NotIn";
            const bool exists = op == u"Exists" || op == u"DoesNotExist";
            view.valid = view.valid && (set || exists)
                && (set ? !values.isEmpty() : values.isEmpty())
                && models::isQualifiedName(jsonString(e, "key")).isEmpty()
                && std::all_of(values.begin(), values.end(), [](const QString &v) {
                             return models::isValidLabelValue(v).isEmpty();
                         });
        }
    }
    return view;
}

bool selects(const json &selector, const json &labels)
{
    const auto has = [&labels](const std::string &key) {
        return labels.is_object() && labels.contains(key);
    };
    const json &matchLabels = jsonMember(selector, "matchLabels");
    if (matchLabels.is_object()) {
        for (auto it = matchLabels.begin(); it != matchLabels.end(); ++it) {
            if (!has(it.key()) || labels[it.key()] != *it)
                return false;
        }
    }
    const json &expressions = jsonMember(selector, "matchExpressions");
    for (const json &e : expressions.is_array() ? expressions : json::array()) {
        const std::string key = jsonString(e, "key").toStdString();
        const QString op = jsonString(e, "operator");
        const QString value = has(key) ? jsonString(labels, key.c_str()) : QString();
        const bool listed = objectjson::strings(jsonMember(e, "values")).contains(value);
        if ((op == u"In" && !(has(key) && listed)) || (op == u"NotIn" && has(key) && listed)
            || (op == u"Exists" && !has(key)) || (op == u"DoesNotExist" && has(key)))
            return false;
    }
    return true;
}

// json.Marshal of an intstr.IntOrString, and its value as getIntOrPercentValue reads it.
int intOrPercent(const json &value)
{
    if (value.is_number_integer())
        return int(value.get<qint64>());
    const QString text
        = value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
    return (text.endsWith(u'%') ? text.chopped(1) : text).toInt();
}

bool isPercent(const json &value)
{
    static const QRegularExpression percent(u"^[0-9]+%$"_s);
    return value.is_string()
        && percent.match(QString::fromStdString(value.get<std::string>())).hasMatch();
}

void positiveIntOrPercent(Errors &errors, const json &value, const QString &path)
{
    if (value.is_string() && !isPercent(value))
        errors.append(fe::invalid(path,
                                  gofmt::marshal(value),
                                  u"a valid percent string must be a numeric string followed by an "
                                  "ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                                  "'[0-9]+%')"_s));
    else if (value.is_number_integer() && value.get<qint64>() < 0)
        errors.append(
            fe::invalid(path, gofmt::marshal(value), u"must be greater than or equal to 0"_s));
}

Errors validateStrategy(const json &strategy)
{
    Errors errors;
    const QString type = jsonString(strategy, "type");
    const json &rolling = jsonMember(strategy, "rollingUpdate");
    if (type == u"Recreate") {
        if (!rolling.is_null())
            errors.append(
                fe::forbidden(u"spec.strategy.rollingUpdate"_s,
                              u"may not be specified when strategy `type` is 'Recreate'"_s));
    } else if (type == u"RollingUpdate") {
        const QString path = u"spec.strategy.rollingUpdate"_s;
        if (rolling.is_null()) {
            errors.append(fe::required(path, u"this should be defaulted and never be nil"_s));
            return errors;
        }
        const json &unavailable = jsonMember(rolling, "maxUnavailable");
        const json &surge = jsonMember(rolling, "maxSurge");
        positiveIntOrPercent(errors, unavailable, path + u".maxUnavailable"_s);
        positiveIntOrPercent(errors, surge, path + u".maxSurge"_s);
        if (intOrPercent(unavailable) == 0 && intOrPercent(surge) == 0)
            errors.append(fe::invalid(path + u".maxUnavailable"_s,
                                      gofmt::marshal(unavailable),
                                      u"may not be 0 when `maxSurge` is 0"_s));
        if (isPercent(unavailable) && intOrPercent(unavailable) > 100)
            errors.append(fe::invalid(path + u".maxUnavailable"_s,
                                      gofmt::marshal(unavailable),
                                      u"must not be greater than 100%"_s));
    } else {
        // NotSupported of the internal DeploymentStrategy, which json.Marshal writes by its Go
        // field names.
        const auto intOrString = [&rolling](const char *key) {
            const json &value = jsonMember(rolling, key);
            return gofmt::marshal(value.is_null() ? json(0) : value);
        };
        const QString rollingUpdate = rolling.is_object()
            ? u"{\"MaxUnavailable\":"_s + intOrString("maxUnavailable") + u",\"MaxSurge\":"_s
                + intOrString("maxSurge") + u'}'
            : u"null"_s;
        const QString rendered = u"{\"Type\":"_s + gofmt::marshal(json(type.toStdString()))
            + u",\"RollingUpdate\":"_s + rollingUpdate + u'}';
        errors.append({ u"FieldValueNotSupported"_s,
                        u"spec.strategy"_s,
                        u"Unsupported value: "_s + rendered
                            + u": supported values: \"Recreate\", \"RollingUpdate\""_s });
    }
    return errors;
}

void nonNegative(Errors &errors, const json &value, const QString &path)
{
    if (value.is_number() && value.get<double>() < 0)
        errors.append(
            fe::invalid(path, gofmt::marshal(value), u"must be greater than or equal to 0"_s));
}

// ValidateDeploymentSpec and ValidateReplicaSetSpec.
Errors validateWorkloadSpec(const json &object, bool deployment)
{
    Errors errors;
    const json &spec = jsonMember(object, "spec");
    nonNegative(errors, jsonMember(spec, "replicas"), u"spec.replicas"_s);
    const json &selector = jsonMember(spec, "selector");
    if (selector.is_null()) {
        errors.append(fe::required(u"spec.selector"_s));
    } else {
        errors.append(validateSelector(selector, u"spec.selector"_s));
        if (viewSelector(selector).everything)
            errors.append(fe::invalid(u"spec.selector"_s,
                                      marshalSelector(selector),
                                      u"empty selector is invalid for deployment"_s));
    }
    const SelectorView view = viewSelector(selector);
    if (!view.valid) {
        errors.append(fe::invalid(
            u"spec.selector"_s, marshalSelector(selector), u"invalid label selector"_s));
    } else {
        // ValidatePodTemplateSpecForReplicaSet.
        const json &templ = jsonMember(spec, "template");
        const json &labels = jsonMember(jsonMember(templ, "metadata"), "labels");
        if (!view.everything && (view.nothing || !selects(selector, labels)))
            errors.append(fe::invalid(u"spec.template.metadata.labels"_s,
                                      gofmt::marshal(labels),
                                      u"`selector` does not match template `labels`"_s));
        errors.append(podvalidation::validatePodTemplate(templ, u"spec.template"_s));
        const QString restart = jsonString(jsonMember(templ, "spec"), "restartPolicy");
        if (restart != u"Always")
            errors.append(
                fe::notSupported(u"spec.template.spec.restartPolicy"_s, restart, { u"Always"_s }));
        if (!jsonMember(jsonMember(templ, "spec"), "activeDeadlineSeconds").is_null())
            errors.append(fe::forbidden(u"spec.template.spec.activeDeadlineSeconds"_s,
                                        u"activeDeadlineSeconds in ReplicaSet is not Supported"_s));
    }
    nonNegative(errors, jsonMember(spec, "minReadySeconds"), u"spec.minReadySeconds"_s);
    if (!deployment)
        return errors;
    errors.append(validateStrategy(jsonMember(spec, "strategy")));
    nonNegative(errors, jsonMember(spec, "revisionHistoryLimit"), u"spec.revisionHistoryLimit"_s);
    const json &deadline = jsonMember(spec, "progressDeadlineSeconds");
    if (deadline.is_number()) {
        nonNegative(errors, deadline, u"spec.progressDeadlineSeconds"_s);
        const json &minReady = jsonMember(spec, "minReadySeconds");
        if (deadline.get<double>() <= (minReady.is_number() ? minReady.get<double>() : 0))
            errors.append(fe::invalid(u"spec.progressDeadlineSeconds"_s,
                                      gofmt::marshal(deadline),
                                      u"must be greater than minReadySeconds"_s));
    }
    return errors;
}

Errors validateWorkload(const json &object, bool deployment)
{
    Errors errors = coreMeta(object, true, NameRule::DnsSubdomain);
    errors.append(validateWorkloadSpec(object, deployment));
    return errors;
}

Errors validateWorkloadUpdate(const json &object, const json &old, bool deployment)
{
    Errors errors = coreMetaUpdate(object, old);
    errors.append(validateWorkloadSpec(object, deployment));
    const json &selector = jsonMember(jsonMember(object, "spec"), "selector");
    if (!objectjson::identical(selector, jsonMember(jsonMember(old, "spec"), "selector")))
        errors.append(
            fe::invalid(u"spec.selector"_s, marshalSelector(selector), u"field is immutable"_s));
    return errors;
}

// The strategies, by kind: Validate and ValidateUpdate.
struct Strategy
{
    const char *group;
    const char *kind;
    Errors (*create)(const json &object);
    Errors (*update)(const json &object, const json &old);
};

const Strategy kStrategies[] = {
    { "", "ConfigMap", validateConfigMap, validateConfigMapUpdate },
    { "", "Secret", validateSecret, validateSecretUpdate },
    { "",
      "Event",
      validateEvent,
      [](const json &object, const json &) {
          return validateEvent(object);
      } },
    { "", "ResourceQuota", validateQuota, validateQuotaUpdate },
    { "", "Pod", podvalidation::validatePodCreate, podvalidation::validatePodUpdate },
    { "",
      "Namespace",
      [](const json &object) { return coreMeta(object, false, NameRule::DnsLabel); },
      coreMetaUpdate },
    { "",
      "Service",
      [](const json &object) { return coreMeta(object, true, NameRule::Dns1035Label); },
      coreMetaUpdate },
    { "",
      "ServiceAccount",
      [](const json &object) { return coreMeta(object, true, NameRule::DnsSubdomain); },
      [](const json &object, const json &old) {
          Errors errors = coreMetaUpdate(object, old);
          errors.append(coreMeta(object, true, NameRule::DnsSubdomain));
          return errors;
      } },
    { "coordination.k8s.io", "Lease", validateLease, validateLeaseUpdate },
    { "apps",
      "Deployment",
      [](const json &object) { return validateWorkload(object, true); },
      [](const json &object, const json &old) {
          return validateWorkloadUpdate(object, old, true);
      } },
    { "apps",
      "ReplicaSet",
      [](const json &object) { return validateWorkload(object, false); },
      [](const json &object, const json &old) {
          return validateWorkloadUpdate(object, old, false);
      } },
};

const Strategy *strategyOf(const ResourceType &type)
{
    if (!type.builtin)
        return nullptr;
    for (const Strategy &strategy : kStrategies) {
        if (type.group == QLatin1StringView(strategy.group)
            && type.kind == QLatin1StringView(strategy.kind))
            return &strategy;
    }
    return nullptr;
}

} // namespace

QList<FieldError> validateBuiltinCreate(const ResourceType &type, const json &object)
{
    const Strategy *strategy = strategyOf(type);
    return strategy ? strategy->create(object) : Errors();
}

QList<FieldError>
validateBuiltinUpdate(const ResourceType &type, const json &object, const json &old)
{
    const Strategy *strategy = strategyOf(type);
    return strategy ? strategy->update(object, old) : Errors();
}

} // namespace reconscope::controller::cluster
