#include "ui/rawapiconsole.h"

#include "controller/console/consolesession.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace labs = controller::labs;

RawApiConsole::RawApiConsole(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_api(new labs::RawApi(session->client(), this))
    , m_path(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_output(new QPlainTextEdit(this))
    , m_history(new QListWidget(this))
    , m_events(new QListWidget(this))
    , m_get(new QAction(tr("&Get"), this))
    , m_watch(new QAction(tr("&Watch"), this))
    , m_stop(new QAction(tr("S&top"), this))
{
    setWindowTitle(tr("Raw API"));
    m_path->setEditable(true);
    m_path->setInsertPolicy(QComboBox::NoInsert);
    m_path->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_path->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_path->setMinimumContentsLength(12);
    m_path->lineEdit()->setPlaceholderText(
        tr("/apis/infrastructure.internal.net/v1/namespaces/default/customapps/my-app"));
    m_path->setToolTip(tr("Any API path, as kubectl get --raw takes it (a query is allowed)"));
    m_output->setReadOnly(true);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_get->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_get->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_stop->setEnabled(false);
    addActions({ m_get, m_watch, m_stop });

    auto *toolbar = new QToolBar(this);
    toolbar->addWidget(m_path);
    toolbar->addActions({ m_get, m_watch, m_stop });

    auto *side = new QTabWidget(this);
    side->addTab(m_history, tr("History"));
    side->addTab(m_events, tr("Events"));

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_output);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(toolbar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_get, &QAction::triggered, this, &RawApiConsole::get);
    connect(m_watch, &QAction::triggered, this, [this] { startWatch(); });
    connect(m_stop, &QAction::triggered, this, &RawApiConsole::stopWatch);
    connect(m_path->lineEdit(), &QLineEdit::returnPressed, this, &RawApiConsole::get);
    connect(m_api, &labs::RawApi::answered, this, &RawApiConsole::handleAnswered);
    connect(m_api, &labs::RawApi::watchEvent, this, &RawApiConsole::handleWatchEvent);
    connect(m_api, &labs::RawApi::watchEnded, this, &RawApiConsole::handleWatchEnded);
    connect(m_history, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || row >= m_results.size())
            return;
        const auto &r = m_results[row];
        m_status->setText(r.summary());
        m_output->setPlainText(r.error ? r.error->toString() : labs::prettyJson(r.body));
    });
    connect(m_events, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < m_eventObjects.size())
            m_output->setPlainText(labs::prettyJson(m_eventObjects[row]));
    });
    connect(session, &ConsoleSession::connected, this, [this] {
        m_api->setClient(m_session->client());
        updateActions();
    });
    updateActions();
}

RawApiConsole::~RawApiConsole() = default;

void RawApiConsole::setPath(const QString &path)
{
    m_path->setEditText(path);
}

QString RawApiConsole::path() const
{
    return m_path->currentText().trimmed();
}

void RawApiConsole::setSelectedObject(const QString &key)
{
    if (m_api->isWatching() || key.isEmpty())
        return;
    const qsizetype slash = key.indexOf(u'/');
    const QString ns = slash < 0 ? QString() : key.left(slash);
    setPath(m_session->resource().ref().objectPath(ns, key.mid(slash + 1)));
}

void RawApiConsole::get()
{
    const QString p = path();
    if (p.isEmpty())
        return;
    m_status->setText(tr("GET %1 …").arg(p));
    m_api->get(p);
}

bool RawApiConsole::startWatch()
{
    const QString p = path();
    QString problem;
    m_events->clear();
    m_eventObjects.clear();
    if (!m_api->watch(p, &problem)) {
        m_status->setText(tr("Cannot watch %1: %2").arg(p, problem));
        updateActions();
        return false;
    }
    m_status->setText(tr("Watching %1 …").arg(p));
    m_output->clear();
    if (m_path->findText(p) < 0)
        m_path->insertItem(0, p);
    updateActions();
    return true;
}

void RawApiConsole::stopWatch()
{
    m_api->stopWatch();
}

void RawApiConsole::handleAnswered(const labs::RawResult &result)
{
    m_results.prepend(result);
    auto *item = new QListWidgetItem(
        u"%1  %2"_s.arg(result.status ? QString::number(result.status) : u"—"_s, result.path));
    m_history->insertItem(0, item);
    if (m_path->findText(result.path) < 0)
        m_path->insertItem(0, result.path);
    const QSignalBlocker blocker(m_history);
    m_history->setCurrentRow(0);
    m_status->setText(result.summary());
    m_output->setPlainText(result.error ? result.error->toString() : labs::prettyJson(result.body));
}

void RawApiConsole::handleWatchEvent(const QString &type, const QByteArray &object)
{
    const auto parsed = nlohmann::json::parse(
        object.constData(), object.constData() + object.size(), nullptr, false);
    QString label = type;
    if (parsed.is_object() && parsed.contains("metadata") && parsed["metadata"].is_object()) {
        const auto &meta = parsed["metadata"];
        const QString ns = QString::fromStdString(meta.value("namespace", std::string()));
        const QString name = QString::fromStdString(meta.value("name", std::string()));
        label += u"  "_s + (ns.isEmpty() ? name : ns + u'/' + name) + u"  rv="_s
            + QString::fromStdString(meta.value("resourceVersion", std::string()));
    } else if (type == u"ERROR") {
        label += u"  "_s + QString::fromUtf8(object);
    }
    if (m_events->count() >= MaxEvents) {
        delete m_events->takeItem(0);
        m_eventObjects.removeFirst();
    }
    m_events->addItem(label);
    m_eventObjects.append(object);
    m_status->setText(
        tr("Watching %1: %n event(s)", nullptr, int(m_api->eventCount())).arg(path()));
    // Follow the stream unless the user picked an older event.
    if (m_events->currentRow() < 0 || m_events->currentRow() == m_events->count() - 2) {
        m_events->setCurrentRow(m_events->count() - 1);
    }
}

void RawApiConsole::handleWatchEnded(const QString &message)
{
    m_status->setText(message.isEmpty()
                          ? tr("Watch ended after %n event(s).", nullptr, int(m_api->eventCount()))
                          : tr("Watch failed: %1").arg(message));
    updateActions();
}

void RawApiConsole::updateActions()
{
    const bool connected = m_session->client() != nullptr;
    const bool watching = m_api->isWatching();
    m_get->setEnabled(connected);
    m_watch->setEnabled(connected && !watching);
    m_stop->setEnabled(watching);
}

} // namespace reconscope::ui
