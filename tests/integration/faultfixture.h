#pragma once

// The fault-scenario tests' fixture: the embedded cluster with its workload simulator behind its
// HTTPS server (tests/operator/operatortestutil.h), the CustomApp operator on a real clock with
// short backoffs, and a console-side informer on CustomApps, both reached only through the
// kubeconfig the server wrote. A scenario turns faults on, makes changes, turns them off and ends
// with FaultFixture::recoveryProblem() empty: every CustomApp Ready with its Deployment as asked,
// and the informer's cache equal to a fresh list from the server.
#include "controller/kube/informerstore.h"
#include "controller/kube/restclient.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "tests/operator/operatortestutil.h"

#include <QtTest>

#include <memory>
#include <optional>

namespace faults {

using namespace optest;
namespace operators = reconscope::controller::operators;
namespace reconcile = reconscope::controller::reconcile;

inline const apimachinery::ResourceRef CustomAppsRef{ u"infrastructure.internal.net"_s,
                                                      u"v1"_s,
                                                      u"customapps"_s };

// key -> resourceVersion and object.
using Snapshot = QMap<QString, QPair<QString, nlohmann::json>>;

inline QString describe(const Snapshot &snapshot)
{
    QStringList lines;
    for (auto it = snapshot.cbegin(); it != snapshot.cend(); ++it)
        lines << it.key() + u'@' + it.value().first;
    return lines.join(u", "_s);
}

// Short reconnect backoffs for the informers (client-go's start at 800 ms and reach 30 s).
inline kube::Backoff::Parameters shortBackoff()
{
    kube::Backoff::Parameters parameters;
    parameters.initial = std::chrono::milliseconds(20);
    parameters.cap = std::chrono::milliseconds(400);
    return parameters;
}

class FaultFixture
{
public:
    static constexpr int WaitMs = 30000;

    // Empty on success.
    QString start()
    {
        m_cluster = std::make_unique<ClusterFixture>(20);
        if (QString error = m_cluster->start(); !error.isEmpty())
            return error;
        operators::CustomAppOperator::Options options;
        options.reconciler.namespace_ = u"default"_s;
        options.reconciler.informerBackoff = shortBackoff();
        options.loop.maxDelay = std::chrono::milliseconds(500);
        options.loop.tokenBucket = false;
        m_operator = std::make_unique<operators::CustomAppOperator>(
            m_cluster->clientConfig(), m_clock, options);
        QSignalSpy synced(&m_operator->reconciler(), &operators::CustomAppReconciler::cachesSynced);
        m_operator->start();
        if (!synced.wait(WaitMs))
            return u"the operator's caches did not sync"_s;

        m_informer = std::make_unique<kube::InformerStore>(
            m_cluster->clientConfig(), CustomAppsRef, u"default"_s);
        m_informer->setBackoff(shortBackoff());
        m_informer->setBatchInterval(10);
        QObject::connect(m_informer.get(),
                         &kube::InformerStore::connectionStateChanged,
                         m_informer.get(),
                         [this](const kube::ReflectorState &state) { m_states << state; });
        m_informer->start();
        if (!QTest::qWaitFor([this] { return m_informer->hasSynced(); }, WaitMs))
            return u"the informer did not sync"_s;
        return {};
    }

    void stop()
    {
        if (m_informer)
            m_informer->stop();
        m_informer.reset();
        m_operator.reset();
        m_cluster.reset();
    }

    ClusterFixture &cluster() { return *m_cluster; }
    cluster::EmbeddedServer &server() { return *m_cluster->server(); }
    cluster::FaultInjector &injector() { return *m_cluster->server()->faultInjector(); }
    operators::CustomAppOperator &op() { return *m_operator; }
    kube::InformerStore &informer() { return *m_informer; }
    const QList<kube::ReflectorState> &states() const { return m_states; }
    bool sawPhase(kube::ReflectorState::Phase phase, const QString &errorFragment = {}) const
    {
        for (const auto &state : m_states) {
            if (state.phase == phase && state.lastError.contains(errorFragment))
                return true;
        }
        return false;
    }

    static nlohmann::json spec(int replicas)
    {
        return { { "image", "nginx:1.27" }, { "replicas", replicas } };
    }
    bool createApp(const QString &name, int replicas)
    {
        return m_cluster->create(customApps, ClusterFixture::customApp(name, spec(replicas)));
    }
    bool scaleApp(const QString &name, int replicas)
    {
        return m_cluster->mergePatch(
            customApps, name, { { "spec", { { "replicas", replicas } } } });
    }

    // The CustomApps in the cluster, straight from its storage: name -> spec.replicas.
    QMap<QString, int> wantedReplicas() const
    {
        QMap<QString, int> wanted;
        const auto list = m_cluster->cluster()->list(customApps, u"default"_s);
        if (!list.ok())
            return wanted;
        for (const auto &item : list.value().value("items", nlohmann::json::array()))
            wanted.insert(QString::fromStdString(item["metadata"].value("name", "")),
                          item["spec"].value("replicas", 0));
        return wanted;
    }

    // Every CustomApp Ready for its current generation, its Deployment at the replicas asked for,
    // and the controller loop idle.
    QString convergenceProblem() const
    {
        const auto wanted = wantedReplicas();
        if (wanted.isEmpty())
            return u"no CustomApps"_s;
        for (auto it = wanted.cbegin(); it != wanted.cend(); ++it) {
            const QString state = m_cluster->state(it.key());
            if (state != u"Ready")
                return it.key() + u" is "_s + state;
            const auto deployment = m_cluster->get(deployments, it.key());
            if (!deployment.is_object() || deployment["spec"].value("replicas", -1) != it.value())
                return it.key() + u"'s Deployment does not ask for "_s
                    + QString::number(it.value());
        }
        if (m_operator->loop().inFlight() > 0)
            return u"a reconcile is in flight"_s;
        return {};
    }

    // What the console's informer holds.
    Snapshot informerSnapshot() const
    {
        Snapshot snapshot;
        for (auto it = m_informer->entries().cbegin(); it != m_informer->entries().cend(); ++it)
            snapshot.insert(it.key(), { it->summary.resourceVersion, it->json() });
        return snapshot;
    }

    // The same from storage (cheap, in-process): to wait on before the fresh list over HTTPS.
    Snapshot storageSnapshot() const
    {
        Snapshot snapshot;
        const auto list = m_cluster->cluster()->list(customApps, u"default"_s);
        if (!list.ok())
            return snapshot;
        for (const auto &item : list.value().value("items", nlohmann::json::array()))
            snapshot.insert(
                u"default/"_s + QString::fromStdString(item["metadata"].value("name", "")),
                { QString::fromStdString(item["metadata"].value("resourceVersion", "")), item });
        return snapshot;
    }

    // A complete list over HTTPS through a new client, as kubectl would see it.
    std::optional<Snapshot> freshList() const
    {
        kube::RestClient client(m_cluster->clientConfig());
        std::optional<reconscope::models::Result<kube::ListPage, apimachinery::ApiError>> result;
        apimachinery::ListOptions options;
        options.limit = 3; // several pages
        client.list(CustomAppsRef, u"default"_s, options, [&](auto got) {
            result.emplace(std::move(got));
        });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, WaitMs) || !*result)
            return std::nullopt;
        Snapshot snapshot;
        for (const QByteArray &item : result->value().items) {
            kube::ObjectMeta meta;
            if (!kube::ObjectMeta::peek(item, &meta))
                return std::nullopt;
            snapshot.insert(meta.key(),
                            { meta.resourceVersion,
                              nlohmann::json::parse(item.toStdString(), nullptr, false) });
        }
        return snapshot;
    }

    // Faults off; the operator converges; the informer equals a fresh list. For QVERIFY.
    QString recoveryProblem()
    {
        injector().reset();
        QString problem;
        if (!QTest::qWaitFor(
                [&] {
                    problem = convergenceProblem();
                    return problem.isEmpty();
                },
                WaitMs))
            return u"the operator did not converge: "_s + problem;
        if (!QTest::qWaitFor([&] { return informerSnapshot() == storageSnapshot(); }, WaitMs))
            return u"the informer holds [%1], the server [%2]"_s.arg(describe(informerSnapshot()),
                                                                     describe(storageSnapshot()));
        if (!QTest::qWaitFor(
                [&] { return m_informer->state().phase == kube::ReflectorState::Phase::Watching; },
                WaitMs))
            return u"the informer is not watching: "_s + m_informer->state().toString();
        const auto fresh = freshList();
        if (!fresh)
            return u"the fresh list failed"_s;
        if (*fresh != informerSnapshot())
            return u"the informer holds [%1], a fresh list [%2]"_s.arg(describe(informerSnapshot()),
                                                                       describe(*fresh));
        // No watch left behind by the cut connections: the operator's four informers and the
        // console's one.
        if (!QTest::qWaitFor([&] { return m_cluster->cluster()->watchCount() == 5; }, WaitMs))
            return u"%1 watches open on the server, 5 expected"_s.arg(
                m_cluster->cluster()->watchCount());
        return {};
    }

private:
    reconcile::RealClock m_clock;
    std::unique_ptr<ClusterFixture> m_cluster;
    std::unique_ptr<operators::CustomAppOperator> m_operator;
    std::unique_ptr<kube::InformerStore> m_informer;
    QList<kube::ReflectorState> m_states;
};

} // namespace faults

Q_DECLARE_METATYPE(reconscope::controller::cluster::FaultSettings)
