// The pure parts behind the console's scenario player, dialog, YAML editor and detail-pane
// additions: scenario parsing, the timeline model, planned-change rows, owned objects, the
// CustomApp form's checks and JSON -> YAML; every model under QAbstractItemModelTester.
#include "models/customappform.h"
#include "models/objectyaml.h"
#include "models/ownedobjectsmodel.h"
#include "models/plannedchangesmodel.h"
#include "models/scenario.h"
#include "models/scenariotimelinemodel.h"
#include "models/yamljson.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace reconscope::models;
using nlohmann::json;

namespace {

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

json object(const char *kind, const char *name, const char *uid, const char *ownerUid)
{
    json meta = { { "name", name }, { "namespace", "demo" }, { "uid", uid } };
    if (ownerUid)
        meta["ownerReferences"] = json::array({ { { "uid", ownerUid },
                                                  { "kind", "X" },
                                                  { "name", "owner" },
                                                  { "controller", true } } });
    return { { "kind", kind }, { "metadata", meta } };
}

} // namespace

class tst_ConsoleModels final : public QObject
{
    Q_OBJECT

private slots:
    void defaultScenarioCoversTheLifecycle();
    void scenarioErrors_data();
    void scenarioErrors();
    void waitForSteps();
    void timelineModel();
    void plannedChanges();
    void ownedObjects();
    void customAppForm_data();
    void customAppForm();
    void yamlRoundTrip_data();
    void yamlRoundTrip();
};

void tst_ConsoleModels::defaultScenarioCoversTheLifecycle()
{
    const auto scenario = parseScenario(
        readFile(QStringLiteral(RECONSCOPE_SOURCE_DIR "/resources/scenarios/customapp-tour.json")));
    QVERIFY2(scenario.ok(), qPrintable(scenario.ok() ? QString() : scenario.error().message));
    QVERIFY(scenario->loop);
    QVERIFY(scenario->durationMs() > 30000);
    QStringList expectations;
    int creates = 0, patches = 0, deletes = 0;
    bool patchesADeployment = false, missingImage = false, brokenConfig = false, quota = false;
    for (const ScenarioStep &step : scenario->steps) {
        expectations << step.expect;
        creates += step.verb == ScenarioStep::Verb::Create;
        patches += step.verb == ScenarioStep::Verb::Patch;
        deletes += step.verb == ScenarioStep::Verb::Delete;
        patchesADeployment
            |= step.verb == ScenarioStep::Verb::Patch && step.plural == u"deployments";
        quota |= step.plural == u"resourcequotas";
        if (step.plural == u"customapps" && step.verb == ScenarioStep::Verb::Create) {
            const auto spec = step.body["spec"];
            missingImage |= spec["image"].get<std::string>().ends_with(":missing");
            brokenConfig |= json::parse(spec["configJSON"].get<std::string>(), nullptr, false)
                                .is_discarded();
        }
    }
    const QString all = expectations.join(u'\n');
    for (const char *word : { "Pending",
                              "Reconciling",
                              "Ready",
                              "QuotaExceeded",
                              "ImagePullBackOff",
                              "InvalidSpec",
                              "DriftDetected",
                              "Terminating" })
        QVERIFY2(all.contains(QLatin1String(word)), word);
    QVERIFY(creates >= 4);
    QVERIFY(patches >= 4);
    QVERIFY(deletes >= 1);
    QVERIFY(patchesADeployment);
    QVERIFY(missingImage);
    QVERIFY(brokenConfig);
    QVERIFY(quota);
    // Steps that need an earlier state wait for it; the round ends when every app is gone (the
    // next round creates them again).
    QStringList waits;
    for (const ScenarioStep &step : scenario->steps) {
        if (step.verb == ScenarioStep::Verb::WaitFor)
            waits << step.objectKey() + u' ' + step.waitTargetText();
    }
    for (const QString &wait : { u"tour-quota/ingest Ready"_s,
                                 u"tour-quota/ingest Degraded (QuotaExceeded)"_s,
                                 u"tour/thumbnailer Degraded (ImagePullBackOff)"_s,
                                 u"tour/ledger Degraded (InvalidSpec)"_s,
                                 u"tour/shop Ready"_s,
                                 u"tour/shop gone"_s,
                                 u"tour-quota/ingest gone"_s,
                                 u"tour/thumbnailer gone"_s,
                                 u"tour/ledger gone"_s })
        QVERIFY2(waits.contains(wait), qPrintable(waits.join(u", "_s)));
    QCOMPARE(scenario->startOf(0), 0);
    QCOMPARE(scenario->startOf(scenario->steps.size() - 1), scenario->durationMs());
}

void tst_ConsoleModels::scenarioErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    QTest::newRow("not json") << QByteArray("{") << u"JSON object"_s;
    QTest::newRow("no steps") << QByteArray(R"({"name":"x"})") << u"steps"_s;
    QTest::newRow("unknown verb") << QByteArray(R"({"steps":[{"title":"a","verb":"apply"}]})")
                                  << u"step 1: unknown verb"_s;
    QTest::newRow("negative after")
        << QByteArray(R"({"steps":[{"title":"a","verb":"wait","after":-1}]})") << u"after"_s;
    QTest::newRow("create without object") << QByteArray(
        R"({"steps":[{"title":"a","verb":"wait"},{"title":"b","verb":"create","apiVersion":"v1","resource":"pods"}]})")
                                           << u"step 2: a create needs"_s;
    QTest::newRow("patch without name") << QByteArray(
        R"({"steps":[{"title":"a","verb":"patch","apiVersion":"v1","resource":"pods","patch":{}}]})")
                                        << u"name"_s;
    QTest::newRow("no title") << QByteArray(R"({"steps":[{"verb":"wait"}]})") << u"title"_s;
    QTest::newRow("waitFor not an object")
        << QByteArray(R"({"steps":[{"waitFor":"demo/web"}]})") << u"must be an object"_s;
    QTest::newRow("waitFor without object")
        << QByteArray(R"({"steps":[{"waitFor":{"state":"Ready"}}]})") << u"NAMESPACE/NAME"_s;
    QTest::newRow("waitFor too many slashes")
        << QByteArray(R"({"steps":[{"waitFor":{"object":"a/b/c","state":"Ready"}}]})")
        << u"NAMESPACE/NAME"_s;
    QTest::newRow("waitFor unknown state")
        << QByteArray(R"({"steps":[{"waitFor":{"object":"demo/web","state":"Happy"}}]})")
        << u"not \"Happy\""_s;
    QTest::newRow("waitFor zero timeout") << QByteArray(
        R"({"steps":[{"waitFor":{"object":"demo/web","state":"Ready","timeoutSeconds":0}}]})")
                                          << u"timeoutSeconds"_s;
    QTest::newRow("waitFor verb without member")
        << QByteArray(R"({"steps":[{"title":"a","verb":"waitFor"}]})") << u"needs a \"waitFor\""_s;
    QTest::newRow("waitFor on a create")
        << QByteArray(R"({"steps":[{"title":"a","verb":"create","waitFor":{}}]})")
        << u"belongs to a waitFor step"_s;
}

void tst_ConsoleModels::waitForSteps()
{
    const auto scenario = parseScenario(R"({"steps":[
        {"waitFor":{"object":"demo/web","state":"Ready","timeoutSeconds":30}},
        {"after":500,"title":"quota","waitFor":{"object":"demo/api","state":"Degraded",
         "reason":"QuotaExceeded","timeoutSeconds":2.5}},
        {"verb":"waitFor","apiVersion":"apps/v1","resource":"deployments",
         "waitFor":{"object":"demo/web","state":"Gone"}},
        {"waitFor":{"object":"cluster-wide","state":"Ready"}}]})");
    QVERIFY2(scenario.ok(), qPrintable(scenario.ok() ? QString() : scenario.error().message));
    QCOMPARE(scenario->steps.size(), 4);
    const ScenarioStep &ready = scenario->steps[0];
    QCOMPARE(ready.verb, ScenarioStep::Verb::WaitFor);
    QCOMPARE(ready.objectKey(), u"demo/web"_s);
    QCOMPARE(ready.waitState, std::optional(LifecycleState::Ready));
    QCOMPARE(ready.timeoutMs, 30000);
    QCOMPARE(ready.title, u"Wait until demo/web is Ready"_s); // a default title
    QCOMPARE(ready.group, u"infrastructure.internal.net"_s); // CustomApps by default
    QCOMPARE(ready.plural, u"customapps"_s);
    const ScenarioStep &quota = scenario->steps[1];
    QCOMPARE(quota.title, u"quota"_s);
    QCOMPARE(quota.afterMs, 500);
    QCOMPARE(quota.waitTargetText(), u"Degraded (QuotaExceeded)"_s);
    QCOMPARE(quota.timeoutMs, 2500);
    const ScenarioStep &gone = scenario->steps[2];
    QVERIFY(!gone.waitState);
    QCOMPARE(gone.title, u"Wait until demo/web is gone"_s);
    QCOMPARE(gone.group, u"apps"_s);
    QCOMPARE(gone.plural, u"deployments"_s);
    QCOMPARE(gone.timeoutMs, ScenarioStep::DefaultWaitTimeoutMs);
    QCOMPARE(scenarioVerbName(gone.verb), u"waitFor"_s);
    QCOMPARE(scenario->steps[3].objectKey(), u"cluster-wide"_s);
    QVERIFY(scenario->steps[3].namespaceName.isEmpty());
}

void tst_ConsoleModels::scenarioErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    const auto scenario = parseScenario(json);
    QVERIFY(!scenario.ok());
    QVERIFY2(scenario.error().message.contains(error), qPrintable(scenario.error().message));
}

void tst_ConsoleModels::timelineModel()
{
    ScenarioTimelineModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto scenario = parseScenario(R"({"name":"t","steps":[
        {"title":"first","verb":"wait","after":1500},
        {"title":"second","expect":"Ready","verb":"create","apiVersion":"v1","resource":"namespaces",
         "object":{"metadata":{"name":"n"}}},
        {"title":"third","verb":"delete","apiVersion":"v1","resource":"namespaces","name":"n",
         "after":61000}]})");
    QVERIFY(scenario.ok());
    model.setScenario(scenario.value());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, ScenarioTimelineModel::AtColumn).data().toString(), u"0:01"_s);
    QCOMPARE(model.index(2, ScenarioTimelineModel::AtColumn).data().toString(), u"1:02"_s);
    QCOMPARE(model.index(1, ScenarioTimelineModel::ExpectColumn).data().toString(), u"Ready"_s);
    QCOMPARE(model.state(0), ScenarioTimelineModel::StepState::Pending);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setRunning(0);
    QCOMPARE(model.currentStep(), 0);
    QVERIFY(model.index(0, 1).data(Qt::FontRole).value<QFont>().bold());
    model.setFinished(0, true, QString());
    model.setRunning(1);
    QVERIFY(!model.index(0, 1).data(Qt::FontRole).value<QFont>().bold());
    model.setFinished(1, false, u"Conflict (409): nope"_s);
    QCOMPARE(model.state(1), ScenarioTimelineModel::StepState::Failed);
    QCOMPARE(model.index(1, ScenarioTimelineModel::ResultColumn).data().toString(), u"✗"_s);
    QCOMPARE(model.index(1, ScenarioTimelineModel::ResultColumn).data(Qt::ToolTipRole).toString(),
             u"Conflict (409): nope"_s);
    QCOMPARE(model.index(0, ScenarioTimelineModel::ResultColumn).data().toString(), u"✓"_s);
    QVERIFY(changed.count() >= 4);
    // A step that waited 7 s pushes the steps after it back, and says why.
    QSignalSpy moved(&model, &QAbstractItemModel::dataChanged);
    model.setWaited(1, 7000);
    QCOMPARE(moved.count(), 1);
    QCOMPARE(moved.first().at(0).value<QModelIndex>().row(), 2);
    QCOMPARE(model.index(1, ScenarioTimelineModel::AtColumn).data().toString(), u"0:01"_s);
    QCOMPARE(model.index(2, ScenarioTimelineModel::AtColumn).data().toString(), u"1:09"_s);
    QVERIFY(model.index(2, ScenarioTimelineModel::AtColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(u"0:07 later"_s));
    model.setWaited(1, 7000); // unchanged: no signal
    QCOMPARE(moved.count(), 1);
    model.setFinished(7, true, QString()); // out of range: ignored
    model.resetOutcomes();
    QCOMPARE(model.index(2, ScenarioTimelineModel::AtColumn).data().toString(), u"1:02"_s);
    QCOMPARE(model.state(1), ScenarioTimelineModel::StepState::Pending);
    QCOMPARE(model.currentStep(), -1);
}

void tst_ConsoleModels::plannedChanges()
{
    const json before = { { "metadata", { { "name", "web" }, { "finalizers", json::array() } } },
                          { "status", { { "observedGeneration", 1 } } } };
    const json after
        = { { "metadata",
              { { "name", "web" },
                { "finalizers", json::array({ "infrastructure.internal.net/finalizer" }) } } },
            { "status", { { "observedGeneration", 2 } } } };
    const auto rows
        = reconscope::models::plannedChanges(u"PUT"_s,
                                             u"/apis/x/v1/namespaces/demo/customapps/web"_s,
                                             json::diff(before, after),
                                             before);
    QCOMPARE(rows.size(), 2);
    const auto replace = std::find_if(rows.begin(), rows.end(), [](const PlannedChange &c) {
        return c.field == u"/status/observedGeneration";
    });
    QVERIFY(replace != rows.end());
    QCOMPARE(replace->op, u"replace"_s);
    QCOMPARE(replace->before, u"1"_s);
    QCOMPARE(replace->after, u"2"_s);
    const QString text = plannedChangesText(rows);
    QVERIFY2(text.startsWith(u"PUT /apis/x/v1/namespaces/demo/customapps/web\n"_s),
             qPrintable(text));
    QVERIFY(text.contains(u"- /status/observedGeneration: 1\n+ /status/observedGeneration: 2"_s));

    const auto create
        = reconscope::models::plannedChanges(u"POST"_s,
                                             u"/apis/apps/v1/namespaces/demo/deployments"_s,
                                             json::diff(json(), json{ { "kind", "Deployment" } }),
                                             json());
    QCOMPARE(create.size(), 1);
    QCOMPARE(create[0].op, u"replace"_s);
    QCOMPARE(create[0].field, u"/"_s);
    QVERIFY(create[0].before.isEmpty());
    const auto remove = reconscope::models::plannedChanges(u"DELETE"_s, u"/x"_s, json(), json());
    QCOMPARE(remove.size(), 1);
    QVERIFY(remove[0].op.isEmpty());

    PlannedChangesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setChanges(rows + create);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(PlannedChangesModel::ColumnCount));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void tst_ConsoleModels::ownedObjects()
{
    json deployment = object("Deployment", "web", "d1", "app1");
    deployment["spec"] = { { "replicas", 3 } };
    deployment["status"] = { { "readyReplicas", 2 },
                             { "conditions",
                               json::array({ { { "type", "ReplicaFailure" },
                                               { "status", "True" },
                                               { "reason", "FailedCreate" },
                                               { "message", "exceeded quota: pods" } } }) } };
    json running = object("Pod", "web-a", "p1", "d1");
    running["status"] = { { "phase", "Running" },
                          { "containerStatuses", json::array({ { { "ready", true } } }) } };
    json pulling = object("Pod", "web-b", "p2", "rs1");
    pulling["status"] = { { "phase", "Pending" },
                          { "containerStatuses",
                            json::array({ { { "ready", false },
                                            { "state",
                                              { { "waiting",
                                                  { { "reason", "ImagePullBackOff" },
                                                    { "message", "Back-off" } } } } } } }) } };
    const json replicaSet = object("ReplicaSet", "web-rs", "rs1", "d1");
    const json stranger = object("Pod", "other", "p9", "d9");
    const json appItself = object("CustomApp", "web", "app1", nullptr);

    const auto rows = reconscope::models::ownedObjects(
        u"app1"_s, { running, stranger, pulling, replicaSet, deployment, appItself });
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[0].kind, u"Deployment"_s);
    QCOMPARE(rows[0].depth, 0);
    QCOMPARE(rows[0].status, u"2/3 ready"_s);
    QCOMPARE(rows[0].detail, u"ReplicaFailure FailedCreate: exceeded quota: pods"_s);
    QVERIFY(!rows[0].healthy);
    QCOMPARE(rows[1].name, u"web-a"_s); // Pod before ReplicaSet at depth 1
    QCOMPARE(rows[1].status, u"Running"_s);
    QVERIFY(rows[1].healthy);
    QCOMPARE(rows[2].kind, u"ReplicaSet"_s);
    QCOMPARE(rows[3].name, u"web-b"_s);
    QCOMPARE(rows[3].depth, 2);
    QCOMPARE(rows[3].status, u"ImagePullBackOff"_s);

    OwnedObjectsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setObjects(rows);
    QCOMPARE(model.rowCount(), 4);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    auto updated = rows;
    updated[3].status = u"Running"_s;
    model.setObjects(updated); // same rows: updated in place
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.index(3, OwnedObjectsModel::StatusColumn).data().toString(), u"Running"_s);
    model.setObjects(rows.mid(0, 2));
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 2);
}

void tst_ConsoleModels::customAppForm_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("image");
    QTest::addColumn<int>("replicas");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("config");
    QTest::addColumn<QList<int>>("problems");
    using F = CustomAppForm::Field;
    QTest::newRow("ok") << u"web"_s << u"nginx:1.27"_s << 3 << 8080 << u"{\"a\":1}"_s
                        << QList<int>{};
    QTest::newRow("empty config ok")
        << u"web.v2"_s << u"nginx"_s << 0 << 1 << QString() << QList<int>{};
    QTest::newRow("upper-case name")
        << u"Web"_s << u"nginx"_s << 1 << 80 << u"{}"_s << QList<int>{ int(F::Name) };
    QTest::newRow("no image") << u"web"_s << u" "_s << 1 << 80 << u"{}"_s
                              << QList<int>{ int(F::Image) };
    QTest::newRow("replicas 101") << u"web"_s << u"nginx"_s << 101 << 80 << u"{}"_s
                                  << QList<int>{ int(F::Replicas) };
    QTest::newRow("port 0 and bad json") << u"web"_s << u"nginx"_s << 1 << 0 << u"{not json"_s
                                         << QList<int>{ int(F::Port), int(F::ConfigJSON) };
}

void tst_ConsoleModels::customAppForm()
{
    QFETCH(QString, name);
    QFETCH(QString, image);
    QFETCH(int, replicas);
    QFETCH(int, port);
    QFETCH(QString, config);
    QFETCH(QList<int>, problems);
    CustomAppForm form;
    form.name = name;
    form.namespaceName = u"demo"_s;
    form.image = image;
    form.replicas = replicas;
    form.port = port;
    form.configJSON = config;
    QList<int> found;
    for (auto field : form.problems().keys())
        found << int(field);
    QCOMPARE(found, problems);
    if (problems.isEmpty()) {
        const json object = form.toObject();
        QCOMPARE(object["kind"], "CustomApp");
        QCOMPARE(object["metadata"]["namespace"], "demo");
        QCOMPARE(object["spec"]["replicas"], replicas);
        QCOMPARE(object["spec"].contains("configJSON"), !config.isEmpty());
        QVERIFY(!object["spec"].contains("secretRef"));
    }
}

void tst_ConsoleModels::yamlRoundTrip_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("tricky scalars") << QByteArray(R"({"a":"true","b":"123","c":"","d":"~",
        "e":"yes","f":" lead","g":"x: y","h":"multi\nline\n","i":"0x1F","j":1.5,"k":-3,
        "l":null,"m":[],"n":{},"o":[{"p":"#hash"}],"q":"null","r":"1e3","s":"- x","t":false,
        "u":"tab\there","v":"\"quoted\"","w":"ünïcödé","x":"multi\nno trailing","y":"on"})");
    const QDir objects(QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds/objects"));
    for (const QString &file : objects.entryList({ u"*.yaml"_s }, QDir::Files)) {
        const auto documents = yamlDocumentsToJson(readFile(objects.filePath(file)));
        if (!documents.ok())
            continue;
        int i = 0;
        for (const json &document : documents.value())
            QTest::newRow(qPrintable(u"%1#%2"_s.arg(file).arg(i++)))
                << QByteArray::fromStdString(document.dump());
    }
}

void tst_ConsoleModels::yamlRoundTrip()
{
    QFETCH(QByteArray, json);
    const auto original = json::parse(json.toStdString());
    const QByteArray yaml = jsonToYaml(original);
    const auto back = yamlToJson(yaml);
    QVERIFY2(back.ok(), yaml.constData());
    QVERIFY2(back.value() == original,
             qPrintable(u"%1\n---\n%2"_s.arg(QString::fromUtf8(yaml),
                                             QString::fromStdString(back.value().dump()))));
}

QTEST_GUILESS_MAIN(tst_ConsoleModels)
#include "tst_consolemodels.moc"
