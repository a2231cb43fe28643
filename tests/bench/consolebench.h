#pragma once

#include <QString>

#include <chrono>
#include <cstdint>

// The console side of the benchmark, each run as a child process of reconscope_bench so that its
// memory and its UI thread are its own.

// The monotonic clock shared by the processes of one machine (CLOCK_MONOTONIC): a watch load
// writes its send time into each status, the console reads it back when the row changes.
inline std::int64_t benchMonotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The prefix of the condition message that carries the send time ("bench-ts <ns>").
inline constexpr char benchTimestampPrefix[] = "bench-ts ";

class BenchServer;
class QNetworkAccessManager;

// Runs the event loop for `ms` without keeping the thread busy.
void runEventsFor(qint64 ms);

// Sustained watch load made by the server itself: its churn mutator (POST
// /debug/reconscope/churn) writes `rate` status changes per second to the CustomApps of namespace
// "bench" for `seconds`, each carrying its send time (ChurnMutator::TimestampPrefix). Returns the
// changes per second the server committed (0 when the endpoint failed).
double driveServerChurn(
    BenchServer &server, QNetworkAccessManager &nam, double rate, double seconds, int *failures);

// `reconscope_bench --console-child KUBECONFIG N`: the real console (ConsoleSession, its table
// model, ResourceTablePanel's sorted proxy and view, offscreen) connects and fills the table.
// Prints one JSON line once the N rows are shown sorted and painted (seconds and the process's CPU
// seconds from connect, peak and steady memory, the longest UI-thread stall while loading), then
// answers each "mark" line on stdin with the figures since the previous mark (longest stall,
// event-to-visible latencies, rows changed); "quit" ends it. Needs a QApplication.
int runConsoleChild(const QString &kubeconfigPath, int expectedObjects);

// `reconscope_bench --reconcile-child KUBECONFIG`: an informer cache of the CustomApps and a
// ControllerLoop whose reconciler reads each object from that cache and finds nothing to do
// (status up to date). Enqueues every key and prints one JSON line: no-op reconciles per second.
int runReconcileChild(const QString &kubeconfigPath);
