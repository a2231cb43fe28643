#include "controller/labs/conflictlab.h"

#include "controller/fieldowner/managedfields.h"
#include "controller/labs/conflictgitops.h"
#include "controller/labs/conflictlabsetup.h"
#include "controller/labs/conflictreconciler.h"
#include "controller/reconcile/clock.h"
#include "controller/reconcile/controllerloop.h"
#include "models/objectsummary.h"

#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

namespace {

constexpr int tickMs = 200;

QString randomRunId(QRandomGenerator &random)
{
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString id;
    for (int i = 0; i < 5; ++i)
        id += QChar::fromLatin1(alphabet[random.bounded(int(sizeof(alphabet) - 1))]);
    return id;
}

QString resourceVersionOf(const json &object)
{
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
        return {};
    return QString::fromStdString(object["metadata"].value("resourceVersion", ""));
}

} // namespace

QString conflictDesignLetter(ConflictDesign design)
{
    switch (design) {
    case ConflictDesign::SeparatedPut:
        return u"a"_s;
    case ConflictDesign::SeparatedMergePatch:
        return u"b"_s;
    case ConflictDesign::Mixed:
        return u"c"_s;
    case ConflictDesign::SeparatedApply:
        return u"d"_s;
    case ConflictDesign::MixedApply:
        return u"e"_s;
    }
    return {};
}

bool isMixedDesign(ConflictDesign design)
{
    return design == ConflictDesign::Mixed || design == ConflictDesign::MixedApply;
}

bool isApplyDesign(ConflictDesign design)
{
    return design == ConflictDesign::SeparatedApply || design == ConflictDesign::MixedApply;
}

std::optional<ConflictDesign> conflictDesignFromLetter(const QString &letter)
{
    const QString l = letter.trimmed().toLower();
    if (l == u"a")
        return ConflictDesign::SeparatedPut;
    if (l == u"b")
        return ConflictDesign::SeparatedMergePatch;
    if (l == u"c")
        return ConflictDesign::Mixed;
    if (l == u"d")
        return ConflictDesign::SeparatedApply;
    if (l == u"e")
        return ConflictDesign::MixedApply;
    return std::nullopt;
}

QString conflictDesignTitle(ConflictDesign design)
{
    switch (design) {
    case ConflictDesign::SeparatedPut:
        return u"(a) spec/status separated, PUT /status with resourceVersion"_s;
    case ConflictDesign::SeparatedMergePatch:
        return u"(b) spec/status separated, merge patch /status without resourceVersion"_s;
    case ConflictDesign::Mixed:
        return u"(c) mixed: observed count in spec, full-object PUTs"_s;
    case ConflictDesign::SeparatedApply:
        return u"(d) spec/status separated, server-side apply of spec (forced) and of /status"_s;
    case ConflictDesign::MixedApply:
        return u"(e) mixed under server-side apply: Git carries the observed count, both apply it"_s;
    }
    return {};
}

QString conflictDesignShortTitle(ConflictDesign design)
{
    switch (design) {
    case ConflictDesign::SeparatedPut:
        return u"(a) PUT /status"_s;
    case ConflictDesign::SeparatedMergePatch:
        return u"(b) merge patch /status"_s;
    case ConflictDesign::Mixed:
        return u"(c) mixed, full PUTs"_s;
    case ConflictDesign::SeparatedApply:
        return u"(d) apply spec + /status"_s;
    case ConflictDesign::MixedApply:
        return u"(e) mixed, apply"_s;
    }
    return {};
}

json ConflictWriterFigures::toJson() const
{
    return json{ { "conflicts", conflicts },           { "writes", writes },
                 { "lostUpdates", lostUpdates },       { "generationBumps", generationBumps },
                 { "reconciles", reconciles },         { "errors", errors },
                 { "applyConflicts", applyConflicts }, { "ownershipChanges", ownershipChanges } };
}

json ConflictLabResult::toJson() const
{
    json notesJson = json::array();
    for (const QString &note : notes)
        notesJson.push_back(note.toStdString());
    json out{ { "design", conflictDesignLetter(design).toStdString() },
              { "title", conflictDesignTitle(design).toStdString() },
              { "seconds", durationMs / 1000.0 },
              { "objects", objects },
              { "gitops", gitops().toJson() },
              { "reconciler", reconciler().toJson() },
              { "versionsObserved", versionsObserved },
              { "unmatchedAcks", unmatchedAcks },
              { "crdInstalled", crdInstalled },
              { "cancelled", cancelled },
              { "notes", notesJson } };
    json fightsJson = json::array();
    for (const fieldowner::Fight &fight : fights)
        fightsJson.push_back(fight.toJson());
    out["fights"] = std::move(fightsJson);
    if (!error.isEmpty())
        out["error"] = error.toStdString();
    return out;
}

QString ConflictLabResult::toText() const
{
    QString text = u"design %1, %2 s, %3 objects\n"_s.arg(conflictDesignTitle(design))
                       .arg(durationMs / 1000.0)
                       .arg(objects);
    const bool apply = isApplyDesign(design);
    text += u"%1 %2 %3 %4 %5 %6 %7"_s.arg(u"writer"_s, -11)
                .arg(u"conflicts"_s, 10)
                .arg(u"writes"_s, 8)
                .arg(u"lostUpdates"_s, 12)
                .arg(u"genBumps"_s, 9)
                .arg(u"reconciles"_s, 11)
                .arg(u"errors"_s, 7);
    if (apply)
        text += u" %1 %2"_s.arg(u"applyConflicts"_s, 15).arg(u"ownershipChanges"_s, 17);
    text += u'\n';
    for (const ConflictWriter writer : { ConflictWriter::GitOps, ConflictWriter::Reconciler }) {
        const auto &f = writers[size_t(writer)];
        text += u"%1 %2 %3 %4 %5 %6 %7"_s.arg(conflictWriterName(writer), -11)
                    .arg(f.conflicts, 10)
                    .arg(f.writes, 8)
                    .arg(f.lostUpdates, 12)
                    .arg(f.generationBumps, 9)
                    .arg(f.reconciles, 11)
                    .arg(f.errors, 7);
        if (apply)
            text += u" %1 %2"_s.arg(f.applyConflicts, 15).arg(f.ownershipChanges, 17);
        text += u'\n';
    }
    for (const fieldowner::Fight &fight : fights)
        text += u"fight: "_s + fight.object + u' ' + fight.describe() + u'\n';
    for (const QString &note : notes)
        text += u"note: "_s + note + u'\n';
    if (!error.isEmpty())
        text += u"error: "_s + error + u'\n';
    return text;
}

// ---------------------------------------------------------------------------------------------

ConflictLab::ConflictLab(kube::ClientConfig config, ConflictLabOptions options, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_options(std::move(options))
    , m_fightDetector(m_options.fightSettings)
{
    m_options.objects = std::max(1, m_options.objects);
    m_options.durationMs = std::max(0, m_options.durationMs);
    m_options.gitopsIntervalMs = std::max(1, m_options.gitopsIntervalMs);
    m_runId = randomRunId(*QRandomGenerator::global());
    m_result.design = m_options.design;
    m_result.durationMs = m_options.durationMs;
    m_result.objects = m_options.objects;
}

ConflictLab::~ConflictLab()
{
    ++m_epoch;
    // The reflector and the loop go before the clients and the clock they use.
    delete m_reflector;
    delete m_loop;
}

QString ConflictLab::runLabel() const
{
    return QString::fromLatin1(LabelKey) + u'=' + m_runId;
}

apimachinery::ResourceRef ConflictLab::resource() const
{
    return ConflictLabSetup::resourceFor(m_options.design);
}

QStringList ConflictLab::plannedRequests(const ConflictLabOptions &options)
{
    const auto ref = ConflictLabSetup::resourceFor(options.design);
    const QString objects = ref.collectionPath(options.namespace_);
    const QString one = ref.objectPath(options.namespace_, u"NAME"_s);
    QStringList lines{
        u"GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/%1 (POST it from "
        "resources/crds when absent)"_s.arg(ref.plural + u".kafka.internal.net"_s),
        u"GET /api/v1/namespaces/%1 (POST it when absent)"_s.arg(options.namespace_),
        u"POST %1  x%2 objects labelled %3=<run id>"_s.arg(objects)
            .arg(options.objects)
            .arg(QString::fromLatin1(LabelKey)),
        u"GET %1?labelSelector=... and watch (the reconciler's informer)"_s.arg(objects),
    };
    switch (options.design) {
    case ConflictDesign::SeparatedPut:
        lines << u"GitOps:     PATCH %1 (merge) {\"spec\":{\"replicas\":N}} — no resourceVersion"_s
                     .arg(one)
              << u"Reconciler: PUT %1/status (the cached object, with its resourceVersion)"_s.arg(
                     one);
        break;
    case ConflictDesign::SeparatedMergePatch:
        lines << u"GitOps:     PATCH %1 (merge) {\"spec\":{\"replicas\":N}} — no resourceVersion"_s
                     .arg(one)
              << u"Reconciler: PATCH %1/status (merge) {\"status\":{\"observedReplicas\":N,...}} — "
                 "no resourceVersion"_s.arg(one);
        break;
    case ConflictDesign::Mixed:
        lines << u"GitOps:     GET %1, then PUT %1 (the Git manifest's spec at the live "
                 "resourceVersion)"_s.arg(one)
              << u"Reconciler: PUT %1 (the cached object with spec.currentReplicas = N)"_s.arg(one);
        break;
    case ConflictDesign::SeparatedApply:
        lines << u"GitOps:     PATCH %1?fieldManager=gitops&force=true (apply) the manifest's "
                 "spec"_s.arg(one)
              << u"Reconciler: PATCH %1/status?fieldManager=consumergroup-reconciler (apply) "
                 "{\"status\":{\"observedReplicas\":N,...}}"_s.arg(one);
        break;
    case ConflictDesign::MixedApply:
        lines << u"GitOps:     PATCH %1?fieldManager=gitops&force=true (apply) the manifest's spec "
                 "with spec.currentReplicas as exported"_s.arg(one)
              << u"Reconciler: PATCH %1?fieldManager=consumergroup-reconciler (apply) "
                 "{\"spec\":{\"currentReplicas\":N}}%2"_s.arg(
                     one,
                     options.reconcilerForces ? u", again with force=true after a 409"_s
                                              : QString());
        break;
    }
    lines << u"DELETE %1 for each object at the end"_s.arg(one);
    return lines;
}

ConflictLabResult ConflictLab::currentFigures() const
{
    return m_result;
}

ConflictVersion ConflictLab::versionOf(const QString &key, const json &object) const
{
    ConflictVersion version;
    version.key = key;
    version.resourceVersion = resourceVersionOf(object);
    version.generation = integerAt(object, "metadata", "generation").value_or(0);
    version.desired = integerAt(object, "spec", "replicas");
    version.observed = ConflictLabReconciler::observedOf(m_options.design, object);
    return version;
}

void ConflictLab::setPhase(Phase phase, const QString &text)
{
    m_phase = phase;
    double fraction = 0;
    switch (phase) {
    case Phase::Idle:
    case Phase::InstallingCrd:
        fraction = 0;
        break;
    case Phase::PreparingNamespace:
        fraction = 0.03;
        break;
    case Phase::CreatingObjects:
        fraction = 0.05;
        break;
    case Phase::Syncing:
        fraction = 0.08;
        break;
    case Phase::Running:
        fraction = 0.1;
        break;
    case Phase::Draining:
        fraction = 0.9;
        break;
    case Phase::Auditing:
        fraction = 0.94;
        break;
    case Phase::CleaningUp:
        fraction = 0.96;
        break;
    case Phase::Finished:
        fraction = 1;
        break;
    }
    emit progress(fraction, text);
}

void ConflictLab::start()
{
    if (m_phase != Phase::Idle)
        return;
    m_admin = new kube::RestClient(m_config, this);
    m_gitopsClient = new kube::RestClient(m_config, this);
    m_reconcilerClient = new kube::RestClient(m_config, this);
    // Each writer names itself, so that managedFields tell them apart in every design.
    m_gitopsClient->setUserAgent(QByteArray(conflictGitOpsManager) + "/conflict-lab");
    m_reconcilerClient->setUserAgent(QByteArray(conflictReconcilerManager) + "/conflict-lab");
    auto sink = [this](ConflictWriter writer) {
        return ConflictWriterSink{ m_result.writers[size_t(writer)],
                                   m_result.notes,
                                   [this, writer](
                                       const QString &key, std::int64_t value, const json &answer) {
                                       recordAck(key, writer, value, answer);
                                   } };
    };
    m_gitops
        = new ConflictGitOpsWriter(m_gitopsClient, m_options, sink(ConflictWriter::GitOps), this);
    m_reconciler = new ConflictLabReconciler(
        m_reconcilerClient, m_options, sink(ConflictWriter::Reconciler), this);
    m_setup = new ConflictLabSetup(m_admin, m_options, m_runId, this);
    connect(m_setup,
            &ConflictLabSetup::stageStarted,
            this,
            [this](ConflictLabSetup::Stage stage, const QString &text) {
                handleSetupStage(int(stage), text);
            });
    const quint64 epoch = m_epoch;
    m_setup->run([this] { return m_cancelRequested; },
                 [this, epoch](reconcile::ReconcileOutcome outcome) {
                     if (epoch == m_epoch)
                         handleSetupDone(outcome);
                 });
}

void ConflictLab::cancel()
{
    if (!isRunning() || m_cancelRequested)
        return;
    m_cancelRequested = true;
    m_result.cancelled = true;
    // During setup the step in flight notices m_cancelRequested and cleans up.
    if (m_phase == Phase::Running)
        stopWriters();
}

void ConflictLab::fail(const QString &message)
{
    if (m_result.error.isEmpty())
        m_result.error = message;
    ++m_epoch;
    cleanUp();
}

// --- setup -----------------------------------------------------------------------------------

void ConflictLab::handleSetupStage(int stage, const QString &text)
{
    switch (ConflictLabSetup::Stage(stage)) {
    case ConflictLabSetup::Stage::CheckingCrd:
    case ConflictLabSetup::Stage::InstallingCrd:
        setPhase(Phase::InstallingCrd, text);
        break;
    case ConflictLabSetup::Stage::PreparingNamespace:
        setPhase(Phase::PreparingNamespace, text);
        break;
    case ConflictLabSetup::Stage::CreatingObjects:
        setPhase(Phase::CreatingObjects, text);
        break;
    }
}

void ConflictLab::handleSetupDone(const reconcile::ReconcileOutcome &outcome)
{
    m_result.crdInstalled = m_setup->crdInstalled();
    if (outcome.error) {
        fail(outcome.error->message);
        return;
    }
    startReflector(); // after a cancel too: it cleans up
}

void ConflictLab::startReflector()
{
    if (m_cancelRequested) {
        cleanUp();
        return;
    }
    setPhase(Phase::Syncing, tr("starting the reconciler's informer"));
    m_clock = std::make_unique<reconcile::RealClock>();
    reconcile::ControllerLoop::Options loopOptions;
    loopOptions.name = u"conflict-lab"_s;
    m_loop = new reconcile::ControllerLoop(*m_clock, *m_reconciler, loopOptions, this);
    m_reflector = new kube::Reflector(m_reconcilerClient, resource(), m_options.namespace_, this);
    m_reflector->setLabelSelector(runLabel());
    connect(m_reflector, &kube::Reflector::deltasReceived, this, &ConflictLab::handleDeltas);
    connect(
        m_reflector, &kube::Reflector::stateChanged, this, [this](const kube::ReflectorState &s) {
            if (s.phase == kube::ReflectorState::Phase::Relisting
                || s.phase == kube::ReflectorState::Phase::Reconnecting)
                m_result.notes << tr("the reconciler's watch: %1 (the audit may miss versions)")
                                      .arg(s.toString());
        });
    connect(m_reflector, &kube::Reflector::listSynced, this, [this] {
        if (m_phase == Phase::Syncing)
            startRun();
    });
    m_reflector->start();
}

// --- the run ---------------------------------------------------------------------------------

void ConflictLab::startRun()
{
    if (m_cancelRequested) {
        stopWriters();
        return;
    }
    setPhase(Phase::Running, tr("running: GitOps and the reconciler write"));
    m_elapsed.start();
    m_tickTimer = new QTimer(this);
    m_tickTimer->setInterval(tickMs);
    connect(m_tickTimer, &QTimer::timeout, this, &ConflictLab::tick);
    m_tickTimer->start();
    m_gitops->start(m_setup->names());
    m_reconciler->setAccepting(true);
    // The informer's initial list reconciles every object once, as a controller's start does.
    for (auto it = m_reconciler->cache().cbegin(); it != m_reconciler->cache().cend(); ++it)
        m_loop->enqueue(it.key(), u"initial list"_s);
    if (m_options.durationMs == 0)
        stopWriters();
}

void ConflictLab::tick()
{
    if (m_phase == Phase::Running) {
        const qint64 elapsed = m_elapsed.elapsed();
        const double fraction = m_options.durationMs > 0
            ? 0.1 + 0.8 * std::min(1.0, double(elapsed) / m_options.durationMs)
            : 0.9;
        emit progress(
            fraction,
            tr("running: %1 s of %2 s").arg(elapsed / 1000).arg(m_options.durationMs / 1000));
        emit figuresChanged(m_result);
        if (elapsed >= m_options.durationMs)
            stopWriters();
    } else if (m_phase == Phase::Draining) {
        checkDrained();
    }
}

void ConflictLab::handleDeltas(const QList<kube::Delta> &deltas)
{
    const QStringList stored
        = m_reconciler->applyDeltas(deltas, [this](const QString &key, const json &object) {
              m_audit.recordVersion(versionOf(key, object));
              trackOwnership(key, object);
          });
    if (m_loop && (m_phase == Phase::Running || m_phase == Phase::Draining)) {
        for (const QString &key : stored)
            m_loop->enqueue(key, u"watch"_s);
    }
}

void ConflictLab::trackOwnership(const QString &key, const json &object)
{
    if (const auto summary = models::ObjectSummary::fromJson(object, models::LifecycleMapping{}))
        m_result.fights << m_fightDetector.observe(
            key, summary->managedFields, QDateTime::currentDateTimeUtc());
    const json *fields = fieldowner::managedFieldsOf(object);
    if (!fields)
        return;
    const auto managed = fieldowner::decodeManagedFields(*fields);
    if (!managed)
        return;
    using fieldowner::PathElement;
    const fieldowner::Path paths[2] = {
        { PathElement::field("spec"), PathElement::field("replicas") },
        isMixedDesign(m_options.design)
            ? fieldowner::Path{ PathElement::field("spec"), PathElement::field("currentReplicas") }
            : fieldowner::Path{ PathElement::field("status"),
                                PathElement::field("observedReplicas") },
    };
    auto it = m_owners.find(key);
    if (it == m_owners.end())
        it = m_owners.insert(key, std::array<int, 2>{ -1, -1 });
    std::array<int, 2> &last = it.value();
    for (int field = 0; field < 2; ++field) {
        int owners = 0;
        for (const auto &[identifier, entry] : *managed) {
            if (!entry.fields.has(paths[field]))
                continue;
            if (entry.id.manager == conflictGitOpsManager)
                owners |= 1;
            else if (entry.id.manager == conflictReconcilerManager)
                owners |= 2;
        }
        const int before = last[size_t(field)];
        // A writer took the field from the other: it owns it now, the other no longer does.
        for (const ConflictWriter writer : { ConflictWriter::GitOps, ConflictWriter::Reconciler }) {
            const int self = writer == ConflictWriter::GitOps ? 1 : 2;
            const int other = 3 - self;
            if (before > 0 && (before & other) && !(before & self) && (owners & self)
                && !(owners & other))
                ++m_result.writers[size_t(writer)].ownershipChanges;
        }
        last[size_t(field)] = owners;
    }
}

void ConflictLab::recordAck(const QString &key,
                            ConflictWriter writer,
                            std::int64_t value,
                            const json &answer)
{
    ConflictAck ack;
    ack.key = key;
    ack.writer = writer;
    ack.value = value;
    ack.resourceVersion = resourceVersionOf(answer);
    m_audit.recordAck(ack);
    // The answer is a committed version too; the watch brings it in order, this only fills in
    // when the watch lost it. Recording it here would break the order, so it is kept for the
    // final read only.
}

// --- the end ---------------------------------------------------------------------------------

void ConflictLab::stopWriters()
{
    if (m_phase == Phase::Running || m_phase == Phase::Syncing)
        setPhase(Phase::Draining, tr("draining: GitOps stopped, the reconciler catches up"));
    m_gitops->drain();
    m_result.durationMs = m_elapsed.isValid() ? int(m_elapsed.elapsed()) : 0;
    m_elapsed.restart();
    if (!m_tickTimer) {
        m_tickTimer = new QTimer(this);
        m_tickTimer->setInterval(tickMs);
        connect(m_tickTimer, &QTimer::timeout, this, &ConflictLab::tick);
        m_tickTimer->start();
    }
    checkDrained();
}

void ConflictLab::checkDrained()
{
    if (m_phase != Phase::Draining)
        return;
    bool idle = m_gitops->isIdle() && m_loop && m_loop->inFlight() == 0
        && m_loop->queue().len() == 0 && m_loop->queue().processingCount() == 0;
    if (idle) {
        // Caught up: every cached object shows the reconciler's view of its desired count.
        for (const auto &object : m_reconciler->cache()) {
            if (ConflictLabReconciler::observedOf(m_options.design, object)
                != integerAt(object, "spec", "replicas"))
                idle = false;
        }
    }
    if (idle || m_elapsed.elapsed() >= m_options.drainTimeoutMs || m_cancelRequested) {
        if (!idle)
            m_result.notes << tr("the reconciler had not caught up when the audit began");
        readFinalObjects();
    }
}

void ConflictLab::readFinalObjects()
{
    setPhase(Phase::Auditing, tr("reading the final objects"));
    m_gitops->settle();
    m_reconciler->setAccepting(false);
    apimachinery::ListOptions options;
    options.limit = kube::DefaultListPageSize;
    options.labelSelector = runLabel();
    // No new write starts from here on (the phase says so); an answer still in flight (only after
    // a drain timeout) is counted if it arrives before the list, and dropped by cleanUp() after.
    const quint64 epoch = m_epoch;
    m_admin->list(resource(),
                  m_options.namespace_,
                  options,
                  [this, epoch](models::Result<kube::ListPage, apimachinery::ApiError> page) {
                      if (epoch != m_epoch)
                          return;
                      if (page.ok()) {
                          for (const QByteArray &item : page->items) {
                              json object = json::parse(
                                  item.constData(), item.constData() + item.size(), nullptr, false);
                              if (object.is_discarded())
                                  continue;
                              const QString key = m_options.namespace_ + u'/'
                                  + QString::fromStdString(object["metadata"].value("name", ""));
                              m_audit.recordVersion(versionOf(key, object));
                          }
                      } else {
                          m_result.notes
                              << tr("the final read failed: %1").arg(page.error().toString());
                      }
                      audit();
                  });
}

void ConflictLab::audit()
{
    stopParts();
    const auto figures = m_audit.analyse();
    for (size_t w = 0; w < 2; ++w) {
        m_result.writers[w].lostUpdates = figures.lostUpdates[w];
        m_result.writers[w].generationBumps = figures.generationBumps[w];
    }
    m_result.versionsObserved = m_audit.versionCount();
    m_result.unmatchedAcks = figures.unmatchedAcks;
    if (figures.unmatchedAcks > 0)
        m_result.notes << tr("%n acknowledged write(s) never showed in the watch: the figures are "
                             "a lower bound",
                             nullptr,
                             int(figures.unmatchedAcks));
    cleanUp();
}

void ConflictLab::stopParts()
{
    if (m_reflector)
        m_reflector->stop();
    if (m_loop)
        m_loop->stop();
    if (m_tickTimer)
        m_tickTimer->stop();
}

void ConflictLab::cleanUp()
{
    if (m_phase == Phase::CleaningUp || m_phase == Phase::Finished)
        return;
    ++m_epoch;
    stopParts();
    if (m_gitops)
        m_gitops->stop();
    if (m_reconciler)
        m_reconciler->stop();
    setPhase(Phase::CleaningUp, tr("deleting the lab's objects"));
    const QStringList names = m_setup ? m_setup->names() : QStringList();
    if (!m_admin || names.isEmpty()) {
        finish();
        return;
    }
    m_pendingDeletes = int(names.size());
    const quint64 epoch = m_epoch;
    for (const QString &name : names) {
        m_admin->remove(resource(),
                        m_options.namespace_,
                        name,
                        apimachinery::DeleteOptions{ .propagationPolicy = u"Background"_s },
                        [this, name, epoch](kube::RestClient::JsonResult r) {
                            if (epoch != m_epoch)
                                return;
                            if (!r.ok() && !r.error().isNotFound())
                                m_result.notes
                                    << tr("cannot delete %1: %2").arg(name, r.error().toString());
                            if (--m_pendingDeletes == 0)
                                finish();
                        });
    }
}

void ConflictLab::finish()
{
    setPhase(Phase::Finished, m_result.error.isEmpty() ? tr("done") : m_result.error);
    emit figuresChanged(m_result);
    emit finished(m_result);
}

} // namespace reconscope::controller::labs
