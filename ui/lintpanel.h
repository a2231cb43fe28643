#pragma once

#include "controller/lint/report.h"

#include <QMetaObject>
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace reconscope::controller::lint {
class BoundaryCheck;
}

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// The API boundary verifier in the console: pick a CRD of the cluster (from discovery's CRD list)
// or open a CRD manifest, see its lint findings (severity, rule, schema path, why it matters), run
// the live dry-run boundary check on an object (the table's selection by default) and export the
// report as Markdown or JSON. Dry-run writes are still writes on a real cluster: the live check
// needs the context's write switch (the embedded cluster is always writable).
class LintPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LintPanel)

public:
    explicit LintPanel(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~LintPanel() override;

    // Lints the CRD of the cluster named `crdName` (plural.group).
    void lintClusterCrd(const QString &crdName);
    // Lints every CRD of a manifest; false (and the reason in the status line) when it cannot.
    bool openFile(const QString &path);
    // The object of the live check: "NS/NAME" or "NAME" (a table key).
    void setSelectedObject(const QString &key);
    // Runs the live check on the current CRD (the first one of a file) and object.
    void runLiveCheck();
    // Markdown when the path ends in .md, else JSON; false when it cannot be written.
    bool exportReport(const QString &path);

    const controller::lint::BoundaryReport &report() const { return m_report; }
    QComboBox *crdPicker() const { return m_crds; }
    QTableWidget *findingsTable() const { return m_findings; }
    QTableWidget *verdictsTable() const { return m_verdicts; }
    QPushButton *liveButton() const { return m_live; }
    QLabel *statusLabel() const { return m_status; }

signals:
    void lintFinished();
    void liveCheckFinished(bool passed);

private:
    void handleConnected();
    void refreshCrdList();
    void showLint();
    void showVerdicts();
    void updateLiveButton();
    void handleLiveFinished(const controller::lint::BoundaryCheckResult &result);

    controller::console::ConsoleSession *m_session;
    QMetaObject::Connection m_crdsConnection;
    controller::lint::BoundaryReport m_report;
    std::optional<nlohmann::json> m_crdJson; // the CRD the live check runs on
    QPointer<controller::lint::BoundaryCheck> m_check;
    QComboBox *m_crds;
    QPushButton *m_open;
    QLineEdit *m_object;
    QPushButton *m_live;
    QPushButton *m_export;
    QLabel *m_status;
    QTableWidget *m_findings;
    QTableWidget *m_verdicts;
};

} // namespace reconscope::ui
