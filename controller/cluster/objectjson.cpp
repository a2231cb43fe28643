#include "controller/cluster/objectjson.h"

#include <charconv>
#include <cstring>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster::objectjson {

namespace {

using json = nlohmann::json;

// Well-formed UTF-8 as Unicode's table 3-7 defines it (no overlong forms, no surrogates, nothing
// above U+10FFFF): what nlohmann's lexer accepts in a string and its serializer copies as is.
bool isWellFormedUtf8(const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int length = 0;
        unsigned char low = 0x80;
        unsigned char high = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            if (c == 0xE0)
                low = 0xA0;
            else if (c == 0xED)
                high = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            if (c == 0xF0)
                low = 0x90;
            else if (c == 0xF4)
                high = 0x8F;
        } else {
            return false;
        }
        if (end - p < length || p[1] < low || p[1] > high)
            return false;
        for (int i = 2; i < length; ++i) {
            if (p[i] < 0x80 || p[i] > 0xBF)
                return false;
        }
        p += length;
    }
    return true;
}

// What nlohmann's serializer writes for a string (ensure_ascii off, invalid UTF-8 replaced):
// well-formed UTF-8 as is, with quote, backslash and control characters escaped (\b \t \n \f
// \r, else \u00xx in lower-case hex). Ill-formed UTF-8 is left to nlohmann's replacement rules.
void appendString(QByteArray &out, const std::string &text)
{
    const auto *begin = reinterpret_cast<const unsigned char *>(text.data());
    const auto *end = begin + text.size();
    bool ascii = true;
    bool plain = true;
    for (const auto *q = begin; q < end; ++q) {
        const unsigned char c = *q;
        if (c < 0x20 || c == '"' || c == '\\')
            plain = false;
        else if (c >= 0x80)
            ascii = false;
    }
    if (!ascii && !isWellFormedUtf8(begin, end)) {
        out.append(json(text).dump(-1, ' ', false, json::error_handler_t::replace));
        return;
    }
    out.append('"');
    if (plain) {
        out.append(text.data(), qsizetype(text.size()));
        out.append('"');
        return;
    }
    const auto *run = begin;
    for (const auto *q = begin; q < end; ++q) {
        const unsigned char c = *q;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(reinterpret_cast<const char *>(run), qsizetype(q - run));
        run = q + 1;
        switch (c) {
        case '"':
            out.append("\\\"");
            break;
        case '\\':
            out.append("\\\\");
            break;
        case '\b':
            out.append("\\b");
            break;
        case '\t':
            out.append("\\t");
            break;
        case '\n':
            out.append("\\n");
            break;
        case '\f':
            out.append("\\f");
            break;
        case '\r':
            out.append("\\r");
            break;
        default: {
            static const char hex[] = "0123456789abcdef";
            const char escaped[] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF] };
            out.append(escaped, 6);
            break;
        }
        }
    }
    out.append(reinterpret_cast<const char *>(run), qsizetype(end - run));
    out.append('"');
}

struct Marker
{
    const json *node = nullptr;
    qsizetype at = -1;
    qsizetype length = 0;
};

void appendValue(QByteArray &out, const json &value, Marker *marker);

void appendMarked(QByteArray &out, const json &value, Marker *marker)
{
    if (marker && &value == marker->node) {
        marker->at = out.size();
        appendValue(out, value, nullptr);
        marker->length = out.size() - marker->at;
        return;
    }
    appendValue(out, value, marker);
}

void appendValue(QByteArray &out, const json &value, Marker *marker)
{
    switch (value.type()) {
    case json::value_t::object: {
        const auto &object = value.get_ref<const json::object_t &>();
        out.append('{');
        bool first = true;
        for (const auto &[key, member] : object) {
            if (!first)
                out.append(',');
            first = false;
            appendString(out, key);
            out.append(':');
            appendMarked(out, member, marker);
        }
        out.append('}');
        return;
    }
    case json::value_t::array: {
        const auto &array = value.get_ref<const json::array_t &>();
        out.append('[');
        bool first = true;
        for (const json &item : array) {
            if (!first)
                out.append(',');
            first = false;
            appendMarked(out, item, marker);
        }
        out.append(']');
        return;
    }
    case json::value_t::string:
        appendString(out, value.get_ref<const std::string &>());
        return;
    case json::value_t::boolean:
        out.append(value.get<bool>() ? "true" : "false");
        return;
    case json::value_t::null:
        out.append("null");
        return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
        char digits[24];
        const auto written = value.is_number_unsigned()
            ? std::to_chars(digits, digits + sizeof digits, value.get<std::uint64_t>())
            : std::to_chars(digits, digits + sizeof digits, value.get<std::int64_t>());
        out.append(digits, qsizetype(written.ptr - digits));
        return;
    }
    default: // floats (nlohmann's own shortest form), binary, discarded
        out.append(value.dump(-1, ' ', false, json::error_handler_t::replace));
        return;
    }
}

// A recursive-descent parser for the compact, key-sorted JSON dump() writes. It gives up (false)
// on anything else, and the caller then asks nlohmann's parser, so it never has to reproduce
// nlohmann's handling of unusual text, only of the usual.
class StoredParser
{
public:
    StoredParser(const char *begin, const char *end)
        : m_p(reinterpret_cast<const unsigned char *>(begin))
        , m_end(reinterpret_cast<const unsigned char *>(end))
    { }

    bool parseDocument(json &out) { return parseValue(out, 0) && m_p == m_end; }

private:
    static constexpr int maxDepth = 256; // deeper documents go to nlohmann's iterative parser

    bool parseValue(json &out, int depth)
    {
        if (m_p >= m_end)
            return false;
        switch (*m_p) {
        case '{':
            return parseObject(out, depth + 1);
        case '[':
            return parseArray(out, depth + 1);
        case '"': {
            std::string text;
            if (!parseString(text))
                return false;
            out = json(std::move(text));
            return true;
        }
        case 't':
            return literal("true", 4) && (out = true, true);
        case 'f':
            return literal("false", 5) && (out = false, true);
        case 'n':
            return literal("null", 4) && (out = nullptr, true);
        default:
            return parseInteger(out);
        }
    }

    bool literal(const char *text, std::size_t length)
    {
        if (std::size_t(m_end - m_p) < length || std::memcmp(m_p, text, length) != 0)
            return false;
        m_p += length;
        return true;
    }

    bool parseObject(json &out, int depth)
    {
        if (depth > maxDepth)
            return false;
        ++m_p; // {
        out = json::object();
        auto &object = out.get_ref<json::object_t &>();
        if (m_p < m_end && *m_p == '}') {
            ++m_p;
            return true;
        }
        for (;;) {
            std::string key;
            if (m_p >= m_end || *m_p != '"' || !parseString(key))
                return false;
            // Sorted, unique keys only: nlohmann's parser keeps the last of duplicates.
            if (!object.empty() && !(object.rbegin()->first < key))
                return false;
            if (m_p >= m_end || *m_p != ':')
                return false;
            ++m_p;
            auto member = object.emplace_hint(object.end(), std::move(key), json());
            if (!parseValue(member->second, depth))
                return false;
            if (m_p >= m_end)
                return false;
            if (*m_p == ',') {
                ++m_p;
                continue;
            }
            if (*m_p != '}')
                return false;
            ++m_p;
            return true;
        }
    }

    bool parseArray(json &out, int depth)
    {
        if (depth > maxDepth)
            return false;
        ++m_p; // [
        out = json::array();
        auto &array = out.get_ref<json::array_t &>();
        if (m_p < m_end && *m_p == ']') {
            ++m_p;
            return true;
        }
        for (;;) {
            array.emplace_back();
            if (!parseValue(array.back(), depth))
                return false;
            if (m_p >= m_end)
                return false;
            if (*m_p == ',') {
                ++m_p;
                continue;
            }
            if (*m_p != ']')
                return false;
            ++m_p;
            return true;
        }
    }

    bool parseString(std::string &out)
    {
        ++m_p; // opening quote
        const unsigned char *run = m_p;
        bool ascii = true;
        for (;;) {
            if (m_p >= m_end)
                return false;
            const unsigned char c = *m_p;
            if (c == '"') {
                if (!ascii && !isWellFormedUtf8(run, m_p))
                    return false;
                out.append(reinterpret_cast<const char *>(run), std::size_t(m_p - run));
                ++m_p;
                return true;
            }
            if (c < 0x20)
                return false;
            if (c >= 0x80) {
                ascii = false;
                ++m_p;
                continue;
            }
            if (c != '\\') {
                ++m_p;
                continue;
            }
            if (!ascii && !isWellFormedUtf8(run, m_p))
                return false;
            out.append(reinterpret_cast<const char *>(run), std::size_t(m_p - run));
            ascii = true;
            if (m_end - m_p < 2)
                return false;
            const unsigned char escaped = m_p[1];
            m_p += 2;
            switch (escaped) {
            case '"':
            case '\\':
            case '/':
                out += char(escaped);
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                // Only what dump() writes: \u00XX for control characters.
                if (m_end - m_p < 4 || m_p[0] != '0' || m_p[1] != '0')
                    return false;
                int code = 0;
                for (int i = 2; i < 4; ++i) {
                    const unsigned char h = m_p[i];
                    code <<= 4;
                    if (h >= '0' && h <= '9')
                        code |= h - '0';
                    else if (h >= 'a' && h <= 'f')
                        code |= h - 'a' + 10;
                    else if (h >= 'A' && h <= 'F')
                        code |= h - 'A' + 10;
                    else
                        return false;
                }
                if (code >= 0x80)
                    return false;
                out += char(code);
                m_p += 4;
                break;
            }
            default:
                return false;
            }
            run = m_p;
        }
    }

    bool parseInteger(json &out)
    {
        const bool negative = *m_p == '-';
        if (negative)
            ++m_p;
        const unsigned char *digits = m_p;
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
        const auto count = m_p - digits;
        // Up to 18 digits always fit; a leading zero must stand alone; fractions, exponents and
        // longer numbers are nlohmann's.
        if (count == 0 || count > 18 || (count > 1 && *digits == '0'))
            return false;
        if (m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E'))
            return false;
        std::uint64_t value = 0;
        for (const unsigned char *d = digits; d < m_p; ++d)
            value = value * 10 + std::uint64_t(*d - '0');
        if (negative)
            out = -std::int64_t(value); // nlohmann: number_integer, "-0" included
        else
            out = value; // nlohmann: number_unsigned
        return true;
    }

    const unsigned char *m_p;
    const unsigned char *m_end;
};

} // namespace

nlohmann::json array(const QStringList &strings)
{
    nlohmann::json result = nlohmann::json::array();
    for (const QString &s : strings)
        result.push_back(s.toStdString());
    return result;
}

bool hasApiVersion(const QByteArray &compactJson, const QString &apiVersion)
{
    static const QByteArray prefix = "{\"apiVersion\":\"";
    const QByteArray version = apiVersion.toUtf8();
    const qsizetype end = prefix.size() + version.size();
    return compactJson.size() > end && compactJson.startsWith(prefix)
        && QByteArrayView(compactJson).sliced(prefix.size(), version.size()) == version
        && compactJson[end] == '"';
}

bool identical(const nlohmann::json &a, const nlohmann::json &b)
{
    if (a.type() != b.type())
        return false;
    switch (a.type()) {
    case json::value_t::object: {
        const auto &x = a.get_ref<const json::object_t &>();
        const auto &y = b.get_ref<const json::object_t &>();
        if (x.size() != y.size())
            return false;
        for (auto ix = x.begin(), iy = y.begin(); ix != x.end(); ++ix, ++iy) {
            if (ix->first != iy->first || !identical(ix->second, iy->second))
                return false;
        }
        return true;
    }
    case json::value_t::array: {
        const auto &x = a.get_ref<const json::array_t &>();
        const auto &y = b.get_ref<const json::array_t &>();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!identical(x[i], y[i]))
                return false;
        }
        return true;
    }
    case json::value_t::number_float: {
        const double x = a.get<double>();
        const double y = b.get<double>();
        return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default:
        return a == b;
    }
}

QByteArray dump(const nlohmann::json &value)
{
    QByteArray out;
    out.reserve(1024);
    appendValue(out, value, nullptr);
    return out;
}

QByteArray dump(const nlohmann::json &value,
                const nlohmann::json *marked,
                qsizetype *markedAt,
                qsizetype *markedLength)
{
    Marker marker{ marked };
    QByteArray out;
    out.reserve(4096); // a whole object, typically a few KB
    appendMarked(out, value, &marker);
    *markedAt = marker.at;
    *markedLength = marker.length;
    return out;
}

namespace {

// The end of the compact JSON value starting at `at` (a string, object, array or scalar), or -1.
qsizetype skipValue(QByteArrayView text, qsizetype at)
{
    const qsizetype size = text.size();
    const char *data = text.data();
    if (at >= size)
        return -1;
    const auto skipString = [&](qsizetype i) -> qsizetype { // i: after the opening quote
        while (i < size) {
            const void *hit = std::memchr(data + i, '"', std::size_t(size - i));
            if (!hit)
                return -1;
            const qsizetype quote = static_cast<const char *>(hit) - data;
            qsizetype backslashes = 0;
            while (quote - backslashes - 1 >= i && data[quote - backslashes - 1] == '\\')
                ++backslashes;
            if (backslashes % 2 == 0)
                return quote + 1;
            i = quote + 1;
        }
        return -1;
    };
    const char first = data[at];
    if (first == '"')
        return skipString(at + 1);
    if (first == '{' || first == '[') {
        int depth = 0;
        for (qsizetype i = at; i < size;) {
            const char c = data[i];
            if (c == '"') {
                i = skipString(i + 1);
                if (i < 0)
                    return -1;
                continue;
            }
            if (c == '{' || c == '[') {
                if (++depth > maxJsonNesting)
                    return -1;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
            ++i;
        }
        return -1;
    }
    qsizetype i = at;
    while (i < size && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ':'
           && data[i] != '"' && data[i] != '{' && data[i] != '[' && data[i] != ' '
           && data[i] != '\n' && data[i] != '\t' && data[i] != '\r')
        ++i;
    return i > at ? i : -1;
}

} // namespace

bool members(QByteArrayView object, std::vector<MemberSpan> &out)
{
    out.clear();
    const qsizetype size = object.size();
    if (size < 2 || object.front() != '{' || object.back() != '}')
        return false;
    if (size == 2)
        return true;
    qsizetype i = 1;
    while (true) {
        if (object[i] != '"')
            return false;
        const qsizetype keyEnd = skipValue(object, i);
        if (keyEnd < 0 || keyEnd >= size || object[keyEnd] != ':')
            return false;
        const qsizetype valueAt = keyEnd + 1;
        const qsizetype valueEnd = skipValue(object, valueAt);
        if (valueEnd < 0 || valueEnd >= size)
            return false;
        out.push_back({ object.sliced(i + 1, keyEnd - i - 2), valueAt, valueEnd - valueAt });
        if (object[valueEnd] == '}')
            return valueEnd == size - 1;
        if (object[valueEnd] != ',')
            return false;
        i = valueEnd + 1;
        if (i >= size)
            return false;
    }
}

nlohmann::json parseStored(QByteArrayView text)
{
    json value;
    StoredParser parser(text.data(), text.data() + text.size());
    if (parser.parseDocument(value))
        return value;
    return json::parse(text.begin(), text.end(), nullptr, false);
}

QByteArray dumpPretty(const nlohmann::json &value)
{
    return QByteArray::fromStdString(
        value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

QString fieldValue(const nlohmann::json &object, const QString &path)
{
    const nlohmann::json *current = &object;
    const QStringList parts = path.split(u'.', Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        if (!current->is_object())
            return {};
        auto it = current->find(part.toStdString());
        if (it == current->end())
            return {};
        current = &*it;
    }
    if (current->is_string())
        return QString::fromStdString(current->get_ref<const std::string &>());
    if (current->is_boolean())
        return current->get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    if (current->is_number())
        return QString::fromStdString(current->dump());
    return {};
}

QString nestingError(QByteArrayView text)
{
    int depth = 0;
    bool inString = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxJsonNesting)
                return u"invalid character '%1' exceeded max depth"_s.arg(QLatin1Char(c));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return {};
}

namespace {

// Whether an operation's path or from points below a value that is neither an object nor an
// array (a pointer that cannot be read is left to patch(), which reports it).
bool targetsBelowAScalar(const nlohmann::json &document, const nlohmann::json &operation)
{
    for (const char *key : { "path", "from" }) {
        const nlohmann::json &text = member(operation, key);
        if (!text.is_string())
            continue;
        try {
            const nlohmann::json::json_pointer pointer(text.get<std::string>());
            if (pointer.empty())
                continue;
            const nlohmann::json::json_pointer parent = pointer.parent_pointer();
            if (!document.contains(parent))
                continue;
            const nlohmann::json &container = document.at(parent);
            if (!container.is_object() && !container.is_array())
                return true;
        } catch (const nlohmann::json::exception &) {
            continue;
        }
    }
    return false;
}

} // namespace

std::optional<nlohmann::json> applyJsonPatch(const nlohmann::json &document,
                                             const nlohmann::json &patch)
{
    if (!patch.is_array())
        return std::nullopt;
    nlohmann::json result = document;
    try {
        for (const nlohmann::json &operation : patch) {
            if (targetsBelowAScalar(result, operation))
                return std::nullopt;
            result.patch_inplace(nlohmann::json::array({ operation }));
        }
    } catch (const nlohmann::json::exception &) {
        return std::nullopt;
    }
    return result;
}

} // namespace reconscope::controller::cluster::objectjson
