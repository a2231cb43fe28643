#include "controller/cluster/schema/crd.h"
#include "controller/cluster/schema/crdvalidation.h"
#include "controller/cluster/schema/structuralschema.h"
#include "schematestutil.h"

#include <QDir>
#include <QHash>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

namespace {

QString crdPath(const QString &file)
{
    return schematest::sharedPath(u"fixtures/real-crds/crds/"_s + file);
}

QStringList crdFiles()
{
    return QDir(schematest::sharedPath(u"fixtures/real-crds/crds"_s))
        .entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name);
}

// A fixture CRD, parsed once per run (the YAML of the largest is 400 kB).
const json &crdFile(const QString &file)
{
    static QHash<QString, json> cache;
    auto it = cache.find(file);
    if (it == cache.end())
        it = cache.insert(file, schematest::yamlFile(crdPath(file)));
    return *it;
}

// All CRDs of the fixtures plus the project's own.
QList<json> allCrds()
{
    QList<json> crds;
    for (const QString &file : crdFiles())
        crds.append(crdFile(file));
    crds.append(schematest::customAppCrd());
    return crds;
}

// Applies an RFC 6902 patch to a copy of the CustomApp CRD.
json mutatedCustomApp(const QByteArray &patch)
{
    return schematest::customAppCrd().patch(schematest::parse(patch));
}

} // namespace

class tst_Crd : public QObject
{
    Q_OBJECT

private slots:
    void realCrdsParse_data();
    void realCrdsParse();
    void customApp();
    void clusterApiMachinePools();
    void defaults();
    void invalidCrds_data();
    void invalidCrds();
    void invalidCrdIsRejectedWithMessage();
    void versionsPrintAsInternalTypes();
    void absurdlyNestedSchemaIsRejected();
    void fixtureObjectsValidate_data();
    void fixtureObjectsValidate();
    void fixtureObjectCoverage();
    void schemaCost();
    void objectCost();
};

void tst_Crd::realCrdsParse_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("versions");
    QTest::addColumn<QString>("kind");
    for (const QString &file : crdFiles()) {
        const json crd = crdFile(file);
        QTest::newRow(qPrintable(file)) << file << int(crd["spec"]["versions"].size())
                                        << QString::fromStdString(crd["spec"]["names"]["kind"]);
    }
    QCOMPARE(crdFiles().size(), 12);
}

void tst_Crd::realCrdsParse()
{
    QFETCH(QString, file);
    QFETCH(int, versions);
    QFETCH(QString, kind);
    const json crd = crdFile(file);
    QCOMPARE(schematest::errorLines(validateCrd(crd)).join(u"\n"_s), QString());
    auto types = resourceTypesFromCrd(crd);
    QVERIFY2(types.ok(), qPrintable(types.ok() ? QString() : types.error().message));
    QCOMPARE(types->size(), versions);
    int storage = 0;
    for (const ResourceType &type : *types) {
        QCOMPARE(type.kind, kind);
        QCOMPARE(type.listKind, kind + u"List"_s);
        QCOMPARE(type.qualifiedResource(), QString::fromStdString(crd["metadata"]["name"]));
        QVERIFY(!type.schema.is_null());
        storage += type.storage ? 1 : 0;
        auto schema = StructuralSchema::fromJson(type.schema);
        QVERIFY2(schema.ok(), qPrintable(schema.ok() ? QString() : schema.error().message));
    }
    QCOMPARE(storage, 1);
}

void tst_Crd::customApp()
{
    const QList<ResourceType> types = schematest::customAppTypes();
    QCOMPARE(types.size(), 1);
    const ResourceType &type = types.first();
    QCOMPARE(type.group, u"infrastructure.internal.net"_s);
    QCOMPARE(type.version, u"v1"_s);
    QCOMPARE(type.groupVersion(), u"infrastructure.internal.net/v1"_s);
    QCOMPARE(type.plural, u"customapps"_s);
    QCOMPARE(type.singular, u"customapp"_s);
    QCOMPARE(type.kind, u"CustomApp"_s);
    QCOMPARE(type.listKind, u"CustomAppList"_s);
    QVERIFY(type.namespaced);
    QCOMPARE(type.shortNames, QStringList{ u"ca"_s });
    QCOMPARE(type.categories, QStringList{ u"all"_s });
    QVERIFY(type.served);
    QVERIFY(type.storage);
    QVERIFY(type.statusSubresource);
    QVERIFY(!type.scaleSubresource);
    QVERIFY(!type.builtin);
    QCOMPARE(type.printerColumns.size(), 5);
    QCOMPARE(type.printerColumns[2].name, u"Ready"_s);
    QCOMPARE(type.printerColumns[2].jsonPath, u".status.conditions[?(@.type==\"Ready\")].status"_s);
    QCOMPARE(type.printerColumns[4].type, u"date"_s);
    QCOMPARE_JSON(type.schema["properties"]["spec"]["properties"]["replicas"]["default"], json(1));
}

void tst_Crd::clusterApiMachinePools()
{
    auto types = resourceTypesFromCrd(crdFile(u"cluster.x-k8s.io_machinepools.yaml"_s));
    QVERIFY(types.ok());
    QCOMPARE(types->size(), 2);
    QCOMPARE(types->at(0).version, u"v1beta1"_s);
    QCOMPARE(types->at(1).version, u"v1beta2"_s);
    QVERIFY(!types->at(0).storage);
    QVERIFY(types->at(1).storage);
    for (const ResourceType &type : *types) {
        QVERIFY(type.served);
        QVERIFY(type.statusSubresource);
        QVERIFY(type.scaleSubresource);
        QCOMPARE(type.specReplicasPath, u".spec.replicas"_s);
        QCOMPARE(type.statusReplicasPath, u".status.replicas"_s);
        QVERIFY(type.labelSelectorPath.isEmpty()); // this CRD declares none
    }
    // x-kubernetes-validations (CEL) are accepted, even though not evaluated.
    const json crd = crdFile(u"cluster.x-k8s.io_clusters.yaml"_s);
    QVERIFY(crd.dump().find("x-kubernetes-validations") != std::string::npos);
    QVERIFY(resourceTypesFromCrd(crd).ok());
}

void tst_Crd::defaults()
{
    json crd = schematest::customAppCrd();
    crd["spec"]["names"].erase("singular");
    crd["spec"]["names"].erase("listKind");
    applyCrdDefaults(crd);
    QCOMPARE_JSON(crd["spec"]["names"]["singular"], json("customapp"));
    QCOMPARE_JSON(crd["spec"]["names"]["listKind"], json("CustomAppList"));
    QCOMPARE_JSON(crd["spec"]["conversion"]["strategy"], json("None"));
    auto types = resourceTypesFromCrd(crd);
    QVERIFY(types.ok());
    QCOMPARE(types->first().singular, u"customapp"_s);

    // resourceTypesFromCrd applies the defaults itself.
    json bare = schematest::customAppCrd();
    bare["spec"]["names"].erase("listKind");
    QCOMPARE(resourceTypesFromCrd(bare)->first().listKind, u"CustomAppList"_s);
}

void tst_Crd::invalidCrds_data()
{
    QTest::addColumn<QByteArray>("patch");
    QTest::addColumn<QStringList>("errors");
    const QString root = u"spec.versions[0].schema.openAPIV3Schema"_s;

    QTest::newRow("name must be plural.group")
        << QByteArray(
               R"([{"op":"replace","path":"/metadata/name","value":"apps.infrastructure.internal.net"}])")
        << QStringList{
               u"FieldValueInvalid|metadata.name|Invalid value: \"apps.infrastructure.internal.net\": must be spec.names.plural+\".\"+spec.group"_s
           };
    QTest::newRow("group without a dot")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/group","value":"infra"},{"op":"replace","path":"/metadata/name","value":"customapps.infra"}])")
        << QStringList{
               u"FieldValueInvalid|spec.group|Invalid value: \"infra\": should be a domain with at least one dot"_s
           };
    // field.Error prints spec.versions as Go's json.Marshal of the internal versions, whose
    // members alike in every version (here all) the v1 conversion moved up to the spec.
    const auto versionText = [](const char *name, bool storage) {
        return u"{\"Name\":\"%1\",\"Served\":true,\"Storage\":%2,\"Deprecated\":false,"
               "\"DeprecationWarning\":null,\"Schema\":null,\"Subresources\":null,"
               "\"AdditionalPrinterColumns\":null,\"SelectableFields\":null}"_s.arg(
                   QLatin1StringView(name), storage ? u"true"_s : u"false"_s);
    };
    QTest::newRow("no storage version")
        << QByteArray(R"([{"op":"replace","path":"/spec/versions/0/storage","value":false}])")
        << QStringList{ u"FieldValueInvalid|spec.versions|Invalid value: ["_s
                        + versionText("v1", false)
                        + u"]: must have exactly one version marked as storage version"_s };
    const QByteArray twoVersions
        = R"([{"op":"replace","path":"/spec/versions","value":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"%1","served":true,"storage":%2,"schema":{"openAPIV3Schema":{"type":"object"}}}]}])";
    QTest::newRow("two storage versions")
        << QByteArray(twoVersions).replace("%1", "v2").replace("%2", "true")
        << QStringList{ u"FieldValueInvalid|spec.versions|Invalid value: ["_s
                        + versionText("v1", true) + u',' + versionText("v2", true)
                        + u"]: must have exactly one version marked as storage version"_s };
    QTest::newRow("duplicate version names")
        << QByteArray(twoVersions).replace("%1", "v1").replace("%2", "false")
        << QStringList{ u"FieldValueInvalid|spec.versions|Invalid value: ["_s
                        + versionText("v1", true) + u',' + versionText("v1", false)
                        + u"]: must contain unique version names"_s };
    QTest::newRow("bad scope")
        << QByteArray(R"([{"op":"replace","path":"/spec/scope","value":"Global"}])")
        << QStringList{
               u"FieldValueNotSupported|spec.scope|Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""_s
           };
    QTest::newRow("missing kind") << QByteArray(
        R"([{"op":"remove","path":"/spec/names/kind"},{"op":"remove","path":"/spec/names/listKind"},{"op":"remove","path":"/spec/names/singular"}])")
                                  << QStringList{
                                         u"FieldValueRequired|spec.names.singular|Required value"_s,
                                         u"FieldValueRequired|spec.names.kind|Required value"_s,
                                         u"FieldValueRequired|spec.names.listKind|Required value"_s
                                     };
    QTest::newRow("uppercase plural")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/names/plural","value":"CustomApps"},{"op":"replace","path":"/metadata/name","value":"CustomApps.infrastructure.internal.net"}])")
        << QStringList{
               u"FieldValueInvalid|metadata.name|Invalid value: \"CustomApps.infrastructure.internal.net\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"_s,
               u"FieldValueInvalid|spec.names.plural|Invalid value: \"CustomApps\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"_s
           };
    QTest::newRow("missing schema")
        << QByteArray(R"([{"op":"remove","path":"/spec/versions/0/schema"}])")
        << QStringList{ u"FieldValueRequired|"_s + root
                        + u"|Required value: schemas are required"_s };
    QTest::newRow("root type not object")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/type","value":"string"}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
                   + u".type|Invalid value: \"string\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"_s,
               u"FieldValueInvalid|"_s + root
                   + u".type|Invalid value: \"string\": must be object at the root"_s
           };
    QTest::newRow("property without type")
        << QByteArray(
               R"([{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/image/type"}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].properties[image].type|Required value: must not be empty for specified object fields"_s
           };
    QTest::newRow("array without items")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/list","value":{"type":"array"}}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].properties[list].items|Required value: must be specified"_s
           };
    QTest::newRow("additionalProperties with properties")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/additionalProperties","value":{"type":"string"}}])")
        << QStringList{
               u"FieldValueForbidden|"_s + root
               + u".properties[spec].additionalProperties|Forbidden: additionalProperties and properties are mutual exclusive"_s
           };
    QTest::newRow("metadata properties beyond name")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/metadata/properties","value":{"labels":{"type":"object"}}}])")
        << QStringList{
               u"FieldValueForbidden|"_s + root
               + u".properties[metadata]|Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"_s
           };
    QTest::newRow("type inside anyOf")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/port/anyOf","value":[{"type":"integer"}]}])")
        << QStringList{
               u"FieldValueForbidden|"_s + root
               + u".properties[spec].properties[port].anyOf[0].type|Forbidden: must be empty to be structural"_s
           };
    QTest::newRow("bad printer column")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/additionalPrinterColumns/0/type","value":"text"}])")
        << QStringList{
               u"FieldValueNotSupported|spec.versions[0].additionalPrinterColumns[0].type|Unsupported value: \"text\": supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""_s
           };
    QTest::newRow("bad printer column path")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/additionalPrinterColumns/0/jsonPath","value":".spec[?(@.x"}])")
        << QStringList{
               u"FieldValueInvalid|spec.versions[0].additionalPrinterColumns[0].jsonPath|Invalid value: \".spec[?(@.x\": must be a simple json path"_s
           };
    QTest::newRow("default of the wrong type")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/default","value":"one"}])")
        << QStringList{
               u"FieldValueTypeInvalid|"_s + root
               + u".properties[spec].properties[replicas].default|Invalid value: \"string\":  in body must be of type integer: \"string\""_s
           };
    QTest::newRow("default out of range")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/default","value":500}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
               + u".properties[spec].properties[replicas].default|Invalid value: 500:  in body should be less than or equal to 100"_s
           };
    QTest::newRow("default with unknown fields")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/secretRef/default","value":{"name":"x","extra":1}}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
               + u".properties[spec].properties[secretRef].default|Invalid value: map[string]interface {}{\"extra\":1, \"name\":\"x\"}: must not have unknown fields"_s
           };
    QTest::newRow("structural errors are sorted by their text")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/zz","value":{"type":"array"}},
                          {"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/aa","value":{}}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
                   + u".properties[spec].properties[aa].type|Required value: must not be empty for specified object fields"_s,
               u"FieldValueRequired|"_s + root
                   + u".properties[spec].properties[zz].items|Required value: must be specified"_s
           };
    QTest::newRow("additionalProperties at the root")
        << QByteArray(
               R"([{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties"},
                          {"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/additionalProperties","value":{"type":"string"}}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
                   + u"|Invalid value: ...: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"_s,
               u"FieldValueForbidden|"_s + root
                   + u".additionalProperties|Forbidden: must not be used at the root"_s
           };
    QTest::newRow("embedded resource without properties")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/tpl","value":{"type":"object","x-kubernetes-embedded-resource":true}}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].properties[tpl].properties|Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"_s
           };
    QTest::newRow("kind property must be a string")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/kind/type","value":"integer"}])")
        << QStringList{ u"FieldValueInvalid|"_s + root
                        + u".properties[kind].type|Invalid value: \"integer\": must be string"_s };
    QTest::newRow("type null")
        << QByteArray(
               R"([{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/image/type","value":"null"}])")
        << QStringList{
               u"FieldValueForbidden|"_s + root
               + u".properties[spec].properties[image].type|Forbidden: type cannot be set to null, use nullable as an alternative"_s
           };
    QTest::newRow("list-type map key that is no item property")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports","value":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],"items":{"type":"object","properties":{"name":{"type":"string"}}}}}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
               + u".properties[spec].properties[ports].x-kubernetes-list-map-keys|Invalid value: []string{\"port\"}: entries must all be names of item properties"_s
           };
    QTest::newRow("empty CEL rule")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations","value":[{"rule":"  "}]}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].x-kubernetes-validations[0].rule|Required value: rule is not specified"_s
           };
    QTest::newRow("nullable root")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/nullable","value":true}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
                   + u"|Invalid value: ...: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"_s,

               u"FieldValueForbidden|"_s + root
                   + u".nullable|Forbidden: nullable cannot be true at the root"_s
           };
    QTest::newRow("default in top-level metadata")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/metadata/default","value":{}}])")
        << QStringList{
               u"FieldValueForbidden|"_s + root
               + u".properties[metadata].default|Forbidden: must not be set in top-level metadata"_s
           };
    QTest::newRow("list-type map key neither required nor defaulted")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports","value":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"}}}}}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].properties[ports].items.properties[name].default|Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"_s
           };
    QTest::newRow("scale label selector outside spec and status")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/subresources/scale","value":{"specReplicasPath":".spec.replicas","statusReplicasPath":"status.replicas","labelSelectorPath":".metadata.labels"}}])")
        << QStringList{
               u"FieldValueInvalid|spec.versions[0].subresources.scale.statusReplicasPath|Invalid value: \"status.replicas\": must be a simple json path starting with ."_s,
               u"FieldValueInvalid|spec.versions[0].subresources.scale.labelSelectorPath|Invalid value: \".metadata.labels\": should be a json path under either .spec or .status"_s
           };
    QTest::newRow("set of non-atomic objects")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/peers","value":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","properties":{"host":{"type":"string"}}}}}])")
        << QStringList{
               u"FieldValueInvalid|"_s + root
               + u".properties[spec].properties[peers].items.x-kubernetes-map-type|Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set"_s
           };
    QTest::newRow("selectable fields")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/selectableFields","value":[{"jsonPath":".spec.image"},{"jsonPath":".spec.nope"},{"jsonPath":".spec.secretRef"},{"jsonPath":".spec.image"}]}])")
        << QStringList{
               u"FieldValueInvalid|spec.versions[0].selectableFields[1].jsonPath|Invalid value: \".spec.nope\": is an invalid path: does not refer to a valid field"_s,
               u"FieldValueInvalid|spec.versions[0].selectableFields[2].jsonPath|Invalid value: \".spec.secretRef\": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."_s,
               u"FieldValueDuplicate|spec.versions[0].selectableFields[3].jsonPath|Duplicate value: \".spec.image\""_s
           };
    QTest::newRow("list-type map without keys")
        << QByteArray(
               R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports","value":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}}}])")
        << QStringList{
               u"FieldValueRequired|"_s + root
               + u".properties[spec].properties[ports].x-kubernetes-list-map-keys|Required value: must not be empty if x-kubernetes-list-type is map"_s
           };
}

void tst_Crd::invalidCrds()
{
    QFETCH(QByteArray, patch);
    QFETCH(QStringList, errors);
    json crd = mutatedCustomApp(patch);
    applyCrdDefaults(crd);
    QCOMPARE(schematest::errorLines(validateCrd(crd)), errors);
    QVERIFY(!resourceTypesFromCrd(crd).ok());
}

void tst_Crd::invalidCrdIsRejectedWithMessage()
{
    const json crd = mutatedCustomApp(R"([{"op":"replace","path":"/spec/group","value":"infra"}])");
    auto types = resourceTypesFromCrd(crd);
    QVERIFY(!types.ok());
    QCOMPARE(
        types.error().message,
        u"CustomResourceDefinition.apiextensions.k8s.io \"customapps.infrastructure.internal.net\" is invalid: [metadata.name: Invalid value: \"customapps.infrastructure.internal.net\": must be spec.names.plural+\".\"+spec.group, spec.group: Invalid value: \"infra\": should be a domain with at least one dot]"_s);
}

// Members that differ between versions stay in them, printed as Go's json.Marshal writes the
// internal types: Go's field names in declaration order, nil pointers and slices as null, numbers
// decoded into interface{} or *float64 as float64.
void tst_Crd::versionsPrintAsInternalTypes()
{
    const json versions = schematest::parse(R"([
        {"name":"v1","served":true,"storage":true,"deprecated":true,"deprecationWarning":"old",
         "schema":{"openAPIV3Schema":{"type":"object","properties":{"n":{"type":"number",
           "maximum":1e21,"minimum":0.0000005,"default":3,"enum":[1,"a"]}}}},
         "subresources":{"status":{}}},
        {"name":"v2","served":false,"storage":false,
         "schema":{"openAPIV3Schema":{"type":"object"}},
         "subresources":{"status":{}},
         "additionalPrinterColumns":[{"name":"A","type":"string","jsonPath":".a"}]}])");
    const auto props = [](const QString &type, const QString &number, const QString &properties) {
        return uR"({"ID":"","Schema":"","Ref":null,"Description":"","Type":"%1","Nullable":false,"Format":"","Title":"",)"
               uR"(%2"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,)"
               uR"("MinItems":null,"UniqueItems":false,"MultipleOf":null,%3"MaxProperties":null,"MinProperties":null,)"
               uR"("Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":%4,)"
               uR"("AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,)"
               uR"("Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,)"
               uR"("XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,)"
               uR"("XMapType":null,"XValidations":null})"_s.arg(
                   type, number.section(u'|', 0, 0), number.section(u'|', 1, 1), properties);
    };
    const QString plain
        = uR"("Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,|"Enum":null,)"_s;
    const QString n = props(
        u"number"_s,
        uR"("Default":3,"Maximum":1e+21,"ExclusiveMaximum":false,"Minimum":5e-7,|"Enum":[1,"a"],)"_s,
        u"null"_s);
    const QString expected
        = uR"([{"Name":"v1","Served":true,"Storage":true,"Deprecated":true,"DeprecationWarning":"old",)"
          uR"("Schema":{"OpenAPIV3Schema":)"_s
        + props(u"object"_s, plain, u"{\"n\":"_s + n + u'}')
        + uR"(},"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},)"
          uR"({"Name":"v2","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,)"
          uR"("Schema":{"OpenAPIV3Schema":)"_s
        + props(u"object"_s, plain, u"null"_s)
        + uR"(},"Subresources":null,"AdditionalPrinterColumns":[{"Name":"A","Type":"string",)"
          uR"("Format":"","Description":"","Priority":0,"JSONPath":".a"}],"SelectableFields":null}])"_s;
    QCOMPARE(crdvalidation::internalVersions(versions), expected);
}

void tst_Crd::absurdlyNestedSchemaIsRejected()
{
    json deep = { { "type", "string" } };
    for (int i = 0; i < 1500; ++i)
        deep = schematest::nested(std::move(deep));
    json crd = schematest::customAppCrd();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = deep;
    QCOMPARE(
        schematest::errorLines(validateCrd(crd)),
        QStringList{
            u"FieldValueInvalid|spec.versions[0].schema.openAPIV3Schema|Invalid value: \"\": must not be nested more than 2000 levels deep"_s });
}

void tst_Crd::fixtureObjectsValidate_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<QByteArray>("schema");

    QList<ResourceType> types;
    for (const json &crd : allCrds())
        types.append(*resourceTypesFromCrd(crd));
    const QDir objects(schematest::sharedPath(u"fixtures/real-crds/objects"_s));
    for (const QString &file : objects.entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name)) {
        for (const json &object : schematest::yamlDocuments(objects.filePath(file))) {
            const QString apiVersion = QString::fromStdString(object.value("apiVersion", ""));
            const QString kind = QString::fromStdString(object.value("kind", ""));
            for (const ResourceType &type : types) {
                if (type.groupVersion() == apiVersion && type.kind == kind && type.served)
                    QTest::newRow(qPrintable(file))
                        << file << QByteArray::fromStdString(object.dump())
                        << QByteArray::fromStdString(type.schema.dump());
            }
        }
    }
}

void tst_Crd::fixtureObjectsValidate()
{
    QFETCH(QByteArray, object);
    QFETCH(QByteArray, schema);
    auto structural = StructuralSchema::fromJson(schematest::parse(schema));
    QVERIFY(structural.ok());
    json value = schematest::parse(object);
    structural->applyDefaults(value);
    structural->prune(value);
    QCOMPARE(schematest::errorLines(structural->validate(value)), QStringList());
}

void tst_Crd::fixtureObjectCoverage()
{
    // 18 of the 23 example objects belong to a served version of a fixture CRD; the others are
    // of kinds or versions no CRD here serves (v1alpha2 Certificate, v1alpha3 Cluster, ...).
    QList<ResourceType> types;
    for (const json &crd : allCrds())
        types.append(*resourceTypesFromCrd(crd));
    const QDir objects(schematest::sharedPath(u"fixtures/real-crds/objects"_s));
    int served = 0, total = 0;
    for (const QString &file : objects.entryList({ u"*.yaml"_s }, QDir::Files)) {
        for (const json &object : schematest::yamlDocuments(objects.filePath(file))) {
            ++total;
            for (const ResourceType &type : types) {
                if (type.groupVersion() == QString::fromStdString(object.value("apiVersion", ""))
                    && type.kind == QString::fromStdString(object.value("kind", "")) && type.served)
                    ++served;
            }
        }
    }
    QCOMPARE(total, 23);
    QCOMPARE(served, 18);
}

void tst_Crd::schemaCost()
{
    // The largest fixture schema: Argo CD's Application (~1 MB of YAML).
    const json schema
        = resourceTypesFromCrd(crdFile(u"argoproj.io_applications.yaml"_s))->first().schema;
    QBENCHMARK
    {
        auto structural = StructuralSchema::fromJson(schema);
        QVERIFY(structural.ok());
    }
}

void tst_Crd::objectCost()
{
    auto schema = StructuralSchema::fromJson(
        resourceTypesFromCrd(crdFile(u"argoproj.io_applications.yaml"_s))->first().schema);
    QVERIFY(schema.ok());
    const json object = schematest::yamlDocuments(
                            schematest::sharedPath(
                                u"fixtures/real-crds/objects/application-healthy-synced.yaml"_s))
                            .first();
    QBENCHMARK
    {
        json copy = object;
        schema->applyDefaults(copy);
        schema->prune(copy);
        QVERIFY(schema->validate(copy).isEmpty());
    }
}

QTEST_GUILESS_MAIN(tst_Crd)
#include "tst_crd.moc"
