#pragma once

#include "controller/apimachinery/status.h"

#include <QList>
#include <QString>

namespace reconscope::controller::cluster {

// One field-level validation error, as apimachinery's field.Error renders it.
struct FieldError
{
    // "FieldValueInvalid", "FieldValueRequired", "FieldValueNotSupported", "FieldValueTypeInvalid",
    // "FieldValueForbidden", "FieldValueTooLong", "FieldValueTooMany", "FieldValueDuplicate"
    QString reason;
    QString field; // "spec.replicas"
    // The detail as upstream prints it after the field, e.g.
    // `Invalid value: 200: spec.replicas in body should be less than or equal to 100`.
    QString message;

    bool operator==(const FieldError &) const = default;
};

// Upstream aggregate text: "<field>: <message>" for one error, "[<f1>: <m1>, <f2>: <m2>]" for
// several, "" for none.
QString formatFieldErrors(const QList<FieldError> &errors);

// The errors as a Status' causes, as apimachinery's NewInvalid lists them.
QList<apimachinery::StatusCause> statusCausesOf(const QList<FieldError> &errors);

// 422 "<Kind>.<group> "name" is invalid: <errors>" with the errors as causes (NewInvalid).
apimachinery::ApiError invalidError(const QString &group,
                                    const QString &kind,
                                    const QString &name,
                                    const QList<FieldError> &errors);

} // namespace reconscope::controller::cluster
