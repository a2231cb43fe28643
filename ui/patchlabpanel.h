#pragma once

#include "controller/labs/patchlab.h"

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

class WriteGate;

// The patch lab: pick an object of the watched resource, a target (main
// resource or /status), a patch type, a template or a hand-written patch (validated as you type),
// an optional resourceVersion precondition; Send (Ctrl+Return) shows the HTTP code and Status,
// the before/after diff, the verdicts and then the reconciler's reaction. Experiments stay in a
// history that can be exported as JSON or copied as kubectl. Writes go through a WriteGate (real
// clusters: the context's write switch, then a confirmation of the exact request).
class PatchLabPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PatchLabPanel)

public:
    explicit PatchLabPanel(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~PatchLabPanel() override;

    controller::labs::PatchLab *lab() const { return m_lab; }
    WriteGate *writeGate() const { return m_gate; }

    // The object to patch ("namespace/name"), e.g. the table's selection.
    void setSelectedObject(const QString &key);
    QString selectedObject() const;
    void setTarget(controller::labs::PatchTarget target);
    void setPatchType(controller::apimachinery::PatchType type);
    void setPrecondition(controller::labs::Precondition precondition);
    void applyTemplate(controller::labs::PatchTemplate t);
    void setPatchText(const QString &text);
    QString patchText() const;

    // The request the panel would send now; nullopt (with the reason in validationText()) when
    // the editor does not hold a valid patch or no object is selected.
    std::optional<controller::labs::PatchRequest> currentRequest() const;
    QString validationText() const;
    bool canSend() const;

    QAction *sendAction() const { return m_send; }
    QAction *exportAction() const { return m_export; }
    QAction *copyKubectlAction() const { return m_copyKubectl; }
    QPlainTextEdit *editor() const { return m_editor; }
    QPlainTextEdit *resultView() const { return m_result; }
    QListWidget *historyList() const { return m_history; }
    QComboBox *objectPicker() const { return m_object; }

    // Sends the current request through the write gate (with a precondition, after reading the
    // object's resourceVersion); false when it cannot.
    bool send();
    // The selected (else last) experiment's kubectl command, also put on the clipboard.
    QString copyKubectl();
    // Writes the history as JSON to `path`; false on failure.
    bool exportHistory(const QString &path);
    // What the result view shows for an experiment.
    static QString describe(const controller::labs::PatchExperiment &experiment);

private:
    // The constructor's parts: the controls' settings, the layout, the signals.
    void setUpControls();
    void layOut();
    void connectSignals();
    void validate();
    bool confirmAndRun(const controller::labs::PatchRequest &request);
    void refreshHistory();
    void showExperiment(int id);
    void handleObjectsChanged();
    void fetchObject();

    controller::console::ConsoleSession *m_session;
    controller::labs::PatchLab *m_lab;
    WriteGate *m_gate;
    QComboBox *m_object;
    QComboBox *m_target;
    QComboBox *m_type;
    QComboBox *m_precondition;
    QSpinBox *m_timeout;
    QToolButton *m_templates;
    QPlainTextEdit *m_editor;
    QLabel *m_validation;
    QPlainTextEdit *m_request;
    QPlainTextEdit *m_result;
    QListWidget *m_history;
    QAction *m_send;
    QAction *m_export;
    QAction *m_copyKubectl;
    QString m_pendingKey;
    nlohmann::json m_objectJson; // the selected object as last read (templates use it)
    int m_shownId = 0;
};

} // namespace reconscope::ui
