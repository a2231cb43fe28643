#include "controller/cluster/schema/dnsnames.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

QStringList dns1035LabelErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 63)
        errors.append(u"must be no more than 63 characters"_s);
    static const QRegularExpression re(u"\\A[a-z]([-a-z0-9]*[a-z0-9])?\\z"_s);
    if (!re.match(value).hasMatch())
        errors.append(
            u"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            u"with an alphabetic character, and end with an alphanumeric character (e.g. "
            u"'my-name',  or 'abc-123', regex used for validation is "
            u"'[a-z]([-a-z0-9]*[a-z0-9])?')"_s);
    return errors;
}

QStringList dns1123SubdomainErrors(const QString &value)
{
    QStringList errors;
    if (value.size() > 253)
        errors.append(u"must be no more than 253 characters"_s);
    static const QRegularExpression re(
        u"\\A[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\z"_s);
    if (!re.match(value).hasMatch())
        errors.append(
            u"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            u"'-' or '.', and must start and end with an alphanumeric character (e.g. "
            u"'example.com', regex used for validation is "
            u"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s);
    return errors;
}

} // namespace reconscope::controller::cluster
