#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"
#include "models/dnsnames.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::crdvalidation {

void validateIdentity(const json &crd, QList<FieldError> &errors)
{
    const json &metadata = jsonMember(crd, "metadata");
    const json &spec = jsonMember(crd, "spec");
    const QString group = jsonString(spec, "group");
    const QString plural = jsonString(jsonMember(spec, "names"), "plural");

    const QString name = jsonString(metadata, "name");
    if (name.isEmpty()) {
        errors.append(required(u"metadata.name"_s, u"name or generateName is required"_s));
    } else {
        for (const QString &message : models::isDNS1123Subdomain(name))
            errors.append(invalid(u"metadata.name"_s, gofmt::quote(name), message));
        if (name != plural + u'.' + group)
            errors.append(invalid(u"metadata.name"_s,
                                  gofmt::quote(name),
                                  u"must be spec.names.plural+\".\"+spec.group"_s));
    }

    if (group.isEmpty()) {
        errors.append(required(u"spec.group"_s));
    } else if (const QStringList e = models::isDNS1123Subdomain(group); !e.isEmpty()) {
        errors.append(invalid(u"spec.group"_s, gofmt::quote(group), e.join(u',')));
    } else if (!group.contains(u'.')) {
        errors.append(invalid(
            u"spec.group"_s, gofmt::quote(group), u"should be a domain with at least one dot"_s));
    }

    const QString scope = jsonString(spec, "scope");
    if (scope.isEmpty())
        errors.append(required(u"spec.scope"_s));
    else if (scope != u"Cluster"_s && scope != u"Namespaced"_s)
        errors.append(notSupported(u"spec.scope"_s, scope, { u"Cluster"_s, u"Namespaced"_s }));
}

void validateNames(const json &names, QList<FieldError> &errors)
{
    const QString plural = jsonString(names, "plural");
    if (plural.isEmpty())
        errors.append(required(u"spec.names.plural"_s));
    if (jsonString(names, "singular").isEmpty())
        errors.append(required(u"spec.names.singular"_s));
    if (jsonString(names, "kind").isEmpty())
        errors.append(required(u"spec.names.kind"_s));
    if (jsonString(names, "listKind").isEmpty())
        errors.append(required(u"spec.names.listKind"_s));
    if (!plural.isEmpty()) {
        if (const QStringList e = models::isDNS1035Label(plural); !e.isEmpty())
            errors.append(invalid(u"spec.names.plural"_s, gofmt::quote(plural), e.join(u',')));
    }
    if (const QString singular = jsonString(names, "singular"); !singular.isEmpty()) {
        if (const QStringList e = models::isDNS1035Label(singular); !e.isEmpty())
            errors.append(invalid(u"spec.names.singular"_s, gofmt::quote(singular), e.join(u',')));
    }
    for (const char *key : { "kind", "listKind" }) {
        const QString value = jsonString(names, key);
        if (value.isEmpty())
            continue;
        if (const QStringList e = models::isDNS1035Label(value.toLower()); !e.isEmpty())
            errors.append(
                invalid(u"spec.names."_s + QString::fromLatin1(key),
                        gofmt::quote(value),
                        u"may have mixed case, but should otherwise match: "_s + e.join(u',')));
    }
    if (!jsonString(names, "kind").isEmpty()
        && jsonString(names, "kind") == jsonString(names, "listKind"))
        errors.append(invalid(u"spec.names.listKind"_s,
                              gofmt::quote(jsonString(names, "listKind")),
                              u"kind and listKind cannot be the same"_s));
    for (const char *field : { "shortNames", "categories" }) {
        const QStringList values = jsonStrings(jsonMember(names, field));
        for (qsizetype i = 0; i < values.size(); ++i) {
            if (const QStringList e = models::isDNS1035Label(values[i]); !e.isEmpty())
                errors.append(invalid(u"spec.names."_s + QString::fromLatin1(field) + u'['
                                          + QString::number(i) + u']',
                                      gofmt::quote(values[i]),
                                      e.join(u',')));
        }
    }
}

void validateConversion(const json &spec, QList<FieldError> &errors)
{
    const QString strategy = jsonString(jsonMember(spec, "conversion"), "strategy");
    if (!strategy.isEmpty() && strategy != u"None"_s && strategy != u"Webhook"_s)
        errors.append(
            notSupported(u"spec.conversion.strategy"_s, strategy, { u"None"_s, u"Webhook"_s }));
}

} // namespace reconscope::controller::cluster::crdvalidation
