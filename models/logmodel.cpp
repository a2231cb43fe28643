#include "models/logmodel.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::models {

QString LogRecord::levelName(Level level)
{
    switch (level) {
    case Trace:
        return u"trace"_s;
    case Debug:
        return u"debug"_s;
    case Info:
        return u"info"_s;
    case Warn:
        return u"warning"_s;
    case Error:
        return u"error"_s;
    case Critical:
        return u"critical"_s;
    }
    return {};
}

QString LogRecord::line() const
{
    QString out = time.toUTC().toString(u"yyyy-MM-ddTHH:mm:ss.zzzZ"_s) + u' ' + levelName(level);
    if (!logger.isEmpty())
        out += u" ["_s + logger + u']';
    out += u' ' + text;
    return out;
}

LogModel::LogModel(int capacity, QObject *parent)
    : QAbstractListModel(parent)
    , m_capacity(std::max(1, capacity))
{ }

LogModel::~LogModel() = default;

bool LogModel::isConflict(const LogRecord &record)
{
    return record.line().contains(u"conflict"_s, Qt::CaseInsensitive);
}

void LogModel::setCapacity(int capacity)
{
    m_capacity = std::max(1, capacity);
    if (int(m_records.size()) > m_capacity) {
        const int before = m_conflicts;
        evict(int(m_records.size()) - m_capacity);
        if (m_conflicts != before)
            emit conflictCountChanged(m_conflicts);
    }
}

void LogModel::evict(int count)
{
    if (count <= 0)
        return;
    beginRemoveRows({}, 0, count - 1);
    for (int i = 0; i < count; ++i) {
        if (m_conflict.front())
            --m_conflicts;
        m_records.pop_front();
        m_conflict.pop_front();
    }
    endRemoveRows();
}

void LogModel::append(const QList<LogRecord> &records)
{
    if (records.isEmpty())
        return;
    m_total += records.size();
    // Only the newest `capacity` of the batch can stay.
    const qsizetype skip = std::max<qsizetype>(0, records.size() - m_capacity);
    const int incoming = int(records.size() - skip);
    const int overflow = int(m_records.size()) + incoming - m_capacity;
    const int before = m_conflicts;
    evict(overflow);
    const int first = int(m_records.size());
    beginInsertRows({}, first, first + incoming - 1);
    for (qsizetype i = skip; i < records.size(); ++i) {
        const bool conflict = isConflict(records[i]);
        m_records.push_back(records[i]);
        m_conflict.push_back(conflict);
        if (conflict)
            ++m_conflicts;
    }
    endInsertRows();
    if (m_conflicts != before)
        emit conflictCountChanged(m_conflicts);
}

void LogModel::clear()
{
    if (m_records.empty())
        return;
    beginResetModel();
    m_records.clear();
    m_conflict.clear();
    endResetModel();
    if (m_conflicts != 0) {
        m_conflicts = 0;
        emit conflictCountChanged(0);
    }
}

int LogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_records.size());
}

QVariant LogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LogRecord &r = m_records[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return r.line();
    case Qt::ToolTipRole:
        return r.text;
    case LevelRole:
        return int(r.level);
    case TimeRole:
        return r.time;
    case LoggerRole:
        return r.logger;
    case TextRole:
        return r.text;
    case ConflictRole:
        return m_conflict[std::size_t(index.row())];
    default:
        return {};
    }
}

QHash<int, QByteArray> LogModel::roleNames() const
{
    auto names = QAbstractListModel::roleNames();
    names.insert(LevelRole, "level");
    names.insert(TimeRole, "time");
    names.insert(LoggerRole, "logger");
    names.insert(TextRole, "text");
    names.insert(ConflictRole, "conflict");
    return names;
}

LogFilterModel::LogFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{ }

LogFilterModel::~LogFilterModel() = default;

void LogFilterModel::setMinimumLevel(LogRecord::Level level)
{
    if (level == m_minimumLevel)
        return;
    m_minimumLevel = level;
    invalidateRowsFilter();
}

void LogFilterModel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

void LogFilterModel::setConflictOnly(bool on)
{
    if (on == m_conflictOnly)
        return;
    m_conflictOnly = on;
    invalidateRowsFilter();
}

bool LogFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (index.data(LogModel::LevelRole).toInt() < int(m_minimumLevel))
        return false;
    if (m_conflictOnly && !index.data(LogModel::ConflictRole).toBool())
        return false;
    if (!m_text.isEmpty()
        && !index.data(Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive))
        return false;
    return true;
}

} // namespace reconscope::models
