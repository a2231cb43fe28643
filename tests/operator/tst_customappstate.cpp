#include "controller/operator/customappstate.h"

#include <QTimeZone>
#include <QtTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace customapp = reconscope::controller::operators::customapp;

class tst_CustomAppState : public QObject
{
    Q_OBJECT

private slots:
    void deploymentReport_data();
    void deploymentReport();
    void podsAreReadOnlyWithoutReplicaFailure();
    void statusUpdateUnchangedWhenEqual();
    void statusUpdateNotesReadyTransition();
    void instanceOfPod();
};

namespace {

json app()
{
    return json::parse(R"({"metadata":{"name":"web","namespace":"default","generation":3},
                           "spec":{"image":"nginx:1"}})");
}

json deployment(int replicas, int ready, const json &conditions = json::array())
{
    return json{ { "metadata", { { "generation", 2 } } },
                 { "spec", { { "replicas", replicas } } },
                 { "status",
                   { { "observedGeneration", 2 },
                     { "replicas", replicas },
                     { "updatedReplicas", replicas },
                     { "readyReplicas", ready },
                     { "conditions", conditions } } } };
}

json waitingPod(const char *reason)
{
    return json{
        { "status",
          { { "containerStatuses",
              json::array({ { { "image", "nginx:1" },
                              { "state", { { "waiting", { { "reason", reason } } } } } } }) } } }
    };
}

} // namespace

void tst_CustomAppState::deploymentReport_data()
{
    QTest::addColumn<QByteArray>("deployment");
    QTest::addColumn<QByteArray>("pods");
    QTest::addColumn<QString>("readyReason");
    QTest::addColumn<QString>("readyStatus");
    QTest::addColumn<QString>("error");

    QTest::newRow("ready") << QByteArray::fromStdString(deployment(2, 2).dump()) << "[]"_ba
                           << u"Synchronized"_s << u"True"_s << QString();
    QTest::newRow("progressing") << QByteArray::fromStdString(deployment(2, 1).dump()) << "[]"_ba
                                 << u"Progressing"_s << u"False"_s << QString();
    const json quota
        = json::array({ { { "type", "ReplicaFailure" },
                          { "status", "True" },
                          { "message", "pods \"web-1\" is forbidden: exceeded quota: q" } } });
    QTest::newRow("quota")
        << QByteArray::fromStdString(deployment(2, 0, quota).dump()) << "[]"_ba
        << u"QuotaExceeded"_s << u"False"_s
        << u"QuotaExceeded: Deployment web cannot create pods: exceeded quota: q"_s;
    QTest::newRow("image pull")
        << QByteArray::fromStdString(deployment(2, 0).dump())
        << QByteArray::fromStdString(json::array({ waitingPod("ImagePullBackOff") }).dump())
        << u"ImagePullBackOff"_s << u"False"_s
        << u"ImagePullBackOff: Image nginx:1 cannot be pulled (pods waiting in ImagePullBackOff)"_s;
}

void tst_CustomAppState::deploymentReport()
{
    QFETCH(QByteArray, deployment);
    QFETCH(QByteArray, pods);
    QFETCH(QString, readyReason);
    QFETCH(QString, readyStatus);
    QFETCH(QString, error);
    const json podList = json::parse(pods.toStdString());
    const auto report = customapp::deploymentReport(
        u"web"_s, app(), json::parse(deployment.toStdString()), 3, [&podList] {
            QList<json> list;
            for (const auto &pod : podList)
                list << pod;
            return list;
        });
    const auto *ready = reconscope::models::findStatusCondition(report.conditions, u"Ready");
    QVERIFY(ready);
    QCOMPARE(ready->reason, readyReason);
    QCOMPARE(ready->status, readyStatus);
    QCOMPARE(ready->observedGeneration, qint64(3));
    QCOMPARE(report.outcome.error ? report.outcome.error->message : QString(), error);
    QVERIFY(report.replicas.has_value());
    QVERIFY(report.readyReplicas.has_value());
}

void tst_CustomAppState::podsAreReadOnlyWithoutReplicaFailure()
{
    const json quota = json::array(
        { { { "type", "ReplicaFailure" }, { "status", "True" }, { "message", "failed" } } });
    int reads = 0;
    const auto report
        = customapp::deploymentReport(u"web"_s, app(), deployment(1, 0, quota), 3, [&reads] {
              ++reads;
              return QList<json>();
          });
    QCOMPARE(reads, 0);
    QCOMPARE(report.outcome.error->message, u"ReplicaFailure: failed"_s);
}

void tst_CustomAppState::statusUpdateUnchangedWhenEqual()
{
    const QDateTime at = QDateTime::fromSecsSinceEpoch(1700000000, QTimeZone::utc());
    json object = app();
    const auto report = customapp::pausedReport(3);
    const auto first = customapp::statusUpdate(object, report, 3, at);
    QVERIFY(first.changed);
    object["status"] = first.status;
    const auto second = customapp::statusUpdate(object, report, 3, at.addSecs(60));
    QVERIFY(!second.changed);
    QCOMPARE(second.status, first.status);
}

void tst_CustomAppState::statusUpdateNotesReadyTransition()
{
    const QDateTime at = QDateTime::fromSecsSinceEpoch(1700000000, QTimeZone::utc());
    json object = app();
    const auto invalid = customapp::statusUpdate(
        object, customapp::invalidSpecReport(u"spec.image is required"_s, 3), 3, at);
    QVERIFY(invalid.readyChanged);
    QVERIFY(invalid.degraded);
    QCOMPARE(invalid.readyReason, u"InvalidSpec"_s);
    QCOMPARE(invalid.status["observedGeneration"], json(3));
    object["status"] = invalid.status;
    const auto again = customapp::statusUpdate(
        object, customapp::invalidSpecReport(u"spec.image is required"_s, 3), 3, at);
    QVERIFY(!again.readyChanged);
}

void tst_CustomAppState::instanceOfPod()
{
    const json pod = json::parse(R"({"metadata":{"labels":{"app.kubernetes.io/name":"customapp",
                                     "app.kubernetes.io/instance":"web"}}})");
    QCOMPARE(customapp::instanceOfPod(pod), u"web"_s);
    const json other = json::parse(R"({"metadata":{"labels":{"app.kubernetes.io/name":"other",
                                       "app.kubernetes.io/instance":"web"}}})");
    QCOMPARE(customapp::instanceOfPod(other), QString());
}

QTEST_GUILESS_MAIN(tst_CustomAppState)
#include "tst_customappstate.moc"
