#include "controller/cluster/schema/discoverydocuments.h"
#include "schematestutil.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using schematest::json;

namespace {

ResourceType builtin(const QString &group,
                     const QString &version,
                     const QString &plural,
                     const QString &kind,
                     bool namespaced = true)
{
    ResourceType type;
    type.group = group;
    type.version = version;
    type.plural = plural;
    type.singular = kind.toLower();
    type.kind = kind;
    type.listKind = kind + u"List"_s;
    type.namespaced = namespaced;
    type.builtin = true;
    return type;
}

QList<ResourceType> cluster()
{
    QList<ResourceType> types = schematest::customAppTypes();
    types.append(*resourceTypesFromCrd(schematest::yamlFile(
        schematest::sharedPath(u"fixtures/real-crds/crds/cluster.x-k8s.io_machinepools.yaml"_s))));
    ResourceType pods = builtin(QString(), u"v1"_s, u"pods"_s, u"Pod"_s);
    pods.shortNames = { u"po"_s };
    pods.categories = { u"all"_s };
    pods.statusSubresource = true;
    types.append(pods);
    types.append(builtin(QString(), u"v1"_s, u"namespaces"_s, u"Namespace"_s, false));
    ResourceType deployments = builtin(u"apps"_s, u"v1"_s, u"deployments"_s, u"Deployment"_s);
    deployments.statusSubresource = true;
    deployments.scaleSubresource = true;
    types.append(deployments);
    ResourceType hidden = builtin(u"example.com"_s, u"v1"_s, u"hiddens"_s, u"Hidden"_s);
    hidden.served = false;
    types.append(hidden);
    return types;
}

} // namespace

class tst_Discovery : public QObject
{
    Q_OBJECT

private slots:
    void aggregatedCustomApp();
    void aggregatedVersionsPreferredFirst();
    void aggregatedScaleSubresource();
    void aggregatedCore();
    void legacyApiVersions();
    void legacyGroupList();
    void legacyGroup();
    void legacyResourceList();
    void legacyResourceListWithoutStatus();
    void legacyCoreResourceList();
};

void tst_Discovery::aggregatedCustomApp()
{
    const json list = aggregatedDiscovery(schematest::customAppTypes(), false);
    const json expected = schematest::parse(
        R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},
      "items":[{"metadata":{"name":"infrastructure.internal.net","creationTimestamp":null},
        "versions":[{"version":"v1","freshness":"Current","resources":[{
          "resource":"customapps",
          "responseKind":{"group":"infrastructure.internal.net","version":"v1","kind":"CustomApp"},
          "scope":"Namespaced","singularResource":"customapp",
          "verbs":["delete","deletecollection","get","list","patch","create","update","watch"],
          "shortNames":["ca"],"categories":["all"],
          "subresources":[{"subresource":"status","responseKind":{"group":"infrastructure.internal.net","version":"v1","kind":"CustomApp"},"verbs":["get","patch","update"]}]}]}]}]})");
    QCOMPARE_JSON(list, expected);
}

void tst_Discovery::aggregatedVersionsPreferredFirst()
{
    const json list = aggregatedDiscovery(cluster(), false);
    QStringList groups;
    for (const json &item : list["items"]) {
        QStringList versions;
        for (const json &version : item["versions"]) {
            versions.append(QString::fromStdString(version["version"]));
            for (const json &resource : version["resources"])
                QVERIFY2(resource.contains("responseKind"),
                         "client-go drops resources without responseKind");
        }
        groups.append(QString::fromStdString(item["metadata"]["name"]) + u'='
                      + versions.join(u','));
    }
    // Unserved versions are absent; v1beta2 (storage and newer) is preferred over v1beta1.
    QCOMPARE(groups,
             (QStringList{ u"infrastructure.internal.net=v1"_s,
                           u"cluster.x-k8s.io=v1beta2,v1beta1"_s,
                           u"apps=v1"_s }));
}

void tst_Discovery::aggregatedScaleSubresource()
{
    const json list = aggregatedDiscovery(cluster(), false);
    const json &machinePools = list["items"][1]["versions"][0]["resources"][0];
    QCOMPARE_JSON(machinePools["resource"], json("machinepools"));
    QCOMPARE_JSON(machinePools["subresources"], schematest::parse(R"([
        {"subresource":"status","responseKind":{"group":"cluster.x-k8s.io","version":"v1beta2","kind":"MachinePool"},"verbs":["get","patch","update"]},
        {"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]}])"));
    QCOMPARE_JSON(machinePools["shortNames"], schematest::parse(R"(["mp"])"));
    QCOMPARE_JSON(machinePools["categories"], schematest::parse(R"(["cluster-api"])"));
}

void tst_Discovery::aggregatedCore()
{
    const json list = aggregatedDiscovery(cluster(), true);
    QCOMPARE(list["items"].size(), std::size_t(1));
    const json &core = list["items"][0];
    QVERIFY(!core["metadata"].contains("name"));
    QCOMPARE_JSON(core["versions"][0]["version"], json("v1"));
    const json &resources = core["versions"][0]["resources"];
    QCOMPARE(resources.size(), std::size_t(2));
    // Sorted by resource name.
    QCOMPARE_JSON(resources[0]["resource"], json("namespaces"));
    QCOMPARE_JSON(resources[0]["scope"], json("Cluster"));
    QCOMPARE_JSON(resources[0]["responseKind"],
                  schematest::parse(R"({"group":"","version":"v1","kind":"Namespace"})"));
    QVERIFY(!resources[0].contains("subresources"));
    QCOMPARE_JSON(resources[1]["resource"], json("pods"));
    QCOMPARE_JSON(resources[1]["shortNames"], schematest::parse(R"(["po"])"));
    QCOMPARE_JSON(resources[1]["subresources"][0]["subresource"], json("status"));
    // No groups in the core list and no core group in /apis.
    const json groups = aggregatedDiscovery(cluster(), false); // kept: the loop reads into it
    for (const json &item : groups["items"])
        QVERIFY(!item["metadata"].value("name", std::string()).empty());
}

void tst_Discovery::legacyApiVersions()
{
    const json versions = apiVersions();
    QCOMPARE_JSON(versions["kind"], json("APIVersions"));
    QCOMPARE_JSON(versions["versions"], schematest::parse(R"(["v1"])"));
}

void tst_Discovery::legacyGroupList()
{
    const json list = apiGroupList(cluster());
    QCOMPARE_JSON(list, schematest::parse(R"({"kind":"APIGroupList","apiVersion":"v1","groups":[
      {"name":"infrastructure.internal.net","versions":[{"groupVersion":"infrastructure.internal.net/v1","version":"v1"}],
       "preferredVersion":{"groupVersion":"infrastructure.internal.net/v1","version":"v1"}},
      {"name":"cluster.x-k8s.io","versions":[{"groupVersion":"cluster.x-k8s.io/v1beta2","version":"v1beta2"},{"groupVersion":"cluster.x-k8s.io/v1beta1","version":"v1beta1"}],
       "preferredVersion":{"groupVersion":"cluster.x-k8s.io/v1beta2","version":"v1beta2"}},
      {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]})"));
}

void tst_Discovery::legacyGroup()
{
    const json group = apiGroup(u"cluster.x-k8s.io"_s, cluster());
    QCOMPARE_JSON(group["kind"], json("APIGroup"));
    QCOMPARE_JSON(group["apiVersion"], json("v1"));
    QCOMPARE_JSON(group["name"], json("cluster.x-k8s.io"));
    QCOMPARE_JSON(group["preferredVersion"]["version"], json("v1beta2"));
    QVERIFY(apiGroup(u"example.com"_s, cluster()).is_null()); // only an unserved version
    QVERIFY(apiGroup(u"nope.io"_s, cluster()).is_null());
    QVERIFY(apiGroup(QString(), cluster()).is_null());
}

void tst_Discovery::legacyResourceList()
{
    const json list = apiResourceList(u"cluster.x-k8s.io/v1beta1"_s, cluster());
    QCOMPARE_JSON(list["kind"], json("APIResourceList"));
    QCOMPARE_JSON(list["groupVersion"], json("cluster.x-k8s.io/v1beta1"));
    QStringList names;
    for (const json &resource : list["resources"])
        names.append(QString::fromStdString(resource["name"]));
    QCOMPARE(names,
             (QStringList{ u"machinepools"_s, u"machinepools/status"_s, u"machinepools/scale"_s }));
    const json &main = list["resources"][0];
    QCOMPARE_JSON(main["singularName"], json("machinepool"));
    QCOMPARE_JSON(main["namespaced"], json(true));
    QCOMPARE_JSON(main["kind"], json("MachinePool"));
    // sha256("cluster.x-k8s.io/v1beta2/MachinePool")[:8], base64: the storage version's hash.
    QCOMPARE(QString::fromStdString(main["storageVersionHash"]).size(), 12);
    QCOMPARE_JSON(apiResourceList(u"cluster.x-k8s.io/v1beta2"_s,
                                  cluster())["resources"][0]["storageVersionHash"],
                  main["storageVersionHash"]);
    QCOMPARE_JSON(
        list["resources"][2],
        schematest::parse(R"({"name":"machinepools/scale","singularName":"","namespaced":true,
        "group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]})"));
    QVERIFY(apiResourceList(u"cluster.x-k8s.io/v1alpha3"_s, cluster()).is_null());
    QVERIFY(apiResourceList(u"example.com/v1"_s, cluster()).is_null());
}

void tst_Discovery::legacyResourceListWithoutStatus()
{
    QList<ResourceType> types = schematest::customAppTypes();
    types[0].statusSubresource = false;
    const json list = apiResourceList(u"infrastructure.internal.net/v1"_s, types);
    QCOMPARE(list["resources"].size(), std::size_t(1));
    QCOMPARE_JSON(list["resources"][0]["shortNames"], schematest::parse(R"(["ca"])"));
    QCOMPARE_JSON(
        list["resources"][0]["verbs"],
        schematest::parse(
            R"(["delete","deletecollection","get","list","patch","create","update","watch"])"));
    types[0].statusSubresource = true;
    QCOMPARE_JSON(
        apiResourceList(u"infrastructure.internal.net/v1"_s, types)["resources"][1]["name"],
        json("customapps/status"));
}

void tst_Discovery::legacyCoreResourceList()
{
    const json list = apiResourceList(u"v1"_s, cluster());
    QCOMPARE_JSON(list["groupVersion"], json("v1"));
    QStringList names;
    for (const json &resource : list["resources"])
        names.append(QString::fromStdString(resource["name"]));
    QCOMPARE(names, (QStringList{ u"namespaces"_s, u"pods"_s, u"pods/status"_s }));
    QCOMPARE_JSON(list["resources"][0]["namespaced"], json(false));
}

QTEST_GUILESS_MAIN(tst_Discovery)
#include "tst_discovery.moc"
