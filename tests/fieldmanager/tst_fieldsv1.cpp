// Field paths, the fieldsV1 codec and the names of managers (controller/fieldowner): the forms
// kube-apiserver writes, read back unchanged; malformed input refused with a message.

#include "controller/fieldowner/fieldpath.h"
#include "controller/fieldowner/fieldsv1.h"
#include "controller/fieldowner/managedfields.h"
#include "controller/fieldowner/typedvalue.h"
#include "controller/fieldowner/typeschema.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace reconscope::controller::fieldowner;
using json = nlohmann::json;

// Raw strings stay out of macro arguments, where moc cannot follow them.
static QString text(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

class tst_FieldsV1 : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void malformed_data();
    void malformed();
    void lenientForms();
    void pathStrings();
    void setOperations();
    void managerNames_data();
    void managerNames();
    void fieldSetOfObject();
    void setMergeOrder_data();
    void setMergeOrder();
};

void tst_FieldsV1::roundTrip_data()
{
    QTest::addColumn<QString>("fields");
    QTest::newRow("empty") << text(R"({})");
    QTest::newRow("fields") << text(R"({"f:spec":{"f:image":{},"f:replicas":{}}})");
    QTest::newRow("member with children")
        << text(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})");
    QTest::newRow("list-map keys") << text(
        R"({"f:spec":{"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}})");
    QTest::newRow("two keys sorted") << text(
        R"({"f:spec":{"f:endpoints":{"k:{\"host\":\"a\",\"port\":1}":{".":{},"f:weight":{}}}}})");
    QTest::newRow("set members") << text(
        R"({"f:spec":{"f:tags":{"v:\"a\"":{},"v:1":{},"v:true":{}}}})");
    QTest::newRow("index") << text(R"({"f:list":{"i:0":{},"i:12":{"f:x":{}}}})");
    QTest::newRow("html escaped key") << text(R"({"f:tags":{"v:\"\\u003cb\\u003e\\u0026\"":{}}})");
}

void tst_FieldsV1::roundTrip()
{
    QFETCH(QString, fields);
    const json value = json::parse(fields.toStdString());
    auto set = decodeFieldsV1(value);
    QVERIFY2(set, qPrintable(set ? QString() : set.error().message));
    QCOMPARE(QString::fromStdString(encodeFieldsV1(*set).dump()),
             QString::fromStdString(value.dump()));
}

void tst_FieldsV1::malformed_data()
{
    QTest::addColumn<QString>("fields");
    QTest::addColumn<QString>("error");
    QTest::newRow("not an object")
        << text(R"([1])") << QStringLiteral("fieldsV1 at the top is a array, not an object");
    QTest::newRow("child not an object")
        << text(R"({"f:a":3})") << QStringLiteral("fieldsV1 at .a is a number, not an object");
    QTest::newRow("short key")
        << text(R"({"f":{}})")
        << QStringLiteral(
               "fieldsV1 key \"f\" at the top: a path element is at least 2 characters long");
    QTest::newRow("no colon") << text(R"({"f-a":{}})")
                              << QStringLiteral("fieldsV1 key \"f-a\" at the top: missing colon");
    QTest::newRow("bad key json")
        << text("{\"f:a\":{\"k:{\\\"x\\\"\":{}}}")
        << QStringLiteral("fieldsV1 key \"k:{\\\"x\\\"\" at .a: not JSON after \"k:\"");
    QTest::newRow("key not object") << text(R"({"k:[1]":{}})")
                                    << QStringLiteral("fieldsV1 key \"k:[1]\" at the top: the key "
                                                      "fields after \"k:\" are not a JSON object");
    QTest::newRow("bad value") << text(R"({"v:nope":{}})")
                               << QStringLiteral(
                                      "fieldsV1 key \"v:nope\" at the top: not JSON after \"v:\"");
    QTest::newRow("bad index")
        << text(R"({"i:1x":{}})")
        << QStringLiteral("fieldsV1 key \"i:1x\" at the top: not an index after \"i:\"");
}

void tst_FieldsV1::malformed()
{
    QFETCH(QString, fields);
    QFETCH(QString, error);
    auto set = decodeFieldsV1(json::parse(fields.toStdString()));
    QVERIFY(!set);
    QCOMPARE(set.error().message, error);
}

void tst_FieldsV1::lenientForms()
{
    // Unknown element types are dropped; null and "." alone mean the path itself.
    auto set = decodeFieldsV1(
        json::parse(R"({"x:later":{},"f:a":null,"f:b":{".":{}},"f:c":{"z:q":{}}})"));
    QVERIFY(set);
    QCOMPARE(QString::fromStdString(encodeFieldsV1(*set).dump()),
             text(R"({"f:a":{},"f:b":{},"f:c":{}})"));
    // Deep nesting is refused, not a stack overflow.
    json deep = json::object();
    for (int i = 0; i < 300; ++i)
        deep = json{ { "f:a", deep } };
    QVERIFY(!decodeFieldsV1(deep));
    // A managedFields list that is not one.
    QVERIFY(!decodeManagedFields(json::parse(R"({"manager":"x"})")));
    QCOMPARE(decodeManagedFields(
                 json::parse(R"([{"manager":"x","operation":"Apply","apiVersion":"v1"}])"))
                 .error()
                 .message,
             QStringLiteral("missing fieldsType in managed fields entry 0"));
    QCOMPARE(
        decodeManagedFields(
            json::parse(
                R"([{"manager":"x","operation":"Patch","apiVersion":"v1","fieldsType":"FieldsV1"}])"))
            .error()
            .message,
        QStringLiteral("operation must be `Apply` or `Update`"));
}

void tst_FieldsV1::pathStrings()
{
    const Path path{ PathElement::field("spec"),
                     PathElement::field("ports"),
                     PathElement::key({ { "port", 80 }, { "name", "http" } }),
                     PathElement::field("protocol") };
    QCOMPARE(QString::fromStdString(pathString(path)),
             QStringLiteral(".spec.ports[name=\"http\",port=80].protocol"));
    QCOMPARE(QString::fromStdString(
                 pathString({ PathElement::field("tags"), PathElement::member("a\tb") })),
             QStringLiteral(".tags[=\"a\\tb\"]"));
    QCOMPARE(QString::fromStdString(pathString(
                 { PathElement::at(3), PathElement::member(1.5), PathElement::member(true) })),
             QStringLiteral("[3][=1.5][=true]"));
    QCOMPARE(QString::fromStdString(encodePathElement(PathElement::member(1e-7))),
             QStringLiteral("v:1e-7"));
    // Upstream's order: fields, keys, values, indices; values numbers before strings.
    QVERIFY(PathElement::field("z") < PathElement::key({ { "a", 1 } }));
    QVERIFY(PathElement::member(2) < PathElement::member("1"));
    QVERIFY(PathElement::member(1) < PathElement::member(1.5));
}

void tst_FieldsV1::setOperations()
{
    auto a = *decodeFieldsV1(json::parse(R"({"f:spec":{".":{},"f:a":{},"f:b":{"f:c":{}}}})"));
    auto b = *decodeFieldsV1(json::parse(R"({"f:spec":{"f:b":{}}})"));
    QCOMPARE(QString::fromStdString(encodeFieldsV1(a.difference(b)).dump()),
             text(R"({"f:spec":{".":{},"f:a":{},"f:b":{"f:c":{}}}})"));
    QCOMPARE(QString::fromStdString(encodeFieldsV1(a.recursiveDifference(b)).dump()),
             text(R"({"f:spec":{".":{},"f:a":{}}})"));
    QCOMPARE(QString::fromStdString(encodeFieldsV1(a.intersection(b)).dump()), text(R"({})"));
    QCOMPARE(QString::fromStdString(encodeFieldsV1(b.unite(a)).dump()),
             QString::fromStdString(encodeFieldsV1(a.unite(b)).dump()));
    QVERIFY(
        a.has({ PathElement::field("spec"), PathElement::field("b"), PathElement::field("c") }));
    QVERIFY(!a.has({ PathElement::field("spec"), PathElement::field("b") }));
    QCOMPARE(a.paths().size(), std::size_t(3));
}

void tst_FieldsV1::managerNames_data()
{
    QTest::addColumn<QString>("fieldManager");
    QTest::addColumn<QString>("userAgent");
    QTest::addColumn<QString>("name");
    QTest::newRow("field manager")
        << QStringLiteral("gitops") << QStringLiteral("kubectl/v1.36") << QStringLiteral("gitops");
    QTest::newRow("kubectl") << QString()
                             << QStringLiteral("kubectl/v1.36.3 (linux/amd64) kubernetes/abc")
                             << QStringLiteral("kubectl");
    QTest::newRow("client-go") << QString() << QStringLiteral("my-operator/v0.3.1 (linux/amd64) go")
                               << QStringLiteral("my-operator");
    QTest::newRow("no slash") << QString() << QStringLiteral("curl") << QStringLiteral("curl");
    QTest::newRow("unprintable dropped")
        << QString() << QStringLiteral("a\tb\u00a0c/1") << QStringLiteral("abc");
    QTest::newRow("empty") << QString() << QString() << QStringLiteral("unknown");
    QTest::newRow("cut at 128") << QString() << QString(200, QLatin1Char('x'))
                                << QString(128, QLatin1Char('x'));
}

void tst_FieldsV1::managerNames()
{
    QFETCH(QString, fieldManager);
    QFETCH(QString, userAgent);
    QFETCH(QString, name);
    QCOMPARE(QString::fromStdString(
                 updateManagerName(fieldManager.toStdString(), userAgent.toStdString())),
             name);
}

void tst_FieldsV1::fieldSetOfObject()
{
    const TypeRef type = types::fromCrdSchema(
        json::parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{
        "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
        "args":{"type":"array","items":{"type":"string"}},
        "limits":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"cpu":{"type":"string"}}},
        "env":{"type":"object","additionalProperties":{"type":"string"}}}}}})"));
    const json object
        = json::parse(R"({"apiVersion":"v1","kind":"K","metadata":{"name":"n","labels":{"a":"b"}},
        "spec":{"tags":["x","y"],"args":["p"],"limits":{"cpu":"1"},"env":{"E":"1"}}})");
    auto set = fieldSetOf(object, type, true);
    QVERIFY(set);
    QCOMPARE(QString::fromStdString(encodeFieldsV1(*set).dump()),
             text("{\"f:apiVersion\":{},\"f:kind\":{},\"f:metadata\":{\"f:labels\":{\"f:a\":{}},"
                  "\"f:name\":{}},"
                  "\"f:spec\":{\"f:args\":{},\"f:env\":{\"f:E\":{}},\"f:limits\":{},\"f:tags\":{"
                  "\"v:\\\"x\\\"\":{},\"v:\\\"y\\\"\":{}}}}"));
}

// The order a set merge leaves its items in: the live order kept, new items placed after the
// shared item they follow in the configuration, duplicates in the live list collapsed when the
// configuration names them (cases from structured-merge-diff's documented behaviour).
void tst_FieldsV1::setMergeOrder_data()
{
    QTest::addColumn<QByteArray>("live");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QByteArray>("merged");
    QTest::newRow("0") << QByteArray(R"(["a","b","c"])") << QByteArray(R"(["a","b"])")
                       << QByteArray(R"(["a","b","c"])");
    QTest::newRow("1") << QByteArray(R"(["a","b"])") << QByteArray(R"(["b","a"])")
                       << QByteArray(R"(["b","a"])");
    QTest::newRow("2") << QByteArray(R"(["a","b","c"])") << QByteArray(R"(["c","d","e","f"])")
                       << QByteArray(R"(["a","b","c","d","e","f"])");
    QTest::newRow("3") << QByteArray(R"(["a","b","c","g","f"])")
                       << QByteArray(R"(["c","d","e","f"])")
                       << QByteArray(R"(["a","b","c","g","d","e","f"])");
    QTest::newRow("4") << QByteArray(R"(["c","d","e","f"])") << QByteArray(R"(["a","c","e"])")
                       << QByteArray(R"(["a","c","d","e","f"])");
    QTest::newRow("5") << QByteArray(R"(["a","b","c","x","y","z"])")
                       << QByteArray(R"(["d","e","f","x","y","z"])")
                       << QByteArray(R"(["a","b","c","d","e","f","x","y","z"])");
    QTest::newRow("6") << QByteArray(R"(["c","a","g","f"])") << QByteArray(R"(["c","f","a","g"])")
                       << QByteArray(R"(["c","f","a","g"])");
    QTest::newRow("7") << QByteArray(R"(["a","b","c","d"])") << QByteArray(R"(["d","e","f","a"])")
                       << QByteArray(R"(["b","c","d","e","f","a"])");
    QTest::newRow("8") << QByteArray(R"(["c","d","e","f","g","h","i","j"])")
                       << QByteArray(R"(["2","h","3","e","4","k","l"])")
                       << QByteArray(R"(["c","d","f","g","2","h","i","j","3","e","4","k","l"])");
    QTest::newRow("9")
        << QByteArray(R"(["a","b","c","d","e","f","g","h","i","j"])")
        << QByteArray(R"(["1","b","2","h","3","e","4","k","l"])")
        << QByteArray(R"(["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"])");
    QTest::newRow("10") << QByteArray(R"(["a","b","b"])") << QByteArray(R"(["c"])")
                        << QByteArray(R"(["a","b","b","c"])");
    QTest::newRow("11") << QByteArray(R"(["a","b","b"])") << QByteArray(R"(["b"])")
                        << QByteArray(R"(["a","b"])");
    QTest::newRow("12") << QByteArray(R"(["a","b","c","d","e","c"])")
                        << QByteArray(R"(["1","b","2","e","d"])")
                        << QByteArray(R"(["a","1","b","c","2","e","c","d"])");
    QTest::newRow("13") << QByteArray(R"(["a","b","c","d","e","c"])")
                        << QByteArray(R"(["1","b","2","c","e","d"])")
                        << QByteArray(R"(["a","1","b","2","c","e","d"])");
    QTest::newRow("14") << QByteArray(R"(["a","a","b","b"])") << QByteArray(R"(["b","c","d"])")
                        << QByteArray(R"(["a","a","b","c","d"])");
    QTest::newRow("15") << QByteArray(R"(["a","a","b","b"])") << QByteArray(R"([])")
                        << QByteArray(R"(["a","a","b","b"])");
    QTest::newRow("16") << QByteArray(R"([1,2,3.5])") << QByteArray(R"([1,2,3])")
                        << QByteArray(R"([1,2,3.5,3])");
    QTest::newRow("17") << QByteArray(R"([true,false,true])") << QByteArray(R"([true])")
                        << QByteArray(R"([true,false])");
}

void tst_FieldsV1::setMergeOrder()
{
    QFETCH(QByteArray, live);
    QFETCH(QByteArray, config);
    QFETCH(QByteArray, merged);
    const TypeRef type = types::fromOpenApi(json::parse(
        R"({"type":"object","properties":{"set":{"type":"array","x-kubernetes-list-type":"set"}}})"));
    auto result = mergeTyped(json{ { "set", json::parse(live.toStdString()) } },
                             json{ { "set", json::parse(config.toStdString()) } },
                             type);
    QVERIFY(result);
    QCOMPARE(QString::fromStdString((*result)["set"].dump()),
             QString::fromStdString(json::parse(merged.toStdString()).dump()));
}

QTEST_GUILESS_MAIN(tst_FieldsV1)
#include "tst_fieldsv1.moc"
