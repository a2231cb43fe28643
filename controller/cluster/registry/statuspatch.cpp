#include "controller/cluster/registry/statuspatch.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/registry/admission.h"
#include "controller/cluster/registry/fieldmanagers.h"
#include "controller/fieldowner/managedfields.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::PatchType;

namespace {

using Spans = std::vector<objectjson::MemberSpan>;

const objectjson::MemberSpan *valueOf(const Spans &spans, QByteArrayView key)
{
    for (const objectjson::MemberSpan &span : spans) {
        if (span.key == key)
            return &span;
    }
    return nullptr;
}

QByteArrayView slice(QByteArrayView text, const objectjson::MemberSpan *span)
{
    return text.sliced(span->valueAt, span->valueLength);
}

// Whether the patch touches the status and nothing else, so that every other member of the
// patched object is the stored one. (patchObject has checked that a JSON patch is an array of
// objects.)
bool touchesStatusAlone(PatchType patchType, const json &patch)
{
    if (patchType == PatchType::Json) {
        for (const json &operation : patch) {
            const json &op = objectjson::member(operation, "op");
            const json &path = objectjson::member(operation, "path");
            if (!op.is_string() || !path.is_string())
                return false;
            const auto &opName = op.get_ref<const std::string &>();
            if (opName != "add" && opName != "remove" && opName != "replace" && opName != "test")
                return false;
            if (!path.get_ref<const std::string &>().starts_with("/status/"))
                return false;
        }
        return true;
    }
    return patch.size() == 1 && patch.contains("status") && patch["status"].is_object();
}

// Where the stored text's members sit: the kind and apiVersion the general way would check and
// write, the resourceVersion it would find, the required members, the status.
struct StoredSpans
{
    const objectjson::MemberSpan *metadata = nullptr;
    const objectjson::MemberSpan *status = nullptr;
    const objectjson::MemberSpan *resourceVersion = nullptr; // within the metadata's text
    const objectjson::MemberSpan *managedFields = nullptr; // within the metadata's text, or null
    Spans top;
    Spans metadataMembers;
};

bool locateSpans(const Bucket &bucket,
                 const TypeEntry &type,
                 const RecordPtr &existing,
                 StoredSpans &spans)
{
    const QByteArrayView stored(existing->json);
    if (!objectjson::members(stored, spans.top))
        return false;
    const auto quoted = [](const QString &text) {
        return u'"' + text + u'"';
    };
    const auto *apiVersion = valueOf(spans.top, "apiVersion");
    const auto *kind = valueOf(spans.top, "kind");
    spans.metadata = valueOf(spans.top, "metadata");
    spans.status = valueOf(spans.top, "status");
    if (!apiVersion || !kind || !spans.metadata || !spans.status
        || spans.metadata->valueAt > spans.status->valueAt
        || slice(stored, apiVersion) != quoted(bucket.storageApiVersion).toUtf8()
        || slice(stored, kind) != quoted(type.type.kind).toUtf8()
        || !slice(stored, spans.status).startsWith('{'))
        return false;
    for (const std::string &required : type.schema.requiredMembers()) {
        if (!valueOf(spans.top, QByteArrayView(required.data(), qsizetype(required.size()))))
            return false;
    }
    const QByteArrayView metadataText = slice(stored, spans.metadata);
    if (!objectjson::members(metadataText, spans.metadataMembers))
        return false;
    spans.resourceVersion = valueOf(spans.metadataMembers, "resourceVersion");
    spans.managedFields = valueOf(spans.metadataMembers, "managedFields");
    const std::string oldRv = '"' + std::to_string(existing->resourceVersion) + '"';
    return spans.resourceVersion
        && slice(metadataText, spans.resourceVersion)
        == QByteArrayView(oldRv.data(), qsizetype(oldRv.size()));
}

// The status alone, in a stand-in object {"status":...}: patched, then pruned and defaulted as
// updateObject does the whole object, and validated; nullopt when the general way must answer.
// `old`: the stored status, parsed; `seen`: the status as the field manager sees it in the
// general way (defaulted once).
std::optional<json> patchedStatus(const TypeEntry &type,
                                  QByteArrayView oldStatusText,
                                  PatchType patchType,
                                  const json &patch,
                                  json &old,
                                  json &seen)
{
    json stored = json::object();
    stored["status"] = objectjson::parseStored(oldStatusText);
    if (stored["status"].is_discarded() || !stored["status"].is_object())
        return std::nullopt;
    json patched;
    if (patchType == PatchType::Json) {
        auto applied = objectjson::applyJsonPatch(stored, patch);
        if (!applied)
            return std::nullopt; // the general way answers it
        patched = std::move(*applied);
    } else {
        patched = stored;
        patched.merge_patch(patch);
    }
    if (!patched.is_object() || patched.size() != 1 || !patched["status"].is_object())
        return std::nullopt;
    if (!type.schema.prune(patched).isEmpty())
        return std::nullopt; // warnings (or a strict refusal): the general way words them
    // Twice, as the general way defaults: applySchema on the patched object, then applyDefaults
    // of the merged one (updateObject); a default may hold for what the first pass set.
    type.schema.applyDefaults(patched);
    seen = patched["status"];
    type.schema.applyDefaults(patched);
    const auto status = patched.find("status");
    if (status == patched.end() || !status->is_object())
        return std::nullopt;
    if (!type.schema.validateMemberUpdate("status", *status, &stored["status"]).isEmpty())
        return std::nullopt;
    old = std::move(stored["status"]);
    return patched;
}

// Selectable fields outside the status keep their values; those of the status are taken from
// the new one. False when the stored record's fields do not line up with the bucket's.
bool selectableFields(const Bucket &bucket,
                      const RecordPtr &existing,
                      const json &patched,
                      std::vector<std::pair<QString, QString>> &fields)
{
    fields.reserve(std::size_t(bucket.selectableFields.size()));
    for (qsizetype i = 0; i < bucket.selectableFields.size(); ++i) {
        const QString &field = bucket.selectableFields[i];
        if (field.startsWith(u".status.") || field == u".status") {
            fields.emplace_back(field.mid(1), objectjson::fieldValue(patched, field));
        } else if (std::size_t(i) < existing->fields.size()
                   && existing->fields[std::size_t(i)].first == QStringView(field).mid(1)) {
            fields.push_back(existing->fields[std::size_t(i)]);
        } else {
            return false;
        }
    }
    return true;
}

// The stored managedFields updated for the status write as the general way's field manager
// would (registry/fieldmanagers.h): only the status differs between the stored object and the
// patched one, so stand-ins holding the managedFields and the status give the same ownership;
// and when the writer alone owns every value it changes, only its entry's time changes, which
// the field manager finds without comparing stand-ins. nullopt when the general way must compute
// them (unreadable, or dropped by the field manager).
std::optional<QByteArray> managedFieldsAfter(const TypeEntry &type,
                                             const Bucket &bucket,
                                             QByteArrayView managedFieldsText,
                                             json oldStatus,
                                             const json &seenStatus,
                                             const WriteOptions &options)
{
    if (!type.fieldManagers || !type.fieldManagers->status)
        return std::nullopt;
    const fieldowner::FieldManager &manager = *type.fieldManagers->status;
    json managedFields = objectjson::parseStored(managedFieldsText);
    if (managedFields.is_discarded() || !managedFields.is_array() || managedFields.empty())
        return std::nullopt;
    const std::string writer = updateManagerOf(options);
    if (manager.retimeSoleOwner(managedFields, "status", oldStatus, seenStatus, writer))
        return objectjson::dump(managedFields);
    const json live = { { "apiVersion", bucket.storageApiVersion.toStdString() },
                        { "kind", type.type.kind.toStdString() },
                        { "metadata", { { "managedFields", std::move(managedFields) } } },
                        { "status", std::move(oldStatus) } };
    // What the status subresource's manager reads of the new object: its status alone (it takes
    // managedFields from the live object).
    json updated = { { "apiVersion", bucket.storageApiVersion.toStdString() },
                     { "kind", type.type.kind.toStdString() },
                     { "metadata", json::object() },
                     { "status", seenStatus } };
    const json result = manager.update(live, std::move(updated), writer);
    const json *fields = fieldowner::managedFieldsOf(result);
    if (!fields || !fields->is_array())
        return std::nullopt;
    return objectjson::dump(*fields);
}

} // namespace

std::optional<WriteResult> StatusPatchInPlace::apply(Store &store,
                                                     const TypeEntry &type,
                                                     const RecordPtr &existing,
                                                     PatchType patchType,
                                                     const json &patch,
                                                     const WriteOptions &options)
{
    if (!m_enabled || !type.statusInPlace || options.dryRun || existing->schemaStamp != type.serial
        || patchType == PatchType::Strategic)
        return std::nullopt;
    if (!touchesStatusAlone(patchType, patch))
        return std::nullopt;
    const Bucket &b = store.bucket(type);
    StoredSpans spans;
    if (!locateSpans(b, type, existing, spans))
        return std::nullopt;
    const QByteArrayView stored(existing->json);
    const QByteArrayView oldStatusText = slice(stored, spans.status);
    json oldStatus, seenStatus;
    const std::optional<json> patched
        = patchedStatus(type, oldStatusText, patchType, patch, oldStatus, seenStatus);
    if (!patched)
        return std::nullopt;

    // The stored text with the new status and resourceVersion.
    const QByteArray statusText = objectjson::dump((*patched)["status"]);
    if (QByteArrayView(statusText) == oldStatusText)
        return std::nullopt; // a no-op: nothing is written, the general way answers it
    if (storageSizeError(stored.size() - oldStatusText.size() + statusText.size()))
        return std::nullopt;
    std::vector<std::pair<QString, QString>> fields;
    if (!selectableFields(b, existing, *patched, fields))
        return std::nullopt;
    // The metadata's managedFields, when the object keeps them, as the general way updates them.
    const QByteArrayView metadataText = slice(stored, spans.metadata);
    QByteArray managedFieldsText;
    if (spans.managedFields) {
        auto after = managedFieldsAfter(type,
                                        b,
                                        slice(metadataText, spans.managedFields),
                                        std::move(oldStatus),
                                        seenStatus,
                                        options);
        if (!after)
            return std::nullopt;
        managedFieldsText = std::move(*after);
        if (storageSizeError(stored.size() - oldStatusText.size() + statusText.size()
                             - spans.managedFields->valueLength + managedFieldsText.size()
                             + qsizetype(std::to_string(store.revision() + 1).size() + 2)
                             - spans.resourceVersion->valueLength))
            return std::nullopt;
    }

    const qint64 rv = store.nextRevision();
    const std::string rvText = '"' + std::to_string(rv) + '"';
    // The replacements, in text order: managedFields and resourceVersion within the metadata,
    // then the status.
    struct Splice
    {
        qsizetype at;
        qsizetype length;
        QByteArrayView text;
    };
    std::vector<Splice> splices;
    splices.push_back({ spans.metadata->valueAt + spans.resourceVersion->valueAt,
                        spans.resourceVersion->valueLength,
                        QByteArrayView(rvText.data(), qsizetype(rvText.size())) });
    if (spans.managedFields)
        splices.push_back({ spans.metadata->valueAt + spans.managedFields->valueAt,
                            spans.managedFields->valueLength,
                            managedFieldsText });
    if (splices.size() == 2 && splices[1].at < splices[0].at)
        std::swap(splices[0], splices[1]);
    splices.push_back({ spans.status->valueAt, spans.status->valueLength, statusText });
    auto record = std::make_shared<ObjectRecord>(*existing);
    record->resourceVersion = rv;
    record->fields = std::move(fields);
    QByteArray &bytes = record->json;
    bytes = QByteArray();
    qsizetype size = stored.size();
    for (const Splice &splice : splices)
        size += splice.text.size() - splice.length;
    bytes.reserve(size);
    qsizetype at = 0;
    for (const Splice &splice : splices) {
        bytes.append(stored.sliced(at, splice.at - at)).append(splice.text);
        at = splice.at + splice.length;
    }
    bytes.append(stored.sliced(at));
    store.storeRecord(type, record, existing);
    ++m_count;

    WriteResult result;
    store.setCommittedObject(result, type, record, options);
    return result;
}

} // namespace reconscope::controller::cluster
