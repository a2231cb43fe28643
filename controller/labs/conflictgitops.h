#pragma once

#include "controller/kube/restclient.h"
#include "controller/labs/conflictlab.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QObject>
#include <QRandomGenerator>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>

namespace reconscope::controller::labs {

// The conflict lab's GitOps writer: it re-applies each object's Git manifest with a new intended
// spec.replicas every gitopsIntervalMs ± 50 % (designs a/b: a merge patch without resourceVersion,
// as `kubectl apply` of a custom resource does; design c: GET, then PUT of the Git manifest's spec
// at the live resourceVersion, re-GET and re-apply on 409, up to gitopsMaxAttempts; designs d/e:
// a server-side apply of the whole manifest as field manager "gitops", forced, as Flux does).
//
// Its life: start() syncs and retries; drain() starts no new sync but lets retries finish;
// settle() retries no more but still counts answers; stop() drops every answer still to come.
class ConflictGitOpsWriter final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConflictGitOpsWriter)

public:
    // client must outlive it; it counts into sink.
    ConflictGitOpsWriter(kube::RestClient *client,
                         const ConflictLabOptions &options,
                         ConflictWriterSink sink,
                         QObject *parent = nullptr);

    void start(const QStringList &names);
    void drain();
    void settle();
    void stop();
    // No sync is in flight.
    bool isIdle() const { return m_inFlight.isEmpty(); }

private:
    enum class State { Idle, Running, Draining, Settling, Stopped };

    void schedule(int index);
    void sync(int index);
    void applyMixed(int index, std::int64_t intended, int attempt);
    void handleAnswer(int index,
                      std::int64_t intended,
                      int attempt,
                      const kube::RestClient::JsonResult &result);
    apimachinery::ResourceRef resource() const;

    kube::RestClient *m_client;
    ConflictLabOptions m_options;
    ConflictWriterSink m_sink;
    QRandomGenerator m_random;
    State m_state = State::Idle;
    QStringList m_names;
    QSet<int> m_inFlight;
    QHash<int, std::int64_t> m_nextValue;
};

} // namespace reconscope::controller::labs
