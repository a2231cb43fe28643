#include "controller/cluster/schema/jsonpath.h"
#include "schematestutil.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

namespace {

const QByteArray document = R"({
  "metadata": {"name": "app", "labels": {"app.kubernetes.io/name": "web", "tier": "front"}, "generation": 3},
  "spec": {"replicas": 2, "big": 9223372036854775807, "ratio": 0.5, "paused": false, "image": "nginx:1.27",
           "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}, {"name": "metrics", "port": 9090}]},
  "status": {"observedGeneration": 3,
             "conditions": [{"type": "Reconciling", "status": "False", "reason": "Done"},
                            {"type": "Ready", "status": "True", "reason": "Available", "observedGeneration": 3}]}
})";

} // namespace

class tst_JsonPath : public QObject
{
    Q_OBJECT

private slots:
    void evaluate_data();
    void evaluate();
    void validity_data();
    void validity();
};

void tst_JsonPath::evaluate_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("expected"); // JSON array of the results

    QTest::newRow("field") << u".spec.replicas"_s << QByteArray("[2]");
    QTest::newRow("braces and $") << u"{$.spec.image}"_s << QByteArray(R"(["nginx:1.27"])");
    QTest::newRow("int64 exact") << u".spec.big"_s << QByteArray("[9223372036854775807]");
    QTest::newRow("false is a value") << u".spec.paused"_s << QByteArray("[false]");
    QTest::newRow("missing key") << u".spec.nothing"_s << QByteArray("[]");
    QTest::newRow("missing parent") << u".nothing.at.all"_s << QByteArray("[]");
    QTest::newRow("field of a scalar") << u".spec.replicas.x"_s << QByteArray("[]");
    QTest::newRow("quoted key with dots")
        << u".metadata.labels['app.kubernetes.io/name']"_s << QByteArray(R"(["web"])");
    QTest::newRow("double-quoted key")
        << u".metadata.labels[\"tier\"]"_s << QByteArray(R"(["front"])");
    QTest::newRow("index") << u".spec.ports[1].port"_s << QByteArray("[443]");
    QTest::newRow("negative index") << u".spec.ports[-1].name"_s << QByteArray(R"(["metrics"])");
    QTest::newRow("index out of range") << u".spec.ports[7].name"_s << QByteArray("[]");
    QTest::newRow("wildcard") << u".spec.ports[*].port"_s << QByteArray("[80,443,9090]");
    QTest::newRow("dot wildcard on a map")
        << u".metadata.labels.*"_s << QByteArray(R"(["web","front"])");
    QTest::newRow("slice") << u".spec.ports[0:2].name"_s << QByteArray(R"(["http","https"])");
    QTest::newRow("slice open end") << u".spec.ports[1:].port"_s << QByteArray("[443,9090]");
    QTest::newRow("slice step") << u".spec.ports[::2].port"_s << QByteArray("[80,9090]");
    QTest::newRow("huge step") << u".spec.ports[0:3:9223372036854775807].port"_s
                               << QByteArray("[80]");
    QTest::newRow("negative step") << u".spec.ports[::-1].port"_s << QByteArray("[9090,443,80]");
    QTest::newRow("index beyond int64 is malformed")
        << u".spec.ports[99999999999999999999].port"_s << QByteArray("[]");
    QTest::newRow("union of indices") << u".spec.ports[0,2].port"_s << QByteArray("[80,9090]");
    QTest::newRow("filter ==") << u".status.conditions[?(@.type==\"Ready\")].status"_s
                               << QByteArray(R"(["True"])");
    QTest::newRow("filter with single quotes and spaces")
        << u"{.status.conditions[?(@.type == 'Ready')].reason}"_s << QByteArray(R"(["Available"])");
    QTest::newRow("filter no match")
        << u".status.conditions[?(@.type==\"Stalled\")].status"_s << QByteArray("[]");
    QTest::newRow("filter !=") << u".status.conditions[?(@.type!=\"Ready\")].type"_s
                               << QByteArray(R"(["Reconciling"])");
    QTest::newRow("filter numeric >")
        << u".spec.ports[?(@.port>100)].name"_s << QByteArray(R"(["https","metrics"])");
    QTest::newRow("filter numeric <=")
        << u".spec.ports[?(@.port<=443)].name"_s << QByteArray(R"(["http","https"])");
    QTest::newRow("filter existence")
        << u".status.conditions[?(@.observedGeneration)].type"_s << QByteArray(R"(["Ready"])");
    QTest::newRow("filter on a map gives nothing")
        << u".spec[?(@.replicas==2)]"_s << QByteArray("[]");
    QTest::newRow("recursive descent") << u"..observedGeneration"_s << QByteArray("[3,3]");
    QTest::newRow("recursive descent name") << u"..port"_s << QByteArray("[80,443,9090]");
    QTest::newRow("whole object by .")
        << u"."_s << QByteArray::fromStdString("[" + schematest::parse(document).dump() + "]");
    QTest::newRow("malformed: unclosed filter")
        << u".status.conditions[?(@.type==\"Ready\""_s << QByteArray("[]");
    QTest::newRow("malformed: unbalanced brace") << u"{.spec.replicas"_s << QByteArray("[]");
}

void tst_JsonPath::evaluate()
{
    QFETCH(QString, path);
    QFETCH(QByteArray, expected);
    json results = json::array();
    for (const json &value : evaluateJsonPath(path, schematest::parse(document)))
        results.push_back(value);
    QCOMPARE_JSON(results, schematest::parse(expected));
}

void tst_JsonPath::validity_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("valid");
    QTest::newRow("simple") << u".spec.replicas"_s << true;
    QTest::newRow("filter") << u".status.conditions[?(@.type==\"Ready\")].status"_s << true;
    QTest::newRow("index") << u".spec.containers[0].image"_s << true;
    QTest::newRow("unclosed bracket") << u".spec.containers[0"_s << false;
    QTest::newRow("unclosed quote") << u".metadata.labels['a"_s << false;
    QTest::newRow("bad index") << u".spec.x[a]"_s << false;
    QTest::newRow("no leading dot") << u"spec"_s << false;
    QTest::newRow("empty field") << u".spec..."_s << false;
    // Malformed input from CRDs must not crash or throw.
    for (const char *broken : { "[",
                                "]",
                                "..",
                                "[?(",
                                "{",
                                "}",
                                "[0:",
                                "['",
                                "[?(@.a==)]",
                                "[?(@.a=='x)]",
                                "[-]",
                                "[1,]",
                                "[::0]",
                                ".a[?(@.b>)]",
                                "$$",
                                ".a['b'",
                                "[?(@.a==1.2.3)]" })
        QTest::newRow(broken) << QString::fromLatin1(broken) << false;
}

void tst_JsonPath::validity()
{
    QFETCH(QString, path);
    QFETCH(bool, valid);
    QCOMPARE(isValidJsonPath(path), valid);
    if (!valid)
        QVERIFY(evaluateJsonPath(path, schematest::parse(document)).isEmpty());
}

QTEST_GUILESS_MAIN(tst_JsonPath)
#include "tst_jsonpath.moc"
