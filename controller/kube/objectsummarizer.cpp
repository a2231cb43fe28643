#include "controller/kube/objectsummarizer.h"

#include "controller/kube/fastlist/stringpool.h"
#include "models/condition.h"
#include "models/jsonscan.h"
#include "models/jsonsyntax.h"
#include "models/rfc3339.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using Json = nlohmann::json;

namespace {

using Path = std::vector<std::string>;

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
            = models::jsonscan::forEachMember(value, [&](QByteArrayView key, QByteArrayView v) {
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
        const bool valid = models::jsonscan::forEachElement(value, [&](QByteArrayView v) {
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

// The nesting bound of Go's encoding/json (maxNestingDepth), which Kubernetes' decoding
// inherits: an object whose containers nest deeper is not an object the server can hold.
constexpr std::size_t MaxDepth = 10000;
// jsonscan's Scanner::value(depth) has a bound of its own (MaxDepth plus a list's and an event's
// wrappers). A value `level` containers deep (the root object is 1) scanned with depth
// level + ScanOffset is refused when a container in it is deeper than MaxDepth, and also when a
// scalar sits right below a container MaxDepth deep (stricter than the bound: see TreeReader).
constexpr int ScanOffset = 2;

// Whether `text`, a value jsonscan has validated, is exactly what models::compactJson writes of
// its tree, as fieldsV1 texts from the server usually are: objects of objects only, no whitespace,
// ASCII names whose only escapes are \" and \\, each object's members in increasing order of their
// decoded names (the tree's map order; a repeated name is not).
bool isCompactFieldsText(QByteArrayView text)
{
    if (text.isEmpty() || text.front() != '{')
        return false;
    struct Level
    {
        std::string last; // the last member name
        bool any = false;
    };
    std::vector<Level> levels;
    std::string name;
    for (qsizetype i = 0; i < text.size(); ++i) {
        switch (text[i]) {
        case '{':
            levels.emplace_back();
            break;
        case '}':
            levels.pop_back(); // balanced: the text is valid JSON
            break;
        case ',':
            break;
        case '"': {
            // A string here is a member name (a string value is refused below: no colon follows).
            name.clear();
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                char c = text[i];
                if (static_cast<unsigned char>(c) >= 0x80)
                    return false;
                if (c == '\\') {
                    if (++i >= text.size() || (text[i] != '"' && text[i] != '\\'))
                        return false;
                    c = text[i];
                }
                name.push_back(c);
            }
            if (i + 2 >= text.size() || text[i + 1] != ':' || text[i + 2] != '{')
                return false;
            Level &level = levels.back();
            if (level.any && name <= level.last)
                return false;
            level.last = name;
            level.any = true;
            ++i; // at the colon; the object opens next
            break;
        }
        default:
            return false; // whitespace, arrays, scalars
        }
    }
    return true;
}

// The summary of an object of the usual shape, read straight from the text into the summary (no
// tree, no member lookups): what the general path (readGeneral) reads, for objects whose read
// members are all plain (names without escapes; ASCII strings without escapes where strings belong,
// integers where integers belong, each member at most once; no deletionTimestamp; a status that is
// an object or null, its conditions an array of condition objects or null) and a mapping without
// projected paths. Anything else returns false, and the general reader decides (the same text is
// read again there).
class PlainReader
{
public:
    // With `strings`, the texts objects share (apiVersion, kind, namespace, finalizers, labels)
    // are interned as they are read.
    PlainReader(QByteArrayView json, StringPool *strings)
        : m_scanner(json)
        , m_strings(strings)
    { }

    bool read(models::ObjectSummary &summary)
    {
        unsigned seen = 0;
        bool ok = members([&](QByteArrayView key) {
            if (key == "apiVersion")
                return once(seen, 1) && sharedString(&summary.apiVersion);
            if (key == "kind")
                return once(seen, 2) && sharedString(&summary.kind);
            if (key == "metadata")
                return once(seen, 4) && metadata(summary);
            if (key == "status")
                return once(seen, 8) && status(summary);
            return skip();
        });
        m_scanner.skipWhitespace();
        if (!ok || !m_scanner.atEnd() || summary.name.isEmpty())
            return false;
        summary.key = models::objectKey(summary.namespaceName, summary.name);
        return true;
    }

private:
    static bool once(unsigned &seen, unsigned bit)
    {
        if (seen & bit)
            return false;
        seen |= bit;
        return true;
    }

    // Calls fn(key) with the scanner at each member's value; fn consumes the value.
    template<typename Fn>
    bool members(Fn &&fn, int *count = nullptr)
    {
        return models::jsonscan::forEachMemberAt(m_scanner, [&](QByteArrayView key) {
            if (key.contains('\\'))
                return false; // an escaped name may spell a wanted one
            if (count)
                ++*count;
            return fn(key);
        });
    }

    // A member's value at m_depth (values of the root's members are two containers deep).
    bool skip() { return m_scanner.value(nullptr, m_depth + 2 + ScanOffset); }

    // A string token of ASCII without escapes: its content.
    bool plainToken(QByteArrayView *inner)
    {
        m_scanner.skipWhitespace();
        QByteArrayView token;
        if (!m_scanner.string(&token))
            return false;
        *inner = token.sliced(1, token.size() - 2);
        for (const char c : *inner) {
            if (c == '\\' || static_cast<unsigned char>(c) >= 0x80)
                return false;
        }
        return true;
    }

    bool plainString(QString *out)
    {
        QByteArrayView inner;
        if (!plainToken(&inner))
            return false;
        *out = QString::fromLatin1(inner);
        return true;
    }

    QString shared(QByteArrayView latin1) const
    {
        return m_strings ? m_strings->internLatin1(latin1) : QString::fromLatin1(latin1);
    }

    // A plain string that other objects likely share: interned with the reader's pool.
    bool sharedString(QString *out)
    {
        QByteArrayView inner;
        if (!plainToken(&inner))
            return false;
        *out = shared(inner);
        return true;
    }

    // An integer that fits int64 exactly, or null (absent).
    bool integer(std::optional<qint64> *out)
    {
        QByteArrayView token;
        if (!m_scanner.value(&token, m_depth + 1))
            return false;
        if (token == "null")
            return true;
        if (token.isEmpty()
            || !(token.front() == '-' || (token.front() >= '0' && token.front() <= '9')))
            return false;
        qint64 number = 0;
        const char *end = token.data() + token.size();
        const auto [at, error] = std::from_chars(token.data(), end, number);
        if (error != std::errc() || at != end)
            return false; // a fraction, an exponent, or out of range
        *out = number;
        return true;
    }

    bool metadata(models::ObjectSummary &summary)
    {
        unsigned seen = 0;
        ++m_depth;
        const bool ok = members([&](QByteArrayView key) {
            if (key == "name")
                return once(seen, 1) && plainString(&summary.name);
            if (key == "namespace")
                return once(seen, 2) && sharedString(&summary.namespaceName);
            if (key == "uid")
                return once(seen, 4) && plainString(&summary.uid);
            if (key == "resourceVersion")
                return once(seen, 8) && plainString(&summary.resourceVersion);
            if (key == "generation")
                return once(seen, 16) && integer(&summary.generation);
            if (key == "creationTimestamp") {
                QByteArrayView text;
                return once(seen, 32) && plainToken(&text)
                    && (text.isEmpty() || time(text, &summary.creationTimestamp));
            }
            if (key == "deletionTimestamp")
                return false;
            if (key == "finalizers")
                return once(seen, 64) && finalizers(summary);
            if (key == "labels")
                return once(seen, 128) && labels(summary);
            if (key == "managedFields")
                return once(seen, 256) && managedFields(summary);
            return skip();
        });
        --m_depth;
        return ok;
    }

    // A time as text: the last text this thread parsed is answered without parsing it again
    // (objects written together share their times).
    static bool time(QByteArrayView text, QDateTime *out)
    {
        thread_local QByteArray lastText;
        thread_local QDateTime lastTime;
        if (text != lastText) {
            const auto parsed = models::parseRfc3339(QString::fromLatin1(text));
            if (!parsed)
                return false;
            lastText = text.toByteArray();
            lastTime = *parsed;
        }
        *out = lastTime;
        return true;
    }

    // metadata.managedFields: an array of entries (or null) whose strings are plain and whose
    // fieldsV1 text is already what compactJson writes of it.
    bool managedFields(models::ObjectSummary &summary)
    {
        if (m_scanner.peekIs('n')) {
            QByteArrayView token;
            return m_scanner.value(&token, m_depth + 1) && token == "null";
        }
        if (!m_scanner.consume('['))
            return false;
        if (m_scanner.consume(']'))
            return true;
        m_depth += 2; // the array, then its entries
        bool ok = true;
        for (;;) {
            models::ManagedFieldsEntry entry;
            if (!managedEntry(entry)) {
                ok = false;
                break;
            }
            summary.managedFields.push_back(std::move(entry));
            if (m_scanner.consume(','))
                continue;
            ok = m_scanner.consume(']');
            break;
        }
        m_depth -= 2;
        return ok;
    }

    bool managedEntry(models::ManagedFieldsEntry &entry)
    {
        unsigned seen = 0;
        return members([&](QByteArrayView key) {
            if (key == "manager")
                return once(seen, 1) && sharedString(&entry.manager);
            if (key == "operation")
                return once(seen, 2) && sharedString(&entry.operation);
            if (key == "apiVersion")
                return once(seen, 4) && sharedString(&entry.apiVersion);
            if (key == "subresource")
                return once(seen, 8) && sharedString(&entry.subresource);
            if (key == "fieldsType")
                return once(seen, 16) && sharedString(&entry.fieldsType);
            if (key == "time") {
                QByteArrayView text;
                return once(seen, 32) && plainToken(&text)
                    && (text.isEmpty() || time(text, &entry.time));
            }
            if (key == "fieldsV1") {
                QByteArrayView text;
                if (!once(seen, 64) || !m_scanner.value(&text, m_depth + 2 + ScanOffset))
                    return false;
                if (text == "null")
                    return true;
                if (!isCompactFieldsText(text))
                    return false;
                entry.fieldsV1 = shared(text);
                return true;
            }
            return skip();
        });
    }

    bool finalizers(models::ObjectSummary &summary)
    {
        if (!m_scanner.consume('['))
            return false;
        if (m_scanner.consume(']'))
            return true;
        for (;;) {
            QString finalizer;
            if (!sharedString(&finalizer))
                return false;
            summary.finalizers << finalizer;
            if (m_scanner.consume(','))
                continue;
            return m_scanner.consume(']');
        }
    }

    bool labels(models::ObjectSummary &summary)
    {
        // Built as a std::map and handed to the QMap whole; the server writes the keys sorted,
        // so each goes in at the end.
        std::map<QString, QString> labels;
        const bool ok = members([&](QByteArrayView key) {
            for (const char c : key) {
                if (static_cast<unsigned char>(c) >= 0x80)
                    return false;
            }
            QString value;
            if (!sharedString(&value))
                return false;
            // A repeated key: the last value, as in the tree.
            labels.insert_or_assign(labels.end(), shared(key), std::move(value));
            return true;
        });
        summary.labels = QMap<QString, QString>(std::move(labels));
        return ok;
    }

    bool status(models::ObjectSummary &summary)
    {
        if (m_scanner.peekIs('n')) {
            QByteArrayView token;
            return m_scanner.value(&token, m_depth + 1) && token == "null";
        }
        if (!m_scanner.peekIs('{'))
            return false;
        summary.hasStatus = true;
        unsigned seen = 0;
        int count = 0;
        ++m_depth;
        const bool ok = members(
            [&](QByteArrayView key) {
                if (key == "observedGeneration")
                    return once(seen, 1) && integer(&summary.observedGeneration);
                if (key == "conditions")
                    return once(seen, 2) && conditions(summary);
                return skip();
            },
            &count);
        --m_depth;
        summary.statusFieldCount = count;
        return ok;
    }

    bool conditions(models::ObjectSummary &summary)
    {
        QByteArrayView value;
        if (!m_scanner.value(&value, m_depth + 2 + ScanOffset))
            return false;
        if (value == "null")
            return true;
        if (value.front() != '[')
            return false;
        const Json parsed = parseValue(value);
        if (!parsed.is_array())
            return false;
        for (const Json &entry : parsed) {
            // What fromJson reports as "not a condition" goes the general way.
            if (!entry.is_object())
                return false;
            const auto type = entry.find("type");
            const auto status = entry.find("status");
            if ((type != entry.end() && !type->is_string() && !type->is_null())
                || (status != entry.end() && !status->is_string() && !status->is_null()))
                return false;
        }
        summary.conditions = models::conditionsFromJsonLenient(parsed);
        return true;
    }

    models::jsonscan::Scanner m_scanner;
    StringPool *m_strings;
    int m_depth = 0;
};

// What fromJson needs of the members at ObjectSummary::readPaths(), read straight from the text
// with jsonscan into a small tree: a value at a path is taken whole, an object on the way to one
// is walked, everything else is only validated. It keeps what nlohmann's parser keeps (member
// names decoded, the last of repeated members) and what the reference reader (tests/oracle) keeps
// of odd shapes: an array on the way to a path is passed over, a scalar there kept, and the
// members of top-level status objects counted as they come, repeated ones too.
class TreeReader
{
public:
    struct Tree
    {
        Json root = Json::object();
        int statusKeys = 0;
        bool sawStatusObject = false;
    };

    // `relaxed`: jsonscan's bound one level looser (see read()).
    TreeReader(QByteArrayView json, const std::vector<Path> &paths, bool relaxed)
        : m_scanner(withoutBom(json))
        , m_paths(paths)
        , m_slack(relaxed ? ScanOffset - 1 : ScanOffset)
    { }

    // The tree, or nothing when the text is not read as an object here: then the text may be
    // invalid (findJsonObjectProblem says how), or hold scalars right below containers MaxDepth
    // deep, which jsonscan's bound refuses unless relaxed (a relaxed read would also let
    // containers one level too deep through, so it is only for text known to have none).
    std::optional<Tree> read()
    {
        Path path;
        if (!m_scanner.peekIs('{') || !object(m_tree.root, path, 1))
            return std::nullopt;
        m_scanner.skipWhitespace();
        if (!m_scanner.atEnd())
            return std::nullopt;
        return std::move(m_tree);
    }

private:
    enum class Decision { Keep, Descend, Skip };

    // nlohmann's parser skips a UTF-8 byte order mark at the start.
    static QByteArrayView withoutBom(QByteArrayView json)
    {
        return json.startsWith("\xEF\xBB\xBF") ? json.sliced(3) : json;
    }

    Decision classify(const Path &path) const
    {
        bool prefix = false;
        for (const Path &wanted : m_paths) {
            if (path.size() > wanted.size()
                || !std::equal(path.begin(), path.end(), wanted.begin()))
                continue;
            if (path.size() == wanted.size())
                return Decision::Keep;
            prefix = true;
        }
        return prefix ? Decision::Descend : Decision::Skip;
    }

    // A member name as nlohmann decodes it; unescaped names as they are (no UTF-8 check: a name
    // that is not UTF-8 cannot be one that is kept).
    static bool memberName(QByteArrayView token, std::string &name)
    {
        const QByteArrayView inner = token.sliced(1, token.size() - 2);
        if (!inner.contains('\\')) {
            name.assign(inner.data(), size_t(inner.size()));
            return true;
        }
        const Json decoded = Json::parse(token.begin(), token.end(), nullptr, false);
        if (!decoded.is_string())
            return false;
        name = decoded.get_ref<const std::string &>();
        return true;
    }

    static bool parse(QByteArrayView token, Json &out)
    {
        if (plainValue(token, out, 0))
            return true;
        out = Json::parse(token.begin(), token.end(), nullptr, false);
        return !out.is_discarded();
    }

    // The object at the scanner, at `path`, `level` containers deep (the root is 1), into target.
    bool object(Json &target, Path &path, int level)
    {
        if (std::size_t(level) > MaxDepth || !m_scanner.consume('{'))
            return false;
        if (m_scanner.consume('}'))
            return true;
        const bool topStatus = level == 2 && path.size() == 1 && path.front() == "status";
        for (;;) {
            m_scanner.skipWhitespace();
            QByteArrayView token;
            std::string name;
            if (!m_scanner.string(&token) || !m_scanner.consume(':') || !memberName(token, name))
                return false;
            if (topStatus)
                ++m_tree.statusKeys;
            path.push_back(std::move(name));
            const bool ok = member(target, path, level + 1);
            path.pop_back();
            if (!ok)
                return false;
            if (m_scanner.consume(','))
                continue;
            return m_scanner.consume('}');
        }
    }

    // The value of the member path.back() of target, `level` deep were it a container.
    bool member(Json &target, Path &path, int level)
    {
        const Decision decision = classify(path);
        if (decision == Decision::Skip)
            return m_scanner.value(nullptr, level + m_slack);
        const bool topStatus = level == 2 && path.back() == "status";
        if (decision == Decision::Descend && m_scanner.peekIs('{')) {
            Json &slot = target[path.back()];
            slot = Json::object();
            m_tree.sawStatusObject |= topStatus;
            return object(slot, path, level);
        }
        QByteArrayView token;
        if (!m_scanner.value(&token, level + m_slack))
            return false;
        if (decision == Decision::Descend && token.front() == '[')
            return true;
        Json value;
        if (!parse(token, value))
            return false;
        if (topStatus && value.is_object()) {
            m_tree.sawStatusObject = true;
            models::jsonscan::forEachMember(token, [this](QByteArrayView, QByteArrayView) {
                ++m_tree.statusKeys;
                return true;
            });
        }
        target[path.back()] = std::move(value);
        return true;
    }

    models::jsonscan::Scanner m_scanner;
    const std::vector<Path> &m_paths;
    int m_slack;
    Tree m_tree;
};

QString problemText(const models::JsonObjectProblem &problem)
{
    switch (problem.kind) {
    case models::JsonObjectProblem::Kind::NotAnObject:
        return u"expected a JSON object, got %1"_s.arg(QString::fromStdString(problem.type));
    case models::JsonObjectProblem::Kind::TooDeep:
        return u"JSON nested deeper than %1 levels"_s.arg(MaxDepth);
    case models::JsonObjectProblem::Kind::Syntax:
        break;
    }
    return u"invalid JSON at byte %1: %2"_s.arg(problem.syntax.position)
        .arg(QString::fromStdString(problem.syntax.what));
}

// Any object as ObjectSummary::fromJson reads its tree; invalid text refused in the words of
// the reference reader.
models::Result<models::ObjectSummary> readGeneral(QByteArrayView json,
                                                  const std::vector<Path> &paths,
                                                  const models::LifecycleMapping &mapping)
{
    std::optional<TreeReader::Tree> tree = TreeReader(json, paths, false).read();
    if (!tree) {
        if (const auto problem = models::findJsonObjectProblem(json, MaxDepth))
            return models::Result<models::ObjectSummary>::failure(problemText(*problem));
        tree = TreeReader(json, paths, true).read();
        if (!tree)
            return models::Result<models::ObjectSummary>::failure(u"invalid JSON"_s);
    }
    auto summary = models::ObjectSummary::fromJson(tree->root, mapping);
    if (summary && tree->sawStatusObject)
        summary->statusFieldCount = tree->statusKeys;
    return summary;
}

} // namespace

ObjectSummarizer::ObjectSummarizer(const models::LifecycleMapping &mapping)
    : m_mapping(mapping)
    , m_paths(models::ObjectSummary::readPaths(mapping))
    , m_plain(mapping.projectedPaths().isEmpty())
{ }

models::Result<models::ObjectSummary> ObjectSummarizer::summarize(QByteArrayView json,
                                                                  StringPool *strings) const
{
    if (m_plain) {
        models::ObjectSummary summary;
        if (PlainReader(json, strings).read(summary)) {
            if (strings)
                strings->internStatus(summary);
            return summary;
        }
    }
    // Anything else (projected paths, names with escapes, a deletion, an unusual shape, invalid
    // text): the general path, which also says what is wrong.
    auto summary = readGeneral(json, m_paths, m_mapping);
    if (summary && strings)
        strings->intern(*summary);
    return summary;
}

} // namespace reconscope::controller::kube
