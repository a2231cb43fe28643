#include "models/gojson.h"

#include <cstdio>
#include <vector>

namespace reconscope::models {

namespace {

// Go's strconv.Quote of string(rune(c)) between single quotes, as scanner.go's quoteChar: a byte
// is taken for the code point of the same value.
std::string quoteChar(unsigned char c)
{
    if (c == '\'')
        return R"('\'')";
    if (c == '"')
        return R"('"')";
    static const char *const named[] = { "\\a", "\\b", "\\t", "\\n", "\\v", "\\f", "\\r" };
    std::string inner;
    if (c >= 0x07 && c <= 0x0d) {
        inner = named[c - 0x07];
    } else if (c == '\\') {
        inner = "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(c));
        inner = buffer;
    } else if (c < 0x80) {
        inner = char(c);
    } else if (c < 0xa1 || c == 0xad) { // C1 controls, NBSP and soft hyphen are not printable
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(c));
        inner = buffer;
    } else { // U+00A1..U+00FF in UTF-8
        inner = { char(0xc0 | (c >> 6)), char(0x80 | (c & 0x3f)) };
    }
    return '\'' + inner + '\'';
}

bool isSpace(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool isHex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A port of encoding/json's scanner.go: one state per step function, the same transitions and
// the same error contexts.
class Scanner
{
public:
    // False once the byte is refused; error() then holds the message.
    bool step(unsigned char c)
    {
        switch (m_state) {
        case State::BeginValueOrEmpty:
            if (isSpace(c))
                return true;
            if (c == ']')
                return endValue(c);
            return beginValue(c);
        case State::BeginValue:
            return beginValue(c);
        case State::BeginStringOrEmpty:
            if (isSpace(c))
                return true;
            if (c == '}') {
                m_stack.back() = Parse::ObjectValue;
                return endValue(c);
            }
            return beginString(c);
        case State::BeginString:
            return beginString(c);
        case State::EndValue:
            return endValue(c);
        case State::EndTop:
            return isSpace(c) || fail(c, "after top-level value");
        case State::InString:
            return inString(c);
        case State::InStringEsc:
            if (std::string_view("bfnrt\\/\"").find(char(c)) != std::string_view::npos)
                return to(State::InString);
            if (c == 'u')
                return to(State::EscU1);
            return fail(c, "in string escape code");
        case State::EscU1:
        case State::EscU2:
        case State::EscU3:
        case State::EscU4:
            if (!isHex(c))
                return fail(c, "in \\u hexadecimal character escape");
            return to(m_state == State::EscU4 ? State::InString : State(int(m_state) + 1));
        case State::Neg:
            if (c == '0')
                return to(State::Zero);
            if (c >= '1' && c <= '9')
                return to(State::One);
            return fail(c, "in numeric literal");
        case State::One:
            if (c >= '0' && c <= '9')
                return true;
            return zero(c);
        case State::Zero:
            return zero(c);
        case State::Dot:
            if (c >= '0' && c <= '9')
                return to(State::Dot0);
            return fail(c, "after decimal point in numeric literal");
        case State::Dot0:
            if (c >= '0' && c <= '9')
                return true;
            if (c == 'e' || c == 'E')
                return to(State::E);
            return endValue(c);
        case State::E:
            if (c == '+' || c == '-')
                return to(State::ESign);
            return eSign(c);
        case State::ESign:
            return eSign(c);
        case State::E0:
            if (c >= '0' && c <= '9')
                return true;
            return endValue(c);
        case State::Literal:
            return literal(c);
        case State::Error:
            return false;
        }
        return false;
    }

    // Go's scanner.eof(): the end of the input is a space; a value left open is an error.
    bool end()
    {
        if (m_state == State::Error)
            return false;
        if (m_endTop)
            return true;
        step(' ');
        if (m_endTop)
            return true;
        if (m_error.empty())
            m_error = "unexpected end of JSON input";
        return false;
    }

    const std::string &error() const { return m_error; }

private:
    enum class State {
        BeginValueOrEmpty,
        BeginValue,
        BeginStringOrEmpty,
        BeginString,
        EndValue,
        EndTop,
        InString,
        InStringEsc,
        EscU1,
        EscU2,
        EscU3,
        EscU4,
        Neg,
        One,
        Zero,
        Dot,
        Dot0,
        E,
        ESign,
        E0,
        Literal, // the rest of true, false or null, m_literal from m_literalAt on
        Error,
    };
    enum class Parse { ObjectKey, ObjectValue, ArrayValue };
    static constexpr std::size_t kMaxNestingDepth = 10000;

    bool to(State state)
    {
        m_state = state;
        return true;
    }

    bool fail(unsigned char c, std::string_view context)
    {
        m_state = State::Error;
        m_error = "invalid character " + quoteChar(c) + ' ' + std::string(context);
        return false;
    }

    bool push(unsigned char c, Parse parse, State next)
    {
        m_state = next;
        m_stack.push_back(parse);
        return m_stack.size() <= kMaxNestingDepth || fail(c, "exceeded max depth");
    }

    void pop()
    {
        m_stack.pop_back();
        if (m_stack.empty()) {
            m_state = State::EndTop;
            m_endTop = true;
        } else {
            m_state = State::EndValue;
        }
    }

    bool beginValue(unsigned char c)
    {
        if (isSpace(c))
            return true;
        switch (c) {
        case '{':
            return push(c, Parse::ObjectKey, State::BeginStringOrEmpty);
        case '[':
            return push(c, Parse::ArrayValue, State::BeginValueOrEmpty);
        case '"':
            return to(State::InString);
        case '-':
            return to(State::Neg);
        case '0':
            return to(State::Zero);
        case 't':
            return startLiteral("true");
        case 'f':
            return startLiteral("false");
        case 'n':
            return startLiteral("null");
        default:
            if (c >= '1' && c <= '9')
                return to(State::One);
            return fail(c, "looking for beginning of value");
        }
    }

    bool beginString(unsigned char c)
    {
        if (isSpace(c))
            return true;
        if (c == '"')
            return to(State::InString);
        return fail(c, "looking for beginning of object key string");
    }

    bool endValue(unsigned char c)
    {
        if (m_stack.empty()) {
            m_state = State::EndTop;
            m_endTop = true;
            return step(c);
        }
        if (isSpace(c))
            return to(State::EndValue);
        switch (m_stack.back()) {
        case Parse::ObjectKey:
            if (c == ':') {
                m_stack.back() = Parse::ObjectValue;
                return to(State::BeginValue);
            }
            return fail(c, "after object key");
        case Parse::ObjectValue:
            if (c == ',') {
                m_stack.back() = Parse::ObjectKey;
                return to(State::BeginString);
            }
            if (c == '}') {
                pop();
                return true;
            }
            return fail(c, "after object key:value pair");
        case Parse::ArrayValue:
            if (c == ',')
                return to(State::BeginValue);
            if (c == ']') {
                pop();
                return true;
            }
            return fail(c, "after array element");
        }
        return fail(c, "");
    }

    bool inString(unsigned char c)
    {
        if (c == '"')
            return to(State::EndValue);
        if (c == '\\')
            return to(State::InStringEsc);
        if (c < 0x20)
            return fail(c, "in string literal");
        return true;
    }

    bool zero(unsigned char c)
    {
        if (c == '.')
            return to(State::Dot);
        if (c == 'e' || c == 'E')
            return to(State::E);
        return endValue(c);
    }

    bool eSign(unsigned char c)
    {
        if (c >= '0' && c <= '9')
            return to(State::E0);
        return fail(c, "in exponent of numeric literal");
    }

    bool startLiteral(std::string_view word)
    {
        m_literal = word;
        m_literalAt = 1;
        return to(State::Literal);
    }

    bool literal(unsigned char c)
    {
        const char expected = m_literal[m_literalAt];
        if (c != (unsigned char)expected) {
            return fail(c,
                        "in literal " + std::string(m_literal) + " (expecting '" + expected + "')");
        }
        if (++m_literalAt == m_literal.size())
            m_state = State::EndValue;
        return true;
    }

    State m_state = State::BeginValue;
    std::vector<Parse> m_stack;
    bool m_endTop = false;
    std::string_view m_literal;
    std::size_t m_literalAt = 0;
    std::string m_error;
};

} // namespace

std::optional<std::string> goJsonSyntaxError(QByteArrayView text)
{
    Scanner scanner;
    for (const char c : text) {
        if (!scanner.step((unsigned char)c))
            return scanner.error();
    }
    if (!scanner.end())
        return scanner.error();
    return std::nullopt;
}

std::string_view goJsonValueType(QByteArrayView text)
{
    for (const char c : text) {
        switch (c) {
        case ' ':
        case '\t':
        case '\r':
        case '\n':
            continue;
        case '{':
            return "object";
        case '[':
            return "array";
        case '"':
            return "string";
        case 't':
        case 'f':
            return "bool";
        case 'n':
            return "null";
        default:
            return "number";
        }
    }
    return "null";
}

std::optional<std::string>
goUnmarshalError(QByteArrayView text, std::string_view accepts, std::string_view goType)
{
    if (auto syntax = goJsonSyntaxError(text))
        return syntax;
    const std::string_view type = goJsonValueType(text);
    if (type == accepts || type == "null")
        return std::nullopt;
    return "json: cannot unmarshal " + std::string(type) + " into Go value of type "
        + std::string(goType);
}

} // namespace reconscope::models
