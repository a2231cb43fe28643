#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>

// A validating JSON skimmer that builds no tree: it walks the members of an object or the elements
// of an array and hands out the raw bytes of each value. The client's watch decoder, list decoder,
// metadata peek and summary reader use it to find "type", "object", "items", "metadata" and the
// members a summary reads without parsing whole objects.
namespace reconscope::models::jsonscan {

class Scanner
{
public:
    explicit Scanner(QByteArrayView text)
        : m_p(text.data())
        , m_end(text.data() + text.size())
    { }

    bool atEnd() const { return m_p == m_end; }
    const char *position() const { return m_p; }

    void skipWhitespace()
    {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
    }
    bool consume(char c)
    {
        skipWhitespace();
        if (m_p == m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }
    bool peekIs(char c)
    {
        skipWhitespace();
        return m_p != m_end && *m_p == c;
    }

    // Validates one value and returns its bytes (a string token keeps its quotes).
    bool value(QByteArrayView *out, int depth = 0);
    bool string(QByteArrayView *out);

private:
    bool number();
    bool literal(const char *word, qsizetype length);

    const char *m_p;
    const char *m_end;
};

// Calls fn(key, value) for each member of the object `text`; fn returns false to stop early.
// key is the raw token content between the quotes (escapes undecoded). Returns false when the
// text is not a valid object (only the part read so far is checked when fn stops early).
template<typename Fn>
bool forEachMember(QByteArrayView text, Fn &&fn)
{
    Scanner scanner(text);
    if (!scanner.consume('{'))
        return false;
    if (scanner.consume('}')) {
        scanner.skipWhitespace();
        return scanner.atEnd();
    }
    for (;;) {
        scanner.skipWhitespace();
        QByteArrayView key;
        QByteArrayView value;
        if (!scanner.string(&key) || !scanner.consume(':') || !scanner.value(&value, 1))
            return false;
        if (!fn(key.sliced(1, key.size() - 2), value))
            return true;
        if (scanner.consume(','))
            continue;
        if (!scanner.consume('}'))
            return false;
        scanner.skipWhitespace();
        return scanner.atEnd();
    }
}

// Calls member(key) for each member of the object at `scanner` (key as forEachMember gives it);
// member reads the value from the scanner itself (value(), or forEachMemberAt to descend into
// it, so that a member read is scanned once) and returns false when that fails. Returns whether
// the object was valid; the scanner is then past its closing brace.
template<typename Fn>
bool forEachMemberAt(Scanner &scanner, Fn &&member)
{
    if (!scanner.consume('{'))
        return false;
    if (scanner.consume('}'))
        return true;
    for (;;) {
        scanner.skipWhitespace();
        QByteArrayView key;
        if (!scanner.string(&key) || !scanner.consume(':')
            || !member(key.sliced(1, key.size() - 2)))
            return false;
        if (!scanner.consume(','))
            return scanner.consume('}');
    }
}

// Calls fn(element) for each element of the array `text`.
template<typename Fn>
bool forEachElement(QByteArrayView text, Fn &&fn)
{
    Scanner scanner(text);
    if (!scanner.consume('['))
        return false;
    if (scanner.consume(']')) {
        scanner.skipWhitespace();
        return scanner.atEnd();
    }
    for (;;) {
        QByteArrayView value;
        if (!scanner.value(&value, 1))
            return false;
        if (!fn(value))
            return true;
        if (scanner.consume(','))
            continue;
        if (!scanner.consume(']'))
            return false;
        scanner.skipWhitespace();
        return scanner.atEnd();
    }
}

// A complete, valid JSON text (one value, surrounding whitespace allowed).
bool isValid(QByteArrayView text);

// The value of a string token (with its quotes), escapes decoded; nullopt if not a string.
std::optional<QString> toString(QByteArrayView token);
// An integer token, exactly (never through double); nullopt for anything else.
std::optional<std::int64_t> toInt64(QByteArrayView token);

} // namespace reconscope::models::jsonscan
