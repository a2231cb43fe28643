#include "controller/cluster/registry/strategicschema.h"

#include "controller/cluster/registry/strategicmerge.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

// The tags of k8s.io/api v0.36 (core/v1, apps/v1) on the way to every tagged field of the kinds
// the embedded cluster serves; coordination/v1, apiextensions/v1 and autoscaling/v1 have none.
constexpr StrategicField kObjectMetaFields[] = {
    { "finalizers", true, {}, nullptr, "string" },
    { "ownerReferences", true, "uid" },
};
constexpr StrategicSchema kObjectMeta{ kObjectMetaFields };
// Container and EphemeralContainer (EphemeralContainerCommon).
constexpr StrategicField kContainerFields[] = {
    { "env", true, "name" },
    { "ports", true, "containerPort" },
    { "volumeDevices", true, "devicePath" },
    { "volumeMounts", true, "mountPath" },
};
constexpr StrategicSchema kContainer{ kContainerFields };
constexpr StrategicField kPodSpecFields[] = {
    { "containers", true, "name", &kContainer },
    { "ephemeralContainers", true, "name", &kContainer },
    { "hostAliases", true, "ip" },
    { "imagePullSecrets", true, "name" },
    { "initContainers", true, "name", &kContainer },
    { "resourceClaims", true, "name" },
    { "schedulingGates", true, "name" },
    { "topologySpreadConstraints", true, "topologyKey" },
    { "volumes", true, "name" },
};
constexpr StrategicSchema kPodSpec{ kPodSpecFields };
constexpr StrategicField kPodStatusFields[] = {
    { "conditions", true, "type" },
    { "hostIPs", true, "ip" },
    { "podIPs", true, "ip" },
    { "resourceClaimStatuses", true, "name" },
};
constexpr StrategicSchema kPodStatus{ kPodStatusFields };
// The status of a Namespace, Service, Deployment and ReplicaSet.
constexpr StrategicField kConditionsFields[] = { { "conditions", true, "type" } };
constexpr StrategicSchema kConditionsStatus{ kConditionsFields };
constexpr StrategicField kPodTemplateFields[] = {
    { "metadata", false, {}, &kObjectMeta },
    { "spec", false, {}, &kPodSpec },
};
constexpr StrategicSchema kPodTemplate{ kPodTemplateFields };
constexpr StrategicField kWorkloadSpecFields[] = { { "template", false, {}, &kPodTemplate } };
constexpr StrategicSchema kWorkloadSpec{ kWorkloadSpecFields };
constexpr StrategicField kServiceSpecFields[] = { { "ports", true, "port" } };
constexpr StrategicSchema kServiceSpec{ kServiceSpecFields };

constexpr StrategicField kMetadata{ "metadata", false, {}, &kObjectMeta };
constexpr StrategicField kObjectFields[] = { kMetadata };
constexpr StrategicSchema kObject{ kObjectFields };
constexpr StrategicField kPodFields[] = {
    kMetadata,
    { "spec", false, {}, &kPodSpec },
    { "status", false, {}, &kPodStatus },
};
constexpr StrategicSchema kPod{ kPodFields };
constexpr StrategicField kNamespaceFields[] = {
    kMetadata,
    { "status", false, {}, &kConditionsStatus },
};
constexpr StrategicSchema kNamespace{ kNamespaceFields };
constexpr StrategicField kServiceFields[] = {
    kMetadata,
    { "spec", false, {}, &kServiceSpec },
    { "status", false, {}, &kConditionsStatus },
};
constexpr StrategicSchema kService{ kServiceFields };
constexpr StrategicField kServiceAccountFields[] = { kMetadata, { "secrets", true, "name" } };
constexpr StrategicSchema kServiceAccount{ kServiceAccountFields };
// Deployment and ReplicaSet.
constexpr StrategicField kWorkloadFields[] = {
    kMetadata,
    { "spec", false, {}, &kWorkloadSpec },
    { "status", false, {}, &kConditionsStatus },
};
constexpr StrategicSchema kWorkload{ kWorkloadFields };

} // namespace

const StrategicField *strategicFieldOf(const StrategicSchema *schema, std::string_view name)
{
    if (!schema)
        return nullptr;
    for (const StrategicField &field : schema->fields) {
        if (field.name == name)
            return &field;
    }
    return nullptr;
}

const StrategicSchema &strategicSchemaOf(const QString &group, const QString &kind)
{
    if (group.isEmpty()) {
        if (kind == u"Pod")
            return kPod;
        if (kind == u"Namespace")
            return kNamespace;
        if (kind == u"Service")
            return kService;
        if (kind == u"ServiceAccount")
            return kServiceAccount;
    } else if (group == u"apps" && (kind == u"Deployment" || kind == u"ReplicaSet")) {
        return kWorkload;
    }
    return kObject;
}

} // namespace reconscope::controller::cluster
