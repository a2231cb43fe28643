#include "models/lifecyclestate.h"

#include <array>
#include <utility>

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

constexpr std::array<std::pair<LifecycleState, QStringView>, LifecycleStateCount> StateNames{ {
    { LifecycleState::Pending, u"Pending" },
    { LifecycleState::Reconciling, u"Reconciling" },
    { LifecycleState::Ready, u"Ready" },
    { LifecycleState::Degraded, u"Degraded" },
    { LifecycleState::Terminating, u"Terminating" },
    { LifecycleState::Unknown, u"Unknown" },
    { LifecycleState::NoLifecycle, u"NoLifecycle" },
} };

constexpr std::array<std::pair<KStatus, QStringView>, 6> KStatusNames{ {
    { KStatus::InProgress, u"InProgress" },
    { KStatus::Failed, u"Failed" },
    { KStatus::Current, u"Current" },
    { KStatus::Terminating, u"Terminating" },
    { KStatus::NotFound, u"NotFound" },
    { KStatus::Unknown, u"Unknown" },
} };

} // namespace

QString lifecycleStateName(LifecycleState state)
{
    for (const auto &[value, name] : StateNames) {
        if (value == state)
            return name.toString();
    }
    return u"LifecycleState(%1)"_s.arg(int(state));
}

std::optional<LifecycleState> lifecycleStateFromString(QStringView text)
{
    for (const auto &[value, name] : StateNames) {
        if (name == text)
            return value;
    }
    return std::nullopt;
}

QString kstatusName(KStatus status)
{
    for (const auto &[value, name] : KStatusNames) {
        if (value == status)
            return name.toString();
    }
    return u"KStatus(%1)"_s.arg(int(status));
}

std::optional<KStatus> kstatusFromString(QStringView text)
{
    for (const auto &[value, name] : KStatusNames) {
        if (name == text)
            return value;
    }
    return std::nullopt;
}

} // namespace reconscope::models
