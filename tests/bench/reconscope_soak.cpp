// The soak (issue 9, item 5): the demo - embedded cluster with its workload simulator and seeded
// objects, the CustomApp operator, a console-side informer and a raw reflector - runs for M
// minutes (10 by default) while a "user" keeps changing CustomApps and faults of every kind are
// injected at random. Recorded: resident memory at start and end (and its peak), settled after
// the warm-up and at the end beside the live heap at the same moments (README "Faults" explains
// how to read them), faults injected by kind, and the client's view against the server's truth:
//   - every change the reflector delivered exists on the server with the same resourceVersion
//     and lifecycle state, in the server's order (the transition log is consistent);
//   - every committed change the reflector did not deliver falls inside a relist gap (a 410 made
//     it unobservable, as for any client-go informer): nothing else is lost;
//   - at the end the informer's cache equals a fresh list, and the operator has converged.
// Not a test: `./dev bench --soak [--minutes M] [--seed S] [--json FILE]`.
#include "controller/cluster/cluster.h"
#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/cluster/sim/workloadsimulator.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/objectsummarizer.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "models/lifecycle.h"
#include "models/objectsummary.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QMap>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <malloc.h>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <unistd.h>

using namespace Qt::StringLiterals;
using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;
namespace operators = reconscope::controller::operators;
namespace reconcile = reconscope::controller::reconcile;

namespace {

const apimachinery::ResourceRef ClusterDeployments{ u"apps"_s, u"v1"_s, u"deployments"_s };
const apimachinery::ResourceRef CustomApps{ u"infrastructure.internal.net"_s,
                                            u"v1"_s,
                                            u"customapps"_s };
const QString CustomAppsStorageKey = u"infrastructure.internal.net/customapps"_s;
const QString SoakNamespace = u"soak"_s;

qint64 statusKb(const char *field)
{
    QFile file(u"/proc/self/status"_s);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// The heap's own view (all arenas): bytes handed out and live, and bytes the allocator holds free.
// RSS growth with flat live bytes is fragmentation or allocator caches; growth of live bytes is a
// leak or an unbounded structure.
struct HeapFigures
{
    qint64 liveKb = 0;
    qint64 freeKb = 0;
};

HeapFigures heapFigures()
{
    const struct mallinfo2 info = ::mallinfo2();
    return { qint64((info.uordblks + info.hblkhd) / 1024), qint64(info.fordblks / 1024) };
}

QString stateOf(const QByteArray &object)
{
    static const kube::ObjectSummarizer summarizer(models::LifecycleMapping::defaults());
    const auto summary = summarizer.summarize(object);
    if (!summary)
        return u"Unreadable"_s;
    // One shared string per state: the soak's own record of every change must not be what grows.
    static QHash<QString, QString> names;
    const QString name = models::lifecycleStateName(
        models::deriveLifecycle(summary.value(), models::LifecycleMapping::defaults()).state);
    return *names.insert(name, name);
}

struct Change
{
    qint64 rv = 0;
    QString state; // "Gone" for a delete
};

struct Options
{
    double minutes = 10;
    quint32 seed = 0;
    QString jsonPath;
    bool faults = true; // --no-faults: the same run without faults (a baseline for memory)
    // --exit-without-teardown: end with _exit() right after the report, so that a heap profiler
    // (heaptrack) reports everything still live at the end as "leaked"; two runs of different
    // lengths, diffed (heaptrack_print --diff), show what grows.
    bool exitWithoutTeardown = false;
    // --history-window N: the embedded cluster's watch history (10,000 events by default) for
    // this run; its high-water mark is what the allocator keeps after a compaction.
    int historyWindow = 0;
};

class Soak final : public QObject
{
public:
    explicit Soak(Options options)
        : m_options(options)
        , m_random(options.seed ? options.seed : std::random_device{}())
    { }

    int run();

private:
    bool startCluster();
    void userStep();
    void faultStep();
    void endFault();
    void sampleMemory();
    static void writeMallocInfo(const char *when);
    qint64 steadyRssKb();
    qint64 storedObjects() const;
    void collectEvents();
    bool waitFor(const std::function<bool()> &condition, int ms);
    std::optional<QMap<QString, QString>> freshList();
    QString convergenceProblem() const;
    int finish();
    int uniform(int low, int high) { return std::uniform_int_distribution(low, high)(m_random); }
    double chance() { return std::uniform_real_distribution(0.0, 1.0)(m_random); }

    Options m_options;
    std::mt19937 m_random;
    QTemporaryDir m_dir;
    std::unique_ptr<cluster::EmbeddedServer> m_server;
    cluster::Cluster *m_cluster = nullptr;
    kube::ClientConfig m_config;
    reconcile::RealClock m_clock;
    std::unique_ptr<operators::CustomAppOperator> m_operator;
    std::unique_ptr<kube::InformerStore> m_informer;
    std::unique_ptr<kube::RestClient> m_reflectorClient;
    std::unique_ptr<kube::Reflector> m_reflector;
    int m_subscription = 0;

    // Truth and observation, per key.
    std::map<QString, std::vector<Change>> m_server_;
    std::map<QString, std::vector<Change>> m_client;
    qint64 m_clientOutOfOrder = 0;
    // Relist gaps: (RV before, RV of the list]; the first list is a gap from 0.
    std::vector<std::pair<qint64, qint64>> m_gaps;
    qint64 m_gapStart = 0;
    bool m_inGap = true;

    QMap<QString, int> m_faults; // kind -> times injected
    QString m_activeFault;
    bool m_finishing = false;
    qint64 m_userWrites = 0;
    int m_nextApp = 0;
    QList<QPair<double, qint64>> m_rss; // minutes, kB
    qint64 m_warmRssKb = 0; // steady-state RSS after the warm-up (2 minutes)
    HeapFigures m_warmHeap; // the heap at the same moment
    qint64 m_warmObjects = 0;
    QElapsedTimer m_elapsed;
};

bool Soak::startCluster()
{
    cluster::EmbeddedClusterOptions options; // the demo: seeded objects and the simulator
    cluster::EmbeddedServerOptions serverOptions;
    serverOptions.kubeconfigPath = m_dir.filePath(u"kubeconfig"_s);
    m_server = std::make_unique<cluster::EmbeddedServer>(cluster::embeddedClusterFactory(options),
                                                         serverOptions);
    if (const auto started = m_server->start(); !started.ok()) {
        std::fprintf(stderr, "soak: %s\n", qPrintable(started.error().message));
        return false;
    }
    m_cluster = cluster::clusterOf(*m_server);
    if (m_cluster && m_options.historyWindow > 0)
        m_cluster->setHistoryWindow(m_options.historyWindow);
    auto kubeconfig = kube::Kubeconfig::load(m_server->kubeconfigPath());
    if (!m_cluster || !kubeconfig)
        return false;
    auto config = kubeconfig->resolve(u"reconscope-admin"_s);
    if (!config)
        return false;
    m_config = config.value();
    (void)m_cluster->create(apimachinery::ResourceRef{ QString(), u"v1"_s, u"namespaces"_s },
                            {},
                            json{ { "apiVersion", "v1" },
                                  { "kind", "Namespace" },
                                  { "metadata", { { "name", SoakNamespace.toStdString() } } } });
    m_subscription = m_cluster->subscribe([this](const cluster::ClusterEvent &event) {
        if (event.storageKey != CustomAppsStorageKey || !event.object)
            return;
        const QString key = event.object->ns + u'/' + event.object->name;
        m_server_[key].push_back({ event.resourceVersion,
                                   event.type == cluster::EventType::Deleted
                                       ? u"Gone"_s
                                       : stateOf(event.object->json) });
    });
    // What existed before the subscription (the demo's seed) counts as the first state.
    const auto existing = m_cluster->list(CustomApps, {});
    if (existing.ok()) {
        for (const auto &item : existing.value().value("items", json::array())) {
            const QByteArray bytes = QByteArray::fromStdString(item.dump());
            kube::ObjectMeta meta;
            if (kube::ObjectMeta::peek(bytes, &meta))
                m_server_[meta.key()].insert(m_server_[meta.key()].begin(),
                                             { meta.resourceVersion.toLongLong(), stateOf(bytes) });
        }
    }
    return true;
}

void Soak::userStep()
{
    // Create, scale, break and fix, delete: the kinds of change an SRE's cluster sees. Names come
    // from a pool of MaxApps, so the cluster stays the same size and memory measures leaks.
    constexpr int MaxApps = 40;
    const int roll = uniform(0, 99);
    const QString name = u"soak-"_s + QString::number(uniform(0, MaxApps - 1));
    bool ok = false;
    if (m_nextApp < 5 || roll < 15) {
        const QString fresh = m_nextApp < 5 ? u"soak-"_s + QString::number(m_nextApp++) : name;
        ok = m_cluster
                 ->create(CustomApps,
                          SoakNamespace,
                          json{ { "apiVersion", "infrastructure.internal.net/v1" },
                                { "kind", "CustomApp" },
                                { "metadata",
                                  { { "name", fresh.toStdString() },
                                    { "namespace", SoakNamespace.toStdString() } } },
                                { "spec",
                                  { { "image", "nginx:1.27" }, { "replicas", uniform(1, 3) } } } })
                 .ok();
    } else if (roll < 70) {
        ok = m_cluster
                 ->patch(CustomApps,
                         SoakNamespace,
                         name,
                         apimachinery::PatchType::Merge,
                         QByteArray::fromStdString(
                             json{ { "spec", { { "replicas", uniform(1, 4) } } } }.dump()))
                 .ok();
    } else if (roll < 80) {
        // An image that cannot be pulled (Degraded), later fixed by the next scale/fix.
        const char *image = chance() < 0.5 ? "registry.invalid/nope:0" : "nginx:1.27";
        ok = m_cluster
                 ->patch(
                     CustomApps,
                     SoakNamespace,
                     name,
                     apimachinery::PatchType::Merge,
                     QByteArray::fromStdString(json{ { "spec", { { "image", image } } } }.dump()))
                 .ok();
    } else if (roll < 88) {
        ok = m_cluster->remove(CustomApps, SoakNamespace, name).ok();
    } else {
        // A stray status write from someone else (the operator must overwrite it).
        ok = m_cluster
                 ->patch(
                     CustomApps,
                     SoakNamespace,
                     name,
                     apimachinery::PatchType::Merge,
                     R"({"status":{"conditions":[{"type":"Ready","status":"False","reason":"Meddled","message":"soak","lastTransitionTime":"2026-11-30T00:00:00Z"}]}})",
                     true)
                 .ok();
    }
    m_userWrites += ok ? 1 : 0;
}

void Soak::faultStep()
{
    if (!m_activeFault.isEmpty() || m_finishing || !m_options.faults)
        return;
    static const QStringList kinds{ u"latency"_s, u"5xx"_s,         u"5xx+Retry-After"_s,
                                    u"429"_s,     u"watch drops"_s, u"compaction (410)"_s,
                                    u"restart"_s, u"409 storm"_s };
    const QString kind = kinds.at(uniform(0, int(kinds.size()) - 1));
    auto &faults = *m_server->faultInjector();
    m_activeFault = kind;
    ++m_faults[kind];
    int durationMs = uniform(2000, 8000);
    if (kind == u"latency") {
        faults.setLatency(std::chrono::milliseconds(uniform(50, 300)),
                          std::chrono::milliseconds(uniform(0, 200)));
    } else if (kind == u"5xx") {
        faults.setServerErrorRate(0.05 * uniform(1, 6));
    } else if (kind == u"5xx+Retry-After") {
        cluster::FaultSettings settings;
        settings.serverErrorRate = 0.05 * uniform(1, 4);
        settings.serverErrorRetryAfterSeconds = 1;
        faults.setSettings(settings);
    } else if (kind == u"429") {
        faults.setThrottleRate(0.05 * uniform(1, 4), 1);
    } else if (kind == u"watch drops") {
        cluster::FaultSettings settings;
        settings.dropWatchAfterEvents = uniform(2, 30);
        settings.watchDropRate = 0.01 * uniform(0, 5);
        faults.setSettings(settings);
    } else if (kind == u"compaction (410)") {
        faults.setDropWatchAfterEvents(1);
        for (int i = 0; i < 3; ++i)
            userStep();
        m_cluster->compact();
        faults.setDropWatchAfterEvents(0);
        durationMs = 500;
    } else if (kind == u"restart") {
        m_server->stop();
        durationMs = uniform(500, 4000);
    } else if (kind == u"409 storm") {
        faults.setConflictRate(0.2 * uniform(1, 4));
    }
    QTimer::singleShot(durationMs, this, [this] { endFault(); });
}

void Soak::endFault()
{
    if (m_activeFault == u"restart" && !m_server->isRunning()) {
        if (const auto started = m_server->start(); !started.ok())
            std::fprintf(stderr, "soak: restart failed: %s\n", qPrintable(started.error().message));
    }
    m_server->faultInjector()->reset();
    m_activeFault.clear();
    if (!m_finishing)
        QTimer::singleShot(uniform(1000, 6000), this, [this] { faultStep(); });
}

void Soak::sampleMemory()
{
    m_rss.append({ m_elapsed.elapsed() / 60000.0, statusKb("VmRSS") });
}

void Soak::writeMallocInfo(const char *when)
{
    // glibc's own account per arena (free chunks by size, top, mmapped): the evidence for telling
    // fragmentation from growth. SOAK_MALLOC_INFO=PREFIX writes PREFIX-warm.xml and PREFIX-end.xml.
    const QByteArray prefix = qgetenv("SOAK_MALLOC_INFO");
    if (prefix.isEmpty())
        return;
    if (FILE *out = std::fopen((prefix + '-' + when + ".xml").constData(), "w")) {
        ::malloc_info(0, out);
        std::fclose(out);
    }
}

qint64 Soak::steadyRssKb()
{
    // Like a cluster between compactions: the watch history (up to 10,000 events with their
    // objects) dropped, expired Events gone, freed memory handed back, so that what remains is
    // what is live.
    collectEvents();
    m_cluster->compact();
    waitFor([] { return false; }, 500);
    ::malloc_trim(0);
    return statusKb("VmRSS");
}

void Soak::collectEvents()
{
    // kube-apiserver expires Events after a TTL (--event-ttl, 1 h); the embedded cluster keeps
    // them, so the soak expires them itself with the TTL compressed to 60 s, to keep the stored
    // data bounded and let memory measure leaks.
    const apimachinery::ResourceRef events{ QString(), u"v1"_s, u"events"_s };
    const auto list = m_cluster->list(events, {});
    if (!list.ok())
        return;
    const QDateTime expired = QDateTime::currentDateTimeUtc().addSecs(-60);
    for (const auto &event : list.value().value("items", json::array())) {
        std::string last = event.value("lastTimestamp", "");
        if (last.empty())
            last = event["metadata"].value("creationTimestamp", "");
        const QDateTime at = QDateTime::fromString(QString::fromStdString(last), Qt::ISODate);
        if (at.isValid() && at < expired)
            (void)m_cluster->remove(
                events,
                QString::fromStdString(event["metadata"].value("namespace", "")),
                QString::fromStdString(event["metadata"].value("name", "")));
    }
}

qint64 Soak::storedObjects() const
{
    qint64 count = 0;
    for (const apimachinery::ResourceRef &ref :
         { CustomApps,
           ClusterDeployments,
           apimachinery::ResourceRef{ QString(), u"v1"_s, u"pods"_s },
           apimachinery::ResourceRef{ QString(), u"v1"_s, u"events"_s } }) {
        const auto list = m_cluster->list(ref, {});
        if (list.ok())
            count += qint64(list.value().value("items", json::array()).size());
        if (list.ok() && qEnvironmentVariableIsSet("SOAK_DEBUG"))
            std::printf("  %s: %zu\n",
                        qPrintable(ref.plural),
                        list.value().value("items", json::array()).size());
    }
    return count;
}

bool Soak::waitFor(const std::function<bool()> &condition, int ms)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > ms)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

std::optional<QMap<QString, QString>> Soak::freshList()
{
    kube::RestClient client(m_config);
    std::optional<models::Result<kube::ListPage, apimachinery::ApiError>> result;
    client.list(CustomApps, {}, { .limit = kube::DefaultListPageSize }, [&](auto got) {
        result.emplace(std::move(got));
    });
    if (!waitFor([&] { return result.has_value(); }, 60000) || !*result)
        return std::nullopt;
    QMap<QString, QString> snapshot;
    for (const QByteArray &item : result->value().items) {
        kube::ObjectMeta meta;
        if (kube::ObjectMeta::peek(item, &meta))
            snapshot.insert(meta.key(), meta.resourceVersion);
    }
    return snapshot;
}

QString Soak::convergenceProblem() const
{
    const auto apps = m_cluster->list(CustomApps, SoakNamespace);
    if (!apps.ok())
        return apps.error().message;
    for (const auto &item : apps.value().value("items", json::array())) {
        const QString name = QString::fromStdString(item["metadata"].value("name", ""));
        const QString state = stateOf(QByteArray::fromStdString(item.dump()));
        const bool unpullable
            = item["spec"].value("image", "").find("registry.invalid") != std::string::npos;
        if (unpullable)
            continue; // stays Degraded by design
        if (state != u"Ready")
            return name + u" is "_s + state;
        const auto deployment = m_cluster->get(ClusterDeployments, SoakNamespace, name);
        if (!deployment.ok()
            || deployment.value()["spec"].value("replicas", -1)
                != item["spec"].value("replicas", -2))
            return name + u"'s Deployment differs"_s;
    }
    return {};
}

int Soak::run()
{
    // The operator's warnings about failed Event writes under faults would drown the figures.
    spdlog::set_level(spdlog::level::err);
    if (!startCluster())
        return 1;
    operators::CustomAppOperator::Options operatorOptions;
    operatorOptions.loop.maxDelay = std::chrono::seconds(5);
    m_operator = std::make_unique<operators::CustomAppOperator>(m_config, m_clock, operatorOptions);
    m_operator->start();
    m_informer = std::make_unique<kube::InformerStore>(m_config, CustomApps);
    m_informer->start();

    // The raw reflector: every delta it delivers is compared with the server's record.
    m_reflectorClient = std::make_unique<kube::RestClient>(m_config);
    m_reflector = std::make_unique<kube::Reflector>(m_reflectorClient.get(), CustomApps);
    connect(m_reflector.get(),
            &kube::Reflector::stateChanged,
            this,
            [this](const kube::ReflectorState &state) {
                if (state.phase == kube::ReflectorState::Phase::Relisting && !m_inGap) {
                    m_inGap = true;
                    m_gapStart = m_reflector->resourceVersion().toLongLong();
                }
            });
    connect(m_reflector.get(), &kube::Reflector::listSynced, this, [this](const QString &rv) {
        m_gaps.emplace_back(m_gapStart, rv.toLongLong());
        m_inGap = false;
    });
    connect(m_reflector.get(),
            &kube::Reflector::deltasReceived,
            this,
            [this](const QList<kube::Delta> &deltas) {
                for (const kube::Delta &delta : deltas) {
                    Change change;
                    change.rv = delta.meta.resourceVersion.toLongLong();
                    change.state = delta.type == kube::Delta::Type::Delete ? u"Gone"_s
                                                                           : stateOf(delta.object);
                    auto &seen = m_client[delta.meta.key()];
                    // A relist repeats the current state of unchanged objects: not a change.
                    if (!seen.empty() && seen.back().rv == change.rv
                        && seen.back().state == change.state)
                        continue;
                    if (!seen.empty() && change.rv < seen.back().rv
                        && delta.type != kube::Delta::Type::Delete)
                        ++m_clientOutOfOrder;
                    seen.push_back(change);
                }
            });
    m_reflector->start();
    if (!waitFor([&] { return m_informer->hasSynced() && m_reflector->hasSynced(); }, 60000)) {
        std::fprintf(stderr, "soak: the clients did not sync\n");
        return 1;
    }
    m_elapsed.start();
    waitFor([] { return false; }, 3000); // let the operator settle the seeded objects
    sampleMemory();
    const qint64 rssStartKb = m_rss.last().second;
    std::printf("soak: %.1f minutes, seed %u, RSS at start %.1f MiB\n",
                m_options.minutes,
                unsigned(m_options.seed),
                rssStartKb / 1024.0);
    std::fflush(stdout);

    QTimer user;
    user.setInterval(150);
    connect(&user, &QTimer::timeout, this, [this] { userStep(); });
    user.start();
    QTimer memory;
    memory.setInterval(30000);
    connect(&memory, &QTimer::timeout, this, [this] {
        collectEvents();
        sampleMemory();
        const HeapFigures heap = heapFigures();
        std::printf("soak: %5.1f min  RSS %.1f MiB  heap live %.1f free %.1f MiB  threads %lld  "
                    "faults %lld  user writes %lld\n",
                    m_rss.last().first,
                    m_rss.last().second / 1024.0,
                    heap.liveKb / 1024.0,
                    heap.freeKb / 1024.0,
                    qlonglong(statusKb("Threads")),
                    qlonglong(std::accumulate(m_faults.cbegin(), m_faults.cend(), 0)),
                    qlonglong(m_userWrites));
        std::fflush(stdout);
    });
    memory.start();
    QTimer::singleShot(2000, this, [this] { faultStep(); });
    // The baseline for leaks: once the soak namespace has filled up and every cache is warm.
    QTimer::singleShot(
        std::min<qint64>(120000, qint64(m_options.minutes * 60000) / 5), this, [this] {
            m_warmRssKb = steadyRssKb();
            m_warmHeap = heapFigures();
            writeMallocInfo("warm");
            m_warmObjects = storedObjects();
            std::printf(
                "soak: steady RSS after warm-up %.1f MiB, heap live %.1f / free %.1f MiB (%lld "
                "objects)\n",
                m_warmRssKb / 1024.0,
                m_warmHeap.liveKb / 1024.0,
                m_warmHeap.freeKb / 1024.0,
                qlonglong(m_warmObjects));
            std::fflush(stdout);
        });
    const qint64 runMs = qint64(m_options.minutes * 60000);
    waitFor([&] { return m_elapsed.elapsed() >= runMs; }, int(runMs + 1000));
    user.stop();
    memory.stop();
    return finish();
}

int Soak::finish()
{
    // No more faults (a pending endFault only restores); the server back if it was down.
    m_finishing = true;
    if (!m_server->isRunning())
        (void)m_server->start();
    m_server->faultInjector()->reset();

    QString problem;
    const bool converged = waitFor(
        [&] {
            problem = convergenceProblem();
            return problem.isEmpty();
        },
        120000);
    const QString latest = QString::number(m_cluster->currentResourceVersion());
    // Caught up: the reflector's RV at the server's (bookmarks or events).
    bool caughtUp = waitFor(
        [&] {
            const auto fresh = m_cluster->list(CustomApps, {});
            if (!fresh.ok())
                return false;
            QMap<QString, QString> storage;
            for (const auto &item : fresh.value().value("items", json::array()))
                storage.insert(
                    QString::fromStdString(item["metadata"].value("namespace", "")) + u'/'
                        + QString::fromStdString(item["metadata"].value("name", "")),
                    QString::fromStdString(item["metadata"].value("resourceVersion", "")));
            QMap<QString, QString> informer;
            for (auto it = m_informer->entries().cbegin(); it != m_informer->entries().cend(); ++it)
                informer.insert(it.key(), it->summary.resourceVersion);
            return informer == storage;
        },
        120000);
    sampleMemory();
    const qint64 rssStartKb = m_rss.first().second;
    const qint64 rssEndKb = m_rss.last().second;
    const qint64 steadyEndKb = steadyRssKb();
    const HeapFigures endHeap = heapFigures();
    writeMallocInfo("end");
    const qint64 objectsAtEnd = storedObjects();
    const qint64 rssPeakKb = statusKb("VmHWM");

    const auto fresh = freshList();
    QMap<QString, QString> informer;
    for (auto it = m_informer->entries().cbegin(); it != m_informer->entries().cend(); ++it)
        informer.insert(it.key(), it->summary.resourceVersion);
    const bool informerEqualsFresh = fresh && *fresh == informer;

    // The reflector's record against the server's.
    qint64 serverChanges = 0;
    qint64 clientChanges = 0;
    qint64 unknownToServer = 0; // delivered, but no such (key, rv, state) was committed
    qint64 missedInGaps = 0; // not delivered, unobservable (inside a relist gap)
    qint64 lost = 0; // not delivered, and no relist explains it
    qint64 serverTransitions = 0;
    qint64 clientTransitions = 0;
    const qint64 firstRv = m_gaps.empty() ? 0 : m_gaps.front().second;
    const qint64 lastRv = m_reflector->resourceVersion().toLongLong();
    QStringList lostExamples;
    for (const auto &[key, changes] : m_server_) {
        const auto clientIt = m_client.find(key);
        const std::vector<Change> empty;
        const auto &seen = clientIt == m_client.end() ? empty : clientIt->second;
        std::map<qint64, QString> seenByRv;
        for (const Change &c : seen)
            seenByRv[c.rv] = c.state;
        QString previous;
        for (const Change &c : changes) {
            if (c.rv <= firstRv || c.rv > lastRv)
                continue; // before the first list or after the end
            ++serverChanges;
            if (c.state != previous)
                ++serverTransitions;
            previous = c.state;
            if (seenByRv.count(c.rv))
                continue;
            bool inGap = false;
            for (const auto &[from, to] : m_gaps)
                inGap = inGap || (c.rv > from && c.rv <= to);
            if (inGap) {
                ++missedInGaps;
            } else {
                ++lost;
                if (lostExamples.size() < 5)
                    lostExamples << u"%1@%2 %3"_s.arg(key, QString::number(c.rv), c.state);
            }
        }
    }
    for (const auto &[key, seen] : m_client) {
        const auto serverIt = m_server_.find(key);
        QString previous;
        for (const Change &c : seen) {
            ++clientChanges;
            if (c.state != previous)
                ++clientTransitions;
            previous = c.state;
            bool found = false;
            if (serverIt != m_server_.end()) {
                for (const Change &s : serverIt->second)
                    found = found || (s.rv == c.rv && s.state == c.state);
                // A relist reports a vanished object's delete with its last known RV.
                found = found || (c.state == u"Gone");
            }
            unknownToServer += found ? 0 : 1;
        }
    }

    qint64 faultsTotal = 0;
    json faultsJson = json::object();
    for (auto it = m_faults.cbegin(); it != m_faults.cend(); ++it) {
        faultsTotal += it.value();
        faultsJson[it.key().toStdString()] = it.value();
    }
    const auto &injector = *m_server->faultInjector();
    const double growthMiB = (steadyEndKb - m_warmRssKb) / 1024.0;
    // Bound: from the warm baseline to the end, both in steady state, at most 16 MiB or 20%
    // (the stored Events keep growing a little, as in a real cluster until their TTL).
    //
    // What the figure holds (heaptrack and malloc_info, README "Faults"): RSS is live heap plus
    // what glibc keeps of freed memory. malloc_trim() hands back whole free pages, not the partly
    // used pages of fragmented arenas; the threads that come and go with the faults (each
    // QNetworkAccessManager's HTTP thread, reconnects) spread allocations over up to 8 arenas per
    // core, and those arenas grow with fragments. So the settled RSS is reported next to the live
    // heap (mallinfo2: bytes allocated and not freed, all arenas) at the same two moments, and the
    // RSS trend over the last third of the run: a leak grows the live heap and keeps the trend up,
    // fragmentation levels off. The bound itself stays on RSS, what the operator's machine pays.
    const bool memoryOk = m_warmRssKb > 0
        && steadyEndKb - m_warmRssKb <= std::max<qint64>(16 * 1024, m_warmRssKb / 5);
    // RSS samples (unsettled) at two thirds of the run and at its end.
    double lastThirdGrowthMiB = 0;
    if (m_rss.size() >= 3) {
        const double from = m_options.minutes * 2 / 3;
        auto at = std::find_if(m_rss.cbegin(), m_rss.cend(), [from](const auto &sample) {
            return sample.first >= from;
        });
        if (at != m_rss.cend())
            lastThirdGrowthMiB = (m_rss.last().second - at->second) / 1024.0;
    }
    const bool ok = converged && caughtUp && informerEqualsFresh && lost == 0
        && unknownToServer == 0 && m_clientOutOfOrder == 0 && memoryOk;

    json report = {
        { "minutes", m_options.minutes },
        { "seed", m_options.seed },
        { "rssStartMiB", rssStartKb / 1024.0 },
        { "rssEndMiB", rssEndKb / 1024.0 },
        { "rssPeakMiB", rssPeakKb / 1024.0 },
        { "rssSteadyAfterWarmupMiB", m_warmRssKb / 1024.0 },
        { "rssSteadyEndMiB", steadyEndKb / 1024.0 },
        { "rssSteadyGrowthMiB", growthMiB },
        { "rssGrowthOverLastThirdMiB", lastThirdGrowthMiB },
        { "heapLiveGrowthMiB", (endHeap.liveKb - m_warmHeap.liveKb) / 1024.0 },
        { "heapLiveAfterWarmupMiB", m_warmHeap.liveKb / 1024.0 },
        { "heapLiveEndMiB", endHeap.liveKb / 1024.0 },
        { "heapFreeAfterWarmupMiB", m_warmHeap.freeKb / 1024.0 },
        { "heapFreeEndMiB", endHeap.freeKb / 1024.0 },
        { "memoryWithinBound", memoryOk },
        { "storedObjectsAfterWarmup", m_warmObjects },
        { "storedObjectsAtEnd", objectsAtEnd },
        { "faults", faultsJson },
        { "faultsTotal", faultsTotal },
        { "injectedErrors", injector.injectedErrors() },
        { "injectedConflicts", injector.injectedConflicts() },
        { "droppedWatches", injector.droppedWatches() },
        { "userWrites", m_userWrites },
        { "relists", qint64(m_gaps.size()) - 1 },
        { "serverChanges", serverChanges },
        { "clientChanges", clientChanges },
        { "serverTransitions", serverTransitions },
        { "clientTransitions", clientTransitions },
        { "missedInsideRelistGaps", missedInGaps },
        { "lost", lost },
        { "deliveredButUnknownToServer", unknownToServer },
        { "outOfOrder", m_clientOutOfOrder },
        { "operatorConverged", converged },
        { "informerEqualsFreshList", informerEqualsFresh },
        { "objectsAtEnd", informer.size() },
        { "operatorRequests", m_operator->reconciler().requestCount() },
        { "operatorConflicts", m_operator->reconciler().conflictCount() },
        { "operatorRetryAfterRetries",
          m_operator->reconciler().client()->retriesAfterRetryAfter() },
        { "ok", ok },
    };
    json samples = json::array();
    for (const auto &[minute, kb] : m_rss)
        samples.push_back({ minute, kb / 1024.0 });
    report["rssSamplesMiB"] = samples;
    std::printf("%s\n", report.dump(2).c_str());
    if (!converged)
        std::printf("soak: the operator did not converge: %s\n", qPrintable(problem));
    if (!lostExamples.isEmpty())
        std::printf("soak: lost, e.g. %s\n", qPrintable(lostExamples.join(u", "_s)));
    if (!m_options.jsonPath.isEmpty()) {
        QFile out(m_options.jsonPath);
        if (out.open(QIODevice::WriteOnly))
            out.write(QByteArray::fromStdString(report.dump(2)) + '\n');
    }
    std::printf("soak: %s (latest resourceVersion %s)\n", ok ? "PASS" : "FAIL", qPrintable(latest));
    if (m_options.exitWithoutTeardown) {
        std::fflush(stdout);
        ::_exit(ok ? 0 : 1);
    }
    m_reflector->stop();
    m_informer->stop();
    m_operator->stop();
    m_cluster->unsubscribe(m_subscription);
    if (auto *simulator = m_cluster->findChild<cluster::WorkloadSimulator *>())
        delete simulator; // before the Cluster (see tests/operator/operatortestutil.h)
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    Options options;
    const QStringList arguments = app.arguments();
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        auto next = [&]() {
            return i + 1 < arguments.size() ? arguments.at(++i) : QString();
        };
        if (a == u"--soak")
            continue;
        if (a == u"--minutes")
            options.minutes = next().toDouble();
        else if (a == u"--seed")
            options.seed = next().toUInt();
        else if (a == u"--json")
            options.jsonPath = next();
        else if (a == u"--no-faults")
            options.faults = false;
        else if (a == u"--exit-without-teardown")
            options.exitWithoutTeardown = true;
        else if (a == u"--history-window")
            options.historyWindow = next().toInt();
        else {
            std::fprintf(
                stderr,
                "usage: reconscope_soak [--minutes M] [--seed S] [--json FILE] [--no-faults] "
                "[--exit-without-teardown] [--history-window N]\n");
            return 2;
        }
    }
    if (options.minutes <= 0)
        options.minutes = 10;
    if (!options.seed)
        options.seed = std::random_device{}();
    Soak soak(options);
    return soak.run();
}
