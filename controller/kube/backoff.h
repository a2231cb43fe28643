#pragma once

#include <chrono>

namespace reconscope::controller::kube {

// client-go's reflector backoff (reconciler.md section 3): 800 ms, factor 2, jitter 1.0 (each
// delay is base * (1 + random)), cap 30 s (applied after jitter, so a shown "retry in N s" never
// exceeds it), and back to the start once nothing failed for 2 minutes.
class Backoff
{
public:
    using Clock = std::chrono::steady_clock;
    using Milliseconds = std::chrono::milliseconds;

    struct Parameters
    {
        Milliseconds initial{ 800 };
        double factor = 2.0;
        double jitter = 1.0;
        Milliseconds cap{ 30'000 };
        Milliseconds resetAfter{ 120'000 };
    };

    Backoff() = default;
    explicit Backoff(Parameters parameters)
        : m_parameters(parameters)
        , m_base(parameters.initial)
    { }

    // The delay before the next attempt; `random` in [0, 1).
    Milliseconds next(Clock::time_point now, double random)
    {
        if (m_started && now - m_lastBackoff > m_parameters.resetAfter)
            m_base = m_parameters.initial;
        m_started = true;
        m_lastBackoff = now;
        const double jittered = double(m_base.count()) * (1.0 + random * m_parameters.jitter);
        const auto delay = Milliseconds(
            std::min<long long>(static_cast<long long>(jittered), m_parameters.cap.count()));
        const double grown = double(m_base.count()) * m_parameters.factor;
        m_base = Milliseconds(
            std::min<long long>(static_cast<long long>(grown), m_parameters.cap.count()));
        return delay;
    }

    void reset()
    {
        m_base = m_parameters.initial;
        m_started = false;
    }

private:
    Parameters m_parameters;
    Milliseconds m_base = m_parameters.initial;
    Clock::time_point m_lastBackoff;
    bool m_started = false;
};

} // namespace reconscope::controller::kube
