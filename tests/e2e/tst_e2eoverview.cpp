// Every custom resource at once (issue 23), on both servers:
// - the Problems list over the overview's informers orders a seeded set — two Degraded objects,
//   a deletion held by a finalizer, a stale status (the spec changed after the status was
//   written), an object without a status — Degraded first, then Terminating, stale, Pending,
//   oldest first within a kind, at an injected time with shortened thresholds (at the time of the
//   list, with the default thresholds, only the Degraded ones are problems yet); then a spec
//   change and its status catching up, at known injected times, give the reconcile latency;
// - the overview of the twelve real CRDs of shared/fixtures/real-crds plus CustomApp, fed by
//   discovery as the console is, counts each resource's objects per state as the lifecycle rules
//   judge each object read back whole from the server.
#include "controller/console/crdoverview.h"
#include "controller/kube/discovery.h"
#include "controller/kube/restclient.h"
#include "models/lifecycle.h"
#include "models/yamljson.h"
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QtTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
using reconscope::controller::console::CrdOverview;
using reconscope::controller::console::OverviewResource;
using reconscope::tests::e2e::E2eServer;
using reconscope::tests::e2e::Role;
using reconscope::tests::e2e::UncachedWidgets;
namespace models = reconscope::models;
namespace kube = reconscope::controller::kube;

namespace {

constexpr int WaitMs = 60000;

json condition(const char *type, const char *status, const char *since)
{
    return { { "type", type },
             { "status", status },
             { "reason", std::string(type) + status },
             { "message", "seeded" },
             { "lastTransitionTime", since } };
}

json widgetStatus(const char *ready, const char *degraded, const char *since)
{
    json conditions = json::array();
    conditions.push_back(condition("Ready", ready, since));
    conditions.push_back(condition("Degraded", degraded, since));
    return { { "observedGeneration", 1 }, { "conditions", conditions } };
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

const QString FixtureDir = QStringLiteral(RECONSCOPE_SHARED_DIR "/fixtures/real-crds");

} // namespace

class tst_E2eOverview final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void problemsInSeverityOrder();
    void realCrdCounts();

private:
    // A watch of `resources` in `ns` until the overview's first lists are in.
    bool
    watchAll(CrdOverview &overview, const QList<OverviewResource> &resources, const QString &ns);

    std::unique_ptr<E2eServer> m_server;
    QStringList m_held; // objects whose finalizer is taken off at the end
    // Cluster-scoped objects made here, deleted at the end: the real server's tier is shared by
    // the tests of one run (tst_e2ewatch reads the first Composition it finds).
    QStringList m_clusterScoped;
};

void tst_E2eOverview::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
}

void tst_E2eOverview::cleanupTestCase()
{
    for (const QString &path : std::as_const(m_held)) // the finalizer would hold the namespace
        (void)m_server->sendJson("PATCH",
                                 path,
                                 { { "metadata", { { "finalizers", nullptr } } } },
                                 Role::Admin,
                                 "application/merge-patch+json");
    for (const QString &path : std::as_const(m_clusterScoped))
        (void)m_server->sendJson("DELETE", path, json::object());
    m_server.reset();
}

bool tst_E2eOverview::watchAll(CrdOverview &overview,
                               const QList<OverviewResource> &resources,
                               const QString &ns)
{
    QSignalSpy synced(&overview, &CrdOverview::synced);
    overview.watch(m_server->config(), resources, ns);
    return synced.wait(WaitMs);
}

void tst_E2eOverview::problemsInSeverityOrder()
{
    QString error;
    QVERIFY2(
        m_server->apply(
            QByteArray::fromStdString(reconscope::tests::e2e::uncachedWidgetsCrd().dump()), &error),
        qPrintable(error));
    const QString ns = m_server->createNamespace(u"e2e-problems"_s);
    QVERIFY(!ns.isEmpty());
    const QString collection = UncachedWidgets.collectionPath(ns);
    const auto make = [&](const char *name, const json &status, bool finalizer = false) {
        json object{ { "apiVersion", "e2e.reconscope.dev/v1" },
                     { "kind", "UncachedWidget" },
                     { "metadata", { { "name", name } } },
                     { "spec", { { "size", 1 } } } };
        if (finalizer)
            object["metadata"]["finalizers"] = json::array({ "e2e.reconscope.dev/hold" });
        const auto created = m_server->sendJson("POST", collection, object);
        if (!created)
            return created.error().toString();
        const QString path = collection + u'/' + QString::fromLatin1(name);
        if (finalizer)
            m_held << path;
        if (!status.is_null()) {
            const auto patched = m_server->sendJson("PATCH",
                                                    path + u"/status"_s,
                                                    { { "status", status } },
                                                    Role::Admin,
                                                    "application/merge-patch+json");
            if (!patched)
                return patched.error().toString();
        }
        return QString();
    };
    QCOMPARE(make("healthy", widgetStatus("True", "False", "2026-01-01T00:00:00Z")), QString());
    QCOMPARE(make("fresh", json()), QString());
    QCOMPARE(make("degraded-new", widgetStatus("False", "True", "2026-01-02T00:00:00Z")),
             QString());
    QCOMPARE(make("resized", widgetStatus("True", "False", "2026-01-01T00:00:00Z")), QString());
    QCOMPARE(make("held", widgetStatus("True", "False", "2026-01-01T00:00:00Z"), true), QString());
    QCOMPARE(make("degraded-old", widgetStatus("False", "True", "2026-01-01T00:00:00Z")),
             QString());
    // The spec changes after the status was written: generation 2, observed 1.
    const auto resized = m_server->sendJson("PATCH",
                                            collection + u"/resized"_s,
                                            { { "spec", { { "size", 2 } } } },
                                            Role::Admin,
                                            "application/merge-patch+json");
    QVERIFY2(resized, qPrintable(resized ? QString() : resized.error().toString()));
    QCOMPARE(resized.value()["metadata"].value("generation", 0), 2);
    QVERIFY(m_server->sendJson("DELETE", collection + u"/held"_s, json::object()));

    QDateTime now = QDateTime::currentDateTimeUtc();
    const QDateTime seen = now;
    CrdOverview overview;
    overview.setClock([&now] { return now; });
    overview.setBatchInterval(10);
    kube::DiscoveredResource widgets;
    widgets.group = UncachedWidgets.group;
    widgets.version = UncachedWidgets.version;
    widgets.plural = UncachedWidgets.plural;
    widgets.kind = u"UncachedWidget"_s;
    QVERIFY(watchAll(overview, { { widgets, models::LifecycleMapping::defaults() } }, ns));
    QCOMPARE(overview.objectCount(widgets.qualifiedName()), 6);

    const auto listed = [&](const models::ProblemThresholds &thresholds) {
        QStringList lines;
        for (const models::Problem &problem : overview.problemTracker().problems(now, thresholds))
            lines << models::problemKindName(problem.kind) + u' ' + problem.key.section(u'/', 1);
        return lines;
    };
    // Now, with the default thresholds: nothing has lasted long enough but the Degraded ones.
    QCOMPARE(listed({}), QStringList({ u"Degraded degraded-old"_s, u"Degraded degraded-new"_s }));
    // Ten minutes on (the injected clock), thresholds shortened: every kind, in order.
    now = seen.addSecs(600);
    models::ProblemThresholds shortened;
    shortened.terminating = std::chrono::seconds(120);
    shortened.stale = std::chrono::seconds(30);
    shortened.pending = std::chrono::seconds(60);
    QCOMPARE(listed(shortened),
             QStringList({ u"Degraded degraded-old"_s,
                           u"Degraded degraded-new"_s,
                           u"Terminating held"_s,
                           u"Stale status resized"_s,
                           u"Pending fresh"_s }));
    const QList<models::Problem> problems = overview.problemTracker().problems(now, shortened);
    QVERIFY2(problems[2].cause.endsWith(u"waits for finalizers: e2e.reconscope.dev/hold"_s),
             qPrintable(problems[2].cause));
    QVERIFY2(problems[3].cause.endsWith(u"generation 2, observed 1"_s),
             qPrintable(problems[3].cause));

    // Reconcile latency from the watch, at the injected clock: the spec of `healthy` changes at
    // +10 s, its controller catches up and says Ready at +13 s.
    const QString healthy = collection + u"/healthy"_s;
    const auto stateOf = [&](models::LifecycleState state) {
        return overview.counts(widgets.qualifiedName())[int(state)];
    };
    const int reconciling = stateOf(models::LifecycleState::Reconciling);
    now = seen.addSecs(10);
    QVERIFY(m_server->sendJson("PATCH",
                               healthy,
                               { { "spec", { { "size", 3 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    QVERIFY(QTest::qWaitFor(
        [&] { return stateOf(models::LifecycleState::Reconciling) == reconciling + 1; }, WaitMs));
    now = seen.addSecs(13);
    json caughtUp = widgetStatus("True", "False", "2026-01-03T00:00:00Z");
    caughtUp["observedGeneration"] = 2;
    QVERIFY(m_server->sendJson("PATCH",
                               healthy + u"/status"_s,
                               { { "status", caughtUp } },
                               Role::Admin,
                               "application/merge-patch+json"));
    QVERIFY(QTest::qWaitFor(
        [&] { return overview.latency().summary(widgets.qualifiedName()).count == 1; }, WaitMs));
    const models::LatencySample sample = overview.latency().slowest(1).value(0);
    QCOMPARE(sample.key, ns + u"/healthy"_s);
    QCOMPARE(sample.generation, 2);
    QCOMPARE(sample.observedMs, 3000);
    QCOMPARE(sample.settledMs, 3000);
    QCOMPARE(overview.latency().summary(widgets.qualifiedName()).p99, 3000);
}

void tst_E2eOverview::realCrdCounts()
{
    QString error;
    QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
    // The CRDs by "group/Kind": plural, scope, served versions.
    struct Crd
    {
        QString group, plural;
        bool namespaced = true;
        QHash<QString, bool> served; // version -> has the status subresource
    };
    QHash<QString, Crd> byGroupKind; // "group/Kind"
    const QDir crdDir(FixtureDir + u"/crds"_s);
    const QStringList crdFiles = crdDir.entryList({ u"*.yaml"_s }, QDir::Files);
    QCOMPARE(crdFiles.size(), 12);
    for (const QString &file : crdFiles) {
        QVERIFY2(m_server->applyFile(crdDir.filePath(file), &error), qPrintable(error));
        const auto documents = models::yamlDocumentsToJson(readFile(crdDir.filePath(file)));
        QVERIFY(documents.ok() && !documents->empty());
        const json &crd = documents->front();
        Crd entry;
        entry.group = QString::fromStdString(crd["spec"].value("group", ""));
        entry.plural = QString::fromStdString(crd["spec"]["names"].value("plural", ""));
        entry.namespaced = crd["spec"].value("scope", "") == "Namespaced";
        for (const json &version : crd["spec"]["versions"]) {
            if (version.value("served", false))
                entry.served.insert(QString::fromStdString(version.value("name", "")),
                                    version.contains("subresources")
                                        && version["subresources"].contains("status"));
        }
        byGroupKind.insert(entry.group + u'/'
                               + QString::fromStdString(crd["spec"]["names"].value("kind", "")),
                           entry);
    }
    const QString ns = m_server->createNamespace(u"e2e-overview"_s);
    QVERIFY(!ns.isEmpty());

    // Each fixture object of a served version, made as its controller would leave it: created,
    // then given its status; what the server keeps is read back whole.
    QHash<QString, QList<json>> stored; // resource -> objects as read back
    QStringList skipped;
    const QDir objectDir(FixtureDir + u"/objects"_s);
    for (const QString &file : objectDir.entryList({ u"*.yaml"_s }, QDir::Files)) {
        const auto documents = models::yamlDocumentsToJson(readFile(objectDir.filePath(file)));
        QVERIFY(documents.ok() && !documents->empty());
        json object = documents->front();
        const QString apiVersion = QString::fromStdString(object.value("apiVersion", ""));
        const auto crd = byGroupKind.constFind(apiVersion.section(u'/', 0, 0) + u'/'
                                               + QString::fromStdString(object.value("kind", "")));
        const QString version = apiVersion.section(u'/', 1);
        if (crd == byGroupKind.cend() || !crd->served.contains(version)) {
            skipped << file + u" (no CRD serves "_s + apiVersion + u')';
            continue;
        }
        const json status = object.value("status", json());
        // Named after the file: several fixtures share an upstream name.
        json metadata{ { "name", QFileInfo(file).completeBaseName().toStdString() } };
        for (const char *kept : { "labels", "annotations" }) {
            if (object["metadata"].contains(kept))
                metadata[kept] = object["metadata"][kept];
        }
        object["metadata"] = metadata;
        const bool statusSubresource = crd->served.value(version);
        if (statusSubresource)
            object.erase("status");
        const QString collection
            = u"/apis/%1/%2/%3%4"_s.arg(crd->group,
                                        version,
                                        crd->namespaced ? u"namespaces/"_s + ns + u'/' : QString(),
                                        crd->plural);
        const auto created = m_server->sendJson("POST", collection, object);
        if (!created) { // a fixture the CRD's schema refuses (both servers validate alike)
            skipped << file + u": "_s + created.error().toString();
            continue;
        }
        const QString path = collection + u'/' + QString::fromStdString(metadata.value("name", ""));
        if (!crd->namespaced)
            m_clusterScoped << path;
        if (statusSubresource && status.is_object()) {
            const auto patched = m_server->sendJson("PATCH",
                                                    path + u"/status"_s,
                                                    { { "status", status } },
                                                    Role::Admin,
                                                    "application/merge-patch+json");
            if (!patched) // kept without its status: counted as the server keeps it
                skipped << file + u" status: "_s + patched.error().toString();
        }
        const auto read = m_server->getJson(path);
        QVERIFY(read);
        stored[crd->plural + u'.' + crd->group] << read.value();
    }
    qInfo() << "skipped:" << skipped;
    // CustomApps: one without a status, one Ready.
    const QString apps = u"/apis/infrastructure.internal.net/v1/namespaces/%1/customapps"_s.arg(ns);
    for (const char *name : { "plain", "served" }) {
        const auto created = m_server->sendJson("POST",
                                                apps,
                                                reconscope::tests::e2e::customAppManifest(
                                                    QString::fromLatin1(name), u"nginx:1.27"_s, 1));
        QVERIFY(created);
    }
    json ready{ { "observedGeneration", 1 },
                { "conditions",
                  json::array({ condition("Ready", "True", "2026-01-01T00:00:00Z") }) } };
    QVERIFY(m_server->sendJson("PATCH",
                               apps + u"/served/status"_s,
                               { { "status", ready } },
                               Role::Admin,
                               "application/merge-patch+json"));
    for (const char *name : { "plain", "served" }) {
        const auto read = m_server->getJson(apps + u'/' + QString::fromLatin1(name));
        QVERIFY(read);
        stored[u"customapps.infrastructure.internal.net"_s] << read.value();
    }
    QVERIFY2(stored.size() >= 9 && stored.contains(u"kustomizations.kustomize.toolkit.fluxcd.io"_s),
             qPrintable(QStringList(stored.keys()).join(u", "_s)));

    // Discovery as the console has it: every served CRD, each with its mapping.
    kube::RestClient client(m_server->config());
    kube::DiscoveryClient discovery(&client);
    discovery.watchCrds();
    QList<OverviewResource> served;
    const QStringList wanted = stored.keys();
    QVERIFY(QTest::qWaitFor(
        [&] {
            served = reconscope::controller::console::servedCustomResources(discovery);
            int found = 0;
            for (const OverviewResource &resource : std::as_const(served))
                found += wanted.contains(resource.resource.qualifiedName()) ? 1 : 0;
            return found == wanted.size();
        },
        WaitMs));
    CrdOverview overview;
    overview.setBatchInterval(10);
    QVERIFY(watchAll(overview, served, ns));
    int total = 0;
    for (auto it = stored.cbegin(); it != stored.cend(); ++it) {
        const OverviewResource *resource = overview.resource(it.key());
        QVERIFY2(resource, qPrintable(it.key()));
        CrdOverview::Counts expected{};
        for (const json &object : it.value()) {
            const auto summary = models::ObjectSummary::fromJson(object, resource->mapping);
            QVERIFY(summary.ok());
            ++expected[int(models::deriveLifecycle(summary.value(), resource->mapping).state)];
        }
        QCOMPARE(overview.counts(it.key()), expected);
        QCOMPARE(overview.objectCount(it.key()), int(it.value().size()));
        total += int(it.value().size());
    }
    QCOMPARE(overview.totalObjects(), total);
    // A few by hand, as the rules say them: the Kustomization whose status holds only its CRD's
    // default (observedGeneration -1) is Pending (a fixture's status written without one keeps
    // that default and reads as stale); the CustomApps one of each.
    const auto in = [&](const QString &resource, models::LifecycleState state) {
        return overview.counts(resource)[int(state)];
    };
    QVERIFY(in(u"kustomizations.kustomize.toolkit.fluxcd.io"_s, models::LifecycleState::Pending)
            >= 1);
    // As tst_e2ewatch's table has them: the stalled HelmRepository Degraded, one Certificate and
    // the Argo Application Ready.
    QCOMPARE(in(u"helmrepositories.source.toolkit.fluxcd.io"_s, models::LifecycleState::Degraded),
             1);
    QCOMPARE(in(u"certificates.cert-manager.io"_s, models::LifecycleState::Ready), 1);
    QCOMPARE(in(u"applications.argoproj.io"_s, models::LifecycleState::Ready), 1);
    QCOMPARE(in(u"customapps.infrastructure.internal.net"_s, models::LifecycleState::Pending), 1);
    QCOMPARE(in(u"customapps.infrastructure.internal.net"_s, models::LifecycleState::Ready), 1);
    QCOMPARE(overview.aggregatedStats().objectCount(), total);
    QCOMPARE(overview.aggregatedStats().censusCount(), total);
    QCOMPARE(overview.aggregatedStats().totalTransitions(), 0);
}

QTEST_GUILESS_MAIN(tst_E2eOverview)
#include "tst_e2eoverview.moc"
