// The CustomApp reconciler end to end, as `reconscope reconcile` runs against a cluster, on both
// servers: Ready through the Deployment's real status (the real server's controllers and kwok, or
// the embedded workload simulator), Degraded/QuotaExceeded through a ResourceQuota,
// ImagePullBackOff, terminal InvalidSpec with no further writes, drift restored, deletion through
// the finalizer, and leader election between two processes through a Lease. The test asserts on
// what the reconciler sees and writes, read back through the API.
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::tests::e2e::E2eServer;
using reconscope::tests::e2e::Role;

namespace {

constexpr int WaitMs = 60000;

json customApp(const QString &name, const QString &image, int replicas, const QString &config = {})
{
    json app = reconscope::tests::e2e::customAppManifest(name, image, replicas);
    if (!config.isNull())
        app["spec"]["configJSON"] = config.toStdString();
    return app;
}

// A condition of an object's status, or null.
json conditionOf(const json &object, const char *type)
{
    if (!object.contains("status") || !object["status"].contains("conditions"))
        return nullptr;
    for (const json &c : object["status"]["conditions"]) {
        if (c.value("type", "") == type)
            return c;
    }
    return nullptr;
}

bool conditionIs(const json &object, const char *type, const char *status, const char *reason)
{
    const json c = conditionOf(object, type);
    return c.is_object() && c.value("status", "") == status
        && (!reason || c.value("reason", "") == reason);
}

// `reconscope reconcile` against the server, in one namespace.
class ReconcilerProcess
{
public:
    ReconcilerProcess(const E2eServer &server, const QString &ns, const QStringList &extra)
    {
        m_process.setProcessEnvironment(server.environment());
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(qEnvironmentVariable("RECONSCOPE_EXECUTABLE"),
                        QStringList{ u"reconcile"_s,
                                     u"--kubeconfig"_s,
                                     server.kubeconfigPath(),
                                     u"--context"_s,
                                     server.context(Role::Admin),
                                     u"-n"_s,
                                     ns }
                            + extra);
    }
    ~ReconcilerProcess() { stop(); }
    bool started() { return m_process.waitForStarted(10000); }
    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(15000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    QString output()
    {
        m_output += QString::fromUtf8(m_process.readAll());
        return m_output;
    }

private:
    QProcess m_process;
    QString m_output;
};

} // namespace

class tst_E2eReconciler final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void cleanupTestCase();

    void readyThroughTheDeployment();
    void quotaExceededIsDegraded();
    void imagePullBackOffIsDegraded();
    void invalidSpecIsTerminal();
    void driftIsRestored();
    void deletionRunsTheFinalizer();
    void leaderElectionHandsOver();

private:
    QString appPath(const QString &name = {}) const
    {
        return u"/apis/infrastructure.internal.net/v1/namespaces/%1/customapps%2"_s.arg(
            m_ns, name.isEmpty() ? QString() : u'/' + name);
    }
    QString deploymentPath(const QString &name) const
    {
        return u"/apis/apps/v1/namespaces/%1/deployments/%2"_s.arg(m_ns, name);
    }
    // Waits until the CustomApp NAME has condition TYPE=STATUS (with REASON unless null); the
    // object as last read.
    json
    waitForCondition(const QString &name, const char *type, const char *status, const char *reason)
    {
        return waitFor(appPath(name),
                       [=](const json &a) { return conditionIs(a, type, status, reason); });
    }
    // Polls GET path until `accept` holds; the last object read (null if it never answered).
    json waitFor(const QString &path,
                 const std::function<bool(const json &)> &accept,
                 int timeoutMs = WaitMs);
    void startReconciler(const QStringList &extra = { u"--leader-elect=false"_s });

    std::unique_ptr<E2eServer> m_server;
    std::unique_ptr<ReconcilerProcess> m_reconciler;
    QString m_ns;
};

void tst_E2eReconciler::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
}

void tst_E2eReconciler::init()
{
    m_ns = m_server->createNamespace(u"e2e-reconcile"_s);
    QVERIFY(!m_ns.isEmpty());
}

void tst_E2eReconciler::cleanup()
{
    if (m_reconciler && QTest::currentTestFailed())
        qWarning("reconciler output:\n%s", qPrintable(m_reconciler->output().right(6000)));
    m_reconciler.reset();
}

void tst_E2eReconciler::cleanupTestCase()
{
    m_server.reset();
}

void tst_E2eReconciler::startReconciler(const QStringList &extra)
{
    m_reconciler = std::make_unique<ReconcilerProcess>(*m_server, m_ns, extra);
    QVERIFY(m_reconciler->started());
}

json tst_E2eReconciler::waitFor(const QString &path,
                                const std::function<bool(const json &)> &accept,
                                int timeoutMs)
{
    json last;
    (void)QTest::qWaitFor(
        [&] {
            const auto got = m_server->getJson(path);
            if (!got)
                return false;
            last = *got;
            if (accept(last))
                return true;
            QTest::qWait(200);
            return false;
        },
        timeoutMs);
    return last;
}

void tst_E2eReconciler::readyThroughTheDeployment()
{
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"web"_s, u"registry.example.com/web:1.0"_s, 2)));
    const json app = waitForCondition(u"web"_s, "Ready", "True", "Synchronized");
    QVERIFY2(conditionIs(app, "Ready", "True", "Synchronized"), app.dump().c_str());
    QVERIFY(conditionIs(app, "Degraded", "False", nullptr));
    QCOMPARE(app["status"].value("readyReplicas", -1), 2);
    QCOMPARE(app["status"].value("observedGeneration", -1),
             app["metadata"]["generation"].get<int>());
    // What the reconciler read it from: the Deployment's own status.
    const auto deployment = m_server->getJson(deploymentPath(u"web"_s));
    QVERIFY(deployment);
    QCOMPARE((*deployment)["status"].value("availableReplicas", -1), 2);
    QVERIFY(conditionIs(*deployment, "Available", "True", nullptr));
    QCOMPARE((*deployment)["metadata"]["ownerReferences"][0]["name"].get<std::string>(), "web");
}

void tst_E2eReconciler::quotaExceededIsDegraded()
{
    QVERIFY(m_server->sendJson("POST",
                               u"/api/v1/namespaces/%1/resourcequotas"_s.arg(m_ns),
                               { { "apiVersion", "v1" },
                                 { "kind", "ResourceQuota" },
                                 { "metadata", { { "name", "pods" } } },
                                 { "spec", { { "hard", { { "pods", "1" } } } } } }));
    // The quota controller has counted the namespace before the ReplicaSet asks for pods.
    const json quota
        = waitFor(u"/api/v1/namespaces/%1/resourcequotas/pods"_s.arg(m_ns), [](const json &q) {
              return q.contains("status") && q["status"].contains("used");
          });
    QVERIFY2(quota.contains("status"), quota.dump().c_str());
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"ingest"_s, u"registry.example.com/ingest:1.0"_s, 3)));
    const json app = waitForCondition(u"ingest"_s, "Degraded", "True", "QuotaExceeded");
    QVERIFY2(conditionIs(app, "Degraded", "True", "QuotaExceeded"), app.dump().c_str());
    QVERIFY(conditionIs(app, "Ready", "False", "QuotaExceeded"));
    // The cause as the Deployment reports it.
    const auto deployment = m_server->getJson(deploymentPath(u"ingest"_s));
    QVERIFY(deployment);
    const json failure = conditionOf(*deployment, "ReplicaFailure");
    QVERIFY2(failure.is_object(), deployment->dump().c_str());
    QCOMPARE(failure.value("reason", ""), "FailedCreate");
    QVERIFY2(failure.value("message", "").find("exceeded quota") != std::string::npos,
             failure.dump().c_str());
}

void tst_E2eReconciler::imagePullBackOffIsDegraded()
{
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"worker"_s, u"registry.example.com/worker:missing"_s, 1)));
    const json app = waitForCondition(u"worker"_s, "Degraded", "True", "ImagePullBackOff");
    QVERIFY2(conditionIs(app, "Degraded", "True", "ImagePullBackOff"), app.dump().c_str());
    // Fixed image: Ready again.
    QVERIFY(m_server->sendJson("PATCH",
                               appPath(u"worker"_s),
                               { { "spec", { { "image", "registry.example.com/worker:1.1" } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    const json fixed = waitForCondition(u"worker"_s, "Ready", "True", "Synchronized");
    QVERIFY2(conditionIs(fixed, "Ready", "True", "Synchronized"), fixed.dump().c_str());
}

void tst_E2eReconciler::invalidSpecIsTerminal()
{
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST",
        appPath(),
        customApp(u"broken"_s, u"registry.example.com/app:1.0"_s, 1, u"{not json"_s)));
    const json app = waitForCondition(u"broken"_s, "Stalled", "True", "InvalidSpec");
    QVERIFY2(conditionIs(app, "Stalled", "True", "InvalidSpec"), app.dump().c_str());
    QVERIFY(conditionIs(app, "Ready", "False", "InvalidSpec"));
    // Terminal: no retry, so nothing more is written to it.
    const std::string settled = app["metadata"]["resourceVersion"];
    QTest::qWait(5000);
    const auto later = m_server->getJson(appPath(u"broken"_s));
    QVERIFY(later);
    QCOMPARE((*later)["metadata"]["resourceVersion"].get<std::string>(), settled);
    QVERIFY(!m_server->getJson(deploymentPath(u"broken"_s)));
}

void tst_E2eReconciler::driftIsRestored()
{
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"api"_s, u"registry.example.com/api:1.0"_s, 2)));
    QVERIFY(conditionIs(waitForCondition(u"api"_s, "Ready", "True", "Synchronized"),
                        "Ready",
                        "True",
                        "Synchronized"));
    // Someone scales the owned Deployment by hand.
    QVERIFY(m_server->sendJson("PATCH",
                               deploymentPath(u"api"_s),
                               { { "spec", { { "replicas", 5 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    const json deployment = waitFor(deploymentPath(u"api"_s), [](const json &d) {
        return d["spec"].value("replicas", -1) == 2 && d["metadata"].value("generation", 0) >= 3;
    });
    QCOMPARE(deployment["spec"].value("replicas", -1), 2);
    // The reconciler said why it wrote: an Event on the CustomApp.
    const json events = waitFor(u"/api/v1/namespaces/%1/events"_s.arg(m_ns), [](const json &list) {
        for (const json &e : list["items"]) {
            if (e.value("reason", "") == "DriftDetected")
                return true;
        }
        return false;
    });
    bool drift = false;
    for (const json &e : events["items"])
        drift = drift
            || (e.value("reason", "") == "DriftDetected"
                && e["involvedObject"].value("name", "") == "api");
    QVERIFY2(drift, events.dump().c_str());
    QVERIFY(conditionIs(waitForCondition(u"api"_s, "Ready", "True", "Synchronized"),
                        "Ready",
                        "True",
                        "Synchronized"));
}

void tst_E2eReconciler::deletionRunsTheFinalizer()
{
    startReconciler();
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"gone"_s, u"registry.example.com/gone:1.0"_s, 1)));
    const json app = waitFor(appPath(u"gone"_s), [](const json &a) {
        return a["metadata"].contains("finalizers") && conditionIs(a, "Ready", "True", nullptr);
    });
    QVERIFY2(app["metadata"].contains("finalizers"), app.dump().c_str());
    QVERIFY(m_server->sendJson("DELETE", appPath(u"gone"_s), json::object()));
    QVERIFY(QTest::qWaitFor([&] { return !m_server->getJson(appPath(u"gone"_s)); }, WaitMs));
    // The owned Deployment goes with it (the garbage collector, through its ownerReference).
    QVERIFY(QTest::qWaitFor([&] { return !m_server->getJson(deploymentPath(u"gone"_s)); }, WaitMs));
}

void tst_E2eReconciler::leaderElectionHandsOver()
{
    ReconcilerProcess first(*m_server, m_ns, { u"--identity"_s, u"first"_s });
    QVERIFY(first.started());
    const QString leases = u"/apis/coordination.k8s.io/v1/namespaces/%1/leases"_s.arg(m_ns);
    auto holder = [&] {
        const auto list = m_server->getJson(leases);
        if (!list || list->at("items").empty())
            return std::string();
        return list->at("items")[0]["spec"].value("holderIdentity", "");
    };
    QTRY_COMPARE_WITH_TIMEOUT(holder(), std::string("first"), WaitMs);
    ReconcilerProcess second(*m_server, m_ns, { u"--identity"_s, u"second"_s });
    QVERIFY(second.started());
    // The second waits while the first renews.
    QTest::qWait(4000);
    QCOMPARE(holder(), std::string("first"));
    // Only the leader reconciles.
    QVERIFY(m_server->sendJson(
        "POST", appPath(), customApp(u"led"_s, u"registry.example.com/led:1.0"_s, 1)));
    QVERIFY(conditionIs(
        waitForCondition(u"led"_s, "Ready", "True", nullptr), "Ready", "True", nullptr));
    // The leader stops and releases the Lease; the other takes it and carries on.
    first.stop();
    QTRY_COMPARE_WITH_TIMEOUT(holder(), std::string("second"), WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(second.output().contains(u"reconciling (this instance holds"_s),
                             WaitMs);
    QVERIFY(m_server->sendJson("PATCH",
                               appPath(u"led"_s),
                               { { "spec", { { "replicas", 2 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    const json scaled = waitFor(deploymentPath(u"led"_s),
                                [](const json &d) { return d["spec"].value("replicas", -1) == 2; });
    QCOMPARE(scaled["spec"].value("replicas", -1), 2);
}

QTEST_GUILESS_MAIN(tst_E2eReconciler)
#include "tst_e2ereconciler.moc"
