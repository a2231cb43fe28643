// The rules of "why is it not Ready?" (controller/troubleshoot/explanation.h), on worlds given
// whole, the clock injected: each of the eight cases gets the right first cause, and the
// ranking rules hold (a workload that cannot create pods before its unavailability; a condition
// written for an older generation after the stale status; no controller only past the threshold,
// naming what was looked at).

#include "controller/troubleshoot/explanation.h"
#include "models/yamljson.h"

#include <QFile>
#include <QtTest>

using namespace Qt::StringLiterals;
using Json = nlohmann::json;
namespace troubleshoot = reconscope::controller::troubleshoot;
using reconscope::models::LifecycleMapping;
using troubleshoot::Cause;

namespace {

const QDateTime Now = QDateTime(QDate(2026, 12, 4), QTime(12, 0, 0), Qt::UTC);

QString at(qint64 secondsBefore)
{
    return Now.addSecs(-secondsBefore).toString(Qt::ISODate);
}

Json condition(const QString &type, const QString &status, const QString &reason, qint64 gen = 1)
{
    return { { "type", type.toStdString() },
             { "status", status.toStdString() },
             { "reason", reason.toStdString() },
             { "message", (reason + u" happened"_s).toStdString() },
             { "lastTransitionTime", at(300).toStdString() },
             { "observedGeneration", gen } };
}

Json customApp(const Json &status, qint64 generation = 1, qint64 ageSeconds = 600)
{
    Json object{ { "apiVersion", "infrastructure.internal.net/v1" },
                 { "kind", "CustomApp" },
                 { "metadata",
                   { { "name", "web" },
                     { "namespace", "demo" },
                     { "uid", "u-1" },
                     { "generation", generation },
                     { "creationTimestamp", at(ageSeconds).toStdString() } } },
                 { "spec", { { "image", "nginx" } } } };
    if (!status.is_null())
        object["status"] = status;
    return object;
}

troubleshoot::ExplainInput inputFor(const Json &object)
{
    troubleshoot::ExplainInput input;
    input.object = object;
    input.mapping = LifecycleMapping::forCustomApp();
    input.now = Now;
    return input;
}

// (An initializer list: one condition would otherwise be taken for the array itself.)
Json deployment(std::initializer_list<Json> list)
{
    Json conditions = Json::array();
    for (const Json &condition : list)
        conditions.push_back(condition);
    return { { "kind", "Deployment" },
             { "metadata", { { "name", "web" }, { "namespace", "demo" } } },
             { "status",
               { { "replicas", 2 }, { "readyReplicas", 0 }, { "conditions", conditions } } } };
}

QString kinds(const troubleshoot::Explanation &explanation)
{
    QStringList out;
    for (const Cause &cause : explanation.causes)
        out << troubleshoot::causeKindName(cause.kind);
    return out.join(u',');
}

Json fixture(const QString &name)
{
    QFile file(QStringLiteral(RECONSCOPE_SHARED_DIR) + u"/fixtures/real-crds/objects/"_s + name);
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    auto json = reconscope::models::yamlToJson(file.readAll());
    return json ? json.value() : Json();
}

} // namespace

Q_DECLARE_METATYPE(reconscope::controller::troubleshoot::ExplainInput)

class tst_Explanation : public QObject
{
    Q_OBJECT

private slots:
    void firstCause_data();
    void firstCause();
    void unavailableRanksAfterItsReason();
    void conditionForAnOlderGenerationRanksAfterStaleStatus();
    void noControllerOnlyPastTheThreshold();
    void stuckDeletionSaysWhoAddedEachFinalizerAndHowToRemoveIt();
    void realFixtures_data();
    void realFixtures();
};

void tst_Explanation::firstCause_data()
{
    QTest::addColumn<troubleshoot::ExplainInput>("input");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("says");
    const auto row = [](const char *name,
                        const troubleshoot::ExplainInput &input,
                        const QString &kind,
                        const QString &says) {
        QTest::newRow(name) << input << kind << says;
    };

    auto quota
        = inputFor(customApp({ { "observedGeneration", 1 },
                               { "conditions",
                                 { condition(u"Ready"_s, u"False"_s, u"QuotaExceeded"_s),
                                   condition(u"Degraded"_s, u"True"_s, u"QuotaExceeded"_s) } } }));
    quota.deployments << deployment(
        { condition(u"Available"_s, u"False"_s, u"MinimumReplicasUnavailable"_s),
          condition(u"ReplicaFailure"_s, u"True"_s, u"FailedCreate"_s) });
    row("quota exceeded", quota, u"workload-failing"_s, u"cannot create pods: FailedCreate"_s);

    auto pull = inputFor(customApp(
        { { "observedGeneration", 1 },
          { "conditions",
            Json::array({ condition(u"Ready"_s, u"False"_s, u"ImagePullBackOff"_s) }) } }));
    pull.deployments << deployment(
        { condition(u"Available"_s, u"False"_s, u"MinimumReplicasUnavailable"_s) });
    pull.pods << Json{
        { "metadata", { { "name", "web-1" } } },
        { "status",
          { { "containerStatuses",
              { { { "name", "app" },
                  { "state",
                    { { "waiting",
                        { { "reason", "ImagePullBackOff" },
                          { "message", "Back-off pulling image" } } } } } } } } } }
    };
    row("image pull back-off",
        pull,
        u"workload-failing"_s,
        u"Pod web-1: container app waiting: ImagePullBackOff"_s);

    row("terminal InvalidSpec",
        inputFor(customApp({ { "observedGeneration", 1 },
                             { "conditions",
                               { condition(u"Ready"_s, u"False"_s, u"InvalidSpec"_s),
                                 condition(u"Stalled"_s, u"True"_s, u"InvalidSpec"_s) } } })),
        u"stalled"_s,
        u"Stalled=True: InvalidSpec"_s);

    row("stale observedGeneration",
        inputFor(
            customApp({ { "observedGeneration", 2 },
                        { "conditions", { condition(u"Ready"_s, u"True"_s, u"Available"_s, 2) } } },
                      3)),
        u"stale-status"_s,
        u"generation 3, observed 2"_s);

    row("no controller running",
        inputFor(customApp(nullptr, 1, 900)),
        u"no-controller"_s,
        u"no controller is acting"_s);

    Json terminating
        = customApp({ { "observedGeneration", 1 },
                      { "conditions", { condition(u"Ready"_s, u"True"_s, u"Available"_s) } } });
    terminating["metadata"]["deletionTimestamp"] = at(400).toStdString();
    terminating["metadata"]["finalizers"] = { "example.com/foreign" };
    row("foreign finalizer",
        inputFor(terminating),
        u"deletion-waits"_s,
        u"waits for finalizers: example.com/foreign"_s);

    auto owned = inputFor(
        customApp({ { "observedGeneration", 1 },
                    { "conditions", { condition(u"Ready"_s, u"False"_s, u"Progressing"_s) } } }));
    owned.deployments << deployment(
        { condition(u"Progressing"_s, u"False"_s, u"ProgressDeadlineExceeded"_s) });
    row("failing owned Deployment",
        owned,
        u"workload-failing"_s,
        u"Deployment web stopped progressing: ProgressDeadlineExceeded"_s);
}

void tst_Explanation::firstCause()
{
    QFETCH(troubleshoot::ExplainInput, input);
    QFETCH(QString, kind);
    QFETCH(QString, says);
    const auto explanation = troubleshoot::explain(input);
    QVERIFY2(!explanation.causes.isEmpty(), "no cause");
    QCOMPARE(troubleshoot::causeKindName(explanation.causes.first().kind), kind);
    QVERIFY2(explanation.causes.first().summary.contains(says),
             qPrintable(explanation.causes.first().summary));
}

void tst_Explanation::unavailableRanksAfterItsReason()
{
    auto input = inputFor(customApp({ { "observedGeneration", 1 } }));
    input.deployments << deployment(
        { condition(u"Available"_s, u"False"_s, u"MinimumReplicasUnavailable"_s),
          condition(u"ReplicaFailure"_s, u"True"_s, u"FailedCreate"_s) });
    const auto explanation = troubleshoot::explain(input);
    QCOMPARE(kinds(explanation), u"workload-failing,workload-failing"_s);
    QVERIFY(explanation.causes[0].summary.contains(u"cannot create pods"_s));
    QVERIFY(explanation.causes[1].summary.contains(u"is not available"_s));
}

void tst_Explanation::conditionForAnOlderGenerationRanksAfterStaleStatus()
{
    // Degraded, but said of generation 1; the spec is at 2 and the controller has not caught up.
    const auto explanation = troubleshoot::explain(inputFor(customApp(
        { { "observedGeneration", 1 },
          { "conditions", { condition(u"Degraded"_s, u"True"_s, u"QuotaExceeded"_s, 1) } } },
        2)));
    QCOMPARE(kinds(explanation), u"stale-status,condition-failing"_s);
    QVERIFY(explanation.causes[1].summary.contains(u"written for generation 1"_s));
}

void tst_Explanation::noControllerOnlyPastTheThreshold()
{
    troubleshoot::ExplainThresholds thresholds;
    thresholds.pending = std::chrono::seconds(120);
    auto young = inputFor(customApp(nullptr, 1, 30));
    young.controllerSearch << u"Leases in all namespaces named like infrastructure"_s;
    const auto early = troubleshoot::explain(young, thresholds);
    QCOMPARE(kinds(early), u"no-controller"_s);
    QVERIFY2(early.causes[0].summary.startsWith(u"no status yet"_s),
             qPrintable(early.causes[0].summary));

    auto old = young;
    old.object = customApp(nullptr, 1, 121);
    const auto late = troubleshoot::explain(old, thresholds);
    QVERIFY(late.causes[0].summary.startsWith(u"no controller is acting"_s));
    QVERIFY(late.causes[0].evidence.contains(
        u"looked at: Leases in all namespaces named like infrastructure"_s));

    old.controllerSigns << u"Lease kube-system/customapp-operator held by x, renewed 3 s ago"_s;
    const auto seen = troubleshoot::explain(old, thresholds);
    QVERIFY(seen.causes[0].summary.contains(u"though a controller seems to run"_s));
    QVERIFY(seen.causes[0].evidence.contains(old.controllerSigns.first()));
}

void tst_Explanation::stuckDeletionSaysWhoAddedEachFinalizerAndHowToRemoveIt()
{
    Json object = customApp(nullptr);
    object["metadata"]["deletionTimestamp"] = at(400).toStdString();
    object["metadata"]["finalizers"]
        = { "example.com/foreign", "infrastructure.internal.net/finalizer" };
    const auto entry = [](const char *manager, const char *time, const char *finalizer) {
        const std::string member = "v:" + Json(finalizer).dump();
        return Json{
            { "manager", manager },
            { "operation", "Update" },
            { "time", time },
            { "fieldsType", "FieldsV1" },
            { "fieldsV1",
              { { "f:metadata", { { "f:finalizers", { { member, Json::object() } } } } } } }
        };
    };
    object["metadata"]["managedFields"]
        = Json::array({ entry("kubectl-create", "2026-12-04T11:50:00Z", "example.com/foreign"),
                        entry("customapp-operator",
                              "2026-12-04T11:51:00Z",
                              "infrastructure.internal.net/finalizer") });
    auto input = inputFor(object);
    input.resource = u"customapps.infrastructure.internal.net"_s;
    input.controllerSearch << u"Leases in all namespaces named like example"_s;
    const auto explanation = troubleshoot::explain(input);
    QCOMPARE(troubleshoot::causeKindName(explanation.causes.first().kind), u"deletion-waits"_s);
    const Cause &cause = explanation.causes.first();
    QVERIFY2(cause.summary.contains(u"6m40s ago"_s), qPrintable(cause.summary));
    const QString evidence = cause.evidence.join(u'\n');
    QVERIFY2(evidence.contains(u"finalizer example.com/foreign, added by kubectl-create (Update at "
                               "2026-12-04T11:50:00Z)"_s),
             qPrintable(evidence));
    QVERIFY(evidence.contains(u"finalizer infrastructure.internal.net/finalizer, added by "
                              "customapp-operator"_s));
    QVERIFY(evidence.contains(u"no sign of a controller that would remove them"_s));
    QVERIFY(evidence.contains(u"looked at: Leases in all namespaces named like example"_s));
    QVERIFY2(evidence.contains(
                 u"kubectl patch customapps.infrastructure.internal.net web -n demo --type=json -p "
                 "'[{\"op\":\"test\",\"path\":\"/metadata/finalizers/1\",\"value\":"
                 "\"infrastructure.internal.net/finalizer\"},{\"op\":\"remove\",\"path\":"
                 "\"/metadata/finalizers/1\"}]'"_s),
             qPrintable(evidence));
}

void tst_Explanation::realFixtures_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("flux kustomization")
        << u"kustomization-ready-false-artifactfailed.yaml"_s << u"condition-failing"_s
        << u"Ready=False: ArtifactFailed"_s;
    QTest::newRow("cert-manager certificate")
        << u"certificate-issuing-ready-false.yaml"_s << u"condition-failing"_s << u"Ready=False"_s;
    QTest::newRow("flux helmrelease stalled")
        << u"helmrelease-stalled.yaml"_s << u"stalled"_s << u"Stalled=True"_s;
}

void tst_Explanation::realFixtures()
{
    QFETCH(QString, file);
    QFETCH(QString, kind);
    QFETCH(QString, says);
    const Json object = fixture(file);
    QVERIFY2(object.is_object(), qPrintable(file));
    troubleshoot::ExplainInput input;
    input.object = object;
    input.mapping = LifecycleMapping::defaults();
    input.now = Now;
    const auto explanation = troubleshoot::explain(input);
    QVERIFY2(!explanation.causes.isEmpty(), qPrintable(troubleshoot::toText(explanation)));
    QCOMPARE(troubleshoot::causeKindName(explanation.causes.first().kind), kind);
    QVERIFY2(explanation.causes.first().summary.contains(says),
             qPrintable(troubleshoot::toText(explanation)));
}

QTEST_GUILESS_MAIN(tst_Explanation)
#include "tst_explanation.moc"
