#include "ui/replaydetailpane.h"

#include "controller/record/replaytimeline.h"
#include "models/conditionsmodel.h"
#include "models/jsonfields.h"
#include "models/objectsummary.h"
#include "models/transitiontimelinemodel.h"
#include "ui/detailviews.h"

#include <nlohmann/json.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::record::ReplayTimeline;

ReplayDetailPane::ReplayDetailPane(ReplayTimeline *timeline, QWidget *parent)
    : QWidget(parent)
    , m_replay(timeline)
    , m_header(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_spec(jsonView(this))
    , m_status(jsonView(this))
    , m_raw(jsonView(this))
    , m_conditions(new models::ConditionsModel(this))
    , m_timeline(
          new models::TransitionTimelineModel(models::TransitionLog::DefaultHistoryLimit, this))
{
    setWindowTitle(tr("Details"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setContentsMargins(8, 6, 8, 6);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_spec->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_status->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    auto *specStatus = new QSplitter(Qt::Horizontal, this);
    specStatus->addWidget(titled(tr("spec"), m_spec, specStatus));
    specStatus->addWidget(titled(tr("status"), m_status, specStatus));
    specStatus->setChildrenCollapsible(false);
    auto *conditionsView = tableView(m_conditions, this);
    conditionsView->horizontalHeader()->setStretchLastSection(false);
    conditionsView->horizontalHeader()->setSectionResizeMode(models::ConditionsModel::MessageColumn,
                                                             QHeaderView::Stretch);
    auto *overview = new QSplitter(Qt::Vertical, this);
    overview->addWidget(specStatus);
    overview->addWidget(titled(tr("Conditions"), conditionsView, overview));
    overview->setStretchFactor(0, 3);
    overview->setStretchFactor(1, 2);
    auto *timelineView = tableView(m_timeline, this);
    timelineView->setColumnHidden(models::TransitionTimelineModel::KeyColumn, true);
    overview->setObjectName(u"overview"_s);
    timelineView->setObjectName(u"timeline"_s);
    m_raw->setObjectName(u"raw"_s);
    m_tabs->addTab(overview, tr("Spec && Status"));
    m_tabs->addTab(timelineView, tr("Timeline"));
    m_tabs->addTab(m_raw, tr("Raw JSON"));
    m_tabs->setDocumentMode(true);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_header);
    layout->addWidget(m_tabs, 1);

    // Any move of the position may change the object (or its timeline, going back).
    connect(m_replay, &ReplayTimeline::positionChanged, this, &ReplayDetailPane::refresh);
    refresh();
}

ReplayDetailPane::~ReplayDetailPane() = default;

void ReplayDetailPane::showObject(const QString &key)
{
    m_key = key;
    refresh();
}

void ReplayDetailPane::refresh()
{
    const QList<models::Transition> history = m_replay->tracker().log().history(m_key);
    if (m_timeline->transitions() != history)
        m_timeline->setTransitions(history);
    const QByteArray bytes = m_key.isEmpty() ? QByteArray() : m_replay->object(m_key);
    const nlohmann::json object = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    const auto summary = object.is_object()
        ? models::ObjectSummary::fromJson(object, m_replay->cursor().mapping())
        : models::Result<models::ObjectSummary>(models::Error{ u"no object"_s });
    const QString at = m_replay->now().toString(Qt::ISODateWithMs);
    if (!summary) {
        m_header->setText(
            m_key.isEmpty()
                ? tr("<i>Select an object to see its spec, status, conditions and "
                     "transitions at the replay's moment.</i>")
                : tr("<b>%1</b> — does not exist at %2").arg(m_key.toHtmlEscaped(), at));
        m_spec->clear();
        m_status->clear();
        m_raw->clear();
        m_conditions->clear();
        return;
    }
    m_header->setText(objectHeaderHtml(summary.value(), m_replay->tracker().verdict(m_key))
                      + tr("<br><span style='color:#616161'>as recorded at %1</span>").arg(at));
    keepText(m_spec, prettyJson(models::jsonMember(object, "spec")));
    keepText(m_status, prettyJson(models::jsonMember(object, "status")));
    keepText(m_raw, prettyJson(object));
    m_conditions->setConditions(summary->conditions, summary->generation);
}

} // namespace reconscope::ui
