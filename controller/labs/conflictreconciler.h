#pragma once

#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/labs/conflictlab.h"
#include "controller/reconcile/reconciler.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace reconscope::controller::labs {

// The conflict lab's reconciler, run by a ControllerLoop (one worker): it reads the object from its
// informer cache, "works" for reconcileWorkMs (the Kafka admin calls of the real operator: the
// window in which the object can change), then writes the observed count as the design says
// (a: PUT /status with the cached object's resourceVersion; b: merge patch /status without one;
// c: PUT of the whole cached object with spec.currentReplicas; d: apply of /status; e: apply of
// spec.currentReplicas, forced after a conflict). A 409 or another error fails the
// reconcile, so the loop requeues the key rate limited; a written or already observed object
// succeeds.
//
// It writes only while accepting (the lab's run and drain); a reconcile started otherwise ends at
// once without counting, one whose work ends otherwise ends without writing. stop() drops every
// answer still to come.
class ConflictLabReconciler final : public QObject, public reconcile::AsyncReconciler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConflictLabReconciler)

public:
    // client must outlive it; it counts into sink.
    ConflictLabReconciler(kube::RestClient *client,
                          const ConflictLabOptions &options,
                          ConflictWriterSink sink,
                          QObject *parent = nullptr);

    void reconcileAsync(const QString &key, Completion complete) override;

    // The informer cache, fed from the reflector's deltas; returns the keys stored or changed.
    // version gets each object stored, in watch order.
    QStringList
    applyDeltas(const QList<kube::Delta> &deltas,
                const std::function<void(const QString &, const nlohmann::json &)> &version);
    const QHash<QString, nlohmann::json> &cache() const { return m_cache; }

    void setAccepting(bool accepting) { m_accepting = accepting; }
    void stop() { m_stopped = true; }

    // The reconciler's field: status.observedReplicas, or spec.currentReplicas in the mixed design.
    static std::optional<std::int64_t> observedOf(ConflictDesign design,
                                                  const nlohmann::json &object);

private:
    void writeObserved(const QString &key,
                       const nlohmann::json &object,
                       std::int64_t observed,
                       Completion complete);
    // Counts a write's answer (a write, a 409 or another error, noted once) and completes.
    void finishWrite(const QString &key,
                     std::int64_t observed,
                     const kube::RestClient::JsonResult &result,
                     Completion complete);
    // Designs d and e: a server-side apply of the observed count (/status, or spec in e) as
    // field manager consumergroup-reconciler; in e, after a 409, again with force when the
    // options say so.
    void applyObserved(const QString &key,
                       const nlohmann::json &object,
                       std::int64_t observed,
                       bool force,
                       Completion complete);

    kube::RestClient *m_client;
    ConflictLabOptions m_options;
    ConflictWriterSink m_sink;
    QHash<QString, nlohmann::json> m_cache;
    bool m_accepting = false;
    bool m_stopped = false;
};

// object[first][second] as an integer, when it is one.
std::optional<std::int64_t>
integerAt(const nlohmann::json &object, const char *first, const char *second);

} // namespace reconscope::controller::labs
