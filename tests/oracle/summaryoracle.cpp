#include "tests/oracle/summaryoracle.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace Qt::StringLiterals;

namespace reconscope::tests {

namespace {

using Json = nlohmann::json;
using Path = std::vector<std::string>;

QString typeName(const Json &json)
{
    return QString::fromUtf8(json.type_name());
}

// Keeps of a streamed object only the paths a summary needs (SAX; the skipped parts are never
// materialised). Arrays are kept or skipped whole.
class SummarySax
{
public:
    // The nesting limit of Go's encoding/json, which Kubernetes' JSON decoding inherits.
    static constexpr std::size_t MaxDepth = 10000;

    explicit SummarySax(std::vector<Path> paths)
        : m_paths(std::move(paths))
    { }

    Json root;
    int statusKeys = 0;
    bool sawStatusObject = false;
    QString error;

    bool null() { return scalar(Json(nullptr)); }
    bool boolean(bool value) { return scalar(Json(value)); }
    bool number_integer(Json::number_integer_t value) { return scalar(Json(value)); }
    bool number_unsigned(Json::number_unsigned_t value) { return scalar(Json(value)); }
    bool number_float(Json::number_float_t value, const Json::string_t &)
    {
        return scalar(Json(value));
    }
    bool string(Json::string_t &value) { return scalar(Json(std::move(value))); }
    bool binary(Json::binary_t &) { return scalar(Json(nullptr)); }
    bool start_object(std::size_t) { return startContainer(true); }
    bool end_object() { return endContainer(); }
    bool start_array(std::size_t) { return startContainer(false); }
    bool end_array() { return endContainer(); }
    bool key(Json::string_t &key)
    {
        if (m_skipDepth > 0)
            return true;
        m_pendingKey = std::move(key);
        if (m_frames.size() == 2 && m_path.size() == 1 && m_path.front() == "status")
            ++statusKeys;
        return true;
    }
    bool
    parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        error = u"invalid JSON at byte %1: %2"_s.arg(position).arg(QString::fromUtf8(e.what()));
        return false;
    }

private:
    enum class Decision { Keep, Descend, Skip };
    struct Frame
    {
        Json *target;
        bool keepAll;
        bool isObject;
        bool pushedPath;
    };

    Decision classify(const Path &path) const
    {
        bool prefix = false;
        for (const Path &wanted : m_paths) {
            if (path.size() > wanted.size())
                continue;
            if (!std::equal(path.begin(), path.end(), wanted.begin()))
                continue;
            if (path.size() == wanted.size())
                return Decision::Keep;
            prefix = true;
        }
        return prefix ? Decision::Descend : Decision::Skip;
    }

    Decision decide()
    {
        const Frame &frame = m_frames.back();
        if (frame.keepAll)
            return Decision::Keep;
        if (!frame.isObject)
            return Decision::Skip;
        m_path.push_back(m_pendingKey);
        const Decision decision = classify(m_path);
        m_path.pop_back();
        return decision;
    }

    Json *insert(Json &&value)
    {
        Frame &frame = m_frames.back();
        if (frame.isObject) {
            Json &slot = (*frame.target)[m_pendingKey];
            slot = std::move(value);
            return &slot;
        }
        frame.target->push_back(std::move(value));
        return &frame.target->back();
    }

    bool scalar(Json &&value)
    {
        if (m_skipDepth > 0)
            return true;
        if (m_frames.empty()) {
            error = u"expected a JSON object, got %1"_s.arg(typeName(value));
            return false;
        }
        // Scalars on the way to a wanted path are small: keep them, so that a status that is a
        // string still reads as "not an object".
        if (decide() != Decision::Skip)
            insert(std::move(value));
        return true;
    }

    bool startContainer(bool isObject)
    {
        if (m_frames.size() + std::size_t(m_skipDepth) >= MaxDepth) {
            error = u"JSON nested deeper than %1 levels"_s.arg(MaxDepth);
            return false;
        }
        if (m_skipDepth > 0) {
            ++m_skipDepth;
            return true;
        }
        if (m_frames.empty()) {
            if (!isObject) {
                error = u"expected a JSON object, got array"_s;
                return false;
            }
            root = Json::object();
            m_frames.push_back({ &root, false, true, false });
            return true;
        }
        const Decision decision = decide();
        if (decision == Decision::Skip || (decision == Decision::Descend && !isObject)) {
            ++m_skipDepth;
            return true;
        }
        const bool parentIsObject = m_frames.back().isObject;
        Json *slot = insert(isObject ? Json::object() : Json::array());
        if (parentIsObject)
            m_path.push_back(m_pendingKey);
        if (isObject && m_frames.size() == 1 && m_pendingKey == "status")
            sawStatusObject = true;
        m_frames.push_back({ slot, decision == Decision::Keep, isObject, parentIsObject });
        return true;
    }

    bool endContainer()
    {
        if (m_skipDepth > 0) {
            --m_skipDepth;
            return true;
        }
        const Frame frame = m_frames.back();
        m_frames.pop_back();
        if (frame.pushedPath)
            m_path.pop_back();
        return true;
    }

    std::vector<Path> m_paths;
    std::vector<Frame> m_frames;
    Path m_path;
    std::string m_pendingKey;
    int m_skipDepth = 0;
};

} // namespace

models::Result<models::ObjectSummary> referenceSummary(QByteArrayView json,
                                                       const models::LifecycleMapping &mapping)
{
    SummarySax sax(models::ObjectSummary::readPaths(mapping));
    const char *begin = json.data();
    const char *end = begin + json.size();
    const bool parsed
        = Json::sax_parse(begin, end, &sax, nlohmann::detail::input_format_t::json, true);
    if (!parsed) {
        return models::Result<models::ObjectSummary>::failure(
            sax.error.isEmpty() ? u"invalid JSON"_s : sax.error);
    }
    // nlohmann stops at a NUL byte as at the end of the input; in JSON (and to Go) it is a
    // character after the value, which makes the text invalid.
    if (const qsizetype nul = json.indexOf('\0'); nul >= 0) {
        return models::Result<models::ObjectSummary>::failure(
            u"invalid JSON at byte %1: [json.exception.parse_error.101] parse error at byte %1: "
            "syntax error while parsing value - invalid character NUL after the top-level value; "
            "expected end of input"_s.arg(nul + 1));
    }
    auto summary = models::ObjectSummary::fromJson(sax.root, mapping);
    if (summary && sax.sawStatusObject)
        summary->statusFieldCount = sax.statusKeys;
    return summary;
}

} // namespace reconscope::tests
