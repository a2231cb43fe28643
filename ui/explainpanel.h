#pragma once

#include "controller/troubleshoot/explanation.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace reconscope::controller::console {
class ConsoleExplainer;
class ConsoleSession;
} // namespace reconscope::controller::console

namespace reconscope::ui {

// "Why is it not Ready?" for the selected object, in the details: its causes ranked by the rules
// of `reconscope explain` (docs/troubleshooting.md), each with its evidence below it, and the
// embedded reconciler's last verdict when one runs. Explained when shown and when the object
// changes while shown; "Explain again" asks anew.
class ExplainPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExplainPanel)

public:
    explicit ExplainPanel(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~ExplainPanel() override;

    void showObject(const QString &key);
    // Explains the object now, shown or not.
    void explainNow();
    controller::console::ConsoleExplainer *explainer() const { return m_explainer; }
    QTreeWidget *causesTree() const { return m_causes; }
    QLabel *summaryLabel() const { return m_summary; }
    // The explanation shown (empty causes before the first answer).
    const controller::troubleshoot::Explanation &explanation() const { return m_explanation; }

signals:
    void explanationShown(const QString &key);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void handleExplained(const QString &key,
                         const controller::troubleshoot::Explanation &explanation);
    void handleFailed(const QString &key, const QString &message);
    void handleObjectsChanged(const QStringList &upserted);

    controller::console::ConsoleSession *m_session;
    controller::console::ConsoleExplainer *m_explainer;
    QLabel *m_summary;
    QTreeWidget *m_causes;
    QPushButton *m_again;
    QString m_key;
    bool m_stale = true; // the shown explanation is not of m_key's latest state
    controller::troubleshoot::Explanation m_explanation;
};

} // namespace reconscope::ui
