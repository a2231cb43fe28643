#include "ui/logpane.h"

#include "ui/logsink.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using models::LogRecord;

LogPane::LogPane(QWidget *parent, int capacity)
    : QWidget(parent)
    , m_model(new models::LogModel(capacity, this))
    , m_filter(new models::LogFilterModel(this))
    , m_sink(new LogSink(m_model, this))
    , m_level(new QComboBox(this))
    , m_text(new QLineEdit(this))
    , m_conflict(new QToolButton(this))
    , m_clear(new QToolButton(this))
    , m_count(new QLabel(this))
    , m_view(new QListView(this))
{
    setWindowTitle(tr("Log"));
    m_filter->setSourceModel(m_model);
    for (int level = LogRecord::Trace; level <= LogRecord::Critical; ++level)
        m_level->addItem(LogRecord::levelName(LogRecord::Level(level)), level);
    m_level->setToolTip(tr("The least severe level shown"));
    m_text->setPlaceholderText(tr("Filter (case-insensitive)"));
    m_text->setClearButtonEnabled(true);
    m_conflict->setCheckable(true);
    m_conflict->setObjectName(u"conflictFilter"_s);
    m_conflict->setToolTip(tr("Only lines containing \"conflict\" (grep -i Conflict)"));
    m_clear->setText(tr("Clear"));
    m_view->setModel(m_filter);
    m_view->setUniformItemSizes(true);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_level);
    bar->addWidget(m_text, 1);
    bar->addWidget(m_conflict);
    bar->addWidget(m_clear);
    bar->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_level, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setMinimumLevel(LogRecord::Level(m_level->currentData().toInt()));
        updateCounts();
    });
    connect(m_text, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_filter->setText(text);
        updateCounts();
    });
    connect(m_conflict, &QToolButton::toggled, this, [this](bool on) {
        m_filter->setConflictOnly(on);
        updateCounts();
    });
    connect(m_clear, &QToolButton::clicked, m_model, &models::LogModel::clear);
    connect(m_model, &models::LogModel::conflictCountChanged, this, &LogPane::updateCounts);
    connect(m_model, &models::LogModel::modelReset, this, &LogPane::updateCounts);
    // Follow the tail while the view is scrolled to the bottom.
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, [this] {
        QScrollBar *bar = m_view->verticalScrollBar();
        if (bar->value() >= bar->maximum() - 2)
            m_view->scrollToBottom();
        updateCounts();
    });
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &LogPane::updateCounts);
    m_level->setCurrentIndex(m_level->findData(int(LogRecord::Info)));
    updateCounts();
}

LogPane::~LogPane() = default;

spdlog::sink_ptr LogPane::sink() const
{
    return m_sink->sink();
}

void LogPane::setMinimumLevel(LogRecord::Level level)
{
    m_level->setCurrentIndex(m_level->findData(int(level)));
}

void LogPane::setFilterText(const QString &text)
{
    m_text->setText(text);
}

void LogPane::setConflictOnly(bool on)
{
    m_conflict->setChecked(on);
}

void LogPane::updateCounts()
{
    m_conflict->setText(tr("Conflict (%1)").arg(m_model->conflictCount()));
    m_count->setText(tr("%1 of %2 lines").arg(m_filter->rowCount()).arg(m_model->rowCount()));
}

} // namespace reconscope::ui
