#pragma once

#include "controller/kube/restclient.h"
#include "controller/record/recordingset.h"
#include "controller/record/replaystate.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace reconscope::controller::record {

// Plays a recording into a cluster, for the labs (issue 24): the objects of the recorded
// resources, Events aside, made again as recorded, in order, at the recorded pace (speed times as
// fast) or as fast as the cluster takes the writes (speed 0). Before a resource's first object,
// its recorded CRD is installed where the cluster lacks it, and waited for until Established;
// each namespace is created where it is missing. Each change is made as a client makes it:
// - an object new to the cluster: created without what the server sets (uid, resourceVersion,
//   times, generation, managedFields) and without owner references (their owners' uids belong to
//   the recorded cluster); then its status through /status, where the resource has that
//   subresource and the object a status (or no status, where the cluster's object has one), its
//   observedGenerations moved by what the cluster's
//   generation differs from the recorded one (a status as far behind its spec as recorded, so
//   that the lifecycle reads the same state); then deleted when it was recorded being deleted,
//   so that its finalizers hold it (Terminating);
// - a changed object: replaced (PUT at the resourceVersion the cluster last gave), then its status,
//   then deleted when its deletion began;
// - an object deleted: its finalizers removed when it has any, and deleted.
// A write refused with a conflict (another writer, a reconciler running there) is made again once
// on the object as the cluster has it now. Any other refusal ends the play with an error naming
// the object and the write. Everything runs on the player's thread.
class RecordingPlayer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RecordingPlayer)

public:
    RecordingPlayer(kube::RestClient *client,
                    std::unique_ptr<RecordSource> source,
                    double speed,
                    QObject *parent = nullptr);
    ~RecordingPlayer() override;

    // Called after each recorded change was made, with the writes it took; the play goes on when
    // `resume` is called (at once, later, or never). Before start().
    using AfterChange = std::function<void(
        const ReplayChange &change, qint64 writes, std::function<void()> resume)>;
    void setAfterChange(AfterChange hook) { m_afterChange = std::move(hook); }

    void start();
    // What the recording says so far (its resources, CRDs, objects).
    const ReplayState &state() const { return m_state; }
    // Recorded changes made so far, and the writes they took.
    qint64 changesPlayed() const { return m_changesPlayed; }
    qint64 writes() const { return m_writes; }

signals:
    // Once: the whole recording was played (error empty), or why it stopped.
    void finished(const QString &error);

private:
    using Done = std::function<void()>;
    // The cluster's side of one recorded object, as its last answer told.
    struct Live
    {
        QString resourceVersion;
        qint64 generation = 0;
        bool status = false; // the object has one here
        bool finalizers = false;
        bool deleting = false;
    };

    void pump();
    void playChanges();
    void play(const ReplayChange &change, Done done);
    void upsert(const ReplayChange &change, Done done);
    void writeSpec(const ReplayChange &change, bool retried, Done done);
    void writeStatus(const ReplayChange &change, bool retried, Done done);
    void beginDeletion(const ReplayChange &change, Done done);
    void remove(const ReplayChange &change, Done done);
    // Reads the object as the cluster has it now into m_live (gone: no entry), then `then`.
    void refresh(const ReplayChange &change, Done then);
    void ensureResource(int resource, Done done);
    void ensureNamespace(const QString &namespace_, Done done);
    void waitEstablished(const QString &crdName, int attemptsLeft, Done done);

    // What a write answered, into m_live; false (and the play ended) on a refusal.
    bool took(const ReplayChange &change,
              const QString &write,
              const kube::RestClient::JsonResult &answer);
    void fail(const QString &message);
    // "customapps.infrastructure.internal.net demo/web": the object, in m_live and in errors.
    QString liveKey(const ReplayChange &change) const;
    bool hasStatusSubresource(int resource) const;

    kube::RestClient *m_client;
    std::unique_ptr<RecordSource> m_source;
    double m_speed;
    AfterChange m_afterChange;
    ReplayState m_state;
    QList<ReplayChange> m_changes; // of the record being played
    qsizetype m_nextChange = 0;
    QHash<QString, Live> m_live; // by resource and key
    QSet<QString> m_readyResources; // qualified names whose CRD is there
    QSet<QString> m_namespaces; // known to exist
    std::optional<qint64> m_firstTime;
    QElapsedTimer m_clock;
    bool m_done = false;
    qint64 m_changesPlayed = 0;
    qint64 m_writes = 0;
};

} // namespace reconscope::controller::record
