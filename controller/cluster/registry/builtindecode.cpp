#include "controller/cluster/registry/builtindecode.h"

#include "controller/apimachinery/quantity.h"
#include "controller/cluster/objectjson.h"

#include <QStringList>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::Quantity;

namespace {

bool isCore(const ResourceType &type, QStringView kind)
{
    return type.builtin && type.group.isEmpty() && type.kind == kind;
}

bool isWorkload(const ResourceType &type)
{
    return type.builtin && type.group == u"apps"
        && (type.kind == u"Deployment" || type.kind == u"ReplicaSet");
}

// The Go package of a group's internal types, as conversion errors name it ("core.ConfigMap").
QString internalPackage(const QString &group)
{
    if (group.isEmpty())
        return u"core"_s;
    return group.section(u'.', 0, 0); // apps, coordination, apiextensions
}

// The kinds each served group version registers besides the served ones (their lists, and the
// kinds of the group the embedded cluster does not serve): a body of one of them converts to
// nothing else.
bool registeredKind(const ResourceType &type, const QString &kind)
{
    static const QStringList core = { u"Binding"_s,
                                      u"ComponentStatus"_s,
                                      u"ConfigMap"_s,
                                      u"Endpoints"_s,
                                      u"Event"_s,
                                      u"LimitRange"_s,
                                      u"Namespace"_s,
                                      u"Node"_s,
                                      u"PersistentVolume"_s,
                                      u"PersistentVolumeClaim"_s,
                                      u"Pod"_s,
                                      u"PodTemplate"_s,
                                      u"ReplicationController"_s,
                                      u"ResourceQuota"_s,
                                      u"Secret"_s,
                                      u"Service"_s,
                                      u"ServiceAccount"_s };
    static const QStringList apps = {
        u"ControllerRevision"_s, u"DaemonSet"_s, u"Deployment"_s, u"ReplicaSet"_s, u"StatefulSet"_s
    };
    static const QStringList coordination = { u"Lease"_s };
    const QStringList &kinds = type.group.isEmpty() ? core
        : type.group == u"apps"                     ? apps
                                                    : coordination;
    const QString base = kind.endsWith(u"List") ? kind.chopped(4) : kind;
    return kinds.contains(base);
}

// object[key] when `object` is an object that has it (const or not, as `object`).
template<typename J>
J *child(J &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

template<typename J, typename F>
void visitResourceMap(J &map, F &visit)
{
    if (!map.is_object())
        return;
    for (auto it = map.begin(); it != map.end(); ++it)
        visit(*it);
}

template<typename J, typename F>
void visitRequirements(J &owner, F &visit)
{
    if (J *resources = child(owner, "resources")) {
        for (const char *key : { "limits", "requests" }) {
            if (J *map = child(*resources, key))
                visitResourceMap(*map, visit);
        }
    }
}

template<typename J, typename F>
void visitPodSpec(J &spec, F &visit)
{
    for (const char *list : { "containers", "ephemeralContainers", "initContainers" }) {
        J *containers = child(spec, list);
        if (!containers || !containers->is_array())
            continue;
        for (auto &container : *containers)
            visitRequirements(container, visit);
    }
    if (J *overhead = child(spec, "overhead"))
        visitResourceMap(*overhead, visit);
    visitRequirements(spec, visit);
    if (J *volumes = child(spec, "volumes"); volumes && volumes->is_array()) {
        for (auto &volume : *volumes) {
            J *emptyDir = child(volume, "emptyDir");
            if (J *limit = emptyDir ? child(*emptyDir, "sizeLimit") : nullptr)
                visit(*limit);
        }
    }
}

template<typename J, typename F>
void visitQuantities(const ResourceType &type, J &object, F &visit)
{
    if (!type.builtin || !object.is_object())
        return;
    if (isCore(type, u"Pod")) {
        if (J *spec = child(object, "spec"))
            visitPodSpec(*spec, visit);
    } else if (isWorkload(type)) {
        J *spec = child(object, "spec");
        J *templ = spec ? child(*spec, "template") : nullptr;
        if (J *podSpec = templ ? child(*templ, "spec") : nullptr)
            visitPodSpec(*podSpec, visit);
    } else if (isCore(type, u"ResourceQuota")) {
        for (const char *part : { "spec", "status" }) {
            J *section = child(object, part);
            for (const char *key : { "hard", "used" }) {
                if (J *map = section ? child(*section, key) : nullptr)
                    visitResourceMap(*map, visit);
            }
        }
    }
}

// The first quantity that does not decode, with its message.
std::optional<QString> firstQuantityError(const ResourceType &type, const json &object)
{
    // Go's decoder stops at the first member whose UnmarshalJSON fails.
    std::optional<QString> error;
    const auto check = [&error](const json &value) {
        QString message;
        if (!error && !Quantity::fromJson(value, &message))
            error = message;
    };
    visitQuantities(type, object, check);
    return error;
}

// The first []byte member that is not base64.
std::optional<QString> firstBase64Error(const ResourceType &type, const json &object)
{
    const char *member = isCore(type, u"Secret") ? "data"
        : isCore(type, u"ConfigMap")             ? "binaryData"
                                                 : nullptr;
    const json *values = member ? &objectjson::member(object, member) : nullptr;
    if (!values || !values->is_object())
        return std::nullopt;
    for (const json &value : *values) {
        if (!value.is_string())
            continue;
        if (auto error = goBase64Error(value.get_ref<const std::string &>()))
            return error;
    }
    return std::nullopt;
}

} // namespace

std::optional<QString> goBase64Error(const std::string &text)
{
    const auto valid = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || c == '+' || c == '/';
    };
    const auto newline = [](char c) {
        return c == '\n' || c == '\r';
    };
    const auto corrupt = [](std::size_t at) {
        return u"illegal base64 data at input byte %1"_s.arg(at);
    };
    const std::size_t n = text.size();
    std::size_t si = 0;
    // One quantum of four characters at a time, newlines skipped, as decodeQuantum reads them.
    while (si < n) {
        for (int j = 0; j < 4; ++j) {
            if (si == n) {
                if (j == 0)
                    return std::nullopt;
                return corrupt(si - std::size_t(j));
            }
            const char in = text[si++];
            if (valid(in))
                continue;
            if (newline(in)) {
                --j;
                continue;
            }
            if (in != '=' || j < 2)
                return corrupt(si - 1);
            if (j == 2) { // "==" expected
                while (si < n && newline(text[si]))
                    ++si;
                if (si == n)
                    return corrupt(n);
                if (text[si] != '=')
                    return corrupt(si - 1);
                ++si;
            }
            while (si < n && newline(text[si]))
                ++si;
            if (si < n)
                return corrupt(si); // trailing garbage
            return std::nullopt;
        }
    }
    return std::nullopt;
}

void forEachQuantity(const ResourceType &type,
                     json &object,
                     const std::function<void(json &)> &visit)
{
    visitQuantities(type, object, visit);
}

std::optional<ApiError> builtinDecodeError(const ResourceType &type, const json &object)
{
    if (!type.builtin || type.group == u"apiextensions.k8s.io")
        return std::nullopt;
    const QString kind = objectjson::string(object, "kind");
    const QString bodyKind = kind.isEmpty() ? type.kind : kind;
    const QString prefix = u"%1 in version \"%2\" cannot be handled as a %3: "_s.arg(
        bodyKind, type.version, type.kind);
    if (bodyKind != type.kind && registeredKind(type, bodyKind))
        return ApiError::badRequest(
            prefix
            + u"converting (%1.%2) to (%3.%4): unknown conversion"_s.arg(
                type.version, bodyKind, internalPackage(type.group), type.kind));
    if (bodyKind != type.kind)
        return ApiError::badRequest(
            prefix
            + u"no kind \"%1\" is registered for version \"%2\" in scheme "
              "\"pkg/runtime/scheme.go:111\""_s.arg(bodyKind, type.groupVersion()));
    if (auto error = firstQuantityError(type, object))
        return ApiError::badRequest(prefix + *error);
    if (auto error = firstBase64Error(type, object))
        return ApiError::badRequest(prefix + *error);
    return std::nullopt;
}

} // namespace reconscope::controller::cluster
