#pragma once

#include "controller/kube/restclient.h"
#include "controller/labs/conflictlab.h"
#include "controller/reconcile/stepsequence.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace reconscope::controller::labs {

// The conflict lab's setup, as one straight list of steps: the design's CRD (installed when
// absent, then waited on until Established), the lab namespace (created when absent), and the run's
// objects, labelled with its id. Before the namespace and the objects it asks whether the lab was
// cancelled, and if so ends early with success; the lab cleans up what exists.
class ConflictLabSetup final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConflictLabSetup)

public:
    enum class Stage { CheckingCrd, InstallingCrd, PreparingNamespace, CreatingObjects };

    // admin must outlive the setup.
    ConflictLabSetup(kube::RestClient *admin,
                     const ConflictLabOptions &options,
                     QString runId,
                     QObject *parent = nullptr);

    // done gets success, or a failure whose message says what failed; nothing runs after it.
    void run(std::function<bool()> cancelled, reconcile::StepSequence::Done done);

    // The objects' names, once the objects step began (empty before).
    const QStringList &names() const { return m_names; }
    bool crdInstalled() const { return m_crdInstalled; }

    static apimachinery::ResourceRef resourceFor(ConflictDesign design);
    static QString crdNameFor(ConflictDesign design);
    static QString kindFor(ConflictDesign design); // ConsumerGroup or MixedConsumerGroup
    // What the Git repository holds for object index: the topic and the desired count.
    static nlohmann::json gitSpec(int index, std::int64_t replicas);
    // The whole manifest as server-side apply sends it (designs d and e); in design e its spec
    // carries currentReplicas too, as exported from the live object when it was made.
    static nlohmann::json gitManifest(ConflictDesign design,
                                      const QString &namespace_,
                                      const QString &name,
                                      int index,
                                      std::int64_t replicas);

signals:
    void stageStarted(reconscope::controller::labs::ConflictLabSetup::Stage stage,
                      const QString &text);

private:
    using StepFunction = void (ConflictLabSetup::*)(const reconcile::StepControl &);
    reconcile::Step step(const char *name, StepFunction function);
    void checkCrd(const reconcile::StepControl &control);
    void installCrd(const reconcile::StepControl &control);
    void waitEstablished(const reconcile::StepControl &control, int attempt);
    void awaitEstablished(const reconcile::StepControl &control);
    void prepareNamespace(const reconcile::StepControl &control);
    void createNamespace(const reconcile::StepControl &control);
    void createObjects(const reconcile::StepControl &control);
    void createObject(const reconcile::StepControl &control, int index, int attempt);
    // Ends the setup with a failure; later answers are dropped.
    void fail(const reconcile::StepControl &control, const QString &message);
    bool wasCancelled() const { return m_cancelled && m_cancelled(); }

    kube::RestClient *m_admin;
    ConflictLabOptions m_options;
    QString m_runId;
    std::function<bool()> m_cancelled;
    QStringList m_names;
    int m_pendingCreates = 0;
    bool m_crdInstalled = false;
    bool m_failed = false;
};

} // namespace reconscope::controller::labs
