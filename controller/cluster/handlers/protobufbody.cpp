#include "controller/cluster/handlers/protobufbody.h"

#include "models/rfc3339.h"

#include <QTimeZone>

#include <algorithm>
#include <array>
#include <optional>
#include <span>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;

namespace {

// The value shapes of the supported fields. Maps are proto map entries {key=1, value=2}.
enum class Type {
    String,
    Int32,
    Int64,
    Bool,
    Bytes, // base64 in JSON
    Message,
    Time, // metav1.Time {seconds=1, nanos=2}; empty is the zero time
    Quantity, // resource.Quantity {string=1}
    IntOrString, // intstr.IntOrString {type=1, intVal=2, strVal=3}
    StringMap,
    BytesMap,
    QuantityMap,
};

// How the typed JSON encoder writes the Go field: Always (no omitempty, or a non-pointer struct),
// OmitEmpty (dropped when zero; gogo writes such scalars to the wire even when zero) or Pointer
// (written exactly when set, i.e. when present on the wire).
enum class Presence { Always, OmitEmpty, Pointer };

struct MessageType;

struct Field
{
    int number;
    const char *name;
    Type type;
    Presence presence;
    bool repeated = false;
    const MessageType *message = nullptr;
};

struct MessageType
{
    const char *name; // Go's %T of the type, for error messages
    std::span<const Field> fields;
};

constexpr Presence Always = Presence::Always;
constexpr Presence Omit = Presence::OmitEmpty;
constexpr Presence Ptr = Presence::Pointer;

// Field numbers from k8s.io/api v0.36.3 and k8s.io/apimachinery v0.36.3 generated.proto; JSON
// presence from the json tags of their types.go. Leaves first: no type refers to a later one.
constexpr Field kOwnerReferenceFields[] = {
    { 5, "apiVersion", Type::String, Always }, { 1, "kind", Type::String, Always },
    { 3, "name", Type::String, Always },       { 4, "uid", Type::String, Always },
    { 6, "controller", Type::Bool, Ptr },      { 7, "blockOwnerDeletion", Type::Bool, Ptr },
};
constexpr MessageType kOwnerReference{ "v1.OwnerReference", kOwnerReferenceFields };

constexpr Field kObjectMetaFields[] = {
    { 1, "name", Type::String, Omit },
    { 2, "generateName", Type::String, Omit },
    { 3, "namespace", Type::String, Omit },
    { 4, "selfLink", Type::String, Omit },
    { 5, "uid", Type::String, Omit },
    { 6, "resourceVersion", Type::String, Omit },
    { 7, "generation", Type::Int64, Omit },
    { 8, "creationTimestamp", Type::Time, Omit }, // omitzero
    { 9, "deletionTimestamp", Type::Time, Ptr },
    { 10, "deletionGracePeriodSeconds", Type::Int64, Ptr },
    { 11, "labels", Type::StringMap, Omit },
    { 12, "annotations", Type::StringMap, Omit },
    { 13, "ownerReferences", Type::Message, Omit, true, &kOwnerReference },
    { 14, "finalizers", Type::String, Omit, true },
};
constexpr MessageType kObjectMeta{ "v1.ObjectMeta", kObjectMetaFields };

constexpr Field kLabelSelectorRequirementFields[] = {
    { 1, "key", Type::String, Always },
    { 2, "operator", Type::String, Always },
    { 3, "values", Type::String, Omit, true },
};
constexpr MessageType kLabelSelectorRequirement{ "v1.LabelSelectorRequirement",
                                                 kLabelSelectorRequirementFields };

constexpr Field kLabelSelectorFields[] = {
    { 1, "matchLabels", Type::StringMap, Omit },
    { 2, "matchExpressions", Type::Message, Omit, true, &kLabelSelectorRequirement },
};
constexpr MessageType kLabelSelector{ "v1.LabelSelector", kLabelSelectorFields };

constexpr Field kContainerPortFields[] = {
    { 1, "name", Type::String, Omit },           { 2, "hostPort", Type::Int32, Omit },
    { 3, "containerPort", Type::Int32, Always }, { 4, "protocol", Type::String, Omit },
    { 5, "hostIP", Type::String, Omit },
};
constexpr MessageType kContainerPort{ "v1.ContainerPort", kContainerPortFields };

constexpr Field kEnvVarFields[] = {
    { 1, "name", Type::String, Always },
    { 2, "value", Type::String, Omit },
};
constexpr MessageType kEnvVar{ "v1.EnvVar", kEnvVarFields };

constexpr Field kResourceRequirementsFields[] = {
    { 1, "limits", Type::QuantityMap, Omit },
    { 2, "requests", Type::QuantityMap, Omit },
};
constexpr MessageType kResourceRequirements{ "v1.ResourceRequirements",
                                             kResourceRequirementsFields };

constexpr Field kContainerFields[] = {
    { 1, "name", Type::String, Always },
    { 2, "image", Type::String, Omit },
    { 3, "command", Type::String, Omit, true },
    { 4, "args", Type::String, Omit, true },
    { 5, "workingDir", Type::String, Omit },
    { 6, "ports", Type::Message, Omit, true, &kContainerPort },
    { 7, "env", Type::Message, Omit, true, &kEnvVar },
    { 8, "resources", Type::Message, Omit, false, &kResourceRequirements },
    { 13, "terminationMessagePath", Type::String, Omit },
    { 14, "imagePullPolicy", Type::String, Omit },
    { 16, "stdin", Type::Bool, Omit },
    { 17, "stdinOnce", Type::Bool, Omit },
    { 18, "tty", Type::Bool, Omit },
    { 20, "terminationMessagePolicy", Type::String, Omit },
    { 24, "restartPolicy", Type::String, Ptr },
};
constexpr MessageType kContainer{ "v1.Container", kContainerFields };

constexpr Field kLocalObjectReferenceFields[] = {
    { 1, "name", Type::String, Omit },
};
constexpr MessageType kLocalObjectReference{ "v1.LocalObjectReference",
                                             kLocalObjectReferenceFields };

constexpr Field kPodSpecFields[] = {
    { 20, "initContainers", Type::Message, Omit, true, &kContainer },
    { 2, "containers", Type::Message, Always, true, &kContainer },
    { 3, "restartPolicy", Type::String, Omit },
    { 4, "terminationGracePeriodSeconds", Type::Int64, Ptr },
    { 5, "activeDeadlineSeconds", Type::Int64, Ptr },
    { 6, "dnsPolicy", Type::String, Omit },
    { 7, "nodeSelector", Type::StringMap, Omit },
    { 8, "serviceAccountName", Type::String, Omit },
    { 9, "serviceAccount", Type::String, Omit },
    { 21, "automountServiceAccountToken", Type::Bool, Ptr },
    { 10, "nodeName", Type::String, Omit },
    { 11, "hostNetwork", Type::Bool, Omit },
    { 12, "hostPID", Type::Bool, Omit },
    { 13, "hostIPC", Type::Bool, Omit },
    { 27, "shareProcessNamespace", Type::Bool, Ptr },
    { 15, "imagePullSecrets", Type::Message, Omit, true, &kLocalObjectReference },
    { 16, "hostname", Type::String, Omit },
    { 17, "subdomain", Type::String, Omit },
    { 19, "schedulerName", Type::String, Omit },
    { 24, "priorityClassName", Type::String, Omit },
    { 25, "priority", Type::Int32, Ptr },
    { 29, "runtimeClassName", Type::String, Ptr },
    { 30, "enableServiceLinks", Type::Bool, Ptr },
    { 31, "preemptionPolicy", Type::String, Ptr },
    { 32, "overhead", Type::QuantityMap, Omit },
    { 35, "setHostnameAsFQDN", Type::Bool, Ptr },
    { 37, "hostUsers", Type::Bool, Ptr },
    { 41, "hostnameOverride", Type::String, Ptr },
};
constexpr MessageType kPodSpec{ "v1.PodSpec", kPodSpecFields };

constexpr Field kPodTemplateSpecFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 2, "spec", Type::Message, Omit, false, &kPodSpec },
};
constexpr MessageType kPodTemplateSpec{ "v1.PodTemplateSpec", kPodTemplateSpecFields };

constexpr Field kRollingUpdateDeploymentFields[] = {
    { 1, "maxUnavailable", Type::IntOrString, Ptr },
    { 2, "maxSurge", Type::IntOrString, Ptr },
};
constexpr MessageType kRollingUpdateDeployment{ "v1.RollingUpdateDeployment",
                                                kRollingUpdateDeploymentFields };

constexpr Field kDeploymentStrategyFields[] = {
    { 1, "type", Type::String, Omit },
    { 2, "rollingUpdate", Type::Message, Ptr, false, &kRollingUpdateDeployment },
};
constexpr MessageType kDeploymentStrategy{ "v1.DeploymentStrategy", kDeploymentStrategyFields };

constexpr Field kDeploymentSpecFields[] = {
    { 1, "replicas", Type::Int32, Ptr },
    { 2, "selector", Type::Message, Ptr, false, &kLabelSelector },
    { 3, "template", Type::Message, Always, false, &kPodTemplateSpec },
    { 4, "strategy", Type::Message, Omit, false, &kDeploymentStrategy },
    { 5, "minReadySeconds", Type::Int32, Omit },
    { 6, "revisionHistoryLimit", Type::Int32, Ptr },
    { 7, "paused", Type::Bool, Omit },
    { 9, "progressDeadlineSeconds", Type::Int32, Ptr },
};
constexpr MessageType kDeploymentSpec{ "v1.DeploymentSpec", kDeploymentSpecFields };

// A create's status is ignored by the strategy; its scalars are read so that kubectl's all-zero
// status decodes (conditions are not).
constexpr Field kDeploymentStatusFields[] = {
    { 1, "observedGeneration", Type::Int64, Omit }, { 2, "replicas", Type::Int32, Omit },
    { 3, "updatedReplicas", Type::Int32, Omit },    { 7, "readyReplicas", Type::Int32, Omit },
    { 4, "availableReplicas", Type::Int32, Omit },  { 5, "unavailableReplicas", Type::Int32, Omit },
    { 9, "terminatingReplicas", Type::Int32, Ptr }, { 8, "collisionCount", Type::Int32, Ptr },
};
constexpr MessageType kDeploymentStatus{ "v1.DeploymentStatus", kDeploymentStatusFields };

constexpr Field kDeploymentFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 2, "spec", Type::Message, Omit, false, &kDeploymentSpec },
    { 3, "status", Type::Message, Omit, false, &kDeploymentStatus },
};
constexpr MessageType kDeployment{ "v1.Deployment", kDeploymentFields };

constexpr Field kNamespaceSpecFields[] = {
    { 1, "finalizers", Type::String, Omit, true },
};
constexpr MessageType kNamespaceSpec{ "v1.NamespaceSpec", kNamespaceSpecFields };

constexpr Field kNamespaceStatusFields[] = {
    { 1, "phase", Type::String, Omit },
};
constexpr MessageType kNamespaceStatus{ "v1.NamespaceStatus", kNamespaceStatusFields };

constexpr Field kNamespaceFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 2, "spec", Type::Message, Omit, false, &kNamespaceSpec },
    { 3, "status", Type::Message, Omit, false, &kNamespaceStatus },
};
constexpr MessageType kNamespace{ "v1.Namespace", kNamespaceFields };

constexpr Field kConfigMapFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 4, "immutable", Type::Bool, Ptr },
    { 2, "data", Type::StringMap, Omit },
    { 3, "binaryData", Type::BytesMap, Omit },
};
constexpr MessageType kConfigMap{ "v1.ConfigMap", kConfigMapFields };

constexpr Field kSecretFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 5, "immutable", Type::Bool, Ptr },
    { 2, "data", Type::BytesMap, Omit },
    { 4, "stringData", Type::StringMap, Omit },
    { 3, "type", Type::String, Omit },
};
constexpr MessageType kSecret{ "v1.Secret", kSecretFields };

// authorization.k8s.io/v1, as client-go's typed client sends it (kubectl auth can-i, k9s).
constexpr Field kResourceAttributesFields[] = {
    { 1, "namespace", Type::String, Omit }, { 2, "verb", Type::String, Omit },
    { 3, "group", Type::String, Omit },     { 4, "version", Type::String, Omit },
    { 5, "resource", Type::String, Omit },  { 6, "subresource", Type::String, Omit },
    { 7, "name", Type::String, Omit },
};
constexpr MessageType kResourceAttributes{ "v1.ResourceAttributes", kResourceAttributesFields };

constexpr Field kNonResourceAttributesFields[] = {
    { 1, "path", Type::String, Omit },
    { 2, "verb", Type::String, Omit },
};
constexpr MessageType kNonResourceAttributes{ "v1.NonResourceAttributes",
                                              kNonResourceAttributesFields };

constexpr Field kSelfSubjectAccessReviewSpecFields[] = {
    { 1, "resourceAttributes", Type::Message, Ptr, false, &kResourceAttributes },
    { 2, "nonResourceAttributes", Type::Message, Ptr, false, &kNonResourceAttributes },
};
constexpr MessageType kSelfSubjectAccessReviewSpec{ "v1.SelfSubjectAccessReviewSpec",
                                                    kSelfSubjectAccessReviewSpecFields };

constexpr Field kSubjectAccessReviewStatusFields[] = {
    { 1, "allowed", Type::Bool, Always },
    { 4, "denied", Type::Bool, Omit },
    { 2, "reason", Type::String, Omit },
    { 3, "evaluationError", Type::String, Omit },
};
constexpr MessageType kSubjectAccessReviewStatus{ "v1.SubjectAccessReviewStatus",
                                                  kSubjectAccessReviewStatusFields };

constexpr Field kSelfSubjectAccessReviewFields[] = {
    { 1, "metadata", Type::Message, Omit, false, &kObjectMeta },
    { 2, "spec", Type::Message, Always, false, &kSelfSubjectAccessReviewSpec },
    { 3, "status", Type::Message, Omit, false, &kSubjectAccessReviewStatus },
};
constexpr MessageType kSelfSubjectAccessReview{ "v1.SelfSubjectAccessReview",
                                                kSelfSubjectAccessReviewFields };

struct TopLevelKind
{
    const char *apiVersion;
    const char *kind;
    const MessageType *type;
};

constexpr TopLevelKind kKinds[] = {
    { "v1", "Namespace", &kNamespace },
    { "v1", "ConfigMap", &kConfigMap },
    { "v1", "Secret", &kSecret },
    { "apps/v1", "Deployment", &kDeployment },
    { "authorization.k8s.io/v1", "SelfSubjectAccessReview", &kSelfSubjectAccessReview },
};

enum WireType { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// One field of the wire: the varint for wire type 0, the payload for wire type 2.
struct WireField
{
    quint64 number = 0;
    int wireType = 0;
    quint64 varint = 0;
    QByteArrayView bytes;
};

// Reads the fields of one message in order; a truncated or malformed field ends it with an error.
class WireReader
{
public:
    explicit WireReader(QByteArrayView data)
        : m_data(data)
    { }

    bool atEnd() const { return m_position >= m_data.size(); }

    // The next field, or the 400 describing why it cannot be read.
    std::optional<QString> next(WireField &field)
    {
        const std::optional<quint64> tag = varint();
        if (!tag)
            return u"truncated field tag at byte %1"_s.arg(m_position);
        field = WireField{ *tag >> 3, int(*tag & 7), 0, {} };
        if (field.number == 0 || field.number > 0x1fffffff)
            return u"invalid field number %1"_s.arg(field.number);
        switch (field.wireType) {
        case Varint: {
            const std::optional<quint64> value = varint();
            if (!value)
                return u"truncated varint of field %1"_s.arg(field.number);
            field.varint = *value;
            return std::nullopt;
        }
        case LengthDelimited: {
            const std::optional<quint64> length = varint();
            if (!length || *length > quint64(m_data.size() - m_position))
                return u"truncated length-delimited field %1"_s.arg(field.number);
            field.bytes = m_data.sliced(m_position, qsizetype(*length));
            m_position += qsizetype(*length);
            return std::nullopt;
        }
        case Fixed64:
        case Fixed32: {
            const qsizetype size = field.wireType == Fixed64 ? 8 : 4;
            if (size > m_data.size() - m_position)
                return u"truncated fixed-size field %1"_s.arg(field.number);
            m_position += size;
            return std::nullopt;
        }
        default:
            return u"unsupported wire type %1 of field %2"_s.arg(field.wireType).arg(field.number);
        }
    }

private:
    std::optional<quint64> varint()
    {
        quint64 value = 0;
        for (int shift = 0; shift < 64 && m_position < m_data.size(); shift += 7) {
            const auto byte = quint8(m_data[m_position++]);
            value |= quint64(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return value;
        }
        return std::nullopt;
    }

    QByteArrayView m_data;
    qsizetype m_position = 0;
};

ApiError malformed(const QString &detail)
{
    return ApiError::badRequest(u"unable to decode the protobuf request body: "_s + detail);
}

ApiError unsupportedField(quint64 number, const char *typeName)
{
    return ApiError::unsupportedMediaType(
        u"protobuf field %1 of %2 is not supported by the embedded cluster; send JSON"_s.arg(number)
            .arg(QLatin1StringView(typeName)));
}

QString wrongWireType(const WireField &wire, const char *typeName)
{
    return u"wrong wire type %1 for field %2 of %3"_s.arg(wire.wireType)
        .arg(wire.number)
        .arg(QLatin1StringView(typeName));
}

json utf8String(QByteArrayView bytes)
{
    return QString::fromUtf8(bytes).toStdString();
}

ApiResult<json> decodeMessage(const MessageType &type, QByteArrayView bytes);

// The fields of a small fixed message (Time, Quantity, IntOrString, a map entry), by number;
// anything else in it is malformed rather than unsupported: these types have no other fields.
ApiResult<std::array<WireField, 5>> smallMessage(QByteArrayView bytes,
                                                 const char *typeName,
                                                 quint64 lastField,
                                                 std::initializer_list<int> varintFields)
{
    std::array<WireField, 5> fields{};
    WireReader reader(bytes);
    while (!reader.atEnd()) {
        WireField wire;
        if (const auto error = reader.next(wire))
            return malformed(*error);
        if (wire.number > lastField)
            return unsupportedField(wire.number, typeName);
        const bool wantsVarint
            = std::find(varintFields.begin(), varintFields.end(), int(wire.number))
            != varintFields.end();
        if (wire.wireType != (wantsVarint ? Varint : LengthDelimited))
            return malformed(wrongWireType(wire, typeName));
        fields[wire.number] = wire;
    }
    return fields;
}

// A scalar or message value of `field` from one wire field of the right wire type.
ApiResult<json> decodeValue(const Field &field, const WireField &wire)
{
    switch (field.type) {
    case Type::String:
        return utf8String(wire.bytes);
    case Type::Int32:
        return json(qint32(quint32(wire.varint)));
    case Type::Int64:
        return json(qint64(wire.varint));
    case Type::Bool:
        return json(wire.varint != 0);
    case Type::Bytes:
        return json(wire.bytes.toByteArray().toBase64().toStdString());
    case Type::Message:
        return decodeMessage(*field.message, wire.bytes);
    case Type::Time: {
        // metav1.Time's Unmarshal: no bytes is the zero time; nanoseconds are dropped.
        if (wire.bytes.isEmpty())
            return json(nullptr);
        const auto time = smallMessage(wire.bytes, "v1.Time", 2, { 1, 2 });
        if (!time)
            return time.error();
        const QDateTime utc
            = QDateTime::fromSecsSinceEpoch(qint64((*time)[1].varint), QTimeZone::utc());
        return json(models::formatRfc3339(utc).toStdString());
    }
    case Type::Quantity: {
        const auto quantity = smallMessage(wire.bytes, "resource.Quantity", 1, {});
        if (!quantity)
            return quantity.error();
        return utf8String((*quantity)[1].bytes);
    }
    case Type::IntOrString: {
        const auto value = smallMessage(wire.bytes, "intstr.IntOrString", 3, { 1, 2 });
        if (!value)
            return value.error();
        if ((*value)[1].varint == 1)
            return utf8String((*value)[3].bytes);
        return json(qint32(quint32((*value)[2].varint)));
    }
    case Type::StringMap:
    case Type::BytesMap:
    case Type::QuantityMap:
        break;
    }
    return malformed(u"internal: map field decoded as a value"_s);
}

// One map entry {key=1, value=2} of a map field, added to `map`.
std::optional<ApiError> addMapEntry(const Field &field, const WireField &wire, json &map)
{
    const auto entry = smallMessage(wire.bytes, "map entry", 2, {});
    if (!entry)
        return entry.error();
    const std::string key = utf8String((*entry)[1].bytes).get<std::string>();
    const QByteArrayView value = (*entry)[2].bytes;
    if (field.type == Type::StringMap) {
        map[key] = utf8String(value);
    } else if (field.type == Type::BytesMap) {
        map[key] = value.toByteArray().toBase64().toStdString();
    } else {
        const auto quantity = smallMessage(value, "resource.Quantity", 1, {});
        if (!quantity)
            return quantity.error();
        map[key] = utf8String((*quantity)[1].bytes);
    }
    return std::nullopt;
}

bool isMap(Type type)
{
    return type == Type::StringMap || type == Type::BytesMap || type == Type::QuantityMap;
}

bool wantsVarint(Type type)
{
    return type == Type::Int32 || type == Type::Int64 || type == Type::Bool;
}

// Whether omitempty drops `value`: a zero scalar, a nil slice or map, a zero Time (omitzero).
// Structs are never empty to encoding/json.
bool omitted(const Field &field, const json &value)
{
    if (field.type == Type::Message && !field.repeated)
        return false;
    return value.is_null() || (value.is_string() && value.get_ref<const std::string &>().empty())
        || (value.is_number() && value == 0) || (value.is_boolean() && !value.get<bool>())
        || ((value.is_array() || value.is_object()) && value.empty());
}

// What the JSON encoder writes for a field the wire did not carry: Go's zero value.
ApiResult<json> zeroValue(const Field &field)
{
    if (field.repeated || isMap(field.type) || field.type == Type::Time)
        return json(nullptr);
    switch (field.type) {
    case Type::String:
    case Type::Bytes:
    case Type::Quantity:
        return json("");
    case Type::Message:
        return decodeMessage(*field.message, {});
    case Type::Bool:
        return json(false);
    default:
        return json(0);
    }
}

// The message's fields as JSON, then JSON presence applied: zero omitempty fields dropped, absent
// non-omitempty fields written as their zero value.
ApiResult<json> decodeMessage(const MessageType &type, QByteArrayView bytes)
{
    json out = json::object();
    WireReader reader(bytes);
    while (!reader.atEnd()) {
        WireField wire;
        if (const auto error = reader.next(wire))
            return malformed(*error);
        const auto field
            = std::find_if(type.fields.begin(), type.fields.end(), [&](const Field &f) {
                  return quint64(f.number) == wire.number;
              });
        if (field == type.fields.end())
            return unsupportedField(wire.number, type.name);
        if (wire.wireType != (wantsVarint(field->type) ? Varint : LengthDelimited))
            return malformed(wrongWireType(wire, type.name));
        json &slot = out[field->name];
        if (isMap(field->type)) {
            if (slot.is_null())
                slot = json::object();
            if (auto error = addMapEntry(*field, wire, slot))
                return *error;
            continue;
        }
        auto value = decodeValue(*field, wire);
        if (!value)
            return value.error();
        if (field->repeated)
            slot.push_back(std::move(*value));
        else
            slot = std::move(*value);
    }
    for (const Field &field : type.fields) {
        const auto present = out.find(field.name);
        if (present == out.end()) {
            if (field.presence != Presence::Always)
                continue;
            auto zero = zeroValue(field);
            if (!zero)
                return zero.error();
            out[field.name] = std::move(*zero);
        } else if (field.presence == Presence::OmitEmpty && omitted(field, *present)) {
            out.erase(present);
        }
    }
    return out;
}

} // namespace

std::optional<QString> protobufPrefixError(const QByteArray &body)
{
    static constexpr char magic[] = { 'k', '8', 's', '\0' };
    if (body.isEmpty())
        return u"empty data"_s;
    if (!body.startsWith(QByteArrayView(magic, 4)))
        return u"provided data does not appear to be a protobuf message, expected prefix "
               "[107 56 115 0]"_s;
    if (body.size() == 4)
        return u"empty body"_s;
    return std::nullopt;
}

ApiResult<json> protobufBodyToJson(const QByteArray &body, const QString &defaultKind)
{
    if (const auto error = protobufPrefixError(body))
        return malformed(*error);
    // runtime.Unknown {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3,
    // contentType=4}.
    const auto envelope = smallMessage(QByteArrayView(body).sliced(4), "runtime.Unknown", 4, {});
    if (!envelope)
        return envelope.error();
    const auto typeMeta = smallMessage((*envelope)[1].bytes, "runtime.TypeMeta", 2, {});
    if (!typeMeta)
        return typeMeta.error();
    if (!(*envelope)[3].bytes.isEmpty())
        return ApiError::unsupportedMediaType(
            u"protobuf content encoding \"%1\" is not supported by the embedded cluster; send JSON"_s
                .arg(QString::fromUtf8((*envelope)[3].bytes)));
    const QByteArray defaultKindBytes = defaultKind.toUtf8();
    const QByteArrayView kind
        = (*typeMeta)[2].bytes.isEmpty() ? QByteArrayView(defaultKindBytes) : (*typeMeta)[2].bytes;
    QByteArrayView apiVersion = (*typeMeta)[1].bytes;
    if (kind.isEmpty())
        return ApiError::badRequest(
            u"Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"%1\", Kind:\"\"}'"_s.arg(
                QString::fromUtf8(apiVersion)));
    for (const TopLevelKind &known : kKinds) {
        if (apiVersion.isEmpty() && kind == QByteArrayView(known.kind))
            apiVersion = known.apiVersion;
    }
    for (const TopLevelKind &known : kKinds) {
        if (apiVersion != QByteArrayView(known.apiVersion) || kind != QByteArrayView(known.kind))
            continue;
        auto object = decodeMessage(*known.type, (*envelope)[2].bytes);
        if (!object)
            return object.error();
        (*object)["apiVersion"] = known.apiVersion;
        (*object)["kind"] = known.kind;
        return object;
    }
    return ApiError::unsupportedMediaType(
        u"protobuf bodies of kind \"%1\" (apiVersion \"%2\") are not supported by the embedded "
        "cluster; send JSON"_s.arg(QString::fromUtf8(kind), QString::fromUtf8(apiVersion)));
}

} // namespace reconscope::controller::cluster
