#include "controller/cluster/schema/table.h"
#include "schematestutil.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

namespace {

const QDateTime now = QDateTime(QDate(2026, 8, 9), QTime(12, 0, 0), Qt::UTC);

json customApp(const char *name, const char *created, const QByteArray &status)
{
    json object
        = schematest::parse(R"({"apiVersion":"infrastructure.internal.net/v1","kind":"CustomApp",
        "metadata":{"name":"","namespace":"default","uid":"u","resourceVersion":"7","creationTimestamp":"","labels":{"a":"b"}},
        "spec":{"image":"nginx:1.27","replicas":3}})");
    object["metadata"]["name"] = name;
    object["metadata"]["creationTimestamp"] = created;
    if (!status.isEmpty())
        object["status"] = schematest::parse(status);
    return object;
}

} // namespace

class tst_Table : public QObject
{
    Q_OBJECT

private slots:
    void customAppColumns();
    void rowsAndCells();
    void includeObject_data();
    void includeObject();
    void defaultAgeColumn();
    void cellTypes_data();
    void cellTypes();
    void ages_data();
    void ages();
    void listMetadata();
};

void tst_Table::customAppColumns()
{
    const json table
        = renderTable(schematest::customAppTypes().first(), {}, json::object(), u"", now);
    QCOMPARE_JSON(table["kind"], json("Table"));
    QCOMPARE_JSON(table["apiVersion"], json("meta.k8s.io/v1"));
    QVERIFY(table["rows"].is_array() && table["rows"].empty());
    QStringList names;
    for (const json &column : table["columnDefinitions"])
        names.append(QString::fromStdString(column["name"]) + u':'
                     + QString::fromStdString(column["type"]));
    QCOMPARE(names,
             (QStringList{ u"Name:string"_s,
                           u"Image:string"_s,
                           u"Replicas:integer"_s,
                           u"Ready:string"_s,
                           u"Reason:string"_s,
                           u"Age:date"_s }));
    const json &name = table["columnDefinitions"][0];
    QCOMPARE_JSON(name["format"], json("name"));
    QCOMPARE_JSON(name["priority"], json(0));
    QVERIFY(name["description"].get<std::string>().starts_with(
        "Name must be unique within a namespace."));
    QCOMPARE_JSON(table["columnDefinitions"][1]["description"],
                  json("Custom resource definition column (in JSONPath format): .spec.image"));
}

void tst_Table::rowsAndCells()
{
    const json ready = customApp(
        "web",
        "2026-08-09T11:55:00Z",
        R"({"conditions":[{"type":"Reconciling","status":"False","reason":"Done"},{"type":"Ready","status":"True","reason":"Available"}]})");
    const json pending = customApp("api", "2026-08-07T12:00:00Z", "");
    const json table = renderTable(schematest::customAppTypes().first(),
                                   { &ready, &pending },
                                   json{ { "resourceVersion", "42" } },
                                   u"Metadata",
                                   now);
    QCOMPARE(table["rows"].size(), std::size_t(2));
    QCOMPARE_JSON(table["rows"][0]["cells"],
                  schematest::parse(R"(["web","nginx:1.27",3,"True","Available","5m"])"));
    // Missing status: null cells; an age of two days reads "2d".
    QCOMPARE_JSON(table["rows"][1]["cells"],
                  schematest::parse(R"(["api","nginx:1.27",3,null,null,"2d"])"));
    QCOMPARE_JSON(table["metadata"], schematest::parse(R"({"resourceVersion":"42"})"));
}

void tst_Table::includeObject_data()
{
    QTest::addColumn<QString>("include");
    QTest::addColumn<QByteArray>("object"); // "" = no object key
    QTest::newRow("default is Metadata")
        << QString()
        << QByteArray(
               R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web","namespace":"default","uid":"u","resourceVersion":"7","creationTimestamp":"2026-08-09T11:55:00Z","labels":{"a":"b"}}})");
    QTest::newRow("Metadata")
        << u"Metadata"_s
        << QByteArray(
               R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web","namespace":"default","uid":"u","resourceVersion":"7","creationTimestamp":"2026-08-09T11:55:00Z","labels":{"a":"b"}}})");
    QTest::newRow("Object") << u"Object"_s
                            << QByteArray::fromStdString(
                                   customApp("web", "2026-08-09T11:55:00Z", "").dump());
    QTest::newRow("None") << u"None"_s << QByteArray();
}

void tst_Table::includeObject()
{
    QFETCH(QString, include);
    QFETCH(QByteArray, object);
    const json item = customApp("web", "2026-08-09T11:55:00Z", "");
    const json table = renderTable(
        schematest::customAppTypes().first(), { &item }, json::object(), include, now);
    const json &row = table["rows"][0];
    if (object.isEmpty())
        QVERIFY(!row.contains("object"));
    else
        QCOMPARE_JSON(row["object"], schematest::parse(object));
}

void tst_Table::defaultAgeColumn()
{
    ResourceType type = schematest::customAppTypes().first();
    type.printerColumns.clear();
    const json item = customApp("web", "2026-08-09T09:30:00Z", "");
    const json table = renderTable(type, { &item }, json::object(), u"None", now);
    QCOMPARE(table["columnDefinitions"].size(), std::size_t(2));
    QCOMPARE_JSON(table["columnDefinitions"][1]["name"], json("Age"));
    QCOMPARE_JSON(table["columnDefinitions"][1]["type"], json("date"));
    QVERIFY(table["columnDefinitions"][1]["description"].get<std::string>().starts_with(
        "CreationTimestamp is a timestamp"));
    QCOMPARE_JSON(table["rows"][0]["cells"], schematest::parse(R"(["web","150m"])"));
}

void tst_Table::cellTypes_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("cell");
    QTest::newRow("string of a string") << u"string"_s << u".spec.s"_s << QByteArray(R"("text")");
    QTest::newRow("string of an integer")
        << u"string"_s << u".spec.i"_s << QByteArray(R"("9223372036854775807")");
    QTest::newRow("string of a float") << u"string"_s << u".spec.f"_s << QByteArray(R"("2.5")");
    QTest::newRow("string of a boolean") << u"string"_s << u".spec.b"_s << QByteArray(R"("true")");
    QTest::newRow("string of a map (Go %v)")
        << u"string"_s << u".spec.m"_s << QByteArray(R"("map[k:v n:1]")");
    QTest::newRow("string of a list (Go %v)")
        << u"string"_s << u".spec.l"_s << QByteArray(R"("[a b]")");
    QTest::newRow("string, several matches: the first")
        << u"string"_s << u".spec.l[*]"_s << QByteArray(R"("a")");
    QTest::newRow("integer exact")
        << u"integer"_s << u".spec.i"_s << QByteArray("9223372036854775807");
    QTest::newRow("integer of a float truncates")
        << u"integer"_s << u".spec.f"_s << QByteArray("2");
    QTest::newRow("integer of a string") << u"integer"_s << u".spec.s"_s << QByteArray("null");
    QTest::newRow("number of an integer") << u"number"_s << u".spec.n"_s << QByteArray("3");
    QTest::newRow("number of a float") << u"number"_s << u".spec.f"_s << QByteArray("2.5");
    QTest::newRow("boolean") << u"boolean"_s << u".spec.b"_s << QByteArray("true");
    QTest::newRow("boolean of a string") << u"boolean"_s << u".spec.s"_s << QByteArray("null");
    QTest::newRow("date") << u"date"_s << u".spec.d"_s << QByteArray(R"("3h5m")");
    QTest::newRow("date unparsable") << u"date"_s << u".spec.s"_s << QByteArray(R"("<invalid>")");
    QTest::newRow("date of a number") << u"date"_s << u".spec.i"_s << QByteArray("null");
    QTest::newRow("missing") << u"string"_s << u".spec.none"_s << QByteArray("null");
    QTest::newRow("null value") << u"string"_s << u".spec.z"_s << QByteArray("null");
}

void tst_Table::cellTypes()
{
    QFETCH(QString, type);
    QFETCH(QString, path);
    QFETCH(QByteArray, cell);
    ResourceType resource = schematest::customAppTypes().first();
    resource.printerColumns = { PrinterColumn{ u"C"_s, type, QString(), QString(), 0, path } };
    const json item
        = schematest::parse(R"({"metadata":{"name":"x"},"spec":{"s":"text","i":9223372036854775807,
        "f":2.5,"n":3,"b":true,"m":{"k":"v","n":1},"l":["a","b"],"d":"2026-08-09T08:55:00Z","z":null}})");
    const json table = renderTable(resource, { &item }, json::object(), u"None", now);
    QCOMPARE_JSON(table["rows"][0]["cells"][1], schematest::parse(cell));
}

void tst_Table::ages_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("age");
    QTest::newRow("future within tolerance") << qint64(-1) << u"0s"_s;
    QTest::newRow("future") << qint64(-5) << u"<invalid>"_s;
    QTest::newRow("0s") << qint64(0) << u"0s"_s;
    QTest::newRow("119s") << qint64(119) << u"119s"_s;
    QTest::newRow("2m") << qint64(120) << u"2m"_s;
    QTest::newRow("9m59s") << qint64(599) << u"9m59s"_s;
    QTest::newRow("10m") << qint64(659) << u"10m"_s;
    QTest::newRow("179m") << qint64(179 * 60 + 59) << u"179m"_s;
    QTest::newRow("3h") << qint64(3 * 3600) << u"3h"_s;
    QTest::newRow("7h59m") << qint64(8 * 3600 - 1) << u"7h59m"_s;
    QTest::newRow("47h") << qint64(48 * 3600 - 1) << u"47h"_s;
    QTest::newRow("2d") << qint64(48 * 3600) << u"2d"_s;
    QTest::newRow("7d23h") << qint64(8 * 86400 - 1) << u"7d23h"_s;
    QTest::newRow("729d") << qint64(730 * 86400 - 1) << u"729d"_s;
    QTest::newRow("2y") << qint64(730 * 86400) << u"2y"_s;
    QTest::newRow("3y10d") << qint64((3 * 365 + 10) * 86400) << u"3y10d"_s;
    QTest::newRow("9y") << qint64(9 * 365 * 86400 + 86400) << u"9y"_s;
}

void tst_Table::ages()
{
    QFETCH(qint64, seconds);
    QFETCH(QString, age);
    ResourceType type = schematest::customAppTypes().first();
    type.printerColumns.clear();
    const json item
        = customApp("x", now.addSecs(-seconds).toString(Qt::ISODate).toUtf8().constData(), "");
    const json table = renderTable(type, { &item }, json::object(), u"None", now);
    QCOMPARE(QString::fromStdString(table["rows"][0]["cells"][1]), age);
}

void tst_Table::listMetadata()
{
    const json table = renderTable(
        schematest::customAppTypes().first(),
        {},
        schematest::parse(
            R"({"resourceVersion":"9","continue":"abc","remainingItemCount":12,"selfLink":"x"})"),
        u"",
        now);
    QCOMPARE_JSON(
        table["metadata"],
        schematest::parse(R"({"continue":"abc","remainingItemCount":12,"resourceVersion":"9"})"));
    const json empty = renderTable(schematest::customAppTypes().first(),
                                   {},
                                   schematest::parse(R"({"resourceVersion":"9","continue":""})"),
                                   u"",
                                   now);
    QCOMPARE_JSON(empty["metadata"], schematest::parse(R"({"resourceVersion":"9"})"));
}

QTEST_GUILESS_MAIN(tst_Table)
#include "tst_table.moc"
