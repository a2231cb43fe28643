#include "controller/cluster/schema/schemavalidator.h"

#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/formats.h"
#include "controller/cluster/schema/gofmt.h"
#include "models/dnsnames.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::structural {

QString fieldOf(const std::string &path)
{
    return QString::fromStdString(path);
}

// The name kube-openapi puts into its messages ("spec.replicas in body ...").
QString nameOf(const std::string &path)
{
    return QString::fromStdString(path);
}

// The JSON type of a decoded value as kube-openapi names it.
std::string jsonType(const json &x)
{
    switch (x.type()) {
    case json::value_t::object:
        return "object";
    case json::value_t::array:
        return "array";
    case json::value_t::string:
        return "string";
    case json::value_t::boolean:
        return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "integer";
    case json::value_t::number_float:
        return "number";
    default:
        return "null";
    }
}

// -1, 0, 1; exact for integers, through double only when a float is involved.
int compareNumbers(const json &a, const json &b)
{
    if (a.is_number_integer() && b.is_number_integer()) {
        if (a.is_number_unsigned() || b.is_number_unsigned()) {
            if (a.is_number_unsigned() && b.is_number_unsigned()) {
                const auto x = a.get<std::uint64_t>(), y = b.get<std::uint64_t>();
                return x < y ? -1 : (x > y ? 1 : 0);
            }
            if (a.is_number_unsigned()) // b is a signed integer
                return b.get<std::int64_t>() < 0 ? 1
                                                 : compareNumbers(a, json(b.get<std::uint64_t>()));
            return a.get<std::int64_t>() < 0 ? -1 : compareNumbers(json(a.get<std::uint64_t>()), b);
        }
        const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    const double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : (x > y ? 1 : 0);
}

namespace {

bool isIntegral(const json &x)
{
    if (x.is_number_integer())
        return true;
    if (!x.is_number_float())
        return false;
    const double d = x.get<double>();
    return std::isfinite(d) && d == std::floor(d);
}

QString typeNames(const SchemaNode &s)
{
    return s.intOrString ? u"integer,string"_s : QString::fromStdString(s.type);
}

// Ratcheting correlation: the same key of the old object.
const json *member(const json *old, const std::string &key)
{
    if (!old || !old->is_object())
        return nullptr;
    auto it = old->find(key);
    return it == old->end() ? nullptr : &*it;
}

} // namespace

// `old` is the correlated value of the previous object on an update (null on create, or
// where no correlation exists): CRD validation ratcheting skips unchanged values.
void Validator::validate(const SchemaNode &s,
                         const json &x,
                         const std::string &path,
                         const json *old)
{
    if (old && *old == x)
        return;
    if (x.is_null()) {
        if ((!s.type.empty() || s.intOrString) && !s.nullable)
            errors.append(fielderrors::typeInvalid(fieldOf(path),
                                                   u"\"null\""_s,
                                                   nameOf(path) + u" in body must be of type "_s
                                                       + typeNames(s) + u": \"null\""_s));
        return;
    }
    const std::string actual = jsonType(x);
    bool typeOk = true;
    if (s.intOrString)
        typeOk = actual == "string" || actual == "integer" || (actual == "number" && isIntegral(x));
    else if (!s.type.empty())
        typeOk = s.type == actual || (s.type == "number" && actual == "integer")
            || (s.type == "integer" && actual == "number" && isIntegral(x));
    if (!typeOk) {
        errors.append(fielderrors::typeInvalid(fieldOf(path),
                                               gofmt::quote(actual),
                                               nameOf(path) + u" in body must be of type "_s
                                                   + typeNames(s) + u": "_s
                                                   + gofmt::quote(actual)));
        validateEnum(s, x, path);
        return;
    }

    validateCombinators(s, x, path, old);
    if (x.is_string())
        validateString(s, x, path);
    if (x.is_number())
        validateNumber(s, x, path);
    if (x.is_array())
        validateArray(s, x, path, old);
    validateEnum(s, x, path);
    if (x.is_object())
        validateObject(s, x, path, old);
}

QList<FieldError> Validator::validateOnly(const SchemaNode &s,
                                          const json &x,
                                          const std::string &path,
                                          const json *old)
{
    Validator v;
    v.validate(s, x, path, old);
    return v.errors;
}

// kube-openapi reports combinator failures as composite errors, which the apiextensions
// apiserver turns into field.Invalid(<nil path>, "", message): the field reads "<nil>".
void Validator::composite(const QString &message)
{
    errors.append(fielderrors::invalid(u"<nil>"_s, u"\"\""_s, message));
}

void Validator::validateCombinators(const SchemaNode &s,
                                    const json &x,
                                    const std::string &path,
                                    const json *old)
{
    // Only a failing combinator names the path (most nodes have none).
    const auto quoted = [&path] {
        return gofmt::quote(path);
    };
    if (!s.anyOf.empty()) {
        std::optional<QList<FieldError>> best;
        bool matched = false;
        for (const NodePtr &branch : s.anyOf) {
            QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
            if (branchErrors.isEmpty()) {
                matched = true;
                break;
            }
            if (!best || branchErrors.size() < best->size())
                best = std::move(branchErrors);
        }
        if (!matched) {
            composite(quoted() + u" must validate at least one schema (anyOf)"_s);
            errors.append(*best);
        }
    }
    if (!s.oneOf.empty()) {
        int valid = 0;
        std::optional<QList<FieldError>> best;
        for (const NodePtr &branch : s.oneOf) {
            QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
            if (branchErrors.isEmpty())
                ++valid;
            else if (valid == 0 && (!best || branchErrors.size() < best->size()))
                best = std::move(branchErrors);
        }
        if (valid != 1) {
            composite(quoted() + u" must validate one and only one schema (oneOf). "_s
                      + (valid == 0
                             ? u"Found none valid"_s
                             : u"Found "_s + QString::number(valid) + u" valid alternatives"_s));
            if (valid == 0 && best)
                errors.append(*best);
        }
    }
    if (!s.allOf.empty()) {
        int valid = 0;
        for (const NodePtr &branch : s.allOf) {
            const QList<FieldError> branchErrors = validateOnly(*branch, x, path, old);
            if (branchErrors.isEmpty())
                ++valid;
            errors.append(branchErrors);
        }
        if (valid != int(s.allOf.size()))
            composite(quoted() + u" must validate all the schemas (allOf)"_s
                      + (valid == 0 ? u". None validated"_s : QString()));
    }
    if (s.notSchema && validateOnly(*s.notSchema, x, path, nullptr).isEmpty())
        composite(quoted() + u" must not validate the schema (not)"_s);
}

void Validator::validateString(const SchemaNode &s, const json &x, const std::string &path)
{
    const std::string &text = x.get_ref<const std::string &>();
    // Characters, not bytes: count the UTF-8 sequences' lead bytes.
    const auto runes = static_cast<std::int64_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
    if (s.maxLength && runes > *s.maxLength) {
        errors.append({ u"FieldValueTooLong"_s,
                        fieldOf(path),
                        u"Too long: may not be more than "_s + QString::number(*s.maxLength)
                            + (*s.maxLength == 1 ? u" byte"_s : u" bytes"_s) });
    }
    if (s.minLength && runes < *s.minLength)
        errors.append(fielderrors::invalid(fieldOf(path),
                                           gofmt::quote(text),
                                           nameOf(path) + u" in body should be at least "_s
                                               + QString::number(*s.minLength) + u" chars long"_s));
    if (!s.pattern.empty() && !s.regex.match(QString::fromStdString(text)).hasMatch())
        errors.append(fielderrors::invalid(fieldOf(path),
                                           gofmt::quote(text),
                                           nameOf(path) + u" in body should match '"_s
                                               + QString::fromStdString(s.pattern) + u'\''));
    if (!s.format.empty() && !formats::isValid(s.format, text))
        errors.append(fielderrors::typeInvalid(fieldOf(path),
                                               gofmt::quote(text),
                                               nameOf(path) + u" in body must be of type "_s
                                                   + QString::fromStdString(s.format) + u": "_s
                                                   + gofmt::quote(text)));
}

void Validator::validateNumber(const SchemaNode &s, const json &x, const std::string &path)
{
    const auto value = [&x] {
        return gofmt::plain(x);
    };
    if (s.multipleOf) {
        const double factor = s.multipleOf->get<double>();
        bool multiple;
        if (x.is_number_integer() && s.multipleOf->is_number_integer()
            && s.multipleOf->get<std::int64_t>() > 0)
            multiple = x.get<std::int64_t>() % s.multipleOf->get<std::int64_t>() == 0;
        else {
            const double q = x.get<double>() / factor;
            multiple = factor != 0 && std::fabs(q - std::round(q)) < 1e-9;
        }
        if (!multiple)
            errors.append(fielderrors::invalid(fieldOf(path),
                                               value(),
                                               nameOf(path) + u" in body should be a multiple of "_s
                                                   + gofmt::plain(*s.multipleOf)));
    }
    // `outside`: the comparison result of a value beyond the bound (1 for a maximum).
    const auto bound = [&](const std::optional<json> &limit,
                           bool exclusive,
                           int outside,
                           const QString &relation) {
        if (!limit)
            return;
        const int c = compareNumbers(x, *limit);
        if (c == outside || (exclusive && c == 0))
            errors.append(fielderrors::invalid(
                fieldOf(path),
                value(),
                nameOf(path) + u" in body should be "_s + relation
                    + (exclusive ? u" than "_s : u" than or equal to "_s) + gofmt::plain(*limit)));
    };
    bound(s.maximum, s.exclusiveMaximum, 1, u"less"_s);
    bound(s.minimum, s.exclusiveMinimum, -1, u"greater"_s);
}

void Validator::validateEnum(const SchemaNode &s, const json &x, const std::string &path)
{
    if (!s.enumValues)
        return;
    for (const json &allowed : *s.enumValues) {
        if (allowed == x
            || (allowed.is_number() && x.is_number() && compareNumbers(allowed, x) == 0))
            return;
    }
    QStringList supported;
    for (const json &allowed : *s.enumValues)
        supported.append(
            gofmt::quote(allowed.is_string() ? allowed.get<std::string>() : allowed.dump()));
    errors.append(
        { u"FieldValueNotSupported"_s,
          fieldOf(path),
          u"Unsupported value: "_s + gofmt::badValue(x)
              + (supported.isEmpty() ? QString()
                                     : u": supported values: "_s + supported.join(u", "_s)) });
}

// objectmeta.Validate for x-kubernetes-embedded-resource objects: apiVersion and kind are
// required and well-formed (metadata is not checked here).
void Validator::validateEmbeddedTypeMeta(const json &x, const std::string &path)
{
    // x[key] when it is a non-empty string; reports it missing or malformed otherwise.
    const auto text = [&](const char *key) -> std::optional<QString> {
        const QString field = fieldOf(childPath(path, key));
        auto it = x.find(key);
        if (it != x.end() && !it->is_string()) {
            errors.append(fielderrors::invalid(field, gofmt::badValue(*it), u"must be a string"_s));
            return std::nullopt;
        }
        if (it == x.end() || it->get_ref<const std::string &>().empty()) {
            errors.append(fielderrors::required(field));
            return std::nullopt;
        }
        return QString::fromStdString(it->get<std::string>());
    };
    if (const auto apiVersion = text("apiVersion"); apiVersion && apiVersion->count(u'/') > 1)
        errors.append(fielderrors::invalid(fieldOf(childPath(path, "apiVersion")),
                                           gofmt::quote(*apiVersion),
                                           u"unexpected GroupVersion string: "_s + *apiVersion));
    if (const auto kind = text("kind")) {
        // Upstream reports one problem: the length if the kind is too long, else the format.
        if (const QStringList e = models::isDNS1035Label(kind->toLower()); !e.isEmpty())
            errors.append(
                fielderrors::invalid(fieldOf(childPath(path, "kind")),
                                     gofmt::quote(*kind),
                                     u"may have mixed case, but should otherwise match: "_s
                                         + (kind->size() > 63 ? e.first() : e.last())));
    }
}

void Validator::validateObject(const SchemaNode &s,
                               const json &x,
                               const std::string &path,
                               const json *old)
{
    if (s.embeddedResource && !path.empty())
        validateEmbeddedTypeMeta(x, path);
    const auto count = static_cast<std::int64_t>(x.size());
    if (s.minProperties && count < *s.minProperties) {
        errors.append(fielderrors::invalid(fieldOf(path),
                                           QString::number(*s.minProperties),
                                           nameOf(path) + u" in body should have at least "_s
                                               + QString::number(*s.minProperties)
                                               + u" properties"_s));
        return;
    }
    if (s.maxProperties && count > *s.maxProperties) {
        errors.append(fielderrors::tooMany(fieldOf(path), count, *s.maxProperties));
        return;
    }
    for (auto it = x.begin(); it != x.end(); ++it) {
        if (s.embeddedResource && isMetaField(it.key()) && !s.properties.contains(it.key()))
            continue;
        const std::string child = childPath(path, it.key());
        if (auto p = s.properties.find(it.key()); p != s.properties.end())
            validate(*p->second, it.value(), child, member(old, it.key()));
        else if (s.hasAdditionalProperties && s.additionalProperties)
            validate(*s.additionalProperties, it.value(), child, member(old, it.key()));
    }
    for (const std::string &key : s.required) {
        if (!x.contains(key))
            errors.append(fielderrors::required(fieldOf(childPath(path, key))));
    }
}

QList<FieldError>
validate(const SchemaNode &s, const json &x, const std::string &path, const json *old)
{
    Validator validator;
    validator.validate(s, x, path, old);
    return validator.errors;
}

} // namespace reconscope::controller::cluster::structural
