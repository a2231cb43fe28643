#include "models/gojson.h"
#include "models/jsonsyntax.h"

#include <QRandomGenerator>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace reconscope::models;
using Json = nlohmann::json;

// compactJson against the recursive dump() it stands in for: the same text for every value, and
// text for values nested deeper than any stack would take recursively.
class tst_JsonSyntax : public QObject
{
    Q_OBJECT

private slots:
    void compactMatchesDump_data();
    void compactMatchesDump();
    void compactMatchesDumpOnRandomTrees();
    void compactWritesDeepValues();
    void goSyntaxErrors_data();
    void goSyntaxErrors();
    void goUnmarshalErrors();
};

void tst_JsonSyntax::compactMatchesDump_data()
{
    QTest::addColumn<QByteArray>("text");
    const char *const cases[] = {
        "null",
        "true",
        "0",
        "-9223372036854775808",
        "18446744073709551615",
        "1.5e300",
        "0.1",
        "-0.0",
        R"("")",
        R"("quote \" backslash \\ tab \t nul \u0000 del \u007f é \ud83d\ude00")",
        "[]",
        "{}",
        "[[]]",
        R"({"a":{}})",
        R"([1,[2,[3,{}]],{"k":[]}])",
        R"({"b":1,"a":[true,false,null],"":{"\n":"x"}})",
        R"({"metadata":{"name":"a","labels":{"z":"1","a":"2"}},"spec":{"x":[1.25,"s"]}})",
    };
    for (const char *text : cases)
        QTest::newRow(text) << QByteArray(text);
}

void tst_JsonSyntax::compactMatchesDump()
{
    QFETCH(QByteArray, text);
    const Json value = Json::parse(text.toStdString());
    QCOMPARE(compactJson(value), value.dump());
}

namespace {

Json randomValue(QRandomGenerator &random, int depth)
{
    const int kind = int(random.bounded(depth > 6 ? 6 : 8));
    switch (kind) {
    case 0:
        return nullptr;
    case 1:
        return random.bounded(2) == 1;
    case 2:
        return std::int64_t(random.generate64());
    case 3:
        return random.generateDouble() * std::pow(10.0, int(random.bounded(40)) - 20);
    case 4:
    case 5: {
        std::string text;
        const int length = int(random.bounded(6));
        // Whole UTF-8 sequences only: dump() throws on invalid UTF-8, as the API never sends it.
        const char *const pieces[]
            = { "a", "Z", "\"", "\\", "\n", "\x01", "\x7f", "\xc3\xa9", "/" };
        for (int i = 0; i < length; ++i)
            text += pieces[random.bounded(9)];
        return text;
    }
    case 6: {
        Json array = Json::array();
        const int size = int(random.bounded(4));
        for (int i = 0; i < size; ++i)
            array.push_back(randomValue(random, depth + 1));
        return array;
    }
    default: {
        Json object = Json::object();
        const int size = int(random.bounded(4));
        for (int i = 0; i < size; ++i)
            object[std::string(1, char('a' + random.bounded(5)))] = randomValue(random, depth + 1);
        return object;
    }
    }
}

} // namespace

void tst_JsonSyntax::compactMatchesDumpOnRandomTrees()
{
    QRandomGenerator random(20261202);
    for (int round = 0; round < 5000; ++round) {
        const Json value = randomValue(random, 0);
        QCOMPARE(compactJson(value), value.dump());
    }
}

void tst_JsonSyntax::compactWritesDeepValues()
{
    // A million levels: far past what dump()'s recursion survives on an 8 MiB stack.
    constexpr int depth = 1'000'000;
    const std::string text = std::string(depth, '[') + "{\"k\":1}" + std::string(depth, ']');
    const Json value = Json::parse(text);
    QCOMPARE(compactJson(value), text);
}

// goJsonSyntaxError against the messages of Go's encoding/json scanner (scanner.go).
void tst_JsonSyntax::goSyntaxErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message"); // empty: valid
    const auto row = [](const char *name, QByteArray text, const char *message) {
        QTest::newRow(name) << text << QString::fromUtf8(message);
    };
    // Go's eof() steps a space: a literal cut short fails on it, an open container does not.
    row("empty", "", "unexpected end of JSON input");
    row("spaces", " \t\r\n", "unexpected end of JSON input");
    row("value", R"({"a":[1,-0.5e+3,"x\u00e9",true,false,null]})", "");
    row("cut object", R"({"apiVersion": "v1", "kind": )", "unexpected end of JSON input");
    row("literal null", "not-a-token", "invalid character 'o' in literal null (expecting 'u')");
    row("literal true", "trux", "invalid character 'x' in literal true (expecting 'e')");
    row("literal false", "fals", "invalid character ' ' in literal false (expecting 'e')");
    row("bare word", "hello", "invalid character 'h' looking for beginning of value");
    row("object key",
        "{not json}",
        "invalid character 'n' looking for beginning of object key string");
    row("after key", R"({"a" 1})", "invalid character '1' after object key");
    row("after pair", R"({"a":1]})", "invalid character ']' after object key:value pair");
    row("after element", "[1}", "invalid character '}' after array element");
    row("trailing comma", "[1,]", "invalid character ']' looking for beginning of value");
    row("after top level", "{} x", "invalid character 'x' after top-level value");
    row("two values", "1 2", "invalid character '2' after top-level value");
    row("leading zero", "01", "invalid character '1' after top-level value");
    row("minus", "-x", "invalid character 'x' in numeric literal");
    row("decimal point", "1.x", "invalid character 'x' after decimal point in numeric literal");
    row("exponent", "1e+", "invalid character ' ' in exponent of numeric literal");
    row("exponent sign", "1ex", "invalid character 'x' in exponent of numeric literal");
    row("control in string", QByteArray("\"a\nb\""), "invalid character '\\n' in string literal");
    row("escape", R"("\x")", "invalid character 'x' in string escape code");
    row("unicode escape",
        R"("\u12g4")",
        "invalid character 'g' in \\u hexadecimal character escape");
    row("NUL after value",
        QByteArray("{}\0", 3),
        "invalid character '\\x00' after top-level value");
    row("quote", "'a'", "invalid character '\\'' looking for beginning of value");
    row("DEL", "\x7f", "invalid character '\\x7f' looking for beginning of value");
    row("C1 control", "\x85", "invalid character '\\u0085' looking for beginning of value");
    row("Latin-1 byte", "\xe9", "invalid character '\xc3\xa9' looking for beginning of value");
    row("invalid UTF-8 in a string", "\"\xff\"", "");
    row("too deep", QByteArray(10001, '['), "invalid character '[' exceeded max depth");
    row("deep enough", QByteArray(10000, '[') + QByteArray(10000, ']'), "");
}

void tst_JsonSyntax::goSyntaxErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const std::optional<std::string> error = goJsonSyntaxError(text);
    QCOMPARE(QString::fromStdString(error.value_or(std::string())), message);
    QCOMPARE(error.has_value(), !message.isEmpty());
}

void tst_JsonSyntax::goUnmarshalErrors()
{
    QCOMPARE(goUnmarshalError("[1]", "object", "T").value_or(""),
             "json: cannot unmarshal array into Go value of type T");
    QCOMPARE(goUnmarshalError(" \"s\"", "array", "[]T").value_or(""),
             "json: cannot unmarshal string into Go value of type []T");
    QCOMPARE(goUnmarshalError("-1", "object", "T").value_or(""),
             "json: cannot unmarshal number into Go value of type T");
    QCOMPARE(goUnmarshalError("false", "object", "T").value_or(""),
             "json: cannot unmarshal bool into Go value of type T");
    QVERIFY(!goUnmarshalError("null", "object", "T"));
    QVERIFY(!goUnmarshalError("{}", "object", "T"));
    QCOMPARE(goUnmarshalError("{", "object", "T").value_or(""), "unexpected end of JSON input");
}

QTEST_APPLESS_MAIN(tst_JsonSyntax)
#include "tst_jsonsyntax.moc"
