#pragma once

#include <QObject>

#include <memory>

class QSocketNotifier;

namespace reconscope::controller::platform {

// SIGINT and SIGTERM delivered in the Qt event loop, for the headless commands that stop cleanly
// on Ctrl-C or a service manager's stop. The signal handler only writes a byte to a socket pair
// (what a handler may do); a notifier reads it on the thread that called install() and emits
// received() there, once per signal. The handlers are the process's: one instance at a time, and
// it keeps them installed after it is gone (later signals are then dropped).
class TerminationSignals final : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(QObject *parent = nullptr);
    ~TerminationSignals() override;

    // Installs the handlers; false when the socket pair or sigaction() fails.
    bool install();

signals:
    void received();

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace reconscope::controller::platform
