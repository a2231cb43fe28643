// The API boundary lint over the twelve real third-party CRDs (shared/fixtures/real-crds/crds) and
// the project's own CRDs (resources/crds): every finding is pinned as "severity id path" so that a
// change of any rule shows up here. Plus the rules one by one on small hand-written CRDs.
#include "controller/lint/crdlint.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace lint = reconscope::controller::lint;

namespace {

QStringList describe(const QList<lint::CrdLintResult> &results)
{
    QStringList lines;
    for (const auto &result : results) {
        for (const auto &finding : result.findings)
            lines << u"%1 %2 %3"_s.arg(
                lint::severityName(finding.severity), finding.id, finding.path);
    }
    return lines;
}

// A CRD with one served version v1, the given schema properties of spec and status, and extra
// members of the version (subresources, printer columns).
json crd(const json &specProperties, const json &status, const json &versionExtra = json::object())
{
    json properties = { { "spec", { { "type", "object" }, { "properties", specProperties } } } };
    if (!status.is_null())
        properties["status"] = status;
    json version
        = { { "name", "v1" },
            { "served", true },
            { "storage", true },
            { "schema",
              { { "openAPIV3Schema", { { "type", "object" }, { "properties", properties } } } } } };
    version.update(versionExtra);
    return { { "apiVersion", "apiextensions.k8s.io/v1" },
             { "kind", "CustomResourceDefinition" },
             { "metadata", { { "name", "widgets.example.com" } } },
             { "spec",
               { { "group", "example.com" },
                 { "scope", "Namespaced" },
                 { "names", { { "plural", "widgets" }, { "kind", "Widget" } } },
                 { "versions", json::array({ version }) } } } };
}

const json conditionsSchema
    = { { "type", "array" },
        { "x-kubernetes-list-type", "map" },
        { "x-kubernetes-list-map-keys", { "type" } },
        { "items",
          { { "type", "object" },
            { "properties",
              { { "type", { { "type", "string" } } },
                { "status", { { "type", "string" } } },
                { "reason", { { "type", "string" } } },
                { "message", { { "type", "string" } } },
                { "lastTransitionTime", { { "type", "string" } } } } } } } };

json goodStatus()
{
    return { { "type", "object" },
             { "properties",
               { { "observedGeneration", { { "type", "integer" } } },
                 { "conditions", conditionsSchema } } } };
}

const json statusSubresource = { { "subresources", { { "status", json::object() } } } };

QStringList ids(const json &crdObject)
{
    auto result = lint::lintCrd(crdObject);
    if (!result)
        return { u"failed: "_s + result.error().message };
    QStringList out;
    for (const auto &finding : result->findings)
        out << finding.id;
    return out;
}

} // namespace

class tst_CrdLint : public QObject
{
    Q_OBJECT

private slots:
    void pinnedFindings_data();
    void pinnedFindings();
    void rules_data();
    void rules();
    void observedNames_data();
    void observedNames();
    void messagesExplainThemselves();
    void multiDocumentAndJson();
    void inputErrorsNameTheFile();
};

void tst_CrdLint::pinnedFindings_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");

    const QString real = QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/crds/"_s;
    const QString own = QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/crds/"_s;
    const QString root = u".schema.openAPIV3Schema.properties"_s;
    auto at = [&](const QString &version, const QString &rest) {
        return u"spec.versions[%1]%2"_s.arg(version, rest);
    };
    QTest::newRow("apiextensions.crossplane.io_compositions.yaml")
        << real + u"apiextensions.crossplane.io_compositions.yaml"_s
        << QStringList{ u"info no-status "_s + at(u"v1"_s, root) };
    QTest::newRow("argoproj.io_applications.yaml")
        << real + u"argoproj.io_applications.yaml"_s
        << QStringList{
               u"error no-status-subresource "_s + at(u"v1alpha1"_s, u".subresources.status"_s),
               u"warning missing-observed-generation "_s
                   + at(u"v1alpha1"_s, root + u".status.properties.observedGeneration"_s),
               u"warning conditions-shape "_s
                   + at(u"v1alpha1"_s, root + u".status.properties.conditions.items"_s),
               u"warning conditions-list-type "_s
                   + at(u"v1alpha1"_s,
                        root + u".status.properties.conditions.x-kubernetes-list-type"_s)
           };
    QTest::newRow("cert-manager.io_certificates.yaml")
        << real + u"cert-manager.io_certificates.yaml"_s
        << QStringList{ u"info missing-observed-generation "_s
                        + at(u"v1"_s, root + u".status.properties.observedGeneration"_s) };
    QTest::newRow("cluster.x-k8s.io_clusters.yaml")
        << real + u"cluster.x-k8s.io_clusters.yaml"_s
        << QStringList{
               u"warning conditions-list-type "_s
                   + at(u"v1beta1"_s,
                        root + u".status.properties.conditions.x-kubernetes-list-type"_s),
               u"warning desired-field-in-status "_s
                   + at(u"v1beta2"_s,
                        root + u".status.properties.controlPlane.properties.desiredReplicas"_s),
               u"warning desired-field-in-status "_s
                   + at(u"v1beta2"_s,
                        root + u".status.properties.workers.properties.desiredReplicas"_s)
           };
    QTest::newRow("cluster.x-k8s.io_machinepools.yaml")
        << real + u"cluster.x-k8s.io_machinepools.yaml"_s
        << QStringList{ u"warning conditions-list-type "_s
                        + at(u"v1beta1"_s,
                             root + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("cluster.x-k8s.io_machines.yaml")
        << real + u"cluster.x-k8s.io_machines.yaml"_s
        << QStringList{ u"warning conditions-list-type "_s
                        + at(u"v1beta1"_s,
                             root + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("helm.toolkit.fluxcd.io_helmreleases.yaml")
        << real + u"helm.toolkit.fluxcd.io_helmreleases.yaml"_s
        << QStringList{ u"warning conditions-list-type "_s
                        + at(u"v2"_s,
                             root + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("keda.sh_scaledobjects.yaml")
        << real + u"keda.sh_scaledobjects.yaml"_s
        << QStringList{ u"warning missing-observed-generation "_s
                            + at(u"v1alpha1"_s, root + u".status.properties.observedGeneration"_s),
                        u"warning conditions-shape "_s
                            + at(u"v1alpha1"_s, root + u".status.properties.conditions.items"_s),
                        u"warning conditions-list-type "_s
                            + at(u"v1alpha1"_s,
                                 root
                                     + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("kustomize.toolkit.fluxcd.io_kustomizations.yaml")
        << real + u"kustomize.toolkit.fluxcd.io_kustomizations.yaml"_s
        << QStringList{ u"warning conditions-list-type "_s
                        + at(u"v1"_s,
                             root + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("monitoring.coreos.com_servicemonitors.yaml")
        << real + u"monitoring.coreos.com_servicemonitors.yaml"_s
        << QStringList{ u"warning missing-observed-generation "_s
                        + at(u"v1"_s, root + u".status.properties.observedGeneration"_s) };
    QTest::newRow("pkg.crossplane.io_providers.yaml")
        << real + u"pkg.crossplane.io_providers.yaml"_s
        << QStringList{ u"info missing-observed-generation "_s
                        + at(u"v1"_s, root + u".status.properties.observedGeneration"_s) };
    QTest::newRow("source.toolkit.fluxcd.io_helmrepositories.yaml")
        << real + u"source.toolkit.fluxcd.io_helmrepositories.yaml"_s
        << QStringList{ u"warning conditions-list-type "_s
                        + at(u"v1"_s,
                             root + u".status.properties.conditions.x-kubernetes-list-type"_s) };
    QTest::newRow("consumergroups.kafka.internal.net.yaml")
        << own + u"consumergroups.kafka.internal.net.yaml"_s << QStringList{};
    QTest::newRow("customapps.infrastructure.internal.net.yaml")
        << own + u"customapps.infrastructure.internal.net.yaml"_s << QStringList{};
    QTest::newRow("mixedconsumergroups.kafka.internal.net.yaml")
        << own + u"mixedconsumergroups.kafka.internal.net.yaml"_s
        << QStringList{ u"error observed-field-in-spec "_s
                            + at(u"v1"_s, root + u".spec.properties.currentReplicas"_s),
                        u"error observed-field-in-spec "_s
                            + at(u"v1"_s, root + u".spec.properties.lastSyncTime"_s),
                        u"error observed-field-in-spec "_s
                            + at(u"v1"_s, root + u".spec.properties.phase"_s),
                        u"error no-status-subresource "_s + at(u"v1"_s, u".subresources.status"_s),
                        u"warning printer-column-reads-spec "_s
                            + at(u"v1"_s, u".additionalPrinterColumns[Current].jsonPath"_s),
                        u"warning printer-column-reads-spec "_s
                            + at(u"v1"_s, u".additionalPrinterColumns[Phase].jsonPath"_s) };
}

void tst_CrdLint::pinnedFindings()
{
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    const auto results = lint::lintCrdFile(file);
    QVERIFY2(results.ok(), results.ok() ? "" : qPrintable(results.error().message));
    const QStringList actual = describe(results.value());
    if (actual != expected) {
        for (const QString &line : actual)
            qInfo().noquote() << "ACTUAL" << line;
    }
    QCOMPARE(actual, expected);
}

void tst_CrdLint::rules_data()
{
    QTest::addColumn<QByteArray>("crdJson");
    QTest::addColumn<QStringList>("expected");

    const json plainSpec = { { "replicas", { { "type", "integer" } } } };
    QTest::newRow("clean") << QByteArray::fromStdString(
        crd(plainSpec, goodStatus(), statusSubresource).dump())
                           << QStringList();
    QTest::newRow("no status subresource")
        << QByteArray::fromStdString(crd(plainSpec, goodStatus()).dump())
        << QStringList{ u"no-status-subresource"_s };
    QTest::newRow("configuration only") << QByteArray::fromStdString(crd(plainSpec, json()).dump())
                                        << QStringList{ u"no-status"_s };
    json observedSpec = plainSpec;
    observedSpec["readyReplicas"] = { { "type", "integer" } };
    observedSpec["readinessProbe"] = { { "type", "object" } };
    observedSpec["nested"] = { { "type", "object" },
                               { "properties", { { "lastSyncTime", { { "type", "string" } } } } } };
    QTest::newRow("observed in spec, no status")
        << QByteArray::fromStdString(crd(observedSpec, json()).dump())
        << QStringList{ u"observed-field-in-spec"_s,
                        u"observed-field-in-spec"_s,
                        u"no-status-subresource"_s };
    json desired = goodStatus();
    desired["properties"]["desiredReplicas"] = { { "type", "integer" } };
    desired["properties"]["replicas"] = { { "type", "integer" } };
    QTest::newRow("desired in status; status.replicas is fine")
        << QByteArray::fromStdString(crd(plainSpec, desired, statusSubresource).dump())
        << QStringList{ u"desired-field-in-status"_s };
    json noGeneration = goodStatus();
    noGeneration["properties"].erase("observedGeneration");
    QTest::newRow("no observedGeneration")
        << QByteArray::fromStdString(crd(plainSpec, noGeneration, statusSubresource).dump())
        << QStringList{ u"missing-observed-generation"_s };
    json badConditions = goodStatus();
    badConditions["properties"]["conditions"]["items"]["properties"].erase("reason");
    badConditions["properties"]["conditions"].erase("x-kubernetes-list-type");
    QTest::newRow("conditions not metav1.Condition")
        << QByteArray::fromStdString(crd(plainSpec, badConditions, statusSubresource).dump())
        << QStringList{ u"conditions-shape"_s, u"conditions-list-type"_s };
    json phase = goodStatus();
    phase["properties"].erase("conditions");
    phase["properties"]["phase"] = { { "type", "string" } };
    QTest::newRow("phase instead of conditions")
        << QByteArray::fromStdString(crd(plainSpec, phase, statusSubresource).dump())
        << QStringList{ u"phase-without-conditions"_s };
    json closedTypes = goodStatus();
    closedTypes["properties"]["conditions"]["items"]["properties"]["type"]["enum"]
        = { "Synced", "Degraded" };
    QTest::newRow("closed condition types without a summary")
        << QByteArray::fromStdString(crd(plainSpec, closedTypes, statusSubresource).dump())
        << QStringList{ u"no-summary-condition"_s };
    json readyTypes = closedTypes;
    readyTypes["properties"]["conditions"]["items"]["properties"]["type"]["enum"]
        = { "Ready", "Degraded" };
    QTest::newRow("closed condition types with Ready")
        << QByteArray::fromStdString(crd(plainSpec, readyTypes, statusSubresource).dump())
        << QStringList();
    json columns = statusSubresource;
    columns["additionalPrinterColumns"] = {
        { { "name", "Desired" }, { "type", "integer" }, { "jsonPath", ".spec.replicas" } },
        { { "name", "Status" }, { "type", "string" }, { "jsonPath", ".spec.mode" } },
        { { "name", "Ready" },
          { "type", "string" },
          { "jsonPath", ".status.conditions[?(@.type==\"Ready\")].status" } },
    };
    QTest::newRow("printer column reading spec for state")
        << QByteArray::fromStdString(crd(plainSpec, goodStatus(), columns).dump())
        << QStringList{ u"printer-column-reads-spec"_s };
    json scale = statusSubresource;
    scale["subresources"]["scale"]
        = { { "specReplicasPath", ".spec.replicas" }, { "statusReplicasPath", ".spec.replicas" } };
    QTest::newRow("scale status path in spec")
        << QByteArray::fromStdString(crd(plainSpec, goodStatus(), scale).dump())
        << QStringList{ u"scale-status-path-in-spec"_s };
    json opaque = { { "type", "object" }, { "x-kubernetes-preserve-unknown-fields", true } };
    QTest::newRow("opaque status")
        << QByteArray::fromStdString(crd(plainSpec, opaque, statusSubresource).dump())
        << QStringList{ u"opaque-status"_s };
    json unserved = crd(observedSpec, json());
    unserved["spec"]["versions"][0]["served"] = false;
    QTest::newRow("unserved versions are not linted")
        << QByteArray::fromStdString(unserved.dump()) << QStringList();
}

void tst_CrdLint::rules()
{
    QFETCH(QByteArray, crdJson);
    QFETCH(QStringList, expected);
    QCOMPARE(ids(json::parse(crdJson.toStdString())), expected);
}

void tst_CrdLint::observedNames_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<bool>("observed");
    QTest::addColumn<bool>("desired");
    QTest::newRow("observedGeneration") << u"observedGeneration"_s << true << false;
    QTest::newRow("currentReplicas") << u"currentReplicas"_s << true << false;
    QTest::newRow("ready") << u"ready"_s << true << false;
    QTest::newRow("readinessProbe") << u"readinessProbe"_s << false << false;
    QTest::newRow("availableReplicas") << u"availableReplicas"_s << true << false;
    QTest::newRow("availabilityZone") << u"availabilityZone"_s << false << false;
    QTest::newRow("healthyNodes") << u"healthyNodes"_s << true << false;
    QTest::newRow("healthCheck") << u"healthCheck"_s << false << false;
    QTest::newRow("lastSyncTime") << u"lastSyncTime"_s << true << false;
    QTest::newRow("lastAppliedRevision") << u"lastAppliedRevision"_s << false << false;
    QTest::newRow("phase") << u"phase"_s << true << false;
    QTest::newRow("conditions") << u"conditions"_s << true << false;
    QTest::newRow("replicas") << u"replicas"_s << false << false;
    QTest::newRow("desiredReplicas") << u"desiredReplicas"_s << false << true;
    QTest::newRow("targetRevision") << u"targetRevision"_s << false << true;
    QTest::newRow("targets") << u"targets"_s << false << false;
}

void tst_CrdLint::observedNames()
{
    QFETCH(QString, field);
    QFETCH(bool, observed);
    QFETCH(bool, desired);
    QCOMPARE(lint::looksObserved(field), observed);
    QCOMPARE(lint::looksDesired(field), desired);
}

void tst_CrdLint::messagesExplainThemselves()
{
    const auto results
        = lint::lintCrdFile(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                            + u"/resources/crds/mixedconsumergroups.kafka.internal.net.yaml"_s);
    QVERIFY(results.ok());
    QCOMPARE(results->size(), 1);
    const auto &result = results->first();
    QCOMPARE(result.crdName, u"mixedconsumergroups.kafka.internal.net"_s);
    QCOMPARE(result.servedVersions, QStringList{ u"v1"_s });
    QVERIFY(result.hasErrors());
    for (const auto &finding : result.findings) {
        QCOMPARE(finding.version, u"v1"_s);
        QVERIFY2(finding.message.size() > 80, qPrintable(finding.message));
    }
    const auto observed
        = std::find_if(result.findings.begin(), result.findings.end(), [](const lint::Finding &f) {
              return f.path.endsWith(u"currentReplicas");
          });
    QVERIFY(observed != result.findings.end());
    QCOMPARE(
        observed->path,
        u"spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.currentReplicas"_s);
    QVERIFY(observed->message.contains(u"GitOps"));
    QVERIFY(observed->message.contains(u"409"));
}

void tst_CrdLint::multiDocumentAndJson()
{
    const json good
        = crd({ { "replicas", { { "type", "integer" } } } }, goodStatus(), statusSubresource);
    json bad = crd({ { "currentReplicas", { { "type", "integer" } } } }, json());
    bad["metadata"]["name"] = "gadgets.example.com";
    const QByteArray yaml = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n"
        + QByteArray::fromStdString(good.dump()) + "\n---\n" + QByteArray::fromStdString(bad.dump())
        + "\n";
    const auto crds = lint::crdsFromManifest(yaml, u"two.yaml"_s);
    QVERIFY2(crds.ok(), crds.ok() ? "" : qPrintable(crds.error().message));
    QCOMPARE(crds->size(), 2);
    const json list
        = { { "apiVersion", "v1" }, { "kind", "List" }, { "items", json::array({ good, bad }) } };
    const auto fromJson
        = lint::crdsFromManifest(QByteArray::fromStdString(list.dump(2)), u"list.json"_s);
    QVERIFY(fromJson.ok());
    QCOMPARE(fromJson->size(), 2);
    QVERIFY(lint::lintCrd(fromJson->at(0))->clean());
    QVERIFY(lint::lintCrd(fromJson->at(1))->hasErrors());
}

void tst_CrdLint::inputErrorsNameTheFile()
{
    const auto missing = lint::lintCrdFile(u"/nonexistent/crd.yaml"_s);
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().message.contains(u"/nonexistent/crd.yaml"));
    const auto notCrd = lint::crdsFromManifest("apiVersion: v1\nkind: Pod\n", u"pod.yaml"_s);
    QVERIFY(!notCrd.ok());
    QVERIFY(notCrd.error().message.startsWith(u"pod.yaml: no CustomResourceDefinition"));
    const auto broken = lint::crdsFromManifest("{\"kind\": ", u"broken.json"_s);
    QVERIFY(!broken.ok());
    QVERIFY(broken.error().message.contains(u"broken.json"));
    const auto badYaml = lint::crdsFromManifest("a: [1, 2\nb: {", u"bad.yaml"_s);
    QVERIFY(!badYaml.ok());
    QVERIFY(badYaml.error().message.contains(u"bad.yaml"));
    json v1beta1 = crd(json::object(), json());
    v1beta1["apiVersion"] = "apiextensions.k8s.io/v1beta1";
    QVERIFY(!lint::lintCrd(v1beta1).ok());
}

QTEST_GUILESS_MAIN(tst_CrdLint)
#include "tst_crdlint.moc"
