#include "consolebench.h"

#include "benchserver.h"

#include "controller/cluster/churn.h"
#include "controller/console/consolerecording.h"
#include "controller/console/consolesession.h"
#include "controller/kube/informerstore.h"
#include "controller/kube/kubeconfig.h"
#include "controller/reconcile/clock.h"
#include "controller/reconcile/controllerloop.h"
#include "models/resourcetablemodel.h"
#include "ui/resourcetablepanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QSocketNotifier>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <unistd.h>
#include <vector>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace {

namespace apimachinery = reconscope::controller::apimachinery;
namespace kube = reconscope::controller::kube;
namespace reconcile = reconscope::controller::reconcile;
namespace record = reconscope::controller::record;

// Waits for at least one event and handles what is ready (the single-argument overload does
// wait). The console child's stall monitor fires every 5 ms, so a loop of it looks at its
// condition at least that often.
void handleNextEvents()
{
    QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
}

// The UI thread's CPU time so far, ms.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// The whole process's CPU time so far (every thread), seconds.
double processCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// The UI thread's responsiveness: a 5 ms precise timer; a stall is how late it fires. The CPU time
// the UI thread itself used within each gap tells its own work (a busy stall) from waiting for a
// core on a loaded machine.
class StallMonitor final : public QObject
{
public:
    StallMonitor()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(IntervalMs);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = double(m_clock.nsecsElapsed()) / 1e6;
            const double cpu = threadCpuMs();
            const double stall = now - m_last - IntervalMs;
            if (stall > m_max) {
                m_max = stall;
                m_cpuInMax = cpu - m_lastCpu;
            }
            m_maxBusy = std::max(m_maxBusy, cpu - m_lastCpu);
            m_last = now;
            m_lastCpu = cpu;
        });
        m_clock.start();
        m_lastCpu = threadCpuMs();
        m_timer.start();
    }
    struct Figures
    {
        double maxStallMs; // the longest gap beyond the interval, wall time
        double cpuInMaxStallMs; // the UI thread's CPU time within that gap
        double maxBusyMs; // the most CPU time the UI thread used between two ticks
    };
    Figures take()
    {
        const Figures figures{ std::max(0.0, m_max), m_cpuInMax, m_maxBusy };
        m_max = 0;
        m_cpuInMax = 0;
        m_maxBusy = 0;
        return figures;
    }

private:
    static constexpr int IntervalMs = 5;
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0;
    double m_lastCpu = 0;
    double m_max = 0;
    double m_cpuInMax = 0;
    double m_maxBusy = 0;
};

// Sets a flag at each paint of the watched widget.
class PaintWatcher final : public QObject
{
public:
    bool painted = false;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            painted = true;
        return QObject::eventFilter(watched, event);
    }
};

qint64 rssBytes(const char *field)
{
    return procStatusKb(QCoreApplication::applicationPid(), field) * 1024;
}

// The send time of the change: the server's churn condition, or the harness's own status patch.
std::optional<std::int64_t> benchTimestamp(const reconscope::models::ObjectSummary &summary)
{
    using reconscope::controller::cluster::ChurnMutator;
    for (const auto &condition : summary.conditions) {
        if (const auto sent = ChurnMutator::sentAt(condition.message))
            return *sent;
        if (condition.message.startsWith(QLatin1StringView(benchTimestampPrefix))) {
            bool ok = false;
            const qint64 ns = QStringView(condition.message)
                                  .sliced(qsizetype(sizeof(benchTimestampPrefix) - 1))
                                  .toLongLong(&ok);
            if (ok)
                return ns;
        }
    }
    return std::nullopt;
}

void printLine(const json &line)
{
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
}

json churnRequest(BenchServer &server, QNetworkAccessManager &nam, const QString &query)
{
    const auto reply
        = server.send(nam,
                      query.isEmpty() ? "GET" : "POST",
                      QLatin1StringView(reconscope::controller::cluster::ChurnEndpointPath)
                          + (query.isEmpty() ? QString() : u"?"_s + query));
    if (reply.status != 200) {
        std::fprintf(stderr, "churn endpoint: %d %s\n", reply.status, reply.body.constData());
        return json();
    }
    return json::parse(reply.body.constBegin(), reply.body.constEnd(), nullptr, false);
}

} // namespace

// Runs the event loop for `ms` without keeping the thread busy. (A loop of
// QCoreApplication::processEvents(flags, ms) does not wait: that overload drops WaitForMoreEvents,
// so it polls without pause and takes a core from the threads being measured: the informer's, its
// pool's, the server's.)
void runEventsFor(qint64 ms)
{
    QEventLoop loop;
    QTimer::singleShot(std::chrono::milliseconds(ms), &loop, &QEventLoop::quit);
    loop.exec();
}

double driveServerChurn(
    BenchServer &server, QNetworkAccessManager &nam, double rate, double seconds, int *failures)
{
    const json started
        = churnRequest(server, nam, u"rate=%1&resource=customapps&namespace=bench"_s.arg(rate));
    if (!started.is_object() || !started.value("running", false)) {
        ++*failures;
        return 0;
    }
    runEventsFor(qint64(seconds * 1000));
    const json stopped = churnRequest(server, nam, u"rate=0"_s);
    if (!stopped.is_object()) {
        ++*failures;
        return 0;
    }
    if (stopped.value("failed", 0) > 0 && ++*failures <= 3)
        std::fprintf(stderr,
                     "churn: %lld changes failed (%s)\n",
                     stopped.value("failed", qint64(0)),
                     stopped.value("lastError", std::string()).c_str());
    return stopped.value("appliedPerSecond", 0.0);
}

int runConsoleChild(const QString &kubeconfigPath, int expectedObjects)
{
    using reconscope::controller::console::ConsoleRecording;
    using reconscope::controller::console::ConsoleSession;
    using reconscope::models::ResourceTableModel;
    using reconscope::ui::ResourceTablePanel;

    const qint64 baseline = rssBytes("VmRSS");
    ConsoleSession session;
    // RECONSCOPE_BENCH_PROGRESSIVE=1: the first list shown as it streams in (to compare).
    session.setProgressiveFirstList(qEnvironmentVariableIntValue("RECONSCOPE_BENCH_PROGRESSIVE")
                                    != 0);
    ResourceTablePanel panel(session.tableModel());
    panel.resize(1400, 900);
    panel.show();
    QTableView *view = panel.view();
    QSortFilterProxyModel *proxy = panel.proxy();
    PaintWatcher paints;
    view->viewport()->installEventFilter(&paints);
    // Let the empty window show before the clock starts.
    runEventsFor(300);

    StallMonitor stalls;
    std::vector<double> latencies;
    qint64 changedRows = 0;
    // Event latencies are taken in the watch-load phases only (the first list carries no send
    // times): looking up each listed row for one would be the harness's work, counted as the
    // console's.
    bool watchLoad = false;
    QObject::connect(&session,
                     &ConsoleSession::objectsChanged,
                     &session,
                     [&](const QStringList &upserted, const QStringList &removed) {
                         changedRows += upserted.size() + removed.size();
                         const kube::InformerStore *store = session.informer();
                         if (!store || !watchLoad)
                             return;
                         const std::int64_t now = benchMonotonicNs();
                         for (const QString &key : upserted) {
                             const kube::InformerEntry *entry = store->entry(key);
                             if (!entry)
                                 continue;
                             if (const auto sent = benchTimestamp(entry->summary))
                                 latencies.push_back(double(now - *sent) / 1e6);
                         }
                     });

    QElapsedTimer timer;
    timer.start();
    const double cpuAtConnect = threadCpuMs();
    const double processCpuAtConnect = processCpuSeconds();
    if (auto opened = session.openKubeconfig(kubeconfigPath); !opened.ok()) {
        std::fprintf(stderr, "console child: %s\n", qPrintable(opened.error().message));
        return 1;
    }
    // When the informer's store is complete (its own figure, in the same run), and the memory then.
    double syncedAt = 0;
    double cpuAtSynced = 0;
    qint64 rssAtSynced = 0;
    if (const kube::InformerStore *store = session.informer()) {
        QObject::connect(store, &kube::InformerStore::synced, &session, [&] {
            syncedAt = double(timer.nsecsElapsed()) / 1e9;
            cpuAtSynced = threadCpuMs();
            rssAtSynced = rssBytes("VmRSS");
        });
    }
    // Connect -> every row in the model and in the sorted proxy -> the next paint of the view.
    bool complete = false;
    double rowsAt = 0;
    while (timer.elapsed() < 600000) {
        handleNextEvents();
        if (!complete && session.tableModel()->rowCount() == expectedObjects
            && proxy->rowCount() == expectedObjects) {
            complete = true;
            rowsAt = double(timer.nsecsElapsed()) / 1e9;
            paints.painted = false;
            view->viewport()->update();
        } else if (complete && paints.painted) {
            break;
        }
    }
    const double paintedSeconds = double(timer.nsecsElapsed()) / 1e9;
    const double cpuSeconds = processCpuSeconds() - processCpuAtConnect;
    // The UI thread's CPU time from the informer's complete store to the painted table.
    const double fillCpuMs = syncedAt > 0 ? threadCpuMs() - cpuAtSynced : 0.0;
    // And from connect to the painted table.
    const double uiCpuMs = threadCpuMs() - cpuAtConnect;
    const auto loadStall = stalls.take();
    if (!complete || !paints.painted) {
        std::fprintf(stderr,
                     "console child: %d of %d rows shown after %.1f s\n",
                     session.tableModel()->rowCount(),
                     expectedObjects,
                     paintedSeconds);
        return 1;
    }
    // Sorted by name as the view shows it (the proxy's default sort), checked on the first rows.
    bool sorted = proxy->sortColumn() == ResourceTableModel::NameColumn;
    for (int row = 1; sorted && row < std::min(expectedObjects, 2000); ++row) {
        sorted = proxy->index(row - 1, ResourceTableModel::NameColumn)
                     .data(ResourceTableModel::SortRole)
                     .toString()
            <= proxy->index(row, ResourceTableModel::NameColumn)
                   .data(ResourceTableModel::SortRole)
                   .toString();
    }
    const qint64 peakAtPaint = rssBytes("VmHWM");
    // Steady state: two seconds later, nothing happening.
    runEventsFor(2000);
    printLine({ { "painted_seconds", paintedSeconds },
                { "rows_seconds", rowsAt },
                { "synced_seconds", syncedAt },
                { "synced_rss_bytes", rssAtSynced },
                { "synced_to_painted_ui_cpu_ms", fillCpuMs },
                { "connect_to_painted_ui_cpu_ms", uiCpuMs },
                { "cpu_seconds", cpuSeconds },
                { "rows", session.tableModel()->rowCount() },
                { "sorted", sorted },
                { "baseline_rss_bytes", baseline },
                { "peak_rss_bytes", peakAtPaint },
                { "steady_rss_bytes", rssBytes("VmRSS") },
                { "load_max_stall_ms", loadStall.maxStallMs },
                { "load_max_stall_cpu_ms", loadStall.cpuInMaxStallMs },
                { "load_max_busy_ms", loadStall.maxBusyMs },
                { "idle_max_stall_ms", stalls.take().maxStallMs } });
    std::fprintf(stderr,
                 "console child: store complete at %.3f s, every row in the model and the proxy "
                 "at %.3f s, painted at %.3f s; UI-thread CPU from the complete store to the "
                 "paint %.0f ms (from connect %.0f ms)\n",
                 syncedAt,
                 rowsAt,
                 paintedSeconds,
                 fillCpuMs,
                 uiCpuMs);
    latencies.clear();
    changedRows = 0;
    watchLoad = true;

    // Watch load phases, driven by the parent: "mark" reports and resets, "record FILE" starts
    // File -> Record (answered once it records), "stoprecord" ends it (answered with its counts),
    // "quit" ends.
    ConsoleRecording recording;
    QElapsedTimer phase;
    phase.start();
    QByteArray input;
    QSocketNotifier notifier(STDIN_FILENO, QSocketNotifier::Read);
    bool quit = false;
    QObject::connect(&notifier, &QSocketNotifier::activated, &notifier, [&] {
        char buffer[256];
        const auto n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n <= 0) {
            quit = true;
            return;
        }
        input.append(buffer, n);
        qsizetype newline;
        while ((newline = input.indexOf('\n')) >= 0) {
            const QByteArray command = input.left(newline).trimmed();
            input.remove(0, newline + 1);
            if (command == "quit") {
                quit = true;
            } else if (command.startsWith("record ")) {
                // File -> Record, as the console starts it: its own thread, client and watches.
                const QString path = QString::fromUtf8(command.mid(7));
                QObject::connect(
                    &recording, &ConsoleRecording::recording, &recording, [&](const QStringList &) {
                        printLine({ { "recording", true } });
                    });
                QObject::connect(
                    &recording, &ConsoleRecording::failed, &recording, [&](const QString &message) {
                        printLine({ { "recording", false }, { "error", message.toStdString() } });
                    });
                recording.start(session.client()->config(),
                                ConsoleRecording::optionsFor(session, path));
            } else if (command == "stoprecord") {
                QObject::connect(&recording,
                                 &ConsoleRecording::finished,
                                 &recording,
                                 [&](const record::RecorderStats &stats) {
                                     printLine({ { "events", stats.events },
                                                 { "received_bytes", stats.receivedBytes },
                                                 { "file_bytes", stats.fileBytes } });
                                 });
                recording.stop();
            } else if (command == "mark") {
                const double seconds = double(phase.nsecsElapsed()) / 1e9;
                const auto stall = stalls.take();
                printLine({ { "seconds", seconds },
                            { "max_stall_ms", stall.maxStallMs },
                            { "max_stall_cpu_ms", stall.cpuInMaxStallMs },
                            { "max_busy_ms", stall.maxBusyMs },
                            { "latency_samples", latencies.size() },
                            { "latency_p50_ms", percentile(latencies, 50) },
                            { "latency_p99_ms", percentile(latencies, 99) },
                            { "latency_max_ms", percentile(latencies, 100) },
                            { "changed_rows", changedRows },
                            { "rows", session.tableModel()->rowCount() },
                            { "rss_bytes", rssBytes("VmRSS") },
                            { "peak_rss_bytes", rssBytes("VmHWM") } });
                latencies.clear();
                changedRows = 0;
                phase.restart();
            }
        }
    });
    while (!quit)
        handleNextEvents();
    return 0;
}

namespace {

// Reads the object from the informer cache and finds nothing to write when its status describes
// the current generation and says Ready; counts what it would have written otherwise.
class CacheReconciler final : public reconcile::Reconciler
{
public:
    explicit CacheReconciler(const kube::InformerStore &store)
        : m_store(store)
    { }

    reconcile::ReconcileOutcome reconcile(const QString &key) override
    {
        const kube::InformerEntry *entry = m_store.entry(key);
        if (!entry) {
            ++missing;
            return reconcile::ReconcileOutcome::success();
        }
        const auto &summary = entry->summary;
        bool ready = false;
        for (const auto &condition : summary.conditions)
            ready = ready || (condition.type == u"Ready" && condition.isTrue());
        const bool current = summary.observedGeneration
            && summary.observedGeneration == summary.generation.value_or(0);
        if (ready && current)
            ++upToDate;
        else
            ++wouldWrite;
        return reconcile::ReconcileOutcome::success();
    }

    qint64 upToDate = 0;
    qint64 wouldWrite = 0;
    qint64 missing = 0;

private:
    const kube::InformerStore &m_store;
};

} // namespace

int runReconcileChild(const QString &kubeconfigPath)
{
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
    const apimachinery::ResourceRef customApps{ u"infrastructure.internal.net"_s,
                                                u"v1"_s,
                                                u"customapps"_s };
    kube::InformerStore store(config.value(), customApps);
    {
        QEventLoop loop;
        QObject::connect(&store, &kube::InformerStore::synced, &loop, &QEventLoop::quit);
        QTimer::singleShot(600000, &loop, &QEventLoop::quit);
        store.start();
        loop.exec();
    }
    if (!store.hasSynced()) {
        std::fprintf(stderr, "reconcile child: the informer did not sync\n");
        return 1;
    }
    reconcile::RealClock clock;
    CacheReconciler reconciler(store);
    reconcile::ControllerLoop::Options options;
    options.tokenBucket = false;
    reconcile::ControllerLoop loop(clock, reconciler, options);
    const QStringList keys = store.keys();
    // Two passes over every key: each enqueue is a trigger as an informer event would be.
    const qint64 total = qint64(keys.size()) * 2;
    qint64 finished = 0;
    QEventLoop done;
    QObject::connect(&loop, &reconcile::ControllerLoop::reconcileFinished, &done, [&] {
        if (++finished == total)
            done.quit();
    });
    QElapsedTimer timer;
    timer.start();
    for (const QString &key : keys)
        loop.enqueue(key, u"bench"_s);
    int pass = 1;
    QObject::connect(&loop, &reconcile::ControllerLoop::reconcileFinished, &done, [&] {
        if (pass == 1 && finished == qint64(keys.size())) {
            pass = 2;
            for (const QString &key : keys)
                loop.enqueue(key, u"bench"_s);
        }
    });
    QTimer::singleShot(600000, &done, &QEventLoop::quit);
    if (total > 0)
        done.exec();
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    loop.stop();
    printLine({ { "reconciles", finished },
                { "seconds", seconds },
                { "reconciles_per_s", seconds > 0 ? double(finished) / seconds : 0.0 },
                { "up_to_date", reconciler.upToDate },
                { "would_write", reconciler.wouldWrite },
                { "missing", reconciler.missing } });
    store.stop();
    return finished == total ? 0 : 1;
}
