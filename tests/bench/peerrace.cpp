#include "peerrace.h"

#include "benchload.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

constexpr int TimeoutMs = 600000;
// The CustomApps of every namespace: what each peer lists.
const QString allCustomApps = u"/apis/infrastructure.internal.net/v1/customapps"_s;
// k9s redraws a view every refreshRate seconds, 2 at the least (its configuration's minimum),
// and the title's row count, which the race reads off the screen, changes only then: its time is
// known to within one refresh plus one poll of the screen.
constexpr double K9sRefreshSeconds = 2.0;
constexpr int K9sPollMs = 200;

struct PeerRun
{
    bool ok = false;
    double wall = 0; // seconds, start to complete (see racePeers' table in peerrace.h)
    double cpu = 0; // the peer's CPU seconds, every thread
    qint64 peakRss = 0; // bytes
    double serverCpu = 0; // the server's CPU seconds during the run
    json extra = json::object(); // what else the peer reported
};

PeerRun failed(const char *peer, const QByteArray &why)
{
    std::fprintf(stderr, "%s failed: %s\n", peer, why.right(1500).constData());
    return PeerRun();
}

json parseLastLine(const QByteArray &out)
{
    const QList<QByteArray> lines = out.trimmed().split('\n');
    const QByteArray line = lines.isEmpty() ? QByteArray() : lines.last().trimmed();
    return json::parse(line.constBegin(), line.constEnd(), nullptr, false);
}

QString kubectlProgram()
{
    if (const QString named = qEnvironmentVariable("RECONSCOPE_KUBECTL"); !named.isEmpty())
        return named;
    const QString bin = qEnvironmentVariable("RECONSCOPE_KUBE_BIN");
    if (!bin.isEmpty() && QFile::exists(bin + u"/kubectl"_s))
        return bin + u"/kubectl"_s;
    return u"kubectl"_s;
}

// PROGRAM ARGS under /usr/bin/time (its figures to a file of their own): wall time measured
// here, CPU seconds and peak RSS from time. `out`, when given, receives stdout.
PeerRun timedProcess(const char *peer,
                     const QString &program,
                     const QStringList &args,
                     const QProcessEnvironment &env,
                     QByteArray *out)
{
    QTemporaryDir dir;
    const QString figures = dir.filePath(u"time"_s);
    QProcess process;
    process.setProcessEnvironment(env);
    if (!out)
        process.setStandardOutputFile(QProcess::nullDevice());
    QElapsedTimer timer;
    timer.start();
    process.start(u"/usr/bin/time"_s,
                  QStringList{ u"-o"_s, figures, u"-f"_s, u"%U %S %M"_s, program } + args);
    if (!process.waitForFinished(TimeoutMs)) {
        process.kill();
        process.waitForFinished();
        return failed(peer, "timed out");
    }
    PeerRun run;
    run.wall = double(timer.nsecsElapsed()) / 1e9;
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return failed(peer, process.readAllStandardError());
    if (out)
        *out = process.readAllStandardOutput();
    QFile file(figures);
    if (!file.open(QIODevice::ReadOnly))
        return failed(peer, "no figures from /usr/bin/time");
    // The last line: time prints a "Command exited with non-zero status" line before it.
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    const QList<QByteArray> fields = lines.last().split(' ');
    if (fields.size() != 3)
        return failed(peer, "unreadable figures from /usr/bin/time: " + lines.last());
    run.cpu = fields[0].toDouble() + fields[1].toDouble();
    run.peakRss = fields[2].toLongLong() * 1024;
    run.ok = true;
    return run;
}

// This program in one of its child modes; its last stdout line, parsed.
json benchChild(const QStringList &arguments, QByteArray *err)
{
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(), arguments);
    if (!child.waitForFinished(TimeoutMs))
        child.kill();
    child.waitForFinished();
    *err = child.readAllStandardError();
    if (child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0)
        return json();
    return parseLastLine(child.readAllStandardOutput());
}

PeerRun runInformer(const BenchServer &server, int objects)
{
    QByteArray err;
    const json result = benchChild({ u"--informer-child"_s, server.kubeconfigPath() }, &err);
    if (!result.is_object() || result.value("objects", -1) != objects)
        return failed("informer", result.dump().c_str() + QByteArray(" ") + err);
    PeerRun run;
    run.ok = true;
    run.wall = result["seconds"].get<double>();
    run.cpu = result["cpu_seconds"].get<double>();
    run.peakRss = result["peak_rss_bytes"].get<qint64>();
    return run;
}

PeerRun runConsole(const BenchServer &server, int objects)
{
    QProcess child;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(),
                { u"--console-child"_s, server.kubeconfigPath(), QString::number(objects) });
    child.waitForStarted(30000);
    QElapsedTimer timer;
    timer.start();
    while (!child.canReadLine() && timer.elapsed() < TimeoutMs
           && child.state() == QProcess::Running)
        child.waitForReadyRead(100);
    const json shown = child.canReadLine() ? parseLastLine(child.readLine()) : json();
    child.write("quit\n");
    child.closeWriteChannel();
    if (!child.waitForFinished(30000))
        child.kill();
    child.waitForFinished();
    if (!shown.is_object() || !shown.contains("painted_seconds") || !shown.value("sorted", false))
        return failed("console", child.readAllStandardError());
    PeerRun run;
    run.ok = true;
    run.wall = shown["painted_seconds"].get<double>();
    run.cpu = shown["cpu_seconds"].get<double>();
    run.peakRss = shown["peak_rss_bytes"].get<qint64>();
    run.extra = { { "synced_seconds", shown["synced_seconds"] },
                  { "steady_rss_bytes", shown["steady_rss_bytes"] } };
    return run;
}

// tools/bench-peers/clientgo, built by ./dev (RECONSCOPE_BENCH_CLIENTGO).
PeerRun runClientGo(const BenchServer &server, int objects, const QString &watchList)
{
    const char *peer = watchList == u"off" ? "client-go-list" : "client-go";
    const QString program = qEnvironmentVariable("RECONSCOPE_BENCH_CLIENTGO");
    if (program.isEmpty() || !QFile::exists(program))
        return failed(peer, "RECONSCOPE_BENCH_CLIENTGO names no program (./dev bench builds it)");
    QProcess child;
    child.start(program,
                { u"--kubeconfig"_s,
                  server.kubeconfigPath(),
                  u"--group"_s,
                  u"infrastructure.internal.net"_s,
                  u"--version"_s,
                  u"v1"_s,
                  u"--resource"_s,
                  u"customapps"_s,
                  u"--expect"_s,
                  QString::number(objects),
                  u"--watch-list"_s,
                  watchList });
    if (!child.waitForFinished(TimeoutMs))
        child.kill();
    child.waitForFinished();
    const json result = parseLastLine(child.readAllStandardOutput());
    if (child.exitCode() != 0 || !result.is_object())
        return failed(peer, child.readAllStandardError());
    PeerRun run;
    run.ok = true;
    run.wall = result["seconds"].get<double>();
    run.cpu = result["cpu_seconds"].get<double>();
    run.peakRss = result["peak_rss_bytes"].get<qint64>();
    run.extra = { { "watch_list", result["watch_list"] },
                  { "watch_list_gate", result["watch_list_gate"] },
                  { "list_requests", result["list_requests"] },
                  { "watch_requests", result["watch_requests"] } };
    return run;
}

QByteArray tmux(const QString &socket, const QStringList &arguments, bool *ok = nullptr)
{
    QProcess process;
    process.start(u"tmux"_s, QStringList{ u"-L"_s, socket } + arguments);
    process.waitForFinished(10000);
    if (ok)
        *ok = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    return process.readAllStandardOutput();
}

QString shellQuoted(const QString &text)
{
    return u"'"_s + QString(text).replace(u"'"_s, u"'\\''"_s) + u"'"_s;
}

// k9s (RECONSCOPE_BENCH_K9S) in a tmux server of its own, with a fresh HOME and configuration:
// from launch until the title of its CustomApp view counts every row; its CPU and peak memory
// read from /proc at that moment.
PeerRun runK9s(const BenchServer &server, int objects)
{
    const QString program = qEnvironmentVariable("RECONSCOPE_BENCH_K9S");
    if (program.isEmpty() || !QFile::exists(program))
        return failed("k9s", "RECONSCOPE_BENCH_K9S names no program (./dev bench builds it)");
    QTemporaryDir home;
    QDir(home.path()).mkpath(u"k9s"_s);
    QFile config(home.filePath(u"k9s/config.yaml"_s));
    if (!config.open(QIODevice::WriteOnly))
        return failed("k9s", "cannot write its configuration");
    // No look-up of k9s's latest release (no traffic but to the server), no splash screen.
    config.write("k9s:\n  refreshRate: 2\n  readOnly: true\n  skipLatestRevCheck: true\n"
                 "  disablePodCounting: true\n  ui:\n    headless: true\n    logoless: true\n"
                 "    crumbsless: true\n    splashless: true\n    noIcons: true\n");
    config.close();
    const QString socket = u"reconscope-bench-%1"_s.arg(QCoreApplication::applicationPid());
    const QString command
        = u"exec env HOME=%1 K9S_CONFIG_DIR=%1/k9s K9S_LOGS_DIR=%1 XDG_CACHE_HOME=%1/cache "
          "XDG_STATE_HOME=%1/state XDG_DATA_HOME=%1/data %2 --kubeconfig %3 --command customapps "
          "-A --readonly"_s.arg(
              shellQuoted(home.path()), shellQuoted(program), shellQuoted(server.kubeconfigPath()));
    QElapsedTimer timer;
    timer.start();
    bool started = false;
    tmux(socket,
         { u"new-session"_s,
           u"-d"_s,
           u"-x"_s,
           u"200"_s,
           u"-y"_s,
           u"50"_s,
           u"-s"_s,
           u"k9s"_s,
           command },
         &started);
    if (!started)
        return failed("k9s", "tmux new-session failed");
    const qint64 pid
        = tmux(socket, { u"display-message"_s, u"-p"_s, u"-t"_s, u"k9s"_s, u"#{pane_pid}"_s })
              .trimmed()
              .toLongLong();
    // "customapps(all)[50,000]": the count with thousands separators.
    static const QRegularExpression title(u"customapps\\(all\\)\\[([\\d,]+)\\]"_s,
                                          QRegularExpression::CaseInsensitiveOption);
    PeerRun run;
    QByteArray screen;
    int rows = -1;
    QFile log(home.filePath(u"k9s.log"_s));
    QByteArray logged;
    while (timer.elapsed() < TimeoutMs) {
        // k9s logs why it could not open the view and shows its contexts instead: no point
        // waiting then (the embedded cluster, for one, serves no SelfSubjectAccessReview).
        if (log.isOpen() || log.open(QIODevice::ReadOnly)) {
            logged += log.readAll();
            if (const auto at = logged.indexOf("Command exec failed"); at >= 0) {
                tmux(socket, { u"kill-server"_s });
                return failed("k9s", logged.mid(at).split('\n').value(0));
            }
        }
        screen = tmux(socket, { u"capture-pane"_s, u"-p"_s, u"-t"_s, u"k9s"_s });
        const auto match = title.match(QString::fromUtf8(screen));
        rows = match.hasMatch() ? match.captured(1).remove(u',').toInt() : -1;
        if (rows == objects) {
            run.wall = double(timer.nsecsElapsed()) / 1e9;
            run.cpu = procCpuSeconds(pid);
            run.peakRss = procStatusKb(pid, "VmHWM") * 1024;
            run.ok = run.cpu > 0;
            break;
        }
        QThread::msleep(K9sPollMs);
    }
    tmux(socket, { u"kill-server"_s });
    if (!run.ok)
        return failed(
            "k9s", "the title counted " + QByteArray::number(rows) + " rows; screen:\n" + screen);
    run.extra = { { "refresh_seconds", K9sRefreshSeconds }, { "poll_ms", K9sPollMs } };
    return run;
}

PeerRun runKubectl(const BenchServer &server, const QString &cacheDir)
{
    return timedProcess("kubectl",
                        kubectlProgram(),
                        { u"--kubeconfig"_s,
                          server.kubeconfigPath(),
                          u"--cache-dir"_s,
                          cacheDir,
                          u"get"_s,
                          u"customapps"_s,
                          u"-A"_s,
                          u"-o"_s,
                          u"json"_s },
                        QProcessEnvironment::systemEnvironment(),
                        nullptr);
}

PeerRun runPython(const BenchServer &server, int objects)
{
    const QString script = pythonListScript;
    QByteArray out;
    PeerRun run = timedProcess("python",
                               u"/usr/bin/python3"_s,
                               { u"-c"_s, script, server.kubeconfigPath() },
                               QProcessEnvironment::systemEnvironment(),
                               &out);
    if (run.ok && out.trimmed().toInt() != objects)
        return failed("python", "listed " + out.trimmed());
    return run;
}

// The server's own time to the list's last byte: a client that only counts the bytes. `query`
// is one of the peers' requests; pages are followed while the answer carries a continue token. A
// watch-list stream ends at its bookmark marked "k8s.io/initial-events-end".
PeerRun probeServer(const BenchServer &server, const QString &query, bool watchList)
{
    QNetworkAccessManager nam;
    PeerRun run;
    qint64 bytes = 0;
    int pages = 0;
    QString continueToken;
    QElapsedTimer timer;
    timer.start();
    do {
        QString path = allCustomApps + u"?"_s + query;
        if (!continueToken.isEmpty())
            path += u"&continue="_s + QString::fromUtf8(QUrl::toPercentEncoding(continueToken));
        QNetworkReply *reply = nam.get(server.request(path));
        QByteArray head;
        QByteArray tail;
        bool ended = false;
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
            const QByteArray chunk = reply->readAll();
            bytes += chunk.size();
            if (head.size() < 4096)
                head += chunk.left(4096 - head.size());
            tail = (tail + chunk).right(16384);
            if (watchList && tail.contains("k8s.io/initial-events-end")) {
                ended = true;
                loop.quit();
            }
        });
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(TimeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->abort();
        reply->deleteLater();
        if (status != 200 || (watchList && !ended))
            return failed("server", "GET " + path.toUtf8() + ": " + QByteArray::number(status));
        ++pages;
        // The list's metadata ends the body (kube-apiserver) or starts it (the embedded cluster).
        static const QRegularExpression token(u"\"continue\":\\s*\"([^\"]+)\""_s);
        auto match = token.match(QString::fromUtf8(tail.right(4096)));
        if (!match.hasMatch())
            match = token.match(QString::fromUtf8(head));
        continueToken = !watchList && match.hasMatch() ? match.captured(1) : QString();
    } while (!continueToken.isEmpty());
    run.ok = true;
    run.wall = double(timer.nsecsElapsed()) / 1e9;
    run.extra = { { "bytes", bytes }, { "pages", pages } };
    return run;
}

struct Probe
{
    const char *name;
    const char *label;
    const char *query;
    bool watchList;
};

const Probe probes[] = {
    { "server-list-rv0",
      "list, resourceVersion=0 (the informer's)",
      "resourceVersion=0&limit=500",
      false },
    { "server-pages-500", "pages of 500 (kubectl's, Python's)", "limit=500", false },
    { "server-watch-list",
      "watch-list stream (client-go's)",
      "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
      true },
};

PeerRun runPeer(const QString &name, const BenchServer &server, int objects, const QString &cache)
{
    if (name == u"informer")
        return runInformer(server, objects);
    if (name == u"console")
        return runConsole(server, objects);
    if (name == u"client-go")
        return runClientGo(server, objects, u"default"_s);
    if (name == u"client-go-list")
        return runClientGo(server, objects, u"off"_s);
    if (name == u"k9s")
        return runK9s(server, objects);
    if (name == u"kubectl")
        return runKubectl(server, cache);
    if (name == u"python")
        return runPython(server, objects);
    for (const Probe &probe : probes) {
        if (name == QLatin1StringView(probe.name))
            return probeServer(server, QString::fromLatin1(probe.query), probe.watchList);
    }
    return failed(qPrintable(name), "no such peer");
}

double median(std::vector<double> values)
{
    if (values.empty())
        return -1;
    std::sort(values.begin(), values.end());
    const size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// The medians of one peer's completed runs.
struct Medians
{
    int runs = 0;
    double wall = -1;
    double cpu = -1;
    double peakRss = -1;
    double serverCpu = -1;
    std::vector<double> walls;
};

Medians mediansOf(const QList<PeerRun> &runs)
{
    Medians m;
    std::vector<double> cpu;
    std::vector<double> rss;
    std::vector<double> server;
    for (const PeerRun &run : runs) {
        if (!run.ok)
            continue;
        ++m.runs;
        m.walls.push_back(run.wall);
        cpu.push_back(run.cpu);
        rss.push_back(double(run.peakRss));
        server.push_back(run.serverCpu);
    }
    m.wall = median(m.walls);
    m.cpu = median(cpu);
    m.peakRss = median(rss);
    m.serverCpu = median(server);
    return m;
}

// Creates namespace "bench" and `objects` CustomApps in it: 6 requests in flight on the embedded
// cluster (as the embedded bench loads it), 16 over three connection pools on kube-apiserver
// (whose creates take longer each and run in parallel). Returns creates per second, 0 on failure.
double loadObjects(BenchServer &server, int objects)
{
    QNetworkAccessManager nam;
    const auto ns
        = server.send(nam,
                      "POST",
                      u"/api/v1/namespaces"_s,
                      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})",
                      "application/json");
    if (ns.status != 201) {
        std::fprintf(stderr, "namespace: %d %s\n", ns.status, ns.body.constData());
        return 0;
    }
    const bool real = server.kind() == BenchServer::Kind::Real;
    std::vector<std::unique_ptr<QNetworkAccessManager>> pools;
    for (int i = 0; i < (real ? 3 : 1); ++i)
        pools.push_back(std::make_unique<QNetworkAccessManager>());
    const auto path = collection.arg(u"bench"_s);
    int failures = 0;
    const double seconds = runConcurrent(
        nam,
        objects,
        real ? 16 : 6,
        [&](QNetworkAccessManager &, int i) {
            return pools[size_t(i) % pools.size()]->post(
                server.request(path, "application/json"),
                QByteArray::fromStdString(makeObject(i).dump()));
        },
        &failures);
    return failures == 0 ? objects / seconds : 0.0;
}

} // namespace

QStringList racePeers()
{
    return { u"informer"_s, u"console"_s, u"client-go"_s, u"client-go-list"_s,
             u"k9s"_s,      u"kubectl"_s, u"python"_s };
}

namespace {

struct ServerResult
{
    QString name;
    bool ok = false;
    double createPerSecond = 0;
    qint64 jsonBytes = 0; // the informer's list as the server sent it
    QStringList peers; // in the table's order: the peers, then the probes
    std::map<QString, QList<PeerRun>> runs;
    std::map<QString, Medians> medians;
};

// Runs `name` once, with the server's CPU seconds during the run; prints a line.
PeerRun timedOnServer(
    const QString &name, const BenchServer &server, int objects, const QString &cache, int round)
{
    const double serverBefore = server.cpuSeconds();
    PeerRun run = runPeer(name, server, objects, cache);
    run.serverCpu = server.cpuSeconds() - serverBefore;
    if (run.ok && name.startsWith(u"server-")) {
        std::printf("  round %d  %-18s %7.2f s  %6.1f MB in %lld pages      server CPU %6.2f s\n",
                    round + 1,
                    qPrintable(name),
                    run.wall,
                    double(run.extra["bytes"].get<qint64>()) / 1e6,
                    run.extra["pages"].get<qint64>(),
                    run.serverCpu);
        std::fflush(stdout);
    } else if (run.ok) {
        std::printf("  round %d  %-18s %7.2f s  CPU %6.2f s  peak %6.0f MB  server CPU %6.2f s\n",
                    round + 1,
                    qPrintable(name),
                    run.wall,
                    run.cpu,
                    double(run.peakRss) / 1e6,
                    run.serverCpu);
        std::fflush(stdout);
    }
    return run;
}

ServerResult raceOn(BenchServer::Kind kind, const RaceOptions &options)
{
    ServerResult result;
    BenchServer server(kind);
    result.name = server.name();
    if (!server.start()) {
        std::fprintf(stderr, "could not start the %s server\n", qPrintable(result.name));
        return result;
    }
    std::printf("\n== %s server at %s: loading %d CustomApps\n",
                qPrintable(result.name),
                qPrintable(server.url().toString()),
                options.objects);
    result.createPerSecond = loadObjects(server, options.objects);
    if (result.createPerSecond <= 0)
        return result;
    std::printf("  created %.0f objects/s (%lld B each)\n",
                result.createPerSecond,
                qint64(makeObject(1).dump().size()));
    // Unmeasured: the first list after the load, whose size the memory figures are held against.
    const PeerRun first = probeServer(server, QString::fromLatin1(probes[0].query), false);
    if (!first.ok)
        return result;
    result.jsonBytes = first.extra["bytes"].get<qint64>();
    QTemporaryDir kubectlCache; // warm from the second round on, as a user's is
    const QStringList peers = options.peers.isEmpty() ? racePeers() : options.peers;
    result.peers = peers;
    for (const Probe &probe : probes)
        result.peers << QString::fromLatin1(probe.name);
    bool complete = true;
    for (int round = 0; round < options.rounds; ++round) {
        for (const Probe &probe : probes) {
            const QString name = QString::fromLatin1(probe.name);
            result.runs[name] << timedOnServer(name, server, options.objects, {}, round);
        }
        // Alternating: each round starts one peer later.
        for (qsizetype i = 0; i < peers.size(); ++i) {
            const QString &name = peers[(i + round) % peers.size()];
            const PeerRun run
                = timedOnServer(name, server, options.objects, kubectlCache.path(), round);
            complete = complete && run.ok;
            result.runs[name] << run;
        }
    }
    for (const auto &[name, runs] : result.runs)
        result.medians[name] = mediansOf(runs);
    result.ok = complete;
    return result;
}

// The peer whose wall time `name`'s is held against: the informer for client-go's informer,
// the painted table for the clients that show or print every object.
QString reconscopeCounterpart(const QString &name)
{
    if (name.startsWith(u"client-go"))
        return u"informer"_s;
    if (name == u"k9s" || name == u"kubectl" || name == u"python")
        return u"console"_s;
    return {};
}

void printServerTable(const ServerResult &result, const RaceOptions &options)
{
    std::printf("\n%s server: %d CustomApps, %.1f MB of JSON in the informer's list; medians of "
                "%d rounds\n",
                qPrintable(result.name),
                options.objects,
                double(result.jsonBytes) / 1e6,
                options.rounds);
    std::printf("%-18s %8s %8s %9s %8s %10s %8s  %s\n",
                "peer",
                "wall s",
                "CPU s",
                "peak MB",
                "RSS/JSON",
                "server CPU",
                "ratio",
                "wall per round");
    for (const QString &name : result.peers) {
        const auto it = result.medians.find(name);
        if (it == result.medians.end() || it->second.runs == 0) {
            std::printf("%-18s %8s\n", qPrintable(name), "FAILED");
            continue;
        }
        const Medians &m = it->second;
        const bool probe = name.startsWith(u"server-");
        const QString counterpart = reconscopeCounterpart(name);
        const auto base = result.medians.find(counterpart);
        const double ratio
            = counterpart.isEmpty() || base == result.medians.end() || base->second.wall <= 0
            ? 0
            : m.wall / base->second.wall;
        QStringList walls;
        for (const double wall : m.walls)
            walls << QString::number(wall, 'f', 2);
        char rss[32] = "-";
        char perJson[32] = "-";
        char ratioText[32] = "-";
        if (!probe) {
            std::snprintf(rss, sizeof rss, "%.0f", m.peakRss / 1e6);
            std::snprintf(perJson, sizeof perJson, "%.2fx", m.peakRss / double(result.jsonBytes));
        }
        if (ratio > 0)
            std::snprintf(ratioText, sizeof ratioText, "%.1fx", ratio);
        std::printf("%-18s %8.2f %8s %9s %8s %10.2f %8s  %s\n",
                    qPrintable(name),
                    m.wall,
                    probe ? "-" : qPrintable(QString::number(m.cpu, 'f', 2)),
                    rss,
                    perJson,
                    m.serverCpu,
                    ratioText,
                    qPrintable(walls.join(u' ')));
    }
    const auto clientGo = result.runs.find(u"client-go"_s);
    if (clientGo != result.runs.end() && !clientGo->second.isEmpty()
        && clientGo->second.first().ok) {
        const json &extra = clientGo->second.first().extra;
        std::printf("client-go: WatchListClient gate %s by default; it %s (%lld list, %lld watch "
                    "requests)\n",
                    extra.value("watch_list_gate", false) ? "on" : "off",
                    extra.value("watch_list", false)
                        ? "streamed a watch-list (sendInitialEvents=true)"
                        : "listed, then watched",
                    extra.value("list_requests", qint64(0)),
                    extra.value("watch_requests", qint64(0)));
    }
    if (result.medians.count(u"k9s"_s))
        std::printf("k9s: its title is read every %d ms and changes once per refresh (%.0f s): "
                    "its time is known to within %.1f s\n",
                    K9sPollMs,
                    K9sRefreshSeconds,
                    K9sRefreshSeconds + K9sPollMs / 1000.0);
}

struct Target
{
    const char *label;
    const char *peer; // the reconscope figure
    const char *other; // the peer's figure it is held against; null: against the JSON's size
    double target;
};

const Target targets[] = {
    { "informer vs client-go", "informer", "client-go", 2.0 },
    { "painted table vs k9s", "console", "k9s", 2.0 },
    { "painted table vs kubectl", "console", "kubectl", 15.0 },
    { "painted table vs python", "console", "python", 2.0 },
    { "console peak RSS / JSON", "console", nullptr, 1.5 },
    { "informer peak RSS / JSON", "informer", nullptr, 1.5 },
};

json printTargets(const ServerResult &result)
{
    json out = json::object();
    std::printf("%-28s %10s %12s %10s\n", "target (issue 20)", "measured", "(CPU)", "target");
    for (const Target &target : targets) {
        const auto mine = result.medians.find(QString::fromLatin1(target.peer));
        const auto theirs = target.other ? result.medians.find(QString::fromLatin1(target.other))
                                         : result.medians.end();
        if (mine == result.medians.end() || mine->second.runs == 0
            || (target.other && (theirs == result.medians.end() || theirs->second.runs == 0))) {
            std::printf("%-28s %10s\n", target.label, "-");
            continue;
        }
        const bool memory = !target.other;
        const double value = memory ? mine->second.peakRss / double(result.jsonBytes)
                                    : theirs->second.wall / mine->second.wall;
        const double cpu = memory ? 0 : theirs->second.cpu / mine->second.cpu;
        const bool met = memory ? value <= target.target : value >= target.target;
        std::printf("%-28s %9.2fx %12s %2s %6.1fx  %s\n",
                    target.label,
                    value,
                    memory ? "" : qPrintable(u"(%1x)"_s.arg(cpu, 0, 'f', 2)),
                    memory ? "<=" : ">=",
                    target.target,
                    met ? "met" : "MISSED");
        out[target.label] = { { "value", value }, { "cpu_ratio", cpu }, { "met", met } };
    }
    return out;
}

json toJson(const ServerResult &result, const json &targetFigures)
{
    json peers = json::object();
    for (const auto &[name, runs] : result.runs) {
        const Medians &m = result.medians.at(name);
        json each = json::array();
        for (const PeerRun &run : runs) {
            each.push_back({ { "ok", run.ok },
                             { "wall_seconds", run.wall },
                             { "cpu_seconds", run.cpu },
                             { "peak_rss_bytes", run.peakRss },
                             { "server_cpu_seconds", run.serverCpu },
                             { "extra", run.extra } });
        }
        peers[name.toStdString()] = { { "wall_seconds", m.wall },
                                      { "cpu_seconds", m.cpu },
                                      { "peak_rss_bytes", m.peakRss },
                                      { "server_cpu_seconds", m.serverCpu },
                                      { "runs", each } };
    }
    return { { "complete", result.ok },
             { "create_per_s", result.createPerSecond },
             { "json_bytes", result.jsonBytes },
             { "peers", peers },
             { "targets", targetFigures } };
}

// With more than one server: the peers' medians side by side.
void printSideBySide(const std::vector<ServerResult> &results)
{
    std::printf("\n%-18s", "peer (wall/CPU s, MB)");
    for (const ServerResult &result : results)
        std::printf(" %26s", qPrintable(result.name));
    std::printf("\n");
    for (const QString &name : results.front().peers) {
        std::printf("%-18s", qPrintable(name));
        for (const ServerResult &result : results) {
            const auto it = result.medians.find(name);
            if (it == result.medians.end() || it->second.runs == 0) {
                std::printf(" %26s", "-");
                continue;
            }
            std::printf(" %26s",
                        qPrintable(u"%1 / %2 / %3"_s.arg(it->second.wall, 0, 'f', 2)
                                       .arg(it->second.cpu, 0, 'f', 2)
                                       .arg(it->second.peakRss / 1e6, 0, 'f', 0)));
        }
        std::printf("\n");
    }
}

} // namespace

int runRace(const RaceOptions &options)
{
    std::vector<ServerResult> results;
    json servers = json::object();
    for (const BenchServer::Kind kind : options.servers) {
        results.push_back(raceOn(kind, options));
        const ServerResult &result = results.back();
        if (result.jsonBytes == 0)
            return 1;
        printServerTable(result, options);
        servers[result.name.toStdString()] = toJson(result, printTargets(result));
        std::fflush(stdout);
    }
    if (results.size() > 1)
        printSideBySide(results);
    if (!options.jsonPath.isEmpty()) {
        QFile out(options.jsonPath);
        if (!out.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(options.jsonPath));
            return 1;
        }
        const json doc{ { "objects", options.objects },
                        { "rounds", options.rounds },
                        { "servers", servers } };
        out.write(QByteArray::fromStdString(doc.dump(2)));
    }
    const bool complete
        = std::all_of(results.begin(), results.end(), [](const auto &r) { return r.ok; });
    return complete ? 0 : 1;
}
