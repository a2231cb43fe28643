#include "models/jsonsyntax.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace reconscope::models {

namespace {

// Accepts every value; records the first syntax error. With `object`, also the first value that
// makes the text something else than one object nested at most maxDepth deep.
class SyntaxCheck final : public nlohmann::json_sax<nlohmann::json>
{
public:
    explicit SyntaxCheck(bool object = false, std::size_t maxDepth = 0)
        : m_object(object)
        , m_maxDepth(maxDepth)
    { }

    bool null() override { return scalar("null"); }
    bool boolean(bool) override { return scalar("boolean"); }
    bool number_integer(number_integer_t) override { return scalar("number"); }
    bool number_unsigned(number_unsigned_t) override { return scalar("number"); }
    bool number_float(number_float_t, const string_t &) override { return scalar("number"); }
    bool string(string_t &) override { return scalar("string"); }
    bool binary(binary_t &) override { return scalar("binary"); }
    bool start_object(std::size_t) override { return open("object"); }
    bool key(string_t &) override { return true; }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open("array"); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position,
                     const std::string &,
                     const nlohmann::detail::exception &ex) override
    {
        report(JsonObjectProblem::Kind::Syntax);
        problem->syntax.position = position;
        problem->syntax.what = ex.what();
        return false;
    }

    std::optional<JsonObjectProblem> problem;

private:
    void report(JsonObjectProblem::Kind kind)
    {
        problem.emplace();
        problem->kind = kind;
    }
    bool scalar(const char *type)
    {
        if (!m_object || m_open > 0)
            return true;
        report(JsonObjectProblem::Kind::NotAnObject);
        problem->type = type;
        return false;
    }
    bool open(const char *type)
    {
        if (m_object && m_open == 0 && std::string_view(type) != "object") {
            report(JsonObjectProblem::Kind::NotAnObject);
            problem->type = type;
            return false;
        }
        if (m_object && m_open >= m_maxDepth) {
            report(JsonObjectProblem::Kind::TooDeep);
            return false;
        }
        ++m_open;
        return true;
    }
    bool close()
    {
        --m_open;
        return true;
    }

    bool m_object;
    std::size_t m_maxDepth;
    std::size_t m_open = 0;
};

// A NUL byte where nlohmann's parse of `text` ended without a problem (see findJsonSyntaxError).
std::optional<JsonObjectProblem> nulAfterValue(QByteArrayView text)
{
    const qsizetype nul = text.indexOf('\0');
    if (nul < 0)
        return std::nullopt;
    JsonObjectProblem problem;
    problem.syntax.position = std::size_t(nul) + 1;
    problem.syntax.what = "[json.exception.parse_error.101] parse error at byte "
        + std::to_string(nul + 1)
        + ": syntax error while parsing value - invalid character NUL after "
          "the top-level value; expected end of input";
    return problem;
}

} // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(QByteArrayView text)
{
    SyntaxCheck check;
    nlohmann::json::sax_parse(text.begin(), text.end(), &check);
    if (!check.problem)
        check.problem = nulAfterValue(text);
    if (!check.problem)
        return std::nullopt;
    return check.problem->syntax;
}

std::optional<JsonObjectProblem> findJsonObjectProblem(QByteArrayView text, std::size_t maxDepth)
{
    SyntaxCheck check(true, maxDepth);
    nlohmann::json::sax_parse(text.begin(), text.end(), &check);
    if (!check.problem)
        check.problem = nulAfterValue(text);
    return check.problem;
}

std::string compactJson(const nlohmann::json &value)
{
    // One frame per open container: where its next member is, and whether one was written.
    struct Frame
    {
        const nlohmann::json *container;
        nlohmann::json::const_iterator next;
    };
    std::string out;
    std::vector<Frame> open;
    const nlohmann::json *pending = &value;
    for (;;) {
        if (pending) {
            if (pending->is_structured() && !pending->empty()) {
                out += pending->is_object() ? '{' : '[';
                open.push_back({ pending, pending->cbegin() });
            } else {
                out += pending->dump();
            }
            pending = nullptr;
        }
        if (open.empty())
            return out;
        Frame &frame = open.back();
        if (frame.next == frame.container->cend()) {
            out += frame.container->is_object() ? '}' : ']';
            open.pop_back();
            continue;
        }
        if (frame.next != frame.container->cbegin())
            out += ',';
        if (frame.container->is_object()) {
            out += nlohmann::json(frame.next.key()).dump();
            out += ':';
        }
        pending = &*frame.next;
        ++frame.next;
    }
}

} // namespace reconscope::models
