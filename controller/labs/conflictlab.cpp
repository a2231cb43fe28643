#include "controller/labs/conflictlab.h"

#include "controller/kube/discovery.h"
#include "controller/reconcile/clock.h"
#include "controller/reconcile/workqueue.h"
#include "models/yamljson.h"

#include <QFile>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

namespace {

constexpr auto labelKey = "reconscope.io/conflict-lab";
constexpr int tickMs = 200;
constexpr int establishedAttempts = 150; // x 200 ms
constexpr int createAttempts = 25; // x 200 ms: a new CRD's endpoint can take a moment

const kube::ResourceRef namespaces{ QString(), u"v1"_s, u"namespaces"_s, false };

QString randomRunId(QRandomGenerator &random)
{
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    QString id;
    for (int i = 0; i < 5; ++i)
        id += QChar::fromLatin1(alphabet[random.bounded(int(sizeof(alphabet) - 1))]);
    return id;
}

std::optional<std::int64_t> integerAt(const json &object, const char *first, const char *second)
{
    if (!object.is_object())
        return std::nullopt;
    const auto outer = object.find(first);
    if (outer == object.end() || !outer->is_object())
        return std::nullopt;
    const auto inner = outer->find(second);
    if (inner == outer->end() || !inner->is_number_integer())
        return std::nullopt;
    return inner->get<std::int64_t>();
}

QString resourceVersionOf(const json &object)
{
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
        return {};
    return QString::fromStdString(object["metadata"].value("resourceVersion", ""));
}

kube::ResourceRef resourceFor(ConflictDesign design)
{
    return kube::ResourceRef{ u"kafka.internal.net"_s,
                              u"v1"_s,
                              design == ConflictDesign::Mixed ? u"mixedconsumergroups"_s
                                                              : u"consumergroups"_s,
                              true };
}

QString nameOfKey(const QString &key)
{
    return key.section(u'/', -1);
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
    }
    return {};
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
    }
    return {};
}

json ConflictWriterFigures::toJson() const
{
    return json{ { "conflicts", conflicts },     { "writes", writes },
                 { "lostUpdates", lostUpdates }, { "generationBumps", generationBumps },
                 { "reconciles", reconciles },   { "errors", errors } };
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
    if (!error.isEmpty())
        out["error"] = error.toStdString();
    return out;
}

QString ConflictLabResult::toText() const
{
    QString text = u"design %1, %2 s, %3 objects\n"_s.arg(conflictDesignTitle(design))
                       .arg(durationMs / 1000.0)
                       .arg(objects);
    text += u"%1 %2 %3 %4 %5 %6 %7\n"_s.arg(u"writer"_s, -11)
                .arg(u"conflicts"_s, 10)
                .arg(u"writes"_s, 8)
                .arg(u"lostUpdates"_s, 12)
                .arg(u"genBumps"_s, 9)
                .arg(u"reconciles"_s, 11)
                .arg(u"errors"_s, 7);
    for (const ConflictWriter writer : { ConflictWriter::GitOps, ConflictWriter::Reconciler }) {
        const auto &f = writers[size_t(writer)];
        text += u"%1 %2 %3 %4 %5 %6 %7\n"_s.arg(conflictWriterName(writer), -11)
                    .arg(f.conflicts, 10)
                    .arg(f.writes, 8)
                    .arg(f.lostUpdates, 12)
                    .arg(f.generationBumps, 9)
                    .arg(f.reconciles, 11)
                    .arg(f.errors, 7);
    }
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
    , m_random(m_options.seed)
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
    // The reflector and the queue go before the clients and the clock they use.
    delete m_reflector;
    delete m_queue;
}

QString ConflictLab::runLabel() const
{
    return QString::fromLatin1(labelKey) + u'=' + m_runId;
}

kube::ResourceRef ConflictLab::resource() const
{
    return resourceFor(m_options.design);
}

QString ConflictLab::crdName() const
{
    return resource().plural + u".kafka.internal.net"_s;
}

QString ConflictLab::crdFile() const
{
    return u":/crds/"_s + crdName() + u".yaml"_s;
}

QStringList ConflictLab::plannedRequests(const ConflictLabOptions &options)
{
    const auto ref = resourceFor(options.design);
    const QString objects = ref.collectionPath(options.namespace_);
    const QString one = ref.objectPath(options.namespace_, u"NAME"_s);
    QStringList lines{
        u"GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/%1 (POST it from "
        "resources/crds when absent)"_s.arg(ref.plural + u".kafka.internal.net"_s),
        u"GET /api/v1/namespaces/%1 (POST it when absent)"_s.arg(options.namespace_),
        u"POST %1  x%2 objects labelled %3=<run id>"_s.arg(objects)
            .arg(options.objects)
            .arg(QString::fromLatin1(labelKey)),
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
    }
    lines << u"DELETE %1 for each object at the end"_s.arg(one);
    return lines;
}

ConflictLabResult ConflictLab::currentFigures() const
{
    return m_result;
}

json ConflictLab::gitSpec(int index, std::int64_t replicas) const
{
    // What the Git repository holds: the topic and the desired count. In the mixed design the
    // manifest has no currentReplicas, so applying it as a whole drops the reconciler's value.
    return json{ { "topic", u"orders-%1"_s.arg(index).toStdString() }, { "replicas", replicas } };
}

std::optional<std::int64_t> ConflictLab::observedOf(const json &object) const
{
    return m_options.design == ConflictDesign::Mixed
        ? integerAt(object, "spec", "currentReplicas")
        : integerAt(object, "status", "observedReplicas");
}

ConflictVersion ConflictLab::versionOf(const QString &key, const json &object) const
{
    ConflictVersion version;
    version.key = key;
    version.resourceVersion = resourceVersionOf(object);
    version.generation = integerAt(object, "metadata", "generation").value_or(0);
    version.desired = integerAt(object, "spec", "replicas");
    version.observed = observedOf(object);
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
    checkCrd();
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

void ConflictLab::checkCrd()
{
    setPhase(Phase::InstallingCrd, tr("checking the CustomResourceDefinition %1").arg(crdName()));
    m_admin->get(
        kube::DiscoveryClient::CustomResourceDefinitions,
        QString(),
        crdName(),
        [this](kube::RestClient::JsonResult result) {
            if (result.ok()) {
                waitEstablished(0);
            } else if (result.error().isNotFound()) {
                installCrd();
            } else {
                fail(tr("cannot read the CRD %1: %2").arg(crdName(), result.error().toString()));
            }
        });
}

void ConflictLab::installCrd()
{
    QFile file(crdFile());
    if (!file.open(QIODevice::ReadOnly)) {
        fail(tr("the CRD manifest %1 is not built in").arg(crdFile()));
        return;
    }
    auto documents = models::yamlDocumentsToJson(file.readAll());
    if (!documents.ok() || documents->isEmpty()) {
        fail(tr("the CRD manifest %1 does not parse").arg(crdFile()));
        return;
    }
    const json crd = documents->constFirst();
    setPhase(Phase::InstallingCrd, tr("installing the CustomResourceDefinition %1").arg(crdName()));
    m_admin->create(
        kube::DiscoveryClient::CustomResourceDefinitions,
        QString(),
        crd,
        [this](kube::RestClient::JsonResult result) {
            if (!result.ok() && !result.error().isAlreadyExists()) {
                fail(tr("cannot install the CRD %1: %2").arg(crdName(), result.error().toString()));
                return;
            }
            m_result.crdInstalled = result.ok();
            waitEstablished(0);
        });
}

void ConflictLab::waitEstablished(int attempt)
{
    m_admin->get(
        kube::DiscoveryClient::CustomResourceDefinitions,
        QString(),
        crdName(),
        [this, attempt](kube::RestClient::JsonResult result) {
            if (!result.ok()) {
                fail(tr("cannot read the CRD %1: %2").arg(crdName(), result.error().toString()));
                return;
            }
            bool established = false;
            const json &crd = result.value();
            if (crd.contains("status") && crd["status"].is_object()) {
                for (const auto &condition : crd["status"].value("conditions", json::array())) {
                    if (condition.is_object() && condition.value("type", "") == "Established"
                        && condition.value("status", "") == "True")
                        established = true;
                }
            }
            if (established) {
                prepareNamespace();
                return;
            }
            if (attempt + 1 >= establishedAttempts) {
                fail(tr("the CRD %1 did not become Established").arg(crdName()));
                return;
            }
            QTimer::singleShot(200, this, [this, attempt] { waitEstablished(attempt + 1); });
        });
}

void ConflictLab::prepareNamespace()
{
    if (m_cancelRequested) {
        cleanUp();
        return;
    }
    setPhase(Phase::PreparingNamespace, tr("preparing the namespace %1").arg(m_options.namespace_));
    m_admin->get(
        namespaces, QString(), m_options.namespace_, [this](kube::RestClient::JsonResult got) {
            if (got.ok()) {
                createObjects();
                return;
            }
            if (!got.error().isNotFound()) {
                fail(tr("cannot read the namespace %1: %2")
                         .arg(m_options.namespace_, got.error().toString()));
                return;
            }
            const json ns{ { "apiVersion", "v1" },
                           { "kind", "Namespace" },
                           { "metadata", { { "name", m_options.namespace_.toStdString() } } } };
            m_admin->create(
                namespaces, QString(), ns, [this](kube::RestClient::JsonResult created) {
                    if (!created.ok() && !created.error().isAlreadyExists()) {
                        fail(tr("cannot create the namespace %1: %2")
                                 .arg(m_options.namespace_, created.error().toString()));
                        return;
                    }
                    createObjects();
                });
        });
}

void ConflictLab::createObjects()
{
    if (m_cancelRequested) {
        cleanUp();
        return;
    }
    setPhase(Phase::CreatingObjects, tr("creating %n object(s)", nullptr, m_options.objects));
    m_names.clear();
    for (int i = 0; i < m_options.objects; ++i)
        m_names << u"lab-%1-%2"_s.arg(m_runId).arg(i);
    m_pendingCreates = m_options.objects;
    for (int i = 0; i < m_options.objects; ++i)
        createObject(i, 0);
}

void ConflictLab::createObject(int index, int attempt)
{
    const auto ref = resource();
    json object{ { "apiVersion", "kafka.internal.net/v1" },
                 { "kind",
                   m_options.design == ConflictDesign::Mixed ? "MixedConsumerGroup"
                                                             : "ConsumerGroup" },
                 { "metadata",
                   { { "name", m_names.at(index).toStdString() },
                     { "namespace", m_options.namespace_.toStdString() },
                     { "labels", { { labelKey, m_runId.toStdString() } } } } },
                 { "spec", gitSpec(index, 1) } };
    const quint64 epoch = m_epoch;
    m_admin->create(
        ref,
        m_options.namespace_,
        object,
        [this, index, attempt, epoch](kube::RestClient::JsonResult r) {
            if (epoch != m_epoch)
                return;
            if (!r.ok() && r.error().isNotFound() && attempt + 1 < createAttempts) {
                QTimer::singleShot(200, this, [this, index, attempt, epoch] {
                    if (epoch == m_epoch)
                        createObject(index, attempt + 1);
                });
                return;
            }
            if (!r.ok()) {
                fail(tr("cannot create %1: %2").arg(m_names.at(index), r.error().toString()));
                return;
            }
            if (--m_pendingCreates == 0)
                startReflector();
        });
}

void ConflictLab::startReflector()
{
    if (m_cancelRequested) {
        cleanUp();
        return;
    }
    setPhase(Phase::Syncing, tr("starting the reconciler's informer"));
    m_clock = std::make_unique<reconcile::RealClock>();
    m_queue = new reconcile::WorkQueue(*m_clock, nullptr, this);
    connect(m_queue, &reconcile::WorkQueue::readyToGet, this, [this] { pumpQueue(); });
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
    for (int i = 0; i < m_names.size(); ++i) {
        m_nextValue[i] = 2;
        scheduleGitOps(i);
    }
    // The informer's initial list reconciles every object once, as a controller's start does.
    for (auto it = m_cache.cbegin(); it != m_cache.cend(); ++it)
        m_queue->add(it.key());
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

void ConflictLab::scheduleGitOps(int index)
{
    const int base = m_options.gitopsIntervalMs;
    const int delay = base / 2 + int(m_random.bounded(base + 1));
    const quint64 epoch = m_epoch;
    QTimer::singleShot(delay, this, [this, index, epoch] {
        if (epoch != m_epoch || m_phase != Phase::Running)
            return;
        gitopsSync(index);
        scheduleGitOps(index);
    });
}

void ConflictLab::gitopsSync(int index)
{
    if (m_gitopsInFlight.contains(index))
        return; // the previous sync of this object is still retrying
    m_gitopsInFlight.insert(index);
    ++m_result.writers[0].reconciles;
    std::int64_t &next = m_nextValue[index];
    const std::int64_t intended = next;
    next = next >= 1000 ? 2 : next + 1;

    if (m_options.design == ConflictDesign::Mixed) {
        gitopsApplyMixed(index, intended, 1);
        return;
    }
    const json patch{ { "spec", { { "replicas", intended } } } };
    const quint64 epoch = m_epoch;
    m_gitopsClient->patch(resource(),
                          m_options.namespace_,
                          m_names.at(index),
                          kube::PatchType::Merge,
                          QByteArray::fromStdString(patch.dump()),
                          [this, index, intended, epoch](kube::RestClient::JsonResult r) {
                              if (epoch == m_epoch)
                                  handleGitOpsAnswer(index, intended, 1, r);
                          });
}

void ConflictLab::gitopsApplyMixed(int index, std::int64_t intended, int attempt)
{
    // Re-GET the live object, put the Git manifest's spec on it, PUT at the live resourceVersion.
    const quint64 epoch = m_epoch;
    m_gitopsClient->get(
        resource(),
        m_options.namespace_,
        m_names.at(index),
        [this, index, intended, attempt, epoch](kube::RestClient::JsonResult live) {
            if (epoch != m_epoch)
                return;
            if (!live.ok()) {
                handleGitOpsAnswer(index, intended, attempt, live);
                return;
            }
            json body = std::move(live.value());
            body["spec"] = gitSpec(index, intended);
            m_gitopsClient->update(
                resource(),
                m_options.namespace_,
                m_names.at(index),
                body,
                [this, index, intended, attempt, epoch](kube::RestClient::JsonResult r) {
                    if (epoch == m_epoch)
                        handleGitOpsAnswer(index, intended, attempt, r);
                });
        });
}

void ConflictLab::handleGitOpsAnswer(int index,
                                     std::int64_t intended,
                                     int attempt,
                                     const kube::RestClient::JsonResult &result)
{
    auto &figures = m_result.writers[0];
    if (result.ok()) {
        ++figures.writes;
        recordAck(m_options.namespace_ + u'/' + m_names.at(index),
                  ConflictWriter::GitOps,
                  intended,
                  result.value());
    } else if (result.error().isConflict()) {
        ++figures.conflicts;
        if (attempt < m_options.gitopsMaxAttempts
            && (m_phase == Phase::Running || m_phase == Phase::Draining)) {
            gitopsApplyMixed(index, intended, attempt + 1);
            return;
        }
    } else {
        ++figures.errors;
        if (figures.errors == 1)
            m_result.notes << tr("GitOps: %1").arg(result.error().toString());
    }
    m_gitopsInFlight.remove(index);
}

// --- the reconciler --------------------------------------------------------------------------

void ConflictLab::handleDeltas(const QList<kube::Delta> &deltas)
{
    for (const auto &delta : deltas) {
        const QString key = delta.meta.key();
        if (delta.type == kube::Delta::Type::Delete) {
            m_cache.remove(key);
            continue;
        }
        json object = json::parse(delta.object.constData(),
                                  delta.object.constData() + delta.object.size(),
                                  nullptr,
                                  false);
        if (object.is_discarded())
            continue;
        m_audit.recordVersion(versionOf(key, object));
        m_cache.insert(key, std::move(object));
        if (m_queue && (m_phase == Phase::Running || m_phase == Phase::Draining))
            m_queue->add(key);
    }
}

void ConflictLab::pumpQueue()
{
    if (m_reconcileBusy || !m_queue || (m_phase != Phase::Running && m_phase != Phase::Draining))
        return;
    const auto key = m_queue->get();
    if (!key)
        return;
    reconcile(*key);
}

void ConflictLab::reconcile(const QString &key)
{
    m_reconcileBusy = true;
    ++m_result.writers[1].reconciles;
    const auto it = m_cache.constFind(key);
    if (it == m_cache.constEnd()) {
        m_queue->forget(key);
        finishReconcile(key);
        return;
    }
    const json object = *it; // what the informer holds now; it may already be stale
    const auto desired = integerAt(object, "spec", "replicas");
    if (!desired || observedOf(object) == desired) {
        m_queue->forget(key);
        finishReconcile(key);
        return;
    }
    // Scale the consumer group and observe it: the observed count becomes the desired one. The
    // object read above is what the write is based on, as in a controller-runtime Reconcile().
    const quint64 epoch = m_epoch;
    QTimer::singleShot(m_options.reconcileWorkMs, this, [this, key, object, desired, epoch] {
        if (epoch != m_epoch)
            return;
        if (m_phase != Phase::Running && m_phase != Phase::Draining) {
            finishReconcile(key); // the audit began: no new writes
            return;
        }
        writeObserved(key, object, *desired);
    });
}

void ConflictLab::writeObserved(const QString &key, const json &object, std::int64_t observed)
{
    const QString name = nameOfKey(key);
    const quint64 epoch = m_epoch;
    auto answer = [this, key, observed, epoch](kube::RestClient::JsonResult r) {
        if (epoch != m_epoch)
            return;
        auto &figures = m_result.writers[1];
        if (r.ok()) {
            ++figures.writes;
            recordAck(key, ConflictWriter::Reconciler, observed, r.value());
            m_queue->forget(key);
        } else {
            if (r.error().isConflict()) {
                ++figures.conflicts;
            } else {
                ++figures.errors;
                if (figures.errors == 1)
                    m_result.notes << tr("reconciler: %1").arg(r.error().toString());
            }
            m_queue->addRateLimited(key);
        }
        finishReconcile(key);
    };
    const std::int64_t generation = integerAt(object, "metadata", "generation").value_or(0);
    switch (m_options.design) {
    case ConflictDesign::SeparatedPut: {
        json body = object;
        if (!body.contains("status") || !body["status"].is_object())
            body["status"] = json::object();
        body["status"]["observedReplicas"] = observed;
        body["status"]["observedGeneration"] = generation;
        m_reconcilerClient->update(
            resource(), m_options.namespace_, name, body, answer, u"status"_s);
        break;
    }
    case ConflictDesign::SeparatedMergePatch: {
        const json patch{
            { "status", { { "observedReplicas", observed }, { "observedGeneration", generation } } }
        };
        m_reconcilerClient->patch(resource(),
                                  m_options.namespace_,
                                  name,
                                  kube::PatchType::Merge,
                                  QByteArray::fromStdString(patch.dump()),
                                  answer,
                                  u"status"_s);
        break;
    }
    case ConflictDesign::Mixed: {
        json body = object;
        body["spec"]["currentReplicas"] = observed;
        m_reconcilerClient->update(resource(), m_options.namespace_, name, body, answer);
        break;
    }
    }
}

void ConflictLab::finishReconcile(const QString &key)
{
    m_queue->done(key);
    m_reconcileBusy = false;
    QMetaObject::invokeMethod(this, &ConflictLab::pumpQueue, Qt::QueuedConnection);
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
    bool idle = m_gitopsInFlight.isEmpty() && !m_reconcileBusy && m_queue && m_queue->len() == 0
        && m_queue->processingCount() == 0;
    if (idle) {
        // Caught up: every cached object shows the reconciler's view of its desired count.
        for (const auto &object : std::as_const(m_cache)) {
            if (observedOf(object) != integerAt(object, "spec", "replicas"))
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
    kube::ListOptions options;
    options.labelSelector = runLabel();
    // No new write starts from here on (the phase says so); an answer still in flight (only after
    // a drain timeout) is counted if it arrives before the list, and dropped by cleanUp() after.
    const quint64 epoch = m_epoch;
    m_admin->list(resource(),
                  m_options.namespace_,
                  options,
                  [this, epoch](models::Result<kube::ListPage, kube::ApiError> page) {
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
    if (m_reflector)
        m_reflector->stop();
    if (m_queue)
        m_queue->shutDown();
    if (m_tickTimer)
        m_tickTimer->stop();
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

void ConflictLab::cleanUp()
{
    if (m_phase == Phase::CleaningUp || m_phase == Phase::Finished)
        return;
    ++m_epoch;
    if (m_reflector)
        m_reflector->stop();
    if (m_queue && !m_queue->isShuttingDown())
        m_queue->shutDown();
    if (m_tickTimer)
        m_tickTimer->stop();
    setPhase(Phase::CleaningUp, tr("deleting the lab's objects"));
    if (!m_admin || m_names.isEmpty()) {
        finish();
        return;
    }
    m_pendingDeletes = int(m_names.size());
    const quint64 epoch = m_epoch;
    for (const QString &name : std::as_const(m_names)) {
        m_admin->remove(resource(),
                        m_options.namespace_,
                        name,
                        kube::DeleteOptions{},
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
