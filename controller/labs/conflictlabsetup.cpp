#include "controller/labs/conflictlabsetup.h"

#include "controller/kube/discovery.h"
#include "models/yamljson.h"

#include <QFile>
#include <QTimer>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

namespace {

constexpr int establishedAttempts = 150; // x 200 ms
constexpr int createAttempts = 25; // x 200 ms: a new CRD's endpoint can take a moment

const apimachinery::ResourceRef namespaces{ QString(), u"v1"_s, u"namespaces"_s, false };

} // namespace

ConflictLabSetup::ConflictLabSetup(kube::RestClient *admin,
                                   const ConflictLabOptions &options,
                                   QString runId,
                                   QObject *parent)
    : QObject(parent)
    , m_admin(admin)
    , m_options(options)
    , m_runId(std::move(runId))
{ }

apimachinery::ResourceRef ConflictLabSetup::resourceFor(ConflictDesign design)
{
    return apimachinery::ResourceRef{ u"kafka.internal.net"_s,
                                      u"v1"_s,
                                      isMixedDesign(design) ? u"mixedconsumergroups"_s
                                                            : u"consumergroups"_s,
                                      true };
}

QString ConflictLabSetup::kindFor(ConflictDesign design)
{
    return isMixedDesign(design) ? u"MixedConsumerGroup"_s : u"ConsumerGroup"_s;
}

QString ConflictLabSetup::crdNameFor(ConflictDesign design)
{
    return resourceFor(design).plural + u".kafka.internal.net"_s;
}

json ConflictLabSetup::gitManifest(ConflictDesign design,
                                   const QString &namespace_,
                                   const QString &name,
                                   int index,
                                   std::int64_t replicas)
{
    json spec = gitSpec(index, replicas);
    // Exported from the live object when it was made: its observed count then, 1.
    if (design == ConflictDesign::MixedApply)
        spec["currentReplicas"] = 1;
    return json{ { "apiVersion", "kafka.internal.net/v1" },
                 { "kind", kindFor(design).toStdString() },
                 { "metadata",
                   { { "name", name.toStdString() }, { "namespace", namespace_.toStdString() } } },
                 { "spec", std::move(spec) } };
}

json ConflictLabSetup::gitSpec(int index, std::int64_t replicas)
{
    // In the mixed design the manifest has no currentReplicas, so applying it as a whole drops the
    // reconciler's value.
    return json{ { "topic", u"orders-%1"_s.arg(index).toStdString() }, { "replicas", replicas } };
}

reconcile::Step ConflictLabSetup::step(const char *name, StepFunction function)
{
    return { QString::fromLatin1(name), [this, function](const reconcile::StepControl &control) {
                (this->*function)(control);
            } };
}

void ConflictLabSetup::run(std::function<bool()> cancelled, reconcile::StepSequence::Done done)
{
    m_cancelled = std::move(cancelled);
    reconcile::StepSequence::run(
        {
            step("check CRD", &ConflictLabSetup::checkCrd),
            step("wait until Established", &ConflictLabSetup::awaitEstablished),
            step("prepare namespace", &ConflictLabSetup::prepareNamespace),
            step("create objects", &ConflictLabSetup::createObjects),
        },
        std::move(done));
}

void ConflictLabSetup::fail(const reconcile::StepControl &control, const QString &message)
{
    m_failed = true;
    control.finish(reconcile::ReconcileOutcome::failure(message));
}

void ConflictLabSetup::checkCrd(const reconcile::StepControl &control)
{
    const QString name = crdNameFor(m_options.design);
    emit stageStarted(Stage::CheckingCrd, tr("checking the CustomResourceDefinition %1").arg(name));
    m_admin->get(kube::DiscoveryClient::CustomResourceDefinitions,
                 QString(),
                 name,
                 [this, control, name](kube::RestClient::JsonResult result) {
                     if (result.ok())
                         return control.proceed();
                     if (result.error().isNotFound())
                         return installCrd(control);
                     fail(control,
                          tr("cannot read the CRD %1: %2").arg(name, result.error().toString()));
                 });
}

void ConflictLabSetup::installCrd(const reconcile::StepControl &control)
{
    const QString name = crdNameFor(m_options.design);
    const QString file = u":/crds/"_s + name + u".yaml"_s;
    QFile manifest(file);
    if (!manifest.open(QIODevice::ReadOnly))
        return fail(control, tr("the CRD manifest %1 is not built in").arg(file));
    auto documents = models::yamlDocumentsToJson(manifest.readAll());
    if (!documents.ok() || documents->isEmpty())
        return fail(control, tr("the CRD manifest %1 does not parse").arg(file));
    const json crd = documents->constFirst();
    emit stageStarted(Stage::InstallingCrd,
                      tr("installing the CustomResourceDefinition %1").arg(name));
    m_admin->create(
        kube::DiscoveryClient::CustomResourceDefinitions,
        QString(),
        crd,
        [this, control, name](kube::RestClient::JsonResult result) {
            if (!result.ok() && !result.error().isAlreadyExists())
                return fail(
                    control,
                    tr("cannot install the CRD %1: %2").arg(name, result.error().toString()));
            m_crdInstalled = result.ok();
            control.proceed();
        });
}

void ConflictLabSetup::awaitEstablished(const reconcile::StepControl &control)
{
    waitEstablished(control, 0);
}

void ConflictLabSetup::waitEstablished(const reconcile::StepControl &control, int attempt)
{
    const QString name = crdNameFor(m_options.design);
    m_admin->get(
        kube::DiscoveryClient::CustomResourceDefinitions,
        QString(),
        name,
        [this, control, name, attempt](kube::RestClient::JsonResult result) {
            if (!result.ok())
                return fail(control,
                            tr("cannot read the CRD %1: %2").arg(name, result.error().toString()));
            bool established = false;
            const json &crd = result.value();
            if (crd.contains("status") && crd["status"].is_object()) {
                for (const auto &condition : crd["status"].value("conditions", json::array())) {
                    if (condition.is_object() && condition.value("type", "") == "Established"
                        && condition.value("status", "") == "True")
                        established = true;
                }
            }
            if (established)
                return control.proceed();
            if (attempt + 1 >= establishedAttempts)
                return fail(control, tr("the CRD %1 did not become Established").arg(name));
            QTimer::singleShot(
                200, this, [this, control, attempt] { waitEstablished(control, attempt + 1); });
        });
}

void ConflictLabSetup::prepareNamespace(const reconcile::StepControl &control)
{
    if (wasCancelled())
        return control.finish(reconcile::ReconcileOutcome::success());
    emit stageStarted(Stage::PreparingNamespace,
                      tr("preparing the namespace %1").arg(m_options.namespace_));
    m_admin->get(namespaces,
                 QString(),
                 m_options.namespace_,
                 [this, control](kube::RestClient::JsonResult got) {
                     if (got.ok())
                         return control.proceed();
                     if (!got.error().isNotFound())
                         return fail(control,
                                     tr("cannot read the namespace %1: %2")
                                         .arg(m_options.namespace_, got.error().toString()));
                     createNamespace(control);
                 });
}

void ConflictLabSetup::createNamespace(const reconcile::StepControl &control)
{
    const json ns{ { "apiVersion", "v1" },
                   { "kind", "Namespace" },
                   { "metadata", { { "name", m_options.namespace_.toStdString() } } } };
    m_admin->create(
        namespaces, QString(), ns, [this, control](kube::RestClient::JsonResult created) {
            if (!created.ok() && !created.error().isAlreadyExists())
                return fail(control,
                            tr("cannot create the namespace %1: %2")
                                .arg(m_options.namespace_, created.error().toString()));
            control.proceed();
        });
}

void ConflictLabSetup::createObjects(const reconcile::StepControl &control)
{
    if (wasCancelled())
        return control.finish(reconcile::ReconcileOutcome::success());
    emit stageStarted(Stage::CreatingObjects,
                      tr("creating %n object(s)", nullptr, m_options.objects));
    m_names.clear();
    for (int i = 0; i < m_options.objects; ++i)
        m_names << u"lab-%1-%2"_s.arg(m_runId).arg(i);
    m_pendingCreates = m_options.objects;
    for (int i = 0; i < m_options.objects; ++i)
        createObject(control, i, 0);
}

void ConflictLabSetup::createObject(const reconcile::StepControl &control, int index, int attempt)
{
    json object{ { "apiVersion", "kafka.internal.net/v1" },
                 { "kind", kindFor(m_options.design).toStdString() },
                 { "metadata",
                   { { "name", m_names.at(index).toStdString() },
                     { "namespace", m_options.namespace_.toStdString() },
                     { "labels", { { ConflictLab::LabelKey, m_runId.toStdString() } } } } },
                 { "spec", gitSpec(index, 1) } };
    m_admin->create(
        resourceFor(m_options.design),
        m_options.namespace_,
        object,
        [this, control, index, attempt](kube::RestClient::JsonResult r) {
            if (m_failed)
                return;
            if (!r.ok() && r.error().isNotFound() && attempt + 1 < createAttempts) {
                QTimer::singleShot(200, this, [this, control, index, attempt] {
                    if (!m_failed)
                        createObject(control, index, attempt + 1);
                });
                return;
            }
            if (!r.ok())
                return fail(
                    control,
                    tr("cannot create %1: %2").arg(m_names.at(index), r.error().toString()));
            if (--m_pendingCreates == 0)
                control.proceed();
        });
}

} // namespace reconscope::controller::labs
