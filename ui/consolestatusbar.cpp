#include "ui/consolestatusbar.h"

#include "controller/console/consolesession.h"

#include <QLabel>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

using controller::kube::ReflectorState;

ConsoleStatusBar::ConsoleStatusBar(ConsoleSession *session, QWidget *parent)
    : QStatusBar(parent)
    , m_session(session)
    , m_connection(new QLabel(this))
    , m_rate(new QLabel(this))
    , m_context(new QLabel(this))
    , m_badge(new QLabel(this))
    , m_countdown(new QTimer(this))
{
    m_connection->setMinimumWidth(m_connection->fontMetrics().horizontalAdvance(
        u"● reconnecting in 30 s (connection refused)"_s));
    m_rate->setMinimumWidth(m_rate->fontMetrics().horizontalAdvance(u"99999 events/s"_s));
    m_rate->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_badge->setContentsMargins(8, 1, 8, 1);
    addWidget(m_connection);
    addWidget(m_context, 1);
    addPermanentWidget(m_rate);
    addPermanentWidget(m_badge);

    m_countdown->setInterval(250);
    connect(m_countdown, &QTimer::timeout, this, &ConsoleStatusBar::updateConnection);
    connect(
        m_session, &ConsoleSession::connectionStateChanged, this, &ConsoleStatusBar::handleState);
    connect(m_session, &ConsoleSession::eventRateChanged, this, [this](double rate) {
        m_rate->setText(tr("%1 events/s").arg(rate, 0, 'f', 0));
    });
    connect(m_session,
            &ConsoleSession::connected,
            this,
            [this](const QString &context, const QString &url) {
                m_context->setText(m_session->isDemo() ? tr("demo · embedded cluster %1").arg(url)
                                                       : tr("context %1 · %2").arg(context, url));
            });
    connect(m_session, &ConsoleSession::connectionFailed, this, [this](const QString &message) {
        m_context->setText(message);
    });
    connect(m_session, &ConsoleSession::writesEnabledChanged, this, &ConsoleStatusBar::updateBadge);
    m_rate->setText(tr("0 events/s"));
    m_context->setText(tr("not connected"));
    handleState(m_session->connectionState());
    updateBadge(m_session->writesEnabled());
}

ConsoleStatusBar::~ConsoleStatusBar() = default;

void ConsoleStatusBar::handleState(const ReflectorState &state)
{
    m_state = state;
    if (state.phase == ReflectorState::Phase::Reconnecting) {
        m_retryDeadline = QDeadlineTimer(state.retryInMs);
        m_countdown->start();
    } else {
        m_countdown->stop();
    }
    updateConnection();
}

void ConsoleStatusBar::updateConnection()
{
    QString text;
    QString colour = u"#2e7d32"_s;
    switch (m_state.phase) {
    case ReflectorState::Phase::Idle:
        text = tr("not watching");
        colour = u"#757575"_s;
        break;
    case ReflectorState::Phase::Listing:
        text = tr("listing");
        colour = u"#1565c0"_s;
        break;
    case ReflectorState::Phase::Watching:
        text = tr("watching");
        break;
    case ReflectorState::Phase::Relisting:
        text = tr("relisting");
        colour = u"#1565c0"_s;
        break;
    case ReflectorState::Phase::Reconnecting: {
        const qint64 seconds = (m_retryDeadline.remainingTime() + 999) / 1000;
        text = tr("reconnecting in %1 s").arg(std::max<qint64>(0, seconds));
        colour = u"#c62828"_s;
        break;
    }
    }
    m_connection->setText(
        u"<span style='color:%1'>●</span> %2"_s.arg(colour, text.toHtmlEscaped()));
    m_connection->setToolTip(m_state.lastError);
}

void ConsoleStatusBar::updateBadge(bool writesEnabled)
{
    if (writesEnabled) {
        m_badge->setText(m_session->isDemo() ? tr("DEMO · writable") : tr("WRITES ENABLED"));
        m_badge->setStyleSheet(
            u"QLabel { background: #2e7d32; color: white; font-weight: bold; border-radius: 4px; }"_s);
        m_badge->setToolTip(tr("Patches and edits go to the cluster"));
    } else {
        m_badge->setText(tr("READ-ONLY"));
        m_badge->setStyleSheet(
            u"QLabel { background: #c62828; color: white; font-weight: bold; border-radius: 4px; }"_s);
        m_badge->setToolTip(tr("Enable writes for this context in the Cluster panel"));
    }
}

QString ConsoleStatusBar::connectionText() const
{
    return m_connection->text();
}

QString ConsoleStatusBar::rateText() const
{
    return m_rate->text();
}

QString ConsoleStatusBar::badgeText() const
{
    return m_badge->text();
}

QString ConsoleStatusBar::contextText() const
{
    return m_context->text();
}

} // namespace reconscope::ui
