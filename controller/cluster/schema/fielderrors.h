#pragma once

#include "controller/cluster/schema/fielderror.h"

#include <QStringList>

// Builders of apimachinery's field.Error kinds (field.Required, field.Invalid, ...) with the
// message bodies upstream prints after the field: the schema validator's and the built-in kinds'.
namespace reconscope::controller::cluster::fielderrors {

// "Required value" or "Required value: <detail>".
FieldError required(const QString &field, const QString &detail = {});
// "Invalid value: <value>: <detail>"; `value` is already rendered (gofmt::quote, badValue...).
FieldError invalid(const QString &field, const QString &value, const QString &detail);
// As invalid(), for a value of the wrong type.
FieldError typeInvalid(const QString &field, const QString &value, const QString &detail);
// "Forbidden: <detail>".
FieldError forbidden(const QString &field, const QString &detail);
// "Unsupported value: "<value>": supported values: "<a>", "<b>"" (every string quoted).
FieldError notSupported(const QString &field, const QString &value, const QStringList &supported);
// "Too many: <count>: must have at most <limit> items".
FieldError tooMany(const QString &field, qint64 count, qint64 limit);
// "Duplicate value: <value>"; `value` is already rendered.
FieldError duplicate(const QString &field, const QString &value);
// "Not found: <value>"; `value` is already rendered.
FieldError notFound(const QString &field, const QString &value);
// "Too long: may not be more than <limit> bytes" (field.TooLong omits the value).
FieldError tooLong(const QString &field, qint64 limit);

} // namespace reconscope::controller::cluster::fielderrors
