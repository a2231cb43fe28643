#pragma once

#include "controller/troubleshoot/explanation.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace reconscope::controller::reconcile {
struct ReconcileRecord;
}

namespace reconscope::controller::troubleshoot {
class ExplainReader;
}

namespace reconscope::controller::console {

class ConsoleSession;

// "Why is it not Ready?" for the console's selected object: the same rules as `reconscope
// explain` (troubleshoot::explain, read by an ExplainReader through the session's client), with
// what the embedded reconciler last concluded about the object added as its last cause when a
// reconciler runs. One explanation at a time: a newer request makes the older one's answer void.
class ConsoleExplainer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleExplainer)

public:
    using Clock = std::function<QDateTime()>;

    explicit ConsoleExplainer(ConsoleSession *session, QObject *parent = nullptr);
    ~ConsoleExplainer() override;

    void setClock(Clock clock) { m_clock = std::move(clock); }
    void setThresholds(const troubleshoot::ExplainThresholds &thresholds)
    {
        m_thresholds = thresholds;
    }
    // Explains the watched resource's object ("namespace/name"); explained() or failed() follows.
    void explain(const QString &key);

signals:
    void explained(const QString &key,
                   const reconscope::controller::troubleshoot::Explanation &explanation);
    void failed(const QString &key, const QString &message);

private:
    ConsoleSession *m_session;
    Clock m_clock;
    troubleshoot::ExplainThresholds m_thresholds;
    troubleshoot::ExplainReader *m_reader = nullptr;
    quint64 m_request = 0;
};

// What the embedded reconciler's last reconcile of an object concluded, in one line ("last
// reconcile 3s ago: terminal_error: spec.replicas must be at least 1"); empty when none ran.
QString reconcilerVerdict(const std::optional<reconcile::ReconcileRecord> &record,
                          const QDateTime &now);

} // namespace reconscope::controller::console
