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

QTEST_APPLESS_MAIN(tst_JsonSyntax)
#include "tst_jsonsyntax.moc"
