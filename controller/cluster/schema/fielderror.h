#pragma once

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

} // namespace reconscope::controller::cluster
