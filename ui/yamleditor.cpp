#include "ui/yamleditor.h"

#include "controller/console/consolesession.h"
#include "models/objectyaml.h"
#include "models/yamljson.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace {

QString describe(const controller::apimachinery::ApiError &error)
{
    QString text = error.toString();
    for (const auto &cause : error.causes) {
        text += u"\n  • "_s
            + (cause.field.isEmpty() ? cause.message : cause.field + u": "_s + cause.message);
    }
    if (error.isConflict())
        text += YamlEditor::tr("\nSomeone changed the object since it was loaded: Reload to see "
                               "the current version (your edits are kept until then).");
    return text;
}

} // namespace

YamlEditor::YamlEditor(ConsoleSession *session,
                       const controller::apimachinery::ResourceRef &resource,
                       const QString &key,
                       QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_resource(resource)
    , m_key(key)
    , m_message(new QLabel(this))
    , m_editor(new QPlainTextEdit(this))
    , m_apply(new QPushButton(tr("&Apply"), this))
    , m_reload(new QPushButton(tr("&Reload"), this))
{
    setWindowTitle(tr("Edit %1 — YAML").arg(key));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setContentsMargins(6, 4, 6, 4);
    m_message->hide();
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setTabChangesFocus(false);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_apply, QDialogButtonBox::ApplyRole);
    buttons->addButton(m_reload, QDialogButtonBox::ResetRole);
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_apply->setToolTip(tr("Send the text as an update (Ctrl+Enter)"));
    connect(m_apply, &QPushButton::clicked, this, &YamlEditor::apply);
    connect(m_reload, &QPushButton::clicked, this, &YamlEditor::reload);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_editor, 1);
    layout->addWidget(buttons);
    resize(720, 760);
}

YamlEditor::~YamlEditor() = default;

bool YamlEditor::loadFromCache()
{
    const auto *informer = m_session->informer();
    const auto *entry = informer ? informer->entry(m_key) : nullptr;
    if (!entry)
        return false;
    showObject(entry->json());
    return true;
}

void YamlEditor::showObject(const nlohmann::json &object)
{
    nlohmann::json shown = object;
    // managedFields are noise in an editor (kubectl edit shows them; `kubectl get -o yaml`
    // hides them since 1.21).
    if (shown.contains("metadata") && shown["metadata"].is_object())
        shown["metadata"].erase("managedFields");
    m_editor->setPlainText(QString::fromUtf8(models::jsonToYaml(shown)));
}

void YamlEditor::showError(const QString &text)
{
    m_errorText = text;
    m_message->setStyleSheet(
        u"QLabel { background:#ffebee; color:#b71c1c; border:1px solid #ef9a9a; }"_s);
    m_message->setText(text);
    m_message->show();
}

void YamlEditor::showInfo(const QString &text)
{
    m_errorText.clear();
    m_message->setStyleSheet(
        u"QLabel { background:#e8f5e9; color:#1b5e20; border:1px solid #a5d6a7; }"_s);
    m_message->setText(text);
    m_message->show();
}

void YamlEditor::apply()
{
    if (m_sending)
        return;
    const QByteArray text = m_editor->toPlainText().toUtf8();
    const auto parsed = models::yamlToJson(text);
    if (!parsed.ok()) {
        showError(tr("The YAML does not parse: %1").arg(parsed.error().message));
        return;
    }
    if (!parsed.value().is_object()) {
        showError(tr("The YAML must be one object."));
        return;
    }
    const nlohmann::json &object = parsed.value();
    const auto meta = object.find("metadata");
    const QString name = meta != object.end() && meta->is_object()
        ? QString::fromStdString(meta->value("name", std::string()))
        : QString();
    const QString ns = meta != object.end() && meta->is_object()
        ? QString::fromStdString(meta->value("namespace", std::string()))
        : QString();
    const QString keyInText = ns.isEmpty() ? name : ns + u'/' + name;
    if (keyInText != m_key) {
        showError(tr("The text names %1, the editor edits %2: an update cannot rename an object.")
                      .arg(keyInText.isEmpty() ? tr("no object") : keyInText, m_key));
        return;
    }
    m_sending = true;
    m_apply->setEnabled(false);
    QPointer<YamlEditor> self(this);
    m_session->updateObject(
        m_resource, object, [self](controller::kube::RestClient::JsonResult result) {
            if (self)
                self->handleAnswer(std::move(result));
        });
}

void YamlEditor::handleAnswer(controller::kube::RestClient::JsonResult result)
{
    m_sending = false;
    m_apply->setEnabled(true);
    if (!result.ok()) {
        // The text stays as typed: the user fixes it or reloads.
        showError(describe(result.error()));
        return;
    }
    const nlohmann::json &stored = result.value();
    const QString version = QString::fromStdString(
        stored.value("metadata", nlohmann::json::object()).value("resourceVersion", std::string()));
    showObject(stored);
    showInfo(tr("Applied: resourceVersion %1, generation %2.")
                 .arg(version)
                 .arg(stored.value("metadata", nlohmann::json::object()).value("generation", 0)));
    emit applied(version);
}

void YamlEditor::reload()
{
    auto *client = m_session->client();
    if (!client) {
        showError(tr("not connected"));
        return;
    }
    const qsizetype slash = m_key.indexOf(u'/');
    const QString ns = slash < 0 ? QString() : m_key.left(slash);
    const QString name = slash < 0 ? m_key : m_key.mid(slash + 1);
    QPointer<YamlEditor> self(this);
    client->get(m_resource, ns, name, [self](controller::kube::RestClient::JsonResult result) {
        if (!self)
            return;
        if (!result.ok()) {
            self->showError(describe(result.error()));
            return;
        }
        self->showObject(result.value());
        self->showInfo(tr("Reloaded."));
        emit self->reloaded();
    });
}

} // namespace reconscope::ui
