#include "models/lifecycle.h"
#include "models/yamljson.h"
#include "modelstestutils.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QSet>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using reconscope::tests::readFile;
using reconscope::tests::readJsonFile;

namespace {

const QString LifecycleDir = QStringLiteral(RECONSCOPE_TEST_DATA "/lifecycle");
const QString RealObjectsTable = QStringLiteral(RECONSCOPE_TEST_DATA "/real-objects.json");
const QString FixturesDir = QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds");
const QString CustomAppCrd = QStringLiteral(
    RECONSCOPE_SOURCE_DIR "/resources/crds/customapps.infrastructure.internal.net.yaml");

QString str(const nlohmann::json &json, const char *key)
{
    const auto it = json.find(key);
    return it != json.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                               : QString();
}

nlohmann::json loadYaml(const QString &path)
{
    auto json = yamlToJson(readFile(path));
    if (!json)
        qFatal("%s: %s", qPrintable(path), qPrintable(json.error().message));
    return *json;
}

} // namespace

class tst_Lifecycle : public QObject
{
    Q_OBJECT

private slots:
    void cases_data();
    void cases();
    void realObjects_data();
    void realObjects();
    void realObjectsTableCoversFixtures();
    void mappingForRealCrds_data();
    void mappingForRealCrds();
    void mappingForCustomApp();
    void mappingWithoutSchemaKeepsLifecycle();
    void mappingJsonRoundTrip();
};

void tst_Lifecycle::cases_data()
{
    QTest::addColumn<QByteArray>("object");
    QTest::addColumn<QByteArray>("mapping");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("kstatus");
    QTest::addColumn<QString>("reason");

    const QStringList files
        = QDir(LifecycleDir).entryList({ u"*.json"_s }, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 40,
             qPrintable(u"only %1 cases in %2"_s.arg(files.size()).arg(LifecycleDir)));
    QSet<QString> names;
    for (const QString &file : files) {
        const nlohmann::json json = readJsonFile(LifecycleDir + u'/' + file);
        QVERIFY2(json.is_object(), qPrintable(file));
        const QString name = str(json, "name");
        QVERIFY2(!name.isEmpty() && !names.contains(name), qPrintable(file));
        names.insert(name);
        const nlohmann::json &expect = json.at("expect");
        const QByteArray mapping = json.contains("mapping")
            ? QByteArray::fromStdString(json["mapping"].dump())
            : QByteArray();
        QTest::newRow(qPrintable(name))
            << QByteArray::fromStdString(json.at("object").dump()) << mapping
            << str(expect, "state") << str(expect, "kstatus") << str(expect, "reason");
    }
}

void tst_Lifecycle::cases()
{
    QFETCH(QByteArray, object);
    QFETCH(QByteArray, mapping);
    QFETCH(QString, state);
    QFETCH(QString, kstatus);
    QFETCH(QString, reason);

    LifecycleMapping lifecycleMapping;
    if (!mapping.isEmpty()) {
        auto parsed = LifecycleMapping::fromJson(nlohmann::json::parse(mapping.toStdString()));
        QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().message));
        lifecycleMapping = *parsed;
    }
    const auto expectedState = lifecycleStateFromString(state);
    const auto expectedKStatus = kstatusFromString(kstatus);
    QVERIFY2(expectedState, qPrintable(state));
    QVERIFY2(expectedKStatus, qPrintable(kstatus));

    // The same verdict from the JSON tree and from the bytes (the client's reader).
    auto fromTree
        = ObjectSummary::fromJson(nlohmann::json::parse(object.toStdString()), lifecycleMapping);
    QVERIFY2(fromTree.ok(), qPrintable(fromTree.ok() ? QString() : fromTree.error().message));
    auto fromBytes = reconscope::tests::summaryFromBytes(object, lifecycleMapping);
    QVERIFY2(fromBytes.ok(), qPrintable(fromBytes.ok() ? QString() : fromBytes.error().message));

    const LifecycleVerdict verdict = deriveLifecycle(*fromTree, lifecycleMapping);
    QCOMPARE(verdict.state, *expectedState);
    QCOMPARE(verdict.kstatus, *expectedKStatus);
    QVERIFY2(verdict.reason.contains(reason),
             qPrintable(u"reason \"%1\" lacks \"%2\""_s.arg(verdict.reason, reason)));
    QVERIFY(verdict.ruleIndex >= 0 && verdict.ruleIndex <= 7);
    QCOMPARE(deriveLifecycle(*fromBytes, lifecycleMapping), verdict);
}

void tst_Lifecycle::realObjects_data()
{
    QTest::addColumn<QString>("objectFile");
    QTest::addColumn<QString>("crdFile");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("kstatus");
    QTest::addColumn<QString>("reason");

    const nlohmann::json table = readJsonFile(RealObjectsTable);
    QVERIFY(table.is_array());
    for (const nlohmann::json &row : table) {
        const nlohmann::json &expect = row.at("expect");
        QTest::newRow(qPrintable(str(row, "object")))
            << str(row, "object") << str(row, "crd") << str(expect, "state")
            << str(expect, "kstatus") << str(expect, "reason");
    }
}

void tst_Lifecycle::realObjects()
{
    QFETCH(QString, objectFile);
    QFETCH(QString, crdFile);
    QFETCH(QString, state);
    QFETCH(QString, kstatus);
    QFETCH(QString, reason);

    const LifecycleMapping mapping = crdFile.isEmpty()
        ? LifecycleMapping::defaults()
        : LifecycleMapping::forCrd(loadYaml(FixturesDir + u"/crds/"_s + crdFile));
    const nlohmann::json object = loadYaml(FixturesDir + u"/objects/"_s + objectFile);
    auto summary = ObjectSummary::fromJson(object, mapping);
    QVERIFY2(summary.ok(), qPrintable(summary.ok() ? QString() : summary.error().message));
    auto fromBytes
        = reconscope::tests::summaryFromBytes(QByteArray::fromStdString(object.dump()), mapping);
    QVERIFY(fromBytes.ok());

    const LifecycleVerdict verdict = deriveLifecycle(*summary, mapping);
    QCOMPARE(verdict.state, *lifecycleStateFromString(state));
    QCOMPARE(verdict.kstatus, *kstatusFromString(kstatus));
    QVERIFY2(verdict.reason.contains(reason),
             qPrintable(u"reason \"%1\" lacks \"%2\""_s.arg(verdict.reason, reason)));
    QCOMPARE(deriveLifecycle(*fromBytes, mapping), verdict);
}

void tst_Lifecycle::realObjectsTableCoversFixtures()
{
    QSet<QString> listed;
    for (const nlohmann::json &row : readJsonFile(RealObjectsTable))
        listed.insert(str(row, "object"));
    const QStringList files
        = QDir(FixturesDir + u"/objects"_s).entryList({ u"*.yaml"_s }, QDir::Files);
    QVERIFY(!files.isEmpty());
    for (const QString &file : files)
        QVERIFY2(listed.contains(file),
                 qPrintable(file + u" has no expectation in real-objects.json"_s));
    QCOMPARE(listed.size(), files.size());
}

void tst_Lifecycle::mappingForRealCrds_data()
{
    QTest::addColumn<QString>("crdFile");
    QTest::addColumn<bool>("hasStatus");
    QTest::addColumn<QStringList>("readyConditions");
    QTest::addColumn<QString>("healthPath");
    QTest::addColumn<QStringList>("reconcilingConditions");

    const QStringList ready{ u"Ready"_s };
    const QStringList reconciling{ u"Reconciling"_s };
    QTest::newRow("composition") << u"apiextensions.crossplane.io_compositions.yaml"_s << false
                                 << QStringList{ u"Ready"_s, u"Healthy"_s } << QString()
                                 << reconciling;
    QTest::newRow("application") << u"argoproj.io_applications.yaml"_s << true << ready
                                 << u"status.health.status"_s << reconciling;
    QTest::newRow("certificate") << u"cert-manager.io_certificates.yaml"_s << true << ready
                                 << QString() << QStringList{ u"Reconciling"_s, u"Issuing"_s };
    QTest::newRow("capi-cluster") << u"cluster.x-k8s.io_clusters.yaml"_s << true
                                  << QStringList{ u"Ready"_s, u"Available"_s } << QString()
                                  << reconciling;
    QTest::newRow("capi-machine") << u"cluster.x-k8s.io_machines.yaml"_s << true
                                  << QStringList{ u"Ready"_s, u"Available"_s } << QString()
                                  << reconciling;
    QTest::newRow("helmrelease") << u"helm.toolkit.fluxcd.io_helmreleases.yaml"_s << true << ready
                                 << QString() << reconciling;
    QTest::newRow("scaledobject") << u"keda.sh_scaledobjects.yaml"_s << true << ready << QString()
                                  << reconciling;
    QTest::newRow("kustomization") << u"kustomize.toolkit.fluxcd.io_kustomizations.yaml"_s << true
                                   << ready << QString() << reconciling;
    QTest::newRow("servicemonitor") << u"monitoring.coreos.com_servicemonitors.yaml"_s << true
                                    << ready << QString() << reconciling;
    QTest::newRow("provider") << u"pkg.crossplane.io_providers.yaml"_s << true
                              << QStringList{ u"Ready"_s, u"Healthy"_s } << QString()
                              << reconciling;
    QTest::newRow("helmrepository") << u"source.toolkit.fluxcd.io_helmrepositories.yaml"_s << true
                                    << ready << QString() << reconciling;
}

void tst_Lifecycle::mappingForRealCrds()
{
    QFETCH(QString, crdFile);
    QFETCH(bool, hasStatus);
    QFETCH(QStringList, readyConditions);
    QFETCH(QString, healthPath);
    QFETCH(QStringList, reconcilingConditions);

    const LifecycleMapping mapping
        = LifecycleMapping::forCrd(loadYaml(FixturesDir + u"/crds/"_s + crdFile));
    QCOMPARE(mapping.hasStatus, hasStatus);
    QCOMPARE(mapping.readyConditions, readyConditions);
    QCOMPARE(mapping.healthPath, healthPath);
    QCOMPARE(mapping.reconcilingConditions, reconcilingConditions);
    QCOMPARE(mapping.degradedConditions, (QStringList{ u"Degraded"_s, u"Stalled"_s }));
    QVERIFY(!mapping.origin.isEmpty());
}

void tst_Lifecycle::mappingForCustomApp()
{
    const LifecycleMapping fromCrd = LifecycleMapping::forCrd(loadYaml(CustomAppCrd));
    const LifecycleMapping customApp = LifecycleMapping::forCustomApp();
    QVERIFY(fromCrd.hasStatus);
    QCOMPARE(fromCrd.readyConditions, customApp.readyConditions);
    QCOMPARE(fromCrd.degradedConditions, customApp.degradedConditions);
    QCOMPARE(fromCrd.reconcilingConditions, customApp.reconcilingConditions);
    QVERIFY(fromCrd.healthPath.isEmpty());
}

void tst_Lifecycle::mappingWithoutSchemaKeepsLifecycle()
{
    // Nothing declared either way: the objects keep a lifecycle (Pending when without status).
    const auto noSchema = nlohmann::json::parse(
        R"({"spec":{"group":"example.com","names":{"kind":"Thing"},"versions":[{"name":"v1"}]}})");
    QVERIFY(LifecycleMapping::forCrd(noSchema).hasStatus);
    // A schema without status and no status subresource: no lifecycle.
    const auto noStatus = nlohmann::json::parse(
        R"({"spec":{"group":"example.com","names":{"kind":"Thing"},"versions":[{"name":"v1",
                "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object"}}}}}]}})");
    QVERIFY(!LifecycleMapping::forCrd(noStatus).hasStatus);
    // The status subresource alone is enough (v1beta1 CRDs keep it at spec level).
    const auto subresourceOnly = nlohmann::json::parse(
        R"({"spec":{"group":"example.com","names":{"kind":"Thing"},"subresources":{"status":{}},
                "validation":{"openAPIV3Schema":{"type":"object"}}}})");
    QVERIFY(LifecycleMapping::forCrd(subresourceOnly).hasStatus);
    // A printer column on an Available condition makes it the summary condition.
    const auto available = nlohmann::json::parse(
        R"({"spec":{"group":"example.com","names":{"kind":"Thing"},"versions":[{"name":"v1",
                "subresources":{"status":{}},
                "additionalPrinterColumns":[{"name":"Available","type":"string",
                  "jsonPath":".status.conditions[?(@.type==\"Available\")].status"}]}]}})");
    QCOMPARE(LifecycleMapping::forCrd(available).readyConditions,
             (QStringList{ u"Ready"_s, u"Available"_s }));
}

void tst_Lifecycle::mappingJsonRoundTrip()
{
    LifecycleMapping mapping = LifecycleMapping::forCrd(
        loadYaml(FixturesDir + u"/crds/argoproj.io_applications.yaml"_s));
    auto back = LifecycleMapping::fromJson(mapping.toJson());
    QVERIFY(back.ok());
    QCOMPARE(back->toJson().dump(), mapping.toJson().dump());
    QVERIFY(*back == mapping);

    auto bad = LifecycleMapping::fromJson(
        nlohmann::json::parse(R"({"healthStates":{"Healthy":"Fine"}})"));
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message.contains(u"healthStates.Healthy"_s),
             qPrintable(bad.error().message));
}

QTEST_APPLESS_MAIN(tst_Lifecycle)
#include "tst_lifecycle.moc"
