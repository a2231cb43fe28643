#include "ui/customappdialog.h"

#include "controller/console/consolesession.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

using Field = models::CustomAppForm::Field;

CustomAppDialog::CustomAppDialog(ConsoleSession *session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_name(new QLineEdit(this))
    , m_namespace(new QLineEdit(this))
    , m_image(new QLineEdit(this))
    , m_replicas(new QSpinBox(this))
    , m_port(new QSpinBox(this))
    , m_config(new QPlainTextEdit(this))
    , m_secret(new QLineEdit(this))
    , m_error(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("New CustomApp"));
    m_name->setPlaceholderText(tr("e.g. web"));
    m_namespace->setText(session->namespaceFilter().isEmpty() ? u"default"_s
                                                              : session->namespaceFilter());
    m_image->setPlaceholderText(tr("e.g. nginx:1.27"));
    m_replicas->setRange(0, 1000); // the form says what is allowed rather than clamping silently
    m_replicas->setValue(1);
    m_port->setRange(0, 70000);
    m_port->setValue(8080);
    m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_config->setPlainText(u"{}"_s);
    m_config->setTabChangesFocus(true);
    m_config->setMinimumHeight(90);
    m_secret->setPlaceholderText(tr("optional: a Secret in the same namespace"));

    auto *form = new QFormLayout;
    const auto addRow = [&](const QString &label, QWidget *field, Field which) {
        auto *box = new QWidget(this);
        auto *layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(1);
        layout->addWidget(field);
        auto *problem = new QLabel(box);
        problem->setStyleSheet(u"color:#b71c1c"_s);
        problem->setWordWrap(true);
        problem->hide();
        layout->addWidget(problem);
        m_problems.insert(which, problem);
        form->addRow(label, box);
    };
    addRow(tr("&Name:"), m_name, Field::Name);
    addRow(tr("Name&space:"), m_namespace, Field::Namespace);
    addRow(tr("&Image:"), m_image, Field::Image);
    addRow(tr("&Replicas:"), m_replicas, Field::Replicas);
    addRow(tr("&Port:"), m_port, Field::Port);
    addRow(tr("&configJSON:"), m_config, Field::ConfigJSON);
    addRow(tr("Se&cret:"), m_secret, Field::SecretName);

    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(u"color:#b71c1c; font-weight:bold"_s);
    m_error->hide();

    auto *create = m_buttons->addButton(tr("C&reate"), QDialogButtonBox::AcceptRole);
    create->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &CustomAppDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    resize(520, sizeHint().height());

    for (auto *edit : { m_name, m_namespace, m_image, m_secret })
        connect(edit, &QLineEdit::textChanged, this, &CustomAppDialog::validate);
    for (auto *box : { m_replicas, m_port })
        connect(box, &QSpinBox::valueChanged, this, &CustomAppDialog::validate);
    connect(m_config, &QPlainTextEdit::textChanged, this, &CustomAppDialog::validate);
    validate();
}

CustomAppDialog::~CustomAppDialog() = default;

models::CustomAppForm CustomAppDialog::form() const
{
    models::CustomAppForm form;
    form.name = m_name->text().trimmed();
    form.namespaceName = m_namespace->text().trimmed();
    form.image = m_image->text().trimmed();
    form.replicas = m_replicas->value();
    form.port = m_port->value();
    form.configJSON = m_config->toPlainText();
    form.secretName = m_secret->text().trimmed();
    return form;
}

void CustomAppDialog::setForm(const models::CustomAppForm &form)
{
    m_name->setText(form.name);
    m_namespace->setText(form.namespaceName);
    m_image->setText(form.image);
    m_replicas->setValue(form.replicas);
    m_port->setValue(form.port);
    m_config->setPlainText(form.configJSON);
    m_secret->setText(form.secretName);
}

QPushButton *CustomAppDialog::createButton() const
{
    for (QAbstractButton *button : m_buttons->buttons()) {
        if (m_buttons->buttonRole(button) == QDialogButtonBox::AcceptRole)
            return qobject_cast<QPushButton *>(button);
    }
    return nullptr;
}

QString CustomAppDialog::problemText(Field field) const
{
    const QLabel *label = m_problems.value(field);
    return label && !label->isHidden() ? label->text() : QString();
}

void CustomAppDialog::validate()
{
    const auto problems = form().problems();
    for (auto it = m_problems.cbegin(); it != m_problems.cend(); ++it) {
        const QString problem = problems.value(it.key());
        it.value()->setText(problem);
        it.value()->setVisible(!problem.isEmpty());
    }
    if (QPushButton *create = createButton())
        create->setEnabled(problems.isEmpty() && !m_sending);
}

void CustomAppDialog::submit()
{
    const models::CustomAppForm values = form();
    if (!values.problems().isEmpty() || m_sending)
        return;
    m_sending = true;
    validate();
    m_error->hide();
    const QString key = values.namespaceName + u'/' + values.name;
    QPointer<CustomAppDialog> self(this);
    m_session->createObject(ConsoleSession::CustomApps,
                            values.toObject(),
                            [self, key](controller::kube::RestClient::JsonResult result) {
                                if (!self)
                                    return;
                                self->m_sending = false;
                                self->validate();
                                if (!result.ok()) {
                                    self->m_error->setText(result.error().toString());
                                    self->m_error->show();
                                    return;
                                }
                                emit self->created(key);
                                self->accept();
                            });
}

} // namespace reconscope::ui
