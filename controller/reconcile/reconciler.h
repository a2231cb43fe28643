#pragma once

#include "clock.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace reconscope::controller::reconcile {

// controller-runtime's reconcile.Result.
struct ReconcileResult
{
    // Requeue through the rate limiter (deprecated upstream in favour of RequeueAfter, kept because
    // reconcilers still return it).
    bool requeue = false;
    // Requeue after this long (ignored unless > 0).
    Duration requeueAfter = Duration::zero();

    bool isZero() const { return !requeue && requeueAfter <= Duration::zero(); }
};

// A reconcile error. terminal mirrors reconcile.TerminalError: retrying cannot help (the spec is
// invalid); the key is not requeued until something triggers it again.
struct ReconcileError
{
    QString message;
    bool terminal = false;
};

// What one reconcile of a key produced, plus what it did, for the console's history.
struct ReconcileOutcome
{
    ReconcileResult result;
    std::optional<ReconcileError> error;
    // The writes the reconciler sent (or would send), e.g. "PUT customapps/x/status rv=41".
    QStringList writes;
    // Writers whose write got 409 Conflict in this reconcile, one entry per conflict (e.g.
    // "status").
    QStringList conflicts;

    static ReconcileOutcome success() { return {}; }
    static ReconcileOutcome requeueAfter(Duration d)
    {
        ReconcileOutcome o;
        o.result.requeueAfter = d;
        return o;
    }
    static ReconcileOutcome requeueRateLimited()
    {
        ReconcileOutcome o;
        o.result.requeue = true;
        return o;
    }
    static ReconcileOutcome failure(QString message)
    {
        ReconcileOutcome o;
        o.error = ReconcileError{ std::move(message), false };
        return o;
    }
    static ReconcileOutcome terminalFailure(QString message)
    {
        ReconcileOutcome o;
        o.error = ReconcileError{ std::move(message), true };
        return o;
    }
};

// A reconciler that answers synchronously (pure logic, or tests).
class Reconciler
{
public:
    virtual ~Reconciler() = default;
    virtual ReconcileOutcome reconcile(const QString &key) = 0;
};

// A reconciler that does network I/O: it starts work for key and calls complete exactly once, later
// (or right away), on the controller loop's thread (e.g. from a QNetworkReply::finished handler).
// Calls after the first, or after the controller loop is gone, are ignored.
class AsyncReconciler
{
public:
    using Completion = std::function<void(ReconcileOutcome)>;

    virtual ~AsyncReconciler() = default;
    virtual void reconcileAsync(const QString &key, Completion complete) = 0;
};

} // namespace reconscope::controller::reconcile
