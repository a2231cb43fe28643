#pragma once

#include "clock.h"

#include <QHash>
#include <QString>

#include <memory>
#include <vector>

namespace reconscope::controller::reconcile {

// How long a key waits before its next retry (client-go util/workqueue default_rate_limiters.go).
// when() is called once per rate-limited requeue and may change the limiter's state.
class RateLimiter
{
public:
    virtual ~RateLimiter() = default;

    virtual Duration when(const QString &key, TimePoint now) = 0;
    // The key succeeded: it no longer counts as failing (the token bucket ignores this).
    virtual void forget(const QString &key) = 0;
    // How many times when() was asked for this key since it was last forgotten.
    virtual int numRequeues(const QString &key) const = 0;
};

// Per-key exponential backoff: base * 2^failures, capped at max. With client-go's defaults (5ms,
// 1000s) the n-th consecutive failure waits 5ms * 2^(n-1) and the 19th reaches the cap.
class ItemExponentialFailureRateLimiter final : public RateLimiter
{
public:
    static constexpr Duration DefaultBaseDelay = std::chrono::milliseconds(5);
    static constexpr Duration DefaultMaxDelay = std::chrono::seconds(1000);

    explicit ItemExponentialFailureRateLimiter(Duration baseDelay = DefaultBaseDelay,
                                               Duration maxDelay = DefaultMaxDelay);

    Duration when(const QString &key, TimePoint now) override;
    void forget(const QString &key) override;
    int numRequeues(const QString &key) const override;

    // The delay of the given 0-based failure count, without changing any state.
    Duration delayFor(int failures) const;

private:
    Duration m_base;
    Duration m_max;
    QHash<QString, int> m_failures;
};

// One token bucket for all keys (golang.org/x/time/rate semantics: a reservation always succeeds
// and the bucket goes into debt; the delay is the time until the debt is paid back). client-go's
// legacy default is 10 qps with a burst of 100.
class BucketRateLimiter final : public RateLimiter
{
public:
    static constexpr double DefaultQps = 10.0;
    static constexpr int DefaultBurst = 100;

    explicit BucketRateLimiter(double qps = DefaultQps, int burst = DefaultBurst);

    Duration when(const QString &key, TimePoint now) override;
    void forget(const QString &) override { }
    int numRequeues(const QString &) const override { return 0; }

    double qps() const { return m_qps; }
    int burst() const { return m_burst; }
    // Tokens available at `now` (negative while in debt), without reserving one.
    double tokensAt(TimePoint now) const;

private:
    double m_qps;
    int m_burst;
    double m_tokens;
    TimePoint m_last{};
    bool m_started = false;
};

// The worst (longest) of several limiters (client-go's MaxOfRateLimiter).
class MaxOfRateLimiter final : public RateLimiter
{
public:
    explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);

    Duration when(const QString &key, TimePoint now) override;
    void forget(const QString &key) override;
    int numRequeues(const QString &key) const override;

private:
    std::vector<std::unique_ptr<RateLimiter>> m_limiters;
};

// controller-runtime's default: per-key exponential 5ms..1000s, combined by max with a 10 qps /
// burst 100 bucket when withBucket is true.
std::unique_ptr<RateLimiter> defaultControllerRateLimiter(bool withBucket = true);

} // namespace reconscope::controller::reconcile
