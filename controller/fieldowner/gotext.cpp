#include "controller/fieldowner/gotext.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

using Json = nlohmann::json;

namespace reconscope::controller::fieldowner::gotext {

namespace {

// The code point of the UTF-8 sequence at `text[i]` and its length; length 0 when invalid.
std::pair<char32_t, std::size_t> decodeRune(const std::string &text, std::size_t i)
{
    const auto byte = [&](std::size_t k) {
        return static_cast<unsigned char>(text[k]);
    };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80)
        return { b0, 1 };
    std::size_t length = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
    if (b0 > 0xF4 || length == 0 || i + length > text.size())
        return { 0, 0 };
    char32_t rune = b0 & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return { 0, 0 };
        rune = (rune << 6) | (byte(i + k) & 0x3F);
    }
    const char32_t minimum[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (rune < minimum[length] || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF))
        return { 0, 0 };
    return { rune, length };
}

void appendHex(std::string &out, const char *prefix, unsigned value, int digits)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%s%0*x", prefix, digits, value);
    out += buffer;
}

void appendJsonString(std::string &out, const std::string &text)
{
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const auto [rune, length] = decodeRune(text, i);
        if (length == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        switch (rune) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '<':
        case '>':
        case '&':
        case 0x2028:
        case 0x2029:
            appendHex(out, "\\u", static_cast<unsigned>(rune), 4);
            break;
        default:
            if (rune < 0x20)
                appendHex(out, "\\u", static_cast<unsigned>(rune), 4);
            else
                out.append(text, i, length);
        }
        i += length;
    }
    out += '"';
}

std::string floatChars(double value, std::chars_format format)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format);
    return std::string(buffer, result.ptr);
}

std::string jsonFloat(double value)
{
    if (!std::isfinite(value))
        return "null"; // Go refuses them; they never come from JSON
    const double magnitude = std::fabs(value);
    if (magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21)) {
        std::string text = floatChars(value, std::chars_format::scientific);
        const std::size_t n = text.size();
        if (n >= 4 && text[n - 4] == 'e' && text[n - 3] == '-' && text[n - 2] == '0')
            text.erase(n - 2, 1); // e-07 -> e-7, as encoding/json does
        return text;
    }
    return floatChars(value, std::chars_format::fixed);
}

void appendJson(std::string &out, const Json &value)
{
    switch (value.type()) {
    case Json::value_t::object: {
        out += '{';
        bool first = true;
        for (const auto &[key, member] : value.items()) {
            if (!first)
                out += ',';
            first = false;
            appendJsonString(out, key);
            out += ':';
            appendJson(out, member);
        }
        out += '}';
        break;
    }
    case Json::value_t::array: {
        out += '[';
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (i)
                out += ',';
            appendJson(out, value[i]);
        }
        out += ']';
        break;
    }
    case Json::value_t::string:
        appendJsonString(out, value.get_ref<const std::string &>());
        break;
    case Json::value_t::number_float:
        out += jsonFloat(value.get<double>());
        break;
    default:
        out += value.dump(); // integers, booleans, null
    }
}

bool printable(char32_t rune)
{
    if (rune < 0x20 || rune == 0x7F || (rune >= 0x80 && rune < 0xA0) || rune == 0xAD)
        return false;
    return rune != 0x2028 && rune != 0x2029 && rune != 0xFEFF && !(rune >= 0xE000 && rune < 0xF900);
}

} // namespace

std::string json(const nlohmann::json &value)
{
    std::string out;
    appendJson(out, value);
    return out;
}

std::string quote(const std::string &text)
{
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const auto [rune, length] = decodeRune(text, i);
        if (length == 0) {
            appendHex(out, "\\x", static_cast<unsigned char>(text[i]), 2);
            ++i;
            continue;
        }
        switch (rune) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\a':
            out += "\\a";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\v':
            out += "\\v";
            break;
        default:
            if (printable(rune))
                out.append(text, i, length);
            else if (rune < 0x80)
                appendHex(out, "\\x", static_cast<unsigned>(rune), 2);
            else if (rune < 0x10000)
                appendHex(out, "\\u", static_cast<unsigned>(rune), 4);
            else
                appendHex(out, "\\U", static_cast<unsigned>(rune), 8);
        }
        i += length;
    }
    return out + '"';
}

std::string floatV(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    const std::string scientific = floatChars(value, std::chars_format::scientific);
    const auto e = scientific.find('e');
    const int exponent = std::atoi(scientific.c_str() + e + 1);
    if (exponent < -4 || exponent >= 6)
        return scientific;
    return floatChars(value, std::chars_format::fixed);
}

} // namespace reconscope::controller::fieldowner::gotext
