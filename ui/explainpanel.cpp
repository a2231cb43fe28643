#include "ui/explainpanel.h"

#include "controller/console/consoleexplainer.h"
#include "controller/console/consolesession.h"
#include "ui/statepalette.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleExplainer;
using controller::console::ConsoleSession;
using controller::troubleshoot::Cause;
using controller::troubleshoot::Explanation;

ExplainPanel::ExplainPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_explainer(new ConsoleExplainer(session, this))
    , m_summary(new QLabel(this))
    , m_causes(new QTreeWidget(this))
    , m_again(new QPushButton(tr("Explain again"), this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_causes->setColumnCount(2);
    m_causes->setHeaderLabels({ tr("Cause"), tr("Rule") });
    m_causes->header()->setStretchLastSection(false);
    m_causes->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_causes->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_causes->setWordWrap(true);
    m_causes->setTextElideMode(Qt::ElideNone);
    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_again, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_causes, 1);

    connect(m_again, &QPushButton::clicked, this, &ExplainPanel::explainNow);
    connect(m_explainer, &ConsoleExplainer::explained, this, &ExplainPanel::handleExplained);
    connect(m_explainer, &ConsoleExplainer::failed, this, &ExplainPanel::handleFailed);
    connect(m_session, &ConsoleSession::objectsChanged, this, [this](const QStringList &upserted) {
        handleObjectsChanged(upserted);
    });
    m_summary->setText(tr("Select an object to see why it is not Ready."));
}

ExplainPanel::~ExplainPanel() = default;

void ExplainPanel::showObject(const QString &key)
{
    if (key == m_key)
        return;
    m_key = key;
    m_stale = true;
    m_causes->clear();
    m_explanation = {};
    m_summary->setText(key.isEmpty() ? tr("Select an object to see why it is not Ready.")
                                     : tr("Explaining %1…").arg(key.toHtmlEscaped()));
    if (isVisible())
        explainNow();
}

void ExplainPanel::explainNow()
{
    if (m_key.isEmpty())
        return;
    m_stale = false;
    m_explainer->explain(m_key);
}

void ExplainPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        explainNow();
}

void ExplainPanel::handleObjectsChanged(const QStringList &upserted)
{
    if (m_key.isEmpty() || !upserted.contains(m_key))
        return;
    m_stale = true;
    if (isVisible())
        explainNow();
}

void ExplainPanel::handleExplained(const QString &key, const Explanation &explanation)
{
    if (key != m_key)
        return;
    m_explanation = explanation;
    const QColor accent = stateColors(explanation.state).accent;
    QString summary = u"<b>%1</b> is <b style=\"color:%2\">%3</b>"_s.arg(
        key.toHtmlEscaped(), accent.name(), models::lifecycleStateName(explanation.state));
    if (!explanation.stateReason.isEmpty())
        summary += u" (%1)"_s.arg(explanation.stateReason.toHtmlEscaped());
    summary += explanation.causes.isEmpty()
        ? tr(": nothing is wrong that the rules see.")
        : (explanation.causes.size() == 1
               ? tr(": one cause.")
               : tr(": %1 causes, most likely first.").arg(explanation.causes.size()));
    m_summary->setText(summary);
    m_causes->clear();
    int rank = 0;
    for (const Cause &cause : explanation.causes) {
        auto *item = new QTreeWidgetItem(
            m_causes,
            QStringList{ u"%1. %2"_s.arg(++rank).arg(cause.summary),
                         controller::troubleshoot::causeKindName(cause.kind) });
        item->setToolTip(0, cause.summary);
        if (rank == 1) {
            QFont bold = item->font(0);
            bold.setBold(true);
            item->setFont(0, bold);
        }
        for (const QString &line : cause.evidence) {
            auto *evidence = new QTreeWidgetItem(item, QStringList{ line });
            evidence->setToolTip(0, line);
        }
        item->setExpanded(true);
    }
    if (!explanation.lookedAt.isEmpty()) {
        auto *looked = new QTreeWidgetItem(m_causes, QStringList{ tr("What was read") });
        for (const QString &line : explanation.lookedAt)
            new QTreeWidgetItem(looked, QStringList{ line });
    }
    emit explanationShown(key);
}

void ExplainPanel::handleFailed(const QString &key, const QString &message)
{
    if (key != m_key)
        return;
    m_summary->setText(
        tr("Could not explain %1: %2").arg(key.toHtmlEscaped(), message.toHtmlEscaped()));
    m_causes->clear();
}

} // namespace reconscope::ui
