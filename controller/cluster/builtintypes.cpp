#include "controller/cluster/builtintypes.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

ResourceType builtin(const QString &group,
                     const QString &plural,
                     const QString &singular,
                     const QString &kind,
                     bool namespaced,
                     const QStringList &shortNames,
                     bool status,
                     const QStringList &categories = {})
{
    ResourceType type;
    type.group = group;
    type.version = u"v1"_s;
    type.plural = plural;
    type.singular = singular;
    type.kind = kind;
    type.listKind = kind + u"List"_s;
    type.namespaced = namespaced;
    type.shortNames = shortNames;
    type.categories = categories;
    type.statusSubresource = status;
    type.builtin = true;
    return type;
}

} // namespace

QList<ResourceType> builtinResourceTypes()
{
    QList<ResourceType> types;
    types << builtin({}, u"namespaces"_s, u"namespace"_s, u"Namespace"_s, false, { u"ns"_s }, true);
    types << builtin({}, u"pods"_s, u"pod"_s, u"Pod"_s, true, { u"po"_s }, true, { u"all"_s });
    types << builtin({}, u"secrets"_s, u"secret"_s, u"Secret"_s, true, {}, false);
    types << builtin({}, u"configmaps"_s, u"configmap"_s, u"ConfigMap"_s, true, { u"cm"_s }, false);
    types << builtin({}, u"events"_s, u"event"_s, u"Event"_s, true, { u"ev"_s }, false);
    types << builtin({},
                     u"resourcequotas"_s,
                     u"resourcequota"_s,
                     u"ResourceQuota"_s,
                     true,
                     { u"quota"_s },
                     true);
    types << builtin(
        {}, u"services"_s, u"service"_s, u"Service"_s, true, { u"svc"_s }, true, { u"all"_s });
    types << builtin({},
                     u"serviceaccounts"_s,
                     u"serviceaccount"_s,
                     u"ServiceAccount"_s,
                     true,
                     { u"sa"_s },
                     false);

    ResourceType deployments = builtin(u"apps"_s,
                                       u"deployments"_s,
                                       u"deployment"_s,
                                       u"Deployment"_s,
                                       true,
                                       { u"deploy"_s },
                                       true,
                                       { u"all"_s });
    deployments.scaleSubresource = true;
    deployments.specReplicasPath = u".spec.replicas"_s;
    deployments.statusReplicasPath = u".status.replicas"_s;
    deployments.labelSelectorPath = u".status.selector"_s;
    types << deployments;
    ResourceType replicaSets = builtin(u"apps"_s,
                                       u"replicasets"_s,
                                       u"replicaset"_s,
                                       u"ReplicaSet"_s,
                                       true,
                                       { u"rs"_s },
                                       true,
                                       { u"all"_s });
    replicaSets.scaleSubresource = true;
    replicaSets.specReplicasPath = u".spec.replicas"_s;
    replicaSets.statusReplicasPath = u".status.replicas"_s;
    replicaSets.labelSelectorPath = u".status.selector"_s;
    types << replicaSets;

    types << builtin(
        u"coordination.k8s.io"_s, u"leases"_s, u"lease"_s, u"Lease"_s, true, {}, false);
    types << builtin(u"apiextensions.k8s.io"_s,
                     u"customresourcedefinitions"_s,
                     u"customresourcedefinition"_s,
                     u"CustomResourceDefinition"_s,
                     false,
                     { u"crd"_s, u"crds"_s },
                     true);
    return types;
}

bool tracksGeneration(const ResourceType &type)
{
    if (!type.builtin)
        return true;
    // Pods since 1.34 (PodObservedGenerationTracking).
    return type.plural == u"deployments" || type.plural == u"replicasets" || type.plural == u"pods"
        || type.plural == u"customresourcedefinitions";
}

QStringList builtinSelectableFields(const ResourceType &type)
{
    if (!type.group.isEmpty())
        return {};
    if (type.plural == u"pods")
        return { u".spec.nodeName"_s,           u".spec.restartPolicy"_s, u".spec.schedulerName"_s,
                 u".spec.serviceAccountName"_s, u".status.phase"_s,       u".status.podIP"_s };
    if (type.plural == u"namespaces")
        return { u".status.phase"_s };
    if (type.plural == u"secrets")
        return { u".type"_s };
    if (type.plural == u"events")
        return { u".involvedObject.kind"_s,
                 u".involvedObject.namespace"_s,
                 u".involvedObject.name"_s,
                 u".involvedObject.uid"_s,
                 u".involvedObject.apiVersion"_s,
                 u".involvedObject.resourceVersion"_s,
                 u".involvedObject.fieldPath"_s,
                 u".reason"_s,
                 u".reportingComponent"_s,
                 u".source"_s,
                 u".type"_s };
    return {};
}

} // namespace reconscope::controller::cluster
