#include "controller/record/timestampprefix.h"

#include <QTimeZone>

#include <array>

namespace reconscope::controller::record {

namespace {

using Kind = TimestampPrefix::Kind;

// A cursor over the line's first bytes.
struct Scan
{
    QByteArrayView line;
    qsizetype at = 0;

    bool atEnd() const { return at >= line.size(); }
    char peek() const { return atEnd() ? '\0' : line[at]; }
    bool take(char c)
    {
        if (peek() != c)
            return false;
        ++at;
        return true;
    }
    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    // Exactly `count` digits.
    std::optional<int> digits(int count)
    {
        int value = 0;
        for (int i = 0; i < count; ++i) {
            if (!isDigit(peek()))
                return std::nullopt;
            value = value * 10 + (line[at++] - '0');
        }
        return value;
    }
    // ".123456789" as microseconds (0 when there is no fraction).
    std::optional<qint64> fraction()
    {
        if (!take('.'))
            return 0;
        qint64 micros = 0;
        int count = 0;
        while (isDigit(peek())) {
            if (count < 6)
                micros = micros * 10 + (line[at] - '0');
            ++count;
            ++at;
        }
        if (count == 0 || count > 9)
            return std::nullopt;
        for (int i = count; i < 6; ++i)
            micros *= 10;
        return micros;
    }
    // "HH:MM:SS[.f]" as microseconds of the day.
    std::optional<qint64> timeOfDay(int hourDigits = 2)
    {
        const auto hours = digits(hourDigits);
        if (!hours || !take(':'))
            return std::nullopt;
        const auto minutes = digits(2);
        if (!minutes || *minutes > 59 || !take(':'))
            return std::nullopt;
        const auto seconds = digits(2);
        if (!seconds || *seconds > 60)
            return std::nullopt;
        const auto micros = fraction();
        if (!micros)
            return std::nullopt;
        return ((qint64(*hours) * 60 + *minutes) * 60 + *seconds) * 1'000'000 + *micros;
    }
    bool endsPrefix()
    {
        if (!take(' '))
            return false;
        return true;
    }
};

constexpr std::array<const char *, 12> Months
    = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

std::optional<TimestampPrefix> parseSyslog(QByteArrayView line)
{
    if (line.size() < 16)
        return std::nullopt;
    TimestampPrefix prefix;
    prefix.kind = Kind::Syslog;
    prefix.local = true;
    for (int m = 0; m < 12; ++m) {
        if (line.first(3) == QByteArrayView(Months[size_t(m)]))
            prefix.month = m + 1;
    }
    Scan scan{ line, 3 };
    if (prefix.month == 0 || !scan.take(' '))
        return std::nullopt;
    scan.take(' '); // %e pads the day with a space
    int day = 0;
    for (int i = 0; i < 2 && Scan::isDigit(scan.peek()); ++i)
        day = day * 10 + (line[scan.at++] - '0');
    if (day < 1 || day > 31 || !scan.take(' '))
        return std::nullopt;
    prefix.day = day;
    const auto time = scan.timeOfDay();
    if (!time || *time >= qint64(24) * 3600 * 1'000'000 || !scan.endsPrefix())
        return std::nullopt;
    prefix.micros = *time;
    prefix.length = scan.at;
    return prefix;
}

std::optional<TimestampPrefix> parseIso(QByteArrayView line)
{
    Scan scan{ line, 0 };
    const auto year = scan.digits(4);
    const auto month = year && scan.take('-') ? scan.digits(2) : std::nullopt;
    const auto day = month && scan.take('-') ? scan.digits(2) : std::nullopt;
    if (!day || !(scan.take('T') || scan.take(' ')))
        return std::nullopt;
    const QDate date(*year, *month, *day);
    const auto time = date.isValid() ? scan.timeOfDay() : std::nullopt;
    if (!time || *time >= qint64(24) * 3600 * 1'000'000)
        return std::nullopt;
    TimestampPrefix prefix;
    prefix.kind = Kind::Iso;
    qint64 offsetSeconds = 0;
    prefix.local = true;
    if (scan.take('Z')) {
        prefix.local = false;
    } else if (scan.peek() == '+' || scan.peek() == '-') {
        const int sign = scan.peek() == '-' ? -1 : 1;
        ++scan.at;
        const auto hours = scan.digits(2);
        scan.take(':');
        const auto minutes = hours ? scan.digits(2) : std::nullopt;
        if (!minutes || *hours > 23 || *minutes > 59)
            return std::nullopt;
        offsetSeconds = sign * (qint64(*hours) * 3600 + *minutes * 60);
        prefix.local = false;
    }
    if (!scan.endsPrefix())
        return std::nullopt;
    const qint64 days = QDate(1970, 1, 1).daysTo(date);
    prefix.micros = days * 86'400'000'000 + *time - offsetSeconds * 1'000'000;
    prefix.length = scan.at;
    return prefix;
}

std::optional<TimestampPrefix> parseEpoch(QByteArrayView line)
{
    Scan scan{ line, 0 };
    qint64 seconds = 0;
    int count = 0;
    while (Scan::isDigit(scan.peek()) && count < 13) {
        seconds = seconds * 10 + (line[scan.at++] - '0');
        ++count;
    }
    if (count < 9 || count > 12)
        return std::nullopt;
    const auto micros = scan.fraction();
    if (!micros || !scan.endsPrefix())
        return std::nullopt;
    TimestampPrefix prefix;
    prefix.kind = Kind::Epoch;
    prefix.micros = seconds * 1'000'000 + *micros;
    prefix.length = scan.at;
    return prefix;
}

std::optional<TimestampPrefix> parseElapsed(QByteArrayView line)
{
    Scan scan{ line, 0 };
    int hourDigits = 0;
    while (Scan::isDigit(line.size() > hourDigits ? line[hourDigits] : '\0') && hourDigits < 6)
        ++hourDigits;
    if (hourDigits < 2)
        return std::nullopt;
    const auto time = scan.timeOfDay(hourDigits);
    if (!time || !scan.endsPrefix())
        return std::nullopt;
    TimestampPrefix prefix;
    prefix.kind = Kind::Elapsed;
    prefix.micros = *time;
    prefix.length = scan.at;
    return prefix;
}

} // namespace

qint64 TimestampPrefix::epochMicros(int year) const
{
    if (kind == Kind::Epoch || (kind == Kind::Iso && !local))
        return micros;
    if (kind == Kind::Elapsed)
        return micros;
    QDate date;
    qint64 ofDay = 0;
    if (kind == Kind::Syslog) {
        date = QDate(year, month, day);
        if (!date.isValid()) // February 29th of a year that has none
            date = QDate(year, month, 28);
        ofDay = micros;
    } else {
        const qint64 days = micros >= 0 ? micros / 86'400'000'000
                                        : -((-micros + 86'399'999'999) / 86'400'000'000);
        date = QDate(1970, 1, 1).addDays(days);
        ofDay = micros - days * 86'400'000'000;
    }
    const QDateTime local(date, QTime::fromMSecsSinceStartOfDay(int(ofDay / 1000)), Qt::LocalTime);
    return local.toMSecsSinceEpoch() * 1000 + ofDay % 1000;
}

std::optional<TimestampPrefix> parseTimestampPrefix(QByteArrayView line,
                                                    std::optional<TimestampPrefix::Kind> kind)
{
    const auto wanted = [&kind](Kind k) {
        return !kind || *kind == k;
    };
    if (line.isEmpty())
        return std::nullopt;
    const char first = line[0];
    if (first >= 'A' && first <= 'S' && wanted(Kind::Syslog))
        return parseSyslog(line);
    if (!Scan::isDigit(first))
        return std::nullopt;
    if (wanted(Kind::Iso)) {
        if (auto iso = parseIso(line))
            return iso;
    }
    if (wanted(Kind::Elapsed)) {
        if (auto elapsed = parseElapsed(line))
            return elapsed;
    }
    if (wanted(Kind::Epoch))
        return parseEpoch(line);
    return std::nullopt;
}

} // namespace reconscope::controller::record
