#pragma once

// The operator tests' fixture: the embedded cluster (API + workload simulator) behind its HTTPS
// server, reached only through the kubeconfig it writes (mTLS, context reconscope-admin), plus
// helpers that act as the "user" in-process and observe every committed CustomApp state.
#include "controller/cluster/cluster.h"
#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/embeddedcluster.h"
#include "controller/cluster/sim/workloadsimulator.h"
#include "controller/kube/clientconfig.h"
#include "controller/kube/kubeconfig.h"
#include "models/lifecycle.h"
#include "models/objectsummary.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <memory>
#include <vector>

// QCOMPARE on nlohmann::json drags QTest's numeric overloads into json's conversions: compare the
// serialised forms instead (readable on failure, too).
#define QCOMPARE_JSON(actual, expected) \
    QCOMPARE(QString::fromStdString(nlohmann::json(actual).dump()), \
             QString::fromStdString(nlohmann::json(expected).dump()))

namespace optest {

using nlohmann::json;
namespace apimachinery = reconscope::controller::apimachinery;
namespace cluster = reconscope::controller::cluster;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;
using namespace Qt::StringLiterals;

inline const apimachinery::ResourceRef customApps{ u"infrastructure.internal.net"_s,
                                                   u"v1"_s,
                                                   u"customapps"_s };
inline const apimachinery::ResourceRef deployments{ u"apps"_s, u"v1"_s, u"deployments"_s };
inline const apimachinery::ResourceRef secrets{ QString(), u"v1"_s, u"secrets"_s };
inline const apimachinery::ResourceRef quotas{ QString(), u"v1"_s, u"resourcequotas"_s };
inline const apimachinery::ResourceRef events{ QString(), u"v1"_s, u"events"_s };
inline const apimachinery::ResourceRef leases{ u"coordination.k8s.io"_s, u"v1"_s, u"leases"_s };

// One committed state of a CustomApp, as the console would derive it.
struct Observed
{
    QString name;
    QString state; // lifecycle state name
    QString reason;
    json object;
};

class ClusterFixture
{
public:
    explicit ClusterFixture(int podStartDelayMs = 30)
    {
        cluster::EmbeddedClusterOptions options;
        options.demo = false;
        options.simulateWorkloads = true;
        options.simulator.podStartDelayMs = podStartDelayMs;
        options.simulator.imagePullBackOffDelayMs = podStartDelayMs;
        cluster::EmbeddedServerOptions serverOptions;
        serverOptions.kubeconfigPath = m_dir.filePath(u"kubeconfig"_s);
        m_server = std::make_unique<cluster::EmbeddedServer>(
            cluster::embeddedClusterFactory(options), serverOptions);
    }
    ~ClusterFixture()
    {
        if (m_cluster && m_subscription)
            m_cluster->unsubscribe(m_subscription);
        // Workaround: the embedded cluster parents its WorkloadSimulator to the Cluster, whose
        // destructor frees the subscriber map before QObject deletes the simulator, which then
        // unsubscribes from freed memory. Deleting the simulator first avoids that.
        if (m_cluster)
            delete m_cluster->findChild<cluster::WorkloadSimulator *>();
    }

    // Starts the server and resolves the kubeconfig it wrote; empty on success.
    QString start()
    {
        const auto started = m_server->start();
        if (!started.ok())
            return started.error().message;
        m_cluster = cluster::clusterOf(*m_server);
        if (!m_cluster)
            return u"no cluster behind the server"_s;
        auto kubeconfig = kube::Kubeconfig::load(m_server->kubeconfigPath());
        if (!kubeconfig)
            return kubeconfig.error().message;
        auto config = kubeconfig->resolve(u"reconscope-admin"_s);
        if (!config)
            return config.error().message;
        m_config = config.value();
        m_subscription = m_cluster->subscribe([this](const cluster::ClusterEvent &event) {
            ++m_writes;
            if (event.storageKey != u"infrastructure.internal.net/customapps" || !event.object)
                return;
            Observed observed;
            observed.name = event.object->name;
            observed.object = json::parse(event.object->json.toStdString(), nullptr, false);
            if (event.type == cluster::EventType::Deleted) {
                observed.state = u"Gone"_s;
            } else {
                auto summary = models::ObjectSummary::fromJson(
                    observed.object, models::LifecycleMapping::defaults());
                if (summary) {
                    const auto verdict = models::deriveLifecycle(
                        summary.value(), models::LifecycleMapping::defaults());
                    observed.state = models::lifecycleStateName(verdict.state);
                    observed.reason = verdict.reason;
                }
            }
            m_observed.push_back(observed);
        });
        return {};
    }

    cluster::Cluster *cluster() const { return m_cluster; }
    cluster::EmbeddedServer *server() const { return m_server.get(); }
    const kube::ClientConfig &clientConfig() const { return m_config; }
    qint64 writes() const { return m_writes; } // every committed change, any resource

    json get(const apimachinery::ResourceRef &ref, const QString &name) const
    {
        const auto got = m_cluster->get(ref, u"default"_s, name);
        return got.ok() ? got.value() : json();
    }
    bool create(const apimachinery::ResourceRef &ref, const json &object)
    {
        return m_cluster->create(ref, u"default"_s, object).ok();
    }
    bool mergePatch(const apimachinery::ResourceRef &ref,
                    const QString &name,
                    const json &patch,
                    bool status = false)
    {
        return m_cluster
            ->patch(ref,
                    u"default"_s,
                    name,
                    apimachinery::PatchType::Merge,
                    QByteArray::fromStdString(patch.dump()),
                    status)
            .ok();
    }
    bool remove(const apimachinery::ResourceRef &ref, const QString &name)
    {
        return m_cluster->remove(ref, u"default"_s, name).ok();
    }

    // The lifecycle state of the object as it is now ("Gone" when it does not exist).
    QString state(const QString &name) const
    {
        const json object = get(customApps, name);
        if (object.is_null())
            return u"Gone"_s;
        auto summary
            = models::ObjectSummary::fromJson(object, models::LifecycleMapping::defaults());
        if (!summary)
            return u"Unreadable"_s;
        return models::lifecycleStateName(
            models::deriveLifecycle(summary.value(), models::LifecycleMapping::defaults()).state);
    }
    json condition(const QString &name, const char *type) const
    {
        const json object = get(customApps, name);
        if (!object.is_object() || !object.contains("status") || !object["status"].is_object())
            return json();
        for (const auto &c :
             object.value("status", json::object()).value("conditions", json::array()))
            if (c.value("type", "") == type)
                return c;
        return json();
    }
    QString conditionReason(const QString &name, const char *type) const
    {
        const json c = condition(name, type);
        return c.is_object() ? QString::fromStdString(c.value("reason", "")) : QString();
    }

    // The distinct consecutive lifecycle states the object went through (every committed write).
    QStringList states(const QString &name) const
    {
        QStringList result;
        for (const auto &o : m_observed) {
            if (o.name == name && (result.isEmpty() || result.last() != o.state))
                result << o.state;
        }
        return result;
    }
    const std::vector<Observed> &observed() const { return m_observed; }
    void clearObserved() { m_observed.clear(); }

    // Reasons of the v1 Events about the object.
    QStringList eventReasons(const QString &name) const
    {
        QStringList reasons;
        const auto list = m_cluster->list(events, u"default"_s);
        if (!list.ok())
            return reasons;
        for (const auto &e : list.value().value("items", json::array())) {
            if (e["involvedObject"].value("name", "") == name.toStdString())
                reasons << QString::fromStdString(e.value("reason", ""));
        }
        return reasons;
    }

    static json customApp(const QString &name, const json &spec)
    {
        return { { "apiVersion", "infrastructure.internal.net/v1" },
                 { "kind", "CustomApp" },
                 { "metadata", { { "name", name.toStdString() }, { "namespace", "default" } } },
                 { "spec", spec } };
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<cluster::EmbeddedServer> m_server;
    cluster::Cluster *m_cluster = nullptr;
    kube::ClientConfig m_config;
    int m_subscription = 0;
    qint64 m_writes = 0;
    std::vector<Observed> m_observed;
};

// status.conditions of an object, or an empty array.
inline json conditionsOf(const json &object)
{
    if (!object.is_object())
        return json::array();
    const auto status = object.find("status");
    if (status == object.end() || !status->is_object())
        return json::array();
    const auto conditions = status->find("conditions");
    return conditions != status->end() && conditions->is_array() ? *conditions : json::array();
}

// Whether `sequence` contains `wanted` in order (not necessarily adjacent).
inline bool containsInOrder(const QStringList &sequence, const QStringList &wanted)
{
    qsizetype at = 0;
    for (const auto &s : sequence) {
        if (at < wanted.size() && s == wanted[at])
            ++at;
    }
    return at == wanted.size();
}

} // namespace optest
