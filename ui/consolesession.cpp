#include "ui/consolesession.h"

#include "controller/cluster/sim/backgroundcluster.h"
#include "controller/console/scenarioplayer.h"
#include "controller/operator/customappoperator.h"
#include "controller/reconcile/clock.h"
#include "models/heaptrim.h"
#include "models/resourcetablemodel.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QRunnable>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using namespace controller::kube;

const ResourceRef ConsoleSession::CustomApps{
    u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s, true
};

namespace {

DiscoveredResource customAppResource()
{
    DiscoveredResource resource;
    resource.group = ConsoleSession::CustomApps.group;
    resource.version = ConsoleSession::CustomApps.version;
    resource.plural = ConsoleSession::CustomApps.plural;
    resource.singular = u"customapp"_s;
    resource.kind = u"CustomApp"_s;
    resource.namespaced = true;
    resource.statusSubresource = true;
    resource.fromCrd = true;
    return resource;
}

} // namespace

// Work handed to a pool for the rest of a turn: joined before the turn ends, taken back and done
// here when the pool has not started it (its thread busy or not given a core yet), so that the UI
// thread never waits for work that is not running. Joined once; a second join returns at once.
// Its start and its end go through a mutex of its own: what the thread that starts it wrote
// before is seen by the work, and what the work wrote is seen after the join (also by
// ThreadSanitizer, which does not see through the pool's own locks).
class ConsoleSession::JoinedTask final : public QRunnable
{
public:
    explicit JoinedTask(std::function<void()> work)
        : m_work(std::move(work))
    {
        setAutoDelete(false);
    }
    void start(QThreadPool *pool)
    {
        {
            const std::lock_guard lock(m_mutex);
        }
        pool->start(this);
    }
    void run() override
    {
        {
            const std::lock_guard lock(m_mutex);
        }
        m_work();
        const std::lock_guard lock(m_mutex);
        m_done = true;
        m_finished.notify_one();
    }
    void join(QThreadPool *pool)
    {
        if (m_joined)
            return;
        m_joined = true;
        if (pool->tryTake(this)) {
            m_work();
            return;
        }
        std::unique_lock lock(m_mutex);
        m_finished.wait(lock, [this] { return m_done; });
    }

private:
    std::function<void()> m_work;
    std::mutex m_mutex;
    std::condition_variable m_finished;
    bool m_done = false;
    bool m_joined = false;
};

ConsoleSession::ConsoleSession(QObject *parent)
    : QObject(parent)
    , m_resource(customAppResource())
    , m_mapping(models::LifecycleMapping::forCustomApp())
    , m_table(new models::ResourceTableModel(this))
    , m_rateTimer(new QTimer(this))
    , m_pendingTimer(new QTimer(this))
    , m_preparePool(new QThreadPool(this))
{
    m_preparePool->setMaxThreadCount(1);
    m_pendingTimer->setSingleShot(true);
    m_pendingTimer->setInterval(0);
    connect(m_pendingTimer, &QTimer::timeout, this, &ConsoleSession::processPending);
    m_player = new controller::console::ScenarioPlayer(this);
    if (auto scenario = controller::console::ScenarioPlayer::defaultScenario(); scenario.ok())
        m_player->setScenario(scenario.value());
    m_rateTimer->setInterval(1000);
    connect(m_rateTimer, &QTimer::timeout, this, &ConsoleSession::handleRateTick);
    m_rateTimer->start();
}

ConsoleSession::~ConsoleSession()
{
    joinRunningTask();
    // The player, the reconciler, the informer's thread and the client go before the server they
    // talk to.
    m_player->pause();
    m_player->setClient(nullptr);
    delete m_operator;
    m_operator = nullptr;
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    delete m_client;
    m_client = nullptr;
    stopEmbeddedServer();
}

models::Status<> ConsoleSession::startDemo()
{
    if (m_embedded)
        return models::Status<>::failure(tr("the embedded cluster is already running"));
    m_demo = true;
    m_embedded = new controller::cluster::BackgroundCluster({}, u"embedded-cluster"_s, this);
    connect(m_embedded,
            &controller::cluster::BackgroundCluster::started,
            this,
            &ConsoleSession::handleServerStarted);
    connect(m_embedded,
            &controller::cluster::BackgroundCluster::failed,
            this,
            [this](const QString &message) {
                emit connectionFailed(tr("the embedded cluster did not start: %1").arg(message));
            });
    return m_embedded->start();
}

void ConsoleSession::stopEmbeddedServer()
{
    delete m_embedded;
    m_embedded = nullptr;
}

controller::cluster::EmbeddedServer *ConsoleSession::embeddedServer() const
{
    return m_embedded ? m_embedded->server() : nullptr;
}

void ConsoleSession::handleServerStarted(const QString &kubeconfigPath)
{
    const auto status = openKubeconfig(kubeconfigPath);
    if (!status.ok()) {
        emit connectionFailed(status.error().message);
        return;
    }
    if (m_runReconciler)
        startReconciler();
    if (m_playScenario)
        m_player->play();
}

void ConsoleSession::startReconciler()
{
    // The operator is a client like any other: it gets the same kubeconfig credentials.
    m_clock = std::make_unique<controller::reconcile::RealClock>();
    m_operator = new controller::operators::CustomAppOperator(m_config, *m_clock, {}, this);
    m_operator->start();
    emit reconcilerChanged();
}

controller::reconcile::ControllerLoop *ConsoleSession::controllerLoop() const
{
    return m_operator ? &m_operator->loop() : nullptr;
}

models::Status<> ConsoleSession::openKubeconfig(const QString &path, const QString &context)
{
    auto kubeconfig = Kubeconfig::load(path);
    if (!kubeconfig.ok())
        return models::Status<>::failure(kubeconfig.error().message);
    m_kubeconfig = std::move(kubeconfig.value());
    m_kubeconfigPath = path.isEmpty() ? m_kubeconfig.files().value(0) : path;
    auto config = m_kubeconfig.resolve(context);
    if (!config.ok())
        return models::Status<>::failure(config.error().message);
    if (m_demo)
        m_writableContexts.insert(config->contextName);
    emit contextsChanged(m_kubeconfig.contextNames(), config->contextName);
    connectTo(config.value());
    return {};
}

models::Status<> ConsoleSession::switchContext(const QString &context)
{
    if (context == m_config.contextName && m_client)
        return {};
    auto config = m_kubeconfig.resolve(context);
    if (!config.ok())
        return models::Status<>::failure(config.error().message);
    connectTo(config.value());
    return {};
}

void ConsoleSession::joinRunningTask()
{
    if (m_runningTask)
        m_runningTask->join(m_preparePool);
    m_runningTask = nullptr;
}

void ConsoleSession::connectTo(const ClientConfig &config)
{
    joinRunningTask();
    delete m_informer;
    m_informer = nullptr;
    delete m_discovery;
    m_discovery = nullptr;
    m_player->setClient(nullptr);
    delete m_client;
    m_config = config;
    m_client = new RestClient(m_config, this);
    m_player->setClient(m_demo ? m_client : nullptr);
    m_discovery = new DiscoveryClient(m_client, this);
    connect(m_discovery, &DiscoveryClient::discoveryFailed, this, [this](const ApiError &error) {
        emit connectionFailed(tr("discovery: %1").arg(error.toString()));
    });
    m_discovery->watchCrds();
    emit connected(m_config.contextName, m_config.server.toString());
    emit writesEnabledChanged(writesEnabled());
    restartInformer();
}

void ConsoleSession::setNamespaceFilter(const QString &namespace_)
{
    if (namespace_ == m_namespace)
        return;
    m_namespace = namespace_;
    if (m_client)
        restartInformer();
}

void ConsoleSession::setResource(const DiscoveredResource &resource)
{
    joinRunningTask(); // it reads the mapping
    m_resource = resource;
    if (resource.qualifiedName() == customAppResource().qualifiedName()) {
        m_mapping = models::LifecycleMapping::forCustomApp();
    } else if (m_discovery && m_discovery->crds().contains(resource.qualifiedName())) {
        const auto crd = nlohmann::json::parse(
            m_discovery->crds().value(resource.qualifiedName()).toStdString(), nullptr, false);
        m_mapping = crd.is_discarded() ? models::LifecycleMapping::defaults()
                                       : models::LifecycleMapping::forCrd(crd);
    } else {
        m_mapping = models::LifecycleMapping::defaults();
    }
    emit resourceChanged(m_resource);
    if (m_client)
        restartInformer();
}

void ConsoleSession::restartInformer()
{
    joinRunningTask();
    delete m_informer;
    m_informer = nullptr;
    m_pending.clear();
    m_superseded.clear();
    ++m_informerGeneration;
    m_pendingTimer->stop();
    m_tracker.clear();
    m_table->clear();
    m_listing = true;
    m_listHeld = false;
    m_listTailKey.clear();
    m_table->setListing(0);
    emit trackerReset();
    const QString namespace_ = m_resource.namespaced ? m_namespace : QString();
    m_informer = new InformerStore(m_config, m_resource.ref(), namespace_, m_mapping, this);
    m_informer->setBatchInterval(m_batchIntervalMs);
    m_informer->setProgressiveFirstList(m_progressiveFirstList);
    connect(m_informer,
            &InformerStore::statesSuperseded,
            this,
            [this](const QList<models::ObjectSummary> &states) { m_superseded += states; });
    connect(
        m_informer, &InformerStore::objectsChanged, this, &ConsoleSession::handleObjectsChanged);
    connect(m_informer, &InformerStore::synced, this, &ConsoleSession::handleSynced);
    connect(m_informer,
            &InformerStore::connectionStateChanged,
            this,
            &ConsoleSession::connectionStateChanged);
    m_informer->start();
}

models::ResourceRow ConsoleSession::buildRow(const InformerEntry &entry,
                                             const QDateTime &now,
                                             std::optional<models::Transition> *transition)
{
    models::LifecycleVerdict verdict;
    QDateTime since;
    *transition = m_tracker.upsert(entry.summary, m_mapping, now, &verdict, &since);
    models::ResourceRow row = models::ResourceRow::fromSummary(entry.summary, verdict);
    // The log's latest transition is the one that brought the object into its state.
    row.stateSince = since;
    row.lastTransition = since;
    return row;
}

void ConsoleSession::deriveRows(const QStringList &keys,
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

void ConsoleSession::recordRows(std::vector<DerivedRow> &derived,
                                const QDateTime &now,
                                PendingBatch *batch)
{
    for (DerivedRow &next : derived) {
        if (!next.entry)
            continue;
        QDateTime since;
        models::StateNode from;
        const bool moved = m_tracker.upsertDerived(
            next.entry->summary, std::move(next.verdict), now, &since, &from);
        batch->order.push_back(std::uint32_t(batch->rows.size()));
        PreparedRow &prepared = batch->rows.emplace_back(PreparedRow{ std::move(next.row) });
        // The log's latest transition is the one that brought the object into its state.
        prepared.row.stateSince = since;
        prepared.row.lastTransition = since;
        if (moved) {
            prepared.moved = true;
            prepared.from = from ? qint8(*from) : qint8(-1);
        }
    }
}

bool ConsoleSession::keysInPreferredOrder(const QStringList &keys) const
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

void ConsoleSession::prepareRows(const QStringList &keys,
                                 qsizetype from,
                                 qsizetype to,
                                 const QDateTime &now,
                                 std::vector<PreparedRow> *out)
{
    out->reserve(std::size_t(to - from));
    for (qsizetype i = from; i < to; ++i) {
        const InformerEntry *entry = m_informer->entry(keys.at(i));
        if (!entry)
            continue;
        models::LifecycleVerdict verdict = models::deriveLifecycle(entry->summary, m_mapping);
        PreparedRow &prepared = out->emplace_back();
        prepared.row = models::ResourceRow::fromSummary(entry->summary, verdict);
        QDateTime since;
        models::StateNode fromNode;
        prepared.moved
            = m_tracker.upsertDerived(entry->summary, std::move(verdict), now, &since, &fromNode);
        if (prepared.moved)
            prepared.from = fromNode ? qint8(*fromNode) : qint8(-1);
        // The log's latest transition is the one that brought the object into its state.
        prepared.row.stateSince = since;
        prepared.row.lastTransition = since;
    }
}

bool ConsoleSession::streamInsert(PendingBatch &batch,
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
    // The last row of the list so far, in the order shown.
    m_listTailKey = list.constLast().key;
    m_listTailColumn = m_table->preferredSortColumn();
    m_listTailOrder = m_table->preferredSortOrder();
    rows.clear();
    m_eventsThisSecond += list.size();
    m_table->applyBatch(std::move(list), {});
    return true;
}

bool ConsoleSession::announce(const QStringList &keys, const QList<models::Transition> &transitions)
{
    const quint64 generation = m_informerGeneration;
    if (!keys.isEmpty())
        emit objectsChanged(keys, {});
    if (!transitions.isEmpty() && generation == m_informerGeneration)
        emit transitionsObserved(transitions);
    return generation == m_informerGeneration;
}

models::Transition ConsoleSession::PreparedRow::transition() const
{
    const models::StateNode fromNode
        = from < 0 ? models::StateNode() : models::StateNode(models::LifecycleState(from));
    return models::Transition{ row.key,
                               row.stateSince,
                               fromNode,
                               row.state,
                               row.reason,
                               row.generation,
                               row.observedGeneration,
                               models::isDesignedTransition(fromNode, row.state) };
}

void ConsoleSession::handleObjectsChanged(const QStringList &upserted, const QStringList &removed)
{
    const QList<models::ObjectSummary> superseded = std::exchange(m_superseded, {});
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
            batch.listing = true;
            batch.closesList = closes;
            m_pending.push_back(std::move(batch));
        }
        if (!m_pendingTimer->isActive())
            processPending();
        return;
    }
    if (m_pending.empty() && upserted.size() <= SliceRows) {
        applyNow(upserted, removed, superseded);
        return;
    }
    m_pending.push_back(PendingBatch{ upserted, removed, superseded });
    if (!m_pendingTimer->isActive())
        processPending();
}

void ConsoleSession::handleSynced()
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

void ConsoleSession::trackSuperseded(const QList<models::ObjectSummary> &states,
                                     const QDateTime &now,
                                     QList<models::Transition> *transitions)
{
    for (const models::ObjectSummary &state : states) {
        if (auto transition = m_tracker.upsert(state, m_mapping, now))
            transitions->append(std::move(*transition));
    }
}

void ConsoleSession::applyNow(const QStringList &upserted,
                              const QStringList &removed,
                              const QList<models::ObjectSummary> &superseded)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<models::Transition> transitions;
    trackSuperseded(superseded, now, &transitions);
    QList<models::ResourceRow> rows;
    rows.reserve(upserted.size());
    for (const QString &key : upserted) {
        const InformerEntry *entry = m_informer->entry(key);
        if (!entry)
            continue;
        std::optional<models::Transition> transition;
        rows.append(buildRow(*entry, now, &transition));
        if (transition)
            transitions.append(std::move(*transition));
    }
    for (const QString &key : removed) {
        if (auto transition = m_tracker.remove(key, now))
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

bool ConsoleSession::listAppends(const PendingBatch &batch) const
{
    if (m_table->rowCount() == 0 || batch.order.empty() || m_table->preferredSortColumn() < 0)
        return true;
    if (m_listTailKey.isEmpty() || m_listTailColumn != m_table->preferredSortColumn()
        || m_listTailOrder != m_table->preferredSortOrder())
        return false; // shown in another order since, or not by this list
    const models::ResourceRow *tail = m_table->find(m_listTailKey);
    return tail && !m_table->preferredBefore(batch.rows[batch.order.front()].row, *tail);
}

void ConsoleSession::holdFirstList()
{
    m_listHeld = true;
    m_listTailKey.clear();
    PendingBatch held = std::move(m_pending.front());
    m_pending.pop_front();
    // The rows shown so far, as the first run (the newer rows of a key come after its older one);
    // their objects were announced and their transitions sent, neither is done again.
    QList<models::ResourceRow> shown = m_table->takeRows();
    std::vector<std::uint32_t> order;
    order.reserve(std::size_t(shown.size()) + held.order.size());
    held.rows.reserve(held.rows.size() + std::size_t(shown.size()));
    for (models::ResourceRow &row : shown) {
        order.push_back(std::uint32_t(held.rows.size()));
        PreparedRow prepared{ std::move(row) };
        prepared.announced = true;
        held.rows.push_back(std::move(prepared));
    }
    if (m_table->preferredSortColumn() >= 0) {
        std::stable_sort(
            order.begin(), order.end(), [this, &held](std::uint32_t a, std::uint32_t b) {
                return m_table->preferredBefore(held.rows[a].row, held.rows[b].row);
            });
    }
    const std::size_t shownRun = order.size();
    order.insert(order.end(), held.order.begin(), held.order.end());
    std::vector<std::size_t> runs{ 0 };
    if (shownRun > 0)
        runs.push_back(shownRun);
    for (std::size_t i = 1; i < held.runs.size(); ++i)
        runs.push_back(held.runs[i] + shownRun);
    held.order = std::move(order);
    held.runs = std::move(runs);
    held.mergeAt = 0;
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

void ConsoleSession::processPending()
{
    QElapsedTimer turn;
    turn.start();
    const auto yield = [&] {
        if (turn.nsecsElapsed() < m_turnBudgetNs)
            return false;
        m_pendingTimer->start();
        return true;
    };
    while (!m_pending.empty() && m_informer) {
        PendingBatch &batch = m_pending.front();
        if (!batch.listing && batch.prepared == 0 && batch.upserted.size() <= SliceRows) {
            // A small batch that waited behind a large one.
            const PendingBatch small = std::move(batch);
            m_pending.pop_front();
            applyNow(small.upserted, small.removed, small.superseded);
            if (yield())
                return;
            continue;
        }
        // 1. Rows built, a few hundred at a time between looks at the clock; the rows of each turn
        // are sorted (by index) in the order the table is shown in, as one run.
        const auto before = [this, &batch](std::uint32_t a, std::uint32_t b) {
            return m_table->preferredBefore(batch.rows[a].row, batch.rows[b].row);
        };
        const auto closeRun = [&] {
            const std::size_t start = batch.runs.back();
            if (start == batch.order.size())
                return;
            // A first list arrives in the server's order (namespace, then name), most often the
            // order shown already: checking costs a comparison per row, sorting a dozen.
            const auto runBegin = batch.order.begin() + qsizetype(start);
            if (m_table->preferredSortColumn() >= 0
                && !std::is_sorted(runBegin, batch.order.end(), before))
                std::stable_sort(runBegin, batch.order.end(), before);
            batch.runs.push_back(batch.order.size());
        };
        if (!batch.superseded.isEmpty()) {
            QList<models::Transition> transitions;
            trackSuperseded(
                std::exchange(batch.superseded, {}), QDateTime::currentDateTimeUtc(), &transitions);
            if (!transitions.isEmpty())
                emit transitionsObserved(transitions);
        }
        // 1a. A first list into an empty table, its keys in the order shown: streamed. The pool
        // derives and tracks a chunk while this thread puts the chunk before it into the table
        // (the table's listeners read no tracker), then announces it once the pool is idle.
        // Whether the keys come in the order shown is found while the pool prepares the first
        // chunk.
        if (batch.prepared == 0 && batch.listing && !m_listHeld && !batch.streaming
            && m_table->rowCount() == 0 && batch.rows.empty()
            && (m_table->preferredSortColumn() < 0
                || m_table->preferredSortColumn() == models::ResourceTableModel::NameColumn
                || m_table->preferredSortColumn() == models::ResourceTableModel::NamespaceColumn)) {
            batch.streaming = true;
            m_listTailKey.clear();
            m_listTailColumn = m_table->preferredSortColumn();
            m_listTailOrder = m_table->preferredSortOrder();
            m_tracker.reserve(m_tracker.log().objectCount() + batch.upserted.size());
        }
        if (batch.streaming) {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            const QStringList keys = batch.upserted; // the task's own (shared) handle
            std::vector<PreparedRow> coming;
            bool inOrder = true;
            bool keysInOrder = true;
            for (;;) {
                // A chunk started while the turn lasts, and always when nothing is ready to go in.
                const bool start = batch.prepared < keys.size()
                    && (batch.streamed.empty() || turn.nsecsElapsed() < m_turnBudgetNs);
                // The first chunk, prepared while this thread looks at the order of the keys, is
                // a slice (about as long); later ones are smaller. (Chunks of a slice, one
                // insertion into the sorted proxy each, were no quicker: the proxy sorts each
                // inserted block, and a chunk the pool has not started when this thread joins it
                // is done here, whole.)
                const qsizetype end = !start
                    ? batch.prepared
                    : std::min(keys.size(),
                               batch.prepared + (batch.prepared == 0 ? SliceRows : ChunkRows));
                std::optional<JoinedTask> task;
                if (start) {
                    task.emplace([this, &keys, &coming, &now, from = batch.prepared, end] {
                        prepareRows(keys, from, end, now, &coming);
                    });
                    m_runningTask = &*task;
                    task->start(m_preparePool);
                }
                const quint64 generation = m_informerGeneration;
                QStringList announced;
                QList<models::Transition> transitions;
                if (batch.prepared == 0) {
                    keysInOrder = keysInPreferredOrder(keys);
                    if (keysInOrder)
                        m_table->reserve(keys.size());
                } else {
                    inOrder = streamInsert(batch, &announced, &transitions);
                }
                if (task)
                    task->join(m_preparePool);
                // A listener of the table restarted the informer (joining the task): the batch is
                // gone.
                if (generation != m_informerGeneration)
                    return;
                m_runningTask = nullptr;
                batch.prepared = end;
                if (!announce(announced, transitions))
                    return;
                if (!inOrder || !keysInOrder || !task)
                    break;
                batch.streamed = std::exchange(coming, {});
            }
            if (!keysInOrder) {
                // Not streamed after all: the first chunk is the first sorted run of the rows
                // built whole.
                batch.streaming = false;
                batch.rows.reserve(std::size_t(keys.size()));
                batch.order.reserve(std::size_t(keys.size()));
                for (PreparedRow &prepared : coming) {
                    batch.order.push_back(std::uint32_t(batch.rows.size()));
                    batch.rows.push_back(std::move(prepared));
                }
                closeRun();
                if (yield())
                    return;
            } else if (!inOrder) {
                // Rows that would land among those shown: the rest goes the held way (the rows
                // shown taken back, all inserted in order once prepared).
                batch.streaming = false;
                for (std::vector<PreparedRow> *part : { &batch.streamed, &coming }) {
                    for (PreparedRow &prepared : *part) {
                        batch.order.push_back(std::uint32_t(batch.rows.size()));
                        batch.rows.push_back(std::move(prepared));
                    }
                }
                batch.streamed.clear();
                closeRun();
                holdFirstList();
                continue;
            }
            if (batch.streaming && batch.prepared < keys.size()) {
                m_pendingTimer->start();
                return;
            }
        }
        if (batch.prepared < batch.upserted.size()) {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            m_tracker.reserve(m_tracker.log().objectCount() + batch.upserted.size()
                              - batch.prepared);
            batch.rows.reserve(std::size_t(batch.upserted.size()));
            batch.order.reserve(std::size_t(batch.upserted.size()));
            // A chunk of keys derived (store lookups, verdicts, rows: no tracker) on the pool
            // while this thread records the one before it, until the turn's time is up; no
            // derived chunk outlives the turn (the store changes between turns).
            const QStringList &keys = std::as_const(batch.upserted);
            std::vector<DerivedRow> ready;
            std::vector<DerivedRow> coming;
            // (The turn's first chunk, derived here with the pool idle, is a small one.)
            qsizetype readyEnd = std::min(keys.size(), batch.prepared + FirstChunkRows);
            deriveRows(keys, batch.prepared, readyEnd, &ready);
            for (;;) {
                const bool more = readyEnd < keys.size() && turn.nsecsElapsed() < m_turnBudgetNs;
                const qsizetype comingEnd
                    = more ? std::min(keys.size(), readyEnd + ChunkRows) : readyEnd;
                std::optional<JoinedTask> task;
                if (more) {
                    task.emplace([this, &keys, &coming, from = readyEnd, to = comingEnd] {
                        deriveRows(keys, from, to, &coming);
                    });
                    m_runningTask = &*task;
                    task->start(m_preparePool);
                }
                recordRows(ready, now, &batch);
                batch.prepared = readyEnd;
                if (!task)
                    break;
                task->join(m_preparePool);
                m_runningTask = nullptr;
                std::swap(ready, coming);
                readyEnd = comingEnd;
            }
            closeRun();
            if (yield())
                return;
        }
        // A held first list waits for its last batch (which brings its keys and calls again).
        if (batch.listing && m_listHeld && !batch.closesList)
            return;
        // 2. The runs merged pairwise, level by level, one merge between looks at the clock
        // (stable: equal rows keep the informer's order, as the proxy keeps source order).
        while (batch.runs.size() > 2) {
            if (batch.mergeAt + 2 >= batch.runs.size())
                batch.mergeAt = 0;
            const auto first = batch.order.begin();
            const auto middle = first + qsizetype(batch.runs[batch.mergeAt + 1]);
            // Two runs already in order (the second's first row not before the first's last:
            // a list arriving sorted) are one run as they are.
            if (m_table->preferredSortColumn() >= 0 && before(*middle, *(middle - 1)))
                std::inplace_merge(first + qsizetype(batch.runs[batch.mergeAt]),
                                   middle,
                                   first + qsizetype(batch.runs[batch.mergeAt + 2]),
                                   before);
            batch.runs.erase(batch.runs.begin() + qsizetype(batch.mergeAt) + 1);
            ++batch.mergeAt;
            if (yield())
                return;
        }
        // A first-list batch whose rows would land among those shown (another namespace's
        // names, say) instead of after them: the list is held and goes in whole, in order.
        if (batch.listing && !m_listHeld && batch.inserted == 0 && !listAppends(batch)) {
            holdFirstList();
            continue;
        }
        // 3. Inserted a slice at a time; each slice is one tick for the table's listeners.
        if (batch.inserted == 0)
            m_table->reserve(m_table->rowCount() + qsizetype(batch.rows.size()));
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
                PreparedRow &prepared = batch.rows[batch.order[batch.inserted]];
                if (!prepared.announced)
                    keys.append(prepared.row.key);
                if (prepared.moved)
                    transitions.append(prepared.transition());
                if (batch.listing && batch.inserted + 1 == batch.rows.size()) {
                    // The last row of the list so far, in the order shown.
                    m_listTailKey = prepared.row.key;
                    m_listTailColumn = m_table->preferredSortColumn();
                    m_listTailOrder = m_table->preferredSortOrder();
                }
                rows.append(std::move(prepared.row));
            }
            m_table->applyBatch(std::move(rows), {});
            m_eventsThisSecond += keys.size();
            if (!announce(keys, transitions))
                return;
            if (batch.inserted < batch.rows.size() && yield())
                return;
        }
        // 4. Its removals, then the next batch.
        const QStringList removed = std::move(batch.removed);
        const bool trim = batch.closesList || batch.rows.size() > std::size_t(SliceRows);
        if (batch.closesList) {
            m_listHeld = false;
            m_listTailKey.clear();
            m_table->setListing(std::nullopt);
        }
        m_pending.pop_front();
        // The rows and their order of a large batch or a first list (~10 MB at 50k objects) are
        // freed: give the pages back, on a pool thread (a trim walks the whole heap).
        if (trim && models::canTrimHeap())
            QThreadPool::globalInstance()->start([] { models::trimHeap(); });
        if (!removed.isEmpty())
            applyNow({}, removed);
        if (yield())
            return;
    }
}

void ConsoleSession::handleRateTick()
{
    m_eventsPerSecond = double(m_eventsThisSecond);
    m_eventsThisSecond = 0;
    m_table->setNow(QDateTime::currentDateTimeUtc());
    emit eventRateChanged(m_eventsPerSecond);
}

ReflectorState ConsoleSession::connectionState() const
{
    return m_informer ? m_informer->state() : ReflectorState();
}

bool ConsoleSession::writesEnabled() const
{
    return m_demo || m_writableContexts.contains(m_config.contextName);
}

void ConsoleSession::setWritesEnabled(bool enabled)
{
    if (m_demo || enabled == writesEnabled())
        return;
    if (enabled)
        m_writableContexts.insert(m_config.contextName);
    else
        m_writableContexts.remove(m_config.contextName);
    emit writesEnabledChanged(enabled);
}

std::optional<ApiError> ConsoleSession::writeRefusal() const
{
    if (!m_client)
        return ApiError::make(ApiError::Category::Network, tr("not connected"));
    if (!writesEnabled()) {
        // Refused here, before any request: said as the server says a refusal (403 Forbidden).
        ApiError error = ApiError::make(
            ApiError::Category::Status,
            tr("writes are disabled for context \"%1\": enable them first").arg(contextName()),
            403);
        error.reason = u"Forbidden"_s;
        return error;
    }
    return std::nullopt;
}

void ConsoleSession::createObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    const auto meta = object.find("metadata");
    const QString namespace_ = meta != object.end() && meta->is_object()
        ? QString::fromStdString(meta->value("namespace", std::string()))
        : QString();
    m_client->create(resource, namespace_, object, std::move(callback));
}

void ConsoleSession::updateObject(const ResourceRef &resource,
                                  const nlohmann::json &object,
                                  RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    const auto meta = object.find("metadata");
    const auto text = [&](const char *key) {
        return meta != object.end() && meta->is_object()
            ? QString::fromStdString(meta->value(key, std::string()))
            : QString();
    };
    m_client->update(resource, text("namespace"), text("name"), object, std::move(callback));
}

void ConsoleSession::patchObject(const QString &namespace_,
                                 const QString &name,
                                 const QByteArray &mergePatch,
                                 const QString &subresource,
                                 RestClient::JsonCallback callback)
{
    if (auto refusal = writeRefusal()) {
        callback(*refusal);
        return;
    }
    m_client->patch(m_resource.ref(),
                    namespace_,
                    name,
                    PatchType::Merge,
                    mergePatch,
                    std::move(callback),
                    subresource);
}

} // namespace reconscope::ui
