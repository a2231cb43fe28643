#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/schema/jsonpath.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::crdvalidation {

void validateScale(const json &version, const QString &path, QList<FieldError> &errors)
{
    const json &scale = jsonMember(jsonMember(version, "subresources"), "scale");
    if (!scale.is_object())
        return;
    const QString scalePath = path + u".subresources.scale"_s;
    const auto simplePath = [&](const QString &field, const QString &value) {
        if (value.startsWith(u'.'))
            return true;
        errors.append(invalid(scalePath + u'.' + field,
                              gofmt::quote(value),
                              u"must be a simple json path starting with ."_s));
        return false;
    };
    const auto replicasPath = [&](const char *name, const QString &prefix) {
        const QString field = QString::fromLatin1(name);
        const QString value = jsonString(scale, name);
        if (value.isEmpty())
            errors.append(required(scalePath + u'.' + field));
        else if (simplePath(field, value) && !value.startsWith(prefix))
            errors.append(invalid(scalePath + u'.' + field,
                                  gofmt::quote(value),
                                  u"should be a json path under "_s + prefix.chopped(1)));
    };
    replicasPath("specReplicasPath", u".spec."_s);
    replicasPath("statusReplicasPath", u".status."_s);
    const QString selector = jsonString(scale, "labelSelectorPath");
    if (!selector.isEmpty() && simplePath(u"labelSelectorPath"_s, selector)
        && !selector.startsWith(u".spec."_s) && !selector.startsWith(u".status."_s))
        errors.append(invalid(scalePath + u".labelSelectorPath"_s,
                              gofmt::quote(selector),
                              u"should be a json path under either .spec or .status"_s));
}

void validateSelectableFields(const json &version,
                              const json &schema,
                              const QString &path,
                              QList<FieldError> &errors)
{
    const json &fields = jsonMember(version, "selectableFields");
    if (!fields.is_array() || fields.empty())
        return;
    QStringList unique;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const QString fieldPath = path + u'[' + QString::number(i) + u"].jsonPath"_s;
        const QString jsonPath = jsonString(fields[i], "jsonPath");
        if (jsonPath.isEmpty()) {
            errors.append(required(fieldPath));
            continue;
        }
        const json *node = &schema;
        QStringList segments
            = jsonPath.startsWith(u'.') ? jsonPath.mid(1).split(u'.') : QStringList();
        bool found = !segments.isEmpty();
        for (const QString &segment : segments) {
            const json &next
                = jsonMember(jsonMember(*node, "properties"), segment.toStdString().c_str());
            if (segment.isEmpty() || !next.is_object()) {
                found = false;
                break;
            }
            node = &next;
        }
        if (!found) {
            errors.append(invalid(fieldPath,
                                  gofmt::quote(jsonPath),
                                  u"is an invalid path: does not refer to a valid field"_s));
            continue;
        }
        if (segments.first() == u"metadata"_s)
            errors.append(invalid(
                fieldPath, gofmt::quote(jsonPath), u"must not point to fields in metadata"_s));
        const QString type = jsonString(*node, "type");
        if (type != u"string"_s && type != u"boolean"_s && type != u"integer"_s)
            errors.append(
                invalid(fieldPath,
                        gofmt::quote(jsonPath),
                        u"must point to a field of type string, boolean or integer. Enum string "
                        u"fields and strings with formats are allowed."_s));
        const QString normalized = segments.join(u'.');
        if (unique.contains(normalized))
            errors.append(fielderrors::duplicate(fieldPath, gofmt::quote(jsonPath)));
        else
            unique.append(normalized);
    }
    if (unique.size() > 8)
        errors.append(fielderrors::tooMany(path, unique.size(), 8));
}

void validatePrinterColumns(const json &version, const QString &path, QList<FieldError> &errors)
{
    const json &columns = jsonMember(version, "additionalPrinterColumns");
    for (std::size_t c = 0; columns.is_array() && c < columns.size(); ++c) {
        const json &column = columns[c];
        const QString columnPath
            = path + u".additionalPrinterColumns["_s + QString::number(c) + u']';
        if (jsonString(column, "name").isEmpty())
            errors.append(required(columnPath + u".name"_s));
        const QString columnType = jsonString(column, "type");
        static const QStringList columnTypes
            = { u"boolean"_s, u"date"_s, u"integer"_s, u"number"_s, u"string"_s };
        if (columnType.isEmpty())
            errors.append(required(columnPath + u".type"_s));
        else if (!columnTypes.contains(columnType))
            errors.append(notSupported(columnPath + u".type"_s, columnType, columnTypes));
        const QString format = jsonString(column, "format");
        static const QStringList columnFormats
            = { u"byte"_s,  u"date"_s,  u"date-time"_s, u"double"_s,  u"float"_s,
                u"int32"_s, u"int64"_s, u"name"_s,      u"password"_s };
        if (!format.isEmpty() && !columnFormats.contains(format))
            errors.append(notSupported(columnPath + u".format"_s, format, columnFormats));
        const QString jsonPath = jsonString(column, "jsonPath");
        if (jsonPath.isEmpty())
            errors.append(required(columnPath + u".jsonPath"_s));
        else if (!isValidJsonPath(jsonPath))
            errors.append(invalid(columnPath + u".jsonPath"_s,
                                  gofmt::quote(jsonPath),
                                  u"must be a simple json path"_s));
    }
}

} // namespace reconscope::controller::cluster::crdvalidation
