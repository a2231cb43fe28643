#pragma once

#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

class QWidget;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// Safety of the labs' writes on real clusters. On the embedded cluster a write
// goes at once. On a real cluster it needs the context's write switch (ConsoleSession::
// writesEnabled, the status bar's badge) and then the user's confirmation of the exact request -
// method, URL, body - in a window-modal dialog (opened with open(), never exec(): the event loop
// keeps running). Every lab that writes goes through one of these.
class WriteGate final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WriteGate)

public:
    WriteGate(controller::console::ConsoleSession *session, QWidget *dialogParent);
    ~WriteGate() override;

    // `proceed` runs when the write may be sent (possibly later, after the confirmation); never
    // when writes are off for the context or the user cancels. Returns false when refused at once.
    bool request(const QString &method,
                 const QString &url,
                 const QString &body,
                 std::function<void()> proceed);

    // The confirmation being shown, null when none (tests accept or reject it).
    QMessageBox *pendingConfirmation() const { return m_dialog; }
    // The text the confirmation shows: "PATCH https://.../status\n\n{...}".
    static QString requestText(const QString &method, const QString &url, const QString &body);

signals:
    void refused(const QString &why);
    void confirmed();
    void cancelled();

private:
    controller::console::ConsoleSession *m_session;
    QWidget *m_dialogParent;
    QPointer<QMessageBox> m_dialog;
};

} // namespace reconscope::ui
