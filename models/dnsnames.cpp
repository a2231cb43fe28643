#include "models/dnsnames.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

constexpr qsizetype dns1123LabelMaxLength = 63;
constexpr qsizetype dns1123SubdomainMaxLength = 253;
constexpr qsizetype dns1035LabelMaxLength = 63;
constexpr qsizetype labelValueMaxLength = 63;
constexpr qsizetype qualifiedNameMaxLength = 63;

bool isLowerAlpha(QChar c)
{
    return c >= u'a' && c <= u'z';
}

bool isLowerAlnum(QChar c)
{
    return isLowerAlpha(c) || (c >= u'0' && c <= u'9');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])? or, with `alphaFirst`, [a-z]([-a-z0-9]*[a-z0-9])?, matched whole.
bool matchesLabel(QStringView value, bool alphaFirst)
{
    if (value.isEmpty() || !(alphaFirst ? isLowerAlpha(value.front()) : isLowerAlnum(value.front()))
        || !isLowerAlnum(value.back()))
        return false;
    for (const QChar c : value) {
        if (!isLowerAlnum(c) && c != u'-')
            return false;
    }
    return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, matched whole.
bool matchesSubdomain(QStringView value)
{
    for (const QStringView label : value.tokenize(u'.', Qt::KeepEmptyParts)) {
        if (!matchesLabel(label, false))
            return false;
    }
    return !value.isEmpty();
}

bool isAlnum(QChar c)
{
    return isLowerAlnum(c) || (c >= u'A' && c <= u'Z');
}

// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?, matched whole.
bool matchesLabelValue(QStringView value)
{
    if (value.isEmpty())
        return true;
    if (!isAlnum(value.front()) || !isAlnum(value.back()))
        return false;
    for (const QChar c : value) {
        if (!isAlnum(c) && c != u'-' && c != u'_' && c != u'.')
            return false;
    }
    return true;
}

qsizetype goLength(const QString &value)
{
    return value.toUtf8().size();
}

QString maxLenError(qsizetype length)
{
    return u"must be no more than %1 characters"_s.arg(length);
}

} // namespace

QStringList isDNS1123Label(const QString &value)
{
    QStringList errors;
    if (goLength(value) > dns1123LabelMaxLength)
        errors.append(maxLenError(dns1123LabelMaxLength));
    if (!matchesLabel(value, false)) {
        if (matchesSubdomain(value))
            errors.append(u"must not contain dots"_s);
        else
            errors.append(u"a lowercase RFC 1123 label must consist of lower case alphanumeric "
                          u"characters or '-', and must start and end with an alphanumeric "
                          u"character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                          u"'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"_s);
    }
    return errors;
}

QStringList isDNS1123Subdomain(const QString &value)
{
    QStringList errors;
    if (goLength(value) > dns1123SubdomainMaxLength)
        errors.append(maxLenError(dns1123SubdomainMaxLength));
    if (!matchesSubdomain(value))
        errors.append(
            u"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            u"'-' or '.', and must start and end with an alphanumeric character (e.g. "
            u"'example.com', regex used for validation is "
            u"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s);
    return errors;
}

QStringList isDNS1035Label(const QString &value)
{
    QStringList errors;
    if (goLength(value) > dns1035LabelMaxLength)
        errors.append(maxLenError(dns1035LabelMaxLength));
    if (!matchesLabel(value, true))
        errors.append(
            u"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            u"with an alphabetic character, and end with an alphanumeric character (e.g. "
            u"'my-name',  or 'abc-123', regex used for validation is "
            u"'[a-z]([-a-z0-9]*[a-z0-9])?')"_s);
    return errors;
}

QStringList isValidLabelValue(const QString &value)
{
    QStringList errors;
    if (goLength(value) > labelValueMaxLength)
        errors.append(u"must be no more than %1 bytes"_s.arg(labelValueMaxLength));
    if (!matchesLabelValue(value))
        errors.append(u"a valid label must be an empty string or consist of alphanumeric "
                      u"characters, '-', '_' or '.', and must start and end with an alphanumeric "
                      u"character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                      u"validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s);
    return errors;
}

QStringList isQualifiedName(const QString &value)
{
    static const QString nameFormat
        = u"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
          u"an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
          u"validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"_s;
    QStringList errors;
    const QList<QStringView> parts = QStringView(value).split(u'/');
    QStringView name = parts.first();
    if (parts.size() > 2)
        return {
            u"a valid label key "_s + nameFormat
            + u" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"_s
        };
    if (parts.size() == 2) {
        name = parts[1];
        const QString prefix = parts[0].toString();
        if (prefix.isEmpty()) {
            errors.append(u"prefix part must be non-empty"_s);
        } else {
            // content.IsDNS1123Subdomain, whose length message counts bytes.
            for (QString message : isDNS1123Subdomain(prefix)) {
                if (message.startsWith(u"must be no more than"_s))
                    message.replace(u" characters"_s, u" bytes"_s);
                errors.append(u"prefix part "_s + message);
            }
        }
    }
    if (name.isEmpty())
        errors.append(u"name part must be non-empty"_s);
    else if (goLength(name.toString()) > qualifiedNameMaxLength)
        errors.append(u"name part must be no more than %1 bytes"_s.arg(qualifiedNameMaxLength));
    if (name.isEmpty() || !matchesLabelValue(name))
        errors.append(u"name part "_s + nameFormat);
    return errors;
}

QStringList isConfigMapKey(const QString &value)
{
    QStringList errors;
    if (goLength(value) > dns1123SubdomainMaxLength)
        errors.append(maxLenError(dns1123SubdomainMaxLength));
    const bool charset = !value.isEmpty() && std::all_of(value.begin(), value.end(), [](QChar c) {
        return isAlnum(c) || c == u'-' || c == u'_' || c == u'.';
    });
    if (!charset)
        errors.append(u"a valid config key must consist of alphanumeric characters, '-', '_' or "
                      u"'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                      u"validation is '[-._a-zA-Z0-9]+')"_s);
    if (value == u".")
        errors.append(u"must not be '.'"_s);
    else if (value == u"..")
        errors.append(u"must not be '..'"_s);
    else if (value.startsWith(u".."))
        errors.append(u"must not start with '..'"_s);
    return errors;
}

QStringList isValidPortName(const QString &value)
{
    QStringList errors;
    if (goLength(value) > 15)
        errors.append(maxLenError(15));
    if (value.isEmpty() || !std::all_of(value.begin(), value.end(), [](QChar c) {
            return isLowerAlnum(c) || c == u'-';
        }))
        errors.append(u"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"_s);
    if (!std::any_of(value.begin(), value.end(), isLowerAlpha))
        errors.append(u"must contain at least one letter (a-z)"_s);
    if (value.contains(u"--"))
        errors.append(u"must not contain consecutive hyphens"_s);
    if (!value.isEmpty() && (value.front() == u'-' || value.back() == u'-'))
        errors.append(u"must not begin or end with a hyphen"_s);
    return errors;
}

} // namespace reconscope::models
