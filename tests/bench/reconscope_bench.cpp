// Benchmarks of the embedded cluster (issue 3) — and, as the client side lands, of the console's
// client (issues 4 and 8). Run with `./dev bench [--quick] [--objects N] [--json FILE]`.
// The cluster runs as a separate `reconscope serve` process; every figure is measured in this run.
// `./dev bench --server real|both` runs the speed race against the peers instead (peerrace.h).
#include "benchload.h"
#include "benchserver.h"
#include "consolebench.h"
#include "informerbench.h"
#include "overviewbench.h"
#include "peerrace.h"
#include "recordbench.h"

#include "controller/kube/eventdispatcher.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"
#include "controller/kube/watchdecoder.h"
#include "controller/platform/allocator.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QProcess>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <memory>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

// Rounds of the painted table against Python's list (medians compared).
constexpr int ListRounds = 3;

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

// --- The console's client (issue 4) ---

// Records `events` watch events from the server (status patches to existing objects) as the raw
// response body, exactly as a client receives it.
QByteArray recordWatchStream(BenchServer &server,
                             QNetworkAccessManager &nam,
                             const QString &path,
                             int objects,
                             int events,
                             int *failures)
{
    const auto rvBody = server.send(nam, "GET", path + u"?limit=1"_s).body;
    const auto rv = QString::fromStdString(
        json::parse(rvBody.constBegin(), rvBody.constEnd(), nullptr, false)["metadata"].value(
            "resourceVersion", std::string()));
    QNetworkAccessManager watchNam;
    auto *reply = watchNam.get(server.request(path + u"?watch=true&resourceVersion="_s + rv));
    QByteArray recorded;
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
        recorded += reply->readAll();
        if (recorded.count('\n') >= events)
            loop.quit();
    });
    QTimer::singleShot(300, &loop, [&] {
        runConcurrent(
            nam,
            events,
            6,
            [&](QNetworkAccessManager &m, int i) {
                return m.sendCustomRequest(
                    server.request(path + u"/app-"_s + QString::number(i % objects) + u"/status"_s,
                                   "application/merge-patch+json"),
                    "PATCH",
                    QByteArray::fromStdString(makeStatus(1, 1000000 + i).dump()));
            },
            failures);
    });
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    loop.exec();
    reply->abort();
    reply->deleteLater();
    return recorded;
}

// Time to a complete InformerStore against kubectl and the Python client, the informer's peak
// memory against the raw JSON, and watch decode throughput.
void benchClient(BenchServer &server,
                 QNetworkAccessManager &nam,
                 Figures &figures,
                 int objects,
                 qint64 rawJsonBytes,
                 double kubectlSeconds,
                 double pythonSeconds,
                 bool quick,
                 int *failures)
{
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(),
                { u"--informer-child"_s, server.kubeconfigPath() });
    child.waitForFinished(600000);
    const auto line = child.readAllStandardOutput().trimmed();
    const auto result = json::parse(line.constBegin(), line.constEnd(), nullptr, false);
    if (child.exitCode() != 0 || result.is_discarded() || result.value("objects", 0) != objects) {
        std::fprintf(stderr,
                     "informer child failed: %s %s\n",
                     line.constData(),
                     child.readAllStandardError().right(400).constData());
        ++*failures;
        return;
    }
    const double listSeconds = result["seconds"].get<double>();
    const qint64 peak = result["peak_rss_bytes"].get<qint64>();
    const qint64 baseline = result["baseline_rss_bytes"].get<qint64>();
    figures.set("informer_list_seconds", listSeconds);
    figures.set("informer_ui_thread_cpu_ms", result.value("ui_thread_cpu_ms", -1.0));
    figures.set("informer_cpu_seconds", result.value("cpu_seconds", -1.0));
    figures.set("informer_speedup_vs_kubectl",
                kubectlSeconds > 0 ? kubectlSeconds / listSeconds : 0.0);
    figures.set("informer_speedup_vs_python",
                pythonSeconds > 0 ? pythonSeconds / listSeconds : 0.0);
    figures.set("informer_peak_rss_bytes", peak);
    figures.set("informer_baseline_rss_bytes", baseline);
    figures.set("informer_memory_per_raw_byte", double(peak) / double(rawJsonBytes));
    figures.set("informer_memory_above_baseline_per_raw_byte",
                double(peak - baseline) / double(rawJsonBytes));
    std::printf("informer synced   %8.2f s  (%d objects; %.1fx kubectl, %.1fx python)\n",
                listSeconds,
                objects,
                kubectlSeconds > 0 ? kubectlSeconds / listSeconds : 0.0,
                pythonSeconds > 0 ? pythonSeconds / listSeconds : 0.0);
    std::printf("informer UI thread %7.1f ms CPU from start to synced (all threads: %.2f s)\n",
                result.value("ui_thread_cpu_ms", -1.0),
                result.value("cpu_seconds", -1.0));
    std::printf("informer peak RSS %8.0f MB (%.2f x the raw JSON; %.0f MB above its %.0f MB start, "
                "%.2f x)\n",
                double(peak) / 1e6,
                double(peak) / double(rawJsonBytes),
                double(peak - baseline) / 1e6,
                double(baseline) / 1e6,
                double(peak - baseline) / double(rawJsonBytes));

    // Watch decoding: a recorded stream fed in 16 KiB reads, as the network delivers it.
    const auto path = collection.arg(u"bench"_s);
    const int events = quick ? 2000 : 5000;
    const QByteArray stream = recordWatchStream(server, nam, path, objects, events, failures);
    const int recordedEvents = int(stream.count('\n'));
    constexpr qsizetype ReadSize = 16 * 1024;
    const int passes = 10;
    qint64 decoded = 0;
    QElapsedTimer timer;
    timer.start();
    for (int pass = 0; pass < passes; ++pass) {
        reconscope::controller::kube::WatchDecoder decoder;
        for (qsizetype at = 0; at < stream.size(); at += ReadSize) {
            decoder.feed(QByteArrayView(stream).sliced(at, std::min(ReadSize, stream.size() - at)));
            decoded += decoder.takeEvents().size();
        }
        decoder.finish();
        decoded += decoder.takeEvents().size();
        if (decoder.hasError()) {
            std::fprintf(stderr, "watch decode: %s\n", qPrintable(decoder.errorString()));
            ++*failures;
            return;
        }
    }
    const double decodeSeconds = double(timer.nsecsElapsed()) / 1e9;
    if (decoded != qint64(recordedEvents) * passes) {
        std::fprintf(
            stderr, "watch decode: %lld events decoded, %d recorded\n", decoded, recordedEvents);
        ++*failures;
    }
    figures.set("watch_decode_events_per_s", double(decoded) / decodeSeconds);
    figures.set("watch_decode_mb_per_s", double(stream.size()) * passes / 1e6 / decodeSeconds);
    std::printf(
        "watch decode      %8.0f events/s (%.0f MB/s; %d recorded events of %.1f KB, x%d)\n",
        double(decoded) / decodeSeconds,
        double(stream.size()) * passes / 1e6 / decodeSeconds,
        recordedEvents,
        recordedEvents ? double(stream.size()) / recordedEvents / 1e3 : 0.0,
        passes);

    // What the informer absorbs end to end (a child process: a local server, this program's
    // InformerStore).
    QProcess absorb;
    const int absorbEvents = quick ? 20000 : 50000;
    absorb.start(QCoreApplication::applicationFilePath(),
                 { u"--informer-absorb"_s, QString::number(absorbEvents) });
    absorb.waitForFinished(120000);
    const auto absorbLine = absorb.readAllStandardOutput().trimmed();
    const auto absorbed
        = json::parse(absorbLine.constBegin(), absorbLine.constEnd(), nullptr, false);
    if (absorb.exitCode() != 0 || absorbed.is_discarded() || !absorbed.value("complete", false)) {
        std::fprintf(stderr,
                     "informer absorb child failed: %s %s\n",
                     absorbLine.constData(),
                     absorb.readAllStandardError().right(400).constData());
        ++*failures;
        return;
    }
    figures.set("informer_watch_events_per_s", absorbed["events_per_s"].get<double>());
    figures.set("informer_watch_cpu_us_per_event", absorbed["cpu_us_per_event"].get<double>());
    std::printf("informer absorbs  %8.0f watch events/s (%d MODIFIED events of %.1f KB on 5,000 "
                "objects, %.0f MB/s: read, decoded, summarised, compressed, applied; %.1f us of "
                "CPU each, all threads)\n",
                absorbed["events_per_s"].get<double>(),
                absorbEvents,
                absorbed["event_bytes"].get<double>() / 1e3,
                absorbed["mb_per_s"].get<double>(),
                absorbed["cpu_us_per_event"].get<double>());
}

// --- The console (issue 8) ---

// Starts this program with `arguments`; when the environment variable `wrapVariable` is set (e.g.
// "perf record -g -o console.data --"), under that command, for profiling.
void startChild(QProcess &child, const char *wrapVariable, const QStringList &arguments)
{
    const QString wrap = qEnvironmentVariable(wrapVariable);
    if (wrap.isEmpty()) {
        child.start(QCoreApplication::applicationFilePath(), arguments);
        return;
    }
    QStringList command = wrap.split(u' ', Qt::SkipEmptyParts);
    const QString program = command.takeFirst();
    child.start(program,
                command + QStringList{ QCoreApplication::applicationFilePath() } + arguments);
}

json readChildLine(QProcess &child, int timeoutMs)
{
    child.waitForStarted(30000);
    QElapsedTimer timer;
    timer.start();
    while (!child.canReadLine() && timer.elapsed() < timeoutMs
           && child.state() == QProcess::Running)
        child.waitForReadyRead(100);
    if (!child.canReadLine())
        return json();
    const QByteArray line = child.readLine().trimmed();
    return json::parse(line.constBegin(), line.constEnd(), nullptr, false);
}

// Connect -> complete, sorted, painted table in the real console (a child process, offscreen),
// its memory, and its UI thread under sustained watch load at several rates.
double medianOf(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// A console child started on the server: its first line says when the table was painted.
json startConsoleChild(QProcess &child, BenchServer &server, int objects)
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    startChild(child,
               "RECONSCOPE_BENCH_WRAP_CONSOLE",
               { u"--console-child"_s, server.kubeconfigPath(), QString::number(objects) });
    const json shown = readChildLine(child, 600000);
    return !shown.is_discarded() && shown.contains("painted_seconds") ? shown : json();
}

void benchConsole(BenchServer &server,
                  Figures &figures,
                  int objects,
                  qint64 rawJsonBytes,
                  double kubectlSeconds,
                  double pythonSeconds,
                  const std::function<double()> &timePython,
                  bool quick,
                  int *failures)
{
    // The painted table against Python's list in alternating rounds, their medians compared: on
    // two cores shared with the server one run of either varies by 20% or more. The last round's
    // console goes on to the watch load below.
    QList<double> paintedRuns;
    QList<double> pythonRuns;
    if (pythonSeconds > 0)
        pythonRuns << pythonSeconds;
    for (int round = 0; round < ListRounds - 1; ++round) {
        QProcess first;
        const json shown = startConsoleChild(first, server, objects);
        first.kill();
        first.waitForFinished();
        if (!shown.is_null())
            paintedRuns << shown["painted_seconds"].get<double>();
        if (pythonSeconds > 0)
            pythonRuns << timePython();
    }
    QProcess child;
    const json shown = startConsoleChild(child, server, objects);
    if (shown.is_null()) {
        std::fprintf(stderr, "console child failed\n");
        ++*failures;
        child.kill();
        child.waitForFinished();
        return;
    }
    paintedRuns << shown["painted_seconds"].get<double>();
    const double seconds = medianOf(paintedRuns);
    pythonSeconds = medianOf(pythonRuns);
    QStringList runs;
    for (qsizetype i = 0; i < std::max(paintedRuns.size(), pythonRuns.size()); ++i) {
        runs << u"%1 s / %2 s"_s.arg(paintedRuns.value(i), 0, 'f', 2)
                    .arg(pythonRuns.value(i), 0, 'f', 2);
    }
    std::printf("painted / python  rounds: %s (medians compared)\n",
                qPrintable(runs.join(u", "_s)));
    figures.set("list_seconds_runs", std::vector<double>(paintedRuns.cbegin(), paintedRuns.cend()));
    figures.set("python_list_seconds_runs",
                std::vector<double>(pythonRuns.cbegin(), pythonRuns.cend()));
    figures.set("python_list_seconds", pythonSeconds);
    const qint64 peak = shown["peak_rss_bytes"].get<qint64>();
    const qint64 steady = shown["steady_rss_bytes"].get<qint64>();
    figures.set("list_seconds", seconds);
    figures.set("list_rows_seconds", shown["rows_seconds"]);
    figures.set("list_sorted", shown["sorted"]);
    figures.set("list_speedup_vs_kubectl", kubectlSeconds > 0 ? kubectlSeconds / seconds : 0.0);
    figures.set("list_speedup_vs_python", pythonSeconds > 0 ? pythonSeconds / seconds : 0.0);
    figures.set("peak_rss_bytes", peak);
    figures.set("steady_rss_bytes", steady);
    figures.set("console_baseline_rss_bytes", shown["baseline_rss_bytes"]);
    figures.set("memory_per_raw_byte", double(peak) / double(rawJsonBytes));
    figures.set("steady_memory_per_raw_byte", double(steady) / double(rawJsonBytes));
    figures.set("list_max_stall_ms", shown["load_max_stall_ms"]);
    figures.set("list_max_stall_cpu_ms", shown["load_max_stall_cpu_ms"]);
    figures.set("list_max_busy_ms", shown["load_max_busy_ms"]);
    std::printf("console painted   %8.2f s  (%d rows sorted%s; %.1fx kubectl, %.1fx python; "
                "longest UI stall while loading %.0f ms, %.0f ms of it busy)\n",
                seconds,
                shown["rows"].get<int>(),
                shown["sorted"].get<bool>() ? "" : " NOT SORTED",
                kubectlSeconds > 0 ? kubectlSeconds / seconds : 0.0,
                pythonSeconds > 0 ? pythonSeconds / seconds : 0.0,
                shown["load_max_stall_ms"].get<double>(),
                shown["load_max_stall_cpu_ms"].get<double>());
    std::printf("console memory    %8.0f MB peak, %.0f MB steady (%.2f x / %.2f x the raw JSON)\n",
                double(peak) / 1e6,
                double(steady) / 1e6,
                double(peak) / double(rawJsonBytes),
                double(steady) / double(rawJsonBytes));

    // Sustained watch load, made by the server itself (its churn mutator).
    QNetworkAccessManager nam;
    const double phaseSeconds = quick ? 4 : 6;
    // Unmeasured, first: one change to every object. The mutator's first write to an object
    // reads it to find its Churn condition (later ones patch that entry blind), so without this
    // pass the measured rates would depend on how many objects each phase touches first.
    driveServerChurn(server, nam, 10000, std::ceil(objects / 10000.0) + 0.5, failures);
    // One phase: the child's figures reset, the server churns at `rate`, the last events drain,
    // the child reports. Returns the rate made and the child's figures.
    const auto churnPhase = [&](int rate) {
        child.write("mark\n");
        readChildLine(child, 30000);
        const double achieved = driveServerChurn(server, nam, rate, phaseSeconds, failures);
        runEventsFor(1500);
        child.write("mark\n");
        return std::pair{ achieved, readChildLine(child, 30000) };
    };
    double absorbed = 0;
    for (const int rate : { 1000, 5000, 10000, 15000 }) {
        const auto [achieved, phase] = churnPhase(rate);
        if (phase.is_discarded() || !phase.contains("max_stall_ms")) {
            std::fprintf(stderr, "console child: no figures for %d events/s\n", rate);
            ++*failures;
            break;
        }
        const double stall = phase["max_stall_ms"].get<double>();
        const double p99 = phase["latency_p99_ms"].get<double>();
        const bool kept = achieved >= 0.9 * rate && stall <= 50 && p99 < 250;
        if (kept)
            absorbed = std::max(absorbed, achieved);
        const std::string prefix = "watch_" + std::to_string(rate) + "_";
        figures.set(prefix + "achieved_per_s", achieved);
        figures.set(prefix + "max_stall_ms", stall);
        figures.set(prefix + "max_stall_cpu_ms", phase["max_stall_cpu_ms"]);
        figures.set(prefix + "max_busy_ms", phase["max_busy_ms"]);
        figures.set(prefix + "latency_p50_ms", phase["latency_p50_ms"]);
        figures.set(prefix + "latency_p99_ms", p99);
        figures.set(prefix + "changed_rows", phase["changed_rows"]);
        if (rate == 10000) {
            figures.set("ui_max_stall_ms", stall);
            figures.set("ui_max_busy_ms", phase["max_busy_ms"]);
            figures.set("event_latency_p99_ms", p99);
        }
        figures.set("peak_rss_under_load_bytes", phase["peak_rss_bytes"]);
        std::printf("watch load %5d/s: %6.0f/s sent, %lld rows changed, UI stall max %4.0f ms "
                    "(UI thread busy %.0f ms of it; most busy between ticks %.0f ms), "
                    "latency p50 %4.0f ms p99 %4.0f ms%s\n",
                    rate,
                    achieved,
                    phase["changed_rows"].get<qint64>(),
                    stall,
                    phase["max_stall_cpu_ms"].get<double>(),
                    phase["max_busy_ms"].get<double>(),
                    phase["latency_p50_ms"].get<double>(),
                    p99,
                    kept ? "" : "  (over the limits)");
    }
    figures.set("watch_events_per_s", absorbed);

    // The same 10k events/s while the console records what it watches (File -> Record, issue
    // 24): the recording runs on its own thread, the UI thread must not stall for it.
    const QString recordingPath = QDir::temp().filePath(u"reconscope-bench-console.rrec"_s);
    child.write("record " + recordingPath.toUtf8() + "\n");
    const json started = readChildLine(child, 60000);
    if (started.is_discarded() || !started.value("recording", false)) {
        std::fprintf(
            stderr, "console child: File -> Record did not start: %s\n", started.dump().c_str());
        ++*failures;
    } else {
        runEventsFor(2000); // its first list
        const auto [achieved, phase] = churnPhase(10000);
        child.write("stoprecord\n");
        const json stopped = readChildLine(child, 60000);
        QFile::remove(recordingPath);
        if (phase.is_discarded() || !phase.contains("max_stall_ms")
            || !stopped.contains("events")) {
            std::fprintf(stderr, "console child: no figures while recording\n");
            ++*failures;
        } else {
            figures.set("recording_ui_max_stall_ms", phase["max_stall_ms"]);
            figures.set("recording_event_latency_p99_ms", phase["latency_p99_ms"]);
            std::printf("recording at 10k/s: %6.0f/s sent, %lld events recorded (%.1f MB JSON -> "
                        "%.1f MB file), UI stall max %4.0f ms, latency p99 %4.0f ms\n",
                        achieved,
                        stopped["events"].get<qint64>(),
                        stopped["received_bytes"].get<double>() / 1e6,
                        stopped["file_bytes"].get<double>() / 1e6,
                        phase["max_stall_ms"].get<double>(),
                        phase["latency_p99_ms"].get<double>());
        }
    }
    child.write("quit\n");
    if (!child.waitForFinished(30000))
        child.kill();
}

// No-op reconciles from the informer cache, in a child process.
void benchReconcile(BenchServer &server, Figures &figures, int *failures)
{
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    startChild(child,
               "RECONSCOPE_BENCH_WRAP_RECONCILE",
               { u"--reconcile-child"_s, server.kubeconfigPath() });
    child.waitForFinished(600000);
    const auto line = child.readAllStandardOutput().trimmed();
    const auto result = json::parse(line.constBegin(), line.constEnd(), nullptr, false);
    if (child.exitCode() != 0 || result.is_discarded() || !result.contains("reconciles_per_s")) {
        std::fprintf(stderr, "reconcile child failed: %s\n", line.constData());
        ++*failures;
        return;
    }
    figures.set("noop_reconciles_per_s", result["reconciles_per_s"]);
    figures.set("noop_reconciles", result["reconciles"]);
    std::printf("no-op reconciles  %8.0f /s  (%lld from the informer cache: %lld up to date, %lld "
                "would write status)\n",
                result["reconciles_per_s"].get<double>(),
                result["reconciles"].get<qint64>(),
                result["up_to_date"].get<qint64>(),
                result["would_write"].get<qint64>());
}

// The figures against the targets of issue 8, one line each.
void printTargets(Figures &figures)
{
    auto value = [&](const char *key) {
        const auto it = figures.values.find(key);
        return it == figures.values.end() || !it->second.is_number() ? -1.0
                                                                     : it->second.get<double>();
    };
    struct Row
    {
        const char *label;
        const char *key;
        const char *format;
        double target;
        bool atMost;
    };
    const Row rows[] = {
        { "connect -> sorted painted table", "list_seconds", "%.2f s", 2.0, true },
        { "speed-up vs kubectl", "list_speedup_vs_kubectl", "%.1fx", 15.0, false },
        { "speed-up vs Python client", "list_speedup_vs_python", "%.2fx", 2.0, false },
        { "peak memory / raw JSON", "memory_per_raw_byte", "%.2fx", 1.5, true },
        { "steady memory / raw JSON", "steady_memory_per_raw_byte", "%.2fx", 1.5, true },
        { "watch events/s absorbed", "watch_events_per_s", "%.0f/s", 10000.0, false },
        { "UI stall at 10k events/s", "ui_max_stall_ms", "%.0f ms", 50.0, true },
        { "event->visible p99 at 10k/s", "event_latency_p99_ms", "%.0f ms", 250.0, true },
        { "no-op reconciles/s", "noop_reconciles_per_s", "%.0f/s", 10000.0, false },
        { "recorder CPU at 10k events/s, cores", "record_cpu_core_share", "%.2f", 0.2, true },
        { "recording / JSON received", "record_file_per_received", "%.3fx", 0.25, true },
        { "UI stall at 10k/s while recording", "recording_ui_max_stall_ms", "%.0f ms", 50.0, true },
        { "overview of 20 CRDs complete", "overview_seconds", "%.2f s", 2.0, true },
        { "overview peak memory / JSON", "overview_memory_per_json_byte", "%.2fx", 1.5, true },
    };
    std::printf("\n%-34s %12s %10s\n", "figure", "measured", "target");
    for (const Row &row : rows) {
        const double v = value(row.key);
        char measured[64];
        char target[64];
        std::snprintf(measured, sizeof measured, row.format, v);
        std::snprintf(target, sizeof target, row.format, row.target);
        const bool met = v >= 0 && (row.atMost ? v <= row.target : v >= row.target);
        std::printf("%-34s %12s %2s%8s  %s\n",
                    row.label,
                    v < 0 ? "-" : measured,
                    row.atMost ? "<=" : ">=",
                    target,
                    v < 0     ? "not measured"
                        : met ? "met"
                              : "MISSED");
    }
}

} // namespace

int main(int argc, char *argv[])
{
    reconscope::controller::platform::tuneAllocator(); // as the program does (app/main.cpp)
    // As the console does (app/consolecommand.cpp): the main thread on GLib's event dispatcher,
    // the threads started later (informers, network) on Qt's.
    if (argc == 4 && QByteArrayView(argv[1]) == "--console-child") {
        QApplication app(argc, argv);
        reconscope::controller::kube::preferQtEventDispatcher();
        return runConsoleChild(QString::fromLocal8Bit(argv[2]), QByteArrayView(argv[3]).toInt());
    }
    QCoreApplication app(argc, argv);
    reconscope::controller::kube::preferQtEventDispatcher();
    if (argc == 3 && QString::fromLocal8Bit(argv[1]) == u"--informer-child"_s)
        return runInformerChild(QString::fromLocal8Bit(argv[2]));
    if (argc == 3 && QString::fromLocal8Bit(argv[1]) == u"--informer-absorb"_s)
        return runInformerAbsorbChild(QString::fromLocal8Bit(argv[2]).toInt());
    if (argc == 3 && QString::fromLocal8Bit(argv[1]) == u"--reconcile-child"_s)
        return runReconcileChild(QString::fromLocal8Bit(argv[2]));
    if (argc == 4 && QString::fromLocal8Bit(argv[1]) == u"--record-child"_s)
        return runRecordChild(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    if (argc == 4 && QString::fromLocal8Bit(argv[1]) == u"--overview-child"_s)
        return runOverviewChild(QString::fromLocal8Bit(argv[2]),
                                QString::fromLocal8Bit(argv[3]).toInt());
    int objects = 50000;
    QString jsonPath;
    bool quick = false;
    // --only fanout,kubectl,python,informer,console,reconcile,record,overview: the stages to run
    // after the load (all by default), to iterate on one of them; --hold: after the load, print
    // the kubeconfig and keep the server up until stdin closes (for profiling a child mode by
    // hand).
    QStringList only;
    bool hold = false;
    // --server real|embedded|both: the speed race against the peers (peerrace.h) on kube-apiserver
    // + etcd, on the embedded cluster, or on both in turn; embedded (the default) alone runs the
    // stages above, as does no --server. --only names the race's peers; --rounds its rounds.
    QString serverChoice;
    int rounds = 3;
    for (int i = 1; i < argc; ++i) {
        const auto arg = QString::fromLocal8Bit(argv[i]);
        if (arg == u"--quick"_s) {
            quick = true;
            objects = 10000;
        } else if (arg == u"--objects"_s && i + 1 < argc) {
            objects = QString::fromLocal8Bit(argv[++i]).toInt();
        } else if (arg == u"--json"_s && i + 1 < argc) {
            jsonPath = QString::fromLocal8Bit(argv[++i]);
        } else if (arg == u"--only"_s && i + 1 < argc) {
            only = QString::fromLocal8Bit(argv[++i]).split(u',', Qt::SkipEmptyParts);
        } else if (arg == u"--hold"_s) {
            hold = true;
        } else if (arg == u"--server"_s && i + 1 < argc) {
            serverChoice = QString::fromLocal8Bit(argv[++i]);
        } else if (arg == u"--rounds"_s && i + 1 < argc) {
            rounds = QString::fromLocal8Bit(argv[++i]).toInt();
        } else {
            serverChoice = u"?"_s;
            break;
        }
    }
    if (serverChoice == u"real"_s || serverChoice == u"both"_s) {
        RaceOptions race;
        if (serverChoice == u"both"_s)
            race.servers << BenchServer::Kind::Embedded;
        race.servers << BenchServer::Kind::Real;
        race.objects = objects;
        race.rounds = rounds;
        race.peers = only;
        race.jsonPath = jsonPath;
        const QStringList known = racePeers();
        const bool valid = rounds > 0 && objects > 0
            && std::all_of(only.cbegin(), only.cend(), [&](const QString &peer) {
                               return known.contains(peer);
                           });
        if (valid)
            return runRace(race);
        serverChoice = u"?"_s;
    }
    if (!serverChoice.isEmpty() && serverChoice != u"embedded"_s) {
        std::fprintf(stderr,
                     "usage: reconscope_bench [--quick] [--objects N] [--json FILE] "
                     "[--only fanout,kubectl,python,informer,console,reconcile,record,overview] "
                     "[--hold]\n"
                     "       reconscope_bench --server real|both [--objects N] [--rounds R] "
                     "[--json FILE] [--only %s]\n",
                     qPrintable(racePeers().join(u',')));
        return 2;
    }

    const auto runs = [&only](const QString &stage) {
        return only.isEmpty() || only.contains(stage);
    };
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

    if (hold) {
        std::printf("holding: KUBECONFIG=%s (close stdin to stop)\n",
                    qPrintable(server.kubeconfigPath()));
        std::fflush(stdout);
        while (std::getchar() != EOF) { }
        return 0;
    }

    // 4. Watch fan-out: 10 watchers from the current RV, then status writes at full speed.
    const int watchers = 10;
    const int mutations = runs(u"fanout"_s) ? (quick ? 2000 : 5000) : 0;
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
    QTimer::singleShot(mutations > 0 ? 120000 : 0, &watchLoop, &QEventLoop::quit);
    watchLoop.exec();
    for (auto *reply : streams)
        reply->abort();
    figures.set("watchers", watchers);
    figures.set("watch_fanout_events_per_s",
                complete == watchers ? watchers * mutations / lastEventAt : 0.0);
    std::printf("status PATCH      %8.0f writes/s\n",
                figures.values["status_patch_per_s"].is_number()
                    ? figures.values["status_patch_per_s"].get<double>()
                    : 0.0);
    std::printf("watch fan-out     %8.0f events/s delivered (%d watchers x %d events, %s)\n",
                complete == watchers ? watchers * mutations / lastEventAt : 0.0,
                watchers,
                mutations,
                complete == watchers ? "all delivered" : "INCOMPLETE");

    // 5. Other clients listing the same server: kubectl and Python's kubernetes package.
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"KUBECONFIG"_s, server.kubeconfigPath());
    qint64 kubectlRss = 0;
    const double kubectlSeconds = !runs(u"kubectl"_s)
        ? 0.0
        : timeProcess(u"kubectl"_s,
                      { u"get"_s, u"customapps"_s, u"-A"_s, u"-o"_s, u"json"_s },
                      env,
                      &kubectlRss);
    figures.set("kubectl_list_seconds", kubectlSeconds);
    figures.set("kubectl_peak_rss_bytes", kubectlRss);
    std::printf("kubectl get -A -o json   %6.2f s, peak %5.0f MB\n",
                kubectlSeconds,
                double(kubectlRss) / 1e6);
    const QString script = pythonListScript;
    qint64 pythonRss = 0;
    const auto timePython = [&] {
        return timeProcess(
            u"/usr/bin/python3"_s, { u"-c"_s, script, server.kubeconfigPath() }, env, &pythonRss);
    };
    const double pythonSeconds = !runs(u"python"_s) ? 0.0 : timePython();
    figures.set("python_list_seconds", pythonSeconds);
    figures.set("python_peak_rss_bytes", pythonRss);
    std::printf("python kubernetes list   %6.2f s, peak %5.0f MB\n",
                pythonSeconds,
                double(pythonRss) / 1e6);

    figures.set("server_peak_rss_bytes", server.peakRss());
    std::printf("server peak RSS   %8.0f MB (%.2f x the raw JSON)\n",
                double(server.peakRss()) / 1e6,
                double(server.peakRss()) / double(listBytes));

    // 6. The console's client on the same server: informer, memory, watch decoding.
    if (runs(u"informer"_s))
        benchClient(server,
                    nam,
                    figures,
                    objects,
                    listBytes,
                    kubectlSeconds,
                    pythonSeconds,
                    quick,
                    &failures);

    // 7. The console itself: painted table, memory, sustained watch load; then the reconciler.
    if (runs(u"console"_s))
        benchConsole(server,
                     figures,
                     objects,
                     listBytes,
                     kubectlSeconds,
                     pythonSeconds,
                     timePython,
                     quick,
                     &failures);
    if (runs(u"reconcile"_s))
        benchReconcile(server, figures, &failures);
    // 8. The recorder: the list, then 10k events/s for a minute (issue 24).
    if (runs(u"record"_s)) {
        const json recorded
            = benchRecorder(server, nam, objects, 10000, quick ? 10 : 60, &failures);
        for (auto it = recorded.begin(); it != recorded.end(); ++it)
            figures.set(it.key(), it.value());
    }
    // 9. All custom resources at once: the objects again, spread over 20 CRDs of their own, and
    // the console's overview of them (issue 23).
    if (runs(u"overview"_s)) {
        const json overview = benchOverview(server, nam, objects, 20, &failures);
        for (auto it = overview.begin(); it != overview.end(); ++it)
            figures.set(it.key(), it.value());
    }
    printTargets(figures);

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
