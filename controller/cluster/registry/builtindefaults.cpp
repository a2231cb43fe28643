#include "controller/cluster/registry/builtindefaults.h"

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/registry/builtindecode.h"

#include <QByteArray>

#include <initializer_list>
#include <string>
#include <string_view>

using json = nlohmann::json;
using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

// `object[key]` = `value` when the member is absent or null (Go's nil pointer or zero value).
void orDefault(json &object, const char *key, const json &value)
{
    auto it = object.find(key);
    if (it == object.end() || it->is_null())
        object[key] = value;
}

// The array at `object[key]`'s objects, each passed to `f` (nothing for another value).
template<typename F>
void forEachItem(json &object, const char *key, F &&f)
{
    auto it = object.find(key);
    if (it == object.end() || !it->is_array())
        return;
    for (json &item : *it) {
        if (item.is_object())
            f(item);
    }
}

// The object at `object[key]`, or null when there is none.
json *memberObject(json &object, const char *key)
{
    auto it = object.find(key);
    return it != object.end() && it->is_object() ? &*it : nullptr;
}

// The tag parsers.ParseImageName gives: the reference's tag, "latest" when it has neither a tag
// nor a digest, none when it has only a digest or does not parse (empty, upper case in the
// repository, white space).
std::string imageTag(std::string_view image)
{
    if (image.empty() || image.find_first_of(" \t\n") != std::string_view::npos)
        return {};
    const std::size_t at = image.find('@');
    const std::string_view name = image.substr(0, at);
    const std::size_t slash = name.rfind('/');
    const std::size_t colon = name.rfind(':');
    const bool tagged
        = colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
    const std::string_view repository = tagged ? name.substr(0, colon) : name;
    // The registry host (before the first slash, with a dot or port) may hold upper case.
    const std::size_t firstSlash = repository.find('/');
    const std::string_view path = firstSlash != std::string_view::npos
            && repository.substr(0, firstSlash).find_first_of(".:") != std::string_view::npos
        ? repository.substr(firstSlash + 1)
        : repository;
    for (const char c : path) {
        if (c >= 'A' && c <= 'Z')
            return {};
    }
    if (tagged)
        return std::string(name.substr(colon + 1));
    return at == std::string_view::npos ? "latest" : std::string();
}

// SetDefaults_Probe and the HTTPGetAction defaults of its handler.
void defaultProbe(json &probe)
{
    for (const auto &[key, value] : { std::pair{ "timeoutSeconds", 1 },
                                      std::pair{ "periodSeconds", 10 },
                                      std::pair{ "successThreshold", 1 },
                                      std::pair{ "failureThreshold", 3 } }) {
        auto it = probe.find(key);
        if (it == probe.end() || it->is_null() || *it == 0)
            probe[key] = value;
    }
}

void defaultHttpGet(json &handler)
{
    if (json *get = memberObject(handler, "httpGet")) {
        if (get->value("path", "").empty())
            (*get)["path"] = "/";
        if (get->value("scheme", "").empty())
            (*get)["scheme"] = "HTTP";
    }
}

// SetDefaults_Container with the generated defaults of its members (ports, env, probes,
// lifecycle handlers) and the empty resources the typed encoder writes.
void defaultContainer(json &container)
{
    if (container.value("imagePullPolicy", "").empty()) {
        const json &image = container.contains("image") ? container["image"] : json();
        container["imagePullPolicy"]
            = imageTag(image.is_string() ? image.get<std::string>() : std::string()) == "latest"
            ? "Always"
            : "IfNotPresent";
    }
    if (container.value("terminationMessagePath", "").empty())
        container["terminationMessagePath"] = "/dev/termination-log";
    if (container.value("terminationMessagePolicy", "").empty())
        container["terminationMessagePolicy"] = "File";
    orDefault(container, "resources", json::object());
    forEachItem(container, "ports", [](json &port) {
        if (port.value("protocol", "").empty())
            port["protocol"] = "TCP";
    });
    forEachItem(container, "env", [](json &env) {
        json *from = memberObject(env, "valueFrom");
        json *field = from ? memberObject(*from, "fieldRef") : nullptr;
        if (field && field->value("apiVersion", "").empty())
            (*field)["apiVersion"] = "v1";
    });
    for (const char *key : { "livenessProbe", "readinessProbe", "startupProbe" }) {
        if (json *probe = memberObject(container, key)) {
            defaultProbe(*probe);
            defaultHttpGet(*probe);
        }
    }
    if (json *lifecycle = memberObject(container, "lifecycle")) {
        for (const char *key : { "postStart", "preStop" }) {
            if (json *handler = memberObject(*lifecycle, key))
                defaultHttpGet(*handler);
        }
    }
}

// SetDefaults_Volume (a volume without a source is an emptyDir) and the default modes (0644)
// of the projected kinds of volume.
void defaultVolume(json &volume)
{
    static const char *const sources[] = { "hostPath",
                                           "emptyDir",
                                           "gcePersistentDisk",
                                           "awsElasticBlockStore",
                                           "gitRepo",
                                           "secret",
                                           "nfs",
                                           "iscsi",
                                           "glusterfs",
                                           "persistentVolumeClaim",
                                           "rbd",
                                           "flexVolume",
                                           "cinder",
                                           "cephfs",
                                           "flocker",
                                           "downwardAPI",
                                           "fc",
                                           "azureFile",
                                           "configMap",
                                           "vsphereVolume",
                                           "quobyte",
                                           "azureDisk",
                                           "photonPersistentDisk",
                                           "projected",
                                           "portworxVolume",
                                           "scaleIO",
                                           "storageos",
                                           "csi",
                                           "ephemeral",
                                           "image" };
    bool hasSource = false;
    for (const char *source : sources) {
        auto it = volume.find(source);
        hasSource = hasSource || (it != volume.end() && !it->is_null());
    }
    if (!hasSource)
        volume["emptyDir"] = json::object();
    for (const char *source : { "secret", "configMap", "downwardAPI", "projected" }) {
        if (json *s = memberObject(volume, source))
            orDefault(*s, "defaultMode", 420);
    }
    if (json *hostPath = memberObject(volume, "hostPath"))
        orDefault(*hostPath, "type", "");
}

// SetDefaults_PodSpec and the generated defaults of its members.
void defaultPodSpec(json &spec)
{
    if (spec.value("dnsPolicy", "").empty())
        spec["dnsPolicy"] = "ClusterFirst";
    if (spec.value("restartPolicy", "").empty())
        spec["restartPolicy"] = "Always";
    orDefault(spec, "securityContext", json::object());
    orDefault(spec, "terminationGracePeriodSeconds", 30);
    if (spec.value("schedulerName", "").empty())
        spec["schedulerName"] = "default-scheduler";
    for (const char *key : { "initContainers", "containers", "ephemeralContainers" })
        forEachItem(spec, key, defaultContainer);
    forEachItem(spec, "volumes", defaultVolume);
}

// SetDefaults_Pod: requests default to the limits, service links enabled.
void defaultPod(json &pod)
{
    json *spec = memberObject(pod, "spec");
    if (!spec)
        return;
    for (const char *key : { "containers", "initContainers" }) {
        forEachItem(*spec, key, [](json &container) {
            json *resources = memberObject(container, "resources");
            json *limits = resources ? memberObject(*resources, "limits") : nullptr;
            if (!limits)
                return;
            json &requests = (*resources)["requests"];
            if (!requests.is_object())
                requests = json::object();
            for (const auto &[name, value] : limits->items()) {
                if (!requests.contains(name))
                    requests[name] = value;
            }
        });
    }
    orDefault(*spec, "enableServiceLinks", true);
    defaultPodSpec(*spec);
}

// SetDefaults_Deployment, SetDefaults_ReplicaSet and their pod templates.
void defaultWorkload(json &object, bool deployment)
{
    json &spec = object["spec"];
    if (!spec.is_object())
        spec = json::object();
    orDefault(spec, "replicas", 1);
    if (deployment) {
        json &strategy = spec["strategy"];
        if (!strategy.is_object())
            strategy = json::object();
        if (strategy.value("type", "").empty())
            strategy["type"] = "RollingUpdate";
        if (strategy["type"] == "RollingUpdate") {
            json &rolling = strategy["rollingUpdate"];
            if (!rolling.is_object())
                rolling = json::object();
            orDefault(rolling, "maxUnavailable", "25%");
            orDefault(rolling, "maxSurge", "25%");
        }
        orDefault(spec, "revisionHistoryLimit", 10);
        orDefault(spec, "progressDeadlineSeconds", 600);
    }
    json &templ = spec["template"];
    if (!templ.is_object())
        templ = json::object();
    json &podSpec = templ["spec"];
    if (!podSpec.is_object())
        podSpec = json::object();
    defaultPodSpec(podSpec);
    orDefault(object, "status", json::object());
}

// The members of an Event the typed encoder writes though they are zero (no omitempty).
void defaultEvent(json &event)
{
    orDefault(event, "involvedObject", json::object());
    orDefault(event, "source", json::object());
    for (const char *key : { "firstTimestamp", "lastTimestamp", "eventTime" }) {
        if (!event.contains(key))
            event[key] = nullptr;
    }
    for (const char *key : { "reportingComponent", "reportingInstance" })
        orDefault(event, key, "");
}

// Empty maps and lists of ObjectMeta have omitempty: the typed encoder leaves them out.
void dropEmptyMetadata(json &object)
{
    json *metadata = memberObject(object, "metadata");
    if (!metadata)
        return;
    for (const char *key : { "labels", "annotations", "finalizers", "ownerReferences" }) {
        auto it = metadata->find(key);
        if (it != metadata->end() && (it->is_null() || (it->is_structured() && it->empty())))
            metadata->erase(it);
    }
}

// The conversion of a v1 Secret: stringData written into data, never stored.
void mergeStringData(json &secret)
{
    auto it = secret.find("stringData");
    if (it == secret.end())
        return;
    if (it->is_object()) {
        json &data = secret["data"];
        if (!data.is_object())
            data = json::object();
        for (const auto &[key, value] : it->items()) {
            if (value.is_string())
                data[key]
                    = QByteArray::fromStdString(value.get<std::string>()).toBase64().toStdString();
        }
    }
    secret.erase("stringData");
}

bool isCore(const ResourceType &type, QStringView kind)
{
    return type.group.isEmpty() && type.kind == kind;
}

// A condition's times are metav1.Time structs, which omitempty never leaves out: a time its writer
// did not give reads back null.
void nullConditionTimes(json &object, std::initializer_list<const char *> keys)
{
    json *status = memberObject(object, "status");
    if (!status)
        return;
    forEachItem(*status, "conditions", [keys](json &condition) {
        if (!condition.is_object())
            return;
        for (const char *key : keys) {
            if (!condition.contains(key))
                condition[key] = nullptr;
        }
    });
}

} // namespace

void applyBuiltinDefaults(const ResourceType &type, json &object)
{
    if (!type.builtin || !object.is_object())
        return;
    dropEmptyMetadata(object);
    // Quantities as resource.Quantity re-encodes them: "1000m" is "1", 1.5 is "1500m".
    forEachQuantity(type, object, [](json &value) {
        if (const auto quantity = apimachinery::Quantity::fromJson(value))
            value = quantity->toString().toStdString();
    });
    if (isCore(type, u"Pod")) {
        defaultPod(object);
        nullConditionTimes(object, { "lastProbeTime", "lastTransitionTime" });
    } else if (type.group == u"apps"
               && (type.kind == u"Deployment" || type.kind == u"ReplicaSet")) {
        defaultWorkload(object, type.kind == u"Deployment");
        if (type.kind == u"Deployment")
            nullConditionTimes(object, { "lastUpdateTime", "lastTransitionTime" });
        else
            nullConditionTimes(object, { "lastTransitionTime" });
    } else if (isCore(type, u"Namespace")) {
        nullConditionTimes(object, { "lastTransitionTime" });
    } else if (isCore(type, u"Secret")) {
        mergeStringData(object);
        if (object.value("type", "").empty())
            object["type"] = "Opaque";
    } else if (isCore(type, u"Event")) {
        defaultEvent(object);
    } else if (isCore(type, u"ResourceQuota")) {
        orDefault(object, "status", json::object());
    }
}

void preparePodForCreate(json &pod)
{
    json &spec = pod["spec"];
    if (!spec.is_object())
        return;
    // The Priority plugin, for a pod that names no class (and no class is the global default).
    if (spec.value("priorityClassName", "").empty()) {
        spec["priority"] = 0;
        orDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
    }
    // DefaultTolerationSeconds: unless a toleration already covers the taint (an empty key or
    // effect matches any).
    json &tolerations = spec["tolerations"];
    if (!tolerations.is_array())
        tolerations = json::array();
    for (const char *taint : { "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable" }) {
        bool tolerated = false;
        for (const json &t : tolerations) {
            if (!t.is_object())
                continue;
            const std::string key = t.value("key", "");
            const std::string effect = t.value("effect", "");
            tolerated = tolerated
                || ((key.empty() || key == taint) && (effect.empty() || effect == "NoExecute"));
        }
        if (!tolerated)
            tolerations.push_back({ { "effect", "NoExecute" },
                                    { "key", taint },
                                    { "operator", "Exists" },
                                    { "tolerationSeconds", 300 } });
    }
    // qos.GetPodQOS over cpu and memory: BestEffort without requests or limits, Guaranteed when
    // every container limits both and requests what it limits (compared as written), else
    // Burstable.
    bool any = false;
    bool guaranteed = true;
    for (const char *key : { "initContainers", "containers" }) {
        forEachItem(spec, key, [&](json &container) {
            const json *resources = memberObject(container, "resources");
            const json empty = json::object();
            const json &requests
                = resources && resources->contains("requests") ? (*resources)["requests"] : empty;
            const json &limits
                = resources && resources->contains("limits") ? (*resources)["limits"] : empty;
            for (const char *resource : { "cpu", "memory" }) {
                const bool requested = requests.is_object() && requests.contains(resource);
                const bool limited = limits.is_object() && limits.contains(resource);
                any = any || requested || limited;
                guaranteed = guaranteed && limited
                    && (!requested || requests[resource] == limits[resource]);
            }
        });
    }
    pod["status"] = { { "phase", "Pending" },
                      { "qosClass",
                        !any             ? "BestEffort"
                            : guaranteed ? "Guaranteed"
                                         : "Burstable" } };
}

} // namespace reconscope::controller::cluster
