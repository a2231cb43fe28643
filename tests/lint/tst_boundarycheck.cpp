// The live boundary check against the embedded cluster, reached only through the kubeconfig its
// HTTPS server writes (mTLS, as against kind): the CustomApp CRD keeps the Spec/Status contract,
// the conflict lab's design (c) (mixedconsumergroups: observations in spec, no status
// subresource) fails it with the right verdicts, and the dry-run writes leave nothing behind: no
// revision, no committed change, no watch event on a live watch. Also the report of both.
#include "controller/cluster/cluster.h"
#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/restclient.h"
#include "controller/lint/boundarycheck.h"
#include "controller/lint/crdlint.h"
#include "controller/lint/report.h"
#include "models/yamljson.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
namespace kube = reconscope::controller::kube;
namespace lint = reconscope::controller::lint;
namespace models = reconscope::models;

namespace {

const apimachinery::ResourceRef crds{ u"apiextensions.k8s.io"_s,
                                      u"v1"_s,
                                      u"customresourcedefinitions"_s };
const apimachinery::ResourceRef customApps{ u"infrastructure.internal.net"_s,
                                            u"v1"_s,
                                            u"customapps"_s };
const apimachinery::ResourceRef mixedGroups{ u"kafka.internal.net"_s,
                                             u"v1"_s,
                                             u"mixedconsumergroups"_s };

// The mixed design's object as its writers leave it: GitOps owns the desired fields, the
// reconciler the observed ones it writes into spec.
const char *const MixedManagedFields = R"([
    {"manager": "gitops", "operation": "Update", "apiVersion": "kafka.internal.net/v1",
     "time": "2026-12-05T01:00:00Z", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:spec": {".": {}, "f:replicas": {}, "f:topic": {}}}},
    {"manager": "reconciler", "operation": "Update", "apiVersion": "kafka.internal.net/v1",
     "time": "2026-12-05T01:00:01Z", "fieldsType": "FieldsV1",
     "fieldsV1": {"f:spec": {"f:currentReplicas": {}, "f:phase": {}}}}])";

QStringList verdictLines(const lint::BoundaryCheckResult &result)
{
    QStringList lines;
    for (const auto &verdict : result.verdicts)
        lines << (verdict.pass ? u"pass "_s : u"FAIL "_s) + verdict.id;
    return lines;
}

} // namespace

class tst_BoundaryCheck : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void customAppPasses();
    void mixedDesignFailsTheRightWay();
    void picksTheFirstObjectWhenNoneIsNamed();
    void reportsWhatCannotBeChecked();
    void reportOfLintAndVerdicts();

private:
    lint::BoundaryCheckResult run(const QString &crd, const QString &ns, const QString &name);
    bool installCrd(const QString &file);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<cluster::EmbeddedServer> m_server;
    cluster::Cluster *m_cluster = nullptr;
    std::unique_ptr<kube::RestClient> m_client;
    int m_subscription = 0;
    int m_commits = 0;
};

void tst_BoundaryCheck::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    cluster::EmbeddedServerOptions serverOptions;
    serverOptions.kubeconfigPath = m_dir->filePath(u"kubeconfig"_s);
    m_server = std::make_unique<cluster::EmbeddedServer>(
        cluster::embeddedClusterFactory(
            cluster::EmbeddedClusterOptions{ .demo = false, .simulateWorkloads = false }),
        serverOptions);
    const auto started = m_server->start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    m_cluster = cluster::clusterOf(*m_server);
    QVERIFY(m_cluster);
    auto kubeconfig = kube::Kubeconfig::load(m_server->kubeconfigPath());
    QVERIFY(kubeconfig.ok());
    auto config = kubeconfig->resolve(u"reconscope-admin"_s);
    QVERIFY(config.ok());
    m_client = std::make_unique<kube::RestClient>(config.value());
    QVERIFY(installCrd(u"mixedconsumergroups.kafka.internal.net.yaml"_s));
    m_commits = 0;
    m_subscription = m_cluster->subscribe([this](const cluster::ClusterEvent &) { ++m_commits; });
}

void tst_BoundaryCheck::cleanup()
{
    if (m_cluster && m_subscription)
        m_cluster->unsubscribe(m_subscription);
    m_subscription = 0;
    m_client.reset();
    m_cluster = nullptr;
    m_server.reset();
    m_dir.reset();
}

bool tst_BoundaryCheck::installCrd(const QString &file)
{
    QFile in(QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/resources/crds/"_s + file);
    if (!in.open(QIODevice::ReadOnly))
        return false;
    auto documents = models::yamlDocumentsToJson(in.readAll());
    if (!documents || documents->isEmpty())
        return false;
    const json crd = documents->first();
    const auto created = m_cluster->create(crds, {}, crd);
    if (!created)
        qWarning("%s", qPrintable(created.error().message));
    // The embedded cluster may carry the conflict lab's CRDs already.
    return created.ok() || created.error().code == 409;
}

lint::BoundaryCheckResult
tst_BoundaryCheck::run(const QString &crd, const QString &ns, const QString &name)
{
    lint::BoundaryCheck check(m_client.get());
    QSignalSpy finished(&check, &lint::BoundaryCheck::finished);
    check.start(crd, ns, name);
    if (!finished.wait(20000) && finished.isEmpty())
        return {};
    return finished.first().first().value<lint::BoundaryCheckResult>();
}

void tst_BoundaryCheck::customAppPasses()
{
    const json app = { { "apiVersion", "infrastructure.internal.net/v1" },
                       { "kind", "CustomApp" },
                       { "metadata", { { "name", "web" }, { "namespace", "default" } } },
                       { "spec", { { "image", "nginx:1.27" }, { "replicas", 2 } } } };
    // A user creates it, the controller writes its status: two managers, as on a cluster.
    cluster::WriteOptions user;
    user.fieldManager = u"kubectl-create"_s;
    QVERIFY(m_cluster->create(customApps, u"default"_s, app, user).ok());
    cluster::WriteOptions controller;
    controller.fieldManager = u"customapp-controller"_s;
    QVERIFY(m_cluster
                ->patch(customApps,
                        u"default"_s,
                        u"web"_s,
                        apimachinery::PatchType::Merge,
                        R"({"status":{"observedGeneration":1,"replicas":2}})",
                        true,
                        controller)
                .ok());
    const json before = m_cluster->get(customApps, u"default"_s, u"web"_s).value();
    const qint64 revision = m_cluster->currentResourceVersion();

    // A live watch from the current revision: a dry run must not show up on it.
    apimachinery::WatchOptions watchOptions;
    watchOptions.resourceVersion = QString::number(revision);
    watchOptions.allowWatchBookmarks = true;
    QObject owner;
    kube::WatchConnection *watch = m_client->watch(customApps, u"default"_s, watchOptions, &owner);
    QList<kube::WatchEvent> events;
    connect(watch,
            &kube::WatchConnection::eventsReceived,
            this,
            [&events](const QList<kube::WatchEvent> &batch) {
                for (const auto &event : batch) {
                    if (event.type != kube::WatchEvent::Type::Bookmark)
                        events.append(event);
                }
            });
    QTRY_COMPARE_WITH_TIMEOUT(m_cluster->watchCount(), 1, 10000);

    const int commits = m_commits;
    const auto result = run(u"customapps.infrastructure.internal.net"_s, u"default"_s, u"web"_s);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(verdictLines(result),
             (QStringList{ u"pass status-write-through-main-ignored"_s,
                           u"pass spec-write-through-status-ignored"_s,
                           u"pass status-write-keeps-generation"_s,
                           u"pass spec-write-bumps-generation"_s,
                           u"pass stale-resource-version-conflicts"_s,
                           u"pass nothing-persisted"_s,
                           u"pass spec-not-owned-by-status-writer"_s }));
    QVERIFY(result.passed());
    QVERIFY(result.statusSubresource);
    QCOMPARE(result.statusProbe->dotted(), u".status.observedGeneration"_s);
    QCOMPARE(result.specProbe->dotted(), u".spec.replicas"_s);
    for (const auto &verdict : result.verdicts) {
        QVERIFY(!verdict.expectation.isEmpty());
        QVERIFY(!verdict.observed.isEmpty());
        if (verdict.request.method != u"GET")
            QVERIFY2(verdict.request.url.endsWith(u"?dryRun=All"), qPrintable(verdict.request.url));
    }
    const auto &specWrite = result.verdicts[3];
    QCOMPARE(specWrite.request.method, u"PATCH"_s);
    QVERIFY(specWrite.request.url.contains(
        u"/apis/infrastructure.internal.net/v1/namespaces/default/customapps/web?"));
    QCOMPARE(specWrite.response.code, 200);
    QCOMPARE(specWrite.response.fields["generation"].get<int>(), 2);
    QCOMPARE(specWrite.response.fields["spec.replicas"].get<int>(), 3);
    QCOMPARE(result.verdicts[4].response.code, 409);
    QCOMPARE(
        QString::fromStdString(result.verdicts[4].response.fields["reason"].get<std::string>()),
        u"Conflict"_s);

    // Nothing stored, nothing committed, nothing sent to the watch.
    QCOMPARE(m_commits, commits);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    QCOMPARE(QString::fromStdString(m_cluster->get(customApps, u"default"_s, u"web"_s)->dump()),
             QString::fromStdString(before.dump()));
    // The watch is alive and would have carried them: a real write arrives as its first event.
    QVERIFY(m_cluster
                ->patch(customApps,
                        u"default"_s,
                        u"web"_s,
                        apimachinery::PatchType::Merge,
                        R"({"metadata":{"labels":{"checked":"yes"}}})")
                .ok());
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 1, 10000);
    QCOMPARE(events.first().type, kube::WatchEvent::Type::Modified);
    QVERIFY(events.first().object.contains("\"checked\":\"yes\""));
}

void tst_BoundaryCheck::mixedDesignFailsTheRightWay()
{
    const json group = { { "apiVersion", "kafka.internal.net/v1" },
                         { "kind", "MixedConsumerGroup" },
                         { "metadata",
                           { { "name", "orders" },
                             { "namespace", "default" },
                             { "managedFields", json::parse(MixedManagedFields) } } },
                         { "spec",
                           { { "topic", "orders" },
                             { "replicas", 3 },
                             { "currentReplicas", 1 },
                             { "phase", "Scaling" } } } };
    QVERIFY(m_cluster->create(mixedGroups, u"default"_s, group).ok());
    const qint64 revision = m_cluster->currentResourceVersion();
    const int commits = m_commits;

    const auto result = run(u"mixedconsumergroups.kafka.internal.net"_s, u"default"_s, u"orders"_s);
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(verdictLines(result),
             (QStringList{ u"FAIL status-write-through-main-ignored"_s,
                           u"FAIL spec-write-through-status-ignored"_s,
                           u"FAIL status-write-keeps-generation"_s,
                           u"pass spec-write-bumps-generation"_s,
                           u"pass stale-resource-version-conflicts"_s,
                           u"pass nothing-persisted"_s,
                           u"FAIL spec-not-owned-by-status-writer"_s }));
    QVERIFY(!result.passed());
    QVERIFY(!result.statusSubresource);
    // The observations this CRD keeps in spec are what its controller writes.
    QCOMPARE(result.statusProbe->dotted(), u".spec.currentReplicas"_s);
    QCOMPARE(result.specProbe->dotted(), u".spec.replicas"_s);

    const auto &throughMain = result.verdicts[0];
    QCOMPARE(throughMain.response.code, 200);
    QCOMPARE(throughMain.response.fields["spec.currentReplicas"].get<int>(), 2);
    QCOMPARE(throughMain.response.fields["generation"].get<int>(), 2);
    QVERIFY(throughMain.observed.startsWith(u"applied"));
    const auto &throughStatus = result.verdicts[1];
    QCOMPARE(throughStatus.response.code, 404);
    QVERIFY(throughStatus.request.url.contains(u"/mixedconsumergroups/orders/status?dryRun=All"));
    QVERIFY(throughStatus.observed.contains(u"/status subresource does not exist"));
    const auto &keepsGeneration = result.verdicts[2];
    QVERIFY(!keepsGeneration.request.url.contains(u"/status"));
    QCOMPARE(keepsGeneration.response.fields["generation"].get<int>(), 2);
    QVERIFY(keepsGeneration.observed.contains(u"generation went 1 -> 2"));
    // Whoever writes the observation kept in spec writes status, and owns spec fields.
    const auto &ownership = result.verdicts[6];
    QVERIFY2(ownership.observed.contains(u"writes status and owns .spec.currentReplicas"_s),
             qPrintable(ownership.observed));
    QVERIFY(ownership.response.fields["managedFields"].is_array());

    QCOMPARE(m_commits, commits);
    QCOMPARE(m_cluster->currentResourceVersion(), revision);
    const json stored = m_cluster->get(mixedGroups, u"default"_s, u"orders"_s).value();
    QCOMPARE(stored["spec"]["currentReplicas"].get<int>(), 1);
    QCOMPARE(stored["metadata"]["generation"].get<int>(), 1);
}

void tst_BoundaryCheck::picksTheFirstObjectWhenNoneIsNamed()
{
    for (const char *name : { "beta", "alpha" }) {
        const json app = { { "apiVersion", "infrastructure.internal.net/v1" },
                           { "kind", "CustomApp" },
                           { "metadata", { { "name", name } } },
                           { "spec", { { "image", "nginx:1.27" } } } };
        QVERIFY(m_cluster->create(customApps, u"default"_s, app).ok());
    }
    const auto result = run(u"customapps.infrastructure.internal.net"_s, {}, {});
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.ns, u"default"_s);
    QCOMPARE(result.name, u"alpha"_s);
    // No status yet: observedGeneration is probed from nothing.
    QVERIFY(result.passed());
}

void tst_BoundaryCheck::reportsWhatCannotBeChecked()
{
    auto result = run(u"nothings.example.com"_s, u"default"_s, u"x"_s);
    QVERIFY(result.error.contains(u"nothings.example.com"));
    QVERIFY(result.error.contains(u"404"));
    QVERIFY(result.verdicts.isEmpty());
    QVERIFY(!result.passed());

    result = run(u"customapps.infrastructure.internal.net"_s, u"default"_s, {});
    QVERIFY2(result.error.startsWith(u"no customapps object to check in namespace default"),
             qPrintable(result.error));

    result = run(u"customapps.infrastructure.internal.net"_s, u"default"_s, u"missing"_s);
    QVERIFY(result.error.contains(u"missing"));
    QVERIFY(result.error.contains(u"NotFound"));
}

void tst_BoundaryCheck::reportOfLintAndVerdicts()
{
    const json group = { { "apiVersion", "kafka.internal.net/v1" },
                         { "kind", "MixedConsumerGroup" },
                         { "metadata", { { "name", "orders" }, { "namespace", "default" } } },
                         { "spec", { { "topic", "orders" }, { "replicas", 3 } } } };
    QVERIFY(m_cluster->create(mixedGroups, u"default"_s, group).ok());
    lint::BoundaryReport report;
    auto linted
        = lint::lintCrdFile(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                            + u"/resources/crds/mixedconsumergroups.kafka.internal.net.yaml"_s);
    QVERIFY(linted.ok());
    report.lint = linted.value();
    report.live = run(u"mixedconsumergroups.kafka.internal.net"_s, u"default"_s, u"orders"_s);
    QVERIFY(report.live->error.isEmpty());
    QVERIFY(report.hasErrors());

    const json out = lint::reportJson(report);
    QCOMPARE(out["crds"].size(), size_t(1));
    QCOMPARE(out["crds"][0]["name"].get<std::string>(),
             std::string("mixedconsumergroups.kafka.internal.net"));
    QCOMPARE(out["crds"][0]["summary"]["error"].get<int>(), 4);
    QCOMPARE(out["live"]["passed"].get<bool>(), false);
    QCOMPARE(out["live"]["verdicts"].size(), size_t(7));
    QCOMPARE(out["live"]["verdicts"][1]["response"]["code"].get<int>(), 404);
    QCOMPARE(out["live"]["verdicts"][1]["request"]["method"].get<std::string>(),
             std::string("PATCH"));
    QCOMPARE(out["live"]["statusProbe"]["path"].get<std::string>(),
             std::string(".spec.currentReplicas"));
    QCOMPARE(out["hasErrors"].get<bool>(), true);

    const QString md = lint::reportMarkdown(report);
    QVERIFY(md.startsWith(u"# API boundary report"));
    QVERIFY(md.contains(u"## CRD `mixedconsumergroups.kafka.internal.net`"));
    QVERIFY(md.contains(
        u"| error | no-status-subresource | `spec.versions[v1].subresources.status` |"));
    QVERIFY(md.contains(u"### FAIL spec-write-through-status-ignored"));
    QVERIFY(md.contains(u"### PASS stale-resource-version-conflicts"));
    QVERIFY(md.contains(u"/namespaces/default/mixedconsumergroups/orders/status?dryRun=All"));
    QVERIFY(md.contains(u"The boundary does not hold."));

    lint::BoundaryReport clean;
    auto customApp
        = lint::lintCrdFile(QStringLiteral(RECONSCOPE_SOURCE_DIR)
                            + u"/resources/crds/customapps.infrastructure.internal.net.yaml"_s);
    QVERIFY(customApp.ok());
    clean.lint = customApp.value();
    QVERIFY(!clean.hasErrors());
    QVERIFY(lint::reportMarkdown(clean).contains(u"clean: no findings"));
    QVERIFY(lint::reportText(clean).contains(u"clean: no findings"));
    QVERIFY(!lint::reportJson(clean).contains("live"));
}

QTEST_GUILESS_MAIN(tst_BoundaryCheck)
#include "tst_boundarycheck.moc"
