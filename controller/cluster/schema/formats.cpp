#include "controller/cluster/schema/formats.h"

#include <QByteArray>
#include <QDate>
#include <QHash>
#include <QHostAddress>
#include <QRegularExpression>
#include <QString>
#include <QUrl>

#include <set>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster::formats {

namespace {

bool matches(const QString &pattern, const QString &value)
{
    // Compiled once per pattern and thread.
    thread_local QHash<QString, QRegularExpression> compiled;
    auto it = compiled.find(pattern);
    if (it == compiled.end())
        it = compiled.insert(pattern, QRegularExpression(u"\\A(?:"_s + pattern + u")\\z"_s));
    return it->match(value).hasMatch();
}

bool isDate(const QString &value)
{
    if (!matches(u"\\d{4}-\\d{2}-\\d{2}"_s, value))
        return false;
    return QDate::fromString(value, Qt::ISODate).isValid();
}

bool isDateTime(const QString &value)
{
    // strfmt.IsDateTime: a date, 'T' (either case), hh:mm:ss, an optional fraction, then 'Z' or
    // an offset with a colon; no leap seconds.
    static const QRegularExpression re(
        u"\\A(\\d{4}-\\d{2}-\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})\\z"_s);
    const auto m = re.match(value);
    if (!m.hasMatch() || !isDate(m.captured(1)))
        return false;
    return m.captured(2).toInt() <= 23 && m.captured(3).toInt() <= 59
        && m.captured(4).toInt() <= 59;
}

bool isDuration(const QString &value)
{
    // Go's time.ParseDuration, plus strfmt's "<n> <unit>" forms (d, w, ...).
    if (matches(u"[-+]?((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+|[-+]?0"_s,
                value))
        return true;
    return matches(
        u"\\d+\\s*(ns|us|\u00b5s|ms|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)"_s,
        value);
}

bool isHostname(const QString &value)
{
    if (value.size() > 255)
        return false;
    return matches(
        u"[a-zA-Z0-9\u00a1-\uffff]([a-zA-Z0-9\u00a1-\uffff-]{0,62}[a-zA-Z0-9\u00a1-\uffff])?"
        u"(\\.[a-zA-Z0-9\u00a1-\uffff]([a-zA-Z0-9\u00a1-\uffff-]{0,62}[a-zA-Z0-9\u00a1-\uffff])?)*\\.?"_s,
        value);
}

bool isIPv4(const QString &value)
{
    if (!matches(u"(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})"_s, value))
        return false;
    QHostAddress address;
    return address.setAddress(value) && address.protocol() == QHostAddress::IPv4Protocol;
}

bool isIPv6(const QString &value)
{
    if (!value.contains(u':'))
        return false;
    QHostAddress address;
    return address.setAddress(value) && address.protocol() == QHostAddress::IPv6Protocol;
}

bool isCidr(const QString &value)
{
    const qsizetype slash = value.indexOf(u'/');
    if (slash < 0)
        return false;
    const QString address = value.left(slash);
    bool ok = false;
    const int bits = value.mid(slash + 1).toInt(&ok);
    if (!ok || bits < 0)
        return false;
    if (isIPv4(address))
        return bits <= 32;
    return isIPv6(address) && bits <= 128;
}

bool isBase64(const std::string &value)
{
    const QByteArray bytes = QByteArray::fromStdString(value);
    auto decoded = QByteArray::fromBase64Encoding(bytes, QByteArray::AbortOnBase64DecodingErrors);
    return decoded.decodingStatus == QByteArray::Base64DecodingStatus::Ok;
}

} // namespace

bool isKnown(const std::string &format)
{
    static const std::set<std::string> known = {
        "bsonobjectid", "uri",        "email",    "hostname",  "ipv4",     "ipv6", "cidr",
        "mac",          "uuid",       "uuid3",    "uuid4",     "uuid5",    "isbn", "isbn10",
        "isbn13",       "creditcard", "ssn",      "hexcolor",  "rgbcolor", "byte", "password",
        "date",         "duration",   "datetime", "date-time",
    };
    return known.contains(format);
}

bool isValid(const std::string &format, const std::string &text)
{
    const QString value = QString::fromStdString(text);
    if (format == "date-time" || format == "datetime")
        return isDateTime(value);
    if (format == "date")
        return isDate(value);
    if (format == "duration")
        return isDuration(value);
    if (format == "byte")
        return isBase64(text);
    if (format == "hostname")
        return isHostname(value);
    if (format == "ipv4")
        return isIPv4(value);
    if (format == "ipv6")
        return isIPv6(value);
    if (format == "cidr")
        return isCidr(value);
    if (format == "uuid")
        return matches(u"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}"_s,
                       value);
    if (format == "uuid3")
        return matches(u"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}"_s,
                       value);
    if (format == "uuid4" || format == "uuid5") {
        const QString version = format == "uuid4" ? u"4"_s : u"5"_s;
        return matches(u"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?"_s + version
                           + u"[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}"_s,
                       value);
    }
    if (format == "mac")
        return matches(
            u"([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}|([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}|([0-9a-fA-F]{4}\\.){2}[0-9a-fA-F]{4}"_s,
            value);
    if (format == "email")
        return matches(u"[^@\\s]+@[^@\\s]+"_s, value);
    if (format == "uri") {
        const QUrl url(value, QUrl::StrictMode);
        return url.isValid() && !url.scheme().isEmpty();
    }
    if (format == "hexcolor")
        return matches(u"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"_s, value);
    if (format == "rgbcolor")
        return matches(u"rgb\\(\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*\\)"_s, value);
    if (format == "bsonobjectid")
        return matches(u"[0-9a-fA-F]{24}"_s, value);
    if (format == "ssn")
        return matches(u"\\d{3}[- ]?\\d{2}[- ]?\\d{4}"_s, value);
    if (format == "isbn" || format == "isbn10" || format == "isbn13") {
        QString digits = value;
        digits.remove(u'-').remove(u' ');
        if (format != "isbn13" && matches(u"\\d{9}[\\dXx]"_s, digits))
            return true;
        return format != "isbn10" && matches(u"\\d{13}"_s, digits);
    }
    if (format == "creditcard")
        return matches(u"[\\d -]{12,23}"_s, value);
    return true; // password, int32, int64, float, double, unknown formats: no check
}

} // namespace reconscope::controller::cluster::formats
