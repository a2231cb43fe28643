#include "controller/cluster/registry/podvalidation.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/metavalidation.h"
#include "controller/cluster/registry/podspecdiff.h"
#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/gofmt.h"
#include "models/dnsnames.h"
#include "models/jsonfields.h"

#include <QSet>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::podvalidation {

using apimachinery::Quantity;
namespace fe = fielderrors;

namespace {

using Errors = QList<FieldError>;

using models::jsonMember;
using models::jsonString;

QString child(const QString &path, const char *name)
{
    return path + u'.' + QString::fromLatin1(name);
}

QString index(const QString &path, qsizetype i)
{
    return path + u'[' + QString::number(i) + u']';
}

QString quote(const QString &value)
{
    return gofmt::quote(value);
}

// A value's rendering as field.Error prints it (numbers plain, strings quoted, null "null").
QString shown(const json &value)
{
    return gofmt::marshal(value);
}

void dnsLabel(Errors &errors, const QString &value, const QString &path)
{
    for (const QString &message : models::isDNS1123Label(value))
        errors.append(fe::invalid(path, quote(value), message));
}

void dnsSubdomain(Errors &errors, const QString &value, const QString &path)
{
    for (const QString &message : models::isDNS1123Subdomain(value))
        errors.append(fe::invalid(path, quote(value), message));
}

void nonNegative(Errors &errors, const json &value, const QString &path)
{
    if (value.is_number() && value.get<double>() < 0)
        errors.append(fe::invalid(path, shown(value), u"must be greater than or equal to 0"_s));
}

// A value of a closed set: Required when empty, NotSupported when not one of `supported`.
void oneOf(Errors &errors, const QString &value, const QString &path, const QStringList &supported)
{
    if (value.isEmpty())
        errors.append(fe::required(path));
    else if (!supported.contains(value))
        errors.append(fe::notSupported(path, value, supported));
}

// The volume sources in the order validateVolumeSource checks them, with the path each one's
// "may not specify more than 1 volume type" names (upstream's own spelling).
constexpr std::pair<const char *, const char *> kVolumeSources[] = {
    { "emptyDir", "emptyDir" },
    { "hostPath", "hostPath" },
    { "gitRepo", "gitRepo" },
    { "gcePersistentDisk", "gcePersistentDisk" },
    { "awsElasticBlockStore", "awsElasticBlockStore" },
    { "secret", "secret" },
    { "nfs", "nfs" },
    { "iscsi", "iscsi" },
    { "glusterfs", "glusterfs" },
    { "flocker", "flocker" },
    { "persistentVolumeClaim", "persistentVolumeClaim" },
    { "rbd", "rbd" },
    { "cinder", "cinder" },
    { "cephfs", "cephFS" },
    { "quobyte", "quobyte" },
    { "downwardAPI", "downwarAPI" },
    { "fc", "fc" },
    { "flexVolume", "flexVolume" },
    { "configMap", "configMap" },
    { "azureFile", "azureFile" },
    { "vsphereVolume", "vsphereVolume" },
    { "photonPersistentDisk", "photonPersistentDisk" },
    { "portworxVolume", "portworxVolume" },
    { "azureDisk", "azureDisk" },
    { "storageos", "storageos" },
    { "projected", "projected" },
    { "scaleIO", "scaleIO" },
    { "csi", "csi" },
    { "ephemeral", "ephemeral" },
    { "image", "image" },
};

void validateFileMode(Errors &errors, const json &source, const QString &path)
{
    const json &mode = jsonMember(source, "defaultMode");
    if (mode.is_number_integer() && (mode.get<qint64>() > 0777 || mode.get<qint64>() < 0))
        errors.append(
            fe::invalid(child(path, "defaultMode"),
                        shown(mode),
                        u"must be a number between 0 and 0777 (octal), both inclusive"_s));
}

Errors validateVolumeSource(const json &volume, const QString &path)
{
    Errors errors;
    int sources = 0;
    for (const auto &[key, name] : kVolumeSources) {
        const json &source = jsonMember(volume, key);
        if (source.is_null())
            continue;
        if (sources++ > 0) {
            errors.append(fe::forbidden(path + u'.' + QString::fromLatin1(name),
                                        u"may not specify more than 1 volume type"_s));
            continue;
        }
        const QString sourcePath = path + u'.' + QString::fromLatin1(key);
        const std::string_view k = key;
        if (k == "emptyDir") {
            const auto limit = Quantity::fromJson(jsonMember(source, "sizeLimit"));
            if (limit && limit->sign() < 0)
                errors.append(
                    fe::forbidden(child(sourcePath, "sizeLimit"),
                                  u"SizeLimit field must be a valid resource quantity"_s));
        } else if (k == "secret" || k == "configMap") {
            const char *nameKey = k == "secret" ? "secretName" : "name";
            if (jsonString(source, nameKey).isEmpty())
                errors.append(fe::required(child(sourcePath, nameKey)));
            validateFileMode(errors, source, sourcePath);
        } else if (k == "persistentVolumeClaim") {
            if (jsonString(source, "claimName").isEmpty())
                errors.append(fe::required(child(sourcePath, "claimName")));
        }
    }
    if (sources == 0)
        errors.append(fe::required(path, u"must specify a volume type"_s));
    return errors;
}

// ValidateVolumes: the names of the volumes that are valid, for the mounts to refer to.
Errors validateVolumes(const json &volumes, const QString &path, QSet<QString> &names)
{
    Errors errors;
    if (!volumes.is_array())
        return errors;
    for (qsizetype i = 0; i < qsizetype(volumes.size()); ++i) {
        const json &volume = volumes[std::size_t(i)];
        const QString volumePath = index(path, i);
        Errors own = validateVolumeSource(volume, volumePath);
        const QString name = jsonString(volume, "name");
        if (name.isEmpty())
            own.append(fe::required(child(volumePath, "name")));
        else
            dnsLabel(own, name, child(volumePath, "name"));
        if (names.contains(name))
            own.append(fe::duplicate(child(volumePath, "name"), quote(name)));
        if (own.isEmpty())
            names.insert(name);
        errors.append(own);
    }
    return errors;
}

Errors validatePorts(const json &ports, const QString &path)
{
    Errors errors;
    if (!ports.is_array())
        return errors;
    QSet<QString> names;
    for (qsizetype i = 0; i < qsizetype(ports.size()); ++i) {
        const json &port = ports[std::size_t(i)];
        const QString portPath = index(path, i);
        const QString name = jsonString(port, "name");
        if (!name.isEmpty()) {
            const QStringList messages = models::isValidPortName(name);
            for (const QString &message : messages)
                errors.append(fe::invalid(child(portPath, "name"), quote(name), message));
            if (messages.isEmpty() && names.contains(name))
                errors.append(fe::duplicate(child(portPath, "name"), quote(name)));
            names.insert(name);
        }
        for (const char *key : { "containerPort", "hostPort" }) {
            const json &number = jsonMember(port, key);
            const qint64 value = number.is_number_integer() ? number.get<qint64>() : 0;
            if (value == 0 && std::string_view(key) == "containerPort")
                errors.append(fe::required(child(portPath, key)));
            else if (value != 0 && (value < 1 || value > 65535))
                errors.append(fe::invalid(child(portPath, key),
                                          QString::number(value),
                                          u"must be between 1 and 65535, inclusive"_s));
        }
        oneOf(errors,
              jsonString(port, "protocol"),
              child(portPath, "protocol"),
              { u"SCTP"_s, u"TCP"_s, u"UDP"_s });
    }
    return errors;
}

Errors validateEnv(const json &env, const QString &path)
{
    Errors errors;
    if (!env.is_array())
        return errors;
    for (qsizetype i = 0; i < qsizetype(env.size()); ++i) {
        const QString name = jsonString(env[std::size_t(i)], "name");
        const QString namePath = child(index(path, i), "name");
        if (name.isEmpty()) {
            errors.append(fe::required(namePath));
            continue;
        }
        // IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation is on).
        const bool printable = std::all_of(name.begin(), name.end(), [](QChar c) {
            return c.unicode() >= 0x20 && c.unicode() < 0x7f && c != u'=';
        });
        if (!printable)
            errors.append(fe::invalid(namePath,
                                      quote(name),
                                      u"a valid environment variable name must consist only of "
                                      "printable ASCII characters other than '='"_s));
    }
    return errors;
}

Errors validateMounts(const json &mounts, const QSet<QString> &volumes, const QString &path)
{
    Errors errors;
    if (!mounts.is_array())
        return errors;
    QSet<QString> paths;
    for (qsizetype i = 0; i < qsizetype(mounts.size()); ++i) {
        const json &mount = mounts[std::size_t(i)];
        const QString mountPath = index(path, i);
        const QString name = jsonString(mount, "name");
        if (name.isEmpty())
            errors.append(fe::required(child(mountPath, "name")));
        if (!volumes.contains(name))
            errors.append(fe::notFound(child(mountPath, "name"), quote(name)));
        const QString target = jsonString(mount, "mountPath");
        if (target.isEmpty())
            errors.append(fe::required(child(mountPath, "mountPath")));
        if (paths.contains(target))
            errors.append(
                fe::invalid(child(mountPath, "mountPath"), quote(target), u"must be unique"_s));
        paths.insert(target);
    }
    return errors;
}

bool isNativeResource(const QString &name)
{
    return !name.contains(u'/') || name.contains(u"kubernetes.io/"_s);
}

bool isExtendedResource(const QString &name)
{
    if (isNativeResource(name) || name.startsWith(u"requests."_s))
        return false;
    return models::isQualifiedName(u"requests."_s + name).isEmpty();
}

bool overcommitAllowed(const QString &name)
{
    return isNativeResource(name) && !name.startsWith(u"hugepages-"_s);
}

Errors validateContainerResourceName(const QString &name, const QString &path)
{
    Errors errors = validateResourceName(name, path);
    if (!name.contains(u'/')) {
        static const QStringList standard = { u"cpu"_s, u"memory"_s, u"ephemeral-storage"_s };
        if (!standard.contains(name) && !name.startsWith(u"hugepages-"_s))
            errors.append(
                fe::invalid(path, quote(name), u"must be a standard resource for containers"_s));
    } else if (!isNativeResource(name) && !isExtendedResource(name)) {
        errors.append(
            fe::invalid(path, quote(name), u"doesn't follow extended resource name standard"_s));
    }
    return errors;
}

Errors validateResources(const json &resources, const QString &path)
{
    Errors errors;
    const QString limitsPath = child(path, "limits");
    const QString requestsPath = child(path, "requests");
    const json &limits = jsonMember(resources, "limits");
    const json &requests = jsonMember(resources, "requests");
    for (const auto &[map, mapPath] :
         { std::pair{ &limits, limitsPath }, std::pair{ &requests, requestsPath } }) {
        if (!map->is_object())
            continue;
        for (auto it = map->begin(); it != map->end(); ++it) {
            const QString name = QString::fromStdString(it.key());
            const QString keyPath = mapPath + u'[' + name + u']';
            errors.append(validateContainerResourceName(name, keyPath));
            const auto value = Quantity::fromJson(*it);
            if (!value)
                continue;
            errors.append(validateQuantityValue(name, *value, keyPath));
            if (map != &requests)
                continue;
            const json &limitValue = jsonMember(limits, it.key().c_str());
            const auto limit = limits.is_object() && limits.contains(it.key())
                ? Quantity::fromJson(limitValue)
                : std::nullopt;
            if (limit) {
                const int order = value->compare(*limit);
                if (order != 0 && !overcommitAllowed(name))
                    errors.append(fe::invalid(
                        requestsPath,
                        quote(value->toString()),
                        u"must be equal to %1 limit of %2"_s.arg(name, limit->toString())));
                else if (order > 0)
                    errors.append(fe::invalid(requestsPath,
                                              quote(value->toString()),
                                              u"must be less than or equal to %1 limit of %2"_s.arg(
                                                  name, limit->toString())));
            } else if (!overcommitAllowed(name)) {
                errors.append(fe::required(
                    limitsPath, u"Limit must be set for non overcommitable resources"_s));
            }
        }
    }
    return errors;
}

void validatePortNumOrName(Errors &errors, const json &port, const QString &path)
{
    if (port.is_string()) {
        const QString name = QString::fromStdString(port.get<std::string>());
        for (const QString &message : models::isValidPortName(name))
            errors.append(fe::invalid(path, quote(name), message));
    } else {
        const qint64 number = port.is_number_integer() ? port.get<qint64>() : 0;
        if (number < 1 || number > 65535)
            errors.append(fe::invalid(
                path, QString::number(number), u"must be between 1 and 65535, inclusive"_s));
    }
}

Errors validateHandler(const json &handler, const QString &path)
{
    Errors errors;
    int handlers = 0;
    for (const char *kind : { "exec", "httpGet", "tcpSocket", "grpc", "sleep" }) {
        const json &action = jsonMember(handler, kind);
        if (action.is_null())
            continue;
        const QString actionPath = child(path, kind);
        if (handlers++ > 0) {
            errors.append(fe::forbidden(actionPath, u"may not specify more than 1 handler type"_s));
            continue;
        }
        const std::string_view k = kind;
        if (k == "exec"
            && (!jsonMember(action, "command").is_array() || jsonMember(action, "command").empty()))
            errors.append(fe::required(child(actionPath, "command")));
        if (k == "httpGet") {
            if (jsonString(action, "path").isEmpty())
                errors.append(fe::required(child(actionPath, "path")));
            validatePortNumOrName(errors, jsonMember(action, "port"), child(actionPath, "port"));
            const QString scheme = jsonString(action, "scheme");
            if (scheme != u"HTTP" && scheme != u"HTTPS")
                errors.append(fe::notSupported(
                    child(actionPath, "scheme"), scheme, { u"HTTP"_s, u"HTTPS"_s }));
        }
        if (k == "tcpSocket")
            validatePortNumOrName(errors, jsonMember(action, "port"), child(actionPath, "port"));
    }
    if (handlers == 0)
        errors.append(fe::required(path, u"must specify a handler type"_s));
    return errors;
}

// validateLivenessProbe, validateReadinessProbe, validateStartupProbe.
Errors validateProbe(const json &probe, const QString &path, bool readiness)
{
    Errors errors;
    if (!probe.is_object())
        return errors;
    errors.append(validateHandler(probe, path));
    for (const char *key : { "initialDelaySeconds",
                             "timeoutSeconds",
                             "periodSeconds",
                             "successThreshold",
                             "failureThreshold" })
        nonNegative(errors, jsonMember(probe, key), child(path, key));
    const json &grace = jsonMember(probe, "terminationGracePeriodSeconds");
    if (grace.is_number_integer() && grace.get<qint64>() <= 0)
        errors.append(fe::invalid(child(path, "terminationGracePeriodSeconds"),
                                  shown(grace),
                                  u"must be greater than 0"_s));
    if (readiness && !grace.is_null())
        errors.append(fe::invalid(child(path, "terminationGracePeriodSeconds"),
                                  shown(grace),
                                  u"must not be set for readinessProbes"_s));
    const json &success = jsonMember(probe, "successThreshold");
    if (!readiness && !(success.is_number_integer() && success.get<qint64>() == 1))
        errors.append(fe::invalid(child(path, "successThreshold"),
                                  success.is_number() ? shown(success) : u"0"_s,
                                  u"must be 1"_s));
    return errors;
}

// validateContainerCommon: what every kind of container must hold.
Errors validateContainer(const json &container, const QSet<QString> &volumes, const QString &path)
{
    Errors errors;
    const QString name = jsonString(container, "name");
    if (name.isEmpty())
        errors.append(fe::required(child(path, "name")));
    else
        dnsLabel(errors, name, child(path, "name"));
    if (jsonString(container, "image").isEmpty())
        errors.append(fe::required(child(path, "image")));
    oneOf(errors,
          jsonString(container, "terminationMessagePolicy"),
          child(path, "terminationMessagePolicy"),
          { u"File"_s, u"FallbackToLogsOnError"_s });
    errors.append(validatePorts(jsonMember(container, "ports"), child(path, "ports")));
    errors.append(validateEnv(jsonMember(container, "env"), child(path, "env")));
    errors.append(validateMounts(
        jsonMember(container, "volumeMounts"), volumes, child(path, "volumeMounts")));
    oneOf(errors,
          jsonString(container, "imagePullPolicy"),
          child(path, "imagePullPolicy"),
          { u"Always"_s, u"IfNotPresent"_s, u"Never"_s });
    errors.append(validateResources(jsonMember(container, "resources"), child(path, "resources")));
    return errors;
}

Errors validateContainers(const json &containers, const QSet<QString> &volumes, const QString &path)
{
    Errors errors;
    if (!containers.is_array() || containers.empty()) {
        errors.append(fe::required(path));
        return errors;
    }
    QSet<QString> names;
    for (qsizetype i = 0; i < qsizetype(containers.size()); ++i) {
        const json &container = containers[std::size_t(i)];
        const QString containerPath = index(path, i);
        errors.append(validateContainer(container, volumes, containerPath));
        const QString name = jsonString(container, "name");
        if (names.contains(name))
            errors.append(fe::duplicate(child(containerPath, "name"), quote(name)));
        names.insert(name);
        errors.append(validateProbe(
            jsonMember(container, "livenessProbe"), child(containerPath, "livenessProbe"), false));
        errors.append(validateProbe(
            jsonMember(container, "readinessProbe"), child(containerPath, "readinessProbe"), true));
        errors.append(validateProbe(
            jsonMember(container, "startupProbe"), child(containerPath, "startupProbe"), false));
    }
    return errors;
}

Errors validateInitContainers(const json &spec, const QSet<QString> &volumes, const QString &path)
{
    Errors errors;
    const json &containers = jsonMember(spec, "initContainers");
    if (!containers.is_array())
        return errors;
    QSet<QString> names;
    const json &regular = jsonMember(spec, "containers");
    for (std::size_t i = 0; regular.is_array() && i < regular.size(); ++i)
        names.insert(jsonString(regular[i], "name"));
    for (qsizetype i = 0; i < qsizetype(containers.size()); ++i) {
        const json &container = containers[std::size_t(i)];
        const QString containerPath = index(path, i);
        errors.append(validateContainer(container, volumes, containerPath));
        const QString name = jsonString(container, "name");
        if (names.contains(name))
            errors.append(fe::duplicate(child(containerPath, "name"), quote(name)));
        else if (!name.isEmpty())
            names.insert(name);
        const bool sidecar = jsonString(container, "restartPolicy") == u"Always";
        for (const char *key : { "lifecycle", "livenessProbe", "readinessProbe", "startupProbe" }) {
            if (sidecar || jsonMember(container, key).is_null())
                continue;
            errors.append(fe::forbidden(child(containerPath, key),
                                        u"may not be set for init containers without "
                                        "restartPolicy=Always"_s));
        }
        if (sidecar) {
            errors.append(validateProbe(jsonMember(container, "livenessProbe"),
                                        child(containerPath, "livenessProbe"),
                                        false));
            errors.append(validateProbe(jsonMember(container, "readinessProbe"),
                                        child(containerPath, "readinessProbe"),
                                        true));
            errors.append(validateProbe(jsonMember(container, "startupProbe"),
                                        child(containerPath, "startupProbe"),
                                        false));
        }
    }
    return errors;
}

Errors validateTolerations(const json &tolerations, const QString &path)
{
    Errors errors;
    if (!tolerations.is_array())
        return errors;
    for (qsizetype i = 0; i < qsizetype(tolerations.size()); ++i) {
        const json &toleration = tolerations[std::size_t(i)];
        const QString p = index(path, i);
        const QString key = jsonString(toleration, "key");
        const QString op = jsonString(toleration, "operator");
        const QString value = jsonString(toleration, "value");
        const QString effect = jsonString(toleration, "effect");
        for (const QString &message : key.isEmpty() ? QStringList() : models::isQualifiedName(key))
            errors.append(fe::invalid(child(p, "key"), quote(key), message));
        if (key.isEmpty() && op != u"Exists")
            errors.append(fe::invalid(child(p, "operator"),
                                      quote(op),
                                      u"operator must be Exists when `key` is empty, which means "
                                      "\"match all values and all keys\""_s));
        if (!jsonMember(toleration, "tolerationSeconds").is_null() && effect != u"NoExecute")
            errors.append(
                fe::invalid(child(p, "effect"),
                            quote(effect),
                            u"effect must be 'NoExecute' when `tolerationSeconds` is set"_s));
        if (op.isEmpty() || op == u"Equal") {
            const QStringList messages = models::isValidLabelValue(value);
            if (!messages.isEmpty())
                errors.append(fe::invalid(child(p, "operator"), quote(value), messages.join(u';')));
        } else if (op == u"Exists") {
            if (!value.isEmpty())
                errors.append(fe::invalid(child(p, "operator"),
                                          quote(value),
                                          u"value must be empty when `operator` is 'Exists'"_s));
        } else if (op == u"Lt" || op == u"Gt") {
            errors.append(fe::notSupported(
                child(p, "operator"), op, { u"Equal"_s, u"Exists"_s, u"Lt"_s, u"Gt"_s }));
        } else {
            errors.append(fe::notSupported(child(p, "operator"), op, { u"Equal"_s, u"Exists"_s }));
        }
        if (!effect.isEmpty() && effect != u"NoSchedule" && effect != u"PreferNoSchedule"
            && effect != u"NoExecute")
            errors.append(
                fe::notSupported(child(p, "effect"),
                                 effect,
                                 { u"NoSchedule"_s, u"PreferNoSchedule"_s, u"NoExecute"_s }));
    }
    return errors;
}

// validateContainerOnlyForPod: images without surrounding white space.
Errors validateImagesForPod(const json &containers, const QString &path)
{
    Errors errors;
    if (!containers.is_array())
        return errors;
    for (qsizetype i = 0; i < qsizetype(containers.size()); ++i) {
        const QString image = jsonString(containers[std::size_t(i)], "image");
        if (image.trimmed().size() != image.size())
            errors.append(fe::invalid(child(index(path, i), "image"),
                                      quote(image),
                                      u"must not have leading or trailing whitespace"_s));
    }
    return errors;
}

// validatePodMetadataAndSpec.
Errors validatePodMetadataAndSpec(const json &pod)
{
    const json &metadata = jsonMember(pod, "metadata");
    Errors errors = metavalidation::validateObjectMeta(
        metadata, true, metavalidation::NameRule::DnsSubdomain);
    errors.append(metavalidation::validateKubeFinalizers(metadata));
    const json &spec = jsonMember(pod, "spec");
    errors.append(validatePodSpec(spec, u"spec"_s));
    errors.append(validateImagesForPod(jsonMember(spec, "containers"), u"spec.containers"_s));
    errors.append(
        validateImagesForPod(jsonMember(spec, "initContainers"), u"spec.initContainers"_s));
    return errors;
}

// ValidateContainerUpdates: the same number of containers, each with an image; true to stop.
bool validateContainerUpdates(Errors &errors,
                              const json &now,
                              const json &before,
                              const QString &path)
{
    const std::size_t count = now.is_array() ? now.size() : 0;
    if (count != (before.is_array() ? before.size() : 0)) {
        errors.append(fe::forbidden(path, u"pod updates may not add or remove containers"_s));
        return true;
    }
    for (std::size_t i = 0; i < count; ++i) {
        const QString image = jsonString(now[i], "image");
        const QString imagePath = child(index(path, qsizetype(i)), "image");
        if (image.isEmpty())
            errors.append(fe::required(imagePath));
        if (image.trimmed().size() != image.size())
            errors.append(fe::invalid(
                imagePath, quote(image), u"must not have leading or trailing whitespace"_s));
    }
    return false;
}

} // namespace

bool isStandardQuotaResource(const QString &resource)
{
    static const QSet<QString> standard = {
        u"cpu"_s,
        u"memory"_s,
        u"ephemeral-storage"_s,
        u"requests.cpu"_s,
        u"requests.memory"_s,
        u"requests.storage"_s,
        u"requests.ephemeral-storage"_s,
        u"limits.cpu"_s,
        u"limits.memory"_s,
        u"limits.ephemeral-storage"_s,
        u"pods"_s,
        u"resourcequotas"_s,
        u"services"_s,
        u"replicationcontrollers"_s,
        u"secrets"_s,
        u"persistentvolumeclaims"_s,
        u"configmaps"_s,
        u"services.nodeports"_s,
        u"services.loadbalancers"_s,
    };
    return standard.contains(resource) || resource.startsWith(u"hugepages-"_s)
        || resource.startsWith(u"requests.hugepages-"_s);
}

QList<FieldError> validateResourceName(const QString &resource, const QString &path)
{
    Errors errors;
    for (const QString &message : models::isQualifiedName(resource))
        errors.append(fe::invalid(path, quote(resource), message));
    if (!errors.isEmpty() || resource.contains(u'/'))
        return errors;
    static const QSet<QString> standard = { u"storage"_s, u"requests.storage"_s };
    if (!isStandardQuotaResource(resource) && !standard.contains(resource))
        errors.append(fe::invalid(
            path, quote(resource), u"must be a standard resource type or fully qualified"_s));
    return errors;
}

QList<FieldError>
validateQuantityValue(const QString &resource, const Quantity &value, const QString &path)
{
    Errors errors;
    if (value.sign() < 0)
        errors.append(
            fe::invalid(path, quote(value.toString()), u"must be greater than or equal to 0"_s));
    static const QSet<QString> integers = { u"pods"_s,
                                            u"resourcequotas"_s,
                                            u"services"_s,
                                            u"replicationcontrollers"_s,
                                            u"secrets"_s,
                                            u"configmaps"_s,
                                            u"persistentvolumeclaims"_s,
                                            u"services.nodeports"_s,
                                            u"services.loadbalancers"_s };
    if ((integers.contains(resource) || isExtendedResource(resource)) && !value.isWhole())
        errors.append(fe::invalid(path, quote(value.toString()), u"must be an integer"_s));
    return errors;
}

QList<FieldError> validatePodSpec(const json &spec, const QString &path)
{
    Errors errors;
    if (jsonMember(spec, "terminationGracePeriodSeconds").is_null())
        errors.append(fe::required(child(path, "terminationGracePeriodSeconds")));
    QSet<QString> volumes;
    errors.append(validateVolumes(jsonMember(spec, "volumes"), child(path, "volumes"), volumes));
    errors.append(
        validateContainers(jsonMember(spec, "containers"), volumes, child(path, "containers")));
    errors.append(validateInitContainers(spec, volumes, child(path, "initContainers")));
    oneOf(errors,
          jsonString(spec, "restartPolicy"),
          child(path, "restartPolicy"),
          { u"Always"_s, u"OnFailure"_s, u"Never"_s });
    oneOf(errors,
          jsonString(spec, "dnsPolicy"),
          child(path, "dnsPolicy"),
          { u"ClusterFirstWithHostNet"_s, u"ClusterFirst"_s, u"Default"_s, u"None"_s });
    errors.append(metavalidation::validateLabels(jsonMember(spec, "nodeSelector"),
                                                 child(path, "nodeSelector")));
    for (const char *key : { "serviceAccountName", "nodeName", "priorityClassName" }) {
        if (const QString value = jsonString(spec, key); !value.isEmpty())
            dnsSubdomain(errors, value, child(path, key));
    }
    const json &deadline = jsonMember(spec, "activeDeadlineSeconds");
    if (deadline.is_number_integer()
        && (deadline.get<qint64>() < 1
            || deadline.get<qint64>() > std::numeric_limits<qint32>::max()))
        errors.append(fe::invalid(child(path, "activeDeadlineSeconds"),
                                  shown(deadline),
                                  u"must be between 1 and 2147483647, inclusive"_s));
    for (const char *key : { "hostname", "subdomain" }) {
        if (const QString value = jsonString(spec, key); !value.isEmpty())
            dnsLabel(errors, value, child(path, key));
    }
    errors.append(validateTolerations(jsonMember(spec, "tolerations"), child(path, "tolerations")));
    return errors;
}

QList<FieldError> validatePodTemplate(const json &templ, const QString &path)
{
    const json &metadata = jsonMember(templ, "metadata");
    Errors errors
        = metavalidation::validateLabels(jsonMember(metadata, "labels"), child(path, "labels"));
    // At `path`.labels and .annotations, as ValidatePodTemplateSpec names them.
    errors.append(metavalidation::validateAnnotations(jsonMember(metadata, "annotations"),
                                                      child(path, "annotations")));
    errors.append(validatePodSpec(jsonMember(templ, "spec"), child(path, "spec")));
    return errors;
}

QList<FieldError> validatePodCreate(const json &pod)
{
    Errors errors = validatePodMetadataAndSpec(pod);
    const json &spec = jsonMember(pod, "spec");
    const json &ephemeral = jsonMember(spec, "ephemeralContainers");
    if (ephemeral.is_array() && !ephemeral.empty())
        errors.append(fe::forbidden(u"spec.ephemeralContainers"_s, u"cannot be set on create"_s));
    const json &gates = jsonMember(spec, "schedulingGates");
    if (!jsonString(spec, "nodeName").isEmpty() && gates.is_array() && !gates.empty())
        errors.append(fe::forbidden(
            u"spec.nodeName"_s, u"cannot be set until all schedulingGates have been cleared"_s));
    return errors;
}

QList<FieldError> validatePodUpdate(const json &pod, const json &old)
{
    const json &metadata = jsonMember(pod, "metadata");
    Errors errors = metavalidation::validateObjectMetaUpdate(metadata, jsonMember(old, "metadata"));
    errors.append(metavalidation::validateKubeFinalizers(metadata));
    errors.append(validatePodMetadataAndSpec(pod));
    const json &spec = jsonMember(pod, "spec");
    const json &oldSpec = jsonMember(old, "spec");
    if (validateContainerUpdates(errors,
                                 jsonMember(spec, "containers"),
                                 jsonMember(oldSpec, "containers"),
                                 u"spec.containers"_s)
        || validateContainerUpdates(errors,
                                    jsonMember(spec, "initContainers"),
                                    jsonMember(oldSpec, "initContainers"),
                                    u"spec.initContainers"_s))
        return errors;
    const json &deadline = jsonMember(spec, "activeDeadlineSeconds");
    const json &oldDeadline = jsonMember(oldSpec, "activeDeadlineSeconds");
    if (deadline.is_number_integer()) {
        const qint64 value = deadline.get<qint64>();
        if (value < 0 || value > std::numeric_limits<qint32>::max()) {
            errors.append(fe::invalid(u"spec.activeDeadlineSeconds"_s,
                                      QString::number(value),
                                      u"must be between 0 and 2147483647, inclusive"_s));
            return errors;
        }
        if (oldDeadline.is_number_integer() && oldDeadline.get<qint64>() < value) {
            errors.append(fe::invalid(u"spec.activeDeadlineSeconds"_s,
                                      QString::number(value),
                                      u"must be less than or equal to previous value"_s));
            return errors;
        }
    } else if (!oldDeadline.is_null()) {
        errors.append(fe::invalid(u"spec.activeDeadlineSeconds"_s,
                                  u"null"_s,
                                  u"must not update from a positive integer to nil value"_s));
    }
    // Only additions to the tolerations (a changed tolerationSeconds aside).
    const auto same = [](const json &a, const json &b) {
        for (const char *key : { "key", "operator", "value", "effect" }) {
            if (jsonString(a, key) != jsonString(b, key))
                return false;
        }
        return true;
    };
    const json &tolerations = jsonMember(spec, "tolerations");
    const json &oldTolerations = jsonMember(oldSpec, "tolerations");
    bool kept = true;
    for (std::size_t i = 0; oldTolerations.is_array() && i < oldTolerations.size(); ++i) {
        const json &before = oldTolerations[i];
        kept = kept && tolerations.is_array()
            && std::any_of(tolerations.begin(), tolerations.end(), [&](const json &now) {
                   return same(before, now);
               });
    }
    if (!kept)
        errors.append(fe::forbidden(u"spec.tolerations"_s,
                                    u"existing toleration can not be modified except its "
                                    "tolerationSeconds"_s));
    else
        errors.append(validateTolerations(tolerations, u"spec.tolerations"_s));
    if (podSpecsSemanticallyEqual(spec, oldSpec))
        return errors;
    // The new spec with what may change taken from the old one.
    json munged = spec.is_object() ? spec : json::object();
    for (const char *list : { "containers", "initContainers" }) {
        if (!munged.contains(list) || !munged[list].is_array())
            continue;
        const json &before = jsonMember(oldSpec, list);
        for (std::size_t i = 0; i < munged[list].size() && i < before.size(); ++i) {
            if (munged[list][i].is_object())
                munged[list][i]["image"] = jsonMember(before[i], "image");
        }
    }
    for (const char *key : { "activeDeadlineSeconds", "schedulingGates", "tolerations" }) {
        if (oldSpec.contains(key))
            munged[key] = oldSpec[key];
        else
            munged.erase(key);
    }
    const json &grace = jsonMember(oldSpec, "terminationGracePeriodSeconds");
    if (grace.is_number_integer() && grace.get<qint64>() < 0
        && jsonMember(munged, "terminationGracePeriodSeconds") == 1)
        munged["terminationGracePeriodSeconds"] = grace;
    if (!podSpecsSemanticallyEqual(munged, oldSpec))
        errors.append(fe::forbidden(
            u"spec"_s,
            u"pod updates may not change fields other than `spec.containers[*].image`,"
            "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
            "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
            "(allow it to be set to 1 if it was previously negative)\n"_s
                + QString::fromStdString(podSpecDiff(oldSpec, munged))));
    return errors;
}

} // namespace reconscope::controller::cluster::podvalidation
