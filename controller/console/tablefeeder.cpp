#include "controller/console/tablefeeder.h"

#include "controller/console/joinedtask.h"
#include "controller/kube/informerstore.h"
#include "controller/platform/allocator.h"

#include <QElapsedTimer>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>

namespace reconscope::controller::console {

using kube::InformerEntry;
using kube::InformerStore;

TableFeeder::TableFeeder(QObject *parent)
    : QObject(parent)
    , m_mapping(models::LifecycleMapping::forCustomApp())
    , m_table(new models::ResourceTableModel(this))
    , m_rateTimer(new QTimer(this))
    , m_pendingTimer(new QTimer(this))
    , m_preparePool(new QThreadPool(this))
{
    m_preparePool->setMaxThreadCount(1);
    m_pendingTimer->setSingleShot(true);
    m_pendingTimer->setInterval(0);
    connect(m_pendingTimer, &QTimer::timeout, this, &TableFeeder::processPending);
    m_rateTimer->setInterval(1000);
    connect(m_rateTimer, &QTimer::timeout, this, &TableFeeder::handleRateTick);
    m_rateTimer->start();
}

TableFeeder::~TableFeeder()
{
    joinRunningTask();
}

void TableFeeder::setMapping(const models::LifecycleMapping &mapping)
{
    joinRunningTask();
    m_mapping = mapping;
}

void TableFeeder::joinRunningTask()
{
    if (m_runningTask)
        m_runningTask->join(m_preparePool);
    m_runningTask = nullptr;
}

void TableFeeder::detach()
{
    joinRunningTask();
    if (m_informer)
        disconnect(m_informer, nullptr, this, nullptr);
    m_informer = nullptr;
    m_pending.clear();
    m_superseded.clear();
    m_relisted = false;
    ++m_generation;
    m_pendingTimer->stop();
}

void TableFeeder::attach(InformerStore *informer)
{
    detach();
    m_tracker.clear();
    m_table->clear();
    m_listing = true;
    m_listHeld = false;
    m_listTailKey.clear();
    m_table->setListing(0);
    emit trackerReset();
    m_informer = informer;
    if (!m_informer)
        return;
    connect(m_informer,
            &InformerStore::statesSuperseded,
            this,
            [this](const QList<models::ObjectSummary> &states) { m_superseded += states; });
    connect(m_informer, &InformerStore::relisted, this, [this] { m_relisted = true; });
    connect(m_informer, &InformerStore::objectsChanged, this, &TableFeeder::handleObjectsChanged);
    connect(m_informer, &InformerStore::synced, this, &TableFeeder::handleSynced);
}

models::ResourceRow TableFeeder::buildRow(const InformerEntry &entry,
                                          const QDateTime &now,
                                          models::Observed observed,
                                          std::optional<models::Transition> *transition)
{
    models::LifecycleVerdict verdict;
    QDateTime since;
    *transition = m_tracker.upsert(entry.summary, m_mapping, now, observed, &verdict, &since);
    models::ResourceRow row = models::ResourceRow::fromSummary(entry.summary, verdict);
    row.setSince(since, verdict.since, verdict.sinceCondition);
    return row;
}

void TableFeeder::deriveRows(const QStringList &keys,
                             qsizetype from,
                             qsizetype to,
                             std::vector<DerivedRow> *out) const
{
    out->resize(std::size_t(to - from));
    for (qsizetype i = from; i < to; ++i) {
        DerivedRow &derived = (*out)[std::size_t(i - from)];
        derived.entry = m_informer->entry(keys.at(i));
        if (!derived.entry)
            continue;
        derived.verdict = models::deriveLifecycle(derived.entry->summary, m_mapping);
        derived.row = models::ResourceRow::fromSummary(derived.entry->summary, derived.verdict);
    }
}

TableFeeder::PreparedRow
TableFeeder::record(DerivedRow &derived, const QDateTime &now, models::Observed observed)
{
    PreparedRow prepared{ std::move(derived.row) };
    QDateTime since;
    models::StateNode from;
    const QDateTime reported = derived.verdict.since;
    const QString condition = derived.verdict.sinceCondition;
    prepared.moved = m_tracker.upsertDerived(derived.entry->summary,
                                             std::move(derived.verdict),
                                             now,
                                             observed,
                                             &since,
                                             &from,
                                             &prepared.how);
    if (prepared.moved) {
        prepared.from = from ? qint8(*from) : qint8(-1);
        prepared.seen = now;
    }
    prepared.row.setSince(since, reported, condition);
    return prepared;
}

void TableFeeder::recordRows(std::vector<DerivedRow> &derived,
                             const QDateTime &now,
                             models::Observed observed,
                             std::vector<PreparedRow> *out)
{
    out->reserve(out->size() + derived.size());
    for (DerivedRow &next : derived) {
        if (next.entry)
            out->push_back(record(next, now, observed));
    }
    derived.clear();
}

bool TableFeeder::keysInPreferredOrder(const QStringList &keys) const
{
    const int column = m_table->preferredSortColumn();
    if (column < 0)
        return true;
    const bool byName = column == models::ResourceTableModel::NameColumn;
    if (!byName && column != models::ResourceTableModel::NamespaceColumn)
        return false;
    // A key is "namespace/name", or "name" for a cluster-scoped object (no namespace).
    const auto part = [byName](const QString &key) {
        const qsizetype slash = key.indexOf(u'/');
        if (byName)
            return slash < 0 ? QStringView(key) : QStringView(key).sliced(slash + 1);
        return slash < 0 ? QStringView() : QStringView(key).first(slash);
    };
    const bool ascending = m_table->preferredSortOrder() == Qt::AscendingOrder;
    // (As ResourceTableModel::compareRows compares them: QString::compare, case-sensitive.)
    QStringView previous = keys.isEmpty() ? QStringView() : part(keys.constFirst());
    for (qsizetype i = 1; i < keys.size(); ++i) {
        const QStringView next = part(keys.at(i));
        const int order = previous.compare(next);
        if (ascending ? order > 0 : order < 0)
            return false;
        previous = next;
    }
    return true;
}

void TableFeeder::noteListTail(const QString &key)
{
    m_listTailKey = key;
    m_listTailColumn = m_table->preferredSortColumn();
    m_listTailOrder = m_table->preferredSortOrder();
}

bool TableFeeder::streamInsert(PendingBatch &batch,
                               QStringList *announced,
                               QList<models::Transition> *transitions)
{
    std::vector<PreparedRow> &rows = batch.streamed;
    if (rows.empty())
        return true;
    // Still in the order the keys were found in (a header may have been clicked since), and after
    // the list's last row shown. (A key the list gave twice would replace its row in place: a
    // change, in order too.)
    if (m_listTailColumn != m_table->preferredSortColumn()
        || m_listTailOrder != m_table->preferredSortOrder())
        return false;
    if (!m_listTailKey.isEmpty()) {
        const models::ResourceRow *tail = m_table->find(m_listTailKey);
        if (!tail || m_table->preferredBefore(rows.front().row, *tail))
            return false;
    }
    QList<models::ResourceRow> list;
    list.reserve(qsizetype(rows.size()));
    announced->reserve(announced->size() + qsizetype(rows.size()));
    transitions->reserve(transitions->size() + qsizetype(rows.size()));
    for (PreparedRow &prepared : rows) {
        announced->append(prepared.row.key);
        if (prepared.moved)
            transitions->append(prepared.transition());
        list.append(std::move(prepared.row));
    }
    noteListTail(list.constLast().key);
    rows.clear();
    m_eventsThisSecond += list.size();
    m_table->applyBatch(std::move(list), {});
    return true;
}

bool TableFeeder::announce(const QStringList &keys, const QList<models::Transition> &transitions)
{
    const quint64 generation = m_generation;
    if (!keys.isEmpty())
        emit objectsChanged(keys, {});
    if (!transitions.isEmpty() && generation == m_generation)
        emit transitionsObserved(transitions);
    return generation == m_generation;
}

models::Transition TableFeeder::PreparedRow::transition() const
{
    const models::StateNode fromNode
        = from < 0 ? models::StateNode() : models::StateNode(models::LifecycleState(from));
    const bool onDesign = how == models::Observed::AtConnect ? true
        : how == models::Observed::AcrossGap ? models::isReachableByDesign(fromNode, row.state)
                                             : models::isDesignedTransition(fromNode, row.state);
    return models::Transition{ row.key,
                               seen,
                               fromNode,
                               row.state,
                               row.reason,
                               row.generation,
                               row.observedGeneration,
                               onDesign,
                               how,
                               row.stateSince };
}

void TableFeeder::handleObjectsChanged(const QStringList &upserted, const QStringList &removed)
{
    const QList<models::ObjectSummary> superseded = std::exchange(m_superseded, {});
    const bool relisted = std::exchange(m_relisted, false);
    if (m_listing) {
        // A batch of the first list (the last one when the store is synced with it): queued
        // even when small, so that each goes in sorted after the rows shown, or joins the held
        // list.
        // (The table says "Listing…" until the list's last row is in, and meanwhile paints a few
        // times a second instead of after each slice.)
        const bool closes = m_informer->hasSynced();
        m_listing = !closes;
        m_table->setListing(m_informer->size());
        if (m_listHeld) {
            PendingBatch &held = m_pending.front();
            held.upserted += upserted;
            held.removed += removed;
            held.superseded += superseded;
            held.closesList = closes;
        } else {
            PendingBatch batch{ upserted, removed, superseded };
            batch.observed = models::Observed::AtConnect;
            batch.listing = true;
            batch.closesList = closes;
            m_pending.push_back(std::move(batch));
        }
        if (!m_pendingTimer->isActive())
            processPending();
        return;
    }
    const models::Observed observed
        = relisted ? models::Observed::AcrossGap : models::Observed::Live;
    if (m_pending.empty() && upserted.size() <= SliceRows) {
        applyNow(upserted, removed, superseded, observed);
        return;
    }
    m_pending.push_back(PendingBatch{ upserted, removed, superseded, observed });
    if (!m_pendingTimer->isActive())
        processPending();
}

void TableFeeder::handleSynced()
{
    if (!m_listing)
        return; // the batch that completed the list said so already
    // The list's last objects came in earlier batches: the last one queued closes it.
    m_listing = false;
    const auto last = std::find_if(m_pending.rbegin(),
                                   m_pending.rend(),
                                   [](const PendingBatch &batch) { return batch.listing; });
    if (last == m_pending.rend()) {
        m_listTailKey.clear();
        m_table->setListing(std::nullopt);
        return;
    }
    last->closesList = true;
    if (!m_pendingTimer->isActive())
        processPending();
}

void TableFeeder::trackSuperseded(const QList<models::ObjectSummary> &states,
                                  const QDateTime &now,
                                  models::Observed observed,
                                  QList<models::Transition> *transitions)
{
    for (const models::ObjectSummary &state : states) {
        if (auto transition = m_tracker.upsert(state, m_mapping, now, observed))
            transitions->append(std::move(*transition));
    }
}

void TableFeeder::applyNow(const QStringList &upserted,
                           const QStringList &removed,
                           const QList<models::ObjectSummary> &superseded,
                           models::Observed observed)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<models::Transition> transitions;
    trackSuperseded(superseded, now, observed, &transitions);
    QList<models::ResourceRow> rows;
    rows.reserve(upserted.size());
    for (const QString &key : upserted) {
        const InformerEntry *entry = m_informer->entry(key);
        if (!entry)
            continue;
        std::optional<models::Transition> transition;
        rows.append(buildRow(*entry, now, observed, &transition));
        if (transition)
            transitions.append(std::move(*transition));
    }
    for (const QString &key : removed) {
        if (auto transition = m_tracker.remove(key, now, observed))
            transitions.append(std::move(*transition));
    }
    // Ages move on once a second (handleRateTick), not per batch: a dataChanged over every row
    // would make a sorted proxy look at all of them each tick.
    m_table->applyBatch(std::move(rows), removed);
    m_eventsThisSecond += upserted.size() + removed.size();
    emit objectsChanged(upserted, removed);
    if (!transitions.isEmpty())
        emit transitionsObserved(transitions);
}

bool TableFeeder::listAppends(const PendingBatch &batch) const
{
    if (m_table->rowCount() == 0 || batch.order.empty() || m_table->preferredSortColumn() < 0)
        return true;
    if (m_listTailKey.isEmpty() || m_listTailColumn != m_table->preferredSortColumn()
        || m_listTailOrder != m_table->preferredSortOrder())
        return false; // shown in another order since, or not by this list
    const models::ResourceRow *tail = m_table->find(m_listTailKey);
    return tail && !m_table->preferredBefore(batch.rows[batch.order.order().front()].row, *tail);
}

void TableFeeder::holdFirstList()
{
    m_listHeld = true;
    m_listTailKey.clear();
    PendingBatch held = std::move(m_pending.front());
    m_pending.pop_front();
    // The rows shown so far, as the first run (the newer rows of a key come after its older one);
    // their objects were announced and their transitions sent, neither is done again.
    QList<models::ResourceRow> shown = m_table->takeRows();
    std::vector<std::uint32_t> shownRun;
    shownRun.reserve(std::size_t(shown.size()));
    held.rows.reserve(held.rows.size() + std::size_t(shown.size()));
    held.order.reserve(held.order.size() + std::size_t(shown.size()));
    for (models::ResourceRow &row : shown) {
        shownRun.push_back(std::uint32_t(held.rows.size()));
        PreparedRow prepared{ std::move(row) };
        prepared.announced = true;
        held.rows.push_back(std::move(prepared));
    }
    if (ordered()) {
        std::stable_sort(shownRun.begin(), shownRun.end(), rowsBefore(held));
    }
    held.order.prependRun(shownRun);
    // The first list's batches queued behind it join it.
    while (!m_pending.empty() && m_pending.front().listing) {
        PendingBatch next = std::move(m_pending.front());
        m_pending.pop_front();
        held.upserted += next.upserted;
        held.removed += next.removed;
        held.superseded += next.superseded;
        held.closesList = next.closesList;
    }
    m_pending.push_front(std::move(held));
}

bool TableFeeder::ordered() const
{
    return m_table->preferredSortColumn() >= 0;
}

void TableFeeder::closeRun(PendingBatch &batch)
{
    batch.order.closeRun(ordered(), rowsBefore(batch));
}

bool TableFeeder::yield(const QElapsedTimer &turn)
{
    if (turn.nsecsElapsed() < m_turnBudgetNs)
        return false;
    m_pendingTimer->start();
    return true;
}

void TableFeeder::takeRows(std::vector<PreparedRow> &prepared, PendingBatch *batch)
{
    for (PreparedRow &row : prepared) {
        batch->order.push(std::uint32_t(batch->rows.size()));
        batch->rows.push_back(std::move(row));
    }
    prepared.clear();
}

void TableFeeder::processPending()
{
    QElapsedTimer turn;
    turn.start();
    while (!m_pending.empty() && m_informer) {
        PendingBatch &batch = m_pending.front();
        if (!batch.listing && batch.prepared == 0 && batch.upserted.size() <= SliceRows) {
            // A small batch that waited behind a large one.
            const PendingBatch small = std::move(batch);
            m_pending.pop_front();
            applyNow(small.upserted, small.removed, small.superseded, small.observed);
            if (yield(turn))
                return;
            continue;
        }
        if (!batch.superseded.isEmpty()) {
            QList<models::Transition> transitions;
            trackSuperseded(std::exchange(batch.superseded, {}),
                            QDateTime::currentDateTimeUtc(),
                            batch.observed,
                            &transitions);
            if (!transitions.isEmpty())
                emit transitionsObserved(transitions);
        }
        // 1. Rows built (streamed into the table, or a few hundred at a time between looks at the
        // clock, each turn's rows one sorted run), 2. the runs merged, 3. inserted a slice at a
        // time, 4. the batch's removals. A step that returns Again replaced or removed the batch.
        Step step = startStreaming(batch);
        if (step == Step::Next)
            step = streamRows(batch, turn);
        if (step == Step::Next)
            step = buildRows(batch, turn);
        if (step == Step::Next)
            step = mergeRuns(batch, turn);
        if (step == Step::Next)
            step = insertSlices(batch, turn);
        if (step == Step::Next)
            step = finishBatch(batch, turn);
        if (step == Step::Stop)
            return;
    }
}

TableFeeder::Step TableFeeder::startStreaming(PendingBatch &batch)
{
    // A first list into an empty table, its keys in the order shown (or no order): streamed.
    const int column = m_table->preferredSortColumn();
    if (batch.prepared == 0 && batch.listing && !m_listHeld && !batch.streaming
        && m_table->rowCount() == 0 && batch.rows.empty()
        && (column < 0 || column == models::ResourceTableModel::NameColumn
            || column == models::ResourceTableModel::NamespaceColumn)) {
        batch.streaming = true;
        noteListTail({});
        m_tracker.reserve(m_tracker.log().objectCount() + batch.upserted.size());
    }
    return Step::Next;
}

TableFeeder::Step TableFeeder::streamRows(PendingBatch &batch, const QElapsedTimer &turn)
{
    if (!batch.streaming)
        return Step::Next;
    // The pool derives a chunk (no tracker) while this thread records the chunk before it and puts
    // it into the table (the table's listeners read no tracker), then announces it once the pool
    // is idle. Whether the keys come in the order shown is found while the pool derives the first
    // chunk. What was derived is recorded within the turn: derived rows point into the store.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QStringList keys = batch.upserted; // the task's own (shared) handle
    std::vector<DerivedRow> ready;
    std::vector<DerivedRow> coming;
    bool inOrder = true;
    bool keysInOrder = true;
    for (;;) {
        // A chunk started while the turn lasts, and always when nothing is ready to go in.
        const bool start = batch.prepared < keys.size()
            && ((batch.streamed.empty() && ready.empty()) || turn.nsecsElapsed() < m_turnBudgetNs);
        // The first chunk, derived while this thread looks at the order of the keys, is a slice
        // (about as long); later ones are smaller. (Chunks of a slice, one insertion into the
        // sorted proxy each, were no quicker: the proxy sorts each inserted block, and a chunk
        // the pool has not started when this thread joins it is done here, whole.)
        const qsizetype end = !start
            ? batch.prepared
            : std::min(keys.size(), batch.prepared + (batch.prepared == 0 ? SliceRows : ChunkRows));
        std::optional<JoinedTask> task;
        if (start) {
            task.emplace([this, &keys, &coming, from = batch.prepared, end] {
                deriveRows(keys, from, end, &coming);
            });
            m_runningTask = &*task;
            task->start(m_preparePool);
        }
        const quint64 generation = m_generation;
        QStringList announced;
        QList<models::Transition> transitions;
        if (batch.prepared == 0) {
            keysInOrder = keysInPreferredOrder(keys);
            if (keysInOrder)
                m_table->reserve(keys.size());
        } else {
            recordRows(ready, now, batch.observed, &batch.streamed);
            inOrder = streamInsert(batch, &announced, &transitions);
        }
        if (task)
            task->join(m_preparePool);
        // A listener of the table restarted the informer (joining the task): the batch is gone.
        if (generation != m_generation)
            return Step::Stop;
        m_runningTask = nullptr;
        batch.prepared = end;
        if (!announce(announced, transitions))
            return Step::Stop;
        if (!inOrder || !keysInOrder || !task)
            break;
        ready = std::exchange(coming, {});
    }
    if (!keysInOrder) {
        // Not streamed after all: the first chunk is the first sorted run of the rows built whole.
        batch.streaming = false;
        batch.rows.reserve(std::size_t(keys.size()));
        batch.order.reserve(std::size_t(keys.size()));
        recordRows(coming, now, batch.observed, &batch.streamed);
        takeRows(batch.streamed, &batch);
        closeRun(batch);
        return yield(turn) ? Step::Stop : Step::Next;
    }
    if (!inOrder) {
        // Rows that would land among those shown: the rest goes the held way (the rows shown
        // taken back, all inserted in order once prepared).
        batch.streaming = false;
        recordRows(coming, now, batch.observed, &batch.streamed);
        takeRows(batch.streamed, &batch);
        closeRun(batch);
        holdFirstList();
        return Step::Again;
    }
    if (batch.prepared < keys.size()) {
        m_pendingTimer->start();
        return Step::Stop;
    }
    return Step::Next;
}

TableFeeder::Step TableFeeder::buildRows(PendingBatch &batch, const QElapsedTimer &turn)
{
    if (batch.prepared >= batch.upserted.size())
        return Step::Next;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_tracker.reserve(m_tracker.log().objectCount() + batch.upserted.size() - batch.prepared);
    batch.rows.reserve(std::size_t(batch.upserted.size()));
    batch.order.reserve(std::size_t(batch.upserted.size()));
    // A chunk of keys derived (store lookups, verdicts, rows: no tracker) on the pool while this
    // thread records the one before it, until the turn's time is up; no derived chunk outlives
    // the turn (the store changes between turns).
    const QStringList &keys = std::as_const(batch.upserted);
    std::vector<DerivedRow> ready;
    std::vector<DerivedRow> coming;
    std::vector<PreparedRow> recorded;
    // (The turn's first chunk, derived here with the pool idle, is a small one.)
    qsizetype readyEnd = std::min(keys.size(), batch.prepared + FirstChunkRows);
    deriveRows(keys, batch.prepared, readyEnd, &ready);
    for (;;) {
        const bool more = readyEnd < keys.size() && turn.nsecsElapsed() < m_turnBudgetNs;
        const qsizetype comingEnd = more ? std::min(keys.size(), readyEnd + ChunkRows) : readyEnd;
        std::optional<JoinedTask> task;
        if (more) {
            task.emplace([this, &keys, &coming, from = readyEnd, to = comingEnd] {
                deriveRows(keys, from, to, &coming);
            });
            m_runningTask = &*task;
            task->start(m_preparePool);
        }
        recordRows(ready, now, batch.observed, &recorded);
        takeRows(recorded, &batch);
        batch.prepared = readyEnd;
        if (!task)
            break;
        task->join(m_preparePool);
        m_runningTask = nullptr;
        std::swap(ready, coming);
        readyEnd = comingEnd;
    }
    closeRun(batch);
    return yield(turn) ? Step::Stop : Step::Next;
}

TableFeeder::Step TableFeeder::mergeRuns(PendingBatch &batch, const QElapsedTimer &turn)
{
    // A held first list waits for its last batch (which brings its keys and calls again).
    if (batch.listing && m_listHeld && !batch.closesList)
        return Step::Stop;
    // Pairwise, level by level, one merge between looks at the clock (stable: equal rows keep the
    // informer's order, as the proxy keeps source order).
    while (!batch.order.merged()) {
        batch.order.mergeStep(ordered(), rowsBefore(batch));
        if (yield(turn))
            return Step::Stop;
    }
    // A first-list batch whose rows would land among those shown (another namespace's names,
    // say) instead of after them: the list is held and goes in whole, in order.
    if (batch.listing && !m_listHeld && batch.inserted == 0 && !listAppends(batch)) {
        holdFirstList();
        return Step::Again;
    }
    return Step::Next;
}

TableFeeder::Step TableFeeder::insertSlices(PendingBatch &batch, const QElapsedTimer &turn)
{
    // Each slice is one tick for the table's listeners.
    if (batch.inserted == 0)
        m_table->reserve(m_table->rowCount() + qsizetype(batch.rows.size()));
    const std::vector<std::uint32_t> &order = batch.order.order();
    while (batch.inserted < batch.rows.size()) {
        const std::size_t end
            = std::min(batch.rows.size(), batch.inserted + std::size_t(SliceRows));
        QList<models::ResourceRow> rows;
        QStringList keys;
        QList<models::Transition> transitions;
        rows.reserve(qsizetype(end - batch.inserted));
        keys.reserve(qsizetype(end - batch.inserted));
        transitions.reserve(qsizetype(end - batch.inserted));
        for (; batch.inserted < end; ++batch.inserted) {
            PreparedRow &prepared = batch.rows[order[batch.inserted]];
            if (!prepared.announced)
                keys.append(prepared.row.key);
            if (prepared.moved)
                transitions.append(prepared.transition());
            if (batch.listing && batch.inserted + 1 == batch.rows.size())
                noteListTail(prepared.row.key);
            rows.append(std::move(prepared.row));
        }
        m_table->applyBatch(std::move(rows), {});
        m_eventsThisSecond += keys.size();
        if (!announce(keys, transitions))
            return Step::Stop;
        if (batch.inserted < batch.rows.size() && yield(turn))
            return Step::Stop;
    }
    return Step::Next;
}

TableFeeder::Step TableFeeder::finishBatch(PendingBatch &batch, const QElapsedTimer &turn)
{
    const QStringList removed = std::move(batch.removed);
    const models::Observed observed = batch.observed;
    const bool trim = batch.closesList || batch.rows.size() > std::size_t(SliceRows);
    if (batch.closesList) {
        m_listHeld = false;
        m_listTailKey.clear();
        m_table->setListing(std::nullopt);
    }
    m_pending.pop_front();
    // The rows and their order of a large batch or a first list (~10 MB at 50k objects) are
    // freed.
    if (trim)
        platform::noteLargeBuffersFreed();
    if (!removed.isEmpty())
        applyNow({}, removed, {}, observed);
    return yield(turn) ? Step::Stop : Step::Again;
}

void TableFeeder::handleRateTick()
{
    m_eventsPerSecond = double(m_eventsThisSecond);
    m_eventsThisSecond = 0;
    m_table->setNow(QDateTime::currentDateTimeUtc());
    emit eventRateChanged(m_eventsPerSecond);
}

} // namespace reconscope::controller::console
