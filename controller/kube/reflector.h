#pragma once

#include "controller/apimachinery/status.h"
#include "controller/kube/backoff.h"
#include "controller/kube/fastlist/lazyhash.h"
#include "controller/kube/objectmeta.h"
#include "controller/kube/restclient.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QSemaphore>
#include <QString>
#include <QThreadPool>

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

namespace reconscope::controller::kube {

// What a Reflector's preparer makes of a listed object on a pool thread (its own subclass).
struct PreparedObject
{
    virtual ~PreparedObject() = default;
};

// One change the reflector saw: an object (raw JSON) added or changed, or a key that went away.
struct Delta
{
    enum class Type { Upsert, Delete };
    Type type = Type::Upsert;
    ObjectMeta meta; // for deletes found by a relist only the key fields are set
    QByteArray object; // empty for deletes found by a relist, and for prepared list items
    // For list items when a preparer is set: what it made of the object (object is then empty).
    std::shared_ptr<PreparedObject> prepared;
};

// Where the reflector is, for a status line: "watching", "reconnecting in 3 s", "relisting".
struct ReflectorState
{
    enum class Phase { Idle, Listing, Watching, Reconnecting, Relisting };
    Phase phase = Phase::Idle;
    int retryInMs = 0; // for Reconnecting
    QString lastError; // what made it reconnect or relist

    QString toString() const;
};

// client-go's reflector (reconciler.md section 3) on top of RestClient: list (RV "0" first, ""
// after a 410, else the last synced RV), then watch from the list's RV with bookmarks and a
// random timeoutSeconds in [300, 600). A 410 (HTTP or ERROR event) relists and reports objects
// that vanished as deletes; other failures retry after Backoff; a watch that ends normally is
// resumed at once from the last RV; a Retry-After from the server is a lower bound on the wait.
// Time is injectable so tests never wait for real delays.
class Reflector final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Reflector)

public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    using Scheduler = std::function<void(std::chrono::milliseconds, std::function<void()>)>;
    using Random = std::function<double()>; // [0, 1)
    // Turns a listed object into what the consumer keeps; called on pool threads, concurrently.
    // A non-null result comes with *meta filled from what the preparer read (key fields and
    // resourceVersion at least); for nullptr the reflector reads the metadata itself
    // (ObjectMeta::peek) and the delta carries neither bytes nor a prepared object.
    using Preparer
        = std::function<std::shared_ptr<PreparedObject>(QByteArrayView object, ObjectMeta *meta)>;

    Reflector(RestClient *client,
              apimachinery::ResourceRef resource,
              QString namespace_ = {},
              QObject *parent = nullptr);
    ~Reflector() override;

    void setLabelSelector(const QString &selector) { m_labelSelector = selector; }
    void setFieldSelector(const QString &selector) { m_fieldSelector = selector; }
    void setClock(Clock clock) { m_clock = std::move(clock); }
    void setScheduler(Scheduler scheduler) { m_scheduler = std::move(scheduler); }
    void setRandom(Random random) { m_random = std::move(random); }
    // The retry backoff (client-go's by default); tests and the soak use short ones.
    void setBackoff(const Backoff::Parameters &parameters) { m_backoff = Backoff(parameters); }
    // Lists then stream: items are decoded as the body arrives and handed in batches to a pool
    // of threads that run the preparer while the next bytes are received; list deltas carry its
    // result instead of the bytes. Bursts of watch events are prepared on the same pool (their
    // deltas carry the result and the bytes). Before start().
    void setPreparer(Preparer preparer) { m_preparer = std::move(preparer); }
    // How the pages of a streamed list travel (ListStream::transport; null: as every request).
    // Before start().
    void setListTransport(std::shared_ptr<const PageTransport> transport)
    {
        m_listTransport = std::move(transport);
    }
    // With a preparer: the first list (nothing synced or known yet) is delivered as it streams
    // in, each prepared batch's deltas as soon as they are taken in list order, instead of all
    // at once when it completes. Should the list start over (an expired continue token) or fail,
    // the objects delivered before that the final list lacks come as deletes before listSynced.
    // Relists are delivered whole, as without it. Before start().
    void setProgressiveFirstList(bool progressive) { m_progressiveFirstList = progressive; }

    void start();
    void stop();

    QString resourceVersion() const { return m_resourceVersion; }
    ReflectorState state() const { return m_state; }
    bool hasSynced() const { return m_synced; }
    const apimachinery::ResourceRef &resource() const { return m_resource; }

signals:
    // Changes in stream order; a relist delivers all items as upserts plus the deletes.
    void deltasReceived(const QList<reconscope::controller::kube::Delta> &deltas);
    // A list completed (the first one means the cache is complete).
    void listSynced(const QString &resourceVersion);
    // The watch's events as they came, before the reflector takes them: their types, bookmarks
    // and ERROR events included (what a recorder keeps).
    void watchEventsReceived(const QList<reconscope::controller::kube::WatchEvent> &events);
    void stateChanged(const reconscope::controller::kube::ReflectorState &state);

private:
    void list();
    void watch();
    struct ListRun;
    struct ListBatch;
    void handleList(models::Result<ListPage, apimachinery::ApiError> result,
                    const std::shared_ptr<ListRun> &run = {});
    void submitBatch(const std::shared_ptr<ListRun> &run);
    void handleBatchPrepared(const std::shared_ptr<ListRun> &run,
                             const std::shared_ptr<ListBatch> &batch);
    void completeList(ListPage &page, const std::shared_ptr<ListRun> &run);
    // A progressive run's delivered objects become known for good (its list starts over or
    // fails): the list that completes later reports those it lacks as deletes.
    void keepDelivered(ListRun &run);
    void handleEvents(const QList<WatchEvent> &events);
    // Runs the preparer over the Added/Modified events (the pool's threads and this one) when
    // there are at least MinParallelEvents of them; else leaves `prepared` empty.
    void prepareEvents(const QList<WatchEvent> &events,
                       QList<std::shared_ptr<PreparedObject>> &prepared,
                       QList<ObjectMeta> &metas);
    void ensurePool();
    static constexpr qsizetype MinParallelEvents = 16;
    void handleWatchFinished(const std::optional<apimachinery::ApiError> &error);
    void relistAfterExpiry(const QString &message);
    // After the backoff's next delay, or the server's Retry-After when that is longer.
    void retryLater(std::function<void()> action, const QString &error, int retryAfterSeconds = 0);
    void setPhase(ReflectorState::Phase phase, int retryInMs = 0, const QString &error = {});

    RestClient *m_client;
    apimachinery::ResourceRef m_resource;
    QString m_namespace;
    QString m_labelSelector;
    QString m_fieldSelector;
    Clock m_clock;
    Scheduler m_scheduler;
    Random m_random;
    Backoff m_backoff;

    bool m_running = false;
    quint64 m_generation = 0; // invalidates scheduled actions and callbacks after stop()
    bool m_synced = false;
    bool m_lastSyncUnavailable = false; // the last list or watch said 410: list at ""
    QString m_lastSyncResourceVersion;
    QString m_resourceVersion;
    // (namespace, name) -> resourceVersion of the objects the consumer has (keyed by the pair
    // rather than "ns/name": a 50k-object list then builds no key strings).
    using KnownKey = std::pair<QString, QString>;
    using Known = QHash<KnownKey, QString>;
    static KnownKey knownKey(const ObjectMeta &meta) { return { meta.namespace_, meta.name }; }
    using KnownEntry = std::pair<KnownKey, QString>;
    // A first list's keys are noted in list order and hashed on first use or a while after the
    // list's deltas are on their way (HashNotedLaterMs).
    LazyHash<KnownKey, QString> m_known;
    QPointer<WatchConnection> m_watch;
    ReflectorState m_state;
    Preparer m_preparer;
    std::shared_ptr<const PageTransport> m_listTransport;
    bool m_progressiveFirstList = false;
    std::shared_ptr<ListRun> m_listRun; // the streaming list in progress, if any
    std::unique_ptr<QThreadPool> m_pool;
    std::shared_ptr<QSemaphore> m_slots; // batches the pool may hold at once
};

} // namespace reconscope::controller::kube

Q_DECLARE_METATYPE(reconscope::controller::kube::Delta)
Q_DECLARE_METATYPE(reconscope::controller::kube::ReflectorState)
