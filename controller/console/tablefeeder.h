#pragma once

#include "controller/console/sortedruns.h"
#include "models/lifecyclemapping.h"
#include "models/lifecycletracker.h"
#include "models/objectsummary.h"
#include "models/resourcetablemodel.h"

#include <QObject>
#include <QStringList>

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

class QElapsedTimer;
class QThreadPool;
class QTimer;

namespace reconscope::controller::kube {
class InformerStore;
struct InformerEntry;
} // namespace reconscope::controller::kube

namespace reconscope::controller::console {

class JoinedTask;

// Feeds one informer's batches into the lifecycle tracker and the resource table model, on the
// thread it lives on (the console's UI thread), without holding that thread for long: a batch too
// large for one event-loop turn (the first list of a big resource) is built over several turns in
// sorted runs (SortedRuns), merged, then inserted a slice per turn, so that a sorting proxy places
// each slice as one block; later batches wait behind it, in order. A first list whose keys come in
// the order shown is streamed instead: each chunk goes into the table while the next is prepared.
//
// Threads: the tracker and the table model belong to the feeder's thread, and only that thread
// (the console's UI thread) writes either. Per-object derivation of a large batch (store lookups,
// verdicts, rows: pure, no tracker, no table) runs on one pool thread beside it within a turn, as
// a JoinedTask, while the feeder's thread records the chunk derived before it; no task outlives
// the turn that started it. Read the tracker from the feeder's signals or between turns, never
// from a slot of the table model's own signals.
class TableFeeder final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TableFeeder)

public:
    explicit TableFeeder(QObject *parent = nullptr);
    ~TableFeeder() override;

    // The time a large batch may hold the thread per event-loop turn before it yields, 16 ms by
    // default (0: one chunk of rows per turn, each a sorted run of its own).
    static constexpr qint64 DefaultTurnBudgetNs = 16'000'000;
    void setTurnBudget(std::chrono::nanoseconds budget) { m_turnBudgetNs = budget.count(); }

    // The lifecycle rules rows are judged by (joins the pool's work first: it reads them).
    void setMapping(const models::LifecycleMapping &mapping);
    const models::LifecycleMapping &mapping() const { return m_mapping; }

    // Starts over with `informer` (not owned): pending work dropped, the tracker and the table
    // cleared (trackerReset), its batches fed from now on. Its first list is awaited.
    void attach(kube::InformerStore *informer);
    // Stops feeding (joins the pool's work, drops pending batches): call before the informer goes.
    void detach();

    const models::LifecycleTracker &tracker() const { return m_tracker; }
    models::ResourceTableModel *tableModel() const { return m_table; }
    // Watch changes applied per second over the last second.
    double eventsPerSecond() const { return m_eventsPerSecond; }

signals:
    // One tick's lifecycle transitions, after the table model was updated; the first list's
    // objects come as their census entries (Observed::AtConnect), a relist's moves across a gap.
    void transitionsObserved(const QList<reconscope::models::Transition> &transitions);
    // The objects of one tick (upserted, removed), after the table model was updated.
    void objectsChanged(const QStringList &upserted, const QStringList &removed);
    void trackerReset();
    void eventRateChanged(double eventsPerSecond);

private:
    struct PreparedRow
    {
        models::ResourceRow row;
        // Its upsert moved it, from `from` (-1: [*]) to the row's state at its stateSince: the
        // transition the tracker's log recorded, made again from the row when its slice is
        // inserted.
        bool moved = false;
        qint8 from = -1;
        models::Observed how = models::Observed::Live;
        QDateTime seen; // when the move (or census entry) was seen
        // Shown and announced (objectsChanged) before: a first-list row taken back out of the
        // table to go in again in order; not announced again.
        bool announced = false;
        models::Transition transition() const;
    };
    struct PendingBatch
    {
        QStringList upserted;
        QStringList removed;
        QList<models::ObjectSummary> superseded; // InformerStore::statesSuperseded, tracked first
        // How its objects were seen: the first list's are the census, a relist's (after a watch
        // gap) moved across the gap, others live.
        models::Observed observed = models::Observed::Live;
        qsizetype prepared = 0; // keys of `upserted` looked at
        std::vector<PreparedRow> rows;
        SortedRuns order; // indexes of `rows`
        std::size_t inserted = 0; // rows inserted into the table
        // Part of the first list (delivered as it streams in, before the store is synced), and
        // the one that completed it.
        bool listing = false;
        bool closesList = false;
        // A first list into an empty table whose keys come in the order shown (names or
        // namespaces, as a list is ordered): each chunk of rows, derived on the pool and recorded
        // here, goes into the table while the pool derives the next one, instead of all rows being
        // built, then sorted, then inserted (streamInsert). `streamed`: recorded, not yet shown.
        bool streaming = false;
        std::vector<PreparedRow> streamed;
    };
    // What a row of a large batch needs that involves no tracker: the store's entry, its verdict
    // and the row made from both (its times come from the tracker). Pure, so that the next chunk
    // of keys is derived on m_preparePool while this thread records the chunk before it.
    struct DerivedRow
    {
        const kube::InformerEntry *entry = nullptr;
        models::LifecycleVerdict verdict;
        models::ResourceRow row;
    };
    // How a step of processPending() ended: the batch goes on to its next step; processing stops
    // for this turn (the turn's time is up and the pending timer started, a held first list waits
    // for its last batch, or the informer restarted meanwhile and the batch is gone); or the
    // front batch was finished or replaced (by a held first list) and is looked at again.
    enum class Step { Next, Stop, Again };

    // Rows per slice of a large batch; a batch of at most this many rows is applied at once.
    static constexpr qsizetype SliceRows = 2000;
    static constexpr qsizetype ChunkRows = 512;
    static constexpr qsizetype FirstChunkRows = 64;

    void handleObjectsChanged(const QStringList &upserted, const QStringList &removed);
    void handleSynced();
    void handleRateTick();
    void applyNow(const QStringList &upserted,
                  const QStringList &removed,
                  const QList<models::ObjectSummary> &superseded = {},
                  models::Observed observed = models::Observed::Live);
    // Runs the superseded states of a batch through the tracker, before its latest states.
    void trackSuperseded(const QList<models::ObjectSummary> &states,
                         const QDateTime &now,
                         models::Observed observed,
                         QList<models::Transition> *transitions);
    models::ResourceRow buildRow(const kube::InformerEntry &entry,
                                 const QDateTime &now,
                                 models::Observed observed,
                                 std::optional<models::Transition> *transition);

    // The pending batches, front first, until the turn's time is up.
    void processPending();
    // The steps of the front batch, in order.
    Step startStreaming(PendingBatch &batch);
    Step streamRows(PendingBatch &batch, const QElapsedTimer &turn);
    Step buildRows(PendingBatch &batch, const QElapsedTimer &turn);
    Step mergeRuns(PendingBatch &batch, const QElapsedTimer &turn);
    Step insertSlices(PendingBatch &batch, const QElapsedTimer &turn);
    Step finishBatch(PendingBatch &batch, const QElapsedTimer &turn);
    // Whether the turn's time is up (and if so the pending timer started).
    bool yield(const QElapsedTimer &turn);
    // The rows pushed since the batch's last run closed, sorted as one run.
    void closeRun(PendingBatch &batch);
    // Whether the table has an order (a sort column); rowsBefore compares two rows of a batch
    // by their indexes in it, in that order.
    bool ordered() const;
    auto rowsBefore(const PendingBatch &batch) const
    {
        return [this, &batch](std::uint32_t a, std::uint32_t b) {
            return m_table->preferredBefore(batch.rows[a].row, batch.rows[b].row);
        };
    }

    // Whether a first-list batch, sorted, goes after every row shown (so that the sorted proxy
    // takes it as one block at its end).
    bool listAppends(const PendingBatch &batch) const;
    // The first list's rows would land among those shown: the table gives its rows back and the
    // rest of the list joins the front batch, inserted in order once complete.
    void holdFirstList();
    void deriveRows(const QStringList &keys,
                    qsizetype from,
                    qsizetype to,
                    std::vector<DerivedRow> *out) const;
    // A derived row through the tracker: the row with its times, and the move it made.
    PreparedRow record(DerivedRow &derived, const QDateTime &now, models::Observed observed);
    // The derived rows through the tracker (its transitions), in order, appended to `out`
    // (`derived` left empty).
    void recordRows(std::vector<DerivedRow> &derived,
                    const QDateTime &now,
                    models::Observed observed,
                    std::vector<PreparedRow> *out);
    // Whether a list's keys ("namespace/name") are in the table's preferred order (by name or
    // namespace; false for the other columns, which need the objects' states).
    bool keysInPreferredOrder(const QStringList &keys) const;
    // The streamed rows into the table, when they go after every row shown in the order shown
    // (false, nothing done, otherwise: the list is then held). Touches the table only: it runs
    // while the pool derives the next chunk.
    bool streamInsert(PendingBatch &batch,
                      QStringList *announced,
                      QList<models::Transition> *transitions);
    // Prepared rows moved into the batch's rows, each index pushed to its open run.
    static void takeRows(std::vector<PreparedRow> &prepared, PendingBatch *batch);
    // Rows put into the table announced (their keys, then the transitions they made); false when
    // a listener restarted the informer meanwhile: the batch being applied is gone.
    bool announce(const QStringList &keys, const QList<models::Transition> &transitions);
    // The last row of the first list shown so far, in the order shown now.
    void noteListTail(const QString &key);
    // Joins the task the pool runs now, if any: before anything it reads or writes (the
    // informer's store, the mapping) changes or goes.
    void joinRunningTask();

    kube::InformerStore *m_informer = nullptr;
    models::LifecycleMapping m_mapping;
    qint64 m_turnBudgetNs = DefaultTurnBudgetNs;
    models::LifecycleTracker m_tracker;
    models::ResourceTableModel *m_table;
    QTimer *m_rateTimer;
    QTimer *m_pendingTimer;
    // One thread beside this one for per-object work of large batches, within a turn.
    QThreadPool *m_preparePool;
    JoinedTask *m_runningTask = nullptr;
    QList<models::ObjectSummary> m_superseded; // of the informer batch whose keys come next
    bool m_relisted = false; // the informer batch whose keys come next is a relist's
    std::deque<PendingBatch> m_pending;
    quint64 m_generation = 0; // counts attaches: pending work of an older informer is void
    // The first list is arriving (progressively: InformerStore::setProgressiveFirstList); its
    // batches are shown as they come while each goes after the rows shown, else held until
    // complete (m_listHeld).
    bool m_listing = false;
    bool m_listHeld = false;
    // The last first-list row shown, in the order it was sorted in (column, order).
    QString m_listTailKey;
    int m_listTailColumn = -1;
    Qt::SortOrder m_listTailOrder = Qt::AscendingOrder;
    qint64 m_eventsThisSecond = 0;
    double m_eventsPerSecond = 0;
};

} // namespace reconscope::controller::console
