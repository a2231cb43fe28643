#include "controller/kube/objectsummarizer.h"

#include "controller/kube/jsonscan.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using Json = nlohmann::json;

// The paths a summary reads, as a trie of member names; `keep` marks where a whole value is taken.
struct ObjectSummarizer::Node
{
    bool keep = false;
    std::map<std::string, Node, std::less<>> children;
};

namespace {

// A member name as it is, or decoded when it holds escapes.
std::string memberName(QByteArrayView raw)
{
    if (!raw.contains('\\'))
        return std::string(raw.data(), size_t(raw.size()));
    QByteArray quoted;
    quoted.reserve(raw.size() + 2);
    quoted += '"';
    quoted += raw;
    quoted += '"';
    const auto parsed = Json::parse(quoted.cbegin(), quoted.cend(), nullptr, false);
    return parsed.is_string() ? parsed.get<std::string>() : std::string();
}

bool isAscii(QByteArrayView text)
{
    for (const char c : text) {
        if (static_cast<unsigned char>(c) >= 0x80)
            return false;
    }
    return true;
}

// The tree of a value jsonscan has validated, built without nlohmann's lexer for what is plain:
// strings without escapes and ASCII only, integers, literals, and objects and arrays of them
// (nlohmann's parser costs a lexer, a locale lookup and a string built byte by byte per value).
// The same values and types as nlohmann's parser (a non-negative integer is unsigned); false for
// anything else (escapes, non-ASCII text, fractions, exponents, very deep values), which is then
// left to nlohmann.
bool plainValue(QByteArrayView value, Json &out, int depth)
{
    if (value.isEmpty() || depth > 32)
        return false;
    switch (value.front()) {
    case '"': {
        const QByteArrayView inner = value.sliced(1, value.size() - 2);
        if (inner.contains('\\') || !isAscii(inner))
            return false;
        out = std::string(inner.data(), size_t(inner.size()));
        return true;
    }
    case 't':
        out = true;
        return true;
    case 'f':
        out = false;
        return true;
    case 'n':
        out = nullptr;
        return true;
    case '{': {
        out = Json::object();
        bool plain = true;
        const bool valid
            = jsonscan::forEachMember(value, [&](QByteArrayView key, QByteArrayView v) {
                  Json member;
                  if (key.contains('\\') || !isAscii(key) || !plainValue(v, member, depth + 1)) {
                      plain = false;
                      return false;
                  }
                  out[std::string(key.data(), size_t(key.size()))] = std::move(member);
                  return true;
              });
        return valid && plain;
    }
    case '[': {
        out = Json::array();
        bool plain = true;
        const bool valid = jsonscan::forEachElement(value, [&](QByteArrayView v) {
            Json element;
            if (!plainValue(v, element, depth + 1)) {
                plain = false;
                return false;
            }
            out.push_back(std::move(element));
            return true;
        });
        return valid && plain;
    }
    default:
        break;
    }
    // A number: integers only (nlohmann reads the others as doubles).
    for (const char c : value) {
        if (c == '.' || c == 'e' || c == 'E')
            return false;
    }
    const char *end = value.data() + value.size();
    if (value.front() == '-') {
        std::int64_t number = 0;
        const auto [at, error] = std::from_chars(value.data(), end, number);
        if (error != std::errc() || at != end)
            return false;
        out = number;
        return true;
    }
    std::uint64_t number = 0;
    const auto [at, error] = std::from_chars(value.data(), end, number);
    if (error != std::errc() || at != end)
        return false;
    out = number;
    return true;
}

Json parseValue(QByteArrayView value)
{
    Json plain;
    if (plainValue(value, plain, 0))
        return plain;
    return Json::parse(value.begin(), value.end(), nullptr, false);
}

struct Walk
{
    int statusKeys = 0;
    bool sawStatusObject = false;

    // Copies into `target` the members of the object at the scanner that lie on a wanted path,
    // as the SAX pass of ObjectSummary::fromBytes does: wanted values whole, objects on the way
    // descended into, scalars on the way kept, arrays on the way skipped. One pass: members on
    // the way are walked where they lie, the others validated and skipped. False when the text is
    // not valid JSON.
    bool copy(jsonscan::Scanner &scanner,
              const ObjectSummarizer::Node &node,
              Json &target,
              int depth,
              bool isStatus)
    {
        if (!scanner.consume('{'))
            return false;
        if (scanner.consume('}'))
            return true;
        for (;;) {
            scanner.skipWhitespace();
            QByteArrayView rawKey;
            if (!scanner.string(&rawKey) || !scanner.consume(':'))
                return false;
            rawKey = rawKey.sliced(1, rawKey.size() - 2);
            if (isStatus)
                ++statusKeys;
            std::string decoded;
            const bool escaped = rawKey.contains('\\');
            if (escaped)
                decoded = memberName(rawKey);
            const std::string_view key = escaped ? std::string_view(decoded)
                                                 : std::string_view(rawKey.data(), rawKey.size());
            const auto child = node.children.find(key);
            if (child != node.children.end() && !child->second.keep && scanner.peekIs('{')) {
                Json &slot = target[std::string(key)];
                slot = Json::object();
                const bool status = depth == 0 && key == "status";
                if (status)
                    sawStatusObject = true;
                if (!copy(scanner, child->second, slot, depth + 1, status))
                    return false;
            } else {
                QByteArrayView value;
                if (!scanner.value(&value, depth + 1))
                    return false;
                if (child != node.children.end()
                    && (child->second.keep || (value.front() != '[' && value.front() != '{'))) {
                    Json parsed = parseValue(value);
                    if (parsed.is_discarded())
                        return false; // jsonscan took it, nlohmann did not (invalid UTF-8)
                    target[std::string(key)] = std::move(parsed);
                }
            }
            if (scanner.consume(','))
                continue;
            return scanner.consume('}');
        }
    }
};

void addPath(ObjectSummarizer::Node &root, const QString &dotted)
{
    QStringView view(dotted);
    if (view.startsWith(u'.'))
        view = view.mid(1);
    ObjectSummarizer::Node *node = &root;
    for (const QStringView part : view.split(u'.'))
        node = &node->children[part.toString().toStdString()];
    node->keep = true;
}

} // namespace

ObjectSummarizer::ObjectSummarizer(const models::LifecycleMapping &mapping)
    : m_mapping(mapping)
    , m_paths(std::make_unique<Node>())
{
    // Must match the fixed paths of ObjectSummary::fromBytes.
    for (const QString &path : { u"apiVersion"_s,
                                 u"kind"_s,
                                 u"metadata.name"_s,
                                 u"metadata.namespace"_s,
                                 u"metadata.uid"_s,
                                 u"metadata.resourceVersion"_s,
                                 u"metadata.generation"_s,
                                 u"metadata.creationTimestamp"_s,
                                 u"metadata.deletionTimestamp"_s,
                                 u"metadata.finalizers"_s,
                                 u"metadata.labels"_s,
                                 u"status.observedGeneration"_s,
                                 u"status.conditions"_s }) {
        addPath(*m_paths, path);
    }
    for (const QString &path : mapping.projectedPaths())
        addPath(*m_paths, path);
}

ObjectSummarizer::~ObjectSummarizer() = default;

models::Result<models::ObjectSummary> ObjectSummarizer::summarize(QByteArrayView json) const
{
    Walk walk;
    Json root = Json::object();
    jsonscan::Scanner start(json);
    if (!start.peekIs('{')) {
        // Not an object: let the full parser say what it is.
        return models::ObjectSummary::fromBytes(json, m_mapping);
    }
    jsonscan::Scanner scanner(json);
    bool valid = walk.copy(scanner, *m_paths, root, 0, false);
    scanner.skipWhitespace();
    valid = valid && scanner.atEnd();
    if (!valid) {
        // Invalid (or valid for jsonscan but not for nlohmann: bad UTF-8): the SAX pass says
        // exactly what is wrong, in the same words as ObjectSummary::fromBytes.
        return models::ObjectSummary::fromBytes(json, m_mapping);
    }
    auto summary = models::ObjectSummary::fromJson(root, m_mapping);
    if (summary && walk.sawStatusObject)
        summary->statusFieldCount = walk.statusKeys;
    return summary;
}

} // namespace reconscope::controller::kube
