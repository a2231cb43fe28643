#pragma once

#include "controller/kube/reflector.h"

#include <QDeadlineTimer>
#include <QStatusBar>

class QLabel;
class QTimer;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// The window's status bar: the reflector's connection state (watching, reconnecting in N s
// counting down, relisting), events per second, the context, and a badge saying whether writes are
// allowed (real clusters are read-only until enabled per context).
class ConsoleStatusBar final : public QStatusBar
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsoleStatusBar)

public:
    explicit ConsoleStatusBar(controller::console::ConsoleSession *session,
                              QWidget *parent = nullptr);
    ~ConsoleStatusBar() override;

    QString connectionText() const;
    QString rateText() const;
    QString badgeText() const;
    QString contextText() const;

private:
    void handleState(const controller::kube::ReflectorState &state);
    void updateConnection();
    void updateBadge(bool writesEnabled);

    controller::console::ConsoleSession *m_session;
    QLabel *m_connection;
    QLabel *m_rate;
    QLabel *m_context;
    QLabel *m_badge;
    QTimer *m_countdown;
    controller::kube::ReflectorState m_state;
    QDeadlineTimer m_retryDeadline;
};

} // namespace reconscope::ui
