#include "informerbench.h"

#include "../kube/testserver.h"
#include "benchload.h"
#include "benchserver.h"

#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

const reconscope::controller::apimachinery::ResourceRef customApps{
    u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s
};

} // namespace

int runInformerChild(const QString &kubeconfigPath)
{
    namespace kube = reconscope::controller::kube;
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
    kube::InformerStore store(config.value(), customApps);
    QEventLoop loop;
    QObject::connect(&store, &kube::InformerStore::synced, &loop, &QEventLoop::quit);
    QTimer::singleShot(600000, &loop, &QEventLoop::quit);
    // The UI thread's CPU time from start to synced: an upper bound on what applying the
    // informer's batches cost it (the rest is event-loop wake-ups).
    const auto threadCpuNs = [] {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
    };
    // The whole process's CPU time (every thread) from start to synced: on a loaded machine the
    // wall time follows the share of the cores it gets, this does not.
    const auto processCpuNs = [] {
        timespec now{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
        return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
    };
    const qint64 cpuBefore = threadCpuNs();
    const qint64 processCpuBefore = processCpuNs();
    QElapsedTimer timer;
    timer.start();
    store.start();
    loop.exec();
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    const double uiThreadCpuMs = double(threadCpuNs() - cpuBefore) / 1e6;
    const double cpuSeconds = double(processCpuNs() - processCpuBefore) / 1e9;
    const json out{ { "seconds", seconds },
                    { "synced", store.hasSynced() },
                    { "objects", store.size() },
                    { "ui_thread_cpu_ms", uiThreadCpuMs },
                    { "cpu_seconds", cpuSeconds },
                    { "baseline_rss_bytes", baseline },
                    { "peak_rss_bytes", procStatusKb(pid, "VmHWM") * 1024 } };
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    store.stop();
    return store.hasSynced() ? 0 : 1;
}

// `reconscope_bench --informer-absorb EVENTS`: how many watch events per second an InformerStore
// absorbs, in a fresh process. A local plain-HTTP server lists 5,000 CustomApps (as the bench
// loads them, with metadata as the embedded cluster stores it), then streams EVENTS MODIFIED
// events of ~3.6 KB (a changed status condition each, resourceVersions increasing, keys
// round-robin) as fast as the socket takes them; the time runs from the watch request to the store
// holding the last event's resourceVersion: reading, decoding, summarising, compressing,
// coalescing per tick and applying the batches on this (the UI) thread.
int runInformerAbsorbChild(int events)
{
    namespace kube = reconscope::controller::kube;
    constexpr int Keys = 5000;
    const auto objectAt = [](int index, int resourceVersion, int pass) {
        json object = makeObject(index);
        object["metadata"]["uid"]
            = "6c1f7d2e-0000-4000-8000-" + std::to_string(100000000000 + index);
        object["metadata"]["resourceVersion"] = std::to_string(resourceVersion);
        object["metadata"]["generation"] = 1;
        object["metadata"]["creationTimestamp"] = "2026-11-30T07:00:00Z";
        object.update(makeStatus(1, pass));
        return QByteArray::fromStdString(object.dump());
    };
    QByteArray list = "{\"apiVersion\":\"infrastructure.internal.net/v1\",\"items\":[";
    for (int i = 0; i < Keys; ++i) {
        if (i > 0)
            list += ',';
        list += objectAt(i, 1000 + i, 0);
    }
    list += "],\"kind\":\"CustomAppList\",\"metadata\":{\"resourceVersion\":\"10000\"}}";
    QByteArray stream;
    QString lastResourceVersion;
    for (int e = 0; e < events; ++e) {
        const int resourceVersion = 10001 + e;
        stream += "{\"type\":\"MODIFIED\",\"object\":" + objectAt(e % Keys, resourceVersion, e + 1)
            + "}\n";
        lastResourceVersion = QString::number(resourceVersion);
    }

    TestServer server;
    QElapsedTimer sinceWatch;
    // The process's CPU time over the same span (every thread): on a loaded machine the wall
    // time follows the share of the cores it gets, this does not.
    const auto processCpuNs = [] {
        timespec now{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
        return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
    };
    qint64 cpuAtWatch = 0;
    qint64 cpuAtEnd = 0;
    server.handler = [&](const TestRequest &request, QTcpSocket *socket) {
        if (request.queryValue(u"watch"_s) != u"true"_s) {
            TestServer::respond(socket, 200, "application/json", list);
            return;
        }
        if (sinceWatch.isValid()) { // one stream only; a resumed watch waits
            std::fprintf(stderr, "informer absorb: the watch was started again\n");
            return;
        }
        sinceWatch.start();
        cpuAtWatch = processCpuNs();
        TestServer::startStream(socket);
        for (qsizetype at = 0; at < stream.size(); at += 64 * 1024)
            TestServer::writeChunk(socket, stream.mid(at, 64 * 1024));
    };
    kube::ClientConfig config;
    config.server = QUrl(server.url(u"http"_s));
    kube::InformerStore store(config, customApps);
    QEventLoop loop;
    double seconds = 0;
    QObject::connect(&store, &kube::InformerStore::objectsChanged, &loop, [&] {
        if (store.resourceVersion() == lastResourceVersion) {
            seconds = double(sinceWatch.nsecsElapsed()) / 1e9;
            cpuAtEnd = processCpuNs();
            loop.quit();
        }
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit); // ~3 s on a quiet machine
    store.start();
    loop.exec();
    const bool complete = seconds > 0 && store.size() == Keys;
    const json out{ { "events", events },
                    { "seconds", seconds },
                    { "complete", complete },
                    { "events_per_s", seconds > 0 ? events / seconds : 0.0 },
                    { "mb_per_s", seconds > 0 ? double(stream.size()) / 1e6 / seconds : 0.0 },
                    { "event_bytes", double(stream.size()) / events },
                    { "cpu_us_per_event", double(cpuAtEnd - cpuAtWatch) / 1e3 / events } };
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
    store.stop();
    return complete ? 0 : 1;
}
