// The CustomApp reconciler against the embedded cluster over HTTPS (mTLS, the kubeconfig the
// server writes), with the workload simulator playing Deployment controller and kubelet. The
// controller loop runs on a FakeClock: zero-delay work is pumped, time only jumps where a test
// says so (backoff, "simulated minutes").
#include "controller/operator/customappoperator.h"
#include "controller/operator/eventrecorder.h"
#include "operatortestutil.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace optest;
using namespace std::chrono_literals;
namespace operators = reconscope::controller::operators;
namespace reconcile = reconscope::controller::reconcile;

class tst_CustomAppReconciler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void specProblem_data();
    void specProblem();
    void drift_data();
    void drift();
    void desiredDeploymentOwnership();

    void createThenScale();
    void badConfigJsonIsTerminalThenFixed();
    void missingSecretResumesWhenSecretAppears();
    void quotaExceededBacksOffThenRecovers();
    void unpullableImageThenFixed();
    void driftIsRestored();
    void deleteRunsTheFinalizer();
    void userStatusPatchOverwrittenWithoutHotLoop();
    void idleConvergedClusterGetsNoWrites();
    void lastTransitionTimeOnlyOnStatusChange();
    void concurrentSpecWriter();
    void pausedIsLeftAlone();
    void dryRunSendsNothing();
    void eventsFoldRepeats();
    void eventCacheIsBoundedAndExpiredEventsReturn();
    void transientServerErrorsAreRetried();

private:
    void startOperator(bool dryRun = false);
    bool idle()
    {
        if (m_op->loop().inFlight() > 0)
            return false;
        for (const auto &e : m_op->loop().queueSnapshot()) {
            if (e.state != reconcile::QueueEntry::State::Waiting)
                return false;
        }
        return true;
    }
    // Idle, and the last pass of key (the one its own last write triggered) wrote nothing.
    bool settled(const QString &key)
    {
        if (!idle())
            return false;
        const auto last = m_op->loop().lastRecord(key);
        return last && last->result != reconcile::ReconcileRecord::Result::InProgress
            && last->writes.isEmpty();
    }
    // Runs one more reconcile of key and waits for it; returns its record.
    reconcile::ReconcileRecord reconcileOnce(const QString &key)
    {
        const auto before = m_op->loop().history(key).size();
        m_op->loop().enqueue(key, u"test"_s);
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 30000) {
            const auto history = m_op->loop().history(key);
            if (history.size() > before
                && history.last().result != reconcile::ReconcileRecord::Result::InProgress)
                return history.last();
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
        }
        return {};
    }
    QString dumpHistory(const QString &key)
    {
        QStringList lines;
        for (const auto &r : m_op->loop().history(key))
            lines << u"#%1 %2 err=%3 triggers=[%4] writes=[%5]"_s.arg(
                QString::number(r.id),
                reconcile::resultName(r.result),
                r.error,
                r.triggers.join(u" | "_s),
                r.writes.join(u" | "_s).left(300));
        qInfo().noquote() << lines.join(u'\n');
        return u"see the history above"_s;
    }
    void converge(const QString &name, const json &spec)
    {
        QVERIFY(m_fx->create(customApps, ClusterFixture::customApp(name, spec)));
        QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(name), u"Ready"_s, 30000);
        QTRY_VERIFY(settled(u"default/"_s + name));
    }

    std::unique_ptr<ClusterFixture> m_fx;
    std::unique_ptr<reconcile::FakeClock> m_clock;
    std::unique_ptr<operators::CustomAppOperator> m_op;
    QTimer m_pump;
    bool m_autoAdvance = false;
};

void tst_CustomAppReconciler::init()
{
    m_fx = std::make_unique<ClusterFixture>(30);
    const QString error = m_fx->start();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_clock = std::make_unique<reconcile::FakeClock>();
    m_autoAdvance = false;
    m_pump.setInterval(1);
    connect(&m_pump, &QTimer::timeout, this, [this] {
        m_clock->step(reconcile::Duration::zero());
        if (m_autoAdvance && m_op && m_op->loop().inFlight() == 0 && idle())
            m_clock->stepToNextTimer();
    });
    m_pump.start();
}

void tst_CustomAppReconciler::startOperator(bool dryRun)
{
    operators::CustomAppOperator::Options options;
    options.reconciler.namespace_ = u"default"_s;
    options.reconciler.dryRun = dryRun;
    m_op = std::make_unique<operators::CustomAppOperator>(m_fx->clientConfig(), *m_clock, options);
    QSignalSpy synced(&m_op->reconciler(), &operators::CustomAppReconciler::cachesSynced);
    m_op->start();
    QVERIFY(synced.wait(30000));
}

void tst_CustomAppReconciler::cleanup()
{
    m_pump.stop();
    disconnect(&m_pump, nullptr, this, nullptr);
    m_op.reset();
    m_clock.reset();
    m_fx.reset();
}

// ---- pure parts ----

void tst_CustomAppReconciler::specProblem_data()
{
    QTest::addColumn<QByteArray>("spec");
    QTest::addColumn<QString>("problem"); // a fragment, empty for valid
    QTest::newRow("valid") << QByteArray(
        R"({"image":"nginx:1","replicas":2,"configJSON":"{\"a\":1}"})")
                           << QString();
    QTest::newRow("no image") << QByteArray(R"({"replicas":2})") << u"spec.image"_s;
    QTest::newRow("bad json") << QByteArray(R"({"image":"x","configJSON":"{bad"})")
                              << u"configJSON"_s;
    QTest::newRow("too many") << QByteArray(R"({"image":"x","replicas":101})") << u"out of range"_s;
    QTest::newRow("negative") << QByteArray(R"({"image":"x","replicas":-1})") << u"out of range"_s;
    QTest::newRow("missing secret")
        << QByteArray(R"({"image":"x","secretRef":{"name":"nope"}})") << u"not found"_s;
    QTest::newRow("present secret")
        << QByteArray(R"({"image":"x","secretRef":{"name":"creds"}})") << QString();
}

void tst_CustomAppReconciler::specProblem()
{
    QFETCH(QByteArray, spec);
    QFETCH(QString, problem);
    const json app = { { "spec", json::parse(spec.toStdString()) } };
    const QString got = operators::CustomAppReconciler::specProblem(
        app, [](const QString &name) { return name == u"creds"; });
    if (problem.isEmpty())
        QCOMPARE(got, QString());
    else
        QVERIFY2(got.contains(problem), qPrintable(got));
}

void tst_CustomAppReconciler::drift_data()
{
    QTest::addColumn<QByteArray>("patch"); // a merge patch applied to the desired Deployment
    QTest::addColumn<bool>("drift");
    QTest::newRow("same") << QByteArray("{}") << false;
    QTest::newRow("server defaults") // fields the API server adds are not drift
        << QByteArray(
               R"({"spec":{"progressDeadlineSeconds":600,"template":{"spec":{"restartPolicy":"Always"}}}})")
        << false;
    QTest::newRow("scaled") << QByteArray(R"({"spec":{"replicas":9}})") << true;
    QTest::newRow("label") << QByteArray(
        R"({"spec":{"template":{"metadata":{"labels":{"app.kubernetes.io/instance":"x"}}}}})")
                           << true;
}

void tst_CustomAppReconciler::drift()
{
    QFETCH(QByteArray, patch);
    QFETCH(bool, drift);
    const json app = ClusterFixture::customApp(
        u"web"_s, { { "image", "nginx:1" }, { "replicas", 2 }, { "port", 8080 } });
    const json desired = operators::CustomAppReconciler::desiredDeployment(app);
    json actual = desired;
    actual.merge_patch(json::parse(patch.toStdString()));
    actual["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = "TCP";
    const QString got = operators::CustomAppReconciler::deploymentDrift(actual, desired);
    QCOMPARE(!got.isEmpty(), drift);
}

void tst_CustomAppReconciler::desiredDeploymentOwnership()
{
    json app = ClusterFixture::customApp(u"web"_s, { { "image", "nginx:1" } });
    app["metadata"]["uid"] = "u-1";
    const json d = operators::CustomAppReconciler::desiredDeployment(app);
    const json &ref = d["metadata"]["ownerReferences"][0];
    QCOMPARE_JSON(ref["uid"], json("u-1"));
    QCOMPARE_JSON(ref["kind"], json("CustomApp"));
    QCOMPARE_JSON(ref["controller"], json(true));
    QCOMPARE_JSON(ref["blockOwnerDeletion"], json(true));
    QCOMPARE_JSON(d["spec"]["replicas"], json(1)); // the CRD's default when absent
    QCOMPARE_JSON(d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/instance"],
                  json("web"));
}

// ---- against the embedded cluster ----

void tst_CustomAppReconciler::createThenScale()
{
    startOperator();
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(
            u"web"_s,
            { { "image", "nginx:1.27" }, { "replicas", 3 }, { "configJSON", "{\"a\":1}" } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"web"_s), u"Ready"_s, 30000);
    QVERIFY2(
        containsInOrder(m_fx->states(u"web"_s), { u"Pending"_s, u"Reconciling"_s, u"Ready"_s }),
        qPrintable(m_fx->states(u"web"_s).join(u',')));
    const json app = m_fx->get(customApps, u"web"_s);
    QVERIFY(app["metadata"]["finalizers"].dump().find("infrastructure.internal.net/finalizer")
            != std::string::npos);
    QCOMPARE_JSON(app["status"]["observedGeneration"], json(1));
    QCOMPARE_JSON(app["status"]["readyReplicas"], json(3));
    QCOMPARE(m_fx->conditionReason(u"web"_s, "Ready"), u"Synchronized"_s);
    QCOMPARE_JSON(m_fx->condition(u"web"_s, "Ready")["observedGeneration"], json(1));
    QVERIFY(m_fx->condition(u"web"_s, "Reconciling").is_null()); // only while True
    QVERIFY(m_fx->condition(u"web"_s, "Stalled").is_null());
    const json deployment = m_fx->get(deployments, u"web"_s);
    QCOMPARE_JSON(deployment["spec"]["replicas"], json(3));
    QCOMPARE_JSON(deployment["metadata"]["ownerReferences"][0]["uid"], app["metadata"]["uid"]);
    QCOMPARE_JSON(deployment["metadata"]["ownerReferences"][0]["controller"], json(true));
    QCOMPARE_JSON(deployment["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], json(true));
    QTRY_VERIFY(m_fx->eventReasons(u"web"_s).contains(u"Created"_s));
    QTRY_VERIFY(m_fx->eventReasons(u"web"_s).contains(u"Synchronized"_s));

    // Scale: stale observedGeneration first, a Progressing count, then Ready again.
    m_fx->clearObserved();
    QVERIFY(m_fx->mergePatch(customApps, u"web"_s, { { "spec", { { "replicas", 5 } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->state(u"web"_s) == u"Ready"_s
                                 && m_fx->get(customApps, u"web"_s)["status"]["readyReplicas"]
                                     == json(5),
                             30000);
    QVERIFY2(containsInOrder(m_fx->states(u"web"_s), { u"Reconciling"_s, u"Ready"_s }),
             qPrintable(m_fx->states(u"web"_s).join(u',')));
    QVERIFY(m_fx->observed().front().reason.contains(u"stale"_s));
    bool sawCount = false;
    for (const auto &o : m_fx->observed()) {
        for (const auto &c : conditionsOf(o.object))
            sawCount = sawCount
                || (c["type"] == "Reconciling" && c["reason"] == "Progressing"
                    && c["message"].get<std::string>().find("/5 replicas ready")
                        != std::string::npos);
    }
    QVERIFY(sawCount);
    QCOMPARE_JSON(m_fx->get(deployments, u"web"_s)["spec"]["replicas"], json(5));
    QCOMPARE_JSON(m_fx->get(customApps, u"web"_s)["status"]["observedGeneration"], json(2));

    // The scale's end-to-end latency, beside controller-runtime's metrics (the creation was the
    // object's first version: nothing to measure from).
    const QString controller = m_op->loop().options().name;
    for (const QString &stage : { u"observed"_s, u"settled"_s }) {
        QTRY_COMPARE(m_op->loop()
                         .metrics()
                         .histogram(QString::fromLatin1(reconcile::ControllerLoop::EndToEndLatency),
                                    { { u"controller"_s, controller }, { u"stage"_s, stage } })
                         .count,
                     quint64(1));
    }
    const QString text = QString::fromUtf8(m_op->loop().metricsText());
    QVERIFY(text.contains(u"reconscope_reconcile_end_to_end_seconds_count{controller=\"%1\","
                          "stage=\"settled\"} 1"_s.arg(controller)));
    QVERIFY(text.contains(u"controller_runtime_reconcile_time_seconds_count"_s));
}

void tst_CustomAppReconciler::badConfigJsonIsTerminalThenFixed()
{
    startOperator();
    QVERIFY(
        m_fx->create(customApps,
                     ClusterFixture::customApp(
                         u"cfg"_s, { { "image", "nginx:1.27" }, { "configJSON", "{not json" } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"cfg"_s), u"Degraded"_s, 30000);
    QTRY_VERIFY(settled(u"default/cfg"_s));
    QCOMPARE(m_fx->conditionReason(u"cfg"_s, "Degraded"), u"InvalidSpec"_s);
    QCOMPARE(m_fx->conditionReason(u"cfg"_s, "Stalled"), u"InvalidSpec"_s);
    QCOMPARE_JSON(m_fx->condition(u"cfg"_s, "Ready")["status"], json("False"));
    QVERIFY(m_fx->get(deployments, u"cfg"_s).is_null());
    const auto last = m_op->loop().lastRecord(u"default/cfg"_s);
    QVERIFY(last);
    QCOMPARE(last->result, reconcile::ReconcileRecord::Result::TerminalError);

    // Ten simulated minutes: no retry, no request.
    const qint64 requests = m_op->reconciler().requestCount();
    const auto runs = m_op->loop().history(u"default/cfg"_s).size();
    for (int minute = 0; minute < 10; ++minute) {
        m_clock->step(60s);
        QCoreApplication::processEvents();
    }
    QCOMPARE(m_clock->pendingTimers(), 0);
    const auto queued = m_op->loop().queueSnapshot();
    QVERIFY2(queued.isEmpty(),
             queued.isEmpty() ? ""
                              : qPrintable(queued.constFirst().key + u" queued; "_s
                                           + dumpHistory(u"default/cfg"_s)));
    QCOMPARE(m_op->reconciler().requestCount(), requests);
    QCOMPARE(m_op->loop().history(u"default/cfg"_s).size(), runs);

    // A new generation resumes it.
    QVERIFY(m_fx->mergePatch(
        customApps, u"cfg"_s, { { "spec", { { "configJSON", "{\"ok\":true}" } } } }));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"cfg"_s), u"Ready"_s, 30000);
    QVERIFY(m_fx->condition(u"cfg"_s, "Stalled").is_null());
    QCOMPARE_JSON(m_fx->condition(u"cfg"_s, "Degraded")["status"], json("False"));
}

void tst_CustomAppReconciler::missingSecretResumesWhenSecretAppears()
{
    startOperator();
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(
            u"sec"_s, { { "image", "nginx:1.27" }, { "secretRef", { { "name", "creds" } } } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"sec"_s), u"Degraded"_s, 30000);
    QTRY_VERIFY(settled(u"default/sec"_s));
    QCOMPARE(m_fx->conditionReason(u"sec"_s, "Stalled"), u"InvalidSpec"_s);
    const json before = m_fx->get(customApps, u"sec"_s);
    QVERIFY(m_fx->create(secrets,
                         { { "apiVersion", "v1" },
                           { "kind", "Secret" },
                           { "metadata", { { "name", "creds" }, { "namespace", "default" } } },
                           { "stringData", { { "password", "x" } } } }));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"sec"_s), u"Ready"_s, 30000);
    const json after = m_fx->get(customApps, u"sec"_s);
    QCOMPARE_JSON(after["spec"], before["spec"]);
    QCOMPARE_JSON(after["metadata"]["generation"], before["metadata"]["generation"]);
    const auto history = m_op->loop().history(u"default/sec"_s);
    bool bySecret = false;
    for (const auto &r : history)
        bySecret = bySecret || r.triggers.join(u' ').contains(u"Secret default/creds"_s);
    QVERIFY(bySecret);
}

void tst_CustomAppReconciler::quotaExceededBacksOffThenRecovers()
{
    startOperator();
    QVERIFY(m_fx->create(quotas,
                         { { "apiVersion", "v1" },
                           { "kind", "ResourceQuota" },
                           { "metadata", { { "name", "pods" }, { "namespace", "default" } } },
                           { "spec", { { "hard", { { "pods", "1" } } } } } }));
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"q"_s, { { "image", "nginx:1.27" }, { "replicas", 3 } })));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->conditionReason(u"q"_s, "Degraded"), u"QuotaExceeded"_s, 30000);
    QCOMPARE(m_fx->state(u"q"_s), u"Degraded"_s);
    QVERIFY(m_fx->condition(u"q"_s, "Degraded")["message"].get<std::string>().find("exceeded quota")
            != std::string::npos);

    // Let the injected clock jump to each retry: the delays double from 5 ms.
    m_autoAdvance = true;
    QTRY_VERIFY_WITH_TIMEOUT(m_op->loop().history(u"default/q"_s).size() >= 14, 60000);
    m_autoAdvance = false;
    const auto history = m_op->loop().history(u"default/q"_s);
    QList<reconcile::Duration> delays;
    for (const auto &r : history) {
        if (r.result != reconcile::ReconcileRecord::Result::Error)
            continue;
        // client-go's ItemExponentialFailureRateLimiter: 5ms * 2^n. (n is the key's failure
        // count when the limiter is asked; a watch event that requeues the key meanwhile can
        // shift it against failuresBefore, so the power of two is checked, not the exponent.)
        const auto steps = r.retryDelay / reconcile::Duration(5ms);
        const bool capped = r.retryDelay == reconcile::Duration(1000s); // the limiter's cap
        QVERIFY2(capped
                     || (r.retryDelay % reconcile::Duration(5ms) == reconcile::Duration::zero()
                         && steps > 0 && (steps & (steps - 1)) == 0),
                 qPrintable(dumpHistory(u"default/q"_s)));
        QVERIFY(r.nextRetryAt);
        delays << r.retryDelay;
    }
    QVERIFY(delays.size() >= 8);
    // The delays double from one failure to the next, never shrinking while the error lasts.
    for (qsizetype i = 1; i < delays.size(); ++i)
        QVERIFY2(delays.at(i) >= delays.at(i - 1), qPrintable(dumpHistory(u"default/q"_s)));
    QVERIFY(delays.last() >= reconcile::Duration(5ms) * 128);
    // The retries did not rewrite an unchanged status.
    const qint64 statusWrites = std::count_if(history.begin(), history.end(), [](const auto &r) {
        return r.writes.join(u' ').contains(u"/status"_s);
    });
    QVERIFY2(statusWrites <= 3, statusWrites <= 3 ? "" : qPrintable(dumpHistory(u"default/q"_s)));

    QVERIFY(
        m_fx->mergePatch(quotas, u"pods"_s, { { "spec", { { "hard", { { "pods", "10" } } } } } }));
    m_autoAdvance = true; // the next retry (or the Deployment's change) finds it healthy
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"q"_s), u"Ready"_s, 30000);
    QCOMPARE_JSON(m_fx->condition(u"q"_s, "Degraded")["status"], json("False"));
}

void tst_CustomAppReconciler::unpullableImageThenFixed()
{
    startOperator();
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"img"_s, { { "image", "nginx:missing" }, { "replicas", 2 } })));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_fx->conditionReason(u"img"_s, "Degraded"), u"ImagePullBackOff"_s, 30000);
    QCOMPARE(m_fx->state(u"img"_s), u"Degraded"_s);
    QCOMPARE(m_fx->conditionReason(u"img"_s, "Ready"), u"ImagePullBackOff"_s);
    QVERIFY(m_fx->mergePatch(customApps, u"img"_s, { { "spec", { { "image", "nginx:1.27" } } } }));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"img"_s), u"Ready"_s, 30000);
    QCOMPARE_JSON(
        m_fx->get(deployments, u"img"_s)["spec"]["template"]["spec"]["containers"][0]["image"],
        json("nginx:1.27"));
    QTRY_VERIFY(m_fx->eventReasons(u"img"_s).contains(u"ImagePullBackOff"_s));
}

void tst_CustomAppReconciler::driftIsRestored()
{
    startOperator();
    converge(u"dr"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } });
    m_fx->clearObserved();
    m_autoAdvance = true; // a 409 on the Deployment update (the simulator writes too) retries
    QVERIFY(m_fx->mergePatch(deployments, u"dr"_s, { { "spec", { { "replicas", 6 } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->get(deployments, u"dr"_s)["spec"]["replicas"] == json(2)
                                 && m_fx->state(u"dr"_s) == u"Ready"_s,
                             30000);
    bool sawDrift = false;
    for (const auto &o : m_fx->observed()) {
        for (const auto &c : conditionsOf(o.object))
            sawDrift = sawDrift
                || (c["type"] == "Reconciling" && c["status"] == "True"
                    && c["reason"] == "DriftDetected");
    }
    // The DriftDetected status can be overtaken by the restore (a 409 retry re-reads a Deployment
    // already put back); the Event recorded at detection is the other witness.
    QTRY_VERIFY2(sawDrift || m_fx->eventReasons(u"dr"_s).contains(u"DriftDetected"_s),
                 qPrintable(dumpHistory(u"default/dr"_s)));
    // The restore of the Deployment can land before the DriftDetected status is written: the
    // object is then briefly still Ready from before, so the way back to Ready is waited for.
    QTRY_VERIFY2_WITH_TIMEOUT(
        containsInOrder(m_fx->states(u"dr"_s), { u"Reconciling"_s, u"Ready"_s }),
        qPrintable(m_fx->states(u"dr"_s).join(u',')),
        30000);
    QTRY_VERIFY(m_fx->eventReasons(u"dr"_s).contains(u"DriftDetected"_s));
}

void tst_CustomAppReconciler::deleteRunsTheFinalizer()
{
    startOperator();
    converge(u"del"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } });
    m_fx->clearObserved();
    QVERIFY(m_fx->remove(customApps, u"del"_s));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"del"_s), u"Gone"_s, 30000);
    QVERIFY(m_fx->get(deployments, u"del"_s).is_null());
    QVERIFY2(containsInOrder(m_fx->states(u"del"_s), { u"Terminating"_s, u"Gone"_s }),
             qPrintable(m_fx->states(u"del"_s).join(u',')));
    // The Deployment went before the finalizer did. (The object is gone as soon as the finalizer
    // PUT commits, which can be before the reconcile that sent it has its answer and its record.)
    QTRY_VERIFY_WITH_TIMEOUT(m_op->loop().lastRecord(u"default/del"_s)
                                 && m_op->loop().lastRecord(u"default/del"_s)->result
                                     != reconcile::ReconcileRecord::Result::InProgress,
                             30000);
    const auto history = m_op->loop().history(u"default/del"_s);
    QStringList writes;
    for (const auto &r : history)
        writes += r.writes;
    const qsizetype deleteAt = writes.indexOf(QRegularExpression(u"^DELETE .*deployments/del.*"_s));
    const qsizetype finalizerAt
        = writes.lastIndexOf(QRegularExpression(u"^PUT .*customapps/del .*finalizers.*"_s));
    QVERIFY2(deleteAt >= 0 && finalizerAt > deleteAt,
             deleteAt >= 0 && finalizerAt > deleteAt ? ""
                                                     : qPrintable(dumpHistory(u"default/del"_s)));
    // Nothing is kept for the gone object (names come and go: per-key state must not pile up).
    QTRY_VERIFY_WITH_TIMEOUT(!m_op->reconciler().hasLastWrites(u"default/del"_s), 30000);
}

void tst_CustomAppReconciler::userStatusPatchOverwrittenWithoutHotLoop()
{
    startOperator();
    converge(u"st"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } });
    json conditions = m_fx->get(customApps, u"st"_s)["status"]["conditions"];
    for (auto &c : conditions) {
        if (c["type"] == "Ready") {
            c["status"] = "False";
            c["reason"] = "ManualEdit";
        }
    }
    const auto runsBefore = m_op->loop().history(u"default/st"_s).size();
    QVERIFY(m_fx->mergePatch(
        customApps, u"st"_s, { { "status", { { "conditions", conditions } } } }, true));
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->conditionReason(u"st"_s, "Ready"), u"Synchronized"_s, 30000);
    QTRY_VERIFY(settled(u"default/st"_s));
    const auto history = m_op->loop().history(u"default/st"_s);
    // One pass rewrote status, the pass its own write triggered wrote nothing, and then it stopped.
    QVERIFY2(history.size() - runsBefore <= 3,
             qPrintable(QString::number(history.size() - runsBefore)));
    QVERIFY2(history.last().writes.isEmpty(),
             history.last().writes.isEmpty() ? "" : qPrintable(dumpHistory(u"default/st"_s)));
    const auto again = reconcileOnce(u"default/st"_s);
    QCOMPARE(again.result, reconcile::ReconcileRecord::Result::Success);
    QVERIFY(again.writes.isEmpty());
}

void tst_CustomAppReconciler::idleConvergedClusterGetsNoWrites()
{
    startOperator();
    converge(u"idle1"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } });
    converge(u"idle2"_s, { { "image", "nginx:1.27" }, { "replicas", 1 }, { "port", 8080 } });
    QTRY_VERIFY(m_fx->eventReasons(u"idle2"_s).contains(u"Synchronized"_s));
    const qint64 writes = m_fx->writes();
    const qint64 reconcilerWrites = m_op->reconciler().writeCount();
    // A simulated minute with resyncs every 10 s: every pass reads, none writes.
    for (int i = 0; i < 6; ++i) {
        m_clock->step(10s);
        QCOMPARE(reconcileOnce(u"default/idle1"_s).writes, QStringList());
        QCOMPARE(reconcileOnce(u"default/idle2"_s).writes, QStringList());
    }
    QCOMPARE(m_op->reconciler().writeCount(), reconcilerWrites);
    QCOMPARE(m_fx->writes(), writes);
}

void tst_CustomAppReconciler::lastTransitionTimeOnlyOnStatusChange()
{
    startOperator();
    converge(u"ltt"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } });
    const json degraded0 = m_fx->condition(u"ltt"_s, "Degraded");
    const json ready0 = m_fx->condition(u"ltt"_s, "Ready");
    m_clock->step(5min);
    QCOMPARE(reconcileOnce(u"default/ltt"_s).writes, QStringList()); // same status: no LTT churn
    QCOMPARE_JSON(m_fx->condition(u"ltt"_s, "Ready"), ready0);
    QVERIFY(m_fx->mergePatch(customApps, u"ltt"_s, { { "spec", { { "replicas", 3 } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->state(u"ltt"_s) == u"Ready"_s
                                 && m_fx->get(customApps, u"ltt"_s)["status"]["readyReplicas"]
                                     == json(3),
                             30000);
    const json degraded1 = m_fx->condition(u"ltt"_s, "Degraded");
    const json ready1 = m_fx->condition(u"ltt"_s, "Ready");
    QCOMPARE_JSON(degraded1["status"], json("False"));
    QCOMPARE_JSON(degraded1["lastTransitionTime"],
                  degraded0["lastTransitionTime"]); // never flipped
    QCOMPARE_JSON(degraded1["observedGeneration"], json(2)); // but updated in place
    QVERIFY(ready1["lastTransitionTime"] != ready0["lastTransitionTime"]); // True->False->True
    QCOMPARE_JSON(ready1["lastTransitionTime"], json("2026-01-01T00:05:00Z"));
}

void tst_CustomAppReconciler::concurrentSpecWriter()
{
    startOperator();
    converge(u"gitops"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } });
    m_fx->server()->faultInjector()->setLatency(3ms, 3ms);
    // A GitOps stand-in rewrites the spec every few milliseconds while the reconciler works.
    int written = 0;
    const int total = 25;
    QTimer writer;
    writer.setInterval(7);
    connect(&writer, &QTimer::timeout, this, [&] {
        json app = m_fx->get(customApps, u"gitops"_s);
        app["spec"]["replicas"] = 1 + (written % 4);
        app["spec"]["configJSON"] = "{\"rev\":" + std::to_string(written) + "}";
        if (m_fx->cluster()
                ->update(apimachinery::ResourceRef(customApps), u"default"_s, u"gitops"_s, app)
                .ok())
            ++written;
        if (written == total)
            writer.stop();
    });
    writer.start();
    QTRY_VERIFY_WITH_TIMEOUT(!writer.isActive(), 30000);
    m_fx->server()->faultInjector()->reset();
    m_autoAdvance = true; // conflicts retry through the rate limiter
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->state(u"gitops"_s) == u"Ready"_s
                                 && m_fx->get(deployments, u"gitops"_s)["spec"]["replicas"]
                                     == json(1 + ((total - 1) % 4)),
                             15000);
    const json app = m_fx->get(customApps, u"gitops"_s);
    // No spec update lost: every write bumped the generation, the last one is what is stored.
    QCOMPARE_JSON(app["metadata"]["generation"], json(1 + total));
    QCOMPARE_JSON(app["spec"]["configJSON"], json("{\"rev\":" + std::to_string(total - 1) + "}"));
    QCOMPARE_JSON(app["status"]["observedGeneration"], app["metadata"]["generation"]);
    const qint64 conflicts = m_op->reconciler().conflictCount();
    QVERIFY(conflicts > 0);
    double counted = 0;
    for (const char *writer : { "status", "update Deployment", "finalizer" })
        counted += m_op->loop().metrics().value(
            QString::fromLatin1(reconcile::ControllerLoop::Conflicts),
            { { u"controller"_s, u"customapp"_s }, { u"writer"_s, QString::fromLatin1(writer) } });
    qInfo("spec writes %d, reconciles %lld, 409 conflicts %lld (metric %g)",
          total,
          qint64(m_op->loop().history(u"default/gitops"_s).size()),
          conflicts,
          counted);
    QVERIFY(m_op->loop().metricsText().contains(reconcile::ControllerLoop::Conflicts));
}

void tst_CustomAppReconciler::pausedIsLeftAlone()
{
    startOperator();
    converge(u"pz"_s, { { "image", "nginx:1.27" }, { "replicas", 1 } });
    QVERIFY(m_fx->mergePatch(
        customApps, u"pz"_s, { { "spec", { { "paused", true }, { "replicas", 4 } } } }));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_fx->conditionReason(u"pz"_s, "Paused"), u"ReconciliationPaused"_s, 30000);
    QTRY_VERIFY(idle());
    QCOMPARE_JSON(m_fx->get(deployments, u"pz"_s)["spec"]["replicas"], json(1));
    QVERIFY(m_fx->mergePatch(customApps, u"pz"_s, { { "spec", { { "paused", false } } } }));
    QTRY_VERIFY_WITH_TIMEOUT(m_fx->get(deployments, u"pz"_s)["spec"]["replicas"] == json(4)
                                 && m_fx->state(u"pz"_s) == u"Ready"_s,
                             30000);
    QVERIFY(m_fx->condition(u"pz"_s, "Paused").is_null());
}

void tst_CustomAppReconciler::dryRunSendsNothing()
{
    startOperator(true);
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"dry"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } })));
    QTRY_VERIFY_WITH_TIMEOUT(m_op->reconciler().lastWrites(u"default/dry"_s).size() >= 3, 30000);
    QTRY_VERIFY(idle());
    const auto writes = m_op->reconciler().lastWrites(u"default/dry"_s);
    QCOMPARE(writes[0].verb, u"PUT"_s);
    QVERIFY(writes[0].diff.dump().find("finalizers") != std::string::npos);
    QCOMPARE(writes[1].verb, u"POST"_s);
    QCOMPARE_JSON(writes[1].diff[0]["op"], json("replace")); // from nothing to the whole Deployment
    QCOMPARE(writes[2].path,
             u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/dry/status"_s);
    for (const auto &w : writes)
        QVERIFY(!w.sent);
    QCOMPARE(m_op->reconciler().writeCount(), qint64(0));
    QVERIFY(m_fx->get(deployments, u"dry"_s).is_null());
    const json app = m_fx->get(customApps, u"dry"_s);
    QVERIFY(!app.contains("status") || app["status"].empty());
    QVERIFY(app["metadata"].value("finalizers", json::array()).empty());
}

void tst_CustomAppReconciler::eventsFoldRepeats()
{
    kube::RestClient client(m_fx->clientConfig());
    operators::EventRecorder recorder(&client, *m_clock, u"reconscope-customapp"_s, u"me"_s);
    const json app
        = { { "apiVersion", "infrastructure.internal.net/v1" },
            { "kind", "CustomApp" },
            { "metadata", { { "name", "ev" }, { "namespace", "default" }, { "uid", "u-ev" } } } };
    recorder.record(app, u"Warning"_s, u"QuotaExceeded"_s, u"exceeded quota"_s);
    QTRY_COMPARE(m_fx->eventReasons(u"ev"_s).size(), 1);
    m_clock->step(std::chrono::minutes(2));
    recorder.record(app, u"Warning"_s, u"QuotaExceeded"_s, u"exceeded quota"_s);
    recorder.record(app, u"Normal"_s, u"Synchronized"_s, u"1/1 replicas ready"_s);
    QTRY_COMPARE(m_fx->eventReasons(u"ev"_s).size(), 2);
    const auto list = m_fx->cluster()->list(events, u"default"_s);
    QVERIFY(list.ok());
    json folded;
    for (const auto &e : list.value()["items"])
        if (e["reason"] == "QuotaExceeded")
            folded = e;
    QTRY_VERIFY(m_fx->cluster()->list(events, u"default"_s).value().dump().find("\"count\":2")
                != std::string::npos);
    QCOMPARE_JSON(folded["type"], json("Warning"));
    QCOMPARE_JSON(folded["involvedObject"]["uid"], json("u-ev"));
    QCOMPARE_JSON(folded["involvedObject"]["kind"], json("CustomApp"));
    QCOMPARE_JSON(folded["source"]["component"], json("reconscope-customapp"));
    QCOMPARE_JSON(folded["firstTimestamp"], json("2026-01-01T00:00:00Z"));
    const json eventList = m_fx->cluster()->list(events, u"default"_s).value(); // outlives the loop
    for (const auto &e : eventList["items"])
        if (e["reason"] == "QuotaExceeded")
            QCOMPARE_JSON(e["lastTimestamp"], json("2026-01-01T00:02:00Z"));
}

void tst_CustomAppReconciler::eventCacheIsBoundedAndExpiredEventsReturn()
{
    // Objects come and go (new uids) and messages vary: the correlation keys are unbounded, the
    // recorder remembers the most recent few (client-go: an LRU of 4096).
    kube::RestClient client(m_fx->clientConfig());
    operators::EventRecorder recorder(&client, *m_clock, u"reconscope-customapp"_s, u"me"_s, 3);
    auto app = [](int i) {
        const std::string name = "lru" + std::to_string(i);
        return json{ { "apiVersion", "infrastructure.internal.net/v1" },
                     { "kind", "CustomApp" },
                     { "metadata",
                       { { "name", name }, { "namespace", "default" }, { "uid", "u-" + name } } } };
    };
    for (int i = 0; i < 10; ++i) {
        recorder.record(app(i), u"Normal"_s, u"Created"_s, u"created"_s);
        QVERIFY(recorder.cachedKeys() <= 3);
    }
    QCOMPARE(recorder.cachedKeys(), 3);
    for (int i = 0; i < 10; ++i)
        QTRY_COMPARE(m_fx->eventReasons(u"lru"_s + QString::number(i)).size(), 1);

    // An Event deleted on the server (the event TTL) is written anew on its next repeat instead of
    // being patched in vain.
    QString name;
    const json written = m_fx->cluster()->list(events, u"default"_s).value(); // outlives the loop
    for (const auto &e : written["items"])
        if (e["involvedObject"].value("name", "") == "lru9")
            name = QString::fromStdString(e["metadata"].value("name", ""));
    QVERIFY(!name.isEmpty());
    QVERIFY(m_fx->cluster()->remove(events, u"default"_s, name).ok());
    QCOMPARE(m_fx->eventReasons(u"lru9"_s).size(), 0);
    recorder.record(app(9), u"Normal"_s, u"Created"_s, u"created"_s);
    QTRY_COMPARE(m_fx->eventReasons(u"lru9"_s).size(), 1);
    QCOMPARE(recorder.cachedKeys(), 3);
    // And the new one is folded into from then on.
    recorder.record(app(9), u"Normal"_s, u"Created"_s, u"created"_s);
    QTRY_VERIFY(m_fx->cluster()->list(events, u"default"_s).value().dump().find("\"count\":2")
                != std::string::npos);
    QCOMPARE(m_fx->eventReasons(u"lru9"_s).size(), 1);
}

void tst_CustomAppReconciler::transientServerErrorsAreRetried()
{
    startOperator();
    // Every other request answers 500/503: reconciles fail part-way and retry with backoff.
    m_fx->server()->faultInjector()->setServerErrorRate(0.5);
    m_autoAdvance = true;
    QVERIFY(m_fx->create(
        customApps,
        ClusterFixture::customApp(u"flaky"_s, { { "image", "nginx:1.27" }, { "replicas", 2 } })));
    // The informers' own requests fail half the time too, and their list/watch backoff runs on
    // the real clock: seen to need 38 s on a loaded machine (once in ~10 runs beside other tests).
    QTRY_VERIFY_WITH_TIMEOUT(m_op->loop().history(u"default/flaky"_s).size() >= 4, 60000);
    m_fx->server()->faultInjector()->reset();
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->state(u"flaky"_s), u"Ready"_s, 15000);
    int errors = 0;
    for (const auto &r : m_op->loop().history(u"default/flaky"_s))
        errors += r.result == reconcile::ReconcileRecord::Result::Error ? 1 : 0;
    QVERIFY(errors > 0);
    QVERIFY(m_fx->server()->faultInjector()->injectedErrors() > 0);
    QCOMPARE_JSON(m_fx->get(deployments, u"flaky"_s)["spec"]["replicas"], json(2));
}

QTEST_GUILESS_MAIN(tst_CustomAppReconciler)
#include "tst_customappreconciler.moc"
