#include "controller/kube/objectsummarizer.h"

#include "controller/kube/jsonscan.h"

#include <nlohmann/json.hpp>

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

Json parseValue(QByteArrayView value)
{
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
