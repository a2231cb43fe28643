// objectjson::dump and objectjson::parseStored against nlohmann's own serializer and parser: the
// stored form of every object goes through them, so they must agree byte for byte and type for
// type (an unsigned 1 is not an integer 1 to is_number_unsigned()).

#include "controller/cluster/objectjson.h"

#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;

using namespace reconscope::controller::cluster;
using json = nlohmann::json;

namespace {

std::string nlohmannDump(const json &value)
{
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json nlohmannParse(QByteArrayView text)
{
    return json::parse(text.begin(), text.end(), nullptr, false);
}

// Equal values with equal types all the way down (json's operator== calls 1u and 1 equal).
bool identical(const json &a, const json &b)
{
    if (a.type() != b.type())
        return false;
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
            if (ia.key() != ib.key() || !identical(*ia, *ib))
                return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!identical(a[i], b[i]))
                return false;
        }
        return true;
    }
    if (a.is_discarded())
        return b.is_discarded();
    if (a.is_number_float())
        return nlohmannDump(a) == nlohmannDump(b);
    return a == b;
}

std::string randomString(QRandomGenerator &random)
{
    static const std::vector<std::string> pieces = { "a",
                                                     "Z",
                                                     "9",
                                                     " ",
                                                     "-",
                                                     "\"",
                                                     "\\",
                                                     "/",
                                                     "\n",
                                                     "\t",
                                                     "\x01",
                                                     "\x1f",
                                                     "\x7f",
                                                     "é",
                                                     "€",
                                                     "😀",
                                                     "\xff",
                                                     "\xc3",
                                                     "\xed\xa0\x80",
                                                     "\xe0\x80\xaf",
                                                     "x",
                                                     "status",
                                                     "{}",
                                                     "[1]",
                                                     "\\u0041",
                                                     "\xf4\x90\x80\x80" };
    std::string text;
    const int count = random.bounded(8);
    for (int i = 0; i < count; ++i)
        text += pieces[random.bounded(int(pieces.size()))];
    return text;
}

json randomValue(QRandomGenerator &random, int depth)
{
    const int kind = random.bounded(depth > 4 ? 7 : 9);
    switch (kind) {
    case 0:
        return nullptr;
    case 1:
        return random.bounded(2) == 1;
    case 2:
        return std::int64_t(random.generate64()) >> random.bounded(64);
    case 3:
        return random.generate64() >> random.bounded(64);
    case 4:
        return double(std::int64_t(random.generate64() >> 20)) / double(1 + random.bounded(1000));
    case 5:
    case 6:
        return randomString(random);
    case 7: {
        json object = json::object();
        const int count = random.bounded(6);
        for (int i = 0; i < count; ++i)
            object[randomString(random)] = randomValue(random, depth + 1);
        return object;
    }
    default: {
        json array = json::array();
        const int count = random.bounded(6);
        for (int i = 0; i < count; ++i)
            array.push_back(randomValue(random, depth + 1));
        return array;
    }
    }
}

} // namespace

class tst_ObjectJson : public QObject
{
    Q_OBJECT

private slots:
    void parseStoredMatchesNlohmann_data();
    void parseStoredMatchesNlohmann();
    void dumpMatchesNlohmann_data();
    void dumpMatchesNlohmann();
    void randomTreesRoundTrip();
    void mutatedTextParsesAsNlohmannDoes();
    void deepNesting();
    void membersSplitsCompactObjects_data();
    void membersSplitsCompactObjects();
};

void tst_ObjectJson::parseStoredMatchesNlohmann_data()
{
    QTest::addColumn<QByteArray>("text");
    const QList<QByteArray> texts = {
        R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","resourceVersion":"12"}})",
        R"({})",
        R"([])",
        R"([1,-1,0,-0,18446744073709551615,9223372036854775807,-9223372036854775808])",
        R"([123456789012345678,1234567890123456789,-123456789012345678,12345678901234567890123])",
        R"([1.5,1e3,1E3,-0.0,2.50,1.0e-7,0.1])",
        R"([true,false,null])",
        R"(["\"\\\/\b\f\n\r\t","\u0000\u001f\u007f","\u00e9","\ud83d\ude00","\u20AC"])",
        R"(["é","€","😀"])",
        "[\"\xff\"]",
        "[\"\xed\xa0\x80\"]",
        "[\"\xe0\x80\xaf\"]",
        "[\"\xf4\x90\x80\x80\"]",
        "[\"\x01\"]",
        R"({"b":1,"a":2})",
        R"({"a":1,"a":2})",
        R"({"a":1, "b":2})",
        R"( {"a":1})",
        R"({"a":1} )",
        R"({"a":1}x)",
        R"({"a":01})",
        R"({"a":-})",
        R"({"a":tru})",
        R"({"a":"unterminated)",
        R"({"a":"bad escape \x"})",
        R"({"a":[1,2,]})",
        R"({"a":[1,2})",
        R"({"a"})",
        R"({"a":1,})",
        R"("just a string")",
        R"(42)",
        R"()",
        R"(null)",
        R"({"":{"":[]}})",
    };
    int i = 0;
    for (const QByteArray &text : texts)
        QTest::addRow("%d", i++) << text;
}

void tst_ObjectJson::parseStoredMatchesNlohmann()
{
    QFETCH(QByteArray, text);
    const json expected = nlohmannParse(text);
    const json parsed = objectjson::parseStored(text);
    QVERIFY2(identical(parsed, expected), text.constData());
}

void tst_ObjectJson::dumpMatchesNlohmann_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < 12; ++i)
        QTest::addRow("%d", i) << i;
}

void tst_ObjectJson::dumpMatchesNlohmann()
{
    QFETCH(int, index);
    const std::vector<json> values = {
        json::object(),
        json::array(),
        json{ { "b", 1 }, { "a", json::array({ 1, -2, 3u, 1.5, 1.0, -0.0, 1e300 }) } },
        json("plain"),
        json("quote \" backslash \\ slash / newline \n tab \t bell \x07 del \x7f"),
        json("é € 😀"),
        json("invalid \xff utf-8 \xc3"),
        json{ { "k\xff"
                "ey",
                "v" } },
        json{ { "n", nullptr }, { "t", true }, { "f", false } },
        json(std::numeric_limits<std::int64_t>::min()),
        json(std::numeric_limits<std::uint64_t>::max()),
        json::binary({ 1, 2, 3 }),
    };
    const json &value = values.at(std::size_t(index));
    QCOMPARE(objectjson::dump(value), QByteArray::fromStdString(nlohmannDump(value)));
}

void tst_ObjectJson::randomTreesRoundTrip()
{
    QRandomGenerator random(20261130);
    for (int i = 0; i < 3000; ++i) {
        const json value = randomValue(random, 0);
        const QByteArray dumped = objectjson::dump(value);
        QCOMPARE(dumped, QByteArray::fromStdString(nlohmannDump(value)));
        QVERIFY2(identical(objectjson::parseStored(dumped), nlohmannParse(dumped)),
                 dumped.constData());
    }
}

void tst_ObjectJson::mutatedTextParsesAsNlohmannDoes()
{
    // Stored text damaged at random: whatever nlohmann makes of it (usually discarded), so does
    // parseStored.
    QRandomGenerator random(7);
    static const char replacements[] = "{}[]\",:\\ 0-.etrufnl\x01\x80\xff";
    for (int i = 0; i < 3000; ++i) {
        QByteArray text = objectjson::dump(randomValue(random, 0));
        const int edits = 1 + random.bounded(3);
        for (int e = 0; e < edits && !text.isEmpty(); ++e) {
            const int at = random.bounded(int(text.size()));
            switch (random.bounded(3)) {
            case 0:
                text[at] = replacements[random.bounded(int(sizeof replacements) - 1)];
                break;
            case 1:
                text.remove(at, 1);
                break;
            default:
                text.insert(at, replacements[random.bounded(int(sizeof replacements) - 1)]);
                break;
            }
        }
        QVERIFY2(identical(objectjson::parseStored(text), nlohmannParse(text)), text.constData());
    }
}

void tst_ObjectJson::deepNesting()
{
    // Deeper than the fast parser goes: handed to nlohmann's parser, same value.
    const QByteArray deep = QByteArray(1000, '[') + QByteArray(1000, ']');
    QVERIFY(identical(objectjson::parseStored(deep), nlohmannParse(deep)));
    QCOMPARE(objectjson::dump(objectjson::parseStored(deep)), deep);
}

void tst_ObjectJson::membersSplitsCompactObjects_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expected"); // "key=value" per member; empty: refused
    QTest::addColumn<bool>("accepted");
    QTest::newRow("empty") << QByteArray("{}") << QStringList() << true;
    QTest::newRow("object") << QByteArray(
        R"({"a":1,"b":"x","c":{"d":[1,{"e":"}"}]},"f":null,"g":-1.5e3})")
                            << QStringList{ u"a=1"_s,
                                            u"b=\"x\""_s,
                                            uR"(c={"d":[1,{"e":"}"}]})"_s,
                                            u"f=null"_s,
                                            u"g=-1.5e3"_s }
                            << true;
    QTest::newRow("escapes") << QByteArray(R"({"k\"ey":"v\\","x":"a\\\"]"})")
                             << QStringList{ uR"(k\"ey="v\\")"_s, uR"(x="a\\\"]")"_s } << true;
    QTest::newRow("whitespace") << QByteArray(R"({"a": 1})") << QStringList() << false;
    QTest::newRow("no colon") << QByteArray(R"({"a"1})") << QStringList() << false;
    QTest::newRow("unbalanced") << QByteArray(R"({"a":[1})") << QStringList() << false;
    QTest::newRow("unterminated string") << QByteArray(R"({"a":"x})") << QStringList() << false;
    QTest::newRow("trailing text") << QByteArray(R"({"a":1}x)") << QStringList() << false;
    QTest::newRow("two objects") << QByteArray(R"({"a":1}{"b":2})") << QStringList() << false;
    QTest::newRow("array") << QByteArray("[1,2]") << QStringList() << false;
    QTest::newRow("trailing comma") << QByteArray(R"({"a":1,})") << QStringList() << false;
}

void tst_ObjectJson::membersSplitsCompactObjects()
{
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expected);
    QFETCH(bool, accepted);
    std::vector<objectjson::MemberSpan> spans;
    QCOMPARE(objectjson::members(text, spans), accepted);
    if (!accepted)
        return;
    QStringList found;
    for (const objectjson::MemberSpan &span : spans)
        found << QString::fromUtf8(span.key) + u'='
                + QString::fromUtf8(QByteArrayView(text).sliced(span.valueAt, span.valueLength));
    QCOMPARE(found, expected);
}

QTEST_GUILESS_MAIN(tst_ObjectJson)
#include "tst_objectjson.moc"
