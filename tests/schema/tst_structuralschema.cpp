#include "controller/cluster/schema/fielderror.h"
#include "controller/cluster/schema/structuralschema.h"
#include "schematestutil.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;
using schematest::parse;

namespace {

// spec.{replicas,image,items[],labels{},raw(preserve),port(int-or-string),template(embedded)}
const QByteArray appSchema = R"({
  "type": "object",
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "required": ["image"],
      "properties": {
        "image": {"type": "string", "minLength": 1},
        "replicas": {"type": "integer", "format": "int32", "default": 1, "minimum": 0, "maximum": 100},
        "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "weight": {"type": "integer", "default": 10}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"value": {"type": "string"}}}},
        "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        "port": {"x-kubernetes-int-or-string": true},
        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object", "properties": {"x": {"type": "string"}}}}},
        "mode": {"type": "string", "nullable": true, "default": "auto"},
        "strict": {"type": "string", "default": "on"},
        "note": {"type": "string"}
      }
    },
    "status": {"type": "object", "default": {"phase": "Pending"}, "properties": {"phase": {"type": "string"}, "observedGeneration": {"type": "integer", "format": "int64"}}}
  }
})";

StructuralSchema schemaFrom(const QByteArray &text)
{
    auto schema = StructuralSchema::fromJson(parse(text));
    if (!schema)
        qFatal("schema: %s", qPrintable(schema.error().message));
    return *schema;
}

} // namespace

class tst_StructuralSchema : public QObject
{
    Q_OBJECT

private slots:
    void prune_data();
    void prune();
    void pruneWithoutSchemaKeepsEverything();
    void defaults_data();
    void defaults();
    void fluxKustomizationStatusDefault();
    void validate_data();
    void validate();
    void validateUpdateRatchets_data();
    void validateUpdateRatchets();
    void validateUpdateListCorrelation();
    void validateInt64Exactness();
    void int64SurvivesPruneAndDefaults();
    void declaresStatus();
    void rejectsMalformedSchemas_data();
    void rejectsMalformedSchemas();
    void rejectsAbsurdNesting();
    void toleratesOddSchemaValues();
    void formatFieldErrors_data();
    void formatFieldErrors();
};

void tst_StructuralSchema::prune_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    QTest::addColumn<QStringList>("pruned");

    QTest::newRow("unknown spec field")
        << QByteArray(R"({"spec":{"image":"nginx","foo":1}})")
        << QByteArray(R"({"spec":{"image":"nginx"}})") << QStringList{ u"spec.foo"_s };
    QTest::newRow("unknown top-level field")
        << QByteArray(R"({"spec":{"image":"a"},"extra":{"x":1}})")
        << QByteArray(R"({"spec":{"image":"a"}})") << QStringList{ u"extra"_s };
    QTest::newRow("root apiVersion/kind/metadata kept, even unknown metadata fields")
        << QByteArray(R"({"apiVersion":"g/v1","kind":"K","metadata":{"name":"a","bogus":true}})")
        << QByteArray(R"({"apiVersion":"g/v1","kind":"K","metadata":{"name":"a","bogus":true}})")
        << QStringList{};
    QTest::newRow("inside array items, paths sorted")
        << QByteArray(R"({"spec":{"items":[{"name":"a","x":1},{"name":"b","y":2}],"zzz":0}})")
        << QByteArray(R"({"spec":{"items":[{"name":"a"},{"name":"b"}]}})")
        << QStringList{ u"spec.items[0].x"_s, u"spec.items[1].y"_s, u"spec.zzz"_s };
    QTest::newRow("additionalProperties keeps keys, prunes inside values")
        << QByteArray(R"({"spec":{"labels":{"k1":{"value":"v","junk":1},"k2":{}}}})")
        << QByteArray(R"({"spec":{"labels":{"k1":{"value":"v"},"k2":{}}}})")
        << QStringList{ u"spec.labels.k1.junk"_s };
    QTest::newRow("preserve-unknown-fields keeps unknown, prunes inside known")
        << QByteArray(R"({"spec":{"raw":{"anything":{"deep":[1,2]},"known":{"a":"x","b":"y"}}}})")
        << QByteArray(R"({"spec":{"raw":{"anything":{"deep":[1,2]},"known":{"a":"x"}}}})")
        << QStringList{ u"spec.raw.known.b"_s };
    QTest::newRow("embedded resource keeps apiVersion/kind/metadata")
        << QByteArray(
               R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":"1","y":"2"},"other":1}}})")
        << QByteArray(
               R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":"1"}}}})")
        << QStringList{ u"spec.template.other"_s, u"spec.template.spec.y"_s };
    QTest::newRow("embedded metadata keeps ObjectMeta fields only")
        << QByteArray(
               R"({"spec":{"template":{"apiVersion":"v1","kind":5,"metadata":{"name":"p","labels":{"a":1},"annotations":{"b":"c"},"bogus":true},"spec":{}}}})")
        << QByteArray(
               R"({"spec":{"template":{"apiVersion":"v1","metadata":{"name":"p","annotations":{"b":"c"}},"spec":{}}}})")
        << QStringList{ u"spec.template.metadata.bogus"_s };
    QTest::newRow("int-or-string values untouched")
        << QByteArray(R"({"spec":{"port":"http"}})") << QByteArray(R"({"spec":{"port":"http"}})")
        << QStringList{};
    QTest::newRow("object where the schema has a scalar: children dropped")
        << QByteArray(R"({"spec":{"image":{"a":1}}})") << QByteArray(R"({"spec":{"image":{}}})")
        << QStringList{ u"spec.image.a"_s };
}

void tst_StructuralSchema::prune()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    QFETCH(QStringList, pruned);
    json object = parse(input);
    QCOMPARE(schemaFrom(appSchema).prune(object), pruned);
    QCOMPARE_JSON(object, parse(expected));
}

void tst_StructuralSchema::pruneWithoutSchemaKeepsEverything()
{
    const StructuralSchema anything;
    json object = parse(R"({"spec":{"a":{"b":[1,{"c":null}]}},"x":1})");
    const json before = object;
    QVERIFY(anything.prune(object).isEmpty());
    anything.applyDefaults(object);
    QCOMPARE_JSON(object, before);
    QVERIFY(anything.validate(object).isEmpty());
    QVERIFY(!anything.declaresStatus());
    auto fromNull = StructuralSchema::fromJson(json());
    QVERIFY(fromNull.ok());
    QVERIFY(fromNull->prune(object).isEmpty());
}

void tst_StructuralSchema::defaults_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");

    QTest::newRow("absent field defaulted")
        << QByteArray(R"({"spec":{"image":"a"},"status":{}})")
        << QByteArray(
               R"({"spec":{"image":"a","replicas":1,"strict":"on","mode":"auto"},"status":{}})");
    QTest::newRow("given value kept")
        << QByteArray(
               R"({"spec":{"image":"a","replicas":5,"strict":"off","mode":"m"},"status":{"phase":"Ready"}})")
        << QByteArray(
               R"({"spec":{"image":"a","replicas":5,"strict":"off","mode":"m"},"status":{"phase":"Ready"}})");
    QTest::newRow("absent parent not created; absent object with default created")
        << QByteArray(R"({"metadata":{"name":"x"}})")
        << QByteArray(R"({"metadata":{"name":"x"},"status":{"phase":"Pending"}})");
    QTest::newRow("non-nullable null replaced by default, nullable null kept")
        << QByteArray(R"({"spec":{"replicas":null,"mode":null},"status":{}})")
        << QByteArray(R"({"spec":{"replicas":1,"mode":null,"strict":"on"},"status":{}})");
    QTest::newRow("non-nullable null without default removed")
        << QByteArray(R"({"spec":{"note":null,"image":null},"status":{}})")
        << QByteArray(R"({"spec":{"replicas":1,"mode":"auto","strict":"on"},"status":{}})");
    QTest::newRow("defaults inside array items")
        << QByteArray(R"({"spec":{"items":[{"name":"a"},{"name":"b","weight":3}]},"status":{}})")
        << QByteArray(
               R"({"spec":{"items":[{"name":"a","weight":10},{"name":"b","weight":3}],"replicas":1,"mode":"auto","strict":"on"},"status":{}})");
}

void tst_StructuralSchema::defaults()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    json object = parse(input);
    schemaFrom(appSchema).applyDefaults(object);
    QCOMPARE_JSON(object, parse(expected));
}

void tst_StructuralSchema::fluxKustomizationStatusDefault()
{
    // Flux's e2e applies this object and expects .status == {observedGeneration: -1}: the CRD's
    // status schema carries `default: {observedGeneration: -1}`.
    const json crd = schematest::yamlFile(schematest::sharedPath(
        u"fixtures/real-crds/crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml"_s));
    auto types = resourceTypesFromCrd(crd);
    QVERIFY2(types.ok(), qPrintable(types.ok() ? QString() : types.error().message));
    auto schema = StructuralSchema::fromJson(types->first().schema);
    QVERIFY(schema.ok());
    QVERIFY(schema->declaresStatus());

    json object = schematest::yamlFile(schematest::sharedPath(
        u"fixtures/real-crds/objects/kustomization-nostatus-status-defaults.yaml"_s));
    QVERIFY(!object.contains("status"));
    schema->applyDefaults(object);
    QVERIFY(schema->prune(object).isEmpty());
    QCOMPARE_JSON(object["status"], parse(R"({"observedGeneration":-1})"));
    QVERIFY(object["status"]["observedGeneration"].is_number_integer());
    QCOMPARE(QString::fromStdString(object["status"].dump()), u"{\"observedGeneration\":-1}"_s);
    QCOMPARE(schematest::errorLines(schema->validate(object)), QStringList());
}

void tst_StructuralSchema::validate_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("valid") << appSchema
                           << QByteArray(R"({"spec":{"image":"nginx","replicas":3,"port":8080}})")
                           << QStringList{};
    QTest::newRow("maximum")
        << appSchema << QByteArray(R"({"spec":{"image":"a","replicas":200}})")
        << QStringList{
               u"FieldValueInvalid|spec.replicas|Invalid value: 200: spec.replicas in body should be less than or equal to 100"_s
           };
    QTest::newRow("minimum")
        << appSchema << QByteArray(R"({"spec":{"image":"a","replicas":-1}})")
        << QStringList{
               u"FieldValueInvalid|spec.replicas|Invalid value: -1: spec.replicas in body should be greater than or equal to 0"_s
           };
    QTest::newRow("required") << appSchema << QByteArray(R"({"spec":{"replicas":1}})")
                              << QStringList{ u"FieldValueRequired|spec.image|Required value"_s };
    QTest::newRow("type")
        << appSchema << QByteArray(R"({"spec":{"image":"a","replicas":"three"}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.replicas|Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""_s
           };
    QTest::newRow("integral float is an integer")
        << appSchema << QByteArray(R"({"spec":{"image":"a","replicas":3.0}})") << QStringList{};
    QTest::newRow("fractional float is not an integer")
        << appSchema << QByteArray(R"({"spec":{"image":"a","replicas":2.5}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.replicas|Invalid value: \"number\": spec.replicas in body must be of type integer: \"number\""_s
           };
    QTest::newRow("minLength")
        << appSchema << QByteArray(R"({"spec":{"image":""}})")
        << QStringList{
               u"FieldValueInvalid|spec.image|Invalid value: \"\": spec.image in body should be at least 1 chars long"_s
           };
    QTest::newRow("null for a non-nullable field")
        << appSchema << QByteArray(R"({"spec":{"image":null}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.image|Invalid value: \"null\": spec.image in body must be of type string: \"null\""_s
           };
    QTest::newRow("null for a nullable field")
        << appSchema << QByteArray(R"({"spec":{"image":"a","mode":null}})") << QStringList{};
    QTest::newRow("int-or-string accepts both")
        << appSchema << QByteArray(R"({"spec":{"image":"a","port":"http"}})") << QStringList{};
    QTest::newRow("int-or-string rejects a boolean")
        << appSchema << QByteArray(R"({"spec":{"image":"a","port":true}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.port|Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""_s
           };
    QTest::newRow("array items get indexed paths")
        << appSchema << QByteArray(R"({"spec":{"image":"a","items":[{"name":"x"},{"name":7}]}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.items[1].name|Invalid value: \"integer\": spec.items[1].name in body must be of type string: \"integer\""_s
           };

    QTest::newRow("embedded resource needs apiVersion and kind")
        << appSchema << QByteArray(R"({"spec":{"image":"a","template":{"spec":{"x":"1"}}}})")
        << QStringList{ u"FieldValueRequired|spec.template.apiVersion|Required value"_s,
                        u"FieldValueRequired|spec.template.kind|Required value"_s };
    QTest::newRow("embedded resource with malformed apiVersion and kind")
        << appSchema
        << QByteArray(
               R"({"spec":{"image":"a","template":{"apiVersion":"a/b/c","kind":"Bad_Kind"}}})")
        << QStringList{
               u"FieldValueInvalid|spec.template.apiVersion|Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c"_s,
               u"FieldValueInvalid|spec.template.kind|Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"_s
           };
    QTest::newRow("embedded resource ok")
        << appSchema
        << QByteArray(
               R"({"spec":{"image":"a","template":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"}}}})")
        << QStringList{};

    const QByteArray rules = R"({"type":"object","properties":{
        "color": {"type":"string","enum":["red","green"]},
        "level": {"type":"integer","enum":[1,2]},
        "name": {"type":"string","pattern":"^[a-z]+$","maxLength":5},
        "one": {"type":"string","maxLength":1},
        "tags": {"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"x-kubernetes-list-type":"set"},
        "ports": {"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
        "when": {"type":"string","format":"date-time"},
        "day": {"type":"string","format":"date"},
        "timeout": {"type":"string","format":"duration"},
        "ip": {"type":"string","format":"ipv4"},
        "id": {"type":"string","format":"uuid"},
        "size": {"type":"integer","format":"int32"},
        "ratio": {"type":"number","minimum":0,"maximum":1,"exclusiveMaximum":true},
        "step": {"type":"integer","multipleOf":5},
        "env": {"type":"object","maxProperties":1,"additionalProperties":{"type":"string"}},
        "either": {"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},
        "flag": {"type":"boolean"}
    }})";
    QTest::newRow("enum string")
        << rules << QByteArray(R"({"color":"blue"})")
        << QStringList{
               u"FieldValueNotSupported|color|Unsupported value: \"blue\": supported values: \"red\", \"green\""_s
           };
    QTest::newRow("enum integer")
        << rules << QByteArray(R"({"level":3})")
        << QStringList{
               u"FieldValueNotSupported|level|Unsupported value: 3: supported values: \"1\", \"2\""_s
           };
    QTest::newRow("enum ok") << rules << QByteArray(R"({"color":"red","level":2})")
                             << QStringList{};
    QTest::newRow("pattern")
        << rules << QByteArray(R"({"name":"ab1"})")
        << QStringList{
               u"FieldValueInvalid|name|Invalid value: \"ab1\": name in body should match '^[a-z]+$'"_s
           };
    QTest::newRow("maxLength")
        << rules << QByteArray(R"({"name":"abcdef"})")
        << QStringList{ u"FieldValueTooLong|name|Too long: may not be more than 5 bytes"_s };
    QTest::newRow("maxLength 1")
        << rules << QByteArray(R"({"one":"ab"})")
        << QStringList{ u"FieldValueTooLong|one|Too long: may not be more than 1 byte"_s };
    QTest::newRow("maxLength counts characters, not bytes")
        << rules << QByteArray(R"({"name":"\u00e4\u00f6\u00fc\u00df"})")
        << QStringList{
               u"FieldValueInvalid|name|Invalid value: \"\u00e4\u00f6\u00fc\u00df\": name in body should match '^[a-z]+$'"_s
           };
    QTest::newRow("minItems")
        << rules << QByteArray(R"({"tags":[]})")
        << QStringList{
               u"FieldValueInvalid|tags|Invalid value: 0: tags in body should have at least 1 items"_s
           };
    QTest::newRow("maxItems")
        << rules << QByteArray(R"({"tags":["a","b","c"]})")
        << QStringList{ u"FieldValueTooMany|tags|Too many: 3: must have at most 2 items"_s };
    QTest::newRow("list-type set duplicate")
        << rules << QByteArray(R"({"tags":["a","a"]})")
        << QStringList{ u"FieldValueDuplicate|tags[1]|Duplicate value: \"a\""_s };
    QTest::newRow("list-type map duplicate key")
        << rules << QByteArray(R"({"ports":[{"name":"http","port":80},{"name":"http","port":81}]})")
        << QStringList{
               u"FieldValueDuplicate|ports[1]|Duplicate value: map[string]interface {}{\"name\":\"http\"}"_s
           };
    QTest::newRow("list-type map distinct keys")
        << rules << QByteArray(R"({"ports":[{"name":"http"},{"name":"https"}]})") << QStringList{};
    QTest::newRow("date-time")
        << rules << QByteArray(R"({"when":"yesterday"})")
        << QStringList{
               u"FieldValueTypeInvalid|when|Invalid value: \"yesterday\": when in body must be of type date-time: \"yesterday\""_s
           };
    QTest::newRow("date-time ok") << rules
                                  << QByteArray(
                                         R"({"when":"2026-08-09T00:15:00Z","day":"2026-02-28"})")
                                  << QStringList{};
    QTest::newRow("date-time needs T and a colon offset")
        << rules << QByteArray(R"({"when":"2026-08-09 00:15:00+0200"})")
        << QStringList{
               u"FieldValueTypeInvalid|when|Invalid value: \"2026-08-09 00:15:00+0200\": when in body must be of type date-time: \"2026-08-09 00:15:00+0200\""_s
           };
    QTest::newRow("date-time with fraction and offset")
        << rules << QByteArray(R"({"when":"2026-08-09t00:15:00.123+02:00"})") << QStringList{};
    QTest::newRow("date-time leap second")
        << rules << QByteArray(R"({"when":"2026-08-09T23:59:60Z"})")
        << QStringList{
               u"FieldValueTypeInvalid|when|Invalid value: \"2026-08-09T23:59:60Z\": when in body must be of type date-time: \"2026-08-09T23:59:60Z\""_s
           };
    QTest::newRow("date")
        << rules << QByteArray(R"({"day":"2026-02-30"})")
        << QStringList{
               u"FieldValueTypeInvalid|day|Invalid value: \"2026-02-30\": day in body must be of type date: \"2026-02-30\""_s
           };
    QTest::newRow("duration")
        << rules << QByteArray(R"({"timeout":"5 parsecs"})")
        << QStringList{
               u"FieldValueTypeInvalid|timeout|Invalid value: \"5 parsecs\": timeout in body must be of type duration: \"5 parsecs\""_s
           };
    QTest::newRow("duration ok") << rules << QByteArray(R"({"timeout":"1h30m"})") << QStringList{};
    QTest::newRow("ipv4")
        << rules << QByteArray(R"({"ip":"300.1.1.1"})")
        << QStringList{
               u"FieldValueTypeInvalid|ip|Invalid value: \"300.1.1.1\": ip in body must be of type ipv4: \"300.1.1.1\""_s
           };
    QTest::newRow("uuid")
        << rules << QByteArray(R"({"id":"6ba7b810-9dad-11d1-80b4"})")
        << QStringList{
               u"FieldValueTypeInvalid|id|Invalid value: \"6ba7b810-9dad-11d1-80b4\": id in body must be of type uuid: \"6ba7b810-9dad-11d1-80b4\""_s
           };
    QTest::newRow("uuid ok") << rules
                             << QByteArray(R"({"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"})")
                             << QStringList{};
    QTest::newRow("exclusiveMaximum")
        << rules << QByteArray(R"({"ratio":1})")
        << QStringList{
               u"FieldValueInvalid|ratio|Invalid value: 1: ratio in body should be less than 1"_s
           };
    QTest::newRow("number accepts integers")
        << rules << QByteArray(R"({"ratio":0})") << QStringList{};
    QTest::newRow("multipleOf")
        << rules << QByteArray(R"({"step":7})")
        << QStringList{
               u"FieldValueInvalid|step|Invalid value: 7: step in body should be a multiple of 5"_s
           };
    QTest::newRow("maxProperties")
        << rules << QByteArray(R"({"env":{"a":"1","b":"2"}})")
        << QStringList{ u"FieldValueTooMany|env|Too many: 2: must have at most 1 items"_s };
    QTest::newRow("additionalProperties type")
        << rules << QByteArray(R"({"env":{"a":1}})")
        << QStringList{
               u"FieldValueTypeInvalid|env.a|Invalid value: \"integer\": env.a in body must be of type string: \"integer\""_s
           };
    QTest::newRow("anyOf int-or-string")
        << rules << QByteArray(R"({"either":"x"})") << QStringList{};
    QTest::newRow("boolean type")
        << rules << QByteArray(R"({"flag":"yes"})")
        << QStringList{
               u"FieldValueTypeInvalid|flag|Invalid value: \"string\": flag in body must be of type boolean: \"string\""_s
           };
    const QByteArray combinators = R"({"type":"object","properties":{
        "choice": {"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"required":["a"]},{"required":["b"]}]},
        "any": {"type":"string","anyOf":[{"enum":["x"]},{"pattern":"^y"}]},
        "all": {"type":"integer","allOf":[{"minimum":1},{"maximum":5}]},
        "nope": {"type":"string","not":{"enum":["forbidden"]}}
    }})";
    QTest::newRow("oneOf ok") << combinators
                              << QByteArray(
                                     R"({"choice":{"a":"1"},"any":"yes","all":3,"nope":"fine"})")
                              << QStringList{};
    QTest::newRow("oneOf two valid")
        << combinators << QByteArray(R"({"choice":{"a":"1","b":"2"}})")
        << QStringList{
               u"FieldValueInvalid|<nil>|Invalid value: \"\": \"choice\" must validate one and only one schema (oneOf). Found 2 valid alternatives"_s
           };
    QTest::newRow("oneOf none valid")
        << combinators << QByteArray(R"({"choice":{}})")
        << QStringList{
               u"FieldValueInvalid|<nil>|Invalid value: \"\": \"choice\" must validate one and only one schema (oneOf). Found none valid"_s,
               u"FieldValueRequired|choice.a|Required value"_s
           };
    QTest::newRow("anyOf none valid")
        << combinators << QByteArray(R"({"any":"z"})")
        << QStringList{
               u"FieldValueInvalid|<nil>|Invalid value: \"\": \"any\" must validate at least one schema (anyOf)"_s,
               u"FieldValueNotSupported|any|Unsupported value: \"z\": supported values: \"x\""_s
           };
    QTest::newRow("allOf one fails")
        << combinators << QByteArray(R"({"all":9})")
        << QStringList{
               u"FieldValueInvalid|all|Invalid value: 9: all in body should be less than or equal to 5"_s,
               u"FieldValueInvalid|<nil>|Invalid value: \"\": \"all\" must validate all the schemas (allOf)"_s
           };
    QTest::newRow("not")
        << combinators << QByteArray(R"({"nope":"forbidden"})")
        << QStringList{
               u"FieldValueInvalid|<nil>|Invalid value: \"\": \"nope\" must not validate the schema (not)"_s
           };
    QTest::newRow("several errors, in field order")
        << rules << QByteArray(R"({"color":"blue","name":"ABCDEFG"})")
        << QStringList{
               u"FieldValueNotSupported|color|Unsupported value: \"blue\": supported values: \"red\", \"green\""_s,
               u"FieldValueTooLong|name|Too long: may not be more than 5 bytes"_s,
               u"FieldValueInvalid|name|Invalid value: \"ABCDEFG\": name in body should match '^[a-z]+$'"_s
           };
}

void tst_StructuralSchema::validate()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, object);
    QFETCH(QStringList, errors);
    QCOMPARE(schematest::errorLines(schemaFrom(schema).validate(parse(object))), errors);
}

void tst_StructuralSchema::validateUpdateRatchets_data()
{
    QTest::addColumn<QByteArray>("old");
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<QStringList>("errors");

    QTest::newRow("unchanged invalid value, other field changed")
        << QByteArray(R"({"spec":{"image":"a","replicas":200}})")
        << QByteArray(R"({"spec":{"image":"b","replicas":200}})") << QStringList{};
    QTest::newRow("changed invalid value")
        << QByteArray(R"({"spec":{"image":"a","replicas":200}})")
        << QByteArray(R"({"spec":{"image":"a","replicas":300}})")
        << QStringList{
               u"FieldValueInvalid|spec.replicas|Invalid value: 300: spec.replicas in body should be less than or equal to 100"_s
           };
    QTest::newRow("missing required field, parent unchanged")
        << QByteArray(R"({"spec":{"replicas":1}})")
        << QByteArray(R"({"spec":{"replicas":1},"status":{"phase":"Ready"}})") << QStringList{};
    QTest::newRow("missing required field, parent changed")
        << QByteArray(R"({"spec":{"replicas":1}})") << QByteArray(R"({"spec":{"replicas":2}})")
        << QStringList{ u"FieldValueRequired|spec.image|Required value"_s };
    QTest::newRow("plain list correlates by index")
        << QByteArray(R"({"spec":{"image":"a","items":[{"name":7},{"name":"x"}]}})")
        << QByteArray(R"({"spec":{"image":"a","items":[{"name":7},{"name":"y"}]}})")
        << QStringList{};
    QTest::newRow("plain list item changed")
        << QByteArray(R"({"spec":{"image":"a","items":[{"name":7}]}})")
        << QByteArray(R"({"spec":{"image":"a","items":[{"name":8}]}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.items[0].name|Invalid value: \"integer\": spec.items[0].name in body must be of type string: \"integer\""_s
           };
    QTest::newRow("no old value: validated as on create")
        << QByteArray(R"({"spec":{"image":"a"}})")
        << QByteArray(R"({"spec":{"image":"a","port":true}})")
        << QStringList{
               u"FieldValueTypeInvalid|spec.port|Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""_s
           };
}

void tst_StructuralSchema::validateUpdateRatchets()
{
    QFETCH(QByteArray, old);
    QFETCH(QByteArray, object);
    QFETCH(QStringList, errors);
    const StructuralSchema schema = schemaFrom(appSchema);
    QCOMPARE(schematest::errorLines(schema.validateUpdate(parse(object), parse(old))), errors);
    // Identical objects never fail an update, whatever they hold.
    QCOMPARE(schematest::errorLines(schema.validateUpdate(parse(old), parse(old))), QStringList());
}

void tst_StructuralSchema::validateUpdateListCorrelation()
{
    const StructuralSchema schema = schemaFrom(R"({"type":"object","properties":{
        "tags": {"type":"array","items":{"type":"string","maxLength":3},"x-kubernetes-list-type":"set"},
        "ports": {"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                  "items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}}}}})");
    // A list-type=map item is found again by its key, wherever it moved.
    QCOMPARE(schematest::errorLines(schema.validateUpdate(
                 parse(R"({"ports":[{"name":"https","port":443},{"name":"http","port":"x"}]})"),
                 parse(R"({"ports":[{"name":"http","port":"x"}]})"))),
             QStringList());
    // Sets do not correlate: once the set changes, every item is validated again.
    QCOMPARE(schematest::errorLines(schema.validateUpdate(parse(R"({"tags":["long-tag","b"]})"),
                                                          parse(R"({"tags":["long-tag"]})"))),
             QStringList{ u"FieldValueTooLong|tags[0]|Too long: may not be more than 3 bytes"_s });
}

void tst_StructuralSchema::validateInt64Exactness()
{
    // 2^63-1 and 2^63-2 are the same double; only integer comparison tells them apart.
    const StructuralSchema schema = schemaFrom(
        R"({"type":"object","properties":{"n":{"type":"integer","format":"int64","maximum":9223372036854775806}}})");
    QCOMPARE(schematest::errorLines(schema.validate(parse(R"({"n":9223372036854775806})"))),
             QStringList());
    QCOMPARE(
        schematest::errorLines(schema.validate(parse(R"({"n":9223372036854775807})"))),
        QStringList{
            u"FieldValueInvalid|n|Invalid value: 9223372036854775807: n in body should be less than or equal to 9223372036854775806"_s });

    const StructuralSchema minimum = schemaFrom(
        R"({"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775807}}})");
    QCOMPARE(
        schematest::errorLines(minimum.validate(parse(R"({"n":-9223372036854775808})"))),
        QStringList{
            u"FieldValueInvalid|n|Invalid value: -9223372036854775808: n in body should be greater than or equal to -9223372036854775807"_s });
}

void tst_StructuralSchema::int64SurvivesPruneAndDefaults()
{
    const StructuralSchema schema = schemaFrom(
        R"({"type":"object","properties":{"spec":{"type":"object","properties":{
            "big":{"type":"integer","format":"int64"},
            "fallback":{"type":"integer","format":"int64","default":9007199254740993}}}}})");
    json object = parse(R"({"spec":{"big":9223372036854775807,"junk":1}})");
    QCOMPARE(schema.prune(object), QStringList{ u"spec.junk"_s });
    schema.applyDefaults(object);
    QVERIFY(schema.validate(object).isEmpty());
    QCOMPARE(schematest::dump(object),
             u"{\"spec\":{\"big\":9223372036854775807,\"fallback\":9007199254740993}}"_s);
}

void tst_StructuralSchema::declaresStatus()
{
    QVERIFY(schemaFrom(appSchema).declaresStatus());
    QVERIFY(!schemaFrom(R"({"type":"object","properties":{"spec":{"type":"object"}}})")
                 .declaresStatus());
}

void tst_StructuralSchema::rejectsMalformedSchemas_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an object") << QByteArray("[]") << u"openAPIV3Schema: must be an object"_s;
    QTest::newRow("unknown type")
        << QByteArray(R"({"type":"object","properties":{"a":{"type":"str"}}})")
        << u"openAPIV3Schema.properties[a].type: Unsupported value: \"str\""_s;
    QTest::newRow("bad pattern")
        << QByteArray(R"({"type":"object","properties":{"a":{"type":"string","pattern":"(["}}})")
        << u"openAPIV3Schema.properties[a].pattern: Invalid value: \"([\": must be a valid regular expression"_s;
}

void tst_StructuralSchema::rejectsMalformedSchemas()
{
    QFETCH(QByteArray, schema);
    QFETCH(QString, message);
    auto result = StructuralSchema::fromJson(parse(schema));
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.startsWith(message), qPrintable(result.error().message));
}

void tst_StructuralSchema::rejectsAbsurdNesting()
{
    json schema = { { "type", "string" } };
    for (int i = 0; i < 1200; ++i)
        schema = schematest::nested(std::move(schema));
    auto result = StructuralSchema::fromJson(schema);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.endsWith(u": must not be nested more than 1000 levels deep"_s),
             qPrintable(result.error().message.right(200)));
    // A realistic depth is fine.
    json shallow = { { "type", "string" } };
    for (int i = 0; i < 60; ++i)
        shallow = schematest::nested(std::move(shallow));
    QVERIFY(StructuralSchema::fromJson(shallow).ok());
}

void tst_StructuralSchema::toleratesOddSchemaValues()
{
    // Sub-schemas that are not objects make fromJson fail, with a path.
    auto broken = StructuralSchema::fromJson(
        parse(R"({"type":"object","properties":{"a":{"type":"array","items":5}}})"));
    QVERIFY(!broken.ok());
    QCOMPARE(broken.error().message, u"openAPIV3Schema.properties[a].items: must be an object"_s);

    // Keywords of the wrong JSON type are ignored rather than thrown on (CRD validation reports
    // them); nothing here may throw across the event loop.
    const json schema = parse(R"({"type":"object","required":"spec","enum":3,"minimum":"1",
        "maxLength":"x","pattern":7,"x-kubernetes-list-type":1,"x-kubernetes-preserve-unknown-fields":"yes",
        "properties":{"a":{"type":"array","items":{}},"b":{"type":"integer","multipleOf":-3,"maximum":1e300},
                      "c":{"type":"object","additionalProperties":true}}})");
    auto structural = StructuralSchema::fromJson(schema);
    QVERIFY(structural.ok());
    json object
        = parse(R"({"a":[1,{"x":2}],"b":-9223372036854775808,"c":{"k":{"deep":1}},"z":null})");
    structural->applyDefaults(object);
    structural->prune(object);
    QCOMPARE(schematest::errorLines(structural->validate(object)), QStringList());
    QCOMPARE(schematest::errorLines(structural->validateUpdate(object, parse("[]"))),
             QStringList());
}

void tst_StructuralSchema::formatFieldErrors_data()
{
    QTest::addColumn<QList<FieldError>>("errors");
    QTest::addColumn<QString>("text");
    const FieldError replicas{
        u"FieldValueInvalid"_s,
        u"spec.replicas"_s,
        u"Invalid value: 200: spec.replicas in body should be less than or equal to 100"_s
    };
    const FieldError image{ u"FieldValueRequired"_s, u"spec.image"_s, u"Required value"_s };
    QTest::newRow("none") << QList<FieldError>{} << QString();
    QTest::newRow("one") << QList<FieldError>{
        replicas
    } << u"spec.replicas: Invalid value: 200: spec.replicas in body should be less than or equal to 100"_s;
    QTest::newRow("two") << QList<FieldError>{
        replicas, image
    } << u"[spec.replicas: Invalid value: 200: spec.replicas in body should be less than or equal to 100, spec.image: Required value]"_s;
}

void tst_StructuralSchema::formatFieldErrors()
{
    QFETCH(QList<FieldError>, errors);
    QFETCH(QString, text);
    QCOMPARE(reconscope::controller::cluster::formatFieldErrors(errors), text);
}

QTEST_GUILESS_MAIN(tst_StructuralSchema)
#include "tst_structuralschema.moc"
