#include "controller/fieldowner/managedfields.h"

#include "controller/fieldowner/fieldsv1.h"
#include "controller/fieldowner/gotext.h"
#include "models/rfc3339.h"

#include <algorithm>
#include <vector>

using json = nlohmann::json;

namespace reconscope::controller::fieldowner {

namespace {

const char *operationName(Operation operation)
{
    return operation == Operation::Apply ? "Apply" : "Update";
}

std::string stringMember(const json &entry, const char *key, bool *wrongType)
{
    const auto it = entry.find(key);
    if (it == entry.end() || it->is_null())
        return {};
    if (!it->is_string()) {
        *wrongType = true;
        return {};
    }
    return it->get<std::string>();
}

// `withFields` false: the entry's identity and time alone (fieldsV1 is not read).
models::Result<ManagedEntry> decodeEntry(const json &entry, std::size_t index, bool withFields)
{
    using R = models::Result<ManagedEntry>;
    if (!entry.is_object())
        return R::failure(QStringLiteral("managed fields entry %1 is not an object").arg(index));
    bool wrongType = false;
    ManagedEntry out;
    const std::string operation = stringMember(entry, "operation", &wrongType);
    out.id.manager = stringMember(entry, "manager", &wrongType);
    out.apiVersion = stringMember(entry, "apiVersion", &wrongType);
    out.id.subresource = stringMember(entry, "subresource", &wrongType);
    const std::string fieldsType = stringMember(entry, "fieldsType", &wrongType);
    const std::string time = stringMember(entry, "time", &wrongType);
    if (wrongType)
        return R::failure(
            QStringLiteral("managed fields entry %1 has a member of the wrong type").arg(index));
    if (operation != "Apply" && operation != "Update")
        return R::failure(QStringLiteral("operation must be `Apply` or `Update`"));
    out.id.operation = operation == "Apply" ? Operation::Apply : Operation::Update;
    if (out.apiVersion.empty())
        return R::failure(QStringLiteral("apiVersion must not be empty"));
    if (fieldsType.empty())
        return R::failure(
            QStringLiteral("missing fieldsType in managed fields entry %1").arg(index));
    if (fieldsType != "FieldsV1")
        return R::failure(QStringLiteral("invalid fieldsType %1 in managed fields entry %2")
                              .arg(QString::fromStdString(gotext::quote(fieldsType)))
                              .arg(index));
    if (out.id.operation == Operation::Update)
        out.id.apiVersion = out.apiVersion;
    if (withFields) {
        const auto fields = entry.find("fieldsV1");
        auto set = decodeFieldsV1(fields == entry.end() ? json::object() : *fields);
        if (!set)
            return R::failure(
                QStringLiteral("managed fields entry %1: %2").arg(index).arg(set.error().message));
        out.fields = std::move(*set);
    }
    if (!time.empty()) {
        if (auto parsed = models::parseRfc3339(QString::fromStdString(time)))
            out.time = models::toWholeSecondsUtc(*parsed);
    }
    return out;
}

bool printableRune(char32_t rune)
{
    if (rune < 0x20 || rune == 0x7F || (rune >= 0x80 && rune <= 0xA0) || rune == 0xAD)
        return false;
    if (rune == 0x1680 || (rune >= 0x2000 && rune <= 0x200F) || (rune >= 0x2028 && rune <= 0x202F)
        || (rune >= 0x205F && rune <= 0x2064) || rune == 0x3000 || rune == 0xFEFF)
        return false;
    return !(rune >= 0xE000 && rune <= 0xF8FF) && !(rune >= 0xF0000);
}

// The runes of `text` as Go's range loop yields them: an invalid byte is U+FFFD.
std::vector<std::pair<char32_t, std::string>> runes(const std::string &text)
{
    std::vector<std::pair<char32_t, std::string>> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        std::size_t length = b0 < 0x80 ? 1 : b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 0;
        char32_t rune = length == 1 ? b0 : b0 & (0x7F >> length);
        bool valid = length != 0 && b0 <= 0xF4 && i + length <= text.size();
        for (std::size_t k = 1; valid && k < length; ++k) {
            const auto b = static_cast<unsigned char>(text[i + k]);
            valid = (b & 0xC0) == 0x80;
            rune = (rune << 6) | (b & 0x3F);
        }
        const char32_t minimum[] = { 0, 0, 0x80, 0x800, 0x10000 };
        valid = valid && rune >= minimum[length] && rune <= 0x10FFFF
            && !(rune >= 0xD800 && rune <= 0xDFFF);
        if (!valid) {
            out.emplace_back(0xFFFD, "\xEF\xBF\xBD");
            ++i;
        } else {
            out.emplace_back(rune, text.substr(i, length));
            i += length;
        }
    }
    return out;
}

} // namespace

std::string ManagerId::identifier() const
{
    std::string out = "{";
    auto add = [&](const char *key, const std::string &value) {
        if (value.empty())
            return;
        if (out.size() > 1)
            out += ',';
        out += std::string("\"") + key + "\":" + gotext::json(value);
    };
    add("manager", manager);
    add("operation", operationName(operation));
    add("apiVersion", operation == Operation::Apply ? std::string() : apiVersion);
    add("subresource", subresource);
    return out + "}";
}

std::string ManagerId::describe() const
{
    std::string out = gotext::quote(manager);
    if (!subresource.empty())
        out += " with subresource " + gotext::quote(subresource);
    if (operation == Operation::Update)
        out += " using " + apiVersion;
    return out;
}

models::Result<Managed> decodeManagedFields(const json &managedFields)
{
    Managed managed;
    if (managedFields.is_null())
        return managed;
    if (!managedFields.is_array())
        return models::Result<Managed>::failure(QStringLiteral("managedFields is not a list"));
    for (std::size_t i = 0; i < managedFields.size(); ++i) {
        auto entry = decodeEntry(managedFields[i], i, true);
        if (!entry)
            return entry.error();
        managed.insert_or_assign(entry->id.identifier(), std::move(*entry));
    }
    return managed;
}

bool sortsBefore(const ManagedEntry &p, const ManagedEntry &q)
{
    if (p.id.operation != q.id.operation)
        return p.id.operation == Operation::Apply;
    const auto seconds = [](const ManagedEntry &e) {
        return e.time.isValid() ? e.time.toSecsSinceEpoch() : 0;
    };
    if (seconds(p) != seconds(q))
        return seconds(p) < seconds(q);
    if (p.id.manager != q.id.manager)
        return p.id.manager < q.id.manager;
    if (p.apiVersion != q.apiVersion)
        return p.apiVersion < q.apiVersion;
    return p.id.subresource < q.id.subresource;
}

models::Result<ManagedEntry> decodeEntryIdentity(const json &entry, std::size_t index)
{
    return decodeEntry(entry, index, false);
}

json encodeManagedFields(const Managed &managed)
{
    if (managed.empty())
        return nullptr;
    std::vector<const ManagedEntry *> entries;
    for (const auto &[identifier, entry] : managed)
        entries.push_back(&entry);
    std::stable_sort(
        entries.begin(), entries.end(), [](const ManagedEntry *p, const ManagedEntry *q) {
            return sortsBefore(*p, *q);
        });
    json out = json::array();
    for (const ManagedEntry *e : entries) {
        json entry = { { "manager", e->id.manager },
                       { "operation", operationName(e->id.operation) },
                       { "apiVersion", e->apiVersion },
                       { "fieldsType", "FieldsV1" },
                       { "fieldsV1", encodeFieldsV1(e->fields) } };
        if (e->time.isValid())
            entry["time"] = models::formatRfc3339(e->time).toStdString();
        if (!e->id.subresource.empty())
            entry["subresource"] = e->id.subresource;
        out.push_back(std::move(entry));
    }
    return out;
}

const json *managedFieldsOf(const json &object)
{
    const auto metadata = object.find("metadata");
    if (!object.is_object() || metadata == object.end() || !metadata->is_object())
        return nullptr;
    const auto it = metadata->find("managedFields");
    return it == metadata->end() ? nullptr : &*it;
}

void setManagedFields(json &object, const Managed &managed)
{
    if (!object.is_object() || (object.contains("metadata") && !object["metadata"].is_object()))
        return;
    json encoded = encodeManagedFields(managed);
    if (encoded.is_null()) {
        if (auto metadata = object.find("metadata");
            metadata != object.end() && metadata->is_object())
            metadata->erase("managedFields");
        return;
    }
    object["metadata"]["managedFields"] = std::move(encoded);
}

json ignoreTimeOnlyChanges(const json &stored, json updated)
{
    const auto withoutTimes = [](json object) {
        if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
            json &metadata = object["metadata"];
            if (auto fields = metadata.find("managedFields");
                fields != metadata.end() && fields->is_array()) {
                for (json &entry : *fields) {
                    if (entry.is_object())
                        entry.erase("time");
                }
            }
        }
        return object;
    };
    if (stored.is_object() && withoutTimes(stored) == withoutTimes(updated))
        return stored;
    return updated;
}

std::string updateManagerName(const std::string &fieldManager, const std::string &userAgent)
{
    if (!fieldManager.empty())
        return fieldManager;
    constexpr std::size_t maxLength = 128;
    std::string name;
    for (const auto &[rune, bytes] : runes(userAgent.substr(0, userAgent.find('/')))) {
        if (!printableRune(rune))
            continue;
        if (name.size() + bytes.size() > maxLength)
            break;
        name += bytes;
    }
    return name.empty() ? std::string("unknown") : name;
}

} // namespace reconscope::controller::fieldowner
