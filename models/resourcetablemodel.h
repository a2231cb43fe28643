#pragma once

#include "models/lifecycle.h"
#include "models/objectsummary.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QStringList>

#include <array>
#include <optional>

namespace reconscope::models {

// One row of the resource table: what the table shows of an object, taken from its summary (the
// informer keeps the whole summary; a row holds only these, its strings shared with it) and from
// what the lifecycle rules and the transition log say about it.
struct ResourceRow
{
    QString key; // "namespace/name"
    QString namespaceName;
    QString name;
    QString resourceVersion; // of the summary the row was made from
    std::optional<qint64> generation; // metadata.generation
    std::optional<qint64> observedGeneration; // status.observedGeneration
    QDateTime creationTimestamp;
    LifecycleState state = LifecycleState::Unknown;
    QString reason; // the verdict's reason and message
    QString message;
    QDateTime stateSince; // when it entered its current state (invalid when unknown)
    QDateTime lastTransition; // the time of its last transition (as stateSince)
    // The condition whose lastTransitionTime stateSince is, when the move into the state was not
    // seen (the object was there at connect, or moved during a watch gap); empty when it was.
    QString sinceCondition;

    friend bool operator==(const ResourceRow &, const ResourceRow &) = default;

    static ResourceRow fromSummary(const ObjectSummary &summary, const LifecycleVerdict &verdict);
    // The row's times from when the tracker says the object entered its state (`since`) and what
    // its verdict reported (`reported`, from `condition`'s lastTransitionTime): sinceCondition is
    // kept only when the two agree, i.e. the move was not seen and the object's word was taken.
    void setSince(const QDateTime &since, const QDateTime &reported, const QString &condition);
    // generation > observedGeneration: the status describes an older spec.
    bool statusStale() const;
};

// The objects of one resource, one row each. Changes arrive in batches (one per informer tick):
// new rows are inserted with one beginInsertRows at the end, removed rows in contiguous ranges,
// changed rows with one dataChanged per contiguous run; the model is never reset per event, so a
// QSortFilterProxyModel on top sorts a batch at a time and selections survive.
class ResourceTableModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourceTableModel)

public:
    enum Column {
        NameColumn,
        NamespaceColumn,
        StateColumn,
        ReasonColumn,
        GenerationColumn,
        AgeColumn,
        LastTransitionColumn,
        FightsColumn, // the object's field-manager fights, as setFights() last said
        ColumnCount
    };
    enum Role {
        KeyRole = Qt::UserRole + 1, // "namespace/name"
        StateRole, // int(LifecycleState)
        StaleRole, // bool: generation > observedGeneration
        SortRole, // a value that sorts naturally (times as ms since epoch, state by enum order)
    };

    explicit ResourceTableModel(QObject *parent = nullptr);
    ~ResourceTableModel() override;

    // A first batch of at least this many rows into an empty model is one reset, not an insert.
    static constexpr qsizetype ResetThreshold = 5000;

    // One tick's changes: rows to insert or replace (by summary.key) and keys to remove. A key in
    // both lists is removed.
    void applyBatch(QList<ResourceRow> upserts, const QStringList &removals);
    // Room for this many rows in all (a large first list inserted in slices grows no further).
    void reserve(qsizetype rows);
    void clear();
    // Every row, taken out of the model (one reset): a first list whose rows would land among
    // those shown goes in again whole, in order, once complete.
    QList<ResourceRow> takeRows();
    // While a first list is arriving: the objects received so far (the table may show fewer of
    // them); nullopt once it is complete.
    void setListing(std::optional<qsizetype> received);
    std::optional<qsizetype> listing() const { return m_listing; }
    // The reference time of the Age column (the model does not read the clock itself).
    void setNow(const QDateTime &now);
    // The field-manager fights going on, one line each, by object key (the console's fight
    // detector; the model keeps them apart from the rows, which are made from summaries alone).
    // Replaces the previous set: rows whose text changed are announced.
    void setFights(QHash<QString, QStringList> fights);
    QStringList fightsOf(const QString &key) const { return m_fights.value(key); }
    bool hasFights() const { return !m_fights.isEmpty(); }

    int rowOf(const QString &key) const { return m_index.value(key, -1); }
    const ResourceRow *rowAt(int row) const;
    const ResourceRow *find(const QString &key) const;
    // Objects per lifecycle state, kept up to date with every batch.
    int countIn(LifecycleState state) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // "5s", "3m", "2h", "4d" as kubectl prints ages.
    static QString formatAge(qint64 msecs);

    // The rows' natural order in a column (-1, 0, 1), as a sorting view shows them: names and
    // namespaces as case-sensitive strings, states in enum order, generations and times as numbers
    // (ages oldest first). The same order as SortRole, without a QVariant per comparison.
    static int compareRows(const ResourceRow &a, const ResourceRow &b, int column);
    // The order the views sort the rows in (column -1: none), set by the view that sorts. Large
    // batches are inserted in this order, so that a sorting proxy places each batch as one block
    // at its end instead of row by row.
    void setPreferredOrder(int column, Qt::SortOrder order);
    int preferredSortColumn() const { return m_sortColumn; }
    Qt::SortOrder preferredSortOrder() const { return m_sortOrder; }
    // Whether `a` comes strictly before `b` in the preferred order.
    bool preferredBefore(const ResourceRow &a, const ResourceRow &b) const;
    // compareRows(row a, row b, column) < 0 from two integers, when both rows are among those
    // ranked in that column; nullopt otherwise. Rows appended to an empty model in the order of
    // the preferred column (names or namespaces, either way), as a first list is, are ranked as
    // they come (one comparison with the row before each), so that a sorting proxy placing them
    // compares numbers instead of strings. The ranks of the rows before a row appended out of
    // that order stay; removals keep the others'; a name or namespace never changes for a key.
    std::optional<bool> rankedLess(int a, int b, int column) const
    {
        if (column != m_rankColumn || a < 0 || b < 0 || a >= m_ranks.size() || b >= m_ranks.size())
            return std::nullopt;
        return m_ranks[a] < m_ranks[b];
    }
    int rankedRows() const { return int(m_ranks.size()); }

signals:
    void listingChanged();
    // setFights() changed whether any object has a fight (views show the column only then).
    void hasFightsChanged(bool hasFights);

private:
    void rebuildIndex(int from);
    void count(const ResourceRow &row, int delta);
    // Ranks the rows appended since the last ranked one while they keep the ranked order.
    void extendRanks();
    void clearRanks();

    QList<ResourceRow> m_rows;
    QHash<QString, int> m_index;
    std::array<int, LifecycleStateCount> m_counts{};
    QDateTime m_now;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    std::optional<qsizetype> m_listing;
    QHash<QString, QStringList> m_fights;
    // The ranks of rows [0, m_ranks.size()) in m_rankColumn (-1: none): equal values equal ranks,
    // ranks ascending with the values; the rows were appended ascending (m_rankStep 1) or
    // descending (-1).
    QList<qint32> m_ranks;
    int m_rankColumn = -1;
    int m_rankStep = 1;
};

} // namespace reconscope::models

// Its members (strings, times, optionals of integers) may be moved in memory as bytes: a QList of
// rows grows and inserts with memmove instead of moving each row.
Q_DECLARE_TYPEINFO(reconscope::models::ResourceRow, Q_RELOCATABLE_TYPE);
