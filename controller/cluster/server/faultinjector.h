#pragma once

#include "controller/cluster/apitypes.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>

namespace reconscope::controller::cluster {

// What the transport does wrong on purpose. All rates are probabilities per request (or per watch
// event) in [0, 1].
struct FaultSettings
{
    std::chrono::milliseconds latency{ 0 }; // added before every request is handled
    std::chrono::milliseconds jitter{ 0 }; // plus a uniform random 0..jitter
    double serverErrorRate = 0; // answered 500 or 503 (half each) instead of being handled
    // > 0: the 500/503 answers carry Retry-After (as an overloaded kube-apiserver's 503s do).
    int serverErrorRetryAfterSeconds = 0;
    double throttleRate = 0; // answered 429 with Retry-After
    int retryAfterSeconds = 1;
    // Updates (PUT) answered 409 Conflict as if another writer had won the race: a 409 storm.
    double conflictRate = 0;
    std::int64_t dropWatchAfterEvents = 0; // > 0: a watch's connection is cut after N events
    double watchDropRate = 0; // per event: the watch's connection is cut before it is sent
};

// Thread-safe: the transport asks on the server's thread, tests and the GUI adjust from theirs.
class FaultInjector
{
public:
    explicit FaultInjector(std::uint32_t seed = std::random_device{}());

    FaultSettings settings() const;
    void setSettings(const FaultSettings &settings);
    void setLatency(std::chrono::milliseconds latency, std::chrono::milliseconds jitter = {});
    void setServerErrorRate(double rate);
    void setThrottleRate(double rate, int retryAfterSeconds = 1);
    void setConflictRate(double rate);
    void setDropWatchAfterEvents(std::int64_t events);
    void setWatchDropRate(double rate);
    void reset(); // no faults

    // The API's watch history window (Cluster::setHistoryWindow); the hook is called on the
    // caller's thread, so it must be thread-safe itself or post to the cluster's thread.
    using HistoryWindowHook = std::function<void(std::int64_t events)>;
    void setHistoryWindowHook(HistoryWindowHook hook);
    bool setHistoryWindow(std::int64_t events); // false without a hook

    // Decisions, made by the transport.
    std::chrono::milliseconds nextLatency();
    // A 500/503/429 Status response, or for a PUT a 409 Conflict naming the object of `path`,
    // or nothing.
    std::optional<ApiResponse> nextInjectedError(const QByteArray &method = {},
                                                 const QString &path = {});
    // Whether a watch is cut before its next event (watchDropRate).
    bool dropWatchBeforeEvent();
    // Whether a watch that has sent `eventsSent` events is cut now (dropWatchAfterEvents).
    bool watchEventLimitReached(std::int64_t eventsSent) const;

    // Counters since construction.
    std::int64_t injectedErrors() const { return m_injectedErrors.load(); }
    std::int64_t droppedWatches() const { return m_droppedWatches.load(); }
    std::int64_t injectedConflicts() const { return m_injectedConflicts.load(); }
    void countDroppedWatch() { ++m_droppedWatches; }

    static ApiResponse statusResponse(int code,
                                      const QByteArray &reason,
                                      const QString &message,
                                      int retryAfterSeconds = 0);

    // A 409 Conflict Status for the object a request path names.
    static ApiResponse conflictResponse(const QString &path);

private:
    double uniform(); // caller holds m_mutex

    mutable std::mutex m_mutex;
    FaultSettings m_settings;
    std::mt19937 m_random;
    HistoryWindowHook m_historyWindowHook;
    std::atomic<std::int64_t> m_injectedErrors{ 0 };
    std::atomic<std::int64_t> m_droppedWatches{ 0 };
    std::atomic<std::int64_t> m_injectedConflicts{ 0 };
};

} // namespace reconscope::controller::cluster
