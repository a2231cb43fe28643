#include "controller/apimachinery/quantity.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

using namespace Qt::StringLiterals;

namespace reconscope::controller::apimachinery {

namespace {

constexpr const char *kFormatWrong = "quantities must match the regular expression "
                                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr const char *kSuffixWrong = "unable to parse quantity's suffix";
constexpr const char *kNumericWrong = "unable to parse numeric part of quantity";
constexpr int kNanoExponent = -9;
constexpr std::string_view kMaxInt64 = "9223372036854775807";

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// parseQuantityString: the sign, the number as written (`value`), its integer digits without
// leading zeros, its fraction digits and the suffix; false for ErrFormatWrong.
struct Parts
{
    bool positive = true;
    std::string value;
    std::string num;
    std::string denom;
    std::string suffix;
};

bool split(std::string_view str, Parts &p)
{
    std::size_t pos = 0;
    const std::size_t end = str.size();
    if (pos < end && (str[0] == '-' || str[0] == '+')) {
        p.positive = str[0] != '-';
        ++pos;
    }
    while (pos < end && str[pos] == '0')
        ++pos;
    if (pos >= end) {
        p.num = p.value = "0";
        return true;
    }
    std::size_t i = pos;
    while (i < end && isDigit(str[i]))
        ++i;
    if (i >= end) {
        p.num = str.substr(pos);
        p.value = str;
        return true;
    }
    p.num = i > pos ? std::string(str.substr(pos, i - pos)) : std::string("0");
    pos = i;
    if (str[pos] == '.') {
        i = ++pos;
        while (i < end && isDigit(str[i]))
            ++i;
        if (i >= end) {
            p.denom = str.substr(pos);
            p.value = str;
            return true;
        }
        p.denom = str.substr(pos, i - pos);
        pos = i;
    }
    p.value = str.substr(0, pos);
    const std::size_t suffixStart = pos;
    i = pos;
    while (i < end && std::strchr("eEinumkKMGTP", str[i]) && str[i] != '\0')
        ++i;
    p.suffix = str.substr(suffixStart);
    if (i >= end)
        return true;
    pos = i;
    if (str[pos] == '-' || str[pos] == '+')
        ++pos;
    for (i = pos; i < end; ++i) {
        if (!isDigit(str[i]))
            return false;
    }
    return true;
}

struct Suffix
{
    int base = 10;
    int exponent = 0;
    Quantity::Format format = Quantity::Format::DecimalSI;
};

constexpr std::array<std::pair<std::string_view, int>, 10> kDecimalSuffixes = { { { "n", -9 },
                                                                                  { "u", -6 },
                                                                                  { "m", -3 },
                                                                                  { "", 0 },
                                                                                  { "k", 3 },
                                                                                  { "M", 6 },
                                                                                  { "G", 9 },
                                                                                  { "T", 12 },
                                                                                  { "P", 15 },
                                                                                  { "E", 18 } } };
constexpr std::array<std::string_view, 7> kBinarySuffixes
    = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

std::optional<Suffix> interpret(std::string_view suffix)
{
    for (const auto &[text, exponent] : kDecimalSuffixes) {
        if (suffix == text)
            return Suffix{ 10, exponent, Quantity::Format::DecimalSI };
    }
    for (std::size_t i = 1; i < kBinarySuffixes.size(); ++i) {
        if (suffix == kBinarySuffixes[i])
            return Suffix{ 2, int(i) * 10, Quantity::Format::BinarySI };
    }
    if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
        // strconv.ParseInt(suffix[1:], 10, 64), then int32().
        std::string_view digits = suffix.substr(1);
        const bool negative = digits[0] == '-';
        if (digits[0] == '-' || digits[0] == '+')
            digits.remove_prefix(1);
        if (digits.empty() || digits.size() > 18)
            return std::nullopt;
        std::int64_t value = 0;
        for (const char c : digits) {
            if (!isDigit(c))
                return std::nullopt;
            value = value * 10 + (c - '0');
        }
        return Suffix{ 10,
                       int(std::int32_t(negative ? -value : value)),
                       Quantity::Format::DecimalExponent };
    }
    return std::nullopt;
}

std::string stripLeadingZeros(std::string digits)
{
    const std::size_t first = digits.find_first_not_of('0');
    return first == std::string::npos ? std::string("0") : digits.substr(first);
}

std::string doubled(const std::string &digits)
{
    std::string out(digits.size() + 1, '0');
    int carry = 0;
    for (std::size_t i = digits.size(); i-- > 0;) {
        const int d = (digits[i] - '0') * 2 + carry;
        out[i + 1] = char('0' + d % 10);
        carry = d / 10;
    }
    out[0] = char('0' + carry);
    return stripLeadingZeros(out);
}

std::string incremented(std::string digits)
{
    for (std::size_t i = digits.size(); i-- > 0;) {
        if (digits[i] != '9') {
            ++digits[i];
            return digits;
        }
        digits[i] = '0';
    }
    return '1' + digits;
}

// -1, 0, 1 comparing magnitudes a*10^ea and b*10^eb.
int compareMagnitude(std::string a, int ea, std::string b, int eb)
{
    if (a == "0" || b == "0")
        return (a == "0" ? 0 : 1) - (b == "0" ? 0 : 1);
    if (ea > eb)
        a.append(std::size_t(ea - eb), '0');
    else
        b.append(std::size_t(eb - ea), '0');
    if (a.size() != b.size())
        return a.size() < b.size() ? -1 : 1;
    return a < b ? -1 : (a > b ? 1 : 0);
}

// Whether ParseQuantity keeps the input as the printed form: its int64 fast path, taken when
// the digits fit and the scale is no finer than nano, keeps it when it is canonical already.
bool keepsInput(const Parts &p, const Suffix &suffix)
{
    int precision = -1;
    int scale = 0;
    if (suffix.format == Quantity::Format::BinarySI) {
        if (suffix.exponent >= 0 && p.denom.empty())
            precision = 15 - int(p.num.size()) - suffix.exponent * 3 / 10 - 1;
    } else {
        scale = suffix.exponent;
        precision = 18 - int(p.num.size() + p.denom.size());
    }
    if (precision < 0)
        return false;
    scale -= int(p.denom.size());
    if (scale < kNanoExponent)
        return false;
    const std::string shifted = p.num + p.denom;
    std::uint64_t value = 0;
    for (const char c : shifted)
        value = value * 10 + std::uint64_t(c - '0');
    if (suffix.format == Quantity::Format::BinarySI) {
        if (suffix.exponent >= 63 || (value >> (63 - suffix.exponent)) != 0)
            return false; // int64Multiply overflows: the slow path, which keeps nothing
        return suffix.exponent % 10 == 0 && (value & 0x07) != 0;
    }
    return scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
}

} // namespace

std::optional<Quantity> Quantity::parse(const QString &text, QString *error)
{
    const auto fail = [error](const char *message) -> std::optional<Quantity> {
        if (error)
            *error = QString::fromLatin1(message);
        return std::nullopt;
    };
    const std::string str = text.toStdString();
    if (str.empty())
        return fail(kFormatWrong);
    Quantity q;
    if (str == "0") {
        q.m_text = text;
        return q;
    }
    Parts parts;
    if (!split(str, parts))
        return fail(kFormatWrong);
    const auto suffix = interpret(parts.suffix);
    if (!suffix)
        return fail(kSuffixWrong);
    if (keepsInput(parts, *suffix)) {
        q.m_text = text;
    } else if (parts.value.find_first_of("0123456789") == std::string::npos) {
        // inf.Dec's SetString of the number on the slow path.
        return fail(kNumericWrong);
    }
    q.m_format = suffix->format;
    q.m_digits = stripLeadingZeros(parts.num + parts.denom);
    q.m_exponent = -int(parts.denom.size());
    if (suffix->base == 10) {
        q.m_exponent += suffix->exponent;
    } else {
        for (int i = 0; i < suffix->exponent; ++i)
            q.m_digits = doubled(q.m_digits);
    }
    // Rounded up to the nano, away from zero.
    if (q.m_exponent < kNanoExponent && q.m_digits != "0") {
        const std::size_t cut = std::size_t(kNanoExponent - q.m_exponent);
        const bool remainder = q.m_digits.size() <= cut
            || q.m_digits.find_first_not_of('0', q.m_digits.size() - cut) != std::string::npos;
        std::string kept = q.m_digits.size() > cut ? q.m_digits.substr(0, q.m_digits.size() - cut)
                                                   : std::string("0");
        q.m_digits = stripLeadingZeros(remainder ? incremented(kept) : kept);
        q.m_exponent = kNanoExponent;
    }
    if (q.m_format == Format::BinarySI) {
        if (compareMagnitude(q.m_digits, q.m_exponent, std::string(kMaxInt64), 0) > 0) {
            q.m_digits = kMaxInt64;
            q.m_exponent = 0;
        }
        if (q.m_digits != "0" && compareMagnitude(q.m_digits, q.m_exponent, "1", 0) < 0)
            q.m_format = Format::DecimalSI;
    }
    q.m_negative = !parts.positive && q.m_digits != "0";
    return q;
}

std::optional<Quantity> Quantity::fromJson(const nlohmann::json &value, QString *error)
{
    if (value.is_null())
        return Quantity();
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    return parse(QString::fromStdString(text).trimmed(), error);
}

int Quantity::compare(const Quantity &other) const
{
    if (sign() != other.sign())
        return sign() < other.sign() ? -1 : 1;
    const int magnitude = compareMagnitude(m_digits, m_exponent, other.m_digits, other.m_exponent);
    return m_negative ? -magnitude : magnitude;
}

bool Quantity::isWhole() const
{
    // MilliValue rounds up to a whole number of thousandths.
    const int milliExponent = m_exponent + 3;
    std::string milli = m_digits;
    if (milliExponent >= 0) {
        milli.append(std::size_t(milliExponent), '0');
    } else {
        const std::size_t cut = std::size_t(-milliExponent);
        const bool remainder = milli.size() <= cut
            || milli.find_first_not_of('0', milli.size() - cut) != std::string::npos;
        milli = milli.size() > cut ? milli.substr(0, milli.size() - cut) : std::string("0");
        if (remainder && m_digits != "0")
            milli = incremented(milli);
    }
    milli = stripLeadingZeros(milli);
    return milli == "0" || milli.ends_with("000");
}

QString Quantity::toString() const
{
    return m_text.isEmpty() ? canonical() : m_text;
}

QString Quantity::canonical() const
{
    if (m_digits == "0")
        return u"0"_s;
    const QString sign = m_negative ? u"-"_s : QString();
    // The value as an integer, when it is one.
    std::optional<std::string> whole;
    if (m_exponent >= 0) {
        whole = m_digits + std::string(std::size_t(m_exponent), '0');
    } else if (m_digits.size() > std::size_t(-m_exponent)
               && m_digits.find_first_not_of('0', m_digits.size() - std::size_t(-m_exponent))
                   == std::string::npos) {
        whole = m_digits.substr(0, m_digits.size() - std::size_t(-m_exponent));
    }
    Format format = m_format;
    if (format == Format::BinarySI
        && (compareMagnitude(m_digits, m_exponent, "1024", 0) < 0 || !whole))
        format = Format::DecimalSI;
    if (format == Format::BinarySI) {
        std::uint64_t n = std::stoull(*whole); // at most 2^63-1
        std::size_t powers = 0;
        while (n % 1024 == 0 && powers + 1 < kBinarySuffixes.size()) {
            n /= 1024;
            ++powers;
        }
        return sign + QString::number(n) + QString::fromLatin1(kBinarySuffixes[powers]);
    }
    std::string digits = m_digits;
    int exponent = m_exponent;
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
        ++exponent;
    }
    while (exponent % 3 != 0) {
        digits.push_back('0');
        --exponent;
    }
    QString suffix;
    if (format == Format::DecimalExponent) {
        if (exponent != 0)
            suffix = u"e"_s + QString::number(exponent);
    } else {
        for (const auto &[text, e] : kDecimalSuffixes) {
            if (e == exponent)
                suffix = QString::fromLatin1(text);
        }
    }
    return sign + QString::fromStdString(digits) + suffix;
}

} // namespace reconscope::controller::apimachinery
