#include "models/resourcetablemodel.h"

#include "models/rfc3339.h"

#include <QSet>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace reconscope::models {

ResourceRow ResourceRow::fromSummary(const ObjectSummary &summary, const LifecycleVerdict &verdict)
{
    ResourceRow row;
    row.key = summary.key;
    row.namespaceName = summary.namespaceName;
    row.name = summary.name;
    row.resourceVersion = summary.resourceVersion;
    row.generation = summary.generation;
    row.observedGeneration = summary.observedGeneration;
    row.creationTimestamp = summary.creationTimestamp;
    row.state = verdict.state;
    row.reason = verdict.reason;
    row.message = verdict.message;
    return row;
}

void ResourceRow::setSince(const QDateTime &since,
                           const QDateTime &reported,
                           const QString &condition)
{
    stateSince = since;
    lastTransition = since;
    sinceCondition = since.isValid() && since == reported ? condition : QString();
}

bool ResourceRow::statusStale() const
{
    return generation && observedGeneration && *observedGeneration < *generation;
}

ResourceTableModel::ResourceTableModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_now(QDateTime::currentDateTimeUtc())
{ }

ResourceTableModel::~ResourceTableModel() = default;

void ResourceTableModel::count(const ResourceRow &row, int delta)
{
    m_counts[std::size_t(row.state)] += delta;
}

void ResourceTableModel::rebuildIndex(int from)
{
    for (int i = from; i < m_rows.size(); ++i)
        m_index.insert(m_rows[i].key, i);
}

void ResourceTableModel::clearRanks()
{
    m_ranks = {};
    m_rankColumn = -1;
    m_rankStep = 1;
}

void ResourceTableModel::extendRanks()
{
    if (m_ranks.isEmpty()) {
        // The first rows of an empty model start the ranks, in the order the views sort in.
        if (m_rows.isEmpty() || (m_sortColumn != NameColumn && m_sortColumn != NamespaceColumn))
            return;
        m_rankColumn = m_sortColumn;
        m_rankStep = m_sortOrder == Qt::AscendingOrder ? 1 : -1;
        m_ranks.reserve(m_rows.capacity());
        m_ranks.append(0);
    }
    // Only while every row is ranked: a row appended out of order ends the ranking.
    if (m_rankStep == 0 || m_ranks.size() == m_rows.size())
        return;
    for (qsizetype i = m_ranks.size(); i < m_rows.size(); ++i) {
        const int order = compareRows(m_rows[i - 1], m_rows[i], m_rankColumn) * m_rankStep;
        if (order > 0) {
            m_rankStep = 0;
            return;
        }
        m_ranks.append(m_ranks.constLast() + (order < 0 ? m_rankStep : 0));
    }
}

void ResourceTableModel::applyBatch(QList<ResourceRow> upserts, const QStringList &removals)
{
    const QSet<QString> removed(removals.cbegin(), removals.cend());

    // Removals: contiguous ranges, from the bottom so that earlier rows keep their numbers.
    QList<int> doomed;
    doomed.reserve(removals.size());
    for (const QString &key : removed) {
        const int row = m_index.value(key, -1);
        if (row >= 0)
            doomed.append(row);
    }
    std::sort(doomed.begin(), doomed.end());
    int lowestRemoved = int(m_rows.size());
    for (qsizetype end = doomed.size(); end > 0;) {
        qsizetype begin = end - 1;
        while (begin > 0 && doomed[begin - 1] == doomed[begin] - 1)
            --begin;
        const int first = doomed[begin];
        const int last = doomed[end - 1];
        beginRemoveRows({}, first, last);
        for (int row = first; row <= last; ++row) {
            count(m_rows[row], -1);
            m_index.remove(m_rows[row].key);
        }
        m_rows.remove(first, last - first + 1);
        // The ranks are the rows' own: the others keep theirs, in order.
        if (first < m_ranks.size())
            m_ranks.remove(first, std::min<qsizetype>(last + 1, m_ranks.size()) - first);
        endRemoveRows();
        lowestRemoved = first;
        end = begin;
    }
    if (!doomed.isEmpty())
        rebuildIndex(lowestRemoved);

    // Changes in place, then the new rows in one insertion at the end. A new key is indexed at
    // the row it will have (a row number past the end until the insertion) so that it is looked
    // up once, also when it comes twice in the batch.
    QList<int> changed;
    // The new rows stay where they are in `upserts` until inserted: their positions there.
    QList<qsizetype> added;
    const int first = int(m_rows.size());
    for (qsizetype i = 0; i < upserts.size(); ++i) {
        ResourceRow &row = upserts[i];
        if (!removed.isEmpty() && removed.contains(row.key))
            continue;
        // One look into the index per row: found, or added (a first list is all new keys).
        const qsizetype known = m_index.size();
        int &slot = m_index[row.key];
        if (m_index.size() != known) {
            slot = first + int(added.size());
            added.append(i);
        } else if (slot >= first) {
            upserts[added[slot - first]] = std::move(row); // the newer of a key twice in the batch
        } else {
            const int existing = slot;
            // (A key's name and namespace do not change; should they, its rank and those after
            // it go.)
            if (existing < m_ranks.size()
                && compareRows(m_rows[existing], row, m_rankColumn) != 0) {
                m_ranks.resize(existing);
                m_rankStep = 0;
            }
            count(m_rows[existing], -1);
            count(row, +1);
            m_rows[existing] = std::move(row);
            changed.append(existing);
        }
    }
    // One dataChanged per contiguous run of changed rows: a single signal spanning scattered rows
    // makes a sorting proxy re-check every row of the span.
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (qsizetype end = changed.size(); end > 0;) {
        qsizetype begin = end - 1;
        while (begin > 0 && changed[begin - 1] == changed[begin] - 1)
            --begin;
        // A key's name and namespace never change: leaving their columns out lets a proxy sorted
        // by name keep its order without re-sorting (it re-sorts only when the sort column is in
        // the changed range).
        emit dataChanged(index(changed[begin], StateColumn),
                         index(changed[end - 1], ColumnCount - 1));
        end = begin;
    }
    if (!added.isEmpty() && m_rows.isEmpty() && added.size() >= ResetThreshold) {
        // A first fill (the informer's initial list): one reset, so that a sorted proxy sorts
        // the rows once instead of placing each of them.
        beginResetModel();
        clearRanks();
        if (added.size() == upserts.size()) {
            m_rows = std::move(upserts);
        } else {
            m_rows.reserve(added.size());
            for (const qsizetype i : std::as_const(added))
                m_rows.append(std::move(upserts[i]));
        }
        for (const ResourceRow &row : std::as_const(m_rows))
            count(row, +1);
        extendRanks();
        endResetModel();
    } else if (!added.isEmpty()) {
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (const qsizetype i : std::as_const(added)) {
            count(upserts[i], +1);
            m_rows.append(std::move(upserts[i]));
        }
        // Ranked before the proxy places them (in endInsertRows).
        if (first == 0)
            clearRanks();
        extendRanks();
        endInsertRows();
    }
}

void ResourceTableModel::reserve(qsizetype rows)
{
    if (rows <= m_rows.capacity())
        return;
    // Exactly that much for a first fill; half as much again when rows are shown already (a list
    // arriving batch by batch would otherwise move every row at each batch).
    if (!m_rows.isEmpty())
        rows = std::max(rows, m_rows.capacity() + m_rows.capacity() / 2);
    m_rows.reserve(rows);
    m_index.reserve(rows);
}

void ResourceTableModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginResetModel();
    m_rows = {};
    m_index = {};
    m_counts.fill(0);
    clearRanks();
    endResetModel();
}

QList<ResourceRow> ResourceTableModel::takeRows()
{
    if (m_rows.isEmpty())
        return {};
    beginResetModel();
    QList<ResourceRow> rows = std::exchange(m_rows, {});
    m_index = {};
    m_counts.fill(0);
    clearRanks();
    endResetModel();
    return rows;
}

void ResourceTableModel::setListing(std::optional<qsizetype> received)
{
    if (received == m_listing)
        return;
    m_listing = received;
    emit listingChanged();
}

void ResourceTableModel::setNow(const QDateTime &now)
{
    m_now = now;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, AgeColumn),
                         index(int(m_rows.size()) - 1, LastTransitionColumn),
                         { Qt::DisplayRole });
}

void ResourceTableModel::setFights(QHash<QString, QStringList> fights)
{
    QList<int> changed;
    for (auto it = m_fights.cbegin(); it != m_fights.cend(); ++it) {
        if (fights.value(it.key()) != it.value())
            changed << rowOf(it.key());
    }
    for (auto it = fights.cbegin(); it != fights.cend(); ++it) {
        if (!m_fights.contains(it.key()))
            changed << rowOf(it.key());
    }
    const bool had = hasFights();
    m_fights = std::move(fights);
    if (had != hasFights())
        emit hasFightsChanged(hasFights());
    for (const int row : std::as_const(changed)) {
        if (row >= 0)
            emit dataChanged(index(row, FightsColumn), index(row, FightsColumn));
    }
}

const ResourceRow *ResourceTableModel::rowAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows[row] : nullptr;
}

const ResourceRow *ResourceTableModel::find(const QString &key) const
{
    return rowAt(rowOf(key));
}

int ResourceTableModel::countIn(LifecycleState state) const
{
    return m_counts[std::size_t(state)];
}

int ResourceTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ResourceTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ResourceTableModel::formatAge(qint64 msecs)
{
    const qint64 seconds = std::max<qint64>(0, msecs / 1000);
    if (seconds < 120)
        return u"%1s"_s.arg(seconds);
    if (seconds < 3600 * 3)
        return u"%1m"_s.arg(seconds / 60);
    if (seconds < 86400 * 2)
        return u"%1h"_s.arg(seconds / 3600);
    return u"%1d"_s.arg(seconds / 86400);
}

namespace {

template<typename T>
int compareValues(const T &a, const T &b)
{
    return a < b ? -1 : (b < a ? 1 : 0);
}

qint64 ageKey(const ResourceRow &row)
{
    // Oldest first when ascending, as SortRole gives it.
    return row.creationTimestamp.isValid() ? -row.creationTimestamp.toMSecsSinceEpoch() : qint64(0);
}

qint64 movedKey(const ResourceRow &row)
{
    return row.lastTransition.isValid() ? row.lastTransition.toMSecsSinceEpoch() : qint64(0);
}

} // namespace

int ResourceTableModel::compareRows(const ResourceRow &a, const ResourceRow &b, int column)
{
    switch (column) {
    case NameColumn:
        return a.name.compare(b.name);
    case NamespaceColumn:
        return a.namespaceName.compare(b.namespaceName);
    case StateColumn:
        return compareValues(int(a.state), int(b.state));
    case ReasonColumn:
        return a.reason.compare(b.reason);
    case GenerationColumn:
        return compareValues(a.generation.value_or(-1), b.generation.value_or(-1));
    case AgeColumn:
        return compareValues(ageKey(a), ageKey(b));
    case LastTransitionColumn:
        return compareValues(movedKey(a), movedKey(b));
    case FightsColumn: // not in the rows: the sorting view asks data()
        break;
    }
    return 0;
}

void ResourceTableModel::setPreferredOrder(int column, Qt::SortOrder order)
{
    m_sortColumn = column >= 0 && column < ColumnCount ? column : -1;
    m_sortOrder = order;
}

bool ResourceTableModel::preferredBefore(const ResourceRow &a, const ResourceRow &b) const
{
    if (m_sortColumn < 0)
        return false;
    const int order = compareRows(a, b, m_sortColumn);
    return m_sortOrder == Qt::AscendingOrder ? order < 0 : order > 0;
}

QVariant ResourceTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ResourceRow &row = m_rows[index.row()];
    switch (role) {
    case KeyRole:
        return row.key;
    case StateRole:
        return int(row.state);
    case StaleRole:
        return row.statusStale();
    case SortRole:
        switch (index.column()) {
        case StateColumn:
            return int(row.state);
        case GenerationColumn:
            return row.generation.value_or(-1);
        case AgeColumn:
            // Oldest first when ascending, like the age it shows.
            return ageKey(row);
        case LastTransitionColumn:
            return movedKey(row);
        case FightsColumn:
            return int(m_fights.value(row.key).size());
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return row.name;
        case NamespaceColumn:
            return row.namespaceName;
        case StateColumn:
            return lifecycleStateName(row.state);
        case ReasonColumn:
            return row.reason;
        case GenerationColumn: {
            const QString generation = row.generation ? QString::number(*row.generation) : u"–"_s;
            const QString observed
                = row.observedGeneration ? QString::number(*row.observedGeneration) : u"–"_s;
            return u"%1 / %2"_s.arg(generation, observed);
        }
        case AgeColumn:
            return row.creationTimestamp.isValid() ? formatAge(row.creationTimestamp.msecsTo(m_now))
                                                   : QString();
        case LastTransitionColumn:
            if (!row.lastTransition.isValid())
                return u"—"_s; // not seen, and the object does not say
            if (!row.sinceCondition.isEmpty())
                return tr("%1 ago (%2)")
                    .arg(formatAge(row.lastTransition.msecsTo(m_now)), row.sinceCondition);
            return formatAge(row.lastTransition.msecsTo(m_now)) + u" ago"_s;
        case FightsColumn: {
            const QStringList fights = m_fights.value(row.key);
            if (fights.isEmpty())
                return QString();
            return fights.size() == 1
                ? fights.first()
                : tr("%1 (+%2 more)").arg(fights.first()).arg(fights.size() - 1);
        }
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case StateColumn:
        case ReasonColumn:
            return row.message.isEmpty() ? row.reason : row.reason + u"\n"_s + row.message;
        case GenerationColumn:
            return row.statusStale()
                ? tr("Stale status: the controller has not observed generation %1 yet")
                      .arg(row.generation.value_or(0))
                : tr("metadata.generation / status.observedGeneration");
        case AgeColumn:
            return formatRfc3339(row.creationTimestamp);
        case LastTransitionColumn:
            if (!row.lastTransition.isValid())
                return tr("Unknown: the object was in this state when the watch connected (or "
                          "got there during a watch gap) and no condition says since when");
            if (!row.sinceCondition.isEmpty())
                return tr("%1, the %2 condition's lastTransitionTime (its move into this state "
                          "was not seen)")
                    .arg(formatRfc3339(row.lastTransition), row.sinceCondition);
            return formatRfc3339(row.lastTransition);
        case FightsColumn:
            return m_fights.value(row.key).join(u'\n');
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == GenerationColumn || index.column() == AgeColumn
            || index.column() == LastTransitionColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

QVariant ResourceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case NamespaceColumn:
        return tr("Namespace");
    case StateColumn:
        return tr("State");
    case ReasonColumn:
        return tr("Reason");
    case GenerationColumn:
        return tr("Gen / Obs.");
    case AgeColumn:
        return tr("Age");
    case LastTransitionColumn:
        return tr("Moved");
    case FightsColumn:
        return tr("Fights");
    }
    return {};
}

} // namespace reconscope::models
