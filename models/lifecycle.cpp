#include "models/lifecycle.h"

#include "models/rfc3339.h"

using namespace Qt::StringLiterals;

namespace reconscope::models {

namespace {

QString conditionReason(const Condition &condition)
{
    if (!condition.reason.isEmpty())
        return condition.reason;
    return u"%1=%2"_s.arg(condition.type, condition.status);
}

const Condition *firstTrue(const ConditionList &conditions, const QStringList &types)
{
    for (const QString &type : types) {
        const Condition *condition = findStatusCondition(conditions, type);
        if (condition && condition->isTrue())
            return condition;
    }
    return nullptr;
}

LifecycleVerdict fromCondition(LifecycleState state, const Condition &condition, int rule)
{
    LifecycleVerdict verdict;
    verdict.state = state;
    verdict.reason = conditionReason(condition);
    verdict.message = condition.message;
    verdict.ruleIndex = rule;
    if (condition.lastTransitionTime.isValid()) {
        verdict.since = condition.lastTransitionTime;
        verdict.sinceCondition = condition.type;
    }
    return verdict;
}

LifecycleVerdict deriveState(const ObjectSummary &summary, const LifecycleMapping &mapping)
{
    LifecycleVerdict verdict;
    // 1. Deletion requested.
    if (summary.markedForDeletion) {
        verdict.state = LifecycleState::Terminating;
        verdict.reason = summary.deletionTimestamp.isValid()
            ? u"deletion requested at %1"_s.arg(formatRfc3339(summary.deletionTimestamp))
            : u"deletion requested"_s;
        if (!summary.finalizers.isEmpty())
            verdict.reason
                += u"; waiting for finalizers: %1"_s.arg(summary.finalizers.join(u", "_s));
        verdict.ruleIndex = 1;
        return verdict;
    }
    // 2. Nothing has acted on the object yet (or nothing ever will: no status declared).
    const bool onlyDefaultGeneration = summary.hasStatus && summary.statusFieldCount == 1
        && summary.observedGeneration && *summary.observedGeneration < 0;
    if (!summary.hasStatus || summary.statusEmpty() || onlyDefaultGeneration) {
        if (!mapping.hasStatus && !onlyDefaultGeneration) {
            verdict.state = LifecycleState::NoLifecycle;
            verdict.reason
                = u"the CRD declares no status: objects of this kind have no lifecycle"_s;
            verdict.ruleIndex = 0;
            return verdict;
        }
        verdict.state = LifecycleState::Pending;
        if (!summary.hasStatus)
            verdict.reason = u"no status yet: no controller has acted on the object"_s;
        else if (onlyDefaultGeneration)
            verdict.reason = u"status holds only the default observedGeneration %1: no controller "
                             u"has acted on the object"_s.arg(*summary.observedGeneration);
        else
            verdict.reason = u"empty status: no controller has acted on the object"_s;
        verdict.ruleIndex = 2;
        return verdict;
    }
    // 3. The controller has not seen the latest spec.
    if (summary.generation && summary.observedGeneration
        && *summary.observedGeneration < *summary.generation) {
        verdict.state = LifecycleState::Reconciling;
        verdict.reason = u"stale status: generation %1, observed %2"_s.arg(*summary.generation)
                             .arg(*summary.observedGeneration);
        verdict.ruleIndex = 3;
        return verdict;
    }
    // 4. Degraded / Stalled.
    if (const Condition *degraded = firstTrue(summary.conditions, mapping.degradedConditions))
        return fromCondition(LifecycleState::Degraded, *degraded, 4);
    // 5. Reconciling.
    if (const Condition *reconciling = firstTrue(summary.conditions, mapping.reconcilingConditions))
        return fromCondition(LifecycleState::Reconciling, *reconciling, 5);
    // 6. Summary: the health field, else the first summary condition present.
    if (!mapping.healthPath.isEmpty()) {
        const auto health = summary.fields.constFind(mapping.healthPath);
        if (health != summary.fields.cend()) {
            verdict.state = mapping.healthStates.value(health.value(), LifecycleState::Unknown);
            verdict.reason = u"health: %1"_s.arg(health.value());
            verdict.ruleIndex = 6;
            return verdict;
        }
    }
    for (const QString &type : mapping.readyConditions) {
        const Condition *ready = findStatusCondition(summary.conditions, type);
        if (!ready)
            continue;
        if (ready->isTrue())
            return fromCondition(LifecycleState::Ready, *ready, 6);
        if (ready->isFalse() || ready->isUnknown())
            return fromCondition(LifecycleState::Reconciling, *ready, 6);
    }
    // 7. Nothing applies.
    verdict.state = LifecycleState::Unknown;
    QStringList looked
        = mapping.readyConditions + mapping.degradedConditions + mapping.reconcilingConditions;
    looked.removeDuplicates();
    verdict.reason = summary.conditions.isEmpty()
        ? u"status has no conditions the rules know (looked for %1)"_s.arg(looked.join(u", "_s))
        : u"none of the conditions decides (looked for %1)"_s.arg(looked.join(u", "_s));
    if (!mapping.healthPath.isEmpty())
        verdict.reason += u"; no %1"_s.arg(mapping.healthPath);
    verdict.ruleIndex = 7;
    return verdict;
}

} // namespace

std::pair<KStatus, QString> computeKStatus(const ObjectSummary &summary)
{
    if (summary.kstatusUnreadable)
        return { KStatus::Unknown,
                 u"kstatus cannot read the object: %1"_s.arg(summary.readProblems.join(u"; "_s)) };
    if (summary.markedForDeletion)
        return { KStatus::Terminating, u"Resource scheduled for deletion"_s };
    if (summary.generation && summary.observedGeneration
        && *summary.generation != *summary.observedGeneration) {
        return { KStatus::InProgress,
                 u"%1 generation is %2, but latest observed generation is %3"_s.arg(summary.kind)
                     .arg(*summary.generation)
                     .arg(*summary.observedGeneration) };
    }
    for (const Condition &condition : summary.conditions) {
        if (condition.type == u"Reconciling" && condition.isTrue())
            return { KStatus::InProgress, condition.message };
        if (condition.type == u"Stalled" && condition.isTrue())
            return { KStatus::Failed, condition.message };
    }
    for (const Condition &condition : summary.conditions) {
        if (condition.type != u"Ready")
            continue;
        if (condition.isTrue())
            return { KStatus::Current, u"Resource is Ready"_s };
        if (condition.isFalse() || condition.isUnknown())
            return { KStatus::InProgress,
                     condition.reason.isEmpty()
                         ? condition.message
                         : u"%1: %2"_s.arg(condition.reason, condition.message) };
    }
    return { KStatus::Current, u"Resource is current"_s };
}

LifecycleVerdict deriveLifecycle(const ObjectSummary &summary, const LifecycleMapping &mapping)
{
    LifecycleVerdict verdict = deriveState(summary, mapping);
    auto [kstatus, message] = computeKStatus(summary);
    verdict.kstatus = kstatus;
    verdict.kstatusMessage = message;
    return verdict;
}

} // namespace reconscope::models
