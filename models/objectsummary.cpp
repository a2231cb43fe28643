#include "models/objectsummary.h"

#include "models/jsonfields.h"
#include "models/jsonsyntax.h"
#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <vector>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

using Json = nlohmann::json;
using Path = std::vector<std::string>;

QString typeName(const Json &json)
{
    return QString::fromUtf8(json.type_name());
}

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

// A short description of a value for messages; never serialises a (possibly deep) container.
QString brief(const Json &value)
{
    if (value.is_structured())
        return u"%1 of %2 entries"_s.arg(typeName(value)).arg(value.size());
    return u"%1 %2"_s.arg(typeName(value), qs(value.dump()).left(40));
}

// An integer that fits int64 exactly; never goes through double.
std::optional<qint64> exactInt64(const Json &value)
{
    if (value.is_number_unsigned()) {
        const auto unsignedValue = value.get<std::uint64_t>();
        if (unsignedValue > std::uint64_t(std::numeric_limits<qint64>::max()))
            return std::nullopt;
        return qint64(unsignedValue);
    }
    if (value.is_number_integer())
        return qint64(value.get<std::int64_t>());
    return std::nullopt;
}

// Reads an optional integer field; a null counts as absent, a wrong type is noted.
std::optional<qint64>
readInt64(const Json &object, const char *key, const QString &field, ObjectSummary &summary)
{
    const Json *value = jsonFind(object, key);
    if (!value || value->is_null())
        return std::nullopt;
    const auto result = exactInt64(*value);
    if (!result) {
        summary.readProblems << u"%1: expected a 64-bit integer, got %2"_s.arg(field,
                                                                               brief(*value));
        summary.kstatusUnreadable = true;
    }
    return result;
}

QString
readString(const Json &object, const char *key, const QString &field, ObjectSummary &summary)
{
    const Json *value = jsonFind(object, key);
    if (!value || value->is_null())
        return {};
    if (!value->is_string()) {
        summary.readProblems << u"%1: expected a string, got %2"_s.arg(field, typeName(*value));
        return {};
    }
    return qs(value->get<std::string>());
}

QDateTime
readTime(const Json &object, const char *key, const QString &field, ObjectSummary &summary)
{
    const QString text = readString(object, key, field, summary);
    if (text.isEmpty())
        return {};
    const auto time = parseRfc3339(text);
    if (!time) {
        summary.readProblems << u"%1: not an RFC 3339 time: %2"_s.arg(field, text.left(40));
        return {};
    }
    return *time;
}

Path splitPath(const QString &dotted)
{
    Path path;
    QStringView view(dotted);
    if (view.startsWith(u'.'))
        view = view.mid(1);
    for (const QStringView part : view.split(u'.'))
        path.push_back(part.toString().toStdString());
    return path;
}

QString valueText(const Json &value)
{
    if (value.is_string())
        return qs(value.get<std::string>());
    return qs(compactJson(value));
}

// metadata.managedFields, leniently: entries that are not objects and members of the wrong type
// are noted and left out.
void readManagedFields(const Json &metadata, ObjectSummary &summary)
{
    const Json *list = jsonFind(metadata, "managedFields");
    if (!list || list->is_null())
        return;
    if (!list->is_array()) {
        summary.readProblems << u"metadata.managedFields: expected an array, got %1"_s.arg(
            typeName(*list));
        return;
    }
    for (const Json &item : *list) {
        const int index = int(summary.managedFields.size());
        if (!item.is_object()) {
            summary.readProblems << u"metadata.managedFields: an entry is not an object: %1"_s.arg(
                brief(item));
            continue;
        }
        const QString at = u"metadata.managedFields[%1]."_s.arg(index);
        ManagedFieldsEntry entry;
        entry.manager = readString(item, "manager", at + u"manager"_s, summary);
        entry.operation = readString(item, "operation", at + u"operation"_s, summary);
        entry.apiVersion = readString(item, "apiVersion", at + u"apiVersion"_s, summary);
        entry.subresource = readString(item, "subresource", at + u"subresource"_s, summary);
        entry.fieldsType = readString(item, "fieldsType", at + u"fieldsType"_s, summary);
        entry.time = readTime(item, "time", at + u"time"_s, summary);
        if (const Json *fields = jsonFind(item, "fieldsV1"); fields && !fields->is_null()) {
            if (fields->is_object())
                entry.fieldsV1 = qs(compactJson(*fields));
            else
                summary.readProblems
                    << u"%1fieldsV1: expected an object, got %2"_s.arg(at, typeName(*fields));
        }
        summary.managedFields.push_back(std::move(entry));
    }
}

} // namespace

QString objectKey(const QString &namespaceName, const QString &name)
{
    return namespaceName.isEmpty() ? name : namespaceName + u'/' + name;
}

std::vector<std::vector<std::string>> ObjectSummary::readPaths(const LifecycleMapping &mapping)
{
    std::vector<Path> paths = {
        { "apiVersion" },
        { "kind" },
        { "metadata", "name" },
        { "metadata", "namespace" },
        { "metadata", "uid" },
        { "metadata", "resourceVersion" },
        { "metadata", "generation" },
        { "metadata", "creationTimestamp" },
        { "metadata", "deletionTimestamp" },
        { "metadata", "finalizers" },
        { "metadata", "labels" },
        { "metadata", "managedFields" },
        { "status", "observedGeneration" },
        { "status", "conditions" },
    };
    for (const QString &dotted : mapping.projectedPaths())
        paths.push_back(splitPath(dotted));
    return paths;
}

Result<ObjectSummary> ObjectSummary::fromJson(const nlohmann::json &object,
                                              const LifecycleMapping &mapping)
{
    if (!object.is_object())
        return Result<ObjectSummary>::failure(
            u"expected a JSON object, got %1"_s.arg(typeName(object)));
    ObjectSummary summary;
    summary.apiVersion = readString(object, "apiVersion", u"apiVersion"_s, summary);
    summary.kind = readString(object, "kind", u"kind"_s, summary);

    static const Json emptyObject = Json::object();
    const Json *metadataValue = jsonFind(object, "metadata");
    if (metadataValue && !metadataValue->is_object() && !metadataValue->is_null())
        summary.readProblems << u"metadata: expected an object, got %1"_s.arg(
            typeName(*metadataValue));
    const Json &metadata
        = metadataValue && metadataValue->is_object() ? *metadataValue : emptyObject;
    summary.name = readString(metadata, "name", u"metadata.name"_s, summary);
    if (summary.name.isEmpty())
        return Result<ObjectSummary>::failure(
            u"metadata.name: Required value: the object has no name"_s);
    summary.namespaceName = readString(metadata, "namespace", u"metadata.namespace"_s, summary);
    summary.key = objectKey(summary.namespaceName, summary.name);
    summary.uid = readString(metadata, "uid", u"metadata.uid"_s, summary);
    summary.resourceVersion
        = readString(metadata, "resourceVersion", u"metadata.resourceVersion"_s, summary);
    summary.generation = readInt64(metadata, "generation", u"metadata.generation"_s, summary);
    summary.creationTimestamp
        = readTime(metadata, "creationTimestamp", u"metadata.creationTimestamp"_s, summary);
    if (const Json *deletion = jsonFind(metadata, "deletionTimestamp")) {
        if (deletion->is_string()) {
            summary.markedForDeletion = !deletion->get<std::string>().empty();
            summary.deletionTimestamp
                = readTime(metadata, "deletionTimestamp", u"metadata.deletionTimestamp"_s, summary);
        } else if (!deletion->is_null()) {
            summary.readProblems << u"metadata.deletionTimestamp: expected a string, got %1"_s.arg(
                typeName(*deletion));
            summary.kstatusUnreadable = true;
        }
    }
    if (const Json *finalizers = jsonFind(metadata, "finalizers");
        finalizers && finalizers->is_array()) {
        for (const Json &finalizer : *finalizers) {
            if (finalizer.is_string())
                summary.finalizers << qs(finalizer.get<std::string>());
        }
    }
    if (const Json *labels = jsonFind(metadata, "labels"); labels && labels->is_object()) {
        for (const auto &[labelKey, value] : labels->items()) {
            if (value.is_string())
                summary.labels.insert(qs(labelKey), qs(value.get<std::string>()));
            else
                summary.readProblems << u"metadata.labels.%1: expected a string, got %2"_s.arg(
                    qs(labelKey), typeName(value));
        }
    }

    readManagedFields(metadata, summary);

    const Json *status = jsonFind(object, "status");
    if (status && status->is_object()) {
        summary.hasStatus = true;
        summary.statusFieldCount = int(status->size());
        summary.observedGeneration
            = readInt64(*status, "observedGeneration", u"status.observedGeneration"_s, summary);
        if (const Json *conditions = jsonFind(*status, "conditions")) {
            if (conditions->is_array()) {
                summary.conditions = conditionsFromJsonLenient(*conditions);
                for (const Json &entry : *conditions) {
                    const Json *type = jsonFind(entry, "type");
                    const Json *conditionStatus = jsonFind(entry, "status");
                    if (!entry.is_object() || (type && !type->is_string() && !type->is_null())
                        || (conditionStatus && !conditionStatus->is_string()
                            && !conditionStatus->is_null())) {
                        summary.readProblems
                            << u"status.conditions: an entry is not a condition: %1"_s.arg(
                                   brief(entry));
                        summary.kstatusUnreadable = true;
                    }
                }
            } else if (!conditions->is_null()) {
                summary.readProblems
                    << u"status.conditions: expected an array, got %1"_s.arg(typeName(*conditions));
                summary.kstatusUnreadable = true;
            }
        }
    } else if (status && !status->is_null()) {
        summary.readProblems << u"status: expected an object, got %1"_s.arg(typeName(*status));
        summary.kstatusUnreadable = true;
    }

    for (const QString &dotted : mapping.projectedPaths()) {
        const Json *value = &object;
        for (const std::string &part : splitPath(dotted)) {
            value = jsonFind(*value, part.c_str());
            if (!value)
                break;
        }
        if (value && !value->is_null())
            summary.fields.insert(dotted, valueText(*value));
    }
    return summary;
}

} // namespace reconscope::models
