#pragma once

#include <QSet>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

// Which cluster and namespace the console looks at: the kubeconfig's contexts, a namespace filter
// (namespaces seen so far are offered, any name can be typed) and the per-context switch that
// allows writes on a real cluster.
class ContextPicker final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextPicker)

public:
    explicit ContextPicker(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~ContextPicker() override;

    QComboBox *contextBox() const { return m_contexts; }
    QComboBox *namespaceBox() const { return m_namespaces; }
    QCheckBox *writesSwitch() const { return m_writes; }
    QLabel *serverLabel() const { return m_server; }

private:
    void handleContexts(const QStringList &contexts, const QString &current);
    void handleObjectsChanged(const QStringList &upserted);
    void applyNamespace();

    controller::console::ConsoleSession *m_session;
    QComboBox *m_contexts;
    QComboBox *m_namespaces;
    QCheckBox *m_writes;
    QLabel *m_server;
    QSet<QString> m_knownNamespaces;
};

} // namespace reconscope::ui
