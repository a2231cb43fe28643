#include "controller/cluster/schema/table.h"

#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/schema/jsonpath.h"

#include <QRegularExpression>
#include <QStringList>

#include <cmath>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

const char *const nameDescription
    = "Name must be unique within a namespace. Is required when creating resources, although some "
      "resources may allow a client to request the generation of an appropriate name "
      "automatically. Name is primarily intended for creation idempotence and configuration "
      "definition. Cannot be updated. More info: "
      "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

const char *const creationTimestampDescription
    = "CreationTimestamp is a timestamp representing the server time when this object was created. "
      "It is not guaranteed to be set in happens-before order across separate operations. Clients "
      "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by "
      "the "
      "system. Read-only. Null for lists. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#metadata";

// apimachinery's duration.HumanDuration.
QString humanDuration(qint64 milliseconds)
{
    const qint64 seconds = milliseconds / 1000;
    if (seconds < -1)
        return u"<invalid>"_s;
    if (seconds < 0)
        return u"0s"_s;
    if (seconds < 60 * 2)
        return QString::number(seconds) + u's';
    const qint64 minutes = seconds / 60;
    if (minutes < 10) {
        const qint64 s = seconds % 60;
        return s == 0 ? QString::number(minutes) + u'm'
                      : QString::number(minutes) + u'm' + QString::number(s) + u's';
    }
    if (minutes < 60 * 3)
        return QString::number(minutes) + u'm';
    const qint64 hours = seconds / 3600;
    if (hours < 8) {
        const qint64 m = minutes % 60;
        return m == 0 ? QString::number(hours) + u'h'
                      : QString::number(hours) + u'h' + QString::number(m) + u'm';
    }
    if (hours < 48)
        return QString::number(hours) + u'h';
    if (hours < 24 * 8) {
        const qint64 h = hours % 24;
        return h == 0 ? QString::number(hours / 24) + u'd'
                      : QString::number(hours / 24) + u'd' + QString::number(h) + u'h';
    }
    if (hours < 24 * 365 * 2)
        return QString::number(hours / 24) + u'd';
    if (hours < 24 * 365 * 8) {
        const qint64 dy = (hours / 24) % 365;
        return dy == 0 ? QString::number(hours / 24 / 365) + u'y'
                       : QString::number(hours / 24 / 365) + u'y' + QString::number(dy) + u'd';
    }
    return QString::number(hours / 24 / 365) + u'y';
}

// metav1.Time.UnmarshalQueryParameter (RFC 3339) + table.ConvertToHumanReadableDateType.
json dateCell(const QString &text, const QDateTime &now)
{
    if (text.isEmpty() || text == u"null"_s)
        return "<unknown>";
    const QDateTime timestamp = QDateTime::fromString(text, Qt::ISODateWithMs);
    static const QRegularExpression rfc3339(
        u"\\A\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})\\z"_s);
    if (!timestamp.isValid() || !rfc3339.match(text).hasMatch())
        return "<invalid>";
    return humanDuration(timestamp.msecsTo(now)).toStdString();
}

// Go's fmt.Fprint of a decoded JSON value, as client-go's JSONPath prints a result.
QString printed(const json &value)
{
    switch (value.type()) {
    case json::value_t::object: {
        QStringList parts;
        for (auto it = value.begin(); it != value.end(); ++it)
            parts.append(QString::fromStdString(it.key()) + u':' + printed(it.value()));
        return u"map["_s + parts.join(u' ') + u']';
    }
    case json::value_t::array: {
        QStringList parts;
        for (const json &item : value)
            parts.append(printed(item));
        return u'[' + parts.join(u' ') + u']';
    }
    default:
        return gofmt::plain(value);
    }
}

// Go's encoding/json of a float64: integral values without a fraction.
json numberCell(double value)
{
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9.0e15)
        return static_cast<std::int64_t>(value);
    return value;
}

json cell(const PrinterColumn &column, const json &object, const QDateTime &now)
{
    const QList<json> results = evaluateJsonPath(column.jsonPath, object);
    if (results.isEmpty())
        return nullptr;
    const json &value = results.first();
    if (value.is_null())
        return nullptr;
    if (column.type == u"string"_s)
        return printed(value).toStdString();
    if (column.type == u"integer"_s) {
        if (value.is_number_integer())
            return value;
        if (value.is_number_float())
            return static_cast<std::int64_t>(value.get<double>());
        return nullptr;
    }
    if (column.type == u"number"_s) {
        if (value.is_number_integer())
            return numberCell(static_cast<double>(value.get<std::int64_t>()));
        if (value.is_number_float())
            return numberCell(value.get<double>());
        return nullptr;
    }
    if (column.type == u"boolean"_s)
        return value.is_boolean() ? value : json(nullptr);
    if (column.type == u"date"_s) {
        if (!value.is_string())
            return nullptr;
        return dateCell(QString::fromStdString(value.get<std::string>()), now);
    }
    return nullptr;
}

} // namespace

json renderTable(const ResourceType &type,
                 const std::vector<const json *> &items,
                 const json &listMetadata,
                 QStringView includeObject,
                 const QDateTime &now)
{
    QList<PrinterColumn> columns = type.printerColumns;
    if (columns.isEmpty()) {
        // apiextensions-apiserver serves an Age column for CRDs that declare none.
        PrinterColumn age;
        age.name = u"Age"_s;
        age.type = u"date"_s;
        age.description = QString::fromUtf8(creationTimestampDescription);
        age.jsonPath = u".metadata.creationTimestamp"_s;
        columns.append(age);
    }

    json definitions = json::array();
    definitions.push_back({ { "name", "Name" },
                            { "type", "string" },
                            { "format", "name" },
                            { "description", nameDescription },
                            { "priority", 0 } });
    for (const PrinterColumn &column : columns) {
        const QString description = column.description.isEmpty()
            ? u"Custom resource definition column (in JSONPath format): "_s + column.jsonPath
            : column.description;
        definitions.push_back({ { "name", column.name.toStdString() },
                                { "type", column.type.toStdString() },
                                { "format", column.format.toStdString() },
                                { "description", description.toStdString() },
                                { "priority", column.priority } });
    }

    json metadata = json::object();
    if (listMetadata.is_object()) {
        for (const char *key : { "resourceVersion", "continue" }) {
            auto it = listMetadata.find(key);
            if (it != listMetadata.end() && it->is_string() && !it->get<std::string>().empty())
                metadata[key] = *it;
        }
        if (auto it = listMetadata.find("remainingItemCount");
            it != listMetadata.end() && it->is_number_integer())
            metadata["remainingItemCount"] = *it;
    }

    json rows = json::array();
    for (const json *item : items) {
        if (!item)
            continue;
        json cells = json::array();
        const json &itemMetadata = item->contains("metadata") ? (*item)["metadata"] : json();
        cells.push_back(itemMetadata.is_object() && itemMetadata.contains("name")
                            ? itemMetadata["name"]
                            : json(""));
        for (const PrinterColumn &column : columns)
            cells.push_back(cell(column, *item, now));
        json row = { { "cells", std::move(cells) } };
        if (includeObject == u"Object"_s) {
            row["object"] = *item;
        } else if (includeObject != u"None"_s) {
            row["object"]
                = { { "kind", "PartialObjectMetadata" },
                    { "apiVersion", "meta.k8s.io/v1" },
                    { "metadata", itemMetadata.is_object() ? itemMetadata : json::object() } };
        }
        rows.push_back(std::move(row));
    }

    return { { "kind", "Table" },
             { "apiVersion", "meta.k8s.io/v1" },
             { "metadata", std::move(metadata) },
             { "columnDefinitions", std::move(definitions) },
             { "rows", std::move(rows) } };
}

} // namespace reconscope::controller::cluster
