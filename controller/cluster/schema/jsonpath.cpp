#include "controller/cluster/schema/jsonpath.h"

#include <QString>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

struct Step;
using Steps = std::vector<Step>;

struct FieldStep
{
    std::vector<std::string> names; // one or more (a union); "*" = all values
    bool wildcard = false;
};

struct ArrayStep
{
    // A list of single indices, or one slice.
    std::vector<std::int64_t> indices;
    bool slice = false;
    std::optional<std::int64_t> start, end;
    std::int64_t step = 1;
    bool wildcard = false;
};

struct Operand
{
    bool isPath = false;
    Steps path; // relative to @
    json literal;
};

struct FilterStep
{
    Operand left;
    std::string op; // empty: existence
    Operand right;
};

struct Step
{
    bool recursive = false; // `..` before this step
    std::variant<FieldStep, ArrayStep, FilterStep> kind;
};

class Parser
{
public:
    explicit Parser(std::string text)
        : m_text(std::move(text))
    { }

    std::optional<Steps> parse()
    {
        trim();
        if (!m_text.empty() && m_text.front() == '{') {
            if (m_text.back() != '}')
                return std::nullopt;
            m_text = m_text.substr(1, m_text.size() - 2);
            trim();
        }
        if (!m_text.empty() && m_text.front() == '$')
            ++m_pos;
        Steps steps;
        if (!parseSteps(steps, false))
            return std::nullopt;
        if (m_pos != m_text.size())
            return std::nullopt;
        return steps;
    }

private:
    void trim()
    {
        const auto first = m_text.find_first_not_of(" \t\n");
        const auto last = m_text.find_last_not_of(" \t\n");
        m_text
            = first == std::string::npos ? std::string() : m_text.substr(first, last - first + 1);
    }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek(std::size_t ahead = 0) const
    {
        return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
    }
    // Steps over `c` if it is next.
    bool consume(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }
    // The closing ']' of a bracketed step of this kind.
    template<typename Kind>
    bool closeStep(Step &step, Kind kind)
    {
        if (!consume(']'))
            return false;
        step.kind = std::move(kind);
        return true;
    }
    void skipSpaces()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t'))
            ++m_pos;
    }

    static bool isTerminator(char c)
    {
        return c == '.' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '(' || c == ')'
            || c == '=' || c == '!' || c == '<' || c == '>' || c == ',' || c == '{' || c == '}'
            || c == '\0';
    }

    // Steps until the end, or (inside a filter) until an operator or ')'.
    bool parseSteps(Steps &steps, bool inFilter)
    {
        while (!atEnd()) {
            const char c = peek();
            if (inFilter && (c == ')' || c == ' ' || c == '=' || c == '!' || c == '<' || c == '>'))
                return true;
            bool recursive = false;
            if (c == '.' && peek(1) == '.') {
                recursive = true;
                m_pos += 2;
                if (peek() == '[') {
                    Step step;
                    if (!parseBracket(step))
                        return false;
                    step.recursive = true;
                    steps.push_back(std::move(step));
                    continue;
                }
            } else if (c == '.') {
                ++m_pos;
                if (atEnd() && steps.empty() && !inFilter)
                    return true; // "." alone: the object itself
            } else if (c == '[') {
                Step step;
                if (!parseBracket(step))
                    return false;
                steps.push_back(std::move(step));
                continue;
            } else {
                return false;
            }
            const std::size_t start = m_pos;
            while (!isTerminator(peek()))
                ++m_pos;
            const std::string name = m_text.substr(start, m_pos - start);
            if (name.empty())
                return false;
            Step step;
            step.recursive = recursive;
            FieldStep field;
            field.wildcard = name == "*";
            field.names.push_back(name);
            step.kind = field;
            steps.push_back(std::move(step));
        }
        return true;
    }

    bool parseQuoted(std::string &out)
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            return false;
        ++m_pos;
        out.clear();
        while (!atEnd() && peek() != quote) {
            if (peek() == '\\' && m_pos + 1 < m_text.size()) {
                ++m_pos;
            }
            out.push_back(peek());
            ++m_pos;
        }
        if (atEnd())
            return false;
        ++m_pos;
        return true;
    }

    bool parseInteger(std::int64_t &out)
    {
        skipSpaces();
        const std::size_t start = m_pos;
        if (peek() == '-' || peek() == '+')
            ++m_pos;
        while (peek() >= '0' && peek() <= '9')
            ++m_pos;
        if (m_pos == start
            || (m_pos == start + 1 && (m_text[start] == '-' || m_text[start] == '+')))
            return false;
        const char *first = m_text.data() + start + (m_text[start] == '+' ? 1 : 0);
        const auto [end, error] = std::from_chars(first, m_text.data() + m_pos, out);
        if (error != std::errc() || end != m_text.data() + m_pos)
            return false; // out of range

        skipSpaces();
        return true;
    }

    // A bracketed step: a filter, quoted names or array indices/slices.
    bool parseBracket(Step &step)
    {
        ++m_pos; // '['
        skipSpaces();
        if (peek() == '?')
            return parseFilter(step);
        if (peek() == '\'' || peek() == '"')
            return parseQuotedNames(step);
        ArrayStep array;
        if (peek() == '*') {
            ++m_pos;
            skipSpaces();
            array.wildcard = true;
        } else if (!parseIndices(array)) {
            return false;
        }
        skipSpaces();
        return closeStep(step, std::move(array));
    }

    // `?(@.x <op> value)]` or `?(@.x)]`.
    bool parseFilter(Step &step)
    {
        ++m_pos; // '?'
        skipSpaces();
        if (!consume('('))
            return false;
        FilterStep filter;
        if (!parseOperand(filter.left))
            return false;
        skipSpaces();
        static const char *ops[] = { "==", "!=", "<=", ">=", "<", ">" };
        for (const char *op : ops) {
            if (m_text.compare(m_pos, std::strlen(op), op) == 0) {
                filter.op = op;
                m_pos += std::strlen(op);
                break;
            }
        }
        if (!filter.op.empty()) {
            skipSpaces();
            if (!parseOperand(filter.right))
                return false;
            skipSpaces();
        }
        if (!consume(')'))
            return false;
        skipSpaces();
        return closeStep(step, std::move(filter));
    }

    // `'a', "b"]`.
    bool parseQuotedNames(Step &step)
    {
        FieldStep field;
        for (;;) {
            std::string name;
            if (!parseQuoted(name))
                return false;
            field.names.push_back(name);
            skipSpaces();
            if (peek() == ',') {
                ++m_pos;
                skipSpaces();
                continue;
            }
            break;
        }
        return closeStep(step, std::move(field));
    }

    // `a:b:c` (each part optional, c not 0) or `i, j, ...`, up to the closing bracket.
    bool parseIndices(ArrayStep &array)
    {
        std::int64_t first = 0;
        const bool hasFirst = parseInteger(first);
        if (peek() == ':') {
            array.slice = true;
            if (hasFirst)
                array.start = first;
            ++m_pos;
            std::int64_t second = 0;
            if (parseInteger(second))
                array.end = second;
            if (peek() == ':') {
                ++m_pos;
                std::int64_t third = 0;
                if (parseInteger(third)) {
                    if (third == 0)
                        return false;
                    array.step = third;
                }
            }
            return true;
        }
        if (!hasFirst)
            return false;
        array.indices.push_back(first);
        while (peek() == ',') {
            ++m_pos;
            std::int64_t next = 0;
            if (!parseInteger(next))
                return false;
            array.indices.push_back(next);
        }
        return true;
    }

    bool parseOperand(Operand &operand)
    {
        skipSpaces();
        const char c = peek();
        if (c == '@') {
            ++m_pos;
            operand.isPath = true;
            return parseSteps(operand.path, true);
        }
        if (c == '\'' || c == '"') {
            std::string text;
            if (!parseQuoted(text))
                return false;
            operand.literal = text;
            return true;
        }
        const std::size_t start = m_pos;
        while (!atEnd() && peek() != ')' && peek() != ' ')
            ++m_pos;
        const std::string token = m_text.substr(start, m_pos - start);
        if (token == "true" || token == "false") {
            operand.literal = token == "true";
            return true;
        }
        if (token == "nil" || token == "null") {
            operand.literal = nullptr;
            return true;
        }
        json number = json::parse(token, nullptr, false);
        if (number.is_discarded() || !number.is_number())
            return false;
        operand.literal = number;
        return true;
    }

    std::string m_text;
    std::size_t m_pos = 0;
};

void collectDescendants(const json &value, std::vector<const json *> &out)
{
    out.push_back(&value);
    if (value.is_object() || value.is_array()) {
        for (const json &child : value)
            collectDescendants(child, out);
    }
}

std::vector<const json *> evaluate(const Steps &steps, std::vector<const json *> current);

int compare(const json &a, const json &b, bool &comparable)
{
    comparable = true;
    if (a.is_number() && b.is_number()) {
        if (a.is_number_integer() && b.is_number_integer()) {
            const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
            return x < y ? -1 : (x > y ? 1 : 0);
        }
        const double x = a.get<double>(), y = b.get<double>();
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.is_string() && b.is_string())
        return a.get_ref<const std::string &>().compare(b.get_ref<const std::string &>()) < 0
            ? -1
            : (a == b ? 0 : 1);
    if (a.type() == b.type() && (a.is_boolean() || a.is_null()))
        return a == b ? 0 : 1;
    comparable = false;
    return 1;
}

bool passes(const FilterStep &filter, const json &item)
{
    const auto left = filter.left.isPath ? evaluate(filter.left.path, { &item })
                                         : std::vector<const json *>{ &filter.left.literal };
    if (filter.op.empty())
        return !left.empty();
    if (left.size() != 1)
        return false;
    const auto right = filter.right.isPath ? evaluate(filter.right.path, { &item })
                                           : std::vector<const json *>{ &filter.right.literal };
    if (right.size() != 1)
        return false;
    bool comparable = false;
    const int c = compare(*left.front(), *right.front(), comparable);
    if (filter.op == "==")
        return comparable && c == 0;
    if (filter.op == "!=")
        return !comparable || c != 0;
    if (!comparable || left.front()->is_boolean() || left.front()->is_null())
        return false;
    if (filter.op == "<")
        return c < 0;
    if (filter.op == "<=")
        return c <= 0;
    if (filter.op == ">")
        return c > 0;
    return c >= 0;
}

void applyStep(const Step &step, const json &value, std::vector<const json *> &out)
{
    if (const auto *field = std::get_if<FieldStep>(&step.kind)) {
        if (field->wildcard) {
            if (value.is_object() || value.is_array()) {
                for (const json &child : value)
                    out.push_back(&child);
            }
            return;
        }
        if (!value.is_object())
            return;
        for (const std::string &name : field->names) {
            if (auto it = value.find(name); it != value.end())
                out.push_back(&*it);
        }
        return;
    }
    if (const auto *array = std::get_if<ArrayStep>(&step.kind)) {
        if (array->wildcard) {
            if (value.is_object() || value.is_array()) {
                for (const json &child : value)
                    out.push_back(&child);
            }
            return;
        }
        if (!value.is_array())
            return;
        const auto size = static_cast<std::int64_t>(value.size());
        if (!array->slice) {
            for (std::int64_t index : array->indices) {
                if (index < 0)
                    index += size;
                if (index >= 0 && index < size)
                    out.push_back(&value[static_cast<std::size_t>(index)]);
            }
            return;
        }
        const auto clamp = [size](std::int64_t i) {
            if (i < 0)
                i += size;
            return std::clamp<std::int64_t>(i, 0, size);
        };
        // Steps may be huge: advance without overflowing.
        const std::int64_t step_ = array->step;
        if (step_ > 0) {
            const std::int64_t start = array->start ? clamp(*array->start) : 0;
            const std::int64_t end = array->end ? clamp(*array->end) : size;
            for (std::int64_t i = start; i < end;) {
                out.push_back(&value[static_cast<std::size_t>(i)]);
                if (end - i <= step_)
                    break;
                i += step_;
            }
        } else {
            const std::int64_t back
                = step_ == std::numeric_limits<std::int64_t>::min() ? size + 1 : -step_;
            const std::int64_t start
                = array->start ? std::min(clamp(*array->start), size - 1) : size - 1;
            const std::int64_t end = array->end ? clamp(*array->end) : -1;
            for (std::int64_t i = start; i > end && i >= 0;) {
                out.push_back(&value[static_cast<std::size_t>(i)]);
                if (i - end <= back)
                    break;
                i -= back;
            }
        }
        return;
    }
    const auto &filter = std::get<FilterStep>(step.kind);
    if (!value.is_array())
        return;
    for (const json &item : value) {
        if (passes(filter, item))
            out.push_back(&item);
    }
}

std::vector<const json *> evaluate(const Steps &steps, std::vector<const json *> current)
{
    for (const Step &step : steps) {
        std::vector<const json *> next;
        for (const json *value : current) {
            if (step.recursive) {
                std::vector<const json *> all;
                collectDescendants(*value, all);
                for (const json *descendant : all)
                    applyStep(step, *descendant, next);
            } else {
                applyStep(step, *value, next);
            }
        }
        current = std::move(next);
        if (current.empty())
            break;
    }
    return current;
}

} // namespace

QList<json> evaluateJsonPath(QStringView path, const json &object)
{
    Parser parser(path.toString().toStdString());
    const std::optional<Steps> steps = parser.parse();
    if (!steps)
        return {};
    QList<json> results;
    for (const json *value : evaluate(*steps, { &object }))
        results.append(*value);
    return results;
}

bool isValidJsonPath(QStringView path)
{
    Parser parser(path.toString().toStdString());
    return parser.parse().has_value();
}

} // namespace reconscope::controller::cluster
