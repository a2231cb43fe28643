#include "models/yamljson.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using reconscope::tests::readFile;

class tst_YamlJson : public QObject
{
    Q_OBJECT

private slots:
    void scalars_data();
    void scalars();
    void structures_data();
    void structures();
    void errors_data();
    void errors();
    void documents();
    void aliasBombIsRefused();
    void streamThatLoopsTheParserIsRefused();
    void realFixtures();
};

void tst_YamlJson::scalars_data()
{
    // A value under key "a"; the expected compact JSON of that value (types matter: 1 vs 1.0).
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QByteArray>("json");

    QTest::newRow("true") << QByteArray("true") << QByteArray("true");
    QTest::newRow("True") << QByteArray("True") << QByteArray("true");
    QTest::newRow("FALSE") << QByteArray("FALSE") << QByteArray("false");
    QTest::newRow("yes") << QByteArray("yes") << QByteArray("true");
    QTest::newRow("No") << QByteArray("No") << QByteArray("false");
    QTest::newRow("on") << QByteArray("on") << QByteArray("true");
    QTest::newRow("OFF") << QByteArray("OFF") << QByteArray("false");
    QTest::newRow("y") << QByteArray("y") << QByteArray("true");
    QTest::newRow("n") << QByteArray("n") << QByteArray("false");
    QTest::newRow("quoted true") << QByteArray("'true'") << QByteArray("\"true\"");
    QTest::newRow("double-quoted yes") << QByteArray("\"yes\"") << QByteArray("\"yes\"");
    QTest::newRow("tRUE is a string") << QByteArray("tRUE") << QByteArray("\"tRUE\"");
    QTest::newRow("null") << QByteArray("null") << QByteArray("null");
    QTest::newRow("tilde") << QByteArray("~") << QByteArray("null");
    QTest::newRow("empty") << QByteArray("") << QByteArray("null");
    QTest::newRow("quoted null") << QByteArray("'null'") << QByteArray("\"null\"");
    QTest::newRow("quoted empty") << QByteArray("''") << QByteArray("\"\"");
    QTest::newRow("int") << QByteArray("42") << QByteArray("42");
    QTest::newRow("negative") << QByteArray("-42") << QByteArray("-42");
    QTest::newRow("plus") << QByteArray("+42") << QByteArray("42");
    QTest::newRow("quoted int") << QByteArray("\"42\"") << QByteArray("\"42\"");
    QTest::newRow("hex") << QByteArray("0x1F") << QByteArray("31");
    QTest::newRow("octal 0o") << QByteArray("0o17") << QByteArray("15");
    QTest::newRow("octal leading 0") << QByteArray("0755") << QByteArray("493");
    QTest::newRow("binary") << QByteArray("0b101") << QByteArray("5");
    QTest::newRow("underscores") << QByteArray("1_000_000") << QByteArray("1000000");
    QTest::newRow("zero") << QByteArray("0") << QByteArray("0");
    QTest::newRow("int64 max") << QByteArray("9223372036854775807")
                               << QByteArray("9223372036854775807");
    QTest::newRow("int64 min") << QByteArray("-9223372036854775808")
                               << QByteArray("-9223372036854775808");
    QTest::newRow("2^53+1") << QByteArray("9007199254740993") << QByteArray("9007199254740993");
    QTest::newRow("uint64") << QByteArray("18446744073709551615")
                            << QByteArray("18446744073709551615");
    QTest::newRow("beyond uint64")
        << QByteArray("18446744073709551616") << QByteArray("1.8446744073709552e+19");
    QTest::newRow("float") << QByteArray("1.5") << QByteArray("1.5");
    QTest::newRow("version-like float") << QByteArray("1.30") << QByteArray("1.3");
    QTest::newRow("quoted version") << QByteArray("\"1.30\"") << QByteArray("\"1.30\"");
    QTest::newRow("exponent") << QByteArray("1e3") << QByteArray("1000.0");
    QTest::newRow("leading dot") << QByteArray(".5") << QByteArray("0.5");
    QTest::newRow("08 is a float (go-yaml)") << QByteArray("08") << QByteArray("8.0");
    QTest::newRow("dotted version") << QByteArray("1.2.3") << QByteArray("\"1.2.3\"");
    QTest::newRow("timestamp stays a string")
        << QByteArray("2024-01-12T17:47:04Z") << QByteArray("\"2024-01-12T17:47:04Z\"");
    QTest::newRow("date stays a string")
        << QByteArray("2024-01-12") << QByteArray("\"2024-01-12\"");
    QTest::newRow("duration") << QByteArray("1m") << QByteArray("\"1m\"");
    QTest::newRow("cron") << QByteArray("00 17 * * 1-5") << QByteArray("\"00 17 * * 1-5\"");
    QTest::newRow("!!str int") << QByteArray("!!str 123") << QByteArray("\"123\"");
    QTest::newRow("!!int quoted") << QByteArray("!!int \"42\"") << QByteArray("42");
    QTest::newRow("!!float int") << QByteArray("!!float 1") << QByteArray("1.0");
    QTest::newRow("!!bool") << QByteArray("!!bool yes") << QByteArray("true");
    QTest::newRow("custom tag") << QByteArray("!Ref 12") << QByteArray("\"12\"");
    QTest::newRow("literal block")
        << QByteArray("|\n  x: 1\n  y\n") << QByteArray("\"x: 1\\ny\\n\"");
    QTest::newRow("folded block") << QByteArray(">-\n  a\n  b\n") << QByteArray("\"a b\"");
    QTest::newRow("unicode") << QByteArray("\"caf\\u00e9\"") << QByteArray("\"caf\xc3\xa9\"");
}

void tst_YamlJson::scalars()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QByteArray, json);
    auto result = yamlToJson("a: " + yaml + "\n");
    QVERIFY2(result.ok(), qPrintable(result.ok() ? QString() : result.error().message));
    QCOMPARE(QByteArray::fromStdString(result->at("a").dump()), json);
}

void tst_YamlJson::structures_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QByteArray>("json");

    QTest::newRow("nested") << QByteArray("a:\n  b: [1, two, {c: d}]\n  e: {}\n  f: []\n")
                            << QByteArray(R"({"a":{"b":[1,"two",{"c":"d"}],"e":{},"f":[]}})");
    QTest::newRow("block sequence")
        << QByteArray("- a\n- 2\n- - x\n") << QByteArray(R"(["a",2,["x"]])");
    QTest::newRow("int and bool keys")
        << QByteArray("1: a\ntrue: b\nyes: c\n~: d\n1.5: e\n")
        << QByteArray(R"({"1":"a","1.5":"e","null":"d","true":"c"})");
    QTest::newRow("quoted key stays") << QByteArray("'yes': a\n") << QByteArray(R"({"yes":"a"})");
    QTest::newRow("alias") << QByteArray("a: &x {k: 1}\nb: *x\n")
                           << QByteArray(R"({"a":{"k":1},"b":{"k":1}})");
    QTest::newRow("merge") << QByteArray("base: &b {x: 1, z: 2}\nd:\n  <<: *b\n  z: 3\n")
                           << QByteArray(R"({"base":{"x":1,"z":2},"d":{"x":1,"z":3}})");
    // go-yaml v2 (and so sigs.k8s.io/yaml) reads a plain y / n key as a boolean.
    QTest::newRow("y key is true")
        << QByteArray("y: 1\nn: 2\n") << QByteArray(R"({"false":2,"true":1})");
    QTest::newRow("merge list, first wins")
        << QByteArray("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nd:\n  <<: [*a, *b]\n")
        << QByteArray(R"({"a":{"x":1},"b":{"x":2,"z":2},"d":{"x":1,"z":2}})");
    QTest::newRow("explicit key before merge wins")
        << QByteArray("b: &b {x: 1}\nd: {x: 9, <<: *b}\n")
        << QByteArray(R"({"b":{"x":1},"d":{"x":9}})");
    QTest::newRow("duplicate key, last wins")
        << QByteArray("a: 1\na: 2\n") << QByteArray(R"({"a":2})");
    QTest::newRow("comment only") << QByteArray("# nothing\n") << QByteArray("null");
    QTest::newRow("top-level scalar") << QByteArray("42\n") << QByteArray("42");
    QTest::newRow("json is yaml") << QByteArray(R"({"a": [1, 2.5, "x", true, null]})")
                                  << QByteArray(R"({"a":[1,2.5,"x",true,null]})");
}

void tst_YamlJson::structures()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QByteArray, json);
    auto result = yamlToJson(yaml);
    QVERIFY2(result.ok(), qPrintable(result.ok() ? QString() : result.error().message));
    QCOMPARE(QByteArray::fromStdString(result->dump()), json);
}

void tst_YamlJson::errors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("inf") << QByteArray("a: .inf\n") << u".inf has no JSON representation (line 1"_s;
    QTest::newRow("nan") << QByteArray("a: -.Inf\n") << u"no JSON representation"_s;
    QTest::newRow("unclosed flow") << QByteArray("a: [1, 2\n") << u"(line "_s;
    QTest::newRow("bad indentation") << QByteArray("a:\n  b: 1\n c: 2\n") << u"YAML: "_s;
    QTest::newRow("complex key") << QByteArray("? [1, 2]\n: x\n")
                                 << u"a mapping key must be a scalar"_s;
    QTest::newRow("bad !!int") << QByteArray("a: !!int abc\n") << u"cannot read \"abc\" as !!int"_s;
    QTest::newRow("merge of scalar") << QByteArray("a:\n  <<: 3\n") << u"merge key"_s;
    QTest::newRow("deep flow nesting")
        << "a: " + QByteArray(3000, '[') + QByteArray(3000, ']') << u"nesting too deep"_s;
    QTest::newRow("recursive alias") << QByteArray("a: &a [1, *a]\n") << u"recursive alias"_s;
    QTest::newRow("two documents")
        << QByteArray("a: 1\n---\nb: 2\n") << u"expected one document, found 2"_s;
}

void tst_YamlJson::errors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, messagePart);
    auto result = yamlToJson(yaml);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(messagePart), qPrintable(result.error().message));
}

void tst_YamlJson::documents()
{
    auto documents = yamlDocumentsToJson("---\na: 1\n---\n---\n# empty\n---\nb: '2'\n...\n");
    QVERIFY(documents.ok());
    QCOMPARE(documents->size(), 2);
    QCOMPARE(documents->at(0).dump(), std::string(R"({"a":1})"));
    QCOMPARE(documents->at(1).dump(), std::string(R"({"b":"2"})"));
    auto none = yamlDocumentsToJson("");
    QVERIFY(none.ok());
    QVERIFY(none->isEmpty());
    auto empty = yamlToJson("");
    QVERIFY(empty.ok());
    QVERIFY(empty->is_null());
}

// A body the API-handler fuzz target found: yaml-cpp's LoadAll hands back empty documents for
// ever on it (jbeder/yaml-cpp#1319). It must end with an error instead.
void tst_YamlJson::streamThatLoopsTheParserIsRefused()
{
    QFile file(QStringLiteral(RECONSCOPE_SOURCE_DIR)
               + u"/tests/fuzz/corpus/fuzz_apiserver/timeout-yaml-loadall-no-progress"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray request = file.readAll();
    const QByteArray body = request.mid(request.indexOf("\n\n") + 2);
    QVERIFY(body.startsWith("{"));
    auto result = yamlDocumentsToJson(body);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(u"no progress"_s), qPrintable(result.error().message));
}

void tst_YamlJson::aliasBombIsRefused()
{
    QByteArray yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 9; ++i)
        yaml += QByteArray(
                    "a%1: &a%1 [*a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2, *a%2]\n")
                    .replace("%1", QByteArray::number(i))
                    .replace("%2", QByteArray::number(i - 1));
    auto result = yamlToJson(yaml);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.contains(u"more than 10000000 values"_s),
             qPrintable(result.error().message));
}

void tst_YamlJson::realFixtures()
{
    const QString root = QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds");
    int files = 0;
    for (const QString &dir : { u"crds"_s, u"objects"_s }) {
        for (const QString &file :
             QDir(root + u'/' + dir).entryList({ u"*.yaml"_s }, QDir::Files)) {
            auto json = yamlToJson(readFile(root + u'/' + dir + u'/' + file));
            QVERIFY2(json.ok(),
                     qPrintable(file + u": "_s + (json.ok() ? QString() : json.error().message)));
            QVERIFY2(json->is_object() && json->contains("metadata"), qPrintable(file));
            ++files;
        }
    }
    QVERIFY(files >= 30);

    auto app = yamlToJson(readFile(root + u"/objects/application-healthy-synced.yaml"_s));
    QVERIFY(app.ok());
    const nlohmann::json &metadata = app->at("metadata");
    QVERIFY(metadata.at("generation").is_number_integer());
    QCOMPARE(metadata.at("generation").get<std::int64_t>(), 263);
    QVERIFY(metadata.at("resourceVersion").is_string());
    QCOMPARE(metadata.at("labels").at("preview").get<std::string>(), std::string("true"));
    QCOMPARE(
        metadata.at("annotations").at("argocd-notif-onDeployed.slack-disabled").get<std::string>(),
        std::string());
    QVERIFY(app->at("spec").at("syncPolicy").at("retry").at("limit").is_number_integer());

    auto keda = yamlToJson(readFile(root + u"/objects/scaledobject-ready.yaml"_s));
    QVERIFY(keda.ok());
    QVERIFY(keda->at("metadata").at("annotations").is_null());
    QCOMPARE(keda->at("spec")
                 .at("triggers")
                 .at(0)
                 .at("metadata")
                 .at("desiredReplicas")
                 .get<std::string>(),
             std::string("1"));
    QCOMPARE(keda->at("status").at("conditions").at(0).at("status").get<std::string>(),
             std::string("True"));

    auto aws
        = yamlToJson(readFile(root + u"/objects/awsmanagedcontrolplane-stale-generation.yaml"_s));
    QVERIFY(aws.ok());
    QCOMPARE(aws->at("spec").at("version").get<std::string>(), std::string("1.30"));
    QVERIFY(aws->at("status").at("ready").is_boolean());
}

QTEST_APPLESS_MAIN(tst_YamlJson)
#include "tst_yamljson.moc"
