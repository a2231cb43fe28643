#include "controller/cluster/registry/govalue.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

using json = nlohmann::json;

namespace reconscope::controller::cluster {

namespace {

// strconv.FormatFloat(value, 'g', -1, 64), which fmt's %v uses: the shortest digits, in
// exponent form below 1e-4 and from 1e6 up.
std::string goFloat(double value)
{
    char buffer[64];
    const auto end
        = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific).ptr;
    std::string_view text(buffer, std::size_t(end - buffer));
    std::string out;
    if (text.front() == '-') {
        out += '-';
        text.remove_prefix(1);
    }
    const std::size_t e = text.find('e');
    std::string digits;
    for (const char c : text.substr(0, e)) {
        if (c != '.')
            digits += c;
    }
    int exponent = 0;
    const std::string_view exponentText = text.substr(e + 1);
    std::from_chars(exponentText.data() + (exponentText.front() == '+' ? 1 : 0),
                    exponentText.data() + exponentText.size(),
                    exponent);
    if (exponent < -4 || exponent >= 6) {
        out += digits.substr(0, 1);
        if (digits.size() > 1)
            out += '.' + digits.substr(1);
        const std::string magnitude = std::to_string(exponent < 0 ? -exponent : exponent);
        return out + (exponent < 0 ? "e-" : "e+") + (magnitude.size() < 2 ? "0" : "") + magnitude;
    }
    if (exponent < 0)
        return out + "0." + std::string(std::size_t(-exponent - 1), '0') + digits;
    const std::size_t whole = std::size_t(exponent) + 1;
    if (digits.size() <= whole)
        return out + digits + std::string(whole - digits.size(), '0');
    return out + digits.substr(0, whole) + '.' + digits.substr(whole);
}

// fmt's %v (verbS false) or %s of a value, as upstream's messages print maps and lists. %s
// marks what is not a string: %!s(int64=1); a nil inside a map or slice prints as <nil>.
void goFormat(std::string &out, const json &value, bool verbS, bool nested = false)
{
    const auto marked = [&](std::string_view type, const std::string &text) {
        out += verbS ? "%!s(" + std::string(type) + '=' + text + ')' : text;
    };
    switch (goKind(value)) {
    case GoKind::Nil:
        out += verbS && !nested ? "%!s(<nil>)" : "<nil>";
        break;
    case GoKind::Bool:
        marked("bool", value.get<bool>() ? "true" : "false");
        break;
    case GoKind::Int:
        marked("int64",
               value.is_number_unsigned() ? std::to_string(value.get<std::uint64_t>())
                                          : std::to_string(value.get<std::int64_t>()));
        break;
    case GoKind::Float:
        marked("float64", goFloat(value.get<double>()));
        break;
    case GoKind::String:
        out += value.get_ref<const std::string &>();
        break;
    case GoKind::Map: {
        out += "map[";
        const char *separator = "";
        for (auto it = value.begin(); it != value.end(); ++it) {
            out += separator + it.key() + ':';
            goFormat(out, it.value(), verbS, true);
            separator = " ";
        }
        out += ']';
        break;
    }
    case GoKind::Slice: {
        out += '[';
        const char *separator = "";
        for (const json &item : value) {
            out += separator;
            goFormat(out, item, verbS, true);
            separator = " ";
        }
        out += ']';
        break;
    }
    }
}

} // namespace

GoKind goKind(const json &value)
{
    switch (value.type()) {
    case json::value_t::boolean:
        return GoKind::Bool;
    case json::value_t::number_integer:
        return GoKind::Int;
    case json::value_t::number_unsigned:
        return value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())
            ? GoKind::Float
            : GoKind::Int;
    case json::value_t::number_float:
        return GoKind::Float;
    case json::value_t::string:
        return GoKind::String;
    case json::value_t::object:
        return GoKind::Map;
    case json::value_t::array:
        return GoKind::Slice;
    default:
        return GoKind::Nil;
    }
}

bool goEqual(const json &a, const json &b)
{
    const GoKind kind = goKind(a);
    if (kind != goKind(b))
        return false;
    switch (kind) {
    case GoKind::Nil:
        return true;
    case GoKind::Float:
        return a.get<double>() == b.get<double>();
    case GoKind::Bool:
    case GoKind::Int:
    case GoKind::String:
        return a == b;
    default:
        return false;
    }
}

std::string formatV(const json &value)
{
    std::string out;
    goFormat(out, value, false);
    return out;
}

std::string formatS(const json &value)
{
    std::string out;
    goFormat(out, value, true);
    return out;
}

std::string goTypeName(const json &value)
{
    switch (goKind(value)) {
    case GoKind::Nil:
        return "%!s(<nil>)";
    case GoKind::Bool:
        return "bool";
    case GoKind::Int:
        return "int64";
    case GoKind::Float:
        return "float64";
    case GoKind::String:
        return "string";
    case GoKind::Map:
        return std::string(kGoMapType);
    case GoKind::Slice:
        return std::string(kGoSliceType);
    }
    return {};
}

namespace {

// The Go runtime's small size classes (bytes), its page size and its malloc header, as
// runtime.roundupsize uses them for an allocation that holds pointers.
constexpr std::array<std::size_t, 68> kSizeClasses
    = { 0,     8,     16,    24,    32,    48,    64,    80,    96,    112,   128,   144,
        160,   176,   192,   208,   224,   240,   256,   288,   320,   352,   384,   416,
        448,   480,   512,   576,   640,   704,   768,   896,   1024,  1152,  1280,  1408,
        1536,  1792,  2048,  2304,  2688,  3072,  3200,  3456,  4096,  4864,  5376,  6144,
        6528,  6784,  6912,  8192,  9472,  9728,  10240, 10880, 12288, 13568, 14336, 16384,
        18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768 };
constexpr std::size_t kMaxSmallSize = 32768;
constexpr std::size_t kPageSize = 8192;
constexpr std::size_t kMallocHeaderSize = 8;
constexpr std::size_t kMinSizeForMallocHeader = 512;
constexpr std::size_t kInterfaceSize = 16;

std::size_t roundUpSize(std::size_t size)
{
    if (size <= kMaxSmallSize - kMallocHeaderSize) {
        const std::size_t header = size > kMinSizeForMallocHeader ? kMallocHeaderSize : 0;
        const auto it = std::ranges::lower_bound(kSizeClasses, size + header);
        return *it - header;
    }
    return (size + kPageSize - 1) / kPageSize * kPageSize;
}

// runtime.nextslicecap: doubling below 256 items, then growing by about 1.25.
std::size_t nextSliceCap(std::size_t newLength, std::size_t oldCap)
{
    constexpr std::size_t threshold = 256;
    if (newLength > 2 * oldCap)
        return newLength;
    if (oldCap < threshold)
        return 2 * oldCap;
    std::size_t capacity = oldCap;
    while (capacity < newLength)
        capacity += (capacity + 3 * threshold) >> 2;
    return capacity;
}

} // namespace

std::size_t goDecodedSliceCap(std::size_t length)
{
    std::size_t capacity = 0;
    while (capacity < length)
        capacity
            = roundUpSize(nextSliceCap(capacity + 1, capacity) * kInterfaceSize) / kInterfaceSize;
    return capacity;
}

} // namespace reconscope::controller::cluster
