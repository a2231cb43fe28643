#pragma once

#include <QString>
#include <QStringView>

#include <optional>

namespace reconscope::models {

// The lifecycle state the console derives for any custom resource (reconciler.md section 4).
// NoLifecycle: the object's CRD declares no status at all, so there is nothing to derive.
enum class LifecycleState {
    Pending,
    Reconciling,
    Ready,
    Degraded,
    Terminating,
    Unknown,
    NoLifecycle,
};
inline constexpr int LifecycleStateCount = 7;

// kstatus' status words (cli-utils pkg/kstatus/status) for users of Flux/kstatus tools.
enum class KStatus {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
};

QString lifecycleStateName(LifecycleState state);
std::optional<LifecycleState> lifecycleStateFromString(QStringView text);
QString kstatusName(KStatus status);
std::optional<KStatus> kstatusFromString(QStringView text);

} // namespace reconscope::models
