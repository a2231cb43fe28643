#include "models/condition.h"

#include "models/dnsnames.h"
#include "models/jsonfields.h"
#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QSet>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

constexpr qsizetype MaxTypeLength = 316;
constexpr qsizetype MaxNameLength = 63;
constexpr qsizetype MaxPrefixLength = 253;
constexpr qsizetype MaxReasonLength = 1024;
constexpr qsizetype MaxMessageBytes = 32768;

QString shorten(const QString &value)
{
    constexpr qsizetype limit = 80;
    if (value.size() <= limit)
        return value;
    return value.left(limit) + u"... (%1 characters)"_s.arg(value.size());
}

QString invalid(const QString &field, const QString &value, const QString &why)
{
    return u"%1: Invalid value: \"%2\": %3"_s.arg(field, shorten(value), why);
}

// Problems with a qualified name (IsQualifiedName: optional DNS-subdomain prefix and '/').
QStringList qualifiedNameProblems(const QString &value)
{
    static const QRegularExpression nameRe(u"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"_s);
    QStringList problems;
    const QStringList parts = value.split(u'/');
    QString name = value;
    if (parts.size() > 2) {
        problems << u"a qualified name must consist of an optional DNS subdomain prefix and '/' "
                    u"followed by a name, with at most one '/'"_s;
        return problems;
    }
    if (parts.size() == 2) {
        const QString &prefix = parts.front();
        name = parts.back();
        if (prefix.isEmpty())
            problems << u"the prefix before '/' must not be empty"_s;
        else if (prefix.size() > MaxPrefixLength)
            problems << u"the prefix must be no more than %1 characters"_s.arg(MaxPrefixLength);
        else if (!isDNS1123Subdomain(prefix).isEmpty())
            problems << u"the prefix must be a lower-case DNS subdomain (e.g. example.com)"_s;
    }
    if (name.isEmpty())
        problems << u"the name part must not be empty"_s;
    else if (name.size() > MaxNameLength)
        problems << u"the name part must be no more than %1 characters"_s.arg(MaxNameLength);
    else if (!nameRe.match(name).hasMatch())
        problems << u"the name part must consist of alphanumeric characters, '-', '_' or '.', and "
                    u"must start and end with an alphanumeric character"_s;
    return problems;
}

} // namespace

nlohmann::json Condition::toJson() const
{
    nlohmann::json json = nlohmann::json::object();
    json["type"] = type.toStdString();
    json["status"] = status.toStdString();
    json["reason"] = reason.toStdString();
    json["message"] = message.toStdString();
    json["lastTransitionTime"] = formatRfc3339(lastTransitionTime).toStdString();
    if (observedGeneration != 0)
        json["observedGeneration"] = observedGeneration;
    return json;
}

Condition Condition::fromJsonLenient(const nlohmann::json &json)
{
    Condition condition;
    if (!json.is_object())
        return condition;
    condition.type = jsonString(json, "type");
    condition.status = jsonString(json, "status");
    condition.reason = jsonString(json, "reason");
    condition.message = jsonString(json, "message");
    if (const auto time = parseRfc3339(jsonString(json, "lastTransitionTime")))
        condition.lastTransitionTime = *time;
    const auto og = json.find("observedGeneration");
    if (og != json.end()) {
        if (og->is_number_integer() && !og->is_number_unsigned())
            condition.observedGeneration = og->get<std::int64_t>();
        else if (og->is_number_unsigned()
                 && og->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<qint64>::max()))
            condition.observedGeneration = qint64(og->get<std::uint64_t>());
    }
    return condition;
}

Result<Condition> Condition::fromJson(const nlohmann::json &json)
{
    if (!json.is_object())
        return Result<Condition>::failure(
            u"condition: expected an object, got %1"_s.arg(QString::fromUtf8(json.type_name())));
    for (const char *key : { "type", "status", "reason", "message", "lastTransitionTime" }) {
        const auto it = json.find(key);
        if (it != json.end() && !it->is_string() && !it->is_null()) {
            return Result<Condition>::failure(u"condition.%1: expected a string, got %2"_s.arg(
                QString::fromUtf8(key), QString::fromUtf8(it->type_name())));
        }
    }
    const auto og = json.find("observedGeneration");
    if (og != json.end() && !og->is_null()) {
        const bool fitsInt64 = og->is_number_integer()
            && (!og->is_number_unsigned()
                || og->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<qint64>::max()));
        if (!fitsInt64)
            return Result<Condition>::failure(
                u"condition.observedGeneration: expected a 64-bit integer, got %1"_s.arg(
                    QString::fromStdString(og->dump())));
    }
    const QString ltt = jsonString(json, "lastTransitionTime");
    if (!ltt.isEmpty() && !parseRfc3339(ltt))
        return Result<Condition>::failure(
            u"condition.lastTransitionTime: Invalid value: \"%1\": not an RFC 3339 date-time"_s.arg(
                shorten(ltt)));
    return fromJsonLenient(json);
}

QStringList conditionProblems(const Condition &condition)
{
    static const QRegularExpression reasonRe(u"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"_s);
    QStringList problems;

    if (condition.type.isEmpty()) {
        problems << u"type: Required value"_s;
    } else {
        if (condition.type.size() > MaxTypeLength)
            problems << invalid(u"type"_s,
                                condition.type,
                                u"must be no more than %1 characters"_s.arg(MaxTypeLength));
        for (const QString &problem : qualifiedNameProblems(condition.type))
            problems << invalid(u"type"_s, condition.type, problem);
    }

    if (condition.status != u"True" && condition.status != u"False"
        && condition.status != u"Unknown")
        problems << u"status: Unsupported value: \"%1\": supported values: \"True\", \"False\", "
                    u"\"Unknown\""_s.arg(shorten(condition.status));

    if (condition.reason.isEmpty())
        problems << u"reason: Required value: a condition reason must be 1-%1 characters"_s.arg(
            MaxReasonLength);
    else if (condition.reason.size() > MaxReasonLength)
        problems << invalid(u"reason"_s,
                            condition.reason,
                            u"must be no more than %1 characters"_s.arg(MaxReasonLength));
    else if (!reasonRe.match(condition.reason).hasMatch())
        problems << invalid(u"reason"_s,
                            condition.reason,
                            u"a condition reason must start with a letter, contain only letters, "
                            u"digits, '_', ',' or ':', and end with a letter, digit or '_' "
                            u"(regex ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$)"_s);

    const qsizetype messageBytes = condition.message.toUtf8().size();
    if (messageBytes > MaxMessageBytes)
        problems << u"message: Too long: may not be more than %1 bytes (got %2)"_s
                        .arg(MaxMessageBytes)
                        .arg(messageBytes);

    if (!condition.lastTransitionTime.isValid())
        problems << u"lastTransitionTime: Required value: must be set (RFC 3339)"_s;

    if (condition.observedGeneration < 0)
        problems << invalid(u"observedGeneration"_s,
                            QString::number(condition.observedGeneration),
                            u"must be greater than or equal to 0"_s);
    return problems;
}

Status<> validateCondition(const Condition &condition)
{
    const QStringList problems = conditionProblems(condition);
    if (problems.isEmpty())
        return {};
    const QString prefix = condition.type.isEmpty()
        ? u"condition"_s
        : u"condition %1"_s.arg(shorten(condition.type));
    return Status<>::failure(prefix + u": "_s + problems.join(u"; "_s));
}

Status<> validateConditions(const ConditionList &conditions)
{
    QStringList problems;
    QSet<QString> seen;
    for (qsizetype i = 0; i < conditions.size(); ++i) {
        const Condition &condition = conditions.at(i);
        for (const QString &problem : conditionProblems(condition))
            problems << u"conditions[%1].%2"_s.arg(i).arg(problem);
        if (!condition.type.isEmpty()) {
            if (seen.contains(condition.type))
                problems << u"conditions[%1].type: Duplicate value: \"%2\""_s.arg(i).arg(
                    shorten(condition.type));
            seen.insert(condition.type);
        }
    }
    if (problems.isEmpty())
        return {};
    return Status<>::failure(problems.join(u"; "_s));
}

const Condition *findStatusCondition(const ConditionList &conditions, QStringView type)
{
    for (const Condition &condition : conditions) {
        if (condition.type == type)
            return &condition;
    }
    return nullptr;
}

Condition *findStatusCondition(ConditionList &conditions, QStringView type)
{
    for (Condition &condition : conditions) {
        if (condition.type == type)
            return &condition;
    }
    return nullptr;
}

bool isStatusConditionTrue(const ConditionList &conditions, QStringView type)
{
    const Condition *condition = findStatusCondition(conditions, type);
    return condition && condition->isTrue();
}

bool setStatusCondition(ConditionList &conditions, Condition condition, const QDateTime &now)
{
    const QDateTime given = toWholeSecondsUtc(condition.lastTransitionTime);
    Condition *existing = findStatusCondition(conditions, condition.type);
    if (!existing) {
        condition.lastTransitionTime = given.isValid() ? given : toWholeSecondsUtc(now);
        conditions.append(std::move(condition));
        return true;
    }
    bool changed = false;
    if (existing->status != condition.status) {
        existing->status = condition.status;
        existing->lastTransitionTime = given.isValid() ? given : toWholeSecondsUtc(now);
        changed = true;
    }
    if (existing->reason != condition.reason) {
        existing->reason = condition.reason;
        changed = true;
    }
    if (existing->message != condition.message) {
        existing->message = condition.message;
        changed = true;
    }
    if (existing->observedGeneration != condition.observedGeneration) {
        existing->observedGeneration = condition.observedGeneration;
        changed = true;
    }
    return changed;
}

bool removeStatusCondition(ConditionList &conditions, QStringView type)
{
    for (qsizetype i = 0; i < conditions.size(); ++i) {
        if (conditions.at(i).type == type) {
            conditions.removeAt(i);
            return true;
        }
    }
    return false;
}

nlohmann::json conditionsToJson(const ConditionList &conditions)
{
    nlohmann::json array = nlohmann::json::array();
    for (const Condition &condition : conditions)
        array.push_back(condition.toJson());
    return array;
}

ConditionList conditionsFromJsonLenient(const nlohmann::json &json)
{
    ConditionList conditions;
    if (!json.is_array())
        return conditions;
    conditions.reserve(qsizetype(json.size()));
    for (const nlohmann::json &entry : json) {
        if (entry.is_object())
            conditions.append(Condition::fromJsonLenient(entry));
    }
    return conditions;
}

} // namespace reconscope::models
