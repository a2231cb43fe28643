#include "controller/cluster/schema/fielderrors.h"

#include "controller/cluster/schema/gofmt.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster::fielderrors {

FieldError required(const QString &field, const QString &detail)
{
    return { u"FieldValueRequired"_s,
             field,
             detail.isEmpty() ? u"Required value"_s : u"Required value: "_s + detail };
}

FieldError invalid(const QString &field, const QString &value, const QString &detail)
{
    return { u"FieldValueInvalid"_s, field, u"Invalid value: "_s + value + u": "_s + detail };
}

FieldError typeInvalid(const QString &field, const QString &value, const QString &detail)
{
    return { u"FieldValueTypeInvalid"_s, field, u"Invalid value: "_s + value + u": "_s + detail };
}

FieldError forbidden(const QString &field, const QString &detail)
{
    return { u"FieldValueForbidden"_s, field, u"Forbidden: "_s + detail };
}

FieldError notSupported(const QString &field, const QString &value, const QStringList &supported)
{
    QStringList quoted;
    for (const QString &s : supported)
        quoted.append(gofmt::quote(s));
    return { u"FieldValueNotSupported"_s,
             field,
             u"Unsupported value: "_s + gofmt::quote(value) + u": supported values: "_s
                 + quoted.join(u", "_s) };
}

FieldError tooMany(const QString &field, qint64 count, qint64 limit)
{
    return { u"FieldValueTooMany"_s,
             field,
             u"Too many: "_s + QString::number(count) + u": must have at most "_s
                 + QString::number(limit) + u" items"_s };
}

FieldError duplicate(const QString &field, const QString &value)
{
    return { u"FieldValueDuplicate"_s, field, u"Duplicate value: "_s + value };
}

FieldError notFound(const QString &field, const QString &value)
{
    return { u"FieldValueNotFound"_s, field, u"Not found: "_s + value };
}

FieldError tooLong(const QString &field, qint64 limit)
{
    return { u"FieldValueTooLong"_s,
             field,
             u"Too long: may not be more than %1 %2"_s.arg(limit).arg(limit == 1 ? u"byte"_s
                                                                                 : u"bytes"_s) };
}

} // namespace reconscope::controller::cluster::fielderrors
