#pragma once

#include "models/result.h"

#include <nlohmann/json_fwd.hpp>

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace reconscope::models {

// One status condition, shaped like metav1.Condition. Read leniently from real objects (any field
// may be missing; lastTransitionTime may be absent or carry fractions), validated strictly before
// anything is written (validateCondition).
struct Condition
{
    QString type;
    QString status; // "True", "False" or "Unknown" in valid conditions
    QString reason;
    QString message;
    QDateTime lastTransitionTime; // UTC; invalid when absent or unparsable
    qint64 observedGeneration = 0; // 0 = not set (metav1 omits it)

    bool isTrue() const { return status == u"True"; }
    bool isFalse() const { return status == u"False"; }
    bool isUnknown() const { return status == u"Unknown"; }

    friend bool operator==(const Condition &, const Condition &) = default;

    // The wire form: type, status, reason, message, lastTransitionTime (RFC 3339, UTC, whole
    // seconds) and observedGeneration when not 0 (metav1's omitempty).
    nlohmann::json toJson() const;
    // Lenient: a non-object gives an empty condition, wrongly typed fields are left empty.
    static Condition fromJsonLenient(const nlohmann::json &json);
    // Checks the JSON shape (an object with string fields, an integer observedGeneration and an
    // RFC 3339 lastTransitionTime when present); does not apply validateCondition's rules.
    static Result<Condition> fromJson(const nlohmann::json &json);
};

using ConditionList = QList<Condition>;

// Problems with a condition under the metav1.Condition rules, each naming the field and value:
// type a qualified name (<= 316 characters), status True|False|Unknown, reason 1-1024 characters
// matching ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$, message <= 32768 bytes, lastTransitionTime
// set, observedGeneration >= 0. Empty when valid.
QStringList conditionProblems(const Condition &condition);
Status<> validateCondition(const Condition &condition);
// All conditions valid and one entry per type.
Status<> validateConditions(const ConditionList &conditions);

// The entry of that type, or nullptr.
const Condition *findStatusCondition(const ConditionList &conditions, QStringView type);
Condition *findStatusCondition(ConditionList &conditions, QStringView type);
bool isStatusConditionTrue(const ConditionList &conditions, QStringView type);

// apimachinery's SetStatusCondition: an absent type is appended (lastTransitionTime = the given
// one if set, else now); a changed status sets lastTransitionTime (the given one if set, else now);
// an unchanged status leaves it untouched; reason, message and observedGeneration are updated in
// place. Times are kept as UTC whole seconds. Returns whether anything changed.
bool setStatusCondition(ConditionList &conditions, Condition condition, const QDateTime &now);
// Removes the entry of that type; returns whether there was one.
bool removeStatusCondition(ConditionList &conditions, QStringView type);

nlohmann::json conditionsToJson(const ConditionList &conditions);
// Lenient: non-array gives an empty list; entries that are not objects are skipped.
ConditionList conditionsFromJsonLenient(const nlohmann::json &json);

} // namespace reconscope::models
