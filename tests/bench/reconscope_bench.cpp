// Benchmarks of the embedded cluster (issue 3) — and, as the client side lands, of the console's
// client (issues 4 and 8). Run with `./dev bench [--quick] [--objects N] [--json FILE]`.
// The cluster runs as a separate `reconscope serve` process; every figure is measured in this run.
#include "benchserver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QProcess>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

const QString collection = u"/apis/infrastructure.internal.net/v1/namespaces/%1/customapps"_s;

// A realistic CustomApp of about 3.4 KB: labels, annotations (a last-applied configuration as
// kubectl apply leaves it), spec, and conditions in the status the reconciler would write.
json makeObject(int index)
{
    const auto name = "app-" + std::to_string(index);
    json spec{
        { "image",
          "registry.example.com/team/service-" + std::to_string(index % 97) + ":1.4."
              + std::to_string(index % 13) },
        { "replicas", 1 + index % 5 },
        { "port", 8080 },
        { "configJSON",
          R"({"logLevel":"info","features":{"cache":true,"tracing":false},"upstreams":["a.internal:443","b.internal:443"]})" },
        { "secretRef", { { "name", "service-credentials" } } }
    };
    json lastApplied{ { "apiVersion", "infrastructure.internal.net/v1" },
                      { "kind", "CustomApp" },
                      { "metadata", { { "name", name }, { "namespace", "bench" } } },
                      { "spec", spec } };
    json annotations{
        { "kubectl.kubernetes.io/last-applied-configuration", lastApplied.dump() + "\n" },
        { "deploy.example.com/owner", "team-payments@example.com" },
        { "deploy.example.com/runbook",
          "https://runbooks.example.com/services/payments/service-" + std::to_string(index % 97) },
        { "deploy.example.com/change-ticket", "CHG-" + std::to_string(100000 + index) },
        { "deploy.example.com/description", std::string(2100, 'x') }
    };
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata",
               { { "name", name },
                 { "namespace", "bench" },
                 { "labels",
                   { { "app.kubernetes.io/name", name },
                     { "app.kubernetes.io/part-of", "payments" },
                     { "app.kubernetes.io/managed-by", "gitops" },
                     { "team", "team-" + std::to_string(index % 20) },
                     { "tier", index % 3 == 0 ? "frontend" : "backend" } } },
                 { "annotations", annotations } } },
             { "spec", spec } };
}

json makeStatus(int generation, int counter)
{
    json conditions = json::array();
    for (const char *type : { "Ready", "Degraded", "Available" }) {
        conditions.push_back(
            { { "type", type },
              { "status", std::string(type) == "Degraded" ? "False" : "True" },
              { "reason", "Synchronized" },
              { "message", "all replicas ready, observed at pass " + std::to_string(counter) },
              { "lastTransitionTime", "2026-11-29T10:00:00Z" },
              { "observedGeneration", generation } });
    }
    return { { "status",
               { { "observedGeneration", generation },
                 { "replicas", 1 },
                 { "readyReplicas", 1 },
                 { "conditions", conditions } } } };
}

// Keeps `inFlight` requests going until `count` have completed; returns seconds.
double runConcurrent(QNetworkAccessManager &nam,
                     int count,
                     int inFlight,
                     const std::function<QNetworkReply *(QNetworkAccessManager &, int)> &issue,
                     int *failures)
{
    QElapsedTimer timer;
    timer.start();
    int next = 0;
    int done = 0;
    QEventLoop loop;
    std::function<void()> launch = [&] {
        if (next >= count)
            return;
        QNetworkReply *reply = issue(nam, next++);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (status < 200 || status >= 300) {
                if (failures && ++*failures <= 3)
                    std::fprintf(stderr,
                                 "request failed: %d %s\n",
                                 status,
                                 reply->readAll().left(300).constData());
            }
            reply->deleteLater();
            if (++done == count)
                loop.quit();
            else
                launch();
        });
    };
    for (int i = 0; i < inFlight && i < count; ++i)
        launch();
    if (count > 0)
        loop.exec();
    return double(timer.nsecsElapsed()) / 1e9;
}

struct Figures
{
    std::map<std::string, json> values;
    void set(const std::string &key, json value) { values[key] = std::move(value); }
};

double timeProcess(const QString &program,
                   const QStringList &args,
                   const QProcessEnvironment &env,
                   qint64 *peakRssBytes)
{
    // Run under /usr/bin/time to read the child's peak RSS.
    QProcess process;
    process.setProcessEnvironment(env);
    process.setStandardOutputFile(QProcess::nullDevice());
    QStringList timeArgs{ u"-f"_s, u"%M"_s, program };
    timeArgs += args;
    QElapsedTimer timer;
    timer.start();
    if (QFile::exists(u"/usr/bin/time"_s))
        process.start(u"/usr/bin/time"_s, timeArgs);
    else
        process.start(program, args);
    process.waitForFinished(600000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    if (process.exitCode() != 0) {
        std::fprintf(stderr,
                     "%s failed: %s\n",
                     qPrintable(program),
                     process.readAllStandardError().right(400).constData());
        return -1;
    }
    const auto lines = process.readAllStandardError().trimmed().split('\n');
    if (peakRssBytes)
        *peakRssBytes = lines.isEmpty() ? 0 : lines.last().trimmed().toLongLong() * 1024;
    return seconds;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    int objects = 50000;
    QString jsonPath;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const auto arg = QString::fromLocal8Bit(argv[i]);
        if (arg == u"--quick"_s) {
            quick = true;
            objects = 10000;
        } else if (arg == u"--objects"_s && i + 1 < argc) {
            objects = QString::fromLocal8Bit(argv[++i]).toInt();
        } else if (arg == u"--json"_s && i + 1 < argc) {
            jsonPath = QString::fromLocal8Bit(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: reconscope_bench [--quick] [--objects N] [--json FILE]\n");
            return 2;
        }
    }

    Figures figures;
    figures.set("objects", objects);
    BenchServer server;
    if (!server.start()) {
        std::fprintf(stderr, "could not start reconscope serve\n");
        return 1;
    }
    std::printf("embedded cluster at %s (pid %lld), %d objects%s\n",
                qPrintable(server.url().toString()),
                server.pid(),
                objects,
                quick ? " (quick)" : "");
    QNetworkAccessManager nam;
    const auto ns
        = server.send(nam,
                      "POST",
                      u"/api/v1/namespaces"_s,
                      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})",
                      "application/json");
    if (ns.status != 201) {
        std::fprintf(stderr, "namespace: %d %s\n", ns.status, ns.body.constData());
        return 1;
    }

    // 1. Load: POST every object, 6 in flight.
    const auto path = collection.arg(u"bench"_s);
    const qint64 objectBytes = qint64(makeObject(1).dump().size());
    int failures = 0;
    const double loadSeconds = runConcurrent(
        nam,
        objects,
        6,
        [&](QNetworkAccessManager &m, int i) {
            return m.post(server.request(path, "application/json"),
                          QByteArray::fromStdString(makeObject(i).dump()));
        },
        &failures);
    figures.set("object_bytes", objectBytes);
    figures.set("create_per_s", objects / loadSeconds);
    std::printf("create            %8.0f objects/s  (%d objects of %lld B, %d failures)\n",
                objects / loadSeconds,
                objects,
                objectBytes,
                failures);

    // 2. GET rate: one object after another, 6 in flight.
    const int gets = quick ? 3000 : 10000;
    const double getSeconds = runConcurrent(
        nam,
        gets,
        6,
        [&](QNetworkAccessManager &m, int i) {
            return m.get(server.request(path + u"/app-"_s + QString::number(i % objects)));
        },
        &failures);
    figures.set("server_get_per_s", gets / getSeconds);
    std::printf("GET               %8.0f requests/s\n", gets / getSeconds);

    // 3. List throughput: pages of 500, one after another.
    QElapsedTimer listTimer;
    listTimer.start();
    qint64 listBytes = 0;
    int listed = 0;
    QString continueToken;
    do {
        QString page = path + u"?limit=500"_s;
        if (!continueToken.isEmpty())
            page += u"&continue="_s + QString::fromUtf8(QUrl::toPercentEncoding(continueToken));
        const auto reply = server.send(nam, "GET", page);
        listBytes += reply.body.size();
        const auto body
            = json::parse(reply.body.constBegin(), reply.body.constEnd(), nullptr, false);
        if (body.is_discarded() || reply.status != 200) {
            std::fprintf(stderr, "list page failed: %d\n", reply.status);
            return 1;
        }
        listed += int(body["items"].size());
        continueToken = QString::fromStdString(body["metadata"].value("continue", std::string()));
    } while (!continueToken.isEmpty());
    const double listSeconds = double(listTimer.nsecsElapsed()) / 1e9;
    figures.set("raw_json_bytes", listBytes);
    figures.set("server_list_seconds", listSeconds);
    figures.set("server_list_mb_per_s", double(listBytes) / 1e6 / listSeconds);
    std::printf("list (pages 500)  %8.1f MB/s   (%d objects, %.1f MB in %.2f s)\n",
                double(listBytes) / 1e6 / listSeconds,
                listed,
                double(listBytes) / 1e6,
                listSeconds);

    // 4. Watch fan-out: 10 watchers from the current RV, then status writes at full speed.
    const int watchers = 10;
    const int mutations = quick ? 2000 : 5000;
    const auto rvBody = server.send(nam, "GET", path + u"?limit=1"_s).body;
    const auto rv = QString::fromStdString(
        json::parse(rvBody.constBegin(), rvBody.constEnd(), nullptr, false)["metadata"].value(
            "resourceVersion", std::string()));
    std::vector<std::unique_ptr<QNetworkAccessManager>> watchNams;
    std::vector<QNetworkReply *> streams;
    std::vector<int> received(watchers, 0);
    QElapsedTimer fanout;
    double lastEventAt = 0;
    QEventLoop watchLoop;
    int complete = 0;
    for (int w = 0; w < watchers; ++w) {
        watchNams.push_back(std::make_unique<QNetworkAccessManager>());
        auto *reply
            = watchNams.back()->get(server.request(path + u"?watch=true&resourceVersion="_s + rv));
        QObject::connect(reply, &QNetworkReply::readyRead, &watchLoop, [&, reply, w] {
            const auto data = reply->readAll();
            received[size_t(w)] += int(data.count('\n'));
            if (received[size_t(w)] >= mutations) {
                lastEventAt = double(fanout.nsecsElapsed()) / 1e9;
                if (++complete == watchers)
                    watchLoop.quit();
                received[size_t(w)] = -1000000000; // count once
            }
        });
        streams.push_back(reply);
    }
    QTimer::singleShot(300, &watchLoop, [&] {
        fanout.start();
        runConcurrent(
            nam,
            mutations,
            6,
            [&](QNetworkAccessManager &m, int i) {
                return m.sendCustomRequest(
                    server.request(path + u"/app-"_s + QString::number(i % objects) + u"/status"_s,
                                   "application/merge-patch+json"),
                    "PATCH",
                    QByteArray::fromStdString(makeStatus(1, i).dump()));
            },
            &failures);
        const double writeSeconds = double(fanout.nsecsElapsed()) / 1e9;
        figures.set("status_patch_per_s", mutations / writeSeconds);
    });
    QTimer::singleShot(120000, &watchLoop, &QEventLoop::quit);
    watchLoop.exec();
    for (auto *reply : streams)
        reply->abort();
    figures.set("watchers", watchers);
    figures.set("watch_fanout_events_per_s",
                complete == watchers ? watchers * mutations / lastEventAt : 0.0);
    std::printf("status PATCH      %8.0f writes/s\n",
                figures.values["status_patch_per_s"].get<double>());
    std::printf("watch fan-out     %8.0f events/s delivered (%d watchers x %d events, %s)\n",
                complete == watchers ? watchers * mutations / lastEventAt : 0.0,
                watchers,
                mutations,
                complete == watchers ? "all delivered" : "INCOMPLETE");

    // 5. Other clients listing the same server: kubectl and Python's kubernetes package.
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"KUBECONFIG"_s, server.kubeconfigPath());
    qint64 kubectlRss = 0;
    const double kubectlSeconds = timeProcess(
        u"kubectl"_s, { u"get"_s, u"customapps"_s, u"-A"_s, u"-o"_s, u"json"_s }, env, &kubectlRss);
    figures.set("kubectl_list_seconds", kubectlSeconds);
    figures.set("kubectl_peak_rss_bytes", kubectlRss);
    std::printf("kubectl get -A -o json   %6.2f s, peak %5.0f MB\n",
                kubectlSeconds,
                double(kubectlRss) / 1e6);
    const auto script = QStringLiteral(
        "import sys\nfrom kubernetes import client, config\n"
        "api = client.CustomObjectsApi(config.new_client_from_config(config_file=sys.argv[1]))\n"
        "n, token = 0, None\n"
        "while True:\n"
        "    page = api.list_cluster_custom_object('infrastructure.internal.net', 'v1', "
        "'customapps', limit=500, _continue=token)\n"
        "    n += len(page['items'])\n"
        "    token = page['metadata'].get('continue')\n"
        "    if not token: break\n"
        "print(n)\n");
    qint64 pythonRss = 0;
    const double pythonSeconds = timeProcess(
        u"/usr/bin/python3"_s, { u"-c"_s, script, server.kubeconfigPath() }, env, &pythonRss);
    figures.set("python_list_seconds", pythonSeconds);
    figures.set("python_peak_rss_bytes", pythonRss);
    std::printf("python kubernetes list   %6.2f s, peak %5.0f MB\n",
                pythonSeconds,
                double(pythonRss) / 1e6);

    figures.set("server_peak_rss_bytes", server.peakRss());
    std::printf("server peak RSS   %8.0f MB (%.2f x the raw JSON)\n",
                double(server.peakRss()) / 1e6,
                double(server.peakRss()) / double(listBytes));

    if (!jsonPath.isEmpty()) {
        QFile out(jsonPath);
        if (!out.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(jsonPath));
            return 1;
        }
        json doc(figures.values);
        out.write(QByteArray::fromStdString(doc.dump(2)));
    }
    return failures == 0 ? 0 : 1;
}
