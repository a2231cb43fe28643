#include "overviewbench.h"

#include "benchload.h"
#include "benchserver.h"

#include "controller/console/crdoverview.h"
#include "controller/kube/kubeconfig.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkReply>
#include <QProcess>
#include <QThread>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

const QString Group = u"overview.bench.reconscope.dev"_s;

QString plural(int crd)
{
    return u"widget%1s"_s.arg(crd);
}

json crdManifest(int crd)
{
    const std::string kind = "Widget" + std::to_string(crd);
    const std::string name = plural(crd).toStdString();
    json schema{
        { "type", "object" },
        { "properties",
          { { "spec", { { "type", "object" }, { "x-kubernetes-preserve-unknown-fields", true } } },
            { "status",
              { { "type", "object" }, { "x-kubernetes-preserve-unknown-fields", true } } } } }
    };
    json version{ { "name", "v1" },
                  { "served", true },
                  { "storage", true },
                  { "schema", { { "openAPIV3Schema", schema } } } };
    return { { "apiVersion", "apiextensions.k8s.io/v1" },
             { "kind", "CustomResourceDefinition" },
             { "metadata", { { "name", name + "." + Group.toStdString() } } },
             { "spec",
               { { "group", Group.toStdString() },
                 { "scope", "Namespaced" },
                 { "names",
                   { { "plural", name },
                     { "singular", "widget" + std::to_string(crd) },
                     { "kind", kind },
                     { "listKind", kind + "List" } } },
                 { "versions", json::array({ version }) } } } };
}

// Object `index` of CRD `crd`: the CustomApp bench object's metadata and spec, and a status that
// makes it Pending (none), Reconciling, Ready or Degraded, by index.
json widget(int crd, int index)
{
    json object = makeObject(index);
    object["apiVersion"] = (Group + u"/v1"_s).toStdString();
    object["kind"] = "Widget" + std::to_string(crd);
    object["metadata"]["name"] = "w-" + std::to_string(index);
    const int kind = index % 4;
    if (kind == 0)
        return object;
    json status = makeStatus(1, index)["status"]; // (a status patch's body)
    if (kind == 1 || kind == 3) {
        for (json &condition : status["conditions"]) {
            if (condition.value("type", "") == "Ready")
                condition["status"] = "False";
            if (kind == 3 && condition.value("type", "") == "Degraded")
                condition["status"] = "True";
        }
    }
    object["status"] = status;
    return object;
}

QList<reconscope::controller::console::OverviewResource> benchResources(int crds)
{
    QList<reconscope::controller::console::OverviewResource> resources;
    for (int crd = 0; crd < crds; ++crd) {
        reconscope::controller::kube::DiscoveredResource resource;
        resource.group = Group;
        resource.version = u"v1"_s;
        resource.plural = plural(crd);
        resource.kind = u"Widget%1"_s.arg(crd);
        resource.fromCrd = true;
        resources.append({ resource, reconscope::models::LifecycleMapping::defaults() });
    }
    return resources;
}

} // namespace

int runOverviewChild(const QString &kubeconfigPath, int crds)
{
    namespace kube = reconscope::controller::kube;
    using reconscope::controller::console::CrdOverview;
    const qint64 pid = QCoreApplication::applicationPid();
    const qint64 baseline = procStatusKb(pid, "VmRSS") * 1024;
    auto kubeconfig = kube::Kubeconfig::load(kubeconfigPath);
    if (!kubeconfig) {
        std::fprintf(stderr, "%s\n", qPrintable(kubeconfig.error().message));
        return 1;
    }
    auto config = kubeconfig->resolve();
    if (!config) {
        std::fprintf(stderr, "%s\n", qPrintable(config.error().message));
        return 1;
    }
    CrdOverview overview;
    QEventLoop loop;
    QObject::connect(&overview, &CrdOverview::synced, &loop, &QEventLoop::quit);
    QTimer::singleShot(600000, &loop, &QEventLoop::quit);
    QElapsedTimer timer;
    timer.start();
    overview.watch(config.value(), benchResources(crds), u"bench"_s);
    loop.exec();
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    json counts = json::object();
    const auto all = overview.aggregatedStats();
    for (int i = 0; i < reconscope::models::LifecycleStateCount; ++i) {
        const auto state = reconscope::models::LifecycleState(i);
        if (all.objectsIn(state) > 0)
            counts[reconscope::models::lifecycleStateName(state).toStdString()]
                = all.objectsIn(state);
    }
    const json out{ { "seconds", seconds },
                    { "synced", overview.hasSynced() },
                    { "objects", overview.totalObjects() },
                    { "resources", overview.resources().size() },
                    { "counts", counts },
                    { "problems", overview.problemTracker().candidateCount() },
                    { "baseline_rss_bytes", baseline },
                    { "peak_rss_bytes", procStatusKb(pid, "VmHWM") * 1024 } };
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    overview.stop();
    return out["synced"].get<bool>() ? 0 : 1;
}

json benchOverview(
    BenchServer &server, QNetworkAccessManager &nam, int objects, int crds, int *failures)
{
    // The CRDs, each established before its objects go in.
    for (int crd = 0; crd < crds; ++crd) {
        const auto created
            = server.send(nam,
                          "POST",
                          u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s,
                          QByteArray::fromStdString(crdManifest(crd).dump()),
                          "application/json");
        if (created.status != 201 && created.status != 409) {
            std::fprintf(
                stderr, "overview CRD %d: %d %s\n", crd, created.status, created.body.constData());
            ++*failures;
            return {};
        }
    }
    for (int crd = 0; crd < crds; ++crd) {
        const QString path = u"/apis/%1/v1/namespaces/bench/%2"_s.arg(Group, plural(crd));
        int tries = 0;
        while (server.send(nam, "GET", path + u"?limit=1"_s).status != 200 && ++tries < 300)
            QThread::msleep(100);
    }
    // The objects, evenly spread, 6 in flight.
    qint64 jsonBytes = 0;
    const int perCrd = objects / crds;
    for (int i = 0; i < perCrd * crds; i += crds)
        jsonBytes += qint64(widget(0, i / crds).dump().size()) * crds;
    const double loadSeconds = runConcurrent(
        nam,
        perCrd * crds,
        6,
        [&](QNetworkAccessManager &m, int i) {
            const int crd = i % crds;
            return m.post(
                server.request(u"/apis/%1/v1/namespaces/bench/%2"_s.arg(Group, plural(crd)),
                               "application/json"),
                QByteArray::fromStdString(widget(crd, i / crds).dump()));
        },
        failures);
    std::printf("overview load     %8.0f objects/s  (%d objects over %d CRDs)\n",
                perCrd * crds / loadSeconds,
                perCrd * crds,
                crds);

    QProcess child;
    child.start(QCoreApplication::applicationFilePath(),
                { u"--overview-child"_s, server.kubeconfigPath(), QString::number(crds) });
    child.waitForFinished(600000);
    const auto line = child.readAllStandardOutput().trimmed();
    const auto result = json::parse(line.constBegin(), line.constEnd(), nullptr, false);
    if (child.exitCode() != 0 || result.is_discarded()
        || result.value("objects", 0) != perCrd * crds) {
        std::fprintf(stderr,
                     "overview child failed: %s %s\n",
                     line.constData(),
                     child.readAllStandardError().right(400).constData());
        ++*failures;
        return {};
    }
    const double seconds = result["seconds"].get<double>();
    const qint64 peak = result["peak_rss_bytes"].get<qint64>();
    const qint64 baseline = result["baseline_rss_bytes"].get<qint64>();
    std::printf("overview complete %8.2f s  (%d objects in %d CRDs; counts %s)\n",
                seconds,
                perCrd * crds,
                crds,
                result["counts"].dump().c_str());
    std::printf("overview peak RSS %8.0f MB (%.2f x the JSON; %.0f MB above its %.0f MB start, "
                "%.2f x)\n",
                double(peak) / 1e6,
                double(peak) / double(jsonBytes),
                double(peak - baseline) / 1e6,
                double(baseline) / 1e6,
                double(peak - baseline) / double(jsonBytes));
    return { { "overview_objects", perCrd * crds },
             { "overview_crds", crds },
             { "overview_seconds", seconds },
             { "overview_json_bytes", jsonBytes },
             { "overview_peak_rss_bytes", peak },
             { "overview_baseline_rss_bytes", baseline },
             { "overview_memory_per_json_byte", double(peak) / double(jsonBytes) },
             { "overview_memory_above_baseline_per_json_byte",
               double(peak - baseline) / double(jsonBytes) } };
}
