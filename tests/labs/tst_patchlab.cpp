// The patch lab end to end against the embedded cluster (in-process, reached over mTLS through the
// kubeconfig it writes): /status and main-resource merge patches and their verdicts, the
// resourceVersion precondition (current and stale: the upstream 409), the CustomApp reconciler's
// overwrite of a manual status (detected and timed), and the copied kubectl command run with real
// kubectl.
#include "../operator/operatortestutil.h"
#include "controller/labs/patchlab.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "tests/testkubectl.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace optest;
namespace lab = reconscope::controller::labs;
namespace operators = reconscope::controller::operators;
namespace reconcile = reconscope::controller::reconcile;

class tst_PatchLab : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void validation_data();
    void validation();
    void templates();
    void preconditionInPatch();
    void kubectlQuoting();

    void statusPatchLeavesSpecAndGeneration();
    void mainResourceIgnoresStatus();
    void specBumpOnMainResource();
    void stalePreconditionConflicts_data();
    void stalePreconditionConflicts();
    void currentPreconditionSucceeds();
    void invalidJsonPatchOperation();
    void reconcilerOverwritesManualStatus();
    void statusKeptWithoutReconciler();
    void copiedKubectlHasSameEffect();
    void historyExport();
    void clientSwitchEndsExperiment();

private:
    lab::PatchRequest request(const QString &name,
                              lab::PatchTarget target,
                              lab::PatchTemplate t,
                              apimachinery::PatchType type = apimachinery::PatchType::Merge) const
    {
        lab::PatchRequest r;
        r.resource = apimachinery::ResourceRef{ u"infrastructure.internal.net"_s,
                                                u"v1"_s,
                                                u"customapps"_s };
        r.qualifiedResource = u"customapps.infrastructure.internal.net"_s;
        r.statusSubresource = true;
        r.namespace_ = u"default"_s;
        r.name = name;
        r.target = target;
        r.type = type;
        r.patch = lab::makeTemplate(t,
                                    type,
                                    m_fx->get(customApps, name),
                                    QDateTime(QDate(2026, 8, 9), QTime(0, 15), Qt::UTC));
        return r;
    }
    // Runs one experiment to its end; the experiment (null on failure).
    const lab::PatchExperiment *runToEnd(const lab::PatchRequest &r, int timeoutMs = 15000)
    {
        QSignalSpy finished(m_lab.get(), &lab::PatchLab::experimentFinished);
        const int id = m_lab->run(r);
        if (id == 0)
            return nullptr;
        if (!finished.wait(timeoutMs))
            return nullptr;
        return m_lab->experiment(id);
    }
    void createApp(const QString &name)
    {
        QVERIFY(m_fx->create(
            customApps,
            ClusterFixture::customApp(name, { { "image", "nginx:1.27" }, { "replicas", 2 } })));
        // A status the manual override replaces (as the reconciler would have written it).
        QVERIFY(m_fx->mergePatch(
            customApps,
            name,
            { { "status",
                { { "observedGeneration", 1 },
                  { "conditions",
                    json::array({ { { "type", "Ready" },
                                    { "status", "True" },
                                    { "reason", "Synchronized" },
                                    { "message", "ready" },
                                    { "lastTransitionTime", "2026-08-09T00:00:00Z" } } }) } } } },
            true));
    }

    std::unique_ptr<ClusterFixture> m_fx;
    std::unique_ptr<kube::RestClient> m_client;
    std::unique_ptr<lab::PatchLab> m_lab;
};

void tst_PatchLab::init()
{
    m_fx = std::make_unique<ClusterFixture>(30);
    const QString error = m_fx->start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_client = std::make_unique<kube::RestClient>(m_fx->clientConfig());
    m_lab = std::make_unique<lab::PatchLab>(m_client.get());
    m_lab->setReactionTimeout(0);
}

void tst_PatchLab::cleanup()
{
    m_lab.reset();
    m_client.reset();
    m_fx.reset();
}

// ---- pure parts ----

void tst_PatchLab::validation_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("jsonPatch");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("message"); // a fragment
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");

    QTest::newRow("merge object") << u"{\"status\":{}}"_s << false << true << QString() << 0 << 0;
    QTest::newRow("merge array") << u"[1]"_s << false << false << u"must be a JSON object"_s << 0
                                 << 0;
    QTest::newRow("merge string") << u"\"x\""_s << false << false << u"not string"_s << 0 << 0;
    QTest::newRow("empty") << u"  "_s << false << false << u"empty"_s << 0 << 0;
    QTest::newRow("syntax second line") << u"{\"status\":\n  {\"a\": tru}}"_s << false << false
                                        << u"JSON syntax error at line 2"_s << 2 << 12;
    QTest::newRow("unterminated") << u"{\"a\":1"_s << false << false << u"syntax error"_s << 1 << 7;
    QTest::newRow("json patch ok")
        << u"[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3},"
           "{\"op\":\"remove\",\"path\":\"/status/conditions/0\"},"
           "{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]"_s
        << true << true << QString() << 0 << 0;
    QTest::newRow("json patch object")
        << u"{}"_s << true << false << u"must be an array"_s << 0 << 0;
    QTest::newRow("unknown op") << u"[{\"op\":\"merge\",\"path\":\"/a\"}]"_s << true << false
                                << u"operation 1: unknown op \"merge\""_s << 0 << 0;
    QTest::newRow("missing op") << u"[{\"path\":\"/a\"}]"_s << true << false
                                << u"\"op\" is required"_s << 0 << 0;
    QTest::newRow("missing value")
        << u"[{\"op\":\"add\",\"path\":\"/a\"},"
           "{\"op\":\"replace\",\"path\":\"/b\"}]"_s
        << true << false << u"operation 1: \"value\" is required for \"add\""_s << 0 << 0;
    QTest::newRow("bad pointer") << u"[{\"op\":\"remove\",\"path\":\"spec\"}]"_s << true << false
                                 << u"must be empty or start with \"/\""_s << 0 << 0;
    QTest::newRow("bad escape") << u"[{\"op\":\"remove\",\"path\":\"/a~2\"}]"_s << true << false
                                << u"\"~\" must be followed by 0 or 1"_s << 0 << 0;
    QTest::newRow("copy without from")
        << u"[{\"op\":\"copy\",\"path\":\"/a\"}]"_s << true << false << u"\"from\""_s << 0 << 0;
    QTest::newRow("op not object")
        << u"[1]"_s << true << false << u"operation 1: must be an object"_s << 0 << 0;
}

void tst_PatchLab::validation()
{
    QFETCH(QString, text);
    QFETCH(bool, jsonPatch);
    QFETCH(bool, ok);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);
    const auto v = lab::validatePatch(
        text, jsonPatch ? apimachinery::PatchType::Json : apimachinery::PatchType::Merge);
    QCOMPARE(v.ok, ok);
    if (ok) {
        QVERIFY(v.message.isEmpty());
        return;
    }
    QVERIFY2(v.message.contains(message), qPrintable(v.message));
    QCOMPARE(v.line, line);
    QCOMPARE(v.column, column);
}

void tst_PatchLab::templates()
{
    const json object = { { "spec", { { "image", "x" }, { "replicas", 4 } } },
                          { "status", { { "conditions", json::array() } } } };
    const QDateTime now(QDate(2026, 8, 9), QTime(0, 15, 0), Qt::UTC);
    const json manual = lab::makeTemplate(
        lab::PatchTemplate::ManualOverride, apimachinery::PatchType::Merge, object, now);
    QCOMPARE_JSON(manual, json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"False",
                      "reason":"ManualOverride",
                      "message":"Set to Unready by hand for troubleshooting",
                      "lastTransitionTime":"2026-08-09T00:15:00Z"}]}})"));
    const json bump = lab::makeTemplate(
        lab::PatchTemplate::BumpSpecField, apimachinery::PatchType::Json, object, now);
    QCOMPARE_JSON(bump, json::parse(R"([{"op":"add","path":"/spec/replicas","value":5}])"));
    const json clear = lab::makeTemplate(
        lab::PatchTemplate::ClearConditions, apimachinery::PatchType::Json, json::object(), now);
    QCOMPARE_JSON(clear,
                  json::parse(R"([{"op":"add","path":"/status","value":{"conditions":[]}}])"));
    const json degraded = lab::makeTemplate(
        lab::PatchTemplate::SetDegraded, apimachinery::PatchType::Merge, object, now);
    QCOMPARE(degraded["status"]["conditions"].size(), std::size_t(2));
    QCOMPARE(degraded["status"]["conditions"][1]["type"].get<std::string>(),
             std::string("Degraded"));
    // Every template passes the editor's own validation, in both patch types.
    for (const auto t : lab::allTemplates()) {
        for (const auto type : { apimachinery::PatchType::Merge, apimachinery::PatchType::Json }) {
            const auto v = lab::validatePatch(
                QString::fromStdString(lab::makeTemplate(t, type, object, now).dump(2)), type);
            QVERIFY2(v.ok, qPrintable(lab::templateName(t) + u": "_s + v.message));
        }
    }
}

void tst_PatchLab::preconditionInPatch()
{
    const json merge = lab::withResourceVersion(
        json::parse(R"({"status":{"a":1}})"), apimachinery::PatchType::Merge, u"42"_s);
    QCOMPARE_JSON(merge, json::parse(R"({"metadata":{"resourceVersion":"42"},"status":{"a":1}})"));
    const json jp = lab::withResourceVersion(
        json::parse(R"([{"op":"remove","path":"/a"}])"), apimachinery::PatchType::Json, u"42"_s);
    QCOMPARE_JSON(jp,
                  json::parse(R"([{"op":"replace","path":"/metadata/resourceVersion","value":"42"},
                                  {"op":"remove","path":"/a"}])"));
    QCOMPARE(lab::staleResourceVersion(u"42"_s), u"41"_s);
    QVERIFY(lab::staleResourceVersion(u"1"_s) != u"1"_s);
    QVERIFY(lab::staleResourceVersion(u"abc"_s) != u"abc"_s);
}

void tst_PatchLab::kubectlQuoting()
{
    QCOMPARE(lab::shellQuote(u"my-app"_s), u"my-app"_s);
    QCOMPARE(lab::shellQuote(u"it's"_s), u"'it'\\''s'"_s);
    QCOMPARE(lab::shellQuote(u"$(date)"_s), u"'$(date)'"_s);
    lab::PatchRequest r;
    r.resource
        = apimachinery::ResourceRef{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };
    r.qualifiedResource = u"customapps.infrastructure.internal.net"_s;
    r.namespace_ = u"default"_s;
    r.name = u"my-app"_s;
    r.target = lab::PatchTarget::Status;
    QCOMPARE(lab::kubectlCommand(r, "{\"status\":{\"message\":\"don't\"}}"),
             u"kubectl patch customapps.infrastructure.internal.net my-app -n default "
             "--subresource=status --type=merge -p '{\"status\":{\"message\":\"don'\\''t\"}}'"_s);
    r.target = lab::PatchTarget::Main;
    r.type = apimachinery::PatchType::Json;
    QCOMPARE(lab::kubectlCommand(r, "[]"),
             u"kubectl patch customapps.infrastructure.internal.net my-app -n default --type=json "
             "-p '[]'"_s);
}

// ---- against the embedded cluster ----

void tst_PatchLab::statusPatchLeavesSpecAndGeneration()
{
    createApp(u"web"_s);
    const json before = m_fx->get(customApps, u"web"_s);
    const auto *e
        = runToEnd(request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride));
    QVERIFY(e);
    QCOMPARE(e->httpCode, 200);
    QVERIFY(!e->error);
    QVERIFY(!e->comparison.specChanged());
    QVERIFY(!e->comparison.generationChanged());
    QVERIFY(e->comparison.statusChanged());
    QVERIFY(e->comparison.resourceVersionChanged());
    QCOMPARE(e->verdicts.value(0), u"spec unchanged, generation unchanged, status changed"_s);
    QVERIFY(e->verdicts.contains(
        u"a /status write never bumps the generation: the reconciler sees no new desired state"_s));
    QCOMPARE(
        e->url,
        m_fx->clientConfig().server.toString()
            + u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/web/status"_s);
    // The cluster holds what the lab reports.
    const json after = m_fx->get(customApps, u"web"_s);
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), u"ManualOverride"_s);
    QCOMPARE_JSON(after["spec"], before["spec"]);
    QCOMPARE_JSON(after["metadata"]["generation"], before["metadata"]["generation"]);
    QCOMPARE_JSON(e->after["status"], after["status"]);
    QCOMPARE(e->reaction.outcome, lab::Reaction::Outcome::NotWatched);
}

void tst_PatchLab::mainResourceIgnoresStatus()
{
    createApp(u"web"_s);
    const json before = m_fx->get(customApps, u"web"_s);
    const auto *e
        = runToEnd(request(u"web"_s, lab::PatchTarget::Main, lab::PatchTemplate::ManualOverride));
    QVERIFY(e);
    QCOMPARE(e->httpCode, 200);
    QVERIFY(!e->comparison.statusChanged());
    QCOMPARE(e->verdicts.value(0), u"spec unchanged, generation unchanged, status unchanged"_s);
    QVERIFY2(e->verdicts.contains(
                 u"status in the patch was ignored: the CRD has a status subresource, so the main "
                 "resource keeps the stored status (write it through /status)"_s),
             qPrintable(e->verdicts.join(u'\n')));
    // A write that changes nothing is not stored (kube-api.md: no-op write).
    QVERIFY(!e->comparison.resourceVersionChanged());
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), u"Synchronized"_s);
    QCOMPARE_JSON(m_fx->get(customApps, u"web"_s)["status"], before["status"]);
}

void tst_PatchLab::specBumpOnMainResource()
{
    createApp(u"web"_s);
    const auto *e = runToEnd(request(u"web"_s,
                                     lab::PatchTarget::Main,
                                     lab::PatchTemplate::BumpSpecField,
                                     apimachinery::PatchType::Json));
    QVERIFY(e);
    QCOMPARE(e->httpCode, 200);
    QCOMPARE(e->verdicts.value(0), u"spec changed, generation changed, status unchanged"_s);
    QCOMPARE(e->comparison.generationAfter, e->comparison.generationBefore + 1);
    QCOMPARE_JSON(e->comparison.specDiff,
                  json::parse(R"([{"op":"replace","path":"/replicas","value":3}])"));
    QCOMPARE_JSON(m_fx->get(customApps, u"web"_s)["spec"]["replicas"], 3);
}

void tst_PatchLab::stalePreconditionConflicts_data()
{
    QTest::addColumn<bool>("jsonPatch");
    QTest::addColumn<bool>("status");
    QTest::newRow("merge /status") << false << true;
    QTest::newRow("merge main") << false << false;
    QTest::newRow("json /status") << true << true;
}

void tst_PatchLab::stalePreconditionConflicts()
{
    QFETCH(bool, jsonPatch);
    QFETCH(bool, status);
    createApp(u"my-app"_s);
    const json before = m_fx->get(customApps, u"my-app"_s);
    auto r
        = request(u"my-app"_s,
                  status ? lab::PatchTarget::Status : lab::PatchTarget::Main,
                  status ? lab::PatchTemplate::ManualOverride : lab::PatchTemplate::BumpSpecField,
                  jsonPatch ? apimachinery::PatchType::Json : apimachinery::PatchType::Merge);
    r.precondition = lab::Precondition::Stale;
    const auto *e = runToEnd(r);
    QVERIFY(e);
    QCOMPARE(e->httpCode, 409);
    QVERIFY(e->error);
    QCOMPARE(e->error->reason, u"Conflict"_s);
    QCOMPARE(e->error->message,
             u"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"my-app\": "
             "the object has been modified; please apply your changes to the latest version and "
             "try again"_s);
    QCOMPARE(e->error->name, u"my-app"_s);
    QCOMPARE(e->error->kind, u"customapps"_s);
    const QString stale = lab::staleResourceVersion(
        QString::fromStdString(before["metadata"]["resourceVersion"].get<std::string>()));
    QCOMPARE(e->preconditionResourceVersion, stale);
    QVERIFY(e->body.contains(stale.toUtf8()));
    // Nothing changed, and the verdict says so.
    QCOMPARE(e->verdicts.value(1), u"spec unchanged, generation unchanged, status unchanged"_s);
    QVERIFY(e->verdicts.contains(u"the request failed: nothing was written"_s));
    QCOMPARE_JSON(m_fx->get(customApps, u"my-app"_s), before);
    QCOMPARE_JSON(e->statusJson()["code"], 409);
    QCOMPARE_JSON(e->statusJson()["details"]["kind"], "customapps");
    QCOMPARE(e->reaction.outcome, lab::Reaction::Outcome::NotWatched);
}

void tst_PatchLab::currentPreconditionSucceeds()
{
    createApp(u"web"_s);
    auto r = request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::SetDegraded);
    r.precondition = lab::Precondition::Current;
    const json before = m_fx->get(customApps, u"web"_s);
    const auto *e = runToEnd(r);
    QVERIFY(e);
    QCOMPARE(e->httpCode, 200);
    QCOMPARE(e->preconditionResourceVersion,
             QString::fromStdString(before["metadata"]["resourceVersion"].get<std::string>()));
    QCOMPARE(json::parse(e->body.toStdString())["metadata"]["resourceVersion"].get<std::string>(),
             before["metadata"]["resourceVersion"].get<std::string>());
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Degraded"), u"ManualDegraded"_s);
}

void tst_PatchLab::invalidJsonPatchOperation()
{
    createApp(u"web"_s);
    auto r = request(u"web"_s, lab::PatchTarget::Main, lab::PatchTemplate::BumpSpecField);
    r.type = apimachinery::PatchType::Json;
    r.patch = json::parse(R"([{"op":"test","path":"/spec/replicas","value":99}])");
    const auto *e = runToEnd(r);
    QVERIFY(e);
    QCOMPARE(e->httpCode, 422);
    QCOMPARE(e->error->message,
             u"the server rejected our request due to an error in our request"_s);
}

void tst_PatchLab::reconcilerOverwritesManualStatus()
{
    reconcile::RealClock clock;
    operators::CustomAppOperator::Options options;
    options.reconciler.namespace_ = u"default"_s;
    operators::CustomAppOperator op(m_fx->clientConfig(), clock, options);
    QSignalSpy synced(&op.reconciler(), &operators::CustomAppReconciler::cachesSynced);
    op.start();
    QVERIFY(synced.wait(10000));
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"web"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"web"_s), u"Ready"_s, 15000);

    m_lab->setReactionTimeout(20000);
    auto r = request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride);
    QSignalSpy answered(m_lab.get(), &lab::PatchLab::experimentAnswered);
    const auto *e = runToEnd(r, 30000);
    QVERIFY(e);
    QCOMPARE(answered.count(), 1);
    QCOMPARE(e->httpCode, 200);
    QCOMPARE(e->verdicts.value(0), u"spec unchanged, generation unchanged, status changed"_s);
    QCOMPARE(e->reaction.outcome, lab::Reaction::Outcome::Overwritten);
    QVERIFY(e->reaction.afterMs >= 0);
    QVERIFY(e->reaction.afterMs < 20000);
    QVERIFY(!e->reaction.writer.isEmpty());
    QVERIFY(e->reaction.statusDiff.is_array() && !e->reaction.statusDiff.empty());
    QVERIFY2(e->reaction.text().startsWith(u"status overwritten after "_s),
             qPrintable(e->reaction.text()));
    // The reconciler put its own Ready condition back.
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->conditionReason(u"web"_s, "Ready") != u"ManualOverride"_s, 5000);
    op.stop();
}

void tst_PatchLab::statusKeptWithoutReconciler()
{
    createApp(u"web"_s);
    m_lab->setReactionTimeout(300);
    const auto *e
        = runToEnd(request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride));
    QVERIFY(e);
    QCOMPARE(e->reaction.outcome, lab::Reaction::Outcome::Kept);
    QVERIFY(e->reaction.afterMs >= 250);
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), u"ManualOverride"_s);
}

void tst_PatchLab::copiedKubectlHasSameEffect()
{
    REQUIRE_KUBECTL();
    const QString kubectl = reconscope::tests::testKubectlPath();
    createApp(u"web"_s);
    const auto *e
        = runToEnd(request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride));
    QVERIFY(e);
    QCOMPARE(e->httpCode, 200);
    const json labStatus = e->after["status"];
    const json labSpec = e->after["spec"];
    const qint64 generation = e->comparison.generationAfter;
    const QString command = e->kubectl;
    QVERIFY2(command.startsWith(u"kubectl patch customapps.infrastructure.internal.net web -n "
                                "default --subresource=status --type=merge -p '"_s),
             qPrintable(command));

    // Put the status back, then let kubectl do what the lab did.
    QVERIFY(m_fx->mergePatch(
        customApps, u"web"_s, { { "status", { { "conditions", json::array() } } } }, true));
    QVERIFY(m_fx->get(customApps, u"web"_s)["status"] != labStatus);

    QTemporaryDir home;
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"KUBECONFIG"_s, m_fx->server()->kubeconfigPath());
    env.insert(u"HOME"_s, home.path());
    process.setProcessEnvironment(env);
    process.start(u"/bin/sh"_s, { u"-c"_s, command });
    QVERIFY(process.waitForStarted(10000));
    // The server answers on this thread: wait without blocking it.
    QTRY_VERIFY_WITH_TIMEOUT(process.state() == QProcess::NotRunning, 45000);
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(process.exitCode() == 0, qPrintable(err));
    QCOMPARE(out.trimmed(), u"customapp.infrastructure.internal.net/web patched"_s);

    const json after = m_fx->get(customApps, u"web"_s);
    QCOMPARE_JSON(after["status"], labStatus);
    QCOMPARE_JSON(after["spec"], labSpec);
    QCOMPARE_JSON(after["metadata"]["generation"], generation);
}

void tst_PatchLab::historyExport()
{
    createApp(u"web"_s);
    QVERIFY(
        runToEnd(request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride)));
    auto stale = request(u"web"_s, lab::PatchTarget::Main, lab::PatchTemplate::BumpSpecField);
    stale.precondition = lab::Precondition::Stale;
    QVERIFY(runToEnd(stale));
    QCOMPARE(m_lab->history().size(), 2);
    const json exported = json::parse(m_lab->exportHistory().toStdString(), nullptr, false);
    QVERIFY(exported.is_object());
    const json &list = exported["experiments"];
    QCOMPARE(list.size(), std::size_t(2));
    QCOMPARE_JSON(list[0]["target"], "status");
    QCOMPARE_JSON(list[0]["httpCode"], 200);
    QCOMPARE_JSON(list[0]["verdicts"][0], "spec unchanged, generation unchanged, status changed");
    QCOMPARE_JSON(list[0]["request"]["method"], "PATCH");
    QCOMPARE_JSON(list[0]["request"]["contentType"], "application/merge-patch+json");
    QVERIFY(list[0]["kubectl"].get<std::string>().rfind("kubectl patch ", 0) == 0);
    QCOMPARE_JSON(list[1]["httpCode"], 409);
    QCOMPARE_JSON(list[1]["status"]["reason"], "Conflict");
    QCOMPARE_JSON(list[1]["precondition"], "stale resourceVersion");
    m_lab->clearHistory();
    QVERIFY(m_lab->history().isEmpty());
}

void tst_PatchLab::clientSwitchEndsExperiment()
{
    createApp(u"web"_s);
    QSignalSpy finished(m_lab.get(), &lab::PatchLab::experimentFinished);
    const int id = m_lab->run(
        request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ManualOverride));
    QVERIFY(id > 0);
    QVERIFY(m_lab->isBusy());
    QCOMPARE(
        m_lab->run(request(u"web"_s, lab::PatchTarget::Main, lab::PatchTemplate::BumpSpecField)),
        0); // one at a time
    // The console reconnects (a new client) before the answer came.
    auto other = std::make_unique<kube::RestClient>(m_fx->clientConfig());
    m_lab->setClient(other.get());
    m_client.reset();
    QCOMPARE(finished.count(), 1);
    QVERIFY(!m_lab->isBusy());
    const auto *e = m_lab->experiment(id);
    QVERIFY(e && e->error);
    QCOMPARE(e->error->category, apimachinery::ApiError::Category::Cancelled);
    // The lab goes on with the new client.
    QVERIFY(
        runToEnd(request(u"web"_s, lab::PatchTarget::Status, lab::PatchTemplate::ClearConditions)));
    QCOMPARE(m_lab->history().last().httpCode, 200);
    m_lab.reset(); // before the client it uses
}

QTEST_GUILESS_MAIN(tst_PatchLab)
#include "tst_patchlab.moc"
