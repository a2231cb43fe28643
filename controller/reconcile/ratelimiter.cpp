#include "ratelimiter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace reconscope::controller::reconcile {

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration baseDelay,
                                                                     Duration maxDelay)
    : m_base(std::max(baseDelay, Duration::zero()))
    , m_max(std::max(maxDelay, Duration::zero()))
{ }

Duration ItemExponentialFailureRateLimiter::delayFor(int failures) const
{
    // base * 2^failures without overflowing: it fits under the cap exactly when
    // base <= floor(max / 2^failures).
    if (failures < 0)
        failures = 0;
    if (failures >= 63 || m_base.count() > (m_max.count() >> failures))
        return m_max;
    return Duration(m_base.count() << failures);
}

Duration ItemExponentialFailureRateLimiter::when(const QString &key, TimePoint)
{
    int &failures = m_failures[key];
    const Duration delay = delayFor(failures);
    if (failures < std::numeric_limits<int>::max())
        ++failures;
    return delay;
}

void ItemExponentialFailureRateLimiter::forget(const QString &key)
{
    m_failures.remove(key);
}

int ItemExponentialFailureRateLimiter::numRequeues(const QString &key) const
{
    return m_failures.value(key, 0);
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst)
    : m_qps(qps > 0 ? qps : 0.0)
    , m_burst(std::max(burst, 0))
    , m_tokens(m_burst)
{ }

double BucketRateLimiter::tokensAt(TimePoint now) const
{
    if (!m_started)
        return m_burst;
    const double elapsed = now > m_last ? toSeconds(now - m_last) : 0.0;
    return std::min<double>(m_burst, m_tokens + elapsed * m_qps);
}

Duration BucketRateLimiter::when(const QString &, TimePoint now)
{
    if (m_qps <= 0)
        return Duration::zero(); // an unlimited bucket (rate.Inf has no zero-qps meaning here)
    const double tokens = tokensAt(now) - 1.0;
    m_tokens = tokens;
    if (!m_started || now > m_last)
        m_last = now;
    m_started = true;
    if (tokens >= 0)
        return Duration::zero();
    // Time until the debt is paid back, rounded up to whole nanoseconds.
    const double seconds = -tokens / m_qps;
    return Duration(std::int64_t(std::ceil(seconds * 1e9 - 1e-3)));
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : m_limiters(std::move(limiters))
{ }

Duration MaxOfRateLimiter::when(const QString &key, TimePoint now)
{
    Duration longest = Duration::zero();
    // Every limiter is asked (each one counts the failure), not just until the first non-zero.
    for (const auto &limiter : m_limiters)
        longest = std::max(longest, limiter->when(key, now));
    return longest;
}

void MaxOfRateLimiter::forget(const QString &key)
{
    for (const auto &limiter : m_limiters)
        limiter->forget(key);
}

int MaxOfRateLimiter::numRequeues(const QString &key) const
{
    int most = 0;
    for (const auto &limiter : m_limiters)
        most = std::max(most, limiter->numRequeues(key));
    return most;
}

std::unique_ptr<RateLimiter> defaultControllerRateLimiter(bool withBucket)
{
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>());
    if (withBucket)
        limiters.push_back(std::make_unique<BucketRateLimiter>());
    return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

} // namespace reconscope::controller::reconcile
