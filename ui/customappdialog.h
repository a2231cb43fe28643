#pragma once

#include "models/customappform.h"

#include <QDialog>
#include <QMap>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// "New CustomApp": a form (name, namespace, image, replicas, port, configJSON, Secret) checked as
// the user types; Create sends it through the session (refused while writes are off) and keeps the
// dialog open with the server's answer when it is an error (409 AlreadyExists, 422 Invalid, 403).
class CustomAppDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CustomAppDialog)

public:
    explicit CustomAppDialog(controller::console::ConsoleSession *session,
                             QWidget *parent = nullptr);
    ~CustomAppDialog() override;

    models::CustomAppForm form() const;
    void setForm(const models::CustomAppForm &form);
    // Sends the form when it is valid (what the Create button does).
    void submit();

    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *namespaceEdit() const { return m_namespace; }
    QLineEdit *imageEdit() const { return m_image; }
    QSpinBox *replicasBox() const { return m_replicas; }
    QSpinBox *portBox() const { return m_port; }
    QPlainTextEdit *configEdit() const { return m_config; }
    QLineEdit *secretEdit() const { return m_secret; }
    QLabel *errorLabel() const { return m_error; }
    QPushButton *createButton() const;
    // What is wrong with each field, as shown next to it.
    QString problemText(models::CustomAppForm::Field field) const;

signals:
    // The server created it; the dialog closes (accepted).
    void created(const QString &key);

private:
    void validate();

    controller::console::ConsoleSession *m_session;
    QLineEdit *m_name;
    QLineEdit *m_namespace;
    QLineEdit *m_image;
    QSpinBox *m_replicas;
    QSpinBox *m_port;
    QPlainTextEdit *m_config;
    QLineEdit *m_secret;
    QMap<models::CustomAppForm::Field, QLabel *> m_problems;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
    bool m_sending = false;
};

} // namespace reconscope::ui
