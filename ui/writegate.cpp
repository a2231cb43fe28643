#include "ui/writegate.h"

#include "controller/console/consolesession.h"

#include <QMessageBox>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

WriteGate::WriteGate(ConsoleSession *session, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_session(session)
    , m_dialogParent(dialogParent)
{ }

WriteGate::~WriteGate()
{
    if (m_dialog)
        m_dialog->deleteLater();
}

QString WriteGate::requestText(const QString &method, const QString &url, const QString &body)
{
    return method + u' ' + url + (body.isEmpty() ? QString() : u"\n\n"_s + body);
}

bool WriteGate::request(const QString &method,
                        const QString &url,
                        const QString &body,
                        std::function<void()> proceed)
{
    if (!m_session || !m_session->isConnected()) {
        emit refused(tr("not connected"));
        return false;
    }
    if (m_session->isDemo()) {
        proceed();
        return true;
    }
    if (!m_session->writesEnabled()) {
        emit refused(tr("Writes are disabled for context \"%1\": enable them first (the "
                        "read-only badge in the status bar).")
                         .arg(m_session->contextName()));
        return false;
    }
    if (m_dialog) // one confirmation at a time
        m_dialog->deleteLater();
    auto *dialog = new QMessageBox(QMessageBox::Warning,
                                   tr("Send this request?"),
                                   tr("This request changes context \"%1\" (%2):")
                                       .arg(m_session->contextName(), m_session->serverUrl()),
                                   QMessageBox::Cancel,
                                   m_dialogParent);
    dialog->setObjectName(u"writeConfirmation"_s);
    dialog->setInformativeText(requestText(method, url, body));
    dialog->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPushButton *send = dialog->addButton(tr("Send"), QMessageBox::AcceptRole);
    dialog->setDefaultButton(QMessageBox::Cancel);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QMessageBox::buttonClicked, this, [this, send, proceed](QAbstractButton *b) {
        m_dialog = nullptr; // answered: no longer pending
        if (b == static_cast<QAbstractButton *>(send)) {
            emit confirmed();
            proceed();
        } else {
            emit cancelled();
        }
    });
    m_dialog = dialog;
    dialog->open();
    return true;
}

} // namespace reconscope::ui
