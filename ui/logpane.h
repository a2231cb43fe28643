#pragma once

#include "models/logmodel.h"

#include <spdlog/common.h>

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QToolButton;

namespace reconscope::ui {

class LogSink;

// The log pane: spdlog's messages as they come (LogSink batches them onto the
// UI thread), with a minimum level, a text filter and the one-click "Conflict" filter that shows
// how many lines `grep -i Conflict` would print. sink() is what to add to the program's logger.
class LogPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogPane)

public:
    explicit LogPane(QWidget *parent = nullptr, int capacity = 10000);
    ~LogPane() override;

    models::LogModel *model() const { return m_model; }
    models::LogFilterModel *filter() const { return m_filter; }
    spdlog::sink_ptr sink() const;
    LogSink *logSink() const { return m_sink; }

    void setMinimumLevel(models::LogRecord::Level level);
    void setFilterText(const QString &text);
    void setConflictOnly(bool on);

    QToolButton *conflictButton() const { return m_conflict; }
    QComboBox *levelPicker() const { return m_level; }
    QLineEdit *textFilter() const { return m_text; }
    QListView *view() const { return m_view; }
    QLabel *countLabel() const { return m_count; }

private:
    void updateCounts();

    models::LogModel *m_model;
    models::LogFilterModel *m_filter;
    LogSink *m_sink;
    QComboBox *m_level;
    QLineEdit *m_text;
    QToolButton *m_conflict;
    QToolButton *m_clear;
    QLabel *m_count;
    QListView *m_view;
};

} // namespace reconscope::ui
