// The Kubernetes client and informer end to end, on both servers (tst_e2eclient:embedded and
// tst_e2eclient:real): lists across pages, watches, a relist after a real 410 Gone, an API server
// restart mid-watch with nothing lost, 409 as a typed Conflict, 403 for the viewer, token and
// client-certificate identities, and bookmarks when asked. Everything goes through the API; each
// test works in a namespace of its own.
#include "controller/kube/informerstore.h"
#include "controller/kube/objectmeta.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "tests/e2e/e2eserver.h"

#include <nlohmann/json.hpp>

#include <QSignalSpy>
#include <QtTest>

#include <functional>
#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;
using reconscope::tests::e2e::E2eServer;
using reconscope::tests::e2e::Role;
using reconscope::tests::e2e::UncachedWidgets;

namespace {

const apimachinery::ResourceRef CustomApps{ u"infrastructure.internal.net"_s,
                                            u"v1"_s,
                                            u"customapps"_s };
constexpr int WaitMs = 30000;

json customApp(const QString &ns, const QString &name, int replicas = 1)
{
    return reconscope::tests::e2e::customAppManifest(
        name, u"registry.example.com/app:1.0"_s, replicas, ns);
}

json widget(const QString &ns, const QString &name)
{
    return { { "apiVersion", "e2e.reconscope.dev/v1" },
             { "kind", "UncachedWidget" },
             { "metadata", { { "name", name.toStdString() }, { "namespace", ns.toStdString() } } },
             { "spec", { { "size", 1 } } } };
}

// key -> resourceVersion, as a fresh list or a cache holds them.
using Snapshot = QMap<QString, QString>;

// Holds the reflector's scheduled retries so the test decides when time has passed.
struct ManualScheduler
{
    QList<std::function<void()>> pending;
    kube::Reflector::Scheduler function()
    {
        return [this](std::chrono::milliseconds, std::function<void()> action) {
            pending << std::move(action);
        };
    }
    void fireNext()
    {
        if (!pending.isEmpty())
            pending.takeFirst()();
    }
};

template<typename T>
bool arrives(const std::optional<T> &value)
{
    return QTest::qWaitFor([&] { return value.has_value(); }, WaitMs);
}

} // namespace

class tst_E2eClient final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();

    void listFollowsContinueAndGets();
    void informerListsAndWatches();
    void updateConflictIsTyped();
    void viewerReadsButMayNotWrite();
    void tokenAndCertificateIdentities();
    void bookmarksWhenAsked();
    void watchFromCompactedVersionIsGone();
    void reflectorRelistsAfterGone();
    void informerResumesAfterRestart();

private:
    QString path(const apimachinery::ResourceRef &resource) const
    {
        return resource.collectionPath(m_ns);
    }
    void create(const apimachinery::ResourceRef &resource, const json &object);
    void createApps(int count, const QString &prefix = u"app-"_s);
    std::optional<Snapshot> freshList(const apimachinery::ResourceRef &resource);

    std::unique_ptr<E2eServer> m_server;
    QString m_ns;
};

void tst_E2eClient::initTestCase()
{
    QString error;
    m_server = E2eServer::fromEnvironment(&error);
    QVERIFY2(m_server, qPrintable(error));
    qInfo("server: %s, kubeconfig %s",
          qPrintable(m_server->name()),
          qPrintable(m_server->kubeconfigPath()));
    // One loader for both servers: the embedded cluster has the CustomApp CRD already.
    QVERIFY2(m_server->installCustomAppCrd(&error), qPrintable(error));
    // The viewer reads CustomApps on the real server only once a role aggregated into view says
    // so; the embedded cluster serves no RBAC and lets it read every resource (a divergence the
    // README states, pinned here while the role is not there yet).
    if (!m_server->getJson(u"/apis/rbac.authorization.k8s.io/v1/clusterroles/"
                           "e2e-view-infrastructure.internal.net"_s)) {
        const auto before = m_server->getJson(CustomApps.collectionPath(), Role::Viewer);
        QCOMPARE(before.ok(), !m_server->isReal());
        if (m_server->isReal())
            QVERIFY(before.error().isForbidden());
    }
    QVERIFY2(m_server->letViewerRead(u"infrastructure.internal.net"_s, &error), qPrintable(error));
    QVERIFY2(
        m_server->apply(
            QByteArray::fromStdString(reconscope::tests::e2e::uncachedWidgetsCrd().dump()), &error),
        qPrintable(error));
}

void tst_E2eClient::init()
{
    m_ns = m_server->createNamespace(u"e2e-client"_s);
    QVERIFY(!m_ns.isEmpty());
}

void tst_E2eClient::cleanupTestCase()
{
    m_server.reset();
}

void tst_E2eClient::create(const apimachinery::ResourceRef &resource, const json &object)
{
    const auto created = m_server->sendJson("POST", path(resource), object);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
}

void tst_E2eClient::createApps(int count, const QString &prefix)
{
    for (int i = 0; i < count; ++i)
        create(CustomApps, customApp(m_ns, prefix + QString::number(i), 1 + i % 3));
}

std::optional<Snapshot> tst_E2eClient::freshList(const apimachinery::ResourceRef &resource)
{
    kube::RestClient client(m_server->config());
    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> result;
    apimachinery::ListOptions options;
    options.limit = 4;
    client.list(resource, m_ns, options, [&](auto got) { result.emplace(std::move(got)); });
    if (!arrives(result) || !*result)
        return std::nullopt;
    Snapshot snapshot;
    for (const QByteArray &item : result->value().items) {
        kube::ObjectMeta meta;
        if (!kube::ObjectMeta::peek(item, &meta))
            return std::nullopt;
        snapshot.insert(meta.key(), meta.resourceVersion);
    }
    return snapshot;
}

void tst_E2eClient::listFollowsContinueAndGets()
{
    createApps(23);
    kube::RestClient client(m_server->config());
    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> all;
    apimachinery::ListOptions options;
    options.limit = 5;
    client.list(CustomApps, m_ns, options, [&](auto result) { all.emplace(std::move(result)); });
    QVERIFY(arrives(all));
    QVERIFY2(*all, qPrintable(all->ok() ? QString() : all->error().toString()));
    QCOMPARE(all->value().items.size(), 23);
    QVERIFY(all->value().continueToken.isEmpty());
    QVERIFY(!all->value().resourceVersion.isEmpty());

    std::optional<kube::RestClient::JsonResult> got;
    client.get(CustomApps, m_ns, u"app-7"_s, [&](auto result) { got.emplace(std::move(result)); });
    QVERIFY(arrives(got));
    QVERIFY(*got);
    QCOMPARE((*got)->at("spec").at("replicas").get<int>(), 2);

    std::optional<kube::RestClient::JsonResult> missing;
    client.get(
        CustomApps, m_ns, u"nope"_s, [&](auto result) { missing.emplace(std::move(result)); });
    QVERIFY(arrives(missing));
    QVERIFY(!*missing);
    QVERIFY(missing->error().isNotFound());
    QCOMPARE(missing->error().reason, u"NotFound"_s);
    QCOMPARE(missing->error().name, u"nope"_s);
    QCOMPARE(missing->error().message,
             u"customapps.infrastructure.internal.net \"nope\" not found"_s);
}

void tst_E2eClient::informerListsAndWatches()
{
    createApps(12);
    kube::InformerStore store(m_server->config(), CustomApps, m_ns);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QCOMPARE(store.size(), 12);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);

    // Changes made after the list arrive through the watch.
    createApps(2, u"late-"_s);
    QVERIFY(m_server->sendJson("DELETE", path(CustomApps) + u"/app-3"_s, json::object()));
    QVERIFY(m_server->sendJson("PATCH",
                               path(CustomApps) + u"/app-4"_s,
                               { { "spec", { { "replicas", 7 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    QTRY_COMPARE_WITH_TIMEOUT(store.size(), 13, WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(store.entry(m_ns + u"/app-4"_s)
                                 && store.entry(m_ns + u"/app-4"_s)->json()["spec"]["replicas"]
                                     == 7,
                             WaitMs);
    QVERIFY(!store.entry(m_ns + u"/app-3"_s));
    const auto fresh = freshList(CustomApps);
    QVERIFY(fresh);
    Snapshot cached;
    for (auto it = store.entries().cbegin(); it != store.entries().cend(); ++it)
        cached.insert(it.key(), it->summary.resourceVersion);
    QCOMPARE(cached, *fresh);
    store.stop();
}

void tst_E2eClient::updateConflictIsTyped()
{
    createApps(1);
    const auto first = m_server->getJson(path(CustomApps) + u"/app-0"_s);
    QVERIFY(first);
    QVERIFY(m_server->sendJson("PATCH",
                               path(CustomApps) + u"/app-0"_s,
                               { { "spec", { { "replicas", 4 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    // An update from the first read: its resourceVersion is stale.
    json stale = *first;
    stale["spec"]["replicas"] = 9;
    kube::RestClient client(m_server->config());
    std::optional<kube::RestClient::JsonResult> updated;
    client.update(CustomApps, m_ns, u"app-0"_s, stale, [&](auto result) {
        updated.emplace(std::move(result));
    });
    QVERIFY(arrives(updated));
    QVERIFY(!*updated);
    const apimachinery::ApiError &error = updated->error();
    QCOMPARE(error.code, 409);
    QVERIFY(error.isConflict());
    QCOMPARE(error.reason, u"Conflict"_s);
    QCOMPARE(error.name, u"app-0"_s);
    QCOMPARE(error.message,
             u"Operation cannot be fulfilled on customapps.infrastructure.internal.net \"app-0\": "
             "the object has been modified; please apply your changes to the latest version "
             "and try again"_s);
}

void tst_E2eClient::viewerReadsButMayNotWrite()
{
    createApps(2);
    const auto listed = m_server->getJson(path(CustomApps), Role::Viewer);
    QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().toString()));
    QCOMPARE(listed->at("items").size(), 2u);

    const auto denied
        = m_server->sendJson("POST", path(CustomApps), customApp(m_ns, u"x"_s), Role::Viewer);
    QVERIFY(!denied);
    QVERIFY(denied.error().isForbidden());
    QCOMPARE(denied.error().reason, u"Forbidden"_s);
    const QString user = m_server->config(Role::Viewer)
                             .clientCertificate.subjectInfo(QSslCertificate::CommonName)
                             .value(0);
    QCOMPARE(denied.error().message,
             u"customapps.infrastructure.internal.net is forbidden: User \"%1\" cannot create "
             "resource \"customapps\" in API group \"infrastructure.internal.net\" in the "
             "namespace \"%2\""_s.arg(user, m_ns));
}

void tst_E2eClient::tokenAndCertificateIdentities()
{
    const kube::ClientConfig admin = m_server->config(Role::Admin);
    const kube::ClientConfig token = m_server->config(Role::Token);
    QVERIFY(!admin.clientCertificate.isNull());
    QVERIFY(admin.token.isEmpty());
    QVERIFY(!token.token.isEmpty());
    QVERIFY(token.clientCertificate.isNull());
    QVERIFY(m_server->sendJson("POST", path(CustomApps), customApp(m_ns, u"by-cert"_s)));
    QVERIFY(
        m_server->sendJson("POST", path(CustomApps), customApp(m_ns, u"by-token"_s), Role::Token));
    const auto listed = m_server->getJson(path(CustomApps), Role::Token);
    QVERIFY(listed);
    QCOMPARE(listed->at("items").size(), 2u);

    // A token the server does not know is 401, typed.
    kube::ClientConfig wrong = token;
    wrong.token = u"not-a-token"_s;
    kube::RestClient client(wrong);
    std::optional<kube::RestClient::JsonResult> refused;
    client.get(
        CustomApps, m_ns, u"by-cert"_s, [&](auto result) { refused.emplace(std::move(result)); });
    QVERIFY(arrives(refused));
    QVERIFY(!*refused);
    QVERIFY(refused->error().isUnauthorized());
}

void tst_E2eClient::bookmarksWhenAsked()
{
    createApps(2);
    // A watch list (sendInitialEvents): the objects as ADDED, then the bookmark that marks the end
    // of the initial events, at once (periodic bookmarks come about once a minute on both).
    const auto watched
        = m_server->getBytes(path(CustomApps)
                             + u"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                               "&allowWatchBookmarks=true&timeoutSeconds=3"_s);
    QVERIFY2(watched, qPrintable(watched ? QString() : watched.error().toString()));
    QStringList types;
    json bookmark;
    for (const QByteArray &line : watched->trimmed().split('\n')) {
        const json event = json::parse(line.toStdString(), nullptr, false);
        QVERIFY2(event.is_object(), line.constData());
        types << QString::fromStdString(event.value("type", ""));
        if (event.value("type", "") == "BOOKMARK" && bookmark.is_null())
            bookmark = event["object"];
    }
    QCOMPARE(types.mid(0, 3), (QStringList{ u"ADDED"_s, u"ADDED"_s, u"BOOKMARK"_s }));
    QCOMPARE(bookmark.value("kind", ""), "CustomApp");
    QVERIFY(!bookmark["metadata"].value("resourceVersion", "").empty());
    QCOMPARE(bookmark["metadata"]["annotations"].value("k8s.io/initial-events-end", ""), "true");
}

void tst_E2eClient::watchFromCompactedVersionIsGone()
{
    create(UncachedWidgets, widget(m_ns, u"w-0"_s));
    const auto listed = m_server->getJson(path(UncachedWidgets));
    QVERIFY(listed);
    const QString listedAt
        = QString::fromStdString(listed->at("metadata").at("resourceVersion").get<std::string>());
    for (int i = 1; i < 4; ++i)
        create(UncachedWidgets, widget(m_ns, u"w-"_s + QString::number(i)));
    QString error;
    QVERIFY2(m_server->compact(&error), qPrintable(error));

    kube::RestClient client(m_server->config());
    apimachinery::WatchOptions options;
    options.resourceVersion = listedAt;
    options.allowWatchBookmarks = true;
    std::optional<apimachinery::ApiError> gone;
    bool finished = false;
    kube::WatchConnection *watch = client.watch(UncachedWidgets, m_ns, options, this);
    connect(watch,
            &kube::WatchConnection::eventsReceived,
            this,
            [&](const QList<kube::WatchEvent> &received) {
                for (const kube::WatchEvent &event : received) {
                    if (event.type == kube::WatchEvent::Type::Error)
                        gone = event.status;
                }
            });
    connect(watch,
            &kube::WatchConnection::finished,
            this,
            [&](const std::optional<apimachinery::ApiError> &failure) {
                finished = true;
                if (failure && failure->code != 0 && !gone)
                    gone = failure;
            });
    QTRY_VERIFY_WITH_TIMEOUT(gone.has_value(), WaitMs);
    QVERIFY2(gone->isExpired(), qPrintable(gone->toString()));
    QCOMPARE(gone->code, 410);
    delete watch;
}

void tst_E2eClient::reflectorRelistsAfterGone()
{
    for (int i = 0; i < 5; ++i)
        create(UncachedWidgets, widget(m_ns, u"w-"_s + QString::number(i)));
    // Declared before the reflector: they outlive it (it reports its stop).
    ManualScheduler scheduler;
    Snapshot cache;
    QList<kube::ReflectorState> states;
    kube::RestClient client(m_server->config());
    kube::Reflector reflector(&client, UncachedWidgets, m_ns);
    reflector.setScheduler(scheduler.function());
    reflector.setRandom([] { return 0.0; });
    connect(&reflector, &kube::Reflector::deltasReceived, this, [&](const QList<kube::Delta> &d) {
        for (const kube::Delta &delta : d) {
            if (delta.type == kube::Delta::Type::Delete)
                cache.remove(delta.meta.key());
            else
                cache.insert(delta.meta.key(), delta.meta.resourceVersion);
        }
    });
    connect(&reflector,
            &kube::Reflector::stateChanged,
            this,
            [&](const kube::ReflectorState &state) { states << state; });
    QSignalSpy synced(&reflector, &kube::Reflector::listSynced);
    reflector.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    QCOMPARE(cache.size(), 5);

    // The API server goes away: the watch is cut and the reflector's retry is held here. Before it
    // runs, objects go and come and the history is compacted: the watch cannot resume from the
    // reflector's resourceVersion (410 Gone) and it must relist.
    QString error;
    QVERIFY2(m_server->restartApiServer(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(scheduler.pending.size(), 1, WaitMs);
    QVERIFY(m_server->sendJson("DELETE", path(UncachedWidgets) + u"/w-2"_s, json::object()));
    create(UncachedWidgets, widget(m_ns, u"new-0"_s));
    QVERIFY2(m_server->compact(&error), qPrintable(error));
    scheduler.fireNext();

    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 2, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(
        reflector.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    bool sawGone = false;
    for (const auto &state : std::as_const(states))
        sawGone = sawGone
            || (state.phase == kube::ReflectorState::Phase::Relisting
                && state.lastError.contains(u"410"_s));
    QVERIFY(sawGone);
    const auto fresh = freshList(UncachedWidgets);
    QVERIFY(fresh);
    QCOMPARE(cache, *fresh);
    QVERIFY(!cache.contains(m_ns + u"/w-2"_s));
    QVERIFY(cache.contains(m_ns + u"/new-0"_s));
}

void tst_E2eClient::informerResumesAfterRestart()
{
    createApps(6);
    kube::InformerStore store(m_server->config(), CustomApps, m_ns);
    QSignalSpy synced(&store, &kube::InformerStore::synced);
    store.start();
    QTRY_COMPARE_WITH_TIMEOUT(synced.size(), 1, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);

    QString error;
    QVERIFY2(m_server->restartApiServer(&error), qPrintable(error));
    // Changes while the informer reconnects: none may be lost.
    QVERIFY(m_server->sendJson("DELETE", path(CustomApps) + u"/app-2"_s, json::object()));
    QVERIFY(m_server->sendJson("PATCH",
                               path(CustomApps) + u"/app-3"_s,
                               { { "spec", { { "replicas", 5 } } } },
                               Role::Admin,
                               "application/merge-patch+json"));
    createApps(2, u"after-"_s);
    const auto fresh = freshList(CustomApps);
    QVERIFY(fresh);
    QCOMPARE(fresh->size(), 7);
    auto cached = [&] {
        Snapshot snapshot;
        for (auto it = store.entries().cbegin(); it != store.entries().cend(); ++it)
            snapshot.insert(it.key(), it->summary.resourceVersion);
        return snapshot;
    };
    QTRY_COMPARE_WITH_TIMEOUT(cached(), *fresh, WaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(store.state().phase, kube::ReflectorState::Phase::Watching, WaitMs);
    store.stop();
}

QTEST_GUILESS_MAIN(tst_E2eClient)
#include "tst_e2eclient.moc"
