#include "models/rfc3339.h"

namespace reconscope::models {

namespace {

// Reads exactly n decimal digits at text[pos...]; -1 when any is missing.
int readDigits(QStringView text, qsizetype pos, int n)
{
    if (pos + n > text.size())
        return -1;
    int value = 0;
    for (int i = 0; i < n; ++i) {
        const QChar c = text[pos + i];
        if (c < u'0' || c > u'9')
            return -1;
        value = value * 10 + (c.unicode() - u'0');
    }
    return value;
}

} // namespace

QString formatRfc3339(const QDateTime &time)
{
    if (!time.isValid())
        return {};
    return toWholeSecondsUtc(time).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ"));
}

QDateTime toWholeSecondsUtc(const QDateTime &time)
{
    if (!time.isValid())
        return {};
    const qint64 secs = time.toSecsSinceEpoch();
    return QDateTime::fromSecsSinceEpoch(secs, Qt::UTC);
}

std::optional<QDateTime> parseRfc3339(QStringView text)
{
    // date-time = full-date "T" partial-time time-offset (RFC 3339 section 5.6)
    if (text.size() < 20)
        return std::nullopt;
    const int year = readDigits(text, 0, 4);
    const int month = readDigits(text, 5, 2);
    const int day = readDigits(text, 8, 2);
    const int hour = readDigits(text, 11, 2);
    const int minute = readDigits(text, 14, 2);
    const int second = readDigits(text, 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0)
        return std::nullopt;
    if (text[4] != u'-' || text[7] != u'-' || (text[10] != u'T' && text[10] != u't')
        || text[13] != u':' || text[16] != u':')
        return std::nullopt;
    qsizetype pos = 19;
    int msec = 0;
    if (pos < text.size() && text[pos] == u'.') {
        ++pos;
        const qsizetype fractionStart = pos;
        int scale = 100;
        while (pos < text.size() && text[pos] >= u'0' && text[pos] <= u'9') {
            msec += (text[pos].unicode() - u'0') * scale;
            scale /= 10;
            ++pos;
        }
        if (pos == fractionStart)
            return std::nullopt;
    }
    if (pos >= text.size())
        return std::nullopt;
    int offsetSecs = 0;
    if (text[pos] == u'Z' || text[pos] == u'z') {
        ++pos;
    } else if (text[pos] == u'+' || text[pos] == u'-') {
        const int sign = text[pos] == u'-' ? -1 : 1;
        const int offHour = readDigits(text, pos + 1, 2);
        const int offMinute = readDigits(text, pos + 4, 2);
        if (offHour < 0 || offMinute < 0 || text[pos + 3] != u':' || offHour > 23 || offMinute > 59)
            return std::nullopt;
        offsetSecs = sign * (offHour * 3600 + offMinute * 60);
        pos += 6;
    } else {
        return std::nullopt;
    }
    if (pos != text.size())
        return std::nullopt;
    // A leap second (":60") is valid RFC 3339; QTime has no room for it, so it becomes :59.
    const QDate date(year, month, day);
    const QTime clock(hour, minute, second == 60 ? 59 : second, msec);
    if (!date.isValid() || !clock.isValid())
        return std::nullopt;
    QDateTime result(date, clock, Qt::OffsetFromUTC, offsetSecs);
    if (!result.isValid())
        return std::nullopt;
    return result.toUTC();
}

} // namespace reconscope::models
