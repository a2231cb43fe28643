#include "models/dnsnames.h"
#include "tests/dnsmessages.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;

using namespace reconscope::tests;

namespace {

const QString tooLong63 = u"must be no more than 63 characters"_s;
const QString tooLong253 = u"must be no more than 253 characters"_s;

} // namespace

// The DNS name checks against k8s.io/apimachinery/pkg/util/validation's messages and its
// regexes' edge cases (whole-string match, empty labels, byte lengths).
class tst_DnsNames : public QObject
{
    Q_OBJECT

private slots:
    void checks_data();
    void checks();
};

void tst_DnsNames::checks_data()
{
    QTest::addColumn<QString>("check"); // label1123, subdomain, label1035, labelValue
    QTest::addColumn<QString>("value");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("1123 label ok") << u"label1123"_s << u"my-name"_s << QStringList();
    QTest::newRow("1123 label digit first") << u"label1123"_s << u"1abc"_s << QStringList();
    QTest::newRow("1123 label 63") << u"label1123"_s << QString(63, u'a') << QStringList();
    QTest::newRow("1123 label empty") << u"label1123"_s << QString() << QStringList{ label1123 };
    QTest::newRow("1123 label upper") << u"label1123"_s << u"Demo"_s << QStringList{ label1123 };
    QTest::newRow("1123 label dash last") << u"label1123"_s << u"a-"_s << QStringList{ label1123 };
    QTest::newRow("1123 label newline") << u"label1123"_s << u"abc\n"_s << QStringList{ label1123 };
    QTest::newRow("1123 label dots")
        << u"label1123"_s << u"a.b"_s << QStringList{ u"must not contain dots"_s };
    QTest::newRow("1123 label bad dots") << u"label1123"_s << u"a..b"_s << QStringList{ label1123 };
    QTest::newRow("1123 label too long")
        << u"label1123"_s << QString(64, u'a') << QStringList{ tooLong63 };
    QTest::newRow("1123 label too long and upper")
        << u"label1123"_s << QString(64, u'A') << QStringList{ tooLong63, label1123 };
    QTest::newRow("1123 label bytes")
        << u"label1123"_s << QString(32, QChar(0xe9)) << QStringList{ tooLong63, label1123 };

    QTest::newRow("subdomain ok") << u"subdomain"_s << u"example.com"_s << QStringList();
    QTest::newRow("subdomain 253") << u"subdomain"_s << QString(253, u'a') << QStringList();
    QTest::newRow("subdomain upper")
        << u"subdomain"_s << u"Example.com"_s << QStringList{ subdomain1123 };
    QTest::newRow("subdomain empty") << u"subdomain"_s << QString() << QStringList{ subdomain1123 };
    QTest::newRow("subdomain leading dot")
        << u"subdomain"_s << u".a"_s << QStringList{ subdomain1123 };
    QTest::newRow("subdomain trailing dot")
        << u"subdomain"_s << u"a."_s << QStringList{ subdomain1123 };
    QTest::newRow("subdomain double dot")
        << u"subdomain"_s << u"a..b"_s << QStringList{ subdomain1123 };
    QTest::newRow("subdomain dash before dot")
        << u"subdomain"_s << u"a-.b"_s << QStringList{ subdomain1123 };
    QTest::newRow("subdomain too long")
        << u"subdomain"_s << QString(254, u'a') << QStringList{ tooLong253 };
    QTest::newRow("subdomain too long and upper")
        << u"subdomain"_s << QString(254, u'A') << QStringList{ tooLong253, subdomain1123 };

    QTest::newRow("1035 ok") << u"label1035"_s << u"my-name"_s << QStringList();
    QTest::newRow("1035 digit first") << u"label1035"_s << u"1abc"_s << QStringList{ label1035 };
    QTest::newRow("1035 dot") << u"label1035"_s << u"a.b"_s << QStringList{ label1035 };
    QTest::newRow("1035 empty") << u"label1035"_s << QString() << QStringList{ label1035 };
    QTest::newRow("1035 too long")
        << u"label1035"_s << QString(64, u'a') << QStringList{ tooLong63 };
    QTest::newRow("1035 too long and upper")
        << u"label1035"_s << QString(64, u'A') << QStringList{ tooLong63, label1035 };

    QTest::newRow("label value ok") << u"labelValue"_s << u"My_value.1"_s << QStringList();
    QTest::newRow("label value empty") << u"labelValue"_s << QString() << QStringList();
    QTest::newRow("label value dash first")
        << u"labelValue"_s << u"-a"_s << QStringList{ labelValue };
    QTest::newRow("label value too long") << u"labelValue"_s << QString(64, u'A')
                                          << QStringList{ u"must be no more than 63 bytes"_s };
    QTest::newRow("label value bytes")
        << u"labelValue"_s << QString(32, QChar(0xe9))
        << QStringList{ u"must be no more than 63 bytes"_s, labelValue };
}

void tst_DnsNames::checks()
{
    QFETCH(QString, check);
    QFETCH(QString, value);
    QFETCH(QStringList, errors);
    const QStringList found = check == u"label1123"_s ? isDNS1123Label(value)
        : check == u"subdomain"_s                     ? isDNS1123Subdomain(value)
        : check == u"label1035"_s                     ? isDNS1035Label(value)
                                                      : isValidLabelValue(value);
    QCOMPARE(found, errors);
}

QTEST_GUILESS_MAIN(tst_DnsNames)
#include "tst_dnsnames.moc"
