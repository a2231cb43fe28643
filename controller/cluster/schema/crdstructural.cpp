#include "controller/cluster/schema/crdvalidation.h"

#include "controller/cluster/schema/gofmt.h"

#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::crdvalidation {

namespace {

bool isIntOrStringAnyOf(const json &anyOf)
{
    return anyOf.is_array() && anyOf.size() == 2 && anyOf[0] == json{ { "type", "integer" } }
    && anyOf[1] == json{ { "type", "string" } };
}

// structuralschema.ValidateStructural: the invariants of a structural schema. Upstream sorts
// these errors by their text.
class StructuralInvariants
{
public:
    QList<FieldError> errors;

    enum class Level { Root, Item, Field };

    void check(const json &s, Level level, const QString &path)
    {
        if (!s.is_object())
            return;
        const QString type = jsonString(s, "type");
        const bool preserve = jsonBool(s, "x-kubernetes-preserve-unknown-fields");
        const bool intOrString = jsonBool(s, "x-kubernetes-int-or-string");
        const bool embedded = jsonBool(s, "x-kubernetes-embedded-resource");
        const json &items = jsonMember(s, "items");
        const json &properties = jsonMember(s, "properties");
        const json &additional = jsonMember(s, "additionalProperties");

        if (type == u"array"_s && items.is_null())
            errors.append(required(child(path, u"items"_s), u"must be specified"_s));
        if (items.is_object())
            check(items, Level::Item, child(path, u"items"_s));
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                check(it.value(), Level::Field, key(path, "properties", it.key()));
        }
        if (!additional.is_null()) {
            if (level == Level::Root)
                errors.append(forbidden(child(path, u"additionalProperties"_s),
                                        u"must not be used at the root"_s));
            if (additional.is_object())
                check(additional, Level::Field, child(path, u"additionalProperties"_s));
        }
        if (intOrString && preserve)
            errors.append(invalid(child(path, u"x-kubernetes-preserve-unknown-fields"_s),
                                  u"true"_s,
                                  u"must be false if x-kubernetes-int-or-string is true"_s));
        if (intOrString && embedded)
            errors.append(invalid(child(path, u"x-kubernetes-embedded-resource"_s),
                                  u"true"_s,
                                  u"must be false if x-kubernetes-int-or-string is true"_s));

        const bool skipAnyOf = intOrString && isIntOrStringAnyOf(jsonMember(s, "anyOf"));
        const json &allOf = jsonMember(s, "allOf");
        const bool skipFirstAllOfAnyOf = intOrString && allOf.is_array() && !allOf.empty()
            && isIntOrStringAnyOf(jsonMember(allOf[0], "anyOf"));
        valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, path);

        const bool checkMetadata = level == Level::Root || embedded;
        typeInvariants(s, level, path);
        if (embedded && !additional.is_null())
            errors.append(
                forbidden(child(path, u"additionalProperties"_s),
                          u"must not be used if x-kubernetes-embedded-resource is set"_s));
        for (const char *meta : { "kind", "apiVersion" }) {
            const json &property = jsonMember(properties, meta);
            if (checkMetadata && property.is_object()
                && jsonString(property, "type") != u"string"_s)
                errors.append(invalid(child(key(path, "properties", meta), u"type"_s),
                                      gofmt::quote(jsonString(property, "type")),
                                      u"must be string"_s));
        }
        const json &metadata = jsonMember(properties, "metadata");
        if (metadata.is_object())
            metadataInvariants(metadata, checkMetadata, level, key(path, "properties", "metadata"));
        if (embedded && !preserve && (!properties.is_object() || properties.empty()))
            errors.append(
                required(child(path, u"properties"_s),
                         u"must not be empty if x-kubernetes-embedded-resource is true without "
                         u"x-kubernetes-preserve-unknown-fields"_s));
    }

private:
    // What `type` must be: object for embedded resources and at the root, set unless
    // int-or-string or preserving unknown fields.
    void typeInvariants(const json &s, Level level, const QString &path)
    {
        const QString type = jsonString(s, "type");
        const bool embedded = jsonBool(s, "x-kubernetes-embedded-resource");
        const bool intOrString = jsonBool(s, "x-kubernetes-int-or-string");
        const bool preserve = jsonBool(s, "x-kubernetes-preserve-unknown-fields");
        if (embedded && type != u"object"_s) {
            requireType(type,
                        u"object"_s,
                        path,
                        u"must be object if x-kubernetes-embedded-resource is true"_s,
                        errors);
        } else if (type.isEmpty() && !intOrString && !preserve) {
            static const QString messages[]
                = { u"must not be empty at the root"_s,
                    u"must not be empty for specified array items"_s,
                    u"must not be empty for specified object fields"_s };
            errors.append(required(child(path, u"type"_s), messages[int(level)]));
        }
        if (level == Level::Root && !type.isEmpty() && type != u"object"_s)
            errors.append(invalid(
                child(path, u"type"_s), gofmt::quote(type), u"must be object at the root"_s));
    }

    void metadataInvariants(const json &s, bool checkMetadata, Level level, const QString &path)
    {
        if (checkMetadata && jsonString(s, "type") != u"object"_s)
            errors.append(invalid(
                child(path, u"type"_s), gofmt::quote(jsonString(s, "type")), u"must be object"_s));
        if (level != Level::Root)
            return;
        // Only `type`, `default` and properties name/generateName may be said about it.
        bool extra = false;
        for (auto it = s.begin(); it != s.end(); ++it) {
            if (it.key() == "type" || it.key() == "default")
                continue;
            if (it.key() == "properties" && it->is_object()) {
                for (auto p = it->begin(); p != it->end(); ++p)
                    extra = extra || (p.key() != "name" && p.key() != "generateName");
                continue;
            }
            extra = true;
        }
        if (extra)
            errors.append(
                forbidden(path,
                          u"must not specify anything other than name and generateName, but "
                          u"metadata is implicitly specified"_s));
    }

    void
    valueValidation(const json &v, bool skipAnyOf, bool skipFirstAllOfAnyOf, const QString &path)
    {
        const json &anyOf = jsonMember(v, "anyOf");
        if (!skipAnyOf && anyOf.is_array()) {
            for (std::size_t i = 0; i < anyOf.size(); ++i)
                nested(anyOf[i], false, index(path, "anyOf", i));
        }
        const json &allOf = jsonMember(v, "allOf");
        for (std::size_t i = 0; allOf.is_array() && i < allOf.size(); ++i)
            nested(allOf[i], skipFirstAllOfAnyOf && i == 0, index(path, "allOf", i));
        const json &oneOf = jsonMember(v, "oneOf");
        for (std::size_t i = 0; oneOf.is_array() && i < oneOf.size(); ++i)
            nested(oneOf[i], false, index(path, "oneOf", i));
        if (jsonMember(v, "not").is_object())
            nested(v["not"], false, child(path, u"not"_s));
        const QString pattern = jsonString(v, "pattern");
        if (!pattern.isEmpty()) {
            const QRegularExpression re(pattern);
            if (!re.isValid())
                errors.append(invalid(child(path, u"pattern"_s),
                                      gofmt::quote(pattern),
                                      u"must be a valid regular expression, but isn't: "_s
                                          + re.errorString()));
        }
    }

    // validateNestedValueValidation: inside allOf/anyOf/oneOf/not only value validations.
    void nested(const json &v, bool skipAnyOf, const QString &path)
    {
        if (!v.is_object())
            return;
        valueValidation(v, skipAnyOf, false, path);
        if (jsonMember(v, "items").is_object())
            nested(v["items"], false, child(path, u"items"_s));
        const json &properties = jsonMember(v, "properties");
        if (properties.is_object()) {
            for (auto it = properties.begin(); it != properties.end(); ++it)
                nested(it.value(), false, key(path, "properties", it.key()));
        }
        const auto forbid = [&](const char *field, const char *message) {
            errors.append(
                forbidden(child(path, QString::fromLatin1(field)), QString::fromLatin1(message)));
        };
        if (!jsonString(v, "type").isEmpty())
            forbid("type", "must be empty to be structural");
        if (!jsonMember(v, "additionalProperties").is_null())
            forbid("additionalProperties", "must be undefined to be structural");
        if (!jsonMember(v, "default").is_null())
            forbid("default", "must be undefined to be structural");
        if (!jsonString(v, "title").isEmpty())
            forbid("title", "must be empty to be structural");
        if (!jsonString(v, "description").isEmpty())
            forbid("description", "must be empty to be structural");
        if (jsonBool(v, "nullable"))
            forbid("nullable", "must be false to be structural");
        if (!jsonMember(v, "externalDocs").is_null())
            forbid("externalDocs", "must be undefined to be structural");
        if (jsonBool(v, "x-kubernetes-preserve-unknown-fields"))
            forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
        if (jsonBool(v, "x-kubernetes-embedded-resource"))
            forbid("x-kubernetes-embedded-resource", "must be false to be structural");
        if (jsonBool(v, "x-kubernetes-int-or-string"))
            forbid("x-kubernetes-int-or-string", "must be false to be structural");
        if (!jsonStrings(jsonMember(v, "x-kubernetes-list-map-keys")).isEmpty())
            forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
        if (!jsonMember(v, "x-kubernetes-list-type").is_null())
            forbid("x-kubernetes-list-type", "must be undefined to be structural");
        if (!jsonMember(v, "x-kubernetes-map-type").is_null())
            forbid("x-kubernetes-map-type", "must be undefined to be structural");
        if (jsonMember(v, "x-kubernetes-validations").is_array()
            && !v["x-kubernetes-validations"].empty())
            forbid("x-kubernetes-validations", "must be empty to be structural");
        if (properties.is_object() && properties.contains("metadata"))
            errors.append(forbidden(key(path, "properties", "metadata"),
                                    u"must not be specified in a nested context"_s));
    }
};

} // namespace

QList<FieldError> structuralInvariantErrors(const json &schema, const QString &path)
{
    StructuralInvariants invariants;
    invariants.check(schema, StructuralInvariants::Level::Root, path);
    std::sort(invariants.errors.begin(),
              invariants.errors.end(),
              [](const FieldError &a, const FieldError &b) {
                  return a.field + u": "_s + a.message < b.field + u": "_s + b.message;
              });
    return invariants.errors;
}

} // namespace reconscope::controller::cluster::crdvalidation
