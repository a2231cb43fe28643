#include "controller/cluster/schema/schemavalidator.h"

#include "controller/cluster/schema/fielderrors.h"
#include "controller/cluster/schema/gofmt.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::structural {

namespace {

// Ratcheting correlation inside arrays: list-type=map items by their keys, plain lists by index;
// sets and atomic lists do not correlate.
const json *
correlatedItem(const SchemaNode &s, const json &item, std::size_t index, const json *old)
{
    if (!old || !old->is_array())
        return nullptr;
    if (s.listType.empty())
        return index < old->size() ? &(*old)[index] : nullptr;
    if (s.listType != "map" || s.listMapKeys.empty() || !item.is_object())
        return nullptr;
    for (const json &candidate : *old) {
        if (!candidate.is_object())
            continue;
        bool same = true;
        for (const std::string &key : s.listMapKeys) {
            auto a = item.find(key), b = candidate.find(key);
            if ((a == item.end()) != (b == candidate.end()) || (a != item.end() && *a != *b)) {
                same = false;
                break;
            }
        }
        if (same)
            return &candidate;
    }
    return nullptr;
}

} // namespace

void Validator::validateArray(const SchemaNode &s,
                              const json &x,
                              const std::string &path,
                              const json *old)
{
    const auto size = static_cast<std::int64_t>(x.size());
    if (s.minItems && size < *s.minItems)
        errors.append(fielderrors::invalid(fieldOf(path),
                                           QString::number(size),
                                           nameOf(path) + u" in body should have at least "_s
                                               + QString::number(*s.minItems) + u" items"_s));
    if (s.maxItems && size > *s.maxItems)
        errors.append(fielderrors::tooMany(fieldOf(path), size, *s.maxItems));
    if (s.items) {
        for (std::size_t i = 0; i < x.size(); ++i)
            validate(*s.items, x[i], indexPath(path, i), correlatedItem(s, x[i], i, old));
    }
    if (s.listType == "set")
        validateSet(x, path);
    else if (s.listType == "map")
        validateListMap(s, x, path);
}

void Validator::duplicates(const std::vector<json> &keys,
                           const std::string &path,
                           const std::function<json(std::size_t)> &shown)
{
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (++seen[keys[i].dump()] == 2)
            errors.append(
                fielderrors::duplicate(fieldOf(indexPath(path, i)), gofmt::badValue(shown(i))));
    }
}

void Validator::validateSet(const json &x, const std::string &path)
{
    std::vector<json> keys(x.begin(), x.end());
    duplicates(keys, path, [&](std::size_t i) { return x[i]; });
}

void Validator::validateListMap(const SchemaNode &s, const json &x, const std::string &path)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!x[i].is_null() && !x[i].is_object()) {
            errors.append(
                fielderrors::invalid(fieldOf(indexPath(path, i)),
                                     gofmt::badValue(x[i]),
                                     u"must be an object for an array of list-type map"_s));
            return;
        }
    }
    std::vector<json> keys;
    for (const json &item : x) {
        json key = json::object();
        for (const std::string &field : s.listMapKeys) {
            if (item.is_object()) {
                if (auto it = item.find(field); it != item.end())
                    key[field] = *it;
            }
        }
        keys.push_back(key);
    }
    duplicates(keys, path, [&](std::size_t i) { return keys[i]; });
}

} // namespace reconscope::controller::cluster::structural
