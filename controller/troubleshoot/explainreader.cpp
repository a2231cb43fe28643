#include "controller/troubleshoot/explainreader.h"

#include "controller/kube/restclient.h"
#include "models/jsonfields.h"
#include "models/rfc3339.h"

using namespace Qt::StringLiterals;
using Json = nlohmann::json;
using reconscope::controller::apimachinery::ApiError;
using reconscope::controller::apimachinery::ListOptions;
using reconscope::controller::apimachinery::ResourceRef;

namespace reconscope::controller::troubleshoot {

namespace {

const ResourceRef Events{ {}, u"v1"_s, u"events"_s, true };
const ResourceRef Deployments{ u"apps"_s, u"v1"_s, u"deployments"_s, true };
const ResourceRef Pods{ {}, u"v1"_s, u"pods"_s, true };
const ResourceRef Leases{ u"coordination.k8s.io"_s, u"v1"_s, u"leases"_s, true };

QList<Json> itemsOf(const kube::ListPage &page)
{
    QList<Json> items;
    for (const QByteArray &bytes : page.items) {
        Json item = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (item.is_object())
            items << std::move(item);
    }
    return items;
}

QString nameOf(const Json &object)
{
    return models::jsonString(models::jsonMember(object, "metadata"), "name");
}

QString keyOf(const Json &object)
{
    const Json &metadata = models::jsonMember(object, "metadata");
    return models::jsonString(metadata, "namespace") + u'/' + models::jsonString(metadata, "name");
}

bool ownedBy(const Json &object, const QString &uid)
{
    const Json &owners
        = models::jsonMember(models::jsonMember(object, "metadata"), "ownerReferences");
    if (!owners.is_array())
        return false;
    for (const Json &owner : owners) {
        if (models::jsonString(owner, "uid") == uid && models::jsonBool(owner, "controller"))
            return true;
    }
    return false;
}

// "app=web,tier=front" from a Deployment's spec.selector.matchLabels.
QString selectorOf(const Json &deployment)
{
    const Json &labels = models::jsonMember(
        models::jsonMember(models::jsonMember(deployment, "spec"), "selector"), "matchLabels");
    QStringList terms;
    if (labels.is_object()) {
        for (auto it = labels.begin(); it != labels.end(); ++it) {
            if (it->is_string())
                terms << QString::fromStdString(it.key()) + u'='
                        + QString::fromStdString(it->get<std::string>());
        }
    }
    return terms.join(u',');
}

} // namespace

struct ExplainReader::Run
{
    ResourceRef resource;
    QString namespace_;
    QString name;
    ExplainInput input;
    ExplainThresholds thresholds;
    QStringList lookedAt;
    QStringList needles; // what a controller's Lease or Deployment would be named like
    Done done;

    // A list that could not be read: said, and left out.
    void missed(const QString &what, const ApiError &error)
    {
        lookedAt << u"%1 (could not be read: %2)"_s.arg(what, error.message);
    }
};

ExplainReader::ExplainReader(kube::RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{ }

ExplainReader::~ExplainReader() = default;

void ExplainReader::explain(const ResourceRef &resource,
                            const QString &namespace_,
                            const QString &name,
                            const models::LifecycleMapping &mapping,
                            const QDateTime &now,
                            const ExplainThresholds &thresholds,
                            Done done)
{
    auto run = std::make_shared<Run>();
    run->resource = resource;
    run->namespace_ = namespace_;
    run->name = name;
    run->input.mapping = mapping;
    run->input.now = now;
    run->thresholds = thresholds;
    run->done = std::move(done);
    run->needles << resource.group.section(u'.', 0, 0).toLower();
    run->input.resource
        = resource.group.isEmpty() ? resource.plural : resource.plural + u'.' + resource.group;
    m_client->get(resource, namespace_, name, [this, run](kube::RestClient::JsonResult answer) {
        if (!answer) {
            run->done(answer.error());
            return;
        }
        run->input.object = answer.value();
        const QString kind = models::jsonString(run->input.object, "kind").toLower();
        if (!kind.isEmpty() && !run->needles.contains(kind))
            run->needles << kind;
        // Who would remove its finalizers: named like their domains ("example.com/x": example).
        const Json &finalizers
            = models::jsonMember(models::jsonMember(run->input.object, "metadata"), "finalizers");
        for (const QString &finalizer : models::jsonStrings(finalizers)) {
            const QString needle = finalizer.section(u'/', 0, 0).section(u'.', 0, 0).toLower();
            if (finalizer.contains(u'/') && !needle.isEmpty() && !run->needles.contains(needle))
                run->needles << needle;
        }
        run->lookedAt << u"the object"_s;
        readEvents(run);
    });
}

void ExplainReader::readEvents(std::shared_ptr<Run> run)
{
    ListOptions options;
    options.fieldSelector = u"involvedObject.name="_s + run->name;
    m_client->list(Events, run->namespace_, options, [this, run](auto page) {
        const QString what = u"its Events"_s;
        if (!page) {
            run->missed(what, page.error());
        } else {
            const Json &metadata = models::jsonMember(run->input.object, "metadata");
            const QString uid = models::jsonString(metadata, "uid");
            const QString kind = models::jsonString(run->input.object, "kind");
            for (Json &event : itemsOf(page.value())) {
                const Json &involved = models::jsonMember(event, "involvedObject");
                const QString eventUid = models::jsonString(involved, "uid");
                if (models::jsonString(involved, "kind") == kind
                    && (eventUid.isEmpty() || eventUid == uid))
                    run->input.events << std::move(event);
            }
            run->lookedAt << what;
        }
        readDeployments(run);
    });
}

void ExplainReader::readDeployments(std::shared_ptr<Run> run)
{
    if (run->namespace_.isEmpty()) {
        readControllerLeases(run);
        return;
    }
    m_client->list(Deployments, run->namespace_, {}, [this, run](auto page) {
        const QString what = u"the Deployments of %1 it owns"_s.arg(run->namespace_);
        if (!page) {
            run->missed(what, page.error());
            readControllerLeases(run);
            return;
        }
        const QString uid
            = models::jsonString(models::jsonMember(run->input.object, "metadata"), "uid");
        for (Json &deployment : itemsOf(page.value())) {
            if (ownedBy(deployment, uid))
                run->input.deployments << std::move(deployment);
        }
        run->lookedAt << what;
        readPods(run, 0);
    });
}

void ExplainReader::readPods(std::shared_ptr<Run> run, qsizetype deployment)
{
    if (deployment >= run->input.deployments.size()) {
        readWorkloadEvents(run);
        return;
    }
    const Json &owner = run->input.deployments[deployment];
    ListOptions options;
    options.labelSelector = selectorOf(owner);
    if (options.labelSelector.isEmpty()) {
        readPods(run, deployment + 1);
        return;
    }
    const QString what = u"the Pods of Deployment %1"_s.arg(nameOf(owner));
    m_client->list(Pods, run->namespace_, options, [this, run, deployment, what](auto page) {
        if (!page) {
            run->missed(what, page.error());
        } else {
            run->input.pods << itemsOf(page.value());
            run->lookedAt << what;
        }
        readPods(run, deployment + 1);
    });
}

void ExplainReader::readWorkloadEvents(std::shared_ptr<Run> run)
{
    if (run->input.deployments.isEmpty()) {
        readControllerLeases(run);
        return;
    }
    ListOptions options;
    options.fieldSelector = u"type=Warning"_s;
    m_client->list(Events, run->namespace_, options, [this, run](auto page) {
        const QString what = u"the Warning Events of its workloads"_s;
        if (!page) {
            run->missed(what, page.error());
        } else {
            QStringList names;
            for (const Json &object : std::as_const(run->input.deployments))
                names << nameOf(object);
            for (const Json &object : std::as_const(run->input.pods))
                names << nameOf(object);
            for (Json &event : itemsOf(page.value())) {
                const Json &involved = models::jsonMember(event, "involvedObject");
                const QString kind = models::jsonString(involved, "kind");
                if (names.contains(models::jsonString(involved, "name"))
                    && (kind == u"Deployment"_s || kind == u"ReplicaSet"_s || kind == u"Pod"_s))
                    run->input.workloadEvents << std::move(event);
            }
            run->lookedAt << what;
        }
        readControllerLeases(run);
    });
}

void ExplainReader::readControllerLeases(std::shared_ptr<Run> run)
{
    // A controller is looked for when none has written a status, or finalizers hold a deletion.
    const Json &metadata = models::jsonMember(run->input.object, "metadata");
    const bool deleting = !models::jsonString(metadata, "deletionTimestamp").isEmpty();
    const Json &status = models::jsonMember(run->input.object, "status");
    if (status.is_object() && !status.empty() && !deleting) {
        finish(run);
        return;
    }
    m_client->list(Leases, {}, {}, [this, run](auto page) {
        const QString what
            = u"Leases in all namespaces named like %1"_s.arg(run->needles.join(u" or "_s));
        run->input.controllerSearch << what;
        if (!page) {
            run->missed(what, page.error());
            readControllerDeployments(run);
            return;
        }
        for (const Json &lease : itemsOf(page.value())) {
            const QString name = nameOf(lease).toLower();
            if (std::none_of(run->needles.begin(), run->needles.end(), [&](const QString &n) {
                    return !n.isEmpty() && name.contains(n);
                }))
                continue;
            const Json &spec = models::jsonMember(lease, "spec");
            const auto renewed = models::parseRfc3339(models::jsonString(spec, "renewTime"));
            const qint64 duration = models::jsonInteger(spec, "leaseDurationSeconds", 15);
            if (!renewed)
                continue;
            const qint64 ago = renewed->secsTo(run->input.now);
            if (ago <= 2 * duration)
                run->input.controllerSigns << u"Lease %1 held by %2, renewed %3 s ago"_s.arg(
                    keyOf(lease), models::jsonString(spec, "holderIdentity"), QString::number(ago));
        }
        run->lookedAt << what;
        readControllerDeployments(run);
    });
}

void ExplainReader::readControllerDeployments(std::shared_ptr<Run> run)
{
    m_client->list(Deployments, {}, {}, [this, run](auto page) {
        const QString what
            = u"Deployments in all namespaces named like %1"_s.arg(run->needles.join(u" or "_s));
        run->input.controllerSearch << what;
        if (!page) {
            run->missed(what, page.error());
            finish(run);
            return;
        }
        for (const Json &deployment : itemsOf(page.value())) {
            const QString name = nameOf(deployment).toLower();
            const qint64 ready
                = models::jsonInteger(models::jsonMember(deployment, "status"), "readyReplicas");
            if (ready > 0
                && std::any_of(run->needles.begin(), run->needles.end(), [&](const QString &n) {
                       return !n.isEmpty() && name.contains(n);
                   }))
                run->input.controllerSigns
                    << u"Deployment %1 with %2 ready replicas"_s.arg(keyOf(deployment)).arg(ready);
        }
        run->lookedAt << what;
        finish(run);
    });
}

void ExplainReader::finish(std::shared_ptr<Run> run)
{
    Explanation explanation = troubleshoot::explain(run->input, run->thresholds);
    explanation.lookedAt = run->lookedAt;
    run->done(std::move(explanation));
}

} // namespace reconscope::controller::troubleshoot
