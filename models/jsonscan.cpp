#include "models/jsonscan.h"

#include <nlohmann/json.hpp>

#include <charconv>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstdint>
#include <cstring>

namespace reconscope::models::jsonscan {

namespace {

// What a server may store is bounded by Go's decoder at 10000 levels (encoding/json's
// maxNestingDepth); a list wraps an object in two more, a watch event in one. Refusing less would
// let one legal object stop every watch of its resource (each restart meets it again).
constexpr int MaxDepth = 10000 + 2;

// The characters that follow a backslash in a two-character escape.
bool isShortEscape(char c)
{
    switch (c) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        return true;
    default:
        return false;
    }
}

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

} // namespace

bool Scanner::string(QByteArrayView *out)
{
    const char *start = m_p;
    if (m_p == m_end || *m_p != '"')
        return false;
    ++m_p;
    while (m_p != m_end) {
#if defined(__SSE2__)
        // Sixteen bytes at a time, straight to the first quote, backslash or control character.
        // Two-character escapes (a backslash and one of "\\/bfnrt) are stepped over within the
        // sixteen bytes, without leaving the loop: text that embeds JSON (a last-applied
        // configuration) has one every few bytes. Anything else (the closing quote, a control
        // character, \\u, an escape cut by the block's end) is left to the checks below.
        {
            const __m128i quote = _mm_set1_epi8('"');
            const __m128i backslash = _mm_set1_epi8('\\');
            const __m128i control = _mm_set1_epi8(0x1f);
            bool found = false;
            while (!found && m_end - m_p >= 16) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(m_p));
                const __m128i backslashes = _mm_cmpeq_epi8(v, backslash);
                const __m128i special
                    = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), backslashes),
                                   _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));
                auto mask = unsigned(_mm_movemask_epi8(special));
                const auto escapes = unsigned(_mm_movemask_epi8(backslashes));
                while (mask != 0) {
                    const int at = __builtin_ctz(mask);
                    const unsigned bit = 1u << at;
                    if (!(escapes & bit) || at == 15 || !isShortEscape(m_p[at + 1])) {
                        m_p += at;
                        found = true;
                        break;
                    }
                    mask &= ~(bit | (bit << 1)); // the backslash and the character it escapes
                }
                if (!found)
                    m_p += 16;
            }
        }
#endif
        // Eight bytes at a time while none of them is a quote, a backslash or a control
        // character (the test may also stop at a byte after such a byte, never skip one).
        while (m_end - m_p >= 8) {
            std::uint64_t v;
            std::memcpy(&v, m_p, 8);
            constexpr std::uint64_t Ones = 0x0101010101010101ULL;
            constexpr std::uint64_t Highs = 0x8080808080808080ULL;
            const std::uint64_t quote = v ^ (Ones * '"');
            const std::uint64_t backslash = v ^ (Ones * '\\');
            const std::uint64_t special = ((quote - Ones) & ~quote)
                | ((backslash - Ones) & ~backslash) | ((v - Ones * 0x20) & ~v);
            if (special & Highs)
                break;
            m_p += 8;
        }
        if (m_p == m_end)
            break;
        const auto c = static_cast<unsigned char>(*m_p);
        if (c == '"') {
            ++m_p;
            if (out)
                *out = QByteArrayView(start, m_p - start);
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            ++m_p;
            if (m_p == m_end)
                return false;
            if (isShortEscape(*m_p)) {
                ++m_p;
            } else if (*m_p == 'u') {
                if (m_end - m_p < 5 || !isHex(m_p[1]) || !isHex(m_p[2]) || !isHex(m_p[3])
                    || !isHex(m_p[4]))
                    return false;
                m_p += 5;
            } else {
                return false;
            }
            continue;
        }
        ++m_p;
    }
    return false;
}

bool Scanner::number()
{
    if (m_p != m_end && *m_p == '-')
        ++m_p;
    if (m_p == m_end)
        return false;
    if (*m_p == '0') {
        ++m_p;
    } else if (*m_p >= '1' && *m_p <= '9') {
        while (m_p != m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
    } else {
        return false;
    }
    if (m_p != m_end && *m_p == '.') {
        ++m_p;
        if (m_p == m_end || *m_p < '0' || *m_p > '9')
            return false;
        while (m_p != m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
    }
    if (m_p != m_end && (*m_p == 'e' || *m_p == 'E')) {
        ++m_p;
        if (m_p != m_end && (*m_p == '+' || *m_p == '-'))
            ++m_p;
        if (m_p == m_end || *m_p < '0' || *m_p > '9')
            return false;
        while (m_p != m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
    }
    return true;
}

bool Scanner::literal(const char *word, qsizetype length)
{
    if (m_end - m_p < length || std::memcmp(m_p, word, length) != 0)
        return false;
    m_p += length;
    return true;
}

bool Scanner::value(QByteArrayView *out, int depth)
{
    if (depth > MaxDepth)
        return false;
    skipWhitespace();
    if (m_p == m_end)
        return false;
    const char *start = m_p;
    bool ok = false;
    switch (*m_p) {
    case '"':
        ok = string(nullptr);
        break;
    case '{':
        ++m_p;
        if (consume('}')) {
            ok = true;
            break;
        }
        for (;;) {
            skipWhitespace();
            if (!string(nullptr) || !consume(':') || !value(nullptr, depth + 1))
                return false;
            if (consume(','))
                continue;
            ok = consume('}');
            break;
        }
        break;
    case '[':
        ++m_p;
        if (consume(']')) {
            ok = true;
            break;
        }
        for (;;) {
            if (!value(nullptr, depth + 1))
                return false;
            if (consume(','))
                continue;
            ok = consume(']');
            break;
        }
        break;
    case 't':
        ok = literal("true", 4);
        break;
    case 'f':
        ok = literal("false", 5);
        break;
    case 'n':
        ok = literal("null", 4);
        break;
    default:
        ok = number();
        break;
    }
    if (ok && out)
        *out = QByteArrayView(start, m_p - start);
    return ok;
}

bool isValid(QByteArrayView text)
{
    Scanner scanner(text);
    if (!scanner.value(nullptr))
        return false;
    scanner.skipWhitespace();
    return scanner.atEnd();
}

std::optional<QString> toString(QByteArrayView token)
{
    if (token.size() < 2 || token.front() != '"' || token.back() != '"')
        return std::nullopt;
    const auto inner = token.sliced(1, token.size() - 2);
    if (!inner.contains('\\'))
        return QString::fromUtf8(inner);
    const auto json = nlohmann::json::parse(token.begin(), token.end(), nullptr, false);
    if (json.is_discarded() || !json.is_string())
        return std::nullopt;
    return QString::fromStdString(json.get<std::string>());
}

std::optional<std::int64_t> toInt64(QByteArrayView token)
{
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size())
        return std::nullopt;
    return value;
}

} // namespace reconscope::models::jsonscan
