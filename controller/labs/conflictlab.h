#pragma once

#include "controller/fieldowner/fightdetector.h"
#include "controller/kube/clientconfig.h"
#include "controller/kube/reflector.h"
#include "controller/kube/restclient.h"
#include "controller/labs/conflictaudit.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <array>
#include <functional>
#include <memory>
#include <optional>

class QTimer;

namespace reconscope::controller::reconcile {
class ControllerLoop;
class RealClock;
struct ReconcileOutcome;
} // namespace reconscope::controller::reconcile

namespace reconscope::controller::labs {

class ConflictGitOpsWriter;
class ConflictLabReconciler;
class ConflictLabSetup;

// The API designs of the seed's Kafka consumer-group story: three with updates and patches, two
// under server-side apply (issue 22).
enum class ConflictDesign {
    // (a) spec/status separated (ConsumerGroup); the reconciler PUTs /status with the
    // resourceVersion of the object it reconciled.
    SeparatedPut,
    // (b) the same CRD; the reconciler merge-patches /status without a resourceVersion.
    SeparatedMergePatch,
    // (c) the seed's mixed design (MixedConsumerGroup): the observed count in spec.currentReplicas,
    // no status subresource; both writers PUT the whole object.
    Mixed,
    // (d) spec/status separated under server-side apply: GitOps applies the Git manifest's spec
    // (fieldManager gitops, forced, as Flux does), the reconciler applies /status with its own
    // manager. Nobody else owns what either applies: no conflicts, no lost updates.
    SeparatedApply,
    // (e) the mixed design under server-side apply: the Git manifest carries
    // spec.currentReplicas too (as a manifest exported from a live object does) and GitOps applies
    // it forced; the reconciler applies its observed count into spec.currentReplicas with its own
    // manager: a conflict with gitops, and, when it then forces (reconcilerForces), the field's
    // ownership going back and forth with every GitOps sync.
    MixedApply,
};

QString conflictDesignLetter(ConflictDesign design); // "a" ... "e"
std::optional<ConflictDesign> conflictDesignFromLetter(const QString &letter);
QString conflictDesignTitle(ConflictDesign design); // one line for tables and charts
QString conflictDesignShortTitle(ConflictDesign design); // "(d) apply spec + /status": a checkbox
// The mixed CRD (MixedConsumerGroup): designs c and e.
bool isMixedDesign(ConflictDesign design);
// Both writers use server-side apply: designs d and e.
bool isApplyDesign(ConflictDesign design);

// The field managers the lab's writers are named as: their fieldManager under server-side apply,
// the start of their User-Agent otherwise (kube-apiserver names Update managers after it).
inline constexpr const char *conflictGitOpsManager = "gitops";
inline constexpr const char *conflictReconcilerManager = "consumergroup-reconciler";

struct ConflictLabOptions
{
    ConflictDesign design = ConflictDesign::SeparatedPut;
    int durationMs = 10'000; // how long the GitOps writer keeps re-applying
    int objects = 3;
    QString namespace_ = QStringLiteral("reconscope-conflict-lab");
    // GitOps re-applies each object every gitopsIntervalMs ± 50 % (a compressed sync loop).
    int gitopsIntervalMs = 50;
    // What the reconciler spends between reading the object and writing what it observed (the
    // Kafka admin calls of the real operator); this is the window in which the object can change.
    int reconcileWorkMs = 15;
    // After the run: how long the reconciler may keep working to catch up before the audit.
    int drainTimeoutMs = 3'000;
    // A GitOps sync gives up after this many 409s in a row (the next sync starts over).
    int gitopsMaxAttempts = 5;
    // Design e: after an apply conflict the reconciler applies again with force, taking the
    // field (false: the conflict fails the reconcile, which is retried rate limited and conflicts
    // again).
    bool reconcilerForces = true;
    // What the lab's fight detector (fed every version the watch sees) calls a fight.
    fieldowner::FightSettings fightSettings;
    quint32 seed = 1;
};

// What one writer did during a run.
struct ConflictWriterFigures
{
    qint64 conflicts = 0; // 409 answers
    qint64 writes = 0; // acknowledged (2xx) writes
    qint64 lostUpdates = 0; // see ConflictAudit
    qint64 generationBumps = 0; // acknowledged writes that raised metadata.generation
    // GitOps: sync cycles (one new intended value applied, with its retries); the reconciler:
    // Reconcile() calls, including those that found nothing to write.
    qint64 reconciles = 0;
    qint64 errors = 0; // other failures (not 409)
    // Designs d and e: the 409s of server-side applies (conflicts with the other manager), and
    // the versions in which this writer took the ownership of a field of the lab from the other
    // writer (managedFields: GitOps' spec.replicas, the reconciler's observed count).
    qint64 applyConflicts = 0;
    qint64 ownershipChanges = 0;

    nlohmann::json toJson() const;
};

struct ConflictLabResult
{
    ConflictDesign design = ConflictDesign::SeparatedPut;
    int durationMs = 0;
    int objects = 0;
    std::array<ConflictWriterFigures, 2> writers; // by ConflictWriter
    qint64 versionsObserved = 0;
    qint64 unmatchedAcks = 0;
    bool crdInstalled = false; // the lab installed the CRD itself
    bool cancelled = false;
    QString error; // empty on success
    QStringList notes;
    // The field-manager fights the detector reported during the run, each once, in the order
    // they started.
    QList<fieldowner::Fight> fights;

    const ConflictWriterFigures &gitops() const { return writers[0]; }
    const ConflictWriterFigures &reconciler() const { return writers[1]; }
    // {"design","title","seconds","objects","gitops":{...},"reconciler":{...},...}
    nlohmann::json toJson() const;
    // A plain-text table of the figures per writer.
    QString toText() const;
};

// Where one writer of the lab counts: its figures, the run's notes, and its acknowledged writes
// (the object's key, the value it set, the server's answer), for the audit.
struct ConflictWriterSink
{
    ConflictWriterFigures &figures;
    QStringList &notes;
    std::function<void(const QString &key, std::int64_t value, const nlohmann::json &answer)>
        acknowledged;
};

// The conflict lab engine: against any Kubernetes API reached through a ClientConfig, a GitOps
// writer and a reconciler fight over K objects for a while, under one of the three designs.
//
// Built from four parts, run one after the other on the calling thread's event loop:
// - the setup (ConflictLabSetup): the design's CRD, the lab namespace, K objects labelled with the
//   run's id;
// - the GitOps writer (ConflictGitOpsWriter), re-applying new intended values;
// - the reconciler (ConflictLabReconciler), informer-driven (a Reflector feeding its cache) and run
//   by a ControllerLoop with one worker, requeued rate limited on 409;
// - the audit (ConflictAudit): every committed version (the reflector's watch) and every
//   acknowledged write go to it.
// After the run the reconciler drains, the final objects are read, the audit is done and the
// objects are deleted.
class ConflictLab final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConflictLab)

public:
    ConflictLab(kube::ClientConfig config, ConflictLabOptions options, QObject *parent = nullptr);
    ~ConflictLab() override;

    static constexpr const char *LabelKey = "reconscope.io/conflict-lab";

    const ConflictLabOptions &options() const { return m_options; }
    // The label every object of this run carries (key=value).
    QString runLabel() const;
    // The requests the lab sends, one line each ("PATCH /apis/.../consumergroups/NAME ..."), to
    // show before writing to a real cluster.
    static QStringList plannedRequests(const ConflictLabOptions &options);

    void start();
    // Stops the writers early; the audit and the cleanup still run, finished() follows.
    void cancel();
    bool isRunning() const { return m_phase != Phase::Idle && m_phase != Phase::Finished; }
    // The figures so far (writers' counters; the audit's only after the run).
    ConflictLabResult currentFigures() const;

signals:
    // fraction in [0, 1]; text says what the lab is doing.
    void progress(double fraction, const QString &text);
    void figuresChanged(const reconscope::controller::labs::ConflictLabResult &figures);
    void finished(const reconscope::controller::labs::ConflictLabResult &result);

private:
    enum class Phase {
        Idle,
        InstallingCrd,
        PreparingNamespace,
        CreatingObjects,
        Syncing,
        Running,
        Draining,
        Auditing,
        CleaningUp,
        Finished
    };

    apimachinery::ResourceRef resource() const;
    ConflictVersion versionOf(const QString &key, const nlohmann::json &object) const;

    void setPhase(Phase phase, const QString &text);
    void fail(const QString &message);

    void handleSetupStage(int stage, const QString &text);
    void handleSetupDone(const reconcile::ReconcileOutcome &outcome);
    void startReflector();
    void startRun();
    void tick();
    void stopWriters();
    void checkDrained();
    void readFinalObjects();
    void audit();
    void stopParts();
    void cleanUp();
    void finish();

    void handleDeltas(const QList<kube::Delta> &deltas);
    void trackOwnership(const QString &key, const nlohmann::json &object);
    void recordAck(const QString &key,
                   ConflictWriter writer,
                   std::int64_t value,
                   const nlohmann::json &answer);

    kube::ClientConfig m_config;
    ConflictLabOptions m_options;
    QString m_runId;
    Phase m_phase = Phase::Idle;
    quint64 m_epoch = 0; // invalidates callbacks after the writers stopped
    bool m_cancelRequested = false;

    // One client per writer (separate connections, as two processes would have), one for setup.
    kube::RestClient *m_admin = nullptr;
    kube::RestClient *m_gitopsClient = nullptr;
    kube::RestClient *m_reconcilerClient = nullptr;
    ConflictLabSetup *m_setup = nullptr;
    ConflictGitOpsWriter *m_gitops = nullptr;
    ConflictLabReconciler *m_reconciler = nullptr;
    kube::Reflector *m_reflector = nullptr;
    std::unique_ptr<reconcile::RealClock> m_clock;
    reconcile::ControllerLoop *m_loop = nullptr;
    QTimer *m_tickTimer = nullptr;
    QElapsedTimer m_elapsed;
    int m_pendingDeletes = 0;

    ConflictAudit m_audit;
    ConflictLabResult m_result;
    // Per object, who of the two writers owned each lab field (spec.replicas, the observed
    // count) in the last version seen: bit 0 GitOps, bit 1 the reconciler.
    QHash<QString, std::array<int, 2>> m_owners;
    // The console's fight detector over the same versions, as it would see them.
    fieldowner::FightDetector m_fightDetector;
};

} // namespace reconscope::controller::labs

Q_DECLARE_METATYPE(reconscope::controller::labs::ConflictLabResult)
