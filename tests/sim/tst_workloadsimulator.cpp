#include "controller/cluster/sim/demoseed.h"
#include "controller/cluster/sim/workloadsimulator.h"

#include <QTest>

using namespace Qt::StringLiterals;
using nlohmann::json;
using namespace reconscope::controller::cluster;
using namespace reconscope::controller::apimachinery;

namespace {

const ResourceRef deployments{ u"apps"_s, u"v1"_s, u"deployments"_s };
const ResourceRef pods{ QString(), u"v1"_s, u"pods"_s };
const ResourceRef quotas{ QString(), u"v1"_s, u"resourcequotas"_s };

json deployment(const char *name, int replicas, const char *image)
{
    return {
        { "apiVersion", "apps/v1" },
        { "kind", "Deployment" },
        { "metadata", { { "name", name }, { "namespace", "default" } } },
        { "spec",
          { { "replicas", replicas },
            { "selector", { { "matchLabels", { { "app", name } } } } },
            { "template",
              { { "metadata", { { "labels", { { "app", name } } } } },
                { "spec",
                  { { "containers",
                      json::array({ { { "name", "main" }, { "image", image } } }) } } } } } } }
    };
}

} // namespace

class tst_WorkloadSimulator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void podsBecomeReady();
    void scaleDownAndTemplateChange();
    void unpullableImageBacksOff();
    void quotaCapsPodsAndReportsReplicaFailure();
    void deletingDeploymentCollectsPods();
    void demoSeedCreatesObjects();
    void childOfItsClusterIsDestroyedSafely();

private:
    json getDeployment(const char *name)
    {
        const auto got = m_cluster->get(deployments, u"default"_s, QString::fromLatin1(name));
        return got.ok() ? got.value() : json();
    }
    std::vector<json> podsOf(const char *name) { return podsOf(m_cluster.get(), name); }
    static std::vector<json> podsOf(Cluster *cluster, const char *name)
    {
        std::vector<json> result;
        const auto list = cluster->list(pods, u"default"_s);
        for (const auto &pod : list->at("items")) {
            if (pod["metadata"]["labels"].value("app", "") == name)
                result.push_back(pod);
        }
        return result;
    }
    qint64 readyReplicas(const char *name)
    {
        return getDeployment(name)
            .value("status", json::object())
            .value("readyReplicas", qint64(0));
    }

    std::unique_ptr<Cluster> m_cluster;
    std::unique_ptr<WorkloadSimulator> m_simulator;
};

void tst_WorkloadSimulator::init()
{
    m_cluster = std::make_unique<Cluster>();
    WorkloadSimulator::Options options;
    options.podStartDelayMs = 20;
    options.imagePullBackOffDelayMs = 20;
    m_simulator = std::make_unique<WorkloadSimulator>(m_cluster.get(), options);
}

void tst_WorkloadSimulator::cleanup()
{
    m_simulator.reset();
    m_cluster.reset();
}

void tst_WorkloadSimulator::podsBecomeReady()
{
    QVERIFY(m_cluster->create(deployments, u"default"_s, deployment("web", 3, "nginx:1.27")).ok());
    QTRY_COMPARE(readyReplicas("web"), qint64(3));
    const auto status = getDeployment("web")["status"];
    QCOMPARE(status["replicas"].get<qint64>(), qint64(3));
    QCOMPARE(status["observedGeneration"].get<qint64>(), qint64(1));
    bool available = false;
    for (const auto &c : status["conditions"]) {
        if (c["type"] == "Available")
            available = c["status"] == "True";
    }
    QVERIFY(available);
    const auto owned = podsOf("web");
    QCOMPARE(owned.size(), size_t(3));
    for (const auto &pod : owned) {
        QCOMPARE(pod["status"]["phase"].get<std::string>(), std::string("Running"));
        const auto &ref = pod["metadata"]["ownerReferences"][0];
        QCOMPARE(ref["kind"].get<std::string>(), std::string("Deployment"));
        QVERIFY(ref["controller"].get<bool>());
    }
}

void tst_WorkloadSimulator::scaleDownAndTemplateChange()
{
    QVERIFY(m_cluster->create(deployments, u"default"_s, deployment("api", 3, "api:1")).ok());
    QTRY_COMPARE(readyReplicas("api"), qint64(3));
    QVERIFY(
        m_cluster
            ->patch(
                deployments, u"default"_s, u"api"_s, PatchType::Merge, R"({"spec":{"replicas":1}})")
            .ok());
    QTRY_COMPARE(podsOf("api").size(), size_t(1));
    QTRY_COMPARE(getDeployment("api")["status"].value("replicas", qint64(0)), qint64(1));

    const auto before = podsOf("api").front()["metadata"]["name"];
    QVERIFY(
        m_cluster
            ->patch(
                deployments,
                u"default"_s,
                u"api"_s,
                PatchType::Json,
                R"([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"api:2"}])")
            .ok());
    QTRY_VERIFY(podsOf("api").size() == 1 && podsOf("api").front()["metadata"]["name"] != before);
    QCOMPARE(podsOf("api").front()["spec"]["containers"][0]["image"].get<std::string>(),
             std::string("api:2"));
    QTRY_COMPARE(getDeployment("api")["status"].value("observedGeneration", qint64(0)), qint64(3));
}

void tst_WorkloadSimulator::unpullableImageBacksOff()
{
    QVERIFY(m_cluster->create(deployments, u"default"_s, deployment("worker", 1, "worker:missing"))
                .ok());
    auto waitingReason = [this] {
        const auto owned = podsOf("worker");
        if (owned.empty())
            return std::string();
        return owned.front()["status"]["containerStatuses"][0]["state"]
            .value("waiting", json::object())
            .value("reason", std::string());
    };
    QTRY_COMPARE(waitingReason(), std::string("ImagePullBackOff"));
    QCOMPARE(readyReplicas("worker"), qint64(0));
    // Fixing the image replaces the pod, which then becomes ready.
    QVERIFY(
        m_cluster
            ->patch(
                deployments,
                u"default"_s,
                u"worker"_s,
                PatchType::Json,
                R"([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"worker:1"}])")
            .ok());
    QTRY_COMPARE(readyReplicas("worker"), qint64(1));
}

void tst_WorkloadSimulator::quotaCapsPodsAndReportsReplicaFailure()
{
    QVERIFY(m_cluster
                ->create(quotas,
                         u"default"_s,
                         { { "apiVersion", "v1" },
                           { "kind", "ResourceQuota" },
                           { "metadata", { { "name", "pod-quota" } } },
                           { "spec", { { "hard", { { "pods", "2" } } } } } })
                .ok());
    QVERIFY(m_cluster->create(deployments, u"default"_s, deployment("batch", 4, "batch:1")).ok());
    auto replicaFailure = [this] {
        for (const auto &c : getDeployment("batch")
                                 .value("status", json::object())
                                 .value("conditions", json::array())) {
            if (c["type"] == "ReplicaFailure" && c["status"] == "True")
                return QString::fromStdString(c["message"].get<std::string>());
        }
        return QString();
    };
    QTRY_VERIFY(replicaFailure().contains(
        u"exceeded quota: pod-quota, requested: pods=1, used: pods=2, limited: pods=2"_s));
    QCOMPARE(podsOf("batch").size(), size_t(2));
    QTRY_COMPARE(m_cluster->get(quotas, u"default"_s, u"pod-quota"_s)
                     ->at("status")["used"]
                     .value("pods", ""),
                 std::string("2"));

    // Raising the quota lets the Deployment finish.
    QVERIFY(m_cluster
                ->patch(quotas,
                        u"default"_s,
                        u"pod-quota"_s,
                        PatchType::Merge,
                        R"({"spec":{"hard":{"pods":"10"}}})")
                .ok());
    QTRY_COMPARE(readyReplicas("batch"), qint64(4));
    QTRY_VERIFY(replicaFailure().isEmpty());
}

void tst_WorkloadSimulator::deletingDeploymentCollectsPods()
{
    QVERIFY(m_cluster->create(deployments, u"default"_s, deployment("gone", 2, "gone:1")).ok());
    QTRY_COMPARE(readyReplicas("gone"), qint64(2));
    QVERIFY(m_cluster->remove(deployments, u"default"_s, u"gone"_s).ok());
    QTRY_COMPARE(podsOf("gone").size(), size_t(0));
}

void tst_WorkloadSimulator::demoSeedCreatesObjects()
{
    QCOMPARE(seedDemoObjects(*m_cluster), 10);
    const auto apps = m_cluster->list(
        { u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s }, QString());
    QVERIFY(apps.ok());
    QCOMPARE(apps->at("items").size(), size_t(6));
    // Seeding twice reports what already exists instead of failing.
    QCOMPARE(seedDemoObjects(*m_cluster), 0);
}

void tst_WorkloadSimulator::childOfItsClusterIsDestroyedSafely()
{
    // As the embedded cluster builds it: the simulator is a child of the Cluster, so it is
    // destroyed after the Cluster's own members (a use after free before; ASan in CI sees it).
    auto cluster = std::make_unique<Cluster>();
    QPointer<WorkloadSimulator> simulator = new WorkloadSimulator(cluster.get(), cluster.get());
    QVERIFY(cluster->create(deployments, u"default"_s, deployment("child", 1, "child:1")).ok());
    QTRY_VERIFY(!podsOf(cluster.get(), "child").empty());
    cluster.reset();
    QVERIFY(simulator.isNull());
}

QTEST_GUILESS_MAIN(tst_WorkloadSimulator)
#include "tst_workloadsimulator.moc"
