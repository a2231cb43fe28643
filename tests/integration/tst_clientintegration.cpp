// The Kubernetes client against the embedded cluster, exactly as against kind: the HTTPS server
// runs in-process on the test thread and is reached only through the kubeconfig it writes (mTLS for
// reconscope-admin and reconscope-viewer, a bearer token for reconscope-token). The test acts on
// the cluster in-process (create/patch/delete, compaction, restarts, injected faults) and checks
// what the client observed against the cluster's own record of every committed change.
#include "controller/cluster/cluster.h"
#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;

namespace {

const apimachinery::ResourceRef CustomApps{ u"infrastructure.internal.net"_s,
                                            u"v1"_s,
                                            u"customapps"_s };
const apimachinery::ResourceRef ClusterNamespaces{ QString(), u"v1"_s, u"namespaces"_s };
const QString CustomAppsStorageKey = u"infrastructure.internal.net/customapps"_s;
constexpr int WaitMs = 15000;

json customApp(const QString &ns, const QString &name, int replicas = 1)
{
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata", { { "name", name.toStdString() }, { "namespace", ns.toStdString() } } },
             { "spec",
               { { "image", "registry.example.com/app:1.0" }, { "replicas", replicas } } } };
}

QByteArray readyStatus(const char *status, qint64 observedGeneration)
{
    const json patch{
        { "status",
          { { "observedGeneration", observedGeneration },
            { "conditions",
              json::array({ { { "type", "Ready" },
                              { "status", status },
                              { "reason", "Probed" },
                              { "message", "from the integration test" },
                              { "lastTransitionTime", "2026-11-29T10:00:00Z" },
                              { "observedGeneration", observedGeneration } } }) } } }
    };
    return QByteArray::fromStdString(patch.dump());
}

// key -> resourceVersion and the object, as a fresh list or a cache holds them.
using Snapshot = QMap<QString, QPair<QString, json>>;

QString describe(const Snapshot &snapshot)
{
    QStringList lines;
    for (auto it = snapshot.cbegin(); it != snapshot.cend(); ++it)
        lines << it.key() + u'@' + it.value().first;
    return lines.join(u", "_s);
}

// A delta or committed change as text: "U default/a 17" / "D default/a 18".
QString changeLine(bool upsert, const QString &key, const QString &rv)
{
    return (upsert ? u"U "_s : u"D "_s) + key + u' ' + rv;
}

// Holds the reflector's scheduled retries so the test decides when time has passed, and records
// the delays it asked for.
struct ManualScheduler
{
    QList<qint64> delays; // ms
    QList<std::function<void()>> pending;

    kube::Reflector::Scheduler function()
    {
        return [this](std::chrono::milliseconds delay, std::function<void()> action) {
            delays << qint64(delay.count());
            pending << std::move(action);
        };
    }
    void fireNext()
    {
        if (!pending.isEmpty())
            pending.takeFirst()();
    }
};

} // namespace

namespace QTest {
template<>
char *toString(const Snapshot &snapshot)
{
    return qstrdup(describe(snapshot).toUtf8().constData());
}
} // namespace QTest

Q_DECLARE_METATYPE(reconscope::controller::cluster::FaultSettings)

class tst_ClientIntegration final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void listFollowsContinueOverMutualTls();
    void informerListsAndWatches();
    void statusPatch();
    void updateConflictIsTyped();
    void expiredWatchRelistsWithDeletions();
    void informerRelistsAfterHistoryShrunk();
    void restartMidWatchLosesNoTransition();
    void informerReconnectsAfterRestart();
    void tokenIdentity();
    void viewerWriteIsForbidden();
    void recoversFromInjectedFaults_data();
    void recoversFromInjectedFaults();

private:
    kube::ClientConfig resolve(const QString &context);
    void createApps(const QString &ns, int count, const QString &prefix = u"app-"_s);
    // Every committed CustomApp change since the last call to startRecording().
    void startRecording();
    // A complete list through a new client (admin identity); empty on failure.
    std::optional<Snapshot> freshList();
    static Snapshot snapshotOf(const kube::InformerStore &store);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<cluster::EmbeddedServer> m_server;
    cluster::Cluster *m_cluster = nullptr;
    kube::ClientConfig m_admin;
    int m_subscription = 0;
    QStringList m_committed;
};

void tst_ClientIntegration::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    cluster::EmbeddedServerOptions serverOptions;
    serverOptions.kubeconfigPath = m_dir->filePath(u"kubeconfig"_s);
    // No workload simulator: these tests are about CustomApps and the transport alone.
    m_server = std::make_unique<cluster::EmbeddedServer>(
        cluster::embeddedClusterFactory(
            cluster::EmbeddedClusterOptions{ .demo = false, .simulateWorkloads = false }),
        serverOptions);
    const auto started = m_server->start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    m_cluster = cluster::clusterOf(*m_server);
    QVERIFY(m_cluster);
    QVERIFY(m_cluster
                ->create(ClusterNamespaces,
                         {},
                         json{ { "apiVersion", "v1" },
                               { "kind", "Namespace" },
                               { "metadata", { { "name", "team-a" } } } })
                .ok());
    m_admin = resolve(u"reconscope-admin"_s);
    QVERIFY(!m_admin.clientCertificate.isNull());
    m_committed.clear();
    m_subscription = 0;
}

void tst_ClientIntegration::cleanup()
{
    if (m_cluster && m_subscription)
        m_cluster->unsubscribe(m_subscription);
    m_subscription = 0;
    m_cluster = nullptr;
    m_server.reset();
    m_dir.reset();
}

kube::ClientConfig tst_ClientIntegration::resolve(const QString &context)
{
    auto kubeconfig = kube::Kubeconfig::load(m_server->kubeconfigPath());
    if (!kubeconfig) {
        qWarning("%s", qPrintable(kubeconfig.error().message));
        return kube::ClientConfig();
    }
    auto config = kubeconfig->resolve(context);
    if (!config) {
        qWarning("%s", qPrintable(config.error().message));
        return kube::ClientConfig();
    }
    return config.value();
}

void tst_ClientIntegration::createApps(const QString &ns, int count, const QString &prefix)
{
    for (int i = 0; i < count; ++i) {
        const auto created = m_cluster->create(
            CustomApps, ns, customApp(ns, prefix + QString::number(i), 1 + i % 3));
        QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
    }
}

void tst_ClientIntegration::startRecording()
{
    if (m_subscription)
        m_cluster->unsubscribe(m_subscription);
    m_committed.clear();
    m_subscription = m_cluster->subscribe([this](const cluster::ClusterEvent &event) {
        if (event.storageKey != CustomAppsStorageKey || !event.object)
            return;
        const QString key = event.object->ns + u'/' + event.object->name;
        m_committed << changeLine(
            event.type != cluster::EventType::Deleted, key, QString::number(event.resourceVersion));
    });
}

std::optional<Snapshot> tst_ClientIntegration::freshList()
{
    kube::RestClient client(m_admin);
    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> result;
    apimachinery::ListOptions options;
    options.limit = 7; // several pages: the client follows `continue`
    client.list(CustomApps, {}, options, [&](auto got) { result.emplace(std::move(got)); });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, WaitMs) || !*result) {
        qWarning("fresh list failed: %s",
                 result ? qPrintable(result->error().toString()) : "timed out");
        return std::nullopt;
    }
    Snapshot snapshot;
    for (const QByteArray &item : result->value().items) {
        kube::ObjectMeta meta;
        if (!kube::ObjectMeta::peek(item, &meta))
            return std::nullopt;
        snapshot.insert(meta.key(),
                        { meta.resourceVersion, json::parse(item.toStdString(), nullptr, false) });
    }
    return snapshot;
}

Snapshot tst_ClientIntegration::snapshotOf(const kube::InformerStore &store)
{
    Snapshot snapshot;
    for (auto it = store.entries().cbegin(); it != store.entries().cend(); ++it)
        snapshot.insert(it.key(), { it->summary.resourceVersion, it->json() });
    return snapshot;
}

void tst_ClientIntegration::listFollowsContinueOverMutualTls()
{
    QVERIFY(m_server->url().scheme() == u"https"_s);
    QVERIFY(m_admin.token.isEmpty());
    createApps(u"default"_s, 23);
    createApps(u"team-a"_s, 4);

    kube::RestClient client(m_admin);
    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> all;
    apimachinery::ListOptions options;
    options.limit = 5;
    client.list(CustomApps, {}, options, [&](auto result) { all.emplace(std::move(result)); });
    QTRY_VERIFY_WITH_TIMEOUT(all.has_value(), WaitMs);
    QVERIFY2(*all, qPrintable(all->ok() ? QString() : all->error().toString()));
    QCOMPARE(all->value().items.size(), 27);
    QCOMPARE(all->value().resourceVersion, QString::number(m_cluster->currentResourceVersion()));
    QVERIFY(all->value().continueToken.isEmpty());

    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> inTeamA;
    client.list(
        CustomApps, u"team-a"_s, options, [&](auto result) { inTeamA.emplace(std::move(result)); });
    QTRY_VERIFY_WITH_TIMEOUT(inTeamA.has_value(), WaitMs);
    QVERIFY(*inTeamA);
    QCOMPARE(inTeamA->value().items.size(), 4);

    std::optional<kube::RestClient::JsonResult> got;
    client.get(
        CustomApps, u"default"_s, u"app-7"_s, [&](auto result) { got.emplace(std::move(result)); });
    QTRY_VERIFY_WITH_TIMEOUT(got.has_value(), WaitMs);
    QVERIFY(*got);
    QCOMPARE((*got)->at("spec").at("replicas").get<int>(), 2);

    std::optional<kube::RestClient::JsonResult> missing;
    client.get(CustomApps, u"default"_s, u"nope"_s, [&](auto result) {
        missing.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(missing.has_value(), WaitMs);
    QVERIFY(!*missing);
    QVERIFY(missing->error().isNotFound());
    QCOMPARE(missing->error().reason, u"NotFound"_s);
    QCOMPARE(missing->error().name, u"nope"_s);
}

void tst_ClientIntegration::informerListsAndWatches()
{
    createApps(u"default"_s, 12);
    createApps(u"team-a"_s, 3);
    kube::InformerStore store(m_admin, CustomApps);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QCOMPARE(store.size(), 15);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);

    // Changes made after the list arrive through the watch.
    createApps(u"team-a"_s, 2, u"late-"_s);
    QVERIFY(m_cluster->remove(CustomApps, u"default"_s, u"app-3"_s).ok());
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-4"_s,
                        apimachinery::PatchType::Merge,
                        R"({"spec":{"replicas":7}})")
                .ok());
    const QString latest = QString::number(m_cluster->currentResourceVersion());
    QTRY_COMPARE_WITH_TIMEOUT(store.resourceVersion(), latest, WaitMs);
    QCOMPARE(store.size(), 16);
    QVERIFY(!store.entry(u"default/app-3"_s));
    QVERIFY(store.entry(u"team-a/late-1"_s));
    const kube::InformerEntry *app4 = store.entry(u"default/app-4"_s);
    QVERIFY(app4);
    QCOMPARE(app4->summary.generation.value_or(0), qint64(2));
    QCOMPARE(app4->json()["spec"]["replicas"].get<int>(), 7);

    const auto fresh = freshList();
    QVERIFY(fresh);
    QCOMPARE(snapshotOf(store), *fresh);
    QVERIFY(store.hasSynced());
    store.stop();
}

void tst_ClientIntegration::statusPatch()
{
    createApps(u"default"_s, 2);
    kube::InformerStore store(m_admin, CustomApps, u"default"_s);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);

    kube::RestClient client(m_admin);
    // An int64 beyond 2^53 must survive the round trip exactly.
    constexpr qint64 Big = 9007199254740993LL;
    std::optional<kube::RestClient::JsonResult> patched;
    client.patch(
        CustomApps,
        u"default"_s,
        u"app-1"_s,
        apimachinery::PatchType::Merge,
        readyStatus("False", Big),
        [&](auto result) { patched.emplace(std::move(result)); },
        u"status"_s);
    QTRY_VERIFY_WITH_TIMEOUT(patched.has_value(), WaitMs);
    QVERIFY2(*patched, qPrintable(patched->ok() ? QString() : patched->error().toString()));
    const json &object = patched->value();
    QCOMPARE(object["status"]["observedGeneration"].get<qint64>(), Big);
    QCOMPARE(object["metadata"]["generation"].get<qint64>(), qint64(1)); // status writes keep it
    const QString rv = QString::fromStdString(object["metadata"]["resourceVersion"]);

    // Through /status the spec is ignored; through the main resource the status is.
    std::optional<kube::RestClient::JsonResult> specViaStatus;
    client.patch(
        CustomApps,
        u"default"_s,
        u"app-1"_s,
        apimachinery::PatchType::Json,
        R"([{"op":"replace","path":"/spec/replicas","value":3}])",
        [&](auto result) { specViaStatus.emplace(std::move(result)); },
        u"status"_s);
    QTRY_VERIFY_WITH_TIMEOUT(specViaStatus.has_value(), WaitMs);
    QVERIFY(*specViaStatus);
    QCOMPARE(specViaStatus->value()["spec"]["replicas"].get<int>(), 2);

    QTRY_COMPARE_WITH_TIMEOUT(
        store.entry(u"default/app-1"_s)->summary.resourceVersion,
        QString::fromStdString(specViaStatus->value()["metadata"]["resourceVersion"]),
        WaitMs);
    const kube::InformerEntry *entry = store.entry(u"default/app-1"_s);
    QCOMPARE(entry->summary.observedGeneration.value_or(0), Big);
    QCOMPARE(entry->summary.conditions.size(), 1);
    QCOMPARE(entry->summary.conditions.first().status, u"False"_s);
    QCOMPARE(entry->summary.conditions.first().reason, u"Probed"_s);
    QCOMPARE(entry->json()["status"]["conditions"][0]["observedGeneration"].get<qint64>(), Big);
    // The second patch changed nothing, so nothing was written.
    QCOMPARE(QString::fromStdString(specViaStatus->value()["metadata"]["resourceVersion"]), rv);
    store.stop();
}

void tst_ClientIntegration::updateConflictIsTyped()
{
    createApps(u"default"_s, 1);
    kube::RestClient client(m_admin);
    std::optional<kube::RestClient::JsonResult> got;
    client.get(
        CustomApps, u"default"_s, u"app-0"_s, [&](auto result) { got.emplace(std::move(result)); });
    QTRY_VERIFY_WITH_TIMEOUT(got.has_value(), WaitMs);
    QVERIFY(*got);
    json stale = got->value();

    // Someone else writes in between.
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-0"_s,
                        apimachinery::PatchType::Merge,
                        R"({"spec":{"replicas":4}})")
                .ok());
    stale["spec"]["replicas"] = 9;
    std::optional<kube::RestClient::JsonResult> updated;
    client.update(CustomApps, u"default"_s, u"app-0"_s, stale, [&](auto result) {
        updated.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(updated.has_value(), WaitMs);
    QVERIFY(!*updated);
    const apimachinery::ApiError &error = updated->error();
    QCOMPARE(error.category, apimachinery::ApiError::Category::Status);
    QCOMPARE(error.code, 409);
    QCOMPARE(error.reason, u"Conflict"_s);
    QVERIFY(error.isConflict());
    QVERIFY(!error.isAlreadyExists());
    QCOMPARE(error.name, u"app-0"_s);
    QCOMPARE(error.group, u"infrastructure.internal.net"_s);
    QCOMPARE(error.kind, u"customapps"_s);
    QVERIFY2(error.message.contains(u"the object has been modified"_s), qPrintable(error.message));

    // Creating it again is AlreadyExists (also 409), which is not a Conflict.
    std::optional<kube::RestClient::JsonResult> again;
    client.create(CustomApps, u"default"_s, customApp(u"default"_s, u"app-0"_s), [&](auto result) {
        again.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(again.has_value(), WaitMs);
    QVERIFY(!*again);
    QCOMPARE(again->error().code, 409);
    QVERIFY(again->error().isAlreadyExists());
    QVERIFY(!again->error().isConflict());

    // With the current resourceVersion the update goes through.
    std::optional<kube::RestClient::JsonResult> fresh;
    client.get(CustomApps, u"default"_s, u"app-0"_s, [&](auto result) {
        fresh.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(fresh.has_value(), WaitMs);
    json current = fresh->value();
    current["spec"]["replicas"] = 9;
    std::optional<kube::RestClient::JsonResult> retried;
    client.update(CustomApps, u"default"_s, u"app-0"_s, current, [&](auto result) {
        retried.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(retried.has_value(), WaitMs);
    QVERIFY2(*retried, qPrintable(retried->ok() ? QString() : retried->error().toString()));
    QCOMPARE(retried->value()["spec"]["replicas"].get<int>(), 9);
    QCOMPARE(retried->value()["metadata"]["generation"].get<qint64>(), qint64(3));
}

void tst_ClientIntegration::expiredWatchRelistsWithDeletions()
{
    QList<kube::ReflectorState> states; // outlives the store/reflector that fills it
    createApps(u"default"_s, 10);
    kube::RestClient client(m_admin);
    kube::Reflector reflector(&client, CustomApps);
    ManualScheduler scheduler;
    reflector.setScheduler(scheduler.function());
    reflector.setRandom([] { return 0.0; });
    QList<kube::Delta> deltas;
    connect(&reflector, &kube::Reflector::deltasReceived, this, [&](const QList<kube::Delta> &d) {
        deltas += d;
    });
    QSignalSpy synced(&reflector, &kube::Reflector::listSynced);
    reflector.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QCOMPARE(deltas.size(), 10);
    QTRY_COMPARE_WITH_TIMEOUT(m_cluster->watchCount(), 1, WaitMs);

    // The watch is cut after its next event (a change to app-0). Before the client even sees the
    // cut, objects are deleted and created and the history is compacted: the watch cannot resume
    // from app-0's resourceVersion (410) and the reflector must relist.
    connect(&reflector,
            &kube::Reflector::stateChanged,
            this,
            [&](const kube::ReflectorState &state) { states << state; });
    deltas.clear();
    m_server->faultInjector()->setDropWatchAfterEvents(1);
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-0"_s,
                        apimachinery::PatchType::Merge,
                        R"({"spec":{"replicas":5}})")
                .ok());
    QCOMPARE(m_server->faultInjector()->droppedWatches(), 1);
    m_server->faultInjector()->reset();
    for (const char *name : { "app-2", "app-5", "app-9" })
        QVERIFY(m_cluster->remove(CustomApps, u"default"_s, QString::fromLatin1(name)).ok());
    createApps(u"default"_s, 2, u"new-"_s);
    m_cluster->compact();

    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 2, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    // A stream that ends is resumed at once and a 410 relists at once: no backoff.
    QVERIFY(scheduler.pending.isEmpty());
    QVERIFY(scheduler.delays.isEmpty());

    bool sawRelist = false;
    for (const auto &state : std::as_const(states))
        sawRelist = sawRelist
            || (state.phase == kube::ReflectorState::Phase::Relisting
                && state.lastError.contains(u"410"_s));
    QVERIFY(sawRelist);
    // The change sent before the cut, then the relist: every object as an upsert, and the three
    // that vanished as deletes.
    QVERIFY(!deltas.isEmpty());
    QCOMPARE(deltas.first().meta.key(), u"default/app-0"_s);
    deltas.removeFirst();
    QStringList deleted;
    QStringList upserted;
    for (const kube::Delta &delta : std::as_const(deltas))
        (delta.type == kube::Delta::Type::Delete ? deleted : upserted) << delta.meta.key();
    QCOMPARE(deleted, (QStringList{ u"default/app-2"_s, u"default/app-5"_s, u"default/app-9"_s }));
    QCOMPARE(upserted.size(), 9);
    QVERIFY(upserted.contains(u"default/new-1"_s));
    QCOMPARE(reflector.resourceVersion(), QString::number(m_cluster->currentResourceVersion()));
}

void tst_ClientIntegration::informerRelistsAfterHistoryShrunk()
{
    QStringList removed; // outlives the store/reflector that fills it
    QList<kube::ReflectorState> states; // outlives the store/reflector that fills it
    createApps(u"default"_s, 8);
    kube::InformerStore store(m_admin, CustomApps);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    connect(&store,
            &kube::InformerStore::objectsChanged,
            this,
            [&](const QStringList &, const QStringList &gone) { removed += gone; });
    connect(&store,
            &kube::InformerStore::connectionStateChanged,
            this,
            [&](const kube::ReflectorState &state) { states << state; });
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);

    // The server goes away; while it is down objects go and come and the history shrinks to one
    // event, so the watch cannot resume from the store's resourceVersion.
    m_server->stop();
    QTRY_COMPARE_WITH_TIMEOUT(
        store.state().phase, kube::ReflectorState::Phase::Reconnecting, WaitMs);
    QVERIFY(m_cluster->remove(CustomApps, u"default"_s, u"app-1"_s).ok());
    QVERIFY(m_cluster->remove(CustomApps, u"default"_s, u"app-6"_s).ok());
    createApps(u"default"_s, 3, u"other-"_s);
    QVERIFY(m_server->faultInjector()->setHistoryWindow(1));
    QTRY_COMPARE(m_cluster->historyWindow(), 1);
    QVERIFY(m_server->start().ok());

    QTRY_COMPARE_WITH_TIMEOUT(
        store.resourceVersion(), QString::number(m_cluster->currentResourceVersion()), WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    removed.sort();
    QCOMPARE(removed, (QStringList{ u"default/app-1"_s, u"default/app-6"_s }));
    bool sawRelist = false;
    for (const auto &state : std::as_const(states))
        sawRelist = sawRelist || state.phase == kube::ReflectorState::Phase::Relisting;
    QVERIFY(sawRelist);
    const auto fresh = freshList();
    QVERIFY(fresh);
    QCOMPARE(snapshotOf(store), *fresh);
    store.stop();
}

void tst_ClientIntegration::restartMidWatchLosesNoTransition()
{
    createApps(u"default"_s, 6);
    kube::RestClient client(m_admin);
    kube::Reflector reflector(&client, CustomApps);
    ManualScheduler scheduler;
    reflector.setScheduler(scheduler.function());
    reflector.setRandom([] { return 0.5; });
    QStringList observed;
    connect(&reflector, &kube::Reflector::deltasReceived, this, [&](const QList<kube::Delta> &d) {
        for (const kube::Delta &delta : d)
            observed << changeLine(delta.type == kube::Delta::Type::Upsert,
                                   delta.meta.key(),
                                   delta.meta.resourceVersion);
    });
    QSignalSpy synced(&reflector, &kube::Reflector::listSynced);
    reflector.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_cluster->watchCount(), 1, WaitMs);
    observed.clear();
    startRecording();

    // Live changes, then the API server restarts mid-watch with changes made while it is down.
    createApps(u"default"_s, 2, u"live-"_s);
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-0"_s,
                        apimachinery::PatchType::Merge,
                        readyStatus("True", 1),
                        true)
                .ok());
    QTRY_COMPARE_WITH_TIMEOUT(observed.size(), 3, WaitMs);
    m_server->stop();
    QTRY_COMPARE_WITH_TIMEOUT(scheduler.pending.size(), 1, WaitMs);
    QCOMPARE(reflector.state().phase, kube::ReflectorState::Phase::Reconnecting);
    QCOMPARE(reflector.state().retryInMs, 1200); // 800 ms x (1 + jitter 0.5)

    QVERIFY(m_cluster->remove(CustomApps, u"default"_s, u"app-4"_s).ok());
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-0"_s,
                        apimachinery::PatchType::Merge,
                        readyStatus("False", 1),
                        true)
                .ok());
    createApps(u"default"_s, 1, u"offline-"_s);

    // Still down: the next attempt fails too and waits twice as long.
    scheduler.fireNext();
    QTRY_COMPARE_WITH_TIMEOUT(scheduler.pending.size(), 1, WaitMs);
    QCOMPARE(scheduler.delays, (QList<qint64>{ 1200, 2400 }));
    QVERIFY2(reflector.state().lastError.contains(u"watch failed"_s),
             qPrintable(reflector.state().lastError));

    // Back on the same port with the same certificates: the watch resumes from the last RV.
    const quint16 port = m_server->port();
    QVERIFY(m_server->start().ok());
    QCOMPARE(m_server->port(), port);
    scheduler.fireNext();
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_cluster->watchCount(), 1, WaitMs);
    QVERIFY(m_cluster->remove(CustomApps, u"default"_s, u"live-0"_s).ok());
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.resourceVersion(), QString::number(m_cluster->currentResourceVersion()), WaitMs);

    // Every committed transition exactly once, in order, and no relist was needed.
    QCOMPARE(observed, m_committed);
    QCOMPARE(observed.size(), 7);
    QCOMPARE(synced.size(), 1);
    QVERIFY(scheduler.pending.isEmpty());
}

void tst_ClientIntegration::informerReconnectsAfterRestart()
{
    QList<kube::ReflectorState> states; // outlives the store/reflector that fills it
    createApps(u"default"_s, 5);
    createApps(u"team-a"_s, 5);
    kube::InformerStore store(m_admin, CustomApps);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    connect(&store,
            &kube::InformerStore::connectionStateChanged,
            this,
            [&](const kube::ReflectorState &state) { states << state; });
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);

    m_server->stop();
    QTRY_COMPARE_WITH_TIMEOUT(
        store.state().phase, kube::ReflectorState::Phase::Reconnecting, WaitMs);
    // The real backoff: 800 ms x (1 + jitter in [0, 1)).
    QVERIFY2(store.state().retryInMs >= 800 && store.state().retryInMs < 1600,
             qPrintable(QString::number(store.state().retryInMs)));
    QVERIFY(m_cluster->remove(CustomApps, u"team-a"_s, u"app-2"_s).ok());
    QVERIFY(m_cluster
                ->patch(CustomApps,
                        u"default"_s,
                        u"app-3"_s,
                        apimachinery::PatchType::Merge,
                        readyStatus("True", 1),
                        true)
                .ok());
    createApps(u"team-a"_s, 2, u"offline-"_s);
    QVERIFY(m_server->start().ok());

    QTRY_COMPARE_WITH_TIMEOUT(
        store.resourceVersion(), QString::number(m_cluster->currentResourceVersion()), WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    const auto fresh = freshList();
    QVERIFY(fresh);
    QCOMPARE(snapshotOf(store), *fresh);
    QCOMPARE(store.entry(u"default/app-3"_s)->summary.conditions.size(), 1);
    QCOMPARE(synced.size(), 1); // resumed, not relisted
    bool sawRelist = false;
    for (const auto &state : std::as_const(states))
        sawRelist = sawRelist || state.phase == kube::ReflectorState::Phase::Relisting;
    QVERIFY(!sawRelist);
    store.stop();
}

void tst_ClientIntegration::tokenIdentity()
{
    const kube::ClientConfig token = resolve(u"reconscope-token"_s);
    QCOMPARE(token.token.toUtf8(), m_server->adminToken());
    QVERIFY(token.clientCertificate.isNull());
    QVERIFY(!token.caCertificates.isEmpty());

    kube::RestClient client(token);
    std::optional<kube::RestClient::JsonResult> created;
    client.create(CustomApps, u"team-a"_s, customApp(u"team-a"_s, u"by-token"_s), [&](auto result) {
        created.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(created.has_value(), WaitMs);
    QVERIFY2(*created, qPrintable(created->ok() ? QString() : created->error().toString()));
    QVERIFY(m_cluster->get(CustomApps, u"team-a"_s, u"by-token"_s).ok());

    kube::InformerStore store(token, CustomApps, u"team-a"_s);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QCOMPARE(store.keys(), QStringList{ u"team-a/by-token"_s });
    store.stop();

    // A token the server does not know is a typed 401.
    kube::ClientConfig wrong = token;
    wrong.token = u"not-the-token"_s;
    kube::RestClient stranger(wrong);
    std::optional<kube::RestClient::JsonResult> denied;
    stranger.get(CustomApps, u"team-a"_s, u"by-token"_s, [&](auto result) {
        denied.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(denied.has_value(), WaitMs);
    QVERIFY(!*denied);
    QVERIFY(denied->error().isUnauthorized());
    QCOMPARE(denied->error().reason, u"Unauthorized"_s);
}

void tst_ClientIntegration::viewerWriteIsForbidden()
{
    createApps(u"default"_s, 3);
    const kube::ClientConfig viewer = resolve(u"reconscope-viewer"_s);
    QVERIFY(!viewer.clientCertificate.isNull());
    QVERIFY(viewer.clientCertificate != m_admin.clientCertificate);
    kube::RestClient client(viewer);

    // Reading and watching are allowed.
    kube::InformerStore store(viewer, CustomApps, u"default"_s);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QCOMPARE(store.size(), 3);

    const auto expectForbidden
        = [](const std::optional<kube::RestClient::JsonResult> &result, const QString &verb) {
              QVERIFY(result.has_value());
              QVERIFY2(!*result, qPrintable(verb));
              const apimachinery::ApiError &error = result->error();
              QCOMPARE(error.category, apimachinery::ApiError::Category::Status);
              QCOMPARE(error.code, 403);
              QCOMPARE(error.reason, u"Forbidden"_s);
              QVERIFY(error.isForbidden());
              QVERIFY2(error.message.contains(verb), qPrintable(error.message));
              QVERIFY2(error.message.contains(u"viewer"_s), qPrintable(error.message));
          };

    std::optional<kube::RestClient::JsonResult> created;
    client.create(CustomApps, u"default"_s, customApp(u"default"_s, u"sneaky"_s), [&](auto result) {
        created.emplace(std::move(result));
    });
    QTRY_VERIFY_WITH_TIMEOUT(created.has_value(), WaitMs);
    expectForbidden(created, u"create"_s);

    std::optional<kube::RestClient::JsonResult> patched;
    client.patch(
        CustomApps,
        u"default"_s,
        u"app-1"_s,
        apimachinery::PatchType::Merge,
        readyStatus("True", 1),
        [&](auto result) { patched.emplace(std::move(result)); },
        u"status"_s);
    QTRY_VERIFY_WITH_TIMEOUT(patched.has_value(), WaitMs);
    expectForbidden(patched, u"patch"_s);

    std::optional<kube::RestClient::JsonResult> removed;
    client.remove(CustomApps,
                  u"default"_s,
                  u"app-2"_s,
                  { .propagationPolicy = u"Background"_s },
                  [&](auto result) { removed.emplace(std::move(result)); });
    QTRY_VERIFY_WITH_TIMEOUT(removed.has_value(), WaitMs);
    expectForbidden(removed, u"delete"_s);

    QVERIFY(!m_cluster->get(CustomApps, u"default"_s, u"sneaky"_s).ok());
    QVERIFY(m_cluster->get(CustomApps, u"default"_s, u"app-2"_s).ok());
    QCOMPARE(store.size(), 3);
    store.stop();
}

void tst_ClientIntegration::recoversFromInjectedFaults_data()
{
    QTest::addColumn<cluster::FaultSettings>("faults");
    QTest::addColumn<bool>("expectInjectedErrors");
    cluster::FaultSettings dropped;
    dropped.dropWatchAfterEvents = 4;
    QTest::newRow("watch dropped after 4 events") << dropped << false;
    cluster::FaultSettings flaky;
    flaky.watchDropRate = 0.05;
    QTest::newRow("watch dropped at random") << flaky << false;
    // Streams are also cut every few events, so that every reconnect meets the error rate.
    cluster::FaultSettings errors;
    errors.serverErrorRate = 0.3;
    errors.dropWatchAfterEvents = 5;
    QTest::newRow("500/503 on 30% of requests") << errors << true;
    cluster::FaultSettings throttled;
    throttled.throttleRate = 0.3;
    throttled.retryAfterSeconds = 1;
    throttled.dropWatchAfterEvents = 5;
    QTest::newRow("429 on 30% of requests") << throttled << true;
}

void tst_ClientIntegration::recoversFromInjectedFaults()
{
    QFETCH(cluster::FaultSettings, faults);
    QFETCH(bool, expectInjectedErrors);
    createApps(u"default"_s, 20);
    m_server->faultInjector()->setSettings(faults);

    // The reflector's own cache, fed only by its deltas. Retries run on the next event-loop turn
    // (the delays asked for are recorded, not waited for).
    kube::RestClient client(m_admin);
    kube::Reflector reflector(&client, CustomApps);
    QList<qint64> delays;
    reflector.setScheduler([&](std::chrono::milliseconds delay, std::function<void()> action) {
        delays << qint64(delay.count());
        QTimer::singleShot(0, &reflector, std::move(action));
    });
    Snapshot cache;
    connect(&reflector, &kube::Reflector::deltasReceived, this, [&](const QList<kube::Delta> &d) {
        for (const kube::Delta &delta : d) {
            if (delta.type == kube::Delta::Type::Delete)
                cache.remove(delta.meta.key());
            else
                cache.insert(delta.meta.key(),
                             { delta.meta.resourceVersion,
                               json::parse(delta.object.toStdString(), nullptr, false) });
        }
    });
    QSignalSpy synced(&reflector, &kube::Reflector::listSynced);
    reflector.start();
    QTRY_VERIFY_WITH_TIMEOUT(synced.size() >= 1, WaitMs);

    // A stream of changes while the faults are on, paced so that a reconnect usually has only a
    // few events to replay: the injector aborts the connection, losing events already written
    // but not yet flushed, and rolls its per-event drop for every replayed event too, so a
    // client that falls dozens of events behind under watchDropRate is cut again before it can
    // catch up (as client-go would be: it too resumes at once from its last resourceVersion).
    int step = 0;
    constexpr int Steps = 120;
    QTimer writer;
    writer.setInterval(15);
    connect(&writer, &QTimer::timeout, this, [&] {
        const int i = step++;
        if (i >= Steps) {
            writer.stop();
            return;
        }
        const QString name = u"app-"_s + QString::number(i % 20);
        if (i % 10 == 9) {
            (void)m_cluster->remove(CustomApps, u"default"_s, name);
        } else if (i % 10 == 3) {
            (void)m_cluster->create(CustomApps,
                                    u"default"_s,
                                    customApp(u"default"_s, u"extra-"_s + QString::number(i)));
        } else {
            (void)m_cluster->patch(CustomApps,
                                   u"default"_s,
                                   name,
                                   apimachinery::PatchType::Merge,
                                   readyStatus(i % 2 ? "True" : "False", i),
                                   true);
        }
    });
    writer.start();
    QTRY_VERIFY_WITH_TIMEOUT(step >= Steps, 30000);
    // Caught up with every change despite the faults.
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.resourceVersion(), QString::number(m_cluster->currentResourceVersion()), 30000);
    const auto injected = m_server->faultInjector()->injectedErrors();
    const auto drops = m_server->faultInjector()->droppedWatches();
    QVERIFY2(drops > 0, "no watch was dropped");
    if (expectInjectedErrors)
        QVERIFY2(injected > 0, "no error was injected");
    if (expectInjectedErrors)
        QVERIFY(!delays.isEmpty()); // failed requests are retried after a backoff
    qInfo("%lld errors injected, %lld watches dropped, %lld retries, %lld lists",
          qlonglong(injected),
          qlonglong(drops),
          qlonglong(delays.size()),
          qlonglong(synced.size()));

    m_server->faultInjector()->reset();
    const auto fresh = freshList();
    QVERIFY(fresh);
    QCOMPARE(cache, *fresh);
    reflector.stop();
}

QTEST_GUILESS_MAIN(tst_ClientIntegration)
#include "tst_clientintegration.moc"
