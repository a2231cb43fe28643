#include "ui/patchlabpanel.h"

#include "controller/console/consolesession.h"
#include "models/resourcetablemodel.h"
#include "ui/writegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace labs = controller::labs;
using controller::apimachinery::PatchType;

PatchLabPanel::PatchLabPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_lab(new labs::PatchLab(session->client(), this))
    , m_gate(new WriteGate(session, this))
    , m_object(new QComboBox(this))
    , m_target(new QComboBox(this))
    , m_type(new QComboBox(this))
    , m_precondition(new QComboBox(this))
    , m_timeout(new QSpinBox(this))
    , m_templates(new QToolButton(this))
    , m_editor(new QPlainTextEdit(this))
    , m_validation(new QLabel(this))
    , m_request(new QPlainTextEdit(this))
    , m_result(new QPlainTextEdit(this))
    , m_history(new QListWidget(this))
    , m_send(new QAction(tr("&Send Patch"), this))
    , m_export(new QAction(tr("&Export History…"), this))
    , m_copyKubectl(new QAction(tr("Copy as &kubectl"), this))
{
    setWindowTitle(tr("Patch Lab"));
    setUpControls();
    layOut();
    connectSignals();
    setPatchText(QString::fromStdString(labs::makeTemplate(labs::PatchTemplate::ManualOverride,
                                                           PatchType::Merge,
                                                           json::object(),
                                                           QDateTime::currentDateTimeUtc())
                                            .dump(2)));
    validate();
}

PatchLabPanel::~PatchLabPanel() = default;

void PatchLabPanel::setUpControls()
{
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_object->setModel(m_session->tableModel());
    m_object->setModelColumn(models::ResourceTableModel::NameColumn);
    m_object->setToolTip(tr("The object to patch (the table's selection)"));
    m_target->addItem(tr("/status"), int(labs::PatchTarget::Status));
    m_target->addItem(tr("main resource"), int(labs::PatchTarget::Main));
    m_type->addItem(tr("merge patch"), int(PatchType::Merge));
    m_type->addItem(tr("JSON patch"), int(PatchType::Json));
    m_precondition->addItem(tr("no resourceVersion"), int(labs::Precondition::None));
    m_precondition->addItem(tr("current resourceVersion"), int(labs::Precondition::Current));
    m_precondition->addItem(tr("stale resourceVersion"), int(labs::Precondition::Stale));
    // Narrow by default: the panel shares a dock area with others.
    for (auto *combo : { m_object, m_target, m_type, m_precondition }) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(6);
    }
    m_timeout->setRange(0, 600);
    m_timeout->setValue(m_lab->reactionTimeout() / 1000);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setToolTip(tr("How long to watch for the reconciler's reaction (0: do not watch)"));

    auto *templateMenu = new QMenu(this);
    for (const auto t : labs::allTemplates()) {
        templateMenu->addAction(labs::templateName(t), this, [this, t] { applyTemplate(t); });
    }
    m_templates->setText(tr("Templates"));
    m_templates->setMenu(templateMenu);
    m_templates->setPopupMode(QToolButton::InstantPopup);

    m_editor->setFont(mono);
    m_editor->setPlaceholderText(tr("A merge patch (JSON object) or a JSON patch (array)"));
    m_validation->setWordWrap(true);
    m_validation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_request->setReadOnly(true);
    m_request->setFont(mono);
    m_request->setMaximumBlockCount(200);
    m_result->setReadOnly(true);
    m_result->setFont(mono);
    m_result->setObjectName(u"patchLabResult"_s);

    m_send->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_send->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addActions({ m_send, m_copyKubectl, m_export });
}

void PatchLabPanel::layOut()
{
    auto *toolbar = new QToolBar(this);
    toolbar->addAction(m_send);
    toolbar->addWidget(m_templates);
    toolbar->addAction(m_copyKubectl);
    toolbar->addAction(m_export);

    auto *form = new QFormLayout;
    form->addRow(tr("Object"), m_object);
    auto *row = new QHBoxLayout;
    row->addWidget(m_target);
    row->addWidget(m_type);
    row->addWidget(m_precondition);
    form->addRow(tr("Request"), row);
    form->addRow(tr("Watch reaction"), m_timeout);

    auto *editorBox = new QWidget(this);
    auto *editorLayout = new QVBoxLayout(editorBox);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->addWidget(m_editor, 3);
    editorLayout->addWidget(m_validation);
    editorLayout->addWidget(m_request, 1);

    auto *results = new QSplitter(Qt::Horizontal, this);
    results->addWidget(m_result);
    results->addWidget(m_history);
    results->setStretchFactor(0, 3);
    results->setStretchFactor(1, 1);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(editorBox);
    split->addWidget(results);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(toolbar);
    layout->addLayout(form);
    layout->addWidget(split, 1);
}

void PatchLabPanel::connectSignals()
{
    connect(m_editor, &QPlainTextEdit::textChanged, this, &PatchLabPanel::validate);
    for (auto *combo : { m_target, m_type, m_precondition })
        connect(combo, &QComboBox::currentIndexChanged, this, &PatchLabPanel::validate);
    connect(m_object, &QComboBox::currentIndexChanged, this, [this] {
        fetchObject();
        validate();
    });
    connect(m_timeout, &QSpinBox::valueChanged, this, [this](int seconds) {
        m_lab->setReactionTimeout(seconds * 1000);
    });
    connect(m_send, &QAction::triggered, this, [this] { send(); });
    connect(m_copyKubectl, &QAction::triggered, this, [this] { copyKubectl(); });
    connect(m_export, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export Patch Lab History"), u"patch-lab.json"_s, tr("JSON (*.json)"));
        if (!path.isEmpty())
            exportHistory(path);
    });
    connect(m_history, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < m_lab->history().size())
            showExperiment(m_lab->history()[row].id);
    });
    connect(m_lab, &labs::PatchLab::historyChanged, this, &PatchLabPanel::refreshHistory);
    connect(m_lab, &labs::PatchLab::experimentStarted, this, &PatchLabPanel::showExperiment);
    connect(m_lab, &labs::PatchLab::experimentAnswered, this, [this](int id) {
        if (const auto *e = m_lab->experiment(id); e && e->after.is_object())
            m_objectJson = e->after;
        showExperiment(id);
    });
    connect(m_lab, &labs::PatchLab::experimentFinished, this, [this](int id) {
        showExperiment(id);
        validate();
    });
    connect(m_session, &ConsoleSession::connected, this, [this] {
        m_lab->setClient(m_session->client());
        validate();
    });
    connect(m_session, &ConsoleSession::objectsChanged, this, &PatchLabPanel::handleObjectsChanged);
    connect(m_gate, &WriteGate::refused, this, [this](const QString &why) {
        m_result->setPlainText(tr("Not sent: %1").arg(why));
    });
}

void PatchLabPanel::setSelectedObject(const QString &key)
{
    const int row = m_session->tableModel()->rowOf(key);
    m_pendingKey = row < 0 ? key : QString();
    if (row >= 0 && row != m_object->currentIndex())
        m_object->setCurrentIndex(row);
    validate();
}

void PatchLabPanel::handleObjectsChanged()
{
    // The model's rows move as objects come and go: keep (or find) the chosen key.
    if (!m_pendingKey.isEmpty()) {
        const int row = m_session->tableModel()->rowOf(m_pendingKey);
        if (row >= 0) {
            m_pendingKey.clear();
            m_object->setCurrentIndex(row);
        }
    }
    validate();
}

QString PatchLabPanel::selectedObject() const
{
    if (!m_pendingKey.isEmpty())
        return m_pendingKey;
    const int row = m_object->currentIndex();
    if (row < 0)
        return {};
    return m_session->tableModel()
        ->index(row, 0)
        .data(models::ResourceTableModel::KeyRole)
        .toString();
}

void PatchLabPanel::fetchObject()
{
    const QString key = selectedObject();
    m_objectJson = json();
    if (key.isEmpty() || !m_session->client())
        return;
    const qsizetype slash = key.indexOf(u'/');
    const QString ns = slash < 0 ? QString() : key.left(slash);
    const QString name = key.mid(slash + 1);
    // The answer can come after the panel is gone (the window closed with a read in flight).
    QPointer<PatchLabPanel> self(this);
    m_session->client()->get(m_session->resource().ref(), ns, name, [self, key](auto result) {
        if (self && result.ok() && self->selectedObject() == key)
            self->m_objectJson = std::move(result.value());
    });
}

void PatchLabPanel::setTarget(labs::PatchTarget target)
{
    m_target->setCurrentIndex(m_target->findData(int(target)));
}

void PatchLabPanel::setPatchType(PatchType type)
{
    m_type->setCurrentIndex(m_type->findData(int(type)));
}

void PatchLabPanel::setPrecondition(labs::Precondition precondition)
{
    m_precondition->setCurrentIndex(m_precondition->findData(int(precondition)));
}

void PatchLabPanel::applyTemplate(labs::PatchTemplate t)
{
    const auto type = PatchType(m_type->currentData().toInt());
    setPatchText(QString::fromStdString(
        labs::makeTemplate(t, type, m_objectJson, QDateTime::currentDateTimeUtc()).dump(2)));
    // Spec templates belong on the main resource, status ones on /status.
    setTarget(t == labs::PatchTemplate::BumpSpecField ? labs::PatchTarget::Main
                                                      : labs::PatchTarget::Status);
}

void PatchLabPanel::setPatchText(const QString &text)
{
    m_editor->setPlainText(text);
}

QString PatchLabPanel::patchText() const
{
    return m_editor->toPlainText();
}

std::optional<labs::PatchRequest> PatchLabPanel::currentRequest() const
{
    const auto type = PatchType(m_type->currentData().toInt());
    const auto v = labs::validatePatch(m_editor->toPlainText(), type);
    const QString key = selectedObject();
    if (!v.ok || key.isEmpty())
        return std::nullopt;
    const auto &resource = m_session->resource();
    labs::PatchRequest r;
    r.resource = resource.ref();
    r.qualifiedResource = resource.qualifiedName();
    r.statusSubresource = resource.statusSubresource;
    const qsizetype slash = key.indexOf(u'/');
    r.namespace_ = slash < 0 ? QString() : key.left(slash);
    r.name = key.mid(slash + 1);
    r.target = labs::PatchTarget(m_target->currentData().toInt());
    r.type = type;
    r.patch = v.patch;
    r.precondition = labs::Precondition(m_precondition->currentData().toInt());
    return r;
}

QString PatchLabPanel::validationText() const
{
    return m_validation->text();
}

bool PatchLabPanel::canSend() const
{
    return m_send->isEnabled();
}

void PatchLabPanel::validate()
{
    const auto type = PatchType(m_type->currentData().toInt());
    const auto v = labs::validatePatch(m_editor->toPlainText(), type);
    QList<QTextEdit::ExtraSelection> marks;
    if (!v.ok && v.offset >= 0) {
        QTextEdit::ExtraSelection mark;
        mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        mark.format.setUnderlineColor(Qt::red);
        mark.format.setBackground(QColor(255, 200, 200));
        mark.cursor = QTextCursor(m_editor->document());
        mark.cursor.setPosition(int(std::max<qsizetype>(0, v.offset - 1)));
        mark.cursor.movePosition(QTextCursor::Right, QTextCursor::KeepAnchor);
        marks << mark;
    }
    m_editor->setExtraSelections(marks);

    QString message;
    if (!v.ok)
        message = v.message;
    else if (selectedObject().isEmpty())
        message = tr("pick an object");
    else if (!m_session->client())
        message = tr("not connected");
    else if (m_lab->isBusy())
        message = tr("an experiment is running");
    else if (!m_session->resource().statusSubresource
             && labs::PatchTarget(m_target->currentData().toInt()) == labs::PatchTarget::Status)
        message = tr("valid — note: %1 has no status subresource, /status answers 404")
                      .arg(m_session->resource().qualifiedName());
    else
        message = tr("valid %1")
                      .arg(type == PatchType::Merge ? tr("merge patch (RFC 7386)")
                                                    : tr("JSON patch (RFC 6902)"));
    m_validation->setText(message);
    m_validation->setStyleSheet(v.ok ? QString() : u"color: #b00020;"_s);
    const auto request = currentRequest();
    m_send->setEnabled(request.has_value() && m_session->client() && !m_lab->isBusy());
    m_request->setPlainText(request ? m_lab->describe(*request) : QString());
}

bool PatchLabPanel::send()
{
    validate();
    const auto request = currentRequest();
    if (!request || !m_send->isEnabled() || !m_session->client())
        return false;
    if (request->precondition == labs::Precondition::None)
        return confirmAndRun(*request);
    // The precondition's version goes into the body: read it now, so that the confirmation
    // shows the very bytes that will be sent.
    const labs::PatchRequest r = *request;
    m_result->setPlainText(tr("Reading %1 for its resourceVersion…").arg(r.name));
    m_session->client()->get(r.resource, r.namespace_, r.name, [this, r](auto result) {
        if (!result.ok()) {
            m_result->setPlainText(tr("Not sent: %1").arg(result.error().toString()));
            return;
        }
        const auto &meta = result.value()["metadata"];
        const QString current = QString::fromStdString(meta.value("resourceVersion", ""));
        labs::PatchRequest decided = r;
        decided.resourceVersion = r.precondition == labs::Precondition::Stale
            ? labs::staleResourceVersion(current)
            : current;
        confirmAndRun(decided);
    });
    return true;
}

bool PatchLabPanel::confirmAndRun(const labs::PatchRequest &request)
{
    const QString url = m_session->serverUrl() + request.path();
    const QString body = QString::fromUtf8(labs::PatchLab::bodyOf(request));
    return m_gate->request(u"PATCH"_s, url, body, [this, request] {
        if (m_lab->run(request) == 0)
            m_result->setPlainText(tr("Not sent: an experiment is still running."));
        validate();
    });
}

QString PatchLabPanel::describe(const labs::PatchExperiment &e)
{
    QStringList lines;
    lines << u"#%1 %2 %3  (%4, %5 patch, precondition: %6)"_s.arg(e.id).arg(
        e.method,
        e.url,
        labs::targetName(e.request.target),
        labs::patchTypeName(e.request.type),
        labs::preconditionName(e.request.precondition));
    if (!e.body.isEmpty())
        lines << u"body: "_s + QString::fromUtf8(e.body);
    if (!e.finished) {
        lines << QString() << u"sending…"_s;
        return lines.join(u'\n');
    }
    lines << QString() << u"HTTP %1"_s.arg(e.httpCode);
    if (e.error)
        lines << u"Status: "_s + QString::fromStdString(e.statusJson().dump(2));
    lines << QString() << u"Verdict:"_s;
    for (const auto &v : e.verdicts)
        lines << u"  • "_s + v;
    lines << QString() << u"Diff (RFC 6902, before → after):"_s;
    lines << u"  spec:   "_s + QString::fromStdString(e.comparison.specDiff.dump());
    lines << u"  status: "_s + QString::fromStdString(e.comparison.statusDiff.dump());
    lines << u"  generation: %1 → %2"_s.arg(e.comparison.generationBefore)
                 .arg(e.comparison.generationAfter);
    lines << u"  resourceVersion: %1 → %2"_s.arg(e.comparison.resourceVersionBefore,
                                                 e.comparison.resourceVersionAfter);
    lines << QString() << u"Reaction: "_s + e.reaction.text();
    if (!e.kubectl.isEmpty())
        lines << QString() << u"kubectl: "_s + e.kubectl;
    return lines.join(u'\n');
}

void PatchLabPanel::showExperiment(int id)
{
    const auto *e = m_lab->experiment(id);
    if (!e)
        return;
    m_shownId = id;
    m_result->setPlainText(describe(*e));
}

void PatchLabPanel::refreshHistory()
{
    const QSignalBlocker blocker(m_history);
    m_history->clear();
    for (const auto &e : m_lab->history()) {
        QString label = u"#%1 %2 %3 → %4"_s.arg(e.id)
                            .arg(labs::targetName(e.request.target), e.request.name)
                            .arg(e.finished ? QString::number(e.httpCode) : u"…"_s);
        if (e.reaction.outcome != labs::Reaction::Outcome::NotWatched)
            label += u" · "_s + labs::Reaction::outcomeName(e.reaction.outcome);
        auto *item = new QListWidgetItem(label, m_history);
        item->setData(Qt::UserRole, e.id);
        if (e.id == m_shownId)
            m_history->setCurrentItem(item);
    }
    if (m_shownId)
        showExperiment(m_shownId);
}

QString PatchLabPanel::copyKubectl()
{
    const auto *e = m_lab->experiment(m_shownId);
    if (!e && !m_lab->history().isEmpty())
        e = &m_lab->history().last();
    QString command;
    if (e && !e->kubectl.isEmpty()) {
        command = e->kubectl;
    } else if (const auto request = currentRequest()) {
        // Not sent yet: the command for the editor's patch (a precondition needs the version
        // read at send time, so it is left out here).
        command = labs::kubectlCommand(*request, QByteArray::fromStdString(request->patch.dump()));
    }
    if (!command.isEmpty())
        QGuiApplication::clipboard()->setText(command);
    return command;
}

bool PatchLabPanel::exportHistory(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(m_lab->exportHistory()) >= 0;
}

} // namespace reconscope::ui
