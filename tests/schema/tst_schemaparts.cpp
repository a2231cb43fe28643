#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/openapitables.h"
#include "schematestutil.h"

#include <QTest>

#include <functional>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

Q_DECLARE_METATYPE(reconscope::controller::cluster::FieldError)

// The generic pieces of the schema layer: field-error builders and the OpenAPI tables.
class tst_SchemaParts : public QObject
{
    Q_OBJECT

private slots:
    void fieldErrors_data();
    void fieldErrors();
    void metaSchemasResolveReferences();
    void optionParameters_data();
    void optionParameters();
};

void tst_SchemaParts::fieldErrors_data()
{
    QTest::addColumn<FieldError>("error");
    QTest::addColumn<QString>("expected"); // reason|field|message

    using namespace fielderrors;
    QTest::newRow("required") << required(u"spec.a"_s)
                              << u"FieldValueRequired|spec.a|Required value"_s;
    QTest::newRow("required with detail")
        << required(u"spec.a"_s, u"must be set"_s)
        << u"FieldValueRequired|spec.a|Required value: must be set"_s;
    QTest::newRow("invalid") << invalid(u"spec.a"_s, u"\"x\""_s, u"bad"_s)
                             << u"FieldValueInvalid|spec.a|Invalid value: \"x\": bad"_s;
    QTest::newRow("type invalid")
        << typeInvalid(u"spec.a"_s, u"\"string\""_s, u"must be integer"_s)
        << u"FieldValueTypeInvalid|spec.a|Invalid value: \"string\": must be integer"_s;
    QTest::newRow("forbidden") << forbidden(u"spec.a"_s, u"no"_s)
                               << u"FieldValueForbidden|spec.a|Forbidden: no"_s;
    QTest::newRow("not supported")
        << notSupported(u"spec.a"_s, u"c"_s, { u"a"_s, u"b"_s })
        << u"FieldValueNotSupported|spec.a|Unsupported value: \"c\": supported values: \"a\", \"b\""_s;
    QTest::newRow("too many") << tooMany(
        u"spec.a"_s, 9, 8) << u"FieldValueTooMany|spec.a|Too many: 9: must have at most 8 items"_s;
    QTest::newRow("duplicate") << duplicate(u"spec.a[1]"_s, u"\"x\""_s)
                               << u"FieldValueDuplicate|spec.a[1]|Duplicate value: \"x\""_s;
}

void tst_SchemaParts::fieldErrors()
{
    QFETCH(FieldError, error);
    QFETCH(QString, expected);
    QCOMPARE(schematest::errorLines({ error }).join(u'\n'), expected);
}

void tst_SchemaParts::metaSchemasResolveReferences()
{
    for (const bool v2 : { false, true }) {
        json schemas = json::object();
        openapitables::addMetaSchemas(schemas, v2);
        const std::string objectMeta = openapitables::metaPrefix + "ObjectMeta";
        QVERIFY(schemas.contains(objectMeta));
        const json &properties = schemas[objectMeta]["properties"];
        QCOMPARE_JSON(properties.at("creationTimestamp"),
                      openapitables::refSchema(openapitables::metaPrefix + "Time", v2));
        // Every reference names a model of the table; no placeholder is left.
        const std::string prefix = v2 ? "#/definitions/" : "#/components/schemas/";
        std::function<void(const json &)> check = [&](const json &value) {
            if (value.is_object()) {
                QVERIFY(!value.contains("$model"));
                if (value.contains("$ref"))
                    QVERIFY(schemas.contains(
                        value.at("$ref").get<std::string>().substr(prefix.size())));
            }
            if (value.is_structured()) {
                for (const json &item : value)
                    check(item);
            }
        };
        check(schemas);
        // kube-openapi's v2 documents carry no list types.
        QCOMPARE(properties.at("ownerReferences").contains("x-kubernetes-list-type"), !v2);
        QCOMPARE(properties.at("ownerReferences").contains("x-kubernetes-list-map-keys"), !v2);
        QCOMPARE(properties.at("finalizers").contains("x-kubernetes-list-type"), !v2);
        QCOMPARE_JSON(properties.at("ownerReferences").at("x-kubernetes-patch-merge-key"),
                      json("uid"));
    }
}

void tst_SchemaParts::optionParameters_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QStringList>("names");

    const QStringList list = { u"allowWatchBookmarks"_s,
                               u"continue"_s,
                               u"fieldSelector"_s,
                               u"labelSelector"_s,
                               u"limit"_s,
                               u"resourceVersion"_s,
                               u"resourceVersionMatch"_s,
                               u"sendInitialEvents"_s,
                               u"timeoutSeconds"_s,
                               u"watch"_s };
    QTest::newRow("post") << u"post"_s
                          << QStringList{ u"dryRun"_s, u"fieldManager"_s, u"fieldValidation"_s };
    QTest::newRow("patch") << u"patch"_s
                           << QStringList{
                                  u"dryRun"_s, u"fieldManager"_s, u"fieldValidation"_s, u"force"_s
                              };
    QTest::newRow("list") << u"list"_s << list;
    QTest::newRow("deletecollection")
        << u"deletecollection"_s
        << list + QStringList{ u"dryRun"_s, u"gracePeriodSeconds"_s, u"propagationPolicy"_s };
    QTest::newRow("delete") << u"delete"_s
                            << QStringList{ u"dryRun"_s,
                                            u"gracePeriodSeconds"_s,
                                            u"ignoreStoreReadErrorWithClusterBreakingPotential"_s,
                                            u"orphanDependents"_s,
                                            u"propagationPolicy"_s };
    QTest::newRow("get") << u"get"_s << QStringList();
}

void tst_SchemaParts::optionParameters()
{
    QFETCH(QString, action);
    QFETCH(QStringList, names);
    const json parameters = openapitables::optionParameters(action.toStdString());
    QVERIFY(parameters.is_array());
    QStringList actual;
    for (const json &parameter : parameters) {
        actual.append(QString::fromStdString(parameter.at("name").get<std::string>()));
        QCOMPARE_JSON(parameter.at("in"), json("query"));
        QVERIFY(!parameter.at("description").get<std::string>().empty());
        QCOMPARE_JSON(parameter.at("schema").at("uniqueItems"), json(true));
    }
    QCOMPARE(actual, names);
}

QTEST_APPLESS_MAIN(tst_SchemaParts)
#include "tst_schemaparts.moc"
