#include "ui/contextpicker.h"

#include "controller/console/consolesession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

ContextPicker::ContextPicker(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_contexts(new QComboBox(this))
    , m_namespaces(new QComboBox(this))
    , m_writes(new QCheckBox(tr("Allow &writes in this context"), this))
    , m_server(new QLabel(this))
{
    setWindowTitle(tr("Cluster"));
    m_contexts->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_contexts->setMinimumContentsLength(12);
    m_namespaces->setEditable(true);
    m_namespaces->setInsertPolicy(QComboBox::NoInsert);
    m_namespaces->addItem(tr("All namespaces"), QString());
    m_namespaces->lineEdit()->setPlaceholderText(tr("All namespaces"));
    m_server->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_server->setWordWrap(true);
    m_server->setStyleSheet(u"color: #616161"_s);
    m_writes->setToolTip(
        tr("Real clusters are read-only until writes are enabled for the context"));

    auto *layout = new QFormLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addRow(tr("&Context:"), m_contexts);
    layout->addRow(tr("&Namespace:"), m_namespaces);
    layout->addRow(m_writes);
    layout->addRow(m_server);

    connect(m_session, &ConsoleSession::contextsChanged, this, &ContextPicker::handleContexts);
    connect(m_session,
            &ConsoleSession::connected,
            this,
            [this](const QString &context, const QString &url) {
                m_server->setText(m_session->isDemo() ? tr("Embedded cluster at %1").arg(url)
                                                      : url);
                const QSignalBlocker blocker(m_contexts);
                m_contexts->setCurrentIndex(m_contexts->findText(context));
            });
    connect(m_contexts, &QComboBox::activated, this, [this](int index) {
        const auto status = m_session->switchContext(m_contexts->itemText(index));
        if (!status.ok())
            m_server->setText(status.error().message);
    });
    connect(m_namespaces, &QComboBox::activated, this, &ContextPicker::applyNamespace);
    connect(m_namespaces->lineEdit(),
            &QLineEdit::editingFinished,
            this,
            &ContextPicker::applyNamespace);
    connect(m_session, &ConsoleSession::writesEnabledChanged, this, [this](bool enabled) {
        const QSignalBlocker blocker(m_writes);
        m_writes->setChecked(enabled);
        m_writes->setEnabled(!m_session->isDemo());
    });
    connect(m_writes, &QCheckBox::toggled, m_session, &ConsoleSession::setWritesEnabled);
    connect(m_session, &ConsoleSession::objectsChanged, this, [this](const QStringList &upserted) {
        handleObjectsChanged(upserted);
    });
    handleContexts(m_session->kubeconfig().contextNames(), m_session->contextName());
}

ContextPicker::~ContextPicker() = default;

void ContextPicker::handleContexts(const QStringList &contexts, const QString &current)
{
    const QSignalBlocker blocker(m_contexts);
    m_contexts->clear();
    m_contexts->addItems(contexts);
    m_contexts->setCurrentIndex(m_contexts->findText(current));
    m_contexts->setEnabled(contexts.size() > 1);
}

void ContextPicker::handleObjectsChanged(const QStringList &upserted)
{
    for (const QString &key : upserted) {
        const qsizetype slash = key.indexOf(u'/');
        if (slash <= 0)
            continue;
        const QString namespace_ = key.left(slash);
        if (m_knownNamespaces.contains(namespace_))
            continue;
        m_knownNamespaces.insert(namespace_);
        // Keep "All namespaces" first and the rest sorted.
        int row = 1;
        while (row < m_namespaces->count() && m_namespaces->itemText(row) < namespace_)
            ++row;
        const QSignalBlocker blocker(m_namespaces);
        const QString edited = m_namespaces->currentText();
        m_namespaces->insertItem(row, namespace_, namespace_);
        m_namespaces->setEditText(edited);
    }
}

void ContextPicker::applyNamespace()
{
    QString text = m_namespaces->currentText().trimmed();
    if (text == m_namespaces->itemText(0))
        text.clear();
    m_session->setNamespaceFilter(text);
}

} // namespace reconscope::ui
