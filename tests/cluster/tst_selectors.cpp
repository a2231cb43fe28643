#include "controller/cluster/selectors.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

// Label and field selector grammar and matching (apimachinery labels.Parse / fields.ParseSelector).
class tst_Selectors : public QObject
{
    Q_OBJECT

private slots:
    void labelSelector_data();
    void labelSelector();
    void malformedLabelSelector_data();
    void malformedLabelSelector();
    void fieldSelector_data();
    void fieldSelector();
};

namespace {

LabelSet labels(std::initializer_list<std::pair<QString, QString>> pairs)
{
    LabelSet set(pairs);
    std::sort(set.begin(), set.end());
    return set;
}

} // namespace

void tst_Selectors::labelSelector_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<bool>("matchesWebProd"); // {app: web, env: prod, n: "5"}
    QTest::addColumn<bool>("matchesEmpty"); // {}
    QTest::newRow("empty") << u""_s << true << true;
    QTest::newRow("equals") << u"app=web"_s << true << false;
    QTest::newRow("double equals") << u"app==web"_s << true << false;
    QTest::newRow("not equals") << u"app!=web"_s << false << true;
    QTest::newRow("not equals other") << u"app!=db"_s << true << true;
    QTest::newRow("in") << u"env in (prod, staging)"_s << true << false;
    QTest::newRow("in miss") << u"env in (dev)"_s << false << false;
    QTest::newRow("notin") << u"env notin (dev,staging)"_s << true << true;
    QTest::newRow("notin hit") << u"env notin (prod)"_s << false << true;
    QTest::newRow("exists") << u"app"_s << true << false;
    QTest::newRow("does not exist") << u"!app"_s << false << true;
    QTest::newRow("does not exist other") << u"!tier"_s << true << true;
    QTest::newRow("and") << u"app=web,env in (prod),!tier"_s << true << false;
    QTest::newRow("and fails") << u"app=web,env=dev"_s << false << false;
    QTest::newRow("greater") << u"n>4"_s << true << false;
    QTest::newRow("less") << u"n<5"_s << false << false;
    QTest::newRow("prefixed key") << u"example.com/app!=x"_s << true << true;
    QTest::newRow("spaces") << u"  app = web ,  env  "_s << true << false;
    QTest::newRow("empty value") << u"app="_s << false << false;
}

void tst_Selectors::labelSelector()
{
    QFETCH(QString, selector);
    QFETCH(bool, matchesWebProd);
    QFETCH(bool, matchesEmpty);
    auto parsed = LabelSelector::parse(selector);
    QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().message));
    QCOMPARE(parsed->matches(
                 labels({ { u"app"_s, u"web"_s }, { u"env"_s, u"prod"_s }, { u"n"_s, u"5"_s } })),
             matchesWebProd);
    QCOMPARE(parsed->matches({}), matchesEmpty);
}

void tst_Selectors::malformedLabelSelector_data()
{
    QTest::addColumn<QString>("selector");
    QTest::newRow("dangling comma") << u"app=web,"_s;
    QTest::newRow("in without parens") << u"env in prod"_s;
    QTest::newRow("unclosed set") << u"env in (a,b"_s;
    QTest::newRow("empty set") << u"env in ()"_s;
    QTest::newRow("operator only") << u"=web"_s;
    QTest::newRow("gt not integer") << u"n>x"_s;
    QTest::newRow("double operator") << u"a==b==c"_s;
}

void tst_Selectors::malformedLabelSelector()
{
    QFETCH(QString, selector);
    QVERIFY(!LabelSelector::parse(selector).ok());
}

void tst_Selectors::fieldSelector_data()
{
    QTest::addColumn<QString>("selector");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("matches"); // {metadata.name: a,b  spec.color: red}
    QTest::newRow("empty") << u""_s << true << true;
    QTest::newRow("equals") << u"spec.color=red"_s << true << true;
    QTest::newRow("double equals") << u"spec.color==red"_s << true << true;
    QTest::newRow("not equals") << u"spec.color!=red"_s << true << false;
    QTest::newRow("escaped comma") << u"metadata.name=a\\,b"_s << true << true;
    QTest::newRow("two terms") << u"metadata.name=a\\,b,spec.color!=blue"_s << true << true;
    QTest::newRow("no operator") << u"spec.color"_s << false << false;
    QTest::newRow("bad escape") << u"metadata.name=a\\x"_s << false << false;
}

void tst_Selectors::fieldSelector()
{
    QFETCH(QString, selector);
    QFETCH(bool, valid);
    QFETCH(bool, matches);
    auto parsed = FieldSelector::parse(selector);
    QCOMPARE(parsed.ok(), valid);
    if (!valid)
        return;
    QCOMPARE(parsed->matches([](const QString &field) {
        return field == u"metadata.name" ? u"a,b"_s : field == u"spec.color" ? u"red"_s : QString();
    }),
             matches);
}

QTEST_GUILESS_MAIN(tst_Selectors)
#include "tst_selectors.moc"
