#include "controller/fieldowner/fieldsv1.h"

#include "controller/fieldowner/gotext.h"

#include <QString>

#include <charconv>

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

namespace {

constexpr int maxDepth = 256;

struct Decoder
{
    QString error;

    // Fills `set` from the object `value`; returns whether the path holding it is a member
    // (an explicit "." or no children at all), as structured-merge-diff's readIterV1 does.
    bool read(const json &value, FieldSet &set, const std::string &where, int depth)
    {
        if (!error.isEmpty())
            return false;
        if (depth > maxDepth) {
            error = QStringLiteral("fieldsV1 nested deeper than %1 at %2")
                        .arg(maxDepth)
                        .arg(QString::fromStdString(where));
            return false;
        }
        if (value.is_null())
            return true;
        if (!value.is_object()) {
            error = QStringLiteral("fieldsV1 at %1 is a %2, not an object")
                        .arg(QString::fromStdString(where.empty() ? "the top" : where),
                             QString::fromUtf8(value.type_name()));
            return false;
        }
        bool member = false;
        for (const auto &[key, below] : value.items()) {
            if (key == ".") {
                member = true;
                continue;
            }
            auto element = decodePathElement(key);
            if (!element) {
                error = QStringLiteral("fieldsV1 key %1 at %2: %3")
                            .arg(QString::fromStdString(gotext::quote(key)),
                                 QString::fromStdString(where.empty() ? "the top" : where),
                                 element.error().message);
                return false;
            }
            if (!*element)
                continue; // an element type of a later version: dropped, as upstream does
            FieldSet children;
            const bool childIsMember
                = read(below, children, where + (*element)->toString(), depth + 1);
            if (!error.isEmpty())
                return false;
            if (childIsMember)
                set.insertMember(**element);
            if (!children.empty())
                set.descend(**element) = set.withPrefix(**element).unite(children);
        }
        return member || set.empty();
    }
};

} // namespace

std::string encodePathElement(const PathElement &element)
{
    switch (element.kind) {
    case PathElement::Kind::Field:
        return "f:" + element.name;
    case PathElement::Kind::Key:
        return "k:" + gotext::json(element.value);
    case PathElement::Kind::Value:
        return "v:" + gotext::json(element.value);
    case PathElement::Kind::Index:
        return "i:" + std::to_string(element.index);
    }
    return {};
}

models::Result<std::optional<PathElement>> decodePathElement(std::string_view key)
{
    using R = models::Result<std::optional<PathElement>>;
    if (key.size() < 2)
        return R::failure(QStringLiteral("a path element is at least 2 characters long"));
    if (key[1] != ':')
        return R::failure(QStringLiteral("missing colon"));
    const std::string_view rest = key.substr(2);
    switch (key[0]) {
    case 'f':
        return std::optional(PathElement::field(std::string(rest)));
    case 'v':
    case 'k': {
        json value = json::parse(rest, nullptr, false);
        if (value.is_discarded())
            return R::failure(
                QStringLiteral("not JSON after \"%1:\"").arg(QChar::fromLatin1(key[0])));
        if (key[0] == 'v')
            return std::optional(PathElement::member(std::move(value)));
        if (!value.is_object())
            return R::failure(QStringLiteral("the key fields after \"k:\" are not a JSON object"));
        return std::optional(PathElement::key(std::move(value)));
    }
    case 'i': {
        long long index = 0;
        const char *begin = rest.data() + (!rest.empty() && rest[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, rest.data() + rest.size(), index);
        if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty())
            return R::failure(QStringLiteral("not an index after \"i:\""));
        return std::optional(PathElement::at(index));
    }
    default:
        return std::optional<PathElement>();
    }
}

namespace {

void encodeInto(const FieldSet &set, json &out)
{
    for (const PathElement &member : set.members())
        out[encodePathElement(member)] = json::object();
    for (const FieldSet::Child &child : set.children()) {
        json &below = out[encodePathElement(child.element)];
        below = json::object();
        if (set.hasMember(child.element))
            below["."] = json::object();
        encodeInto(child.set, below);
    }
}

} // namespace

json encodeFieldsV1(const FieldSet &set)
{
    json out = json::object();
    encodeInto(set, out);
    return out;
}

models::Result<FieldSet> decodeFieldsV1(const json &fields)
{
    FieldSet set;
    Decoder decoder;
    decoder.read(fields, set, std::string(), 0);
    if (!decoder.error.isEmpty())
        return models::Result<FieldSet>::failure(decoder.error);
    return set;
}

} // namespace reconscope::controller::fieldowner
