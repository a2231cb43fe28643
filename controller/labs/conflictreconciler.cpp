#include "controller/labs/conflictreconciler.h"

#include "controller/labs/conflictlabsetup.h"

#include <QTimer>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

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

ConflictLabReconciler::ConflictLabReconciler(kube::RestClient *client,
                                             const ConflictLabOptions &options,
                                             ConflictWriterSink sink,
                                             QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(options)
    , m_sink(std::move(sink))
{ }

std::optional<std::int64_t> ConflictLabReconciler::observedOf(ConflictDesign design,
                                                              const json &object)
{
    return isMixedDesign(design) ? integerAt(object, "spec", "currentReplicas")
                                 : integerAt(object, "status", "observedReplicas");
}

QStringList ConflictLabReconciler::applyDeltas(
    const QList<kube::Delta> &deltas,
    const std::function<void(const QString &, const json &)> &version)
{
    QStringList stored;
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
        version(key, object);
        m_cache.insert(key, std::move(object));
        stored << key;
    }
    return stored;
}

void ConflictLabReconciler::reconcileAsync(const QString &key, Completion complete)
{
    if (!m_accepting || m_stopped)
        return complete(reconcile::ReconcileOutcome::success());
    ++m_sink.figures.reconciles;
    const auto it = m_cache.constFind(key);
    if (it == m_cache.constEnd())
        return complete(reconcile::ReconcileOutcome::success());
    const json object = *it; // what the informer holds now; it may already be stale
    const auto desired = integerAt(object, "spec", "replicas");
    if (!desired || observedOf(m_options.design, object) == desired)
        return complete(reconcile::ReconcileOutcome::success());
    // Scale the consumer group and observe it: the observed count becomes the desired one. The
    // object read above is what the write is based on, as in a controller-runtime Reconcile().
    QTimer::singleShot(m_options.reconcileWorkMs,
                       this,
                       [this, key, object, desired, complete = std::move(complete)] {
                           if (m_stopped)
                               return;
                           if (!m_accepting) // the audit began: no new writes
                               return complete(reconcile::ReconcileOutcome::success());
                           writeObserved(key, object, *desired, complete);
                       });
}

void ConflictLabReconciler::writeObserved(const QString &key,
                                          const json &object,
                                          std::int64_t observed,
                                          Completion complete)
{
    const QString name = key.section(u'/', -1);
    if (isApplyDesign(m_options.design)) {
        applyObserved(key, object, observed, false, std::move(complete));
        return;
    }
    auto answer
        = [this, key, observed, complete = std::move(complete)](kube::RestClient::JsonResult r) {
              if (!m_stopped)
                  finishWrite(key, observed, r, std::move(complete));
          };
    const auto resource = ConflictLabSetup::resourceFor(m_options.design);
    const std::int64_t generation = integerAt(object, "metadata", "generation").value_or(0);
    switch (m_options.design) {
    case ConflictDesign::SeparatedPut: {
        json body = object;
        if (!body.contains("status") || !body["status"].is_object())
            body["status"] = json::object();
        body["status"]["observedReplicas"] = observed;
        body["status"]["observedGeneration"] = generation;
        m_client->update(resource, m_options.namespace_, name, body, answer, u"status"_s);
        break;
    }
    case ConflictDesign::SeparatedMergePatch: {
        const json patch{
            { "status", { { "observedReplicas", observed }, { "observedGeneration", generation } } }
        };
        m_client->patch(resource,
                        m_options.namespace_,
                        name,
                        apimachinery::PatchType::Merge,
                        QByteArray::fromStdString(patch.dump()),
                        answer,
                        u"status"_s);
        break;
    }
    case ConflictDesign::Mixed: {
        json body = object;
        body["spec"]["currentReplicas"] = observed;
        m_client->update(resource, m_options.namespace_, name, body, answer);
        break;
    }
    case ConflictDesign::SeparatedApply:
    case ConflictDesign::MixedApply:
        break; // applyObserved
    }
}

void ConflictLabReconciler::finishWrite(const QString &key,
                                        std::int64_t observed,
                                        const kube::RestClient::JsonResult &result,
                                        Completion complete)
{
    if (result.ok()) {
        ++m_sink.figures.writes;
        m_sink.acknowledged(key, observed, result.value());
        return complete(reconcile::ReconcileOutcome::success());
    }
    if (result.error().isConflict()) {
        ++m_sink.figures.conflicts;
    } else {
        ++m_sink.figures.errors;
        if (m_sink.figures.errors == 1)
            m_sink.notes << tr("reconciler: %1").arg(result.error().toString());
    }
    complete(reconcile::ReconcileOutcome::failure(result.error().toString()));
}

void ConflictLabReconciler::applyObserved(
    const QString &key, const json &object, std::int64_t observed, bool force, Completion complete)
{
    const QString name = key.section(u'/', -1);
    const bool mixed = isMixedDesign(m_options.design);
    json configuration{ { "apiVersion", "kafka.internal.net/v1" },
                        { "kind", ConflictLabSetup::kindFor(m_options.design).toStdString() },
                        { "metadata",
                          { { "name", name.toStdString() },
                            { "namespace", m_options.namespace_.toStdString() } } } };
    if (mixed) {
        configuration["spec"] = { { "currentReplicas", observed } };
    } else {
        const std::int64_t generation = integerAt(object, "metadata", "generation").value_or(0);
        configuration["status"]
            = { { "observedReplicas", observed }, { "observedGeneration", generation } };
    }
    auto answer = [this, key, object, observed, force, complete = std::move(complete)](
                      kube::RestClient::JsonResult r) mutable {
        if (m_stopped)
            return;
        if (!r.ok() && r.error().isConflict()) {
            ++m_sink.figures.applyConflicts;
            // Design e: take the field from GitOps, as a controller that forces does.
            if (!force && m_options.reconcilerForces && m_accepting) {
                ++m_sink.figures.conflicts;
                return applyObserved(key, object, observed, true, std::move(complete));
            }
        }
        finishWrite(key, observed, r, std::move(complete));
    };
    m_client->apply(ConflictLabSetup::resourceFor(m_options.design),
                    m_options.namespace_,
                    name,
                    configuration,
                    QString::fromLatin1(conflictReconcilerManager),
                    force,
                    std::move(answer),
                    mixed ? QString() : u"status"_s);
}

} // namespace reconscope::controller::labs
