#pragma once

#include "controller/kube/restclient.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// An object as YAML (as `kubectl edit` shows it): edit it and Apply sends it as an update (PUT)
// carrying the resourceVersion in the text, so that a concurrent change is refused with 409
// Conflict instead of being overwritten. Errors (409, 422 with its causes, 403 while writes are
// off, YAML that does not parse) are shown above the text, which is kept as typed; Reload fetches
// the current object (losing the edits).
class YamlEditor final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(YamlEditor)

public:
    YamlEditor(controller::console::ConsoleSession *session,
               const controller::apimachinery::ResourceRef &resource,
               const QString &key,
               QWidget *parent = nullptr);
    ~YamlEditor() override;

    // Loads the object from the informer's cache (no request); false when it is not there.
    bool loadFromCache();
    // Sends the text as an update (what Apply does).
    void apply();
    // GET the object and show it (what Reload does).
    void reload();

    QString key() const { return m_key; }
    QPlainTextEdit *editor() const { return m_editor; }
    QLabel *messageLabel() const { return m_message; }
    QPushButton *applyButton() const { return m_apply; }
    // The last error shown (empty after a success).
    QString errorText() const { return m_errorText; }

signals:
    // The server accepted the update; the text now shows what it stored.
    void applied(const QString &resourceVersion);
    void reloaded();

private:
    void showObject(const nlohmann::json &object);
    void showError(const QString &text);
    void showInfo(const QString &text);
    void handleAnswer(controller::kube::RestClient::JsonResult result);

    controller::console::ConsoleSession *m_session;
    controller::apimachinery::ResourceRef m_resource;
    QString m_key;
    QLabel *m_message;
    QPlainTextEdit *m_editor;
    QPushButton *m_apply;
    QPushButton *m_reload;
    QString m_errorText;
    bool m_sending = false;
};

} // namespace reconscope::ui
