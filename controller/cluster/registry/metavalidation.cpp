#include "controller/cluster/registry/metavalidation.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/gofmt.h"
#include "models/dnsnames.h"
#include "models/jsonfields.h"

#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::metavalidation {

namespace {

constexpr qint64 totalAnnotationSizeLimit = 256 * 1024;

// apimachinery's maskTrailingDash: a generateName may end in '-', which the name it makes
// will not (it drops the last two characters and appends an 'a', as upstream does).
QString maskTrailingDash(const QString &name)
{
    if (name.size() > 1 && name.endsWith(u'-'))
        return name.left(name.size() - 2) + u'a';
    return name;
}

QStringList pathSegmentErrors(const QString &name, bool prefix)
{
    if (!prefix && (name == u"." || name == u".."))
        return { u"may not be '%1'"_s.arg(name) };
    QStringList errors;
    for (const QString &illegal : { u"/"_s, u"%"_s }) {
        if (name.contains(illegal))
            errors.append(u"may not contain '%1'"_s.arg(illegal));
    }
    return errors;
}

QStringList nameErrors(const QString &name, NameRule rule, bool prefix)
{
    if (rule == NameRule::PathSegment)
        return pathSegmentErrors(name, prefix);
    const QString checked = prefix ? maskTrailingDash(name) : name;
    switch (rule) {
    case NameRule::DnsLabel:
        return models::isDNS1123Label(checked);
    case NameRule::Dns1035Label:
        return models::isDNS1035Label(checked);
    default:
        return models::isDNS1123Subdomain(checked);
    }
}

using models::jsonString;

// The version of an apiVersion as schema.ParseGroupVersion reads it ("" when it does not parse).
QString versionOf(const QString &apiVersion)
{
    const qsizetype slashes = apiVersion.count(u'/');
    if (slashes == 0)
        return apiVersion;
    return slashes == 1 ? apiVersion.section(u'/', 1) : QString();
}

// json.Marshal of a metav1.OwnerReference: its members in declaration order.
QString marshalOwnerReference(const json &reference)
{
    const auto member = [&](const char *key) {
        return gofmt::marshal(json(objectjson::string(reference, key).toStdString()));
    };
    QString text = u"{\"apiVersion\":"_s + member("apiVersion") + u",\"kind\":"_s + member("kind")
        + u",\"name\":"_s + member("name") + u",\"uid\":"_s + member("uid");
    for (const char *flag : { "controller", "blockOwnerDeletion" }) {
        const json &value = objectjson::member(reference, flag);
        if (value.is_boolean())
            text += u",\""_s + QString::fromLatin1(flag) + u"\":"_s
                + (value.get<bool>() ? u"true"_s : u"false"_s);
    }
    return text + u'}';
}

QList<FieldError> validateOwnerReferences(const json &references)
{
    QList<FieldError> errors;
    if (!references.is_array())
        return errors;
    const QString path = u"metadata.ownerReferences"_s;
    QString firstController;
    for (const json &reference : references) {
        const QString apiVersion = jsonString(reference, "apiVersion");
        const QString kind = jsonString(reference, "kind");
        if (versionOf(apiVersion).isEmpty())
            errors.append(fielderrors::invalid(
                path + u".apiVersion"_s, gofmt::quote(apiVersion), u"version must not be empty"_s));
        if (kind.isEmpty())
            errors.append(fielderrors::invalid(
                path + u".kind"_s, gofmt::quote(kind), u"must not be empty"_s));
        for (const char *key : { "name", "uid" }) {
            const QString value = jsonString(reference, key);
            if (value.isEmpty())
                errors.append(fielderrors::invalid(path + u'.' + QString::fromLatin1(key),
                                                   gofmt::quote(value),
                                                   u"must not be empty"_s));
        }
        if (apiVersion == u"v1" && kind == u"Event")
            errors.append(
                fielderrors::invalid(path,
                                     marshalOwnerReference(reference),
                                     u"/v1, Kind=Event is disallowed from being an owner"_s));
        const json &controller = objectjson::member(reference, "controller");
        if (controller.is_boolean() && controller.get<bool>()) {
            const QString current = kind + u'/' + jsonString(reference, "name");
            if (firstController.isEmpty()) {
                firstController = current;
                continue;
            }
            QStringList all;
            for (const json &r : references)
                all.append(marshalOwnerReference(r));
            errors.append(fielderrors::invalid(
                path,
                u'[' + all.join(u',') + u']',
                u"Only one reference can have Controller set to true. Found \"true\" in "
                "references for %1 and %2"_s.arg(firstController, current)));
        }
    }
    return errors;
}

QList<FieldError> validateFinalizers(const json &finalizers)
{
    QList<FieldError> errors;
    const QStringList names = objectjson::strings(finalizers);
    for (const QString &name : names) {
        for (const QString &message : models::isQualifiedName(name))
            errors.append(
                fielderrors::invalid(u"metadata.finalizers"_s, gofmt::quote(name), message));
    }
    if (names.contains(u"orphan"_s) && names.contains(u"foregroundDeletion"_s))
        errors.append(
            fielderrors::invalid(u"metadata.finalizers"_s,
                                 gofmt::marshal(finalizers),
                                 u"finalizer orphan and foregroundDeletion cannot be both set"_s));
    return errors;
}

QList<FieldError> immutable(const json &now, const json &before, const char *key)
{
    const json &a = objectjson::member(now, key);
    const json &b = objectjson::member(before, key);
    if (objectjson::identical(a, b))
        return {};
    return { fielderrors::invalid(
        u"metadata."_s + QString::fromLatin1(key), gofmt::marshal(a), u"field is immutable"_s) };
}

} // namespace

QList<FieldError> validateLabels(const json &labels, const QString &field)
{
    QList<FieldError> errors;
    if (labels.is_null())
        return errors;
    if (!labels.is_object()) {
        errors.append({ u"FieldValueTypeInvalid"_s, field, u"Invalid value: must be an object"_s });
        return errors;
    }
    for (auto it = labels.begin(); it != labels.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        for (const QString &message : models::isQualifiedName(key))
            errors.append(fielderrors::invalid(field, gofmt::quote(key), message));
        const QString value
            = it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
        for (const QString &message : models::isValidLabelValue(value))
            errors.append(fielderrors::invalid(field, gofmt::quote(value), message));
        if (!it->is_string()) // what a value that is no string reads as
            errors.append(fielderrors::invalid(
                field,
                u"\"\""_s,
                u"a valid label must be an empty string or consist of alphanumeric characters, "
                "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s));
    }
    return errors;
}

QList<FieldError> validateAnnotations(const json &annotations, const QString &field)
{
    QList<FieldError> errors;
    if (!annotations.is_object())
        return errors;
    qint64 size = 0;
    for (auto it = annotations.begin(); it != annotations.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        for (const QString &message : models::isQualifiedName(key.toLower()))
            errors.append(fielderrors::invalid(field, gofmt::quote(key), message));
        size += qint64(it.key().size())
            + (it->is_string() ? qint64(it->get_ref<const std::string &>().size()) : 0);
    }
    if (size > totalAnnotationSizeLimit)
        errors.append(fielderrors::tooLong(field, totalAnnotationSizeLimit));
    return errors;
}

QList<FieldError> validateObjectMeta(const json &metadata, bool namespaced, NameRule rule)
{
    QList<FieldError> errors;
    const QString generateName = jsonString(metadata, "generateName");
    if (!generateName.isEmpty()) {
        for (const QString &message : nameErrors(generateName, rule, true))
            errors.append(fielderrors::invalid(
                u"metadata.generateName"_s, gofmt::quote(generateName), message));
    }
    const QString name = jsonString(metadata, "name");
    if (name.isEmpty()) {
        errors.append(
            fielderrors::required(u"metadata.name"_s, u"name or generateName is required"_s));
    } else {
        for (const QString &message : nameErrors(name, rule, false))
            errors.append(fielderrors::invalid(u"metadata.name"_s, gofmt::quote(name), message));
    }
    const QString ns = jsonString(metadata, "namespace");
    if (namespaced && ns.isEmpty()) {
        errors.append(fielderrors::required(u"metadata.namespace"_s));
    } else if (namespaced) {
        for (const QString &message : models::isDNS1123Label(ns))
            errors.append(fielderrors::invalid(u"metadata.namespace"_s, gofmt::quote(ns), message));
    } else if (!ns.isEmpty()) {
        errors.append(
            fielderrors::forbidden(u"metadata.namespace"_s, u"not allowed on this type"_s));
    }
    const json &generation = objectjson::member(metadata, "generation");
    if (generation.is_number_integer() && generation.get<qint64>() < 0)
        errors.append(fielderrors::invalid(u"metadata.generation"_s,
                                           gofmt::plain(generation),
                                           u"must be greater than or equal to 0"_s));
    errors.append(validateLabels(objectjson::member(metadata, "labels"), u"metadata.labels"_s));
    errors.append(validateAnnotations(objectjson::member(metadata, "annotations"),
                                      u"metadata.annotations"_s));
    errors.append(validateOwnerReferences(objectjson::member(metadata, "ownerReferences")));
    errors.append(validateFinalizers(objectjson::member(metadata, "finalizers")));
    return errors;
}

QList<FieldError> validateObjectMetaUpdate(const json &metadata, const json &oldMetadata)
{
    QList<FieldError> errors;
    if (!objectjson::member(oldMetadata, "deletionTimestamp").is_null()) {
        const QStringList before
            = objectjson::strings(objectjson::member(oldMetadata, "finalizers"));
        QStringList added;
        for (const QString &finalizer :
             objectjson::strings(objectjson::member(metadata, "finalizers"))) {
            if (!before.contains(finalizer) && !added.contains(finalizer))
                added.append(finalizer);
        }
        std::sort(added.begin(), added.end());
        if (!added.isEmpty()) {
            QStringList quoted;
            for (const QString &finalizer : added)
                quoted.append(gofmt::quote(finalizer));
            errors.append(fielderrors::forbidden(
                u"metadata.finalizers"_s,
                u"no new finalizers can be added if the object is being deleted, found new "
                "finalizers []string{"_s
                    + quoted.join(u", "_s) + u'}'));
        }
    }
    if (jsonString(metadata, "resourceVersion").isEmpty())
        errors.append(fielderrors::invalid(
            u"metadata.resourceVersion"_s, u"\"\""_s, u"must be specified for an update"_s));
    const json &generation = objectjson::member(metadata, "generation");
    const json &oldGeneration = objectjson::member(oldMetadata, "generation");
    const qint64 now = generation.is_number_integer() ? generation.get<qint64>() : 0;
    if (now < (oldGeneration.is_number_integer() ? oldGeneration.get<qint64>() : 0))
        errors.append(fielderrors::invalid(
            u"metadata.generation"_s, QString::number(now), u"must not be decremented"_s));
    for (const char *key : { "name",
                             "namespace",
                             "uid",
                             "creationTimestamp",
                             "deletionTimestamp",
                             "deletionGracePeriodSeconds" })
        errors.append(immutable(metadata, oldMetadata, key));
    errors.append(validateLabels(objectjson::member(metadata, "labels"), u"metadata.labels"_s));
    errors.append(validateAnnotations(objectjson::member(metadata, "annotations"),
                                      u"metadata.annotations"_s));
    errors.append(validateOwnerReferences(objectjson::member(metadata, "ownerReferences")));
    return errors;
}

QList<FieldError> validateKubeFinalizers(const json &metadata)
{
    static const QSet<QString> standard = { u"kubernetes"_s, u"orphan"_s, u"foregroundDeletion"_s };
    QList<FieldError> errors;
    const QStringList finalizers = objectjson::strings(objectjson::member(metadata, "finalizers"));
    for (qsizetype i = 0; i < finalizers.size(); ++i) {
        if (!finalizers[i].contains(u'/') && !standard.contains(finalizers[i]))
            errors.append(fielderrors::invalid(
                u"metadata.finalizers[%1]"_s.arg(i),
                gofmt::quote(finalizers[i]),
                u"name is neither a standard finalizer name nor is it fully qualified"_s));
    }
    return errors;
}

} // namespace reconscope::controller::cluster::metavalidation
