#include "apitestsupport.h"

#include "controller/cluster/yamldocuments.h"

#include <QDir>
#include <QFile>
#include <QScopeGuard>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::cluster::testsupport;

// CustomResourceDefinitions through the API (shared/spec/kube-api.md section 7): the twelve real
// CRDs of shared/fixtures installed, their served-version example objects accepted, status via
// /status, discovery/OpenAPI/version, and CRD lifecycle (update, delete with its CRs).
class tst_Crds : public ApiTestCase
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void customAppCrdIsInstalledAndEstablished();
    void realCrdsInstallAndEstablish();
    void realObjects_data();
    void realObjects();
    void fluxStatusDefaultReadsBack();
    void otherServedVersionRewritesApiVersion();
    void writesInAnotherVersionKeepWhatStorageDeclares();
    void invalidCrdIs422();
    void crdUpdateChangesWhatIsServed();
    void deletingCrdDeletesItsResources();
    void discovery();
    void openApiVersionAndHealth();

private:
    json yamlFile(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return nullptr;
        auto documents = yamlDocumentsToJson(file.readAll());
        return documents && !documents->isEmpty() ? documents->first() : json();
    }
    void installRealCrd(const QString &fileName)
    {
        const qsizetype i = m_crdFiles.indexOf(crdDir + u'/' + fileName);
        QVERIFY(i >= 0);
        const ApiResponse response = call("POST", crdsPath, m_crdBodies[i]);
        QVERIFY2(response.status == 201, response.body.constData());
    }
    void installRealCrds()
    {
        for (const QString &file : std::as_const(m_crdFiles)) {
            const ApiResponse response = call("POST", crdsPath, dump(yamlFile(file)));
            QVERIFY2(response.status == 201,
                     qPrintable(file + u": "_s + QString::fromUtf8(response.body)));
        }
    }
    void ensureNamespace(const QString &ns)
    {
        call("POST",
             u"/api/v1/namespaces"_s,
             dump(json{ { "apiVersion", "v1" },
                        { "kind", "Namespace" },
                        { "metadata", { { "name", ns.toStdString() } } } }));
    }

    const QString crdsPath = u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s;
    const QString crdDir = QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds/crds");
    const QString objectDir = QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds/objects");
    QStringList m_crdFiles;
    QList<QByteArray> m_crdBodies; // JSON, converted once
    std::unique_ptr<Cluster> m_withRealCrds;
};

void tst_Crds::initTestCase()
{
    for (const QString &name : QDir(crdDir).entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name))
        m_crdFiles << crdDir + u'/' + name;
    QCOMPARE(m_crdFiles.size(), 12);
    for (const QString &file : std::as_const(m_crdFiles))
        m_crdBodies << dump(yamlFile(file));
}

void tst_Crds::init()
{
    setUp();
}

void tst_Crds::cleanup()
{
    tearDown();
}

void tst_Crds::customAppCrdIsInstalledAndEstablished()
{
    const ApiResponse response
        = call("GET", crdsPath + u"/customapps.infrastructure.internal.net"_s);
    QCOMPARE(response.status, 200);
    const json crd = parse(response.body);
    QStringList established;
    for (const json &condition : crd["status"]["conditions"])
        established << str(condition["type"]) + u'=' + str(condition["status"]) + u'/'
                + str(condition["reason"]);
    QCOMPARE(established,
             (QStringList{ u"NamesAccepted=True/NoConflicts"_s,
                           u"Established=True/InitialNamesAccepted"_s }));
    QCOMPARE(str(crd["status"]["acceptedNames"]["kind"]), u"CustomApp"_s);
    QCOMPARE(str(crd["status"]["storedVersions"][0]), u"v1"_s);
    // Short names crd/crds are discoverable; the CRD kind is cluster-scoped.
    QCOMPARE(
        call("GET", u"/apis/apiextensions.k8s.io/v1/namespaces/default/customresourcedefinitions"_s)
            .status,
        404);
}

void tst_Crds::realCrdsInstallAndEstablish()
{
    installRealCrds();
    const json list = parse(call("GET", crdsPath).body);
    QCOMPARE(list["items"].size(), size_t(13));
    for (const json &crd : list["items"]) {
        bool isEstablished = false;
        for (const json &condition : crd["status"]["conditions"])
            isEstablished = isEstablished
                || (condition["type"] == "Established" && condition["status"] == "True");
        QVERIFY2(isEstablished, qPrintable(str(crd["metadata"]["name"])));
        QCOMPARE(str(crd["spec"]["conversion"]["strategy"]), u"None"_s);
        for (const json &version : crd["spec"]["versions"]) {
            if (!version.value("served", false))
                continue;
            const QString group = str(crd["spec"]["group"]);
            const QString plural = str(crd["spec"]["names"]["plural"]);
            const QString scope = str(crd["spec"]["scope"]);
            const QString path = u"/apis/"_s + group + u'/' + str(version["name"])
                + (scope == u"Namespaced" ? u"/namespaces/default/"_s : u"/"_s) + plural;
            const ApiResponse response = call("GET", path);
            QVERIFY2(response.status == 200, qPrintable(path));
        }
    }
}

void tst_Crds::realObjects_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &name : QDir(objectDir).entryList({ u"*.yaml"_s }, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(name)) << objectDir + u'/' + name;
}

void tst_Crds::realObjects()
{
    QFETCH(QString, file);
    if (!m_withRealCrds) {
        m_withRealCrds = std::make_unique<Cluster>();
        ApiServer server(m_withRealCrds.get());
        for (const QByteArray &body : std::as_const(m_crdBodies))
            QCOMPARE(server.handle(request("POST", crdsPath, body)).status, 201);
    }
    // The rows share one cluster with the real CRDs installed (they are slow to compile).
    std::swap(m_cluster, m_withRealCrds);
    m_server = std::make_unique<ApiServer>(m_cluster.get());
    auto restore = qScopeGuard([this] {
        std::swap(m_cluster, m_withRealCrds);
        m_server = std::make_unique<ApiServer>(m_cluster.get());
    });
    json object = yamlFile(file);
    QVERIFY(object.is_object());
    const QString apiVersion = str(object["apiVersion"]);
    const QString kind = str(object["kind"]);
    const QString group = apiVersion.section(u'/', 0, 0);
    const QString version = apiVersion.section(u'/', 1, 1);
    std::optional<ResourceType> type;
    for (const ResourceType &candidate : m_cluster->servedTypes()) {
        if (candidate.group == group && candidate.version == version && candidate.kind == kind)
            type = candidate;
    }
    const QString ns = str(object["metadata"]["namespace"]).isEmpty()
        ? u"default"_s
        : str(object["metadata"]["namespace"]);
    if (!type) {
        // Not served by the installed CRDs (retired versions, kinds without a CRD here).
        const ApiResponse response
            = call("POST",
                   u"/apis/"_s + apiVersion + u"/namespaces/"_s + ns + u'/' + kind.toLower() + u's',
                   dump(object));
        QCOMPARE(response.status, 404);
        QCOMPARE(response.body, QByteArray("404 page not found\n"));
        return;
    }
    const QString collection = u"/apis/"_s + apiVersion
        + (type->namespaced ? u"/namespaces/"_s + ns : QString()) + u'/' + type->plural;
    if (type->namespaced)
        ensureNamespace(ns);
    const json status = object.value("status", json());
    object["metadata"].erase("resourceVersion");
    ApiResponse response = call("POST", collection, dump(object));
    QVERIFY2(response.status == 201, response.body.constData());
    json created = parse(response.body);
    const QString name = str(created["metadata"]["name"]);
    QCOMPARE(str(created["metadata"]["name"]), str(object["metadata"]["name"]));
    if (status.is_object() && type->statusSubresource) {
        created["status"] = status;
        response = call("PUT", collection + u'/' + name + u"/status"_s, dump(created));
        QVERIFY2(response.status == 200, response.body.constData());
        const json updated = parse(response.body);
        QVERIFY(updated.contains("status"));
        if (status.contains("conditions"))
            QCOMPARE(updated["status"]["conditions"].size(), status["conditions"].size());
        QCOMPARE(dump(updated["metadata"]["generation"]), dump(created["metadata"]["generation"]));
    }
    QCOMPARE(call("GET", collection + u'/' + name).status, 200);
    QCOMPARE(call("DELETE", collection + u'/' + name).status, 200);
    // Objects that came with finalizers are released so that the next rows start clean.
    if (call("GET", collection + u'/' + name).status == 200) {
        QCOMPARE(call("PATCH",
                      collection + u'/' + name,
                      R"({"metadata":{"finalizers":null}})",
                      "application/merge-patch+json")
                     .status,
                 200);
        QCOMPARE(call("GET", collection + u'/' + name).status, 404);
    }
}

void tst_Crds::fluxStatusDefaultReadsBack()
{
    installRealCrd(u"kustomize.toolkit.fluxcd.io_kustomizations.yaml"_s);
    const json object = yamlFile(objectDir + u"/kustomization-nostatus-status-defaults.yaml"_s);
    const QString collection
        = u"/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/default/kustomizations"_s;
    ApiResponse response = call("POST", collection, dump(object));
    QVERIFY2(response.status == 201, response.body.constData());
    const json got = parse(call("GET", collection + u"/status-defaults"_s).body);
    QCOMPARE(dump(got["status"]), QByteArray(R"({"observedGeneration":-1})"));
}

void tst_Crds::otherServedVersionRewritesApiVersion()
{
    installRealCrd(u"cluster.x-k8s.io_clusters.yaml"_s);
    const json crd = parse(call("GET", crdsPath + u"/clusters.cluster.x-k8s.io"_s).body);
    QStringList served;
    QString storage;
    for (const json &version : crd["spec"]["versions"]) {
        if (version.value("served", false))
            served << str(version["name"]);
        if (version.value("storage", false))
            storage = str(version["name"]);
    }
    served.removeAll(storage);
    QVERIFY(!served.isEmpty());
    const QString other = served.first();
    const json cluster = { { "apiVersion", (u"cluster.x-k8s.io/"_s + storage).toStdString() },
                           { "kind", "Cluster" },
                           { "metadata", { { "name", "c1" } } },
                           { "spec", { { "paused", false } } } };
    ApiResponse response
        = call("POST",
               u"/apis/cluster.x-k8s.io/"_s + storage + u"/namespaces/default/clusters"_s,
               dump(cluster));
    QVERIFY2(response.status == 201, response.body.constData());
    response
        = call("GET", u"/apis/cluster.x-k8s.io/"_s + other + u"/namespaces/default/clusters/c1"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(str(parse(response.body)["apiVersion"]), u"cluster.x-k8s.io/"_s + other);
    response
        = call("GET", u"/apis/cluster.x-k8s.io/"_s + other + u"/namespaces/default/clusters"_s);
    QCOMPARE(str(parse(response.body)["items"][0]["apiVersion"]), u"cluster.x-k8s.io/"_s + other);
}

// Cluster API's MachinePool v1beta1 names its infrastructureRef's apiVersion, the storage version
// v1beta2 does not: converted for storage (strategy None), the object is pruned by v1beta2's
// schema, so the field is gone from the answer and from every read, dry runs included.
void tst_Crds::writesInAnotherVersionKeepWhatStorageDeclares()
{
    installRealCrd(u"cluster.x-k8s.io_machinepools.yaml"_s);
    const QString pools = u"/apis/cluster.x-k8s.io/v1beta1/namespaces/default/machinepools"_s;
    json pool = parse(
        R"({"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"pool"},
        "spec":{"clusterName":"c","replicas":2,"template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":""},
        "infrastructureRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta2","kind":"AWSManagedMachinePool","name":"pool"}}}}})");
    const auto infrastructureRef = [](const json &object) {
        return object["spec"]["template"]["spec"]["infrastructureRef"];
    };
    const json expectedRef = { { "kind", "AWSManagedMachinePool" }, { "name", "pool" } };
    ApiResponse response = call("POST", pools + u"?dryRun=All"_s, dump(pool));
    QVERIFY2(response.status == 201, response.body.constData());
    JSON_COMPARE(infrastructureRef(parse(response.body)), expectedRef);
    response = call("POST", pools, dump(pool));
    QVERIFY2(response.status == 201, response.body.constData());
    json created = parse(response.body);
    QCOMPARE(str(created["apiVersion"]), u"cluster.x-k8s.io/v1beta1"_s);
    JSON_COMPARE(infrastructureRef(created), expectedRef);
    JSON_COMPARE(infrastructureRef(parse(call("GET", pools + u"/pool"_s).body)), expectedRef);
    // An update that sets it again stores it without.
    created["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"] = "x/v1";
    response = call("PUT", pools + u"/pool"_s, dump(created));
    QVERIFY2(response.status == 200, response.body.constData());
    JSON_COMPARE(infrastructureRef(parse(response.body)), expectedRef);
    JSON_COMPARE(infrastructureRef(parse(call("GET", pools + u"/pool"_s).body)), expectedRef);
}

void tst_Crds::invalidCrdIs422()
{
    const QByteArray noDot
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.nodot"},
      "spec":{"group":"nodot","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})";
    const ApiResponse response = call("POST", crdsPath, noDot);
    QCOMPARE(response.status, 422);
    const json status = parse(response.body);
    QVERIFY2(
        str(status["message"])
            .startsWith(
                u"CustomResourceDefinition.apiextensions.k8s.io \"things.nodot\" is invalid: "_s),
        response.body.constData());
    QCOMPARE(call("GET", u"/apis/nodot/v1/namespaces/default/things"_s).status, 404);

    // Without a storage version the create strategy leaves status.storedVersions nil, which is
    // refused too; spec.versions is printed as the internal versions encode.
    const QByteArray noStorage
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"nostores.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"nostores","kind":"NoStore"},
      "versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}})";
    const ApiResponse refused = call("POST", crdsPath, noStorage);
    QCOMPARE(refused.status, 422);
    const json causes = parse(refused.body)["details"]["causes"];
    QCOMPARE(causes.size(), std::size_t(2));
    QCOMPARE(str(causes[0]["field"]), u"spec.versions"_s);
    QCOMPARE(
        str(causes[0]["message"]),
        uR"(Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version)"_s);
    QCOMPARE(str(causes[1]["field"]), u"status.storedVersions"_s);
    QCOMPARE(str(causes[1]["message"]),
             u"Invalid value: null: must have at least one stored version"_s);
}

void tst_Crds::crdUpdateChangesWhatIsServed()
{
    const QByteArray crdBody
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
      "spec":{"group":"example.com","scope":"Cluster","names":{"plural":"widgets","kind":"Widget","shortNames":["wd"]},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
    QCOMPARE(call("POST", crdsPath, crdBody).status, 201);
    QCOMPARE(call("GET", u"/apis/example.com/v1/widgets"_s).status, 200);
    QCOMPARE(call("GET", u"/apis/example.com/v2/widgets"_s).status, 404);
    QCOMPARE(
        call("POST",
             u"/apis/example.com/v1/widgets"_s,
             R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"size":3})")
            .status,
        201);
    json crd = parse(call("GET", crdsPath + u"/widgets.example.com"_s).body);
    crd["spec"]["versions"][0]["storage"] = false;
    crd["spec"]["versions"].push_back(
        { { "name", "v2" },
          { "served", true },
          { "storage", true },
          { "schema",
            { { "openAPIV3Schema",
                { { "type", "object" }, { "x-kubernetes-preserve-unknown-fields", true } } } } } });
    const ApiResponse response = call("PUT", crdsPath + u"/widgets.example.com"_s, dump(crd));
    QVERIFY2(response.status == 200, response.body.constData());
    QCOMPARE(call("GET", u"/apis/example.com/v2/widgets"_s).status, 200);
    QCOMPARE(parse(response.body)["metadata"]["generation"].get<int>(), 2);
    // The object written in v1 reads back in either served version.
    QCOMPARE(str(parse(call("GET", u"/apis/example.com/v2/widgets/w1"_s).body)["apiVersion"]),
             u"example.com/v2"_s);
    QCOMPARE(str(parse(call("GET", u"/apis/example.com/v1/widgets/w1"_s).body)["apiVersion"]),
             u"example.com/v1"_s);
    QCOMPARE(
        str(parse(call("GET", u"/apis/example.com/v2/widgets"_s).body)["items"][0]["apiVersion"]),
        u"example.com/v2"_s);
    const json stored = parse(call("GET", crdsPath + u"/widgets.example.com"_s).body);
    QCOMPARE(dump(stored["status"]["storedVersions"]), QByteArray(R"(["v1","v2"])"));
}

void tst_Crds::deletingCrdDeletesItsResources()
{
    const QByteArray crdBody
        = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
    QCOMPARE(call("POST", crdsPath, crdBody).status, 201);
    const QString gadgets = u"/apis/example.com/v1/namespaces/default/gadgets"_s;
    for (const char *name : { "g1", "g2" })
        QCOMPARE(call("POST",
                      gadgets,
                      dump(json{ { "apiVersion", "example.com/v1" },
                                 { "kind", "Gadget" },
                                 { "metadata", { { "name", name } } } }))
                     .status,
                 201);
    auto sink = startWatch(call("GET",
                                gadgets + u"?watch=true&resourceVersion="_s
                                    + QString::number(m_cluster->currentResourceVersion())));
    const ApiResponse response = call("DELETE", crdsPath + u"/gadgets.example.com"_s);
    QCOMPARE(response.status, 200);
    QCOMPARE(sink->types(), (QStringList{ u"DELETED"_s, u"DELETED"_s }));
    QVERIFY(sink->finished); // the resource is gone, so is its watch
    QCOMPARE(call("GET", crdsPath + u"/gadgets.example.com"_s).status, 404);
    QCOMPARE(call("GET", gadgets).body, QByteArray("404 page not found\n"));
    const json groups = parse(call("GET", u"/apis"_s).body);
    QVERIFY(!QByteArray::fromStdString(groups.dump()).contains("example.com"));
}

void tst_Crds::discovery()
{
    ApiRequest aggregated = request("GET", u"/apis"_s);
    aggregated.headers.append(qMakePair(
        QByteArray("accept"),
        QByteArray(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/"
            "json")));
    ApiResponse response = m_server->handle(aggregated);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.contentType,
             QByteArray("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
    json list = parse(response.body);
    QCOMPARE(str(list["kind"]), u"APIGroupDiscoveryList"_s);
    bool found = false;
    for (const json &group : list["items"]) {
        if (group["metadata"]["name"] != "infrastructure.internal.net")
            continue;
        for (const json &resource : group["versions"][0]["resources"]) {
            if (resource["resource"] == "customapps") {
                found = true;
                QCOMPARE(str(resource["responseKind"]["kind"]), u"CustomApp"_s);
                QCOMPARE(str(resource["scope"]), u"Namespaced"_s);
            }
        }
    }
    QVERIFY(found);
    aggregated.path = u"/api"_s;
    response = m_server->handle(aggregated);
    QCOMPARE(response.contentType,
             QByteArray("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
    QVERIFY(response.body.contains("\"namespaces\""));
    // Legacy formats without the Accept parameters.
    response = call("GET", u"/apis"_s);
    QCOMPARE(response.contentType, QByteArray("application/json"));
    QCOMPARE(str(parse(response.body)["kind"]), u"APIGroupList"_s);
    QCOMPARE(str(parse(call("GET", u"/api"_s).body)["kind"]), u"APIVersions"_s);
    response = call("GET", u"/apis/infrastructure.internal.net/v1"_s);
    QCOMPARE(response.status, 200);
    list = parse(response.body);
    QCOMPARE(str(list["kind"]), u"APIResourceList"_s);
    QStringList names;
    for (const json &resource : list["resources"])
        names << str(resource["name"]);
    QVERIFY(names.contains(u"customapps"_s));
    QVERIFY(names.contains(u"customapps/status"_s));
    QCOMPARE(str(parse(call("GET", u"/apis/infrastructure.internal.net"_s).body)["kind"]),
             u"APIGroup"_s);
    QCOMPARE(call("GET", u"/apis/nope.example.com"_s).status, 404);
    QCOMPARE(call("GET", u"/apis/infrastructure.internal.net/v7"_s).status, 404);
    QVERIFY(call("GET", u"/api/v1"_s).body.contains("\"pods\""));
}

void tst_Crds::openApiVersionAndHealth()
{
    ApiResponse response = call("GET", u"/version"_s);
    QCOMPARE(response.status, 200);
    const json version = parse(response.body);
    QCOMPARE(str(version["major"]), u"1"_s);
    QCOMPARE(str(version["minor"]), u"32"_s);
    QVERIFY(str(version["gitVersion"]).startsWith(u"v1.32."_s));
    for (const QString &path : { u"/healthz"_s, u"/readyz"_s, u"/livez"_s }) {
        response = call("GET", path);
        QCOMPARE(response.status, 200);
        QCOMPARE(response.body, QByteArray("ok"));
    }
    response = call("GET", u"/openapi/v3"_s);
    QCOMPARE(response.status, 200);
    QVERIFY(parse(response.body)["paths"].contains("apis/infrastructure.internal.net/v1"));
    response = call("GET", u"/openapi/v3/apis/infrastructure.internal.net/v1"_s);
    QCOMPARE(response.status, 200);
    QVERIFY(response.body.contains("CustomApp"));
    QCOMPARE(call("GET", u"/openapi/v2"_s).status, 200);
    QCOMPARE(call("GET", u"/openapi/v3/apis/nope.example.com/v1"_s).status, 404);
}

QTEST_GUILESS_MAIN(tst_Crds)
#include "tst_crds.moc"
