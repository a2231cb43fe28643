#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/apitypes.h"
#include "controller/cluster/clustertypes.h"
#include "controller/cluster/controllers/controllermanager.h"
#include "controller/cluster/registry/admission.h"
#include "controller/cluster/registry/statuspatch.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/registry/verbs.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDateTime>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace reconscope::controller::cluster {

class ApiServer;
class ClusterWatch;

// The embedded cluster's state and API semantics (shared/spec/kube-api.md), a facade over its
// parts as kube-apiserver is split: the Store (registry of served types, objects, one
// cluster-wide revision counter, the bounded event history for watches and consistent paging),
// Admission, one function per verb (registry/verbs.h; watches are ClusterWatch), the status
// fast path (StatusPatchInPlace), and the ControllerManager with the controllers an embedded
// cluster needs to never leave objects stuck (CRD establishing and cleanup, namespace deletion,
// garbage collection of owner references).
//
// Threading: a Cluster and everything it hands out (WatchStreams included) must be used from the
// thread it lives in. The transport calls ApiServer::handle() on that thread.
//
// In-process API (for the workload simulator and demo seeding): get/list/create/update/
// updateStatus/patch/remove take a ResourceRef and behave exactly like the HTTP verbs (the same
// validation, admission, resourceVersion and generation rules, the same ApiError), and subscribe()
// delivers every committed change synchronously after the commit. Callbacks may call back into
// the Cluster. For example:
//
//   Cluster cluster; // built-ins, namespaces default/kube-*, the CustomApp CRD
//   const ResourceRef apps{u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s};
//   auto created = cluster.create(apps, u"default"_s, object); // ApiResult<WriteResult>
//   if (!created) qWarning() << created.error().message;       // e.g. 409 AlreadyExists
//   cluster.patch(apps, u"default"_s, u"web"_s, PatchType::Merge,
//                 R"({"status":{"readyReplicas":2}})", /*statusSubresource=*/true);
//   const int id = cluster.subscribe([](const ClusterEvent &event) {
//       // event.type, event.object->json (compact JSON), event.previous (null for ADDED)
//   });
//
// Fault injection: setHistoryWindow(n) bounds the retained events, compact() drops them all;
// watches and continue tokens from before the window then get 410 Expired.
class Cluster final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Cluster)

public:
    using Clock = ClusterClock;

    // Starts with the built-in kinds, namespaces default/kube-system/kube-public/kube-node-lease
    // and, unless installCustomAppCrd is false, the CustomApp CRD from the Qt resources.
    explicit Cluster(QObject *parent = nullptr, bool installCustomAppCrd = true);
    ~Cluster() override;

    void setClock(Clock clock); // for tests; default QDateTime::currentDateTimeUtc

    // --- registry ---
    // Served types (built-ins first, then CRD versions in CRD order).
    QList<ResourceType> servedTypes() const;
    std::optional<ResourceType> findType(const apimachinery::ResourceRef &ref) const;

    // --- in-process verbs ---
    apimachinery::ApiResult<nlohmann::json>
    get(const apimachinery::ResourceRef &ref, const QString &ns, const QString &name) const;
    // A list object ({"apiVersion","items","kind","metadata"}) parsed into JSON.
    apimachinery::ApiResult<nlohmann::json> list(const apimachinery::ResourceRef &ref,
                                                 const QString &ns,
                                                 const apimachinery::ListOptions &options
                                                 = {}) const;
    apimachinery::ApiResult<WriteResult> create(const apimachinery::ResourceRef &ref,
                                                const QString &ns,
                                                nlohmann::json object,
                                                const WriteOptions &options = {});
    apimachinery::ApiResult<WriteResult> update(const apimachinery::ResourceRef &ref,
                                                const QString &ns,
                                                const QString &name,
                                                nlohmann::json object,
                                                const WriteOptions &options = {});
    apimachinery::ApiResult<WriteResult> updateStatus(const apimachinery::ResourceRef &ref,
                                                      const QString &ns,
                                                      const QString &name,
                                                      nlohmann::json object,
                                                      const WriteOptions &options = {});
    apimachinery::ApiResult<WriteResult> patch(const apimachinery::ResourceRef &ref,
                                               const QString &ns,
                                               const QString &name,
                                               apimachinery::PatchType type,
                                               const QByteArray &patch,
                                               bool statusSubresource = false,
                                               const WriteOptions &options = {});
    // 200 with the object while finalizers hold it, else the Success Status.
    apimachinery::ApiResult<WriteResult> remove(const apimachinery::ResourceRef &ref,
                                                const QString &ns,
                                                const QString &name,
                                                const apimachinery::DeleteOptions &options = {});

    // Watch as over HTTP: events are written as lines to the sink given to start().
    apimachinery::ApiResult<std::shared_ptr<WatchStream>>
    watch(const apimachinery::ResourceRef &ref,
          const QString &ns,
          const apimachinery::WatchOptions &options);

    // Every committed change, synchronously after the commit. Returns an id for unsubscribe().
    int subscribe(std::function<void(const ClusterEvent &)> callback);
    void unsubscribe(int id);

    // --- state and fault injection ---
    qint64 currentResourceVersion() const { return m_store.revision(); }
    // The number of events kept for watches and paging (default 10000); older RVs get 410.
    void setHistoryWindow(int events);
    int historyWindow() const { return m_store.historyWindow(); }
    // Drops the whole history: every earlier RV becomes too old.
    void compact();
    qint64 compactedResourceVersion() const { return m_store.compactedRevision(); }
    // Interval of the periodic watch bookmarks (default 60 s).
    void setBookmarkInterval(int milliseconds) { m_bookmarkIntervalMs = milliseconds; }
    int bookmarkInterval() const { return m_bookmarkIntervalMs; }
    // Status patches that touch the status alone are applied to the stored status alone, the
    // rest of the stored text kept as is (the same outcome, checked by tst_writepath and the
    // fuzz_objectjson target against this switch); false sends every write the general way.
    void setWriteShortcuts(bool enabled) { m_statusInPlace.setEnabled(enabled); }
    // Status patches applied to the stored status alone so far.
    qint64 statusPatchesInPlace() const { return m_statusInPlace.count(); }
    // Number of live watches.
    int watchCount() const { return m_store.watchCount(); }
    qsizetype objectCount() const;

signals:
    void resourceTypesChanged();

private:
    friend class ApiServer;
    friend class ClusterWatch;

    void installBuiltins();
    void installCrdObject(const nlohmann::json &crd);

    // Declared in the order they are built: each part takes the ones above it.
    Clock m_clock;
    Store m_store;
    Admission m_admission;
    StatusPatchInPlace m_statusInPlace;
    ControllerManager m_controllers;
    mutable LastRead m_lastRead; // get() leaves what it parsed here
    VerbContext m_verbs;
    int m_bookmarkIntervalMs = 60000;
};

} // namespace reconscope::controller::cluster
