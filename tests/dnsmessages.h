#pragma once

// apimachinery's DNS-name and label-value messages (k8s.io/apimachinery/pkg/util/validation,
// v0.36.3), written out independently of models/dnsnames: what the unit test and the e2e test
// against both servers expect.
#include <QString>

namespace reconscope::tests {

using namespace Qt::StringLiterals;

const QString label1123
    = u"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      u"must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      u"used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"_s;
const QString subdomain1123
    = u"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      u"'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      u"used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s;
const QString label1035
    = u"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      u"alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      u"'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"_s;

const QString labelValue
    = u"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      u"'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      u"'my_value',  or '12345', regex used for validation is "
      u"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"_s;

} // namespace reconscope::tests
