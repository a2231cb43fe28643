#include "ui/detailpane.h"

#include "controller/console/consolesession.h"
#include "controller/console/dryrunplanner.h"
#include "models/conditionsmodel.h"
#include "models/jsonfields.h"
#include "models/ownedobjectsmodel.h"
#include "models/plannedchangesmodel.h"
#include "models/rfc3339.h"
#include "models/transitiontimelinemodel.h"
#include "ui/detailviews.h"
#include "ui/explainpanel.h"
#include "ui/fieldhistoryview.h"
#include "ui/fieldspanel.h"
#include "ui/statepalette.h"

#include <nlohmann/json.hpp>

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

DetailPane::DetailPane(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_header(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_spec(jsonView(this))
    , m_status(jsonView(this))
    , m_raw(jsonView(this))
    , m_fields(new FieldsPanel(this))
    , m_fieldHistoryView(new FieldHistoryView(this))
    , m_conditions(new models::ConditionsModel(this))
    , m_timeline(
          new models::TransitionTimelineModel(models::TransitionLog::DefaultHistoryLimit, this))
    , m_events(new QTableWidget(0, 5, this))
    , m_owned(new models::OwnedObjectsModel(this))
    , m_ownedLabel(new QLabel(this))
    , m_dryRun(new models::PlannedChangesModel(this))
    , m_dryRunLabel(new QLabel(this))
    , m_dryRunText(jsonView(this))
    , m_ownedPage(new QWidget(this))
    , m_dryRunPage(new QWidget(this))
    , m_liveTimer(new QTimer(this))
    , m_explain(new ExplainPanel(session, this))
{
    setWindowTitle(tr("Details"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setContentsMargins(8, 6, 8, 6);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    QWidget *overviewPage = buildOverviewPage();
    auto *transitionsView = tableView(m_timeline, this);
    transitionsView->setColumnHidden(models::TransitionTimelineModel::KeyColumn, true);
    auto *timelineView = new QSplitter(Qt::Vertical, this);
    timelineView->addWidget(titled(tr("lifecycle transitions"), transitionsView, timelineView));
    timelineView->addWidget(titled(
        tr("field changes (managedFields say who wrote them)"), m_fieldHistoryView, timelineView));
    timelineView->setChildrenCollapsible(false);

    QWidget *eventsPage = buildEventsPage();
    buildOwnedPage();
    buildDryRunPage();

    overviewPage->setObjectName(u"overview"_s);
    timelineView->setObjectName(u"timeline"_s);
    m_raw->setObjectName(u"raw"_s);
    eventsPage->setObjectName(u"events"_s);
    m_ownedPage->setObjectName(u"owned"_s);
    m_dryRunPage->setObjectName(u"dryrun"_s);
    m_tabs->addTab(overviewPage, tr("Spec && Status"));
    m_tabs->addTab(timelineView, tr("Timeline"));
    m_tabs->addTab(m_raw, tr("Raw JSON"));
    m_tabs->addTab(m_fields, tr("Fields"));
    m_tabs->addTab(eventsPage, tr("Events"));
    m_tabs->addTab(m_ownedPage, tr("Owned"));
    m_tabs->addTab(m_dryRunPage, tr("Dry Run"));
    m_explain->setObjectName(u"explain"_s);
    m_tabs->addTab(m_explain, tr("Why?"));
    m_tabs->setDocumentMode(true);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_dryRunPage)
            planDryRun();
        else if (m_tabs->currentWidget() == m_ownedPage)
            refreshOwned();
    });
    m_liveTimer->setSingleShot(true);
    m_liveTimer->setInterval(1000);
    connect(m_liveTimer, &QTimer::timeout, this, [this] {
        refreshOwned();
        if (m_planner)
            planDryRun();
    });
    connect(m_session, &ConsoleSession::connected, this, [this] {
        delete m_planner; // another cluster or identity
        m_planner = nullptr;
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_header);
    layout->addWidget(m_tabs, 1);

    connect(m_session, &ConsoleSession::objectsChanged, this, &DetailPane::handleObjectsChanged);
    connect(m_session, &ConsoleSession::trackerReset, this, [this] { showObject(QString()); });
    refresh();
}

DetailPane::~DetailPane() = default;

QWidget *DetailPane::buildOverviewPage()
{
    // Spec and status wrap: long image names and messages stay readable in a narrow pane.
    m_spec->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_status->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    auto *overview = new QSplitter(Qt::Horizontal, this);
    overview->addWidget(titled(tr("spec"), m_spec, overview));
    overview->addWidget(titled(tr("status"), m_status, overview));
    overview->setChildrenCollapsible(false);

    auto *conditionsView = tableView(m_conditions, this);
    conditionsView->horizontalHeader()->setStretchLastSection(false);
    conditionsView->horizontalHeader()->setSectionResizeMode(models::ConditionsModel::MessageColumn,
                                                             QHeaderView::Stretch);
    auto *overviewPage = new QSplitter(Qt::Vertical, this);
    overviewPage->addWidget(overview);
    overviewPage->addWidget(titled(tr("Conditions"), conditionsView, overviewPage));
    overviewPage->setStretchFactor(0, 3);
    overviewPage->setStretchFactor(1, 2);
    return overviewPage;
}

QWidget *DetailPane::buildEventsPage()
{
    m_events->setHorizontalHeaderLabels(
        { tr("Last seen"), tr("Type"), tr("Reason"), tr("Count"), tr("Message") });
    m_events->verticalHeader()->hide();
    m_events->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_events->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_events->horizontalHeader()->setStretchLastSection(true);
    m_events->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_events->setWordWrap(false);
    auto *eventsPage = new QWidget(this);
    auto *eventsLayout = new QVBoxLayout(eventsPage);
    eventsLayout->setContentsMargins(0, 4, 0, 0);
    auto *reload = new QPushButton(tr("&Reload Events"), eventsPage);
    connect(reload, &QPushButton::clicked, this, &DetailPane::refreshEvents);
    eventsLayout->addWidget(reload, 0, Qt::AlignLeft);
    eventsLayout->addWidget(m_events, 1);
    return eventsPage;
}

void DetailPane::buildOwnedPage()
{
    // Owned objects: what the object's controller made for it, and how those are doing.
    auto *ownedLayout = new QVBoxLayout(m_ownedPage);
    ownedLayout->setContentsMargins(0, 4, 0, 0);
    auto *reloadOwned = new QPushButton(tr("Reload &Owned Objects"), m_ownedPage);
    connect(reloadOwned, &QPushButton::clicked, this, &DetailPane::refreshOwned);
    auto *ownedTop = new QHBoxLayout;
    ownedTop->addWidget(reloadOwned);
    ownedTop->addWidget(m_ownedLabel, 1);
    ownedLayout->addLayout(ownedTop);
    auto *ownedView = tableView(m_owned, m_ownedPage);
    ownedView->horizontalHeader()->setStretchLastSection(true);
    ownedLayout->addWidget(ownedView, 1);
}

void DetailPane::buildDryRunPage()
{
    // Dry run: the reconciler's next writes for this object, computed, not sent.
    auto *dryRunLayout = new QVBoxLayout(m_dryRunPage);
    dryRunLayout->setContentsMargins(0, 4, 0, 0);
    auto *plan = new QPushButton(tr("&Plan Again"), m_dryRunPage);
    connect(plan, &QPushButton::clicked, this, &DetailPane::planDryRun);
    m_dryRunLabel->setWordWrap(true);
    m_dryRunLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *dryRunTop = new QHBoxLayout;
    dryRunTop->addWidget(plan, 0, Qt::AlignTop);
    dryRunTop->addWidget(m_dryRunLabel, 1);
    dryRunLayout->addLayout(dryRunTop);
    auto *dryRunSplit = new QSplitter(Qt::Vertical, m_dryRunPage);
    auto *dryRunView = tableView(m_dryRun, dryRunSplit);
    dryRunView->horizontalHeader()->setStretchLastSection(true);
    // The request's URL is long and the same for several rows: its middle gives way, so the
    // operation, field and values stay in view (the whole request is in the text below).
    dryRunView->setTextElideMode(Qt::ElideMiddle);
    dryRunView->horizontalHeader()->setSectionResizeMode(models::PlannedChangesModel::RequestColumn,
                                                         QHeaderView::Interactive);
    dryRunView->horizontalHeader()->resizeSection(models::PlannedChangesModel::RequestColumn, 190);
    m_dryRunText->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_dryRunText->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    dryRunSplit->addWidget(dryRunView);
    dryRunSplit->addWidget(m_dryRunText);
    dryRunSplit->setStretchFactor(0, 1);
    dryRunSplit->setStretchFactor(1, 2);
    dryRunLayout->addWidget(dryRunSplit, 1);
}

void DetailPane::showObject(const QString &key)
{
    const bool changed = key != m_key;
    m_key = key;
    m_explain->showObject(key);
    refresh();
    if (changed) {
        m_timeline->setTransitions(m_session->tracker().log().history(m_key));
        refreshEvents();
        m_owned->setObjects({});
        m_ownedByPath.clear();
        refreshOwned();
        m_dryRun->clear();
        m_dryRunText->clear();
        m_dryRunLabel->clear();
        if (m_planner || m_tabs->currentWidget() == m_dryRunPage)
            planDryRun();
    }
}

bool DetailPane::showTab(const QString &name)
{
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->objectName() == name) {
            m_tabs->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

void DetailPane::scheduleLiveRefresh()
{
    if (!m_liveTimer->isActive())
        m_liveTimer->start();
}

void DetailPane::refreshOwned()
{
    const quint64 request = ++m_ownedRequest;
    auto *client = m_session->client();
    const auto *entry
        = m_session->informer() && !m_key.isEmpty() ? m_session->informer()->entry(m_key) : nullptr;
    if (!client || !entry) {
        m_owned->setObjects({});
        m_ownedLabel->clear();
        return;
    }
    const QString ns = entry->summary.namespaceName;
    const QString uid = entry->summary.uid;
    using controller::apimachinery::ResourceRef;
    // Items of a built-in list carry no kind (the typed list encoder drops it): each list's own.
    struct Listed
    {
        ResourceRef ref;
        const char *kind;
    };
    const QList<Listed> kinds{ { { u"apps"_s, u"v1"_s, u"deployments"_s, true }, "Deployment" },
                               { { u"apps"_s, u"v1"_s, u"replicasets"_s, true }, "ReplicaSet" },
                               { { QString(), u"v1"_s, u"pods"_s, true }, "Pod" } };
    struct Gathered
    {
        QList<nlohmann::json> objects;
        QHash<QString, nlohmann::json> byPath;
        QStringList errors;
        int pending = 0;
    };
    auto gathered = std::make_shared<Gathered>();
    gathered->pending = int(kinds.size());
    QPointer<DetailPane> self(this);
    for (const Listed &listed : kinds) {
        // Named copies: clang before 16 cannot capture structured bindings.
        const ResourceRef kind = listed.ref;
        const char *const kindName = listed.kind;
        client->list(
            kind,
            ns,
            controller::apimachinery::ListOptions{ .limit = controller::kube::DefaultListPageSize },
            [self, request, gathered, kind, kindName, uid](
                models::Result<controller::kube::ListPage, controller::apimachinery::ApiError>
                    result) {
                if (!self || request != self->m_ownedRequest)
                    return;
                if (result.ok()) {
                    for (const QByteArray &item : result->items) {
                        auto object = nlohmann::json::parse(
                            item.constData(), item.constData() + item.size(), nullptr, false);
                        if (object.is_discarded() || !object.is_object())
                            continue;
                        if (!object.contains("kind"))
                            object["kind"] = kindName;
                        const auto meta = object.value("metadata", nlohmann::json::object());
                        gathered->byPath.insert(
                            kind.objectPath(
                                QString::fromStdString(meta.value("namespace", std::string())),
                                QString::fromStdString(meta.value("name", std::string()))),
                            object);
                        gathered->objects.append(std::move(object));
                    }
                } else if (!result.error().isNotFound()) { // no ReplicaSets on the embedded one
                    gathered->errors.append(kind.plural + u": "_s + result.error().toString());
                }
                if (--gathered->pending > 0)
                    return;
                const auto rows = models::ownedObjects(uid, gathered->objects);
                self->m_owned->setObjects(rows);
                self->m_ownedByPath = gathered->byPath;
                self->m_ownedLabel->setText(
                    gathered->errors.isEmpty()
                        ? tr("%n object(s) owned, directly or through another.",
                             nullptr,
                             int(rows.size()))
                        : gathered->errors.join(u"; "_s));
                emit self->ownedLoaded(int(rows.size()));
            });
    }
}

void DetailPane::planDryRun()
{
    if (m_key.isEmpty()) {
        m_dryRunLabel->setText(tr("<i>Select an object.</i>"));
        return;
    }
    if (m_session->resource().ref().collectionPath()
        != ConsoleSession::CustomApps.collectionPath()) {
        m_dryRunLabel->setText(
            tr("The dry run is the embedded CustomApp reconciler's: select a CustomApp."));
        m_dryRun->clear();
        m_dryRunText->clear();
        return;
    }
    if (!m_session->client()) {
        m_dryRunLabel->setText(tr("not connected"));
        return;
    }
    if (!m_planner) {
        m_planner = new controller::console::DryRunPlanner(m_session->clientConfig(), this);
        connect(m_planner,
                &controller::console::DryRunPlanner::planned,
                this,
                &DetailPane::handlePlanned);
    }
    if (!m_planner->isReady())
        m_dryRunLabel->setText(tr("Starting the dry-run reconciler's caches…"));
    m_planner->plan(m_key);
}

void DetailPane::handlePlanned(const QString &key,
                               const QList<controller::operators::PlannedWrite> &writes,
                               const QString &outcome)
{
    if (key != m_key)
        return;
    const auto *entry = m_session->informer() ? m_session->informer()->entry(m_key) : nullptr;
    const nlohmann::json object = entry ? entry->json() : nlohmann::json();
    const qsizetype slash = m_key.indexOf(u'/');
    const QString objectPath
        = ConsoleSession::CustomApps.objectPath(m_key.left(slash), m_key.mid(slash + 1));
    QList<models::PlannedChange> changes;
    for (const auto &write : writes) {
        nlohmann::json before;
        if (write.path == objectPath || write.path == objectPath + u"/status"_s)
            before = object;
        else
            before = m_ownedByPath.value(write.path);
        changes += models::plannedChanges(write.verb, write.path, write.diff, before);
    }
    m_dryRun->setChanges(changes);
    m_dryRunText->setPlainText(writes.isEmpty() ? QString() : models::plannedChangesText(changes));
    m_dryRunLabel->setText(
        writes.isEmpty()
            ? tr("Nothing to write: the cluster is as the reconciler wants it (%1).").arg(outcome)
            : tr("%n write(s) the reconciler would send now (not sent); then: %1.",
                 nullptr,
                 int(writes.size()))
                  .arg(outcome));
    emit dryRunPlanned(int(changes.size()));
}

void DetailPane::handleObjectsChanged(const QStringList &upserted, const QStringList &removed)
{
    // The objects shown before keep their field history while they last.
    for (const QString &key : m_fieldHistories.followed()) {
        if (removed.contains(key)) {
            m_fieldHistories.forget(key);
        } else if (key != m_key && upserted.contains(key)) {
            const auto *informer = m_session->informer();
            if (const auto *entry = informer ? informer->entry(key) : nullptr)
                m_fieldHistories.observe(key, entry->json(), QDateTime::currentDateTimeUtc());
        }
    }
    if (m_key.isEmpty() || (!upserted.contains(m_key) && !removed.contains(m_key)))
        return;
    refresh();
    scheduleLiveRefresh();
    // Transitions the timeline has not shown yet.
    const auto history = m_session->tracker().log().history(m_key);
    const auto &shown = m_timeline->transitions();
    if (shown.isEmpty() || history.isEmpty() || !history.contains(shown.last())) {
        m_timeline->setTransitions(history);
    } else {
        const qsizetype last = history.lastIndexOf(shown.last());
        m_timeline->append(history.mid(last + 1));
    }
}

void DetailPane::refresh()
{
    const controller::kube::InformerEntry *entry
        = m_session->informer() && !m_key.isEmpty() ? m_session->informer()->entry(m_key) : nullptr;
    if (!entry) {
        m_header->setText(m_key.isEmpty()
                              ? tr("<i>Select an object to see its spec, status, conditions, "
                                   "transitions and events.</i>")
                              : tr("<b>%1</b> — deleted").arg(m_key.toHtmlEscaped()));
        m_spec->clear();
        m_status->clear();
        m_raw->clear();
        m_fields->clear();
        m_conditions->clear();
        return;
    }
    const models::ObjectSummary &summary = entry->summary;
    const models::LifecycleVerdict verdict = m_session->tracker().verdict(m_key);
    m_header->setText(objectHeaderHtml(summary, verdict));

    const nlohmann::json object = entry->json();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_fields->setObject(object, now);
    m_fieldHistories.follow(m_key);
    m_fieldHistories.observe(m_key, object, now);
    m_fieldHistoryView->setHistory(m_fieldHistories.history(m_key));
    keepText(m_spec, prettyJson(models::jsonMember(object, "spec")));
    keepText(m_status, prettyJson(models::jsonMember(object, "status")));
    keepText(m_raw, prettyJson(object));
    m_conditions->setConditions(summary.conditions, summary.generation);
}

void DetailPane::refreshEvents()
{
    const quint64 request = ++m_eventsRequest;
    m_events->setRowCount(0);
    auto *client = m_session->client();
    const auto *entry
        = m_session->informer() && !m_key.isEmpty() ? m_session->informer()->entry(m_key) : nullptr;
    if (!client || !entry)
        return;
    controller::apimachinery::ListOptions options;
    options.limit = controller::kube::DefaultListPageSize;
    options.fieldSelector = u"involvedObject.name=%1"_s.arg(entry->summary.name);
    if (!entry->summary.uid.isEmpty())
        options.fieldSelector += u",involvedObject.uid=%1"_s.arg(entry->summary.uid);
    const controller::apimachinery::ResourceRef events{ QString(), u"v1"_s, u"events"_s, true };
    QPointer<DetailPane> self(this);
    client->list(
        events,
        entry->summary.namespaceName,
        options,
        [self, request](
            models::Result<controller::kube::ListPage, controller::apimachinery::ApiError> result) {
            if (!self || request != self->m_eventsRequest)
                return;
            QTableWidget *table = self->m_events;
            if (!result.ok()) {
                table->setRowCount(1);
                table->setItem(0, 4, new QTableWidgetItem(result.error().toString()));
                emit self->eventsLoaded(0);
                return;
            }
            const auto &items = result->items;
            table->setRowCount(int(items.size()));
            for (int row = 0; row < items.size(); ++row) {
                const auto event = nlohmann::json::parse(items[row].constData(),
                                                         items[row].constData() + items[row].size(),
                                                         nullptr,
                                                         false);
                if (event.is_discarded() || !event.is_object())
                    continue;
                QString seen = models::jsonString(event, "lastTimestamp");
                if (seen.isEmpty())
                    seen = models::jsonString(event, "eventTime");
                const auto count = event.find("count");
                table->setItem(row, 0, new QTableWidgetItem(seen));
                table->setItem(row, 1, new QTableWidgetItem(models::jsonString(event, "type")));
                table->setItem(row, 2, new QTableWidgetItem(models::jsonString(event, "reason")));
                table->setItem(
                    row,
                    3,
                    new QTableWidgetItem(count != event.end() && count->is_number_integer()
                                             ? QString::number(count->get<qint64>())
                                             : QString()));
                table->setItem(row, 4, new QTableWidgetItem(models::jsonString(event, "message")));
            }
            emit self->eventsLoaded(int(items.size()));
        });
}

} // namespace reconscope::ui
