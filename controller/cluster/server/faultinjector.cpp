#include "faultinjector.h"

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

double clampRate(double rate)
{
    return std::clamp(rate, 0.0, 1.0);
}

} // namespace

FaultInjector::FaultInjector(std::uint32_t seed)
    : m_random(seed)
{ }

FaultSettings FaultInjector::settings() const
{
    std::lock_guard lock(m_mutex);
    return m_settings;
}

void FaultInjector::setSettings(const FaultSettings &settings)
{
    std::lock_guard lock(m_mutex);
    m_settings = settings;
    m_settings.serverErrorRate = clampRate(settings.serverErrorRate);
    m_settings.throttleRate = clampRate(settings.throttleRate);
    m_settings.watchDropRate = clampRate(settings.watchDropRate);
    m_settings.conflictRate = clampRate(settings.conflictRate);
    m_settings.serverErrorRetryAfterSeconds = std::max(settings.serverErrorRetryAfterSeconds, 0);
    m_settings.latency = std::max(settings.latency, std::chrono::milliseconds(0));
    m_settings.jitter = std::max(settings.jitter, std::chrono::milliseconds(0));
    m_settings.retryAfterSeconds = std::max(settings.retryAfterSeconds, 1);
}

void FaultInjector::setLatency(std::chrono::milliseconds latency, std::chrono::milliseconds jitter)
{
    std::lock_guard lock(m_mutex);
    m_settings.latency = std::max(latency, std::chrono::milliseconds(0));
    m_settings.jitter = std::max(jitter, std::chrono::milliseconds(0));
}

void FaultInjector::setServerErrorRate(double rate)
{
    std::lock_guard lock(m_mutex);
    m_settings.serverErrorRate = clampRate(rate);
}

void FaultInjector::setThrottleRate(double rate, int retryAfterSeconds)
{
    std::lock_guard lock(m_mutex);
    m_settings.throttleRate = clampRate(rate);
    m_settings.retryAfterSeconds = std::max(retryAfterSeconds, 1);
}

void FaultInjector::setConflictRate(double rate)
{
    std::lock_guard lock(m_mutex);
    m_settings.conflictRate = clampRate(rate);
}

void FaultInjector::setDropWatchAfterEvents(std::int64_t events)
{
    std::lock_guard lock(m_mutex);
    m_settings.dropWatchAfterEvents = std::max<std::int64_t>(events, 0);
}

void FaultInjector::setWatchDropRate(double rate)
{
    std::lock_guard lock(m_mutex);
    m_settings.watchDropRate = clampRate(rate);
}

void FaultInjector::reset()
{
    std::lock_guard lock(m_mutex);
    m_settings = FaultSettings();
}

void FaultInjector::setHistoryWindowHook(HistoryWindowHook hook)
{
    std::lock_guard lock(m_mutex);
    m_historyWindowHook = std::move(hook);
}

bool FaultInjector::setHistoryWindow(std::int64_t events)
{
    HistoryWindowHook hook;
    {
        std::lock_guard lock(m_mutex);
        hook = m_historyWindowHook;
    }
    if (!hook)
        return false;
    hook(events);
    return true;
}

double FaultInjector::uniform()
{
    return std::uniform_real_distribution<double>(0.0, 1.0)(m_random);
}

std::chrono::milliseconds FaultInjector::nextLatency()
{
    std::lock_guard lock(m_mutex);
    auto latency = m_settings.latency;
    if (m_settings.jitter.count() > 0) {
        latency += std::chrono::milliseconds(
            std::uniform_int_distribution<std::int64_t>(0, m_settings.jitter.count())(m_random));
    }
    return latency;
}

std::optional<ApiResponse> FaultInjector::nextInjectedError(const QByteArray &method,
                                                            const QString &path)
{
    int code = 0;
    int retryAfter = 0;
    {
        std::lock_guard lock(m_mutex);
        if (m_settings.throttleRate > 0 && uniform() < m_settings.throttleRate) {
            code = 429;
            retryAfter = m_settings.retryAfterSeconds;
        } else if (m_settings.serverErrorRate > 0 && uniform() < m_settings.serverErrorRate) {
            code = uniform() < 0.5 ? 500 : 503;
            retryAfter = m_settings.serverErrorRetryAfterSeconds;
        } else if (method == "PUT" && m_settings.conflictRate > 0
                   && uniform() < m_settings.conflictRate) {
            code = 409;
        }
    }
    switch (code) {
    case 429:
        ++m_injectedErrors;
        return statusResponse(
            429, "TooManyRequests", u"Too many requests, please try again later."_s, retryAfter);
    case 500:
        ++m_injectedErrors;
        return statusResponse(
            500, "InternalError", u"Internal error occurred: injected fault"_s, retryAfter);
    case 503:
        ++m_injectedErrors;
        return statusResponse(503,
                              "ServiceUnavailable",
                              u"the server is currently unable to handle the request"_s,
                              retryAfter);
    case 409:
        ++m_injectedConflicts;
        return conflictResponse(path);
    default:
        return std::nullopt;
    }
}

ApiResponse FaultInjector::conflictResponse(const QString &path)
{
    // /apis/G/V/namespaces/NS/PLURAL/NAME[/status] or /api/V/...: kube-apiserver's Conflict.
    QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    if (!segments.isEmpty() && segments.last() == u"status")
        segments.removeLast();
    const QString name = segments.size() >= 2 ? segments.last() : QString();
    const QString plural = segments.size() >= 2 ? segments.at(segments.size() - 2) : QString();
    const QString group
        = segments.size() >= 3 && segments.first() == u"apis" ? segments.at(1) : QString();
    const QString qualified = group.isEmpty() ? plural : plural + u'.' + group;
    nlohmann::ordered_json status
        = { { "kind", "Status" },
            { "apiVersion", "v1" },
            { "metadata", nlohmann::ordered_json::object() },
            { "status", "Failure" },
            { "message",
              u"Operation cannot be fulfilled on %1 \"%2\": the object has been modified; please "
              u"apply your changes to the latest version and try again"_s.arg(qualified, name)
                  .toStdString() },
            { "reason", "Conflict" },
            { "details",
              { { "name", name.toStdString() },
                { "group", group.toStdString() },
                { "kind", plural.toStdString() } } },
            { "code", 409 } };
    ApiResponse response;
    response.status = 409;
    response.body = QByteArray::fromStdString(status.dump()) + '\n';
    return response;
}

bool FaultInjector::dropWatchBeforeEvent()
{
    std::lock_guard lock(m_mutex);
    return m_settings.watchDropRate > 0 && uniform() < m_settings.watchDropRate;
}

bool FaultInjector::watchEventLimitReached(std::int64_t eventsSent) const
{
    std::lock_guard lock(m_mutex);
    return m_settings.dropWatchAfterEvents > 0 && eventsSent >= m_settings.dropWatchAfterEvents;
}

ApiResponse FaultInjector::statusResponse(int code,
                                          const QByteArray &reason,
                                          const QString &message,
                                          int retryAfterSeconds)
{
    // kube-apiserver's field order.
    nlohmann::ordered_json status = { { "kind", "Status" },
                                      { "apiVersion", "v1" },
                                      { "metadata", nlohmann::ordered_json::object() },
                                      { "status", "Failure" },
                                      { "message", message.toStdString() },
                                      { "reason", reason.toStdString() } };
    if (retryAfterSeconds > 0)
        status["details"] = nlohmann::ordered_json{ { "retryAfterSeconds", retryAfterSeconds } };
    else if (code == 500)
        status["details"] = nlohmann::ordered_json{
            { "causes", nlohmann::ordered_json::array({ { { "message", "injected fault" } } }) }
        };
    status["code"] = code;
    ApiResponse response;
    response.status = code;
    response.body = QByteArray::fromStdString(status.dump()) + '\n';
    if (retryAfterSeconds > 0)
        response.headers.append({ "Retry-After", QByteArray::number(retryAfterSeconds) });
    return response;
}

} // namespace reconscope::controller::cluster
