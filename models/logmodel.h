#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <QList>
#include <QSortFilterProxyModel>
#include <QString>

#include <deque>

namespace reconscope::models {

// One log message as spdlog produced it.
struct LogRecord
{
    // spdlog's levels, in its order.
    enum Level { Trace, Debug, Info, Warn, Error, Critical };

    Level level = Info;
    QDateTime time; // UTC
    QString logger;
    QString text;

    static QString levelName(Level level); // "trace" ... "critical", as spdlog prints them
    // "2026-11-30T01:02:03.456Z warning [logger] text": what a log file line holds, and what the
    // text filters (and the Conflict count, the seed's `grep -i Conflict`) look at.
    QString line() const;
};

// The console's log: a bounded ring of records (the oldest go when the capacity is reached), fed
// in batches on the UI thread. Also counts the records that `grep -i Conflict` would print.
class LogModel final : public QAbstractListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogModel)

public:
    enum Role {
        LevelRole = Qt::UserRole + 1, // int(LogRecord::Level)
        TimeRole, // QDateTime
        LoggerRole,
        TextRole,
        ConflictRole, // bool: the line contains "conflict", case-insensitively
    };

    explicit LogModel(int capacity = 10000, QObject *parent = nullptr);
    ~LogModel() override;

    int capacity() const { return m_capacity; }
    // Shrinking drops the oldest records.
    void setCapacity(int capacity);

    // Appends one batch (one insertion; evictions are one removal before it; the count signal
    // once).
    void append(const QList<LogRecord> &records);
    void clear();

    const LogRecord &record(int row) const { return m_records[std::size_t(row)]; }
    // How many of the records held match `grep -i Conflict`.
    int conflictCount() const { return m_conflicts; }
    // Records ever appended (evicted ones included).
    qint64 totalAppended() const { return m_total; }

    static bool isConflict(const LogRecord &record);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

signals:
    void conflictCountChanged(int count);

private:
    void evict(int count);

    std::deque<LogRecord> m_records;
    std::deque<bool> m_conflict;
    int m_capacity;
    int m_conflicts = 0;
    qint64 m_total = 0;
};

// The log pane's filters over a LogModel: a minimum level, a text (a case-insensitive substring of
// the line), and "Conflict only".
class LogFilterModel final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogFilterModel)

public:
    explicit LogFilterModel(QObject *parent = nullptr);
    ~LogFilterModel() override;

    void setMinimumLevel(LogRecord::Level level);
    LogRecord::Level minimumLevel() const { return m_minimumLevel; }
    void setText(const QString &text);
    QString text() const { return m_text; }
    void setConflictOnly(bool on);
    bool conflictOnly() const { return m_conflictOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    LogRecord::Level m_minimumLevel = LogRecord::Trace;
    QString m_text;
    bool m_conflictOnly = false;
};

} // namespace reconscope::models
