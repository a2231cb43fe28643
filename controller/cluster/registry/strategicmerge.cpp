#include "controller/cluster/registry/strategicmerge.h"

#include "controller/cluster/registry/govalue.h"
#include "controller/cluster/registry/strategicschema.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;

namespace {

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";

using Outcome = models::Status<ApiError>;
using Items = json::array_t;

// An error kube-apiserver does not map to a Status: a 500 with its text as the message.
ApiError goError(const std::string &message)
{
    return ApiError::internal(QString::fromStdString(message));
}

// mergepatch's errors.
ApiError badArgType(std::string_view expected, const json &actual)
{
    return goError("expected a " + std::string(expected) + ", but received a "
                   + goTypeName(actual));
}

ApiError noMergeKey(const json &map, const std::string &key)
{
    return goError("map: " + formatV(map) + " does not contain declared merge key: " + key);
}

ApiError badPatchType(const json &directive, const json &map)
{
    return goError("unknown patch type: " + formatS(directive) + " in map: " + formatV(map));
}

ApiError notMap(std::size_t index)
{
    return goError("value for key " + std::to_string(index) + " is not a map");
}

// "<prefix>/<key>" to key; the prefix's 400 when the directive is malformed.
ApiResult<std::string> extractKey(const std::string &directive, std::string_view prefix)
{
    const std::size_t slash = directive.find('/');
    if (slash == std::string::npos || std::string_view(directive).substr(0, slash) != prefix)
        return ApiError::badRequest(prefix == kSetElementOrder
                                        ? u"invalid patch format of setElementOrder list"_s
                                        : u"invalid patch format of primitive list"_s);
    return directive.substr(slash + 1);
}

// Drops every map that holds a "$patch" (false: `value` itself is one), in place.
bool removeDirectives(json &value)
{
    if (value.is_object()) {
        if (value.contains(kDirective))
            return false;
        for (auto it = value.begin(); it != value.end();) {
            if (removeDirectives(it.value()))
                ++it;
            else
                it = value.erase(it);
        }
    } else if (value.is_array()) {
        Items kept;
        for (json &item : value) {
            if (removeDirectives(item))
                kept.push_back(std::move(item));
        }
        value = std::move(kept);
    }
    return true;
}

// Drops the null members of the maps in `value`, however deep (list items stay).
void discardNullValues(json &value)
{
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end();) {
            if (it->is_null()) {
                it = value.erase(it);
            } else {
                discardNullValues(*it);
                ++it;
            }
        }
    } else if (value.is_array()) {
        for (json &item : value)
            discardNullValues(item);
    }
}

// The index of the map in `items` whose `key` equals `value`, -1 for none.
ApiResult<qsizetype> findByKey(const Items &items, const std::string &key, const json &value)
{
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_object())
            return notMap(i);
        const auto it = items[i].find(key);
        if (it != items[i].end() && goEqual(*it, value))
            return qsizetype(i);
    }
    return qsizetype(-1);
}

// Which items are {"$patch":"delete",...}; a 500 for an item that is no map.
ApiResult<std::vector<bool>> deleteMarks(const Items &items)
{
    std::vector<bool> marks;
    marks.reserve(items.size());
    for (const json &item : items) {
        if (!item.is_object())
            return badArgType(kGoMapType, item);
        const auto directive = item.find(kDirective);
        marks.push_back(directive != item.end() && *directive == "delete");
    }
    return marks;
}

// The type all items of the lists share (the first's); upstream's errors when one is a list or
// they differ.
ApiResult<GoKind> itemKind(const Items &first, const Items &second)
{
    std::optional<GoKind> kind;
    for (const Items *list : { &first, &second }) {
        for (const json &item : *list) {
            const GoKind current = goKind(item);
            if (!kind) {
                if (current == GoKind::Slice)
                    return ApiError::unprocessableGeneric(); // ErrNoListOfLists
                kind = current;
            } else if (current != *kind) {
                return goError("list element types are not identical: [" + formatV(json(first))
                               + ' ' + formatV(json(second)) + ']');
            }
        }
    }
    if (!kind)
        return goError("no elements in any of the given slices");
    return *kind;
}

// What a list item is ordered by: its merge key's value in a list of maps, itself otherwise.
const json &orderValue(const json &item, const std::string &mergeKey, GoKind kind)
{
    static const json null;
    if (kind != GoKind::Map)
        return item;
    if (!item.is_object())
        return null;
    const auto it = item.find(mergeKey);
    return it == item.end() ? null : *it;
}

// The position of each item in `order` (its first match), -1 for none.
std::vector<qsizetype>
positionsIn(const Items &items, const Items &order, const std::string &mergeKey, GoKind kind)
{
    std::vector<qsizetype> positions;
    positions.reserve(items.size());
    for (const json &item : items) {
        const json &value = orderValue(item, mergeKey, kind);
        qsizetype position = -1;
        for (std::size_t i = 0; i < order.size() && position < 0; ++i) {
            if (goEqual(value, orderValue(order[i], mergeKey, kind)))
                position = qsizetype(i);
        }
        positions.push_back(position);
    }
    return positions;
}

// For order only: the items of a list of maps reduced to their merge key (what ordering reads),
// those without one kept whole (what a refusal prints).
Items orderKeys(const Items &items, const std::string &mergeKey, GoKind kind)
{
    if (kind != GoKind::Map)
        return items;
    Items keys;
    keys.reserve(items.size());
    for (const json &item : items) {
        const auto it = item.is_object() ? item.find(mergeKey) : item.end();
        keys.push_back(item.is_object() && it != item.end() ? json{ { mergeKey, *it } } : item);
    }
    return keys;
}

Outcome validateMergeKeys(const Items &items, const std::string &mergeKey)
{
    for (const json &item : items) {
        if (!item.is_object())
            return badArgType(kGoMapType, item);
        if (!item.contains(mergeKey))
            return noMergeKey(item, mergeKey);
    }
    return {};
}

// `items` sorted by their position in `order`, delete directives last. Upstream sorts with
// sort.SliceStable and a comparison that holds an item missing from `order` less than any
// other; an insertion sort gives what Go's gives for such lists of up to 20 items (its blocks),
// and for lists whose items are all found any stable sort does.
ApiResult<Items>
sortByOrder(Items items, const Items &order, const std::string &mergeKey, GoKind kind)
{
    Items deletions;
    if (kind == GoKind::Map) {
        if (auto valid = validateMergeKeys(items, mergeKey); !valid)
            return valid.error();
        if (auto valid = validateMergeKeys(order, mergeKey); !valid)
            return valid.error();
        const auto marks = deleteMarks(items);
        if (!marks)
            return marks.error();
        Items kept;
        for (std::size_t i = 0; i < items.size(); ++i)
            ((*marks)[i] ? deletions : kept).push_back(std::move(items[i]));
        items = std::move(kept);
    }
    const std::vector<qsizetype> positions = positionsIn(items, order, mergeKey, kind);
    std::vector<std::pair<qsizetype, json>> sorted;
    sorted.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        sorted.emplace_back(positions[i], std::move(items[i]));
    const auto less = [](const auto &a, const auto &b) {
        return a.first >= 0 && b.first >= 0 ? a.first < b.first : true;
    };
    if (std::ranges::all_of(positions, [](qsizetype p) { return p >= 0; })) {
        std::ranges::stable_sort(sorted, less);
    } else {
        for (std::size_t i = 1; i < sorted.size(); ++i) {
            for (std::size_t j = i; j > 0 && less(sorted[j], sorted[j - 1]); --j)
                std::swap(sorted[j], sorted[j - 1]);
        }
    }
    items.clear();
    for (auto &entry : sorted)
        items.push_back(std::move(entry.second));
    for (json &deletion : deletions)
        items.push_back(std::move(deletion));
    return items;
}

// upstream's normalizeElementOrder: the patch's items in `patchOrder`, the others in
// `serverOrder`, then interleaved: an item of the server's goes before a patch item when both
// are in `serverOrder` and it comes first there; items new to the list therefore lead.
ApiResult<Items> normalizeElementOrder(Items patchItems,
                                       Items serverOnly,
                                       const Items &patchOrder,
                                       const Items &serverOrder,
                                       const std::string &mergeKey,
                                       GoKind kind)
{
    auto right = sortByOrder(std::move(patchItems), patchOrder, mergeKey, kind);
    if (!right)
        return right.error();
    auto left = sortByOrder(std::move(serverOnly), serverOrder, mergeKey, kind);
    if (!left)
        return left.error();
    const std::vector<qsizetype> l = positionsIn(*left, serverOrder, mergeKey, kind);
    const std::vector<qsizetype> r = positionsIn(*right, serverOrder, mergeKey, kind);
    Items all;
    all.reserve(left->size() + right->size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < left->size() || j < right->size()) {
        const bool takeLeft
            = j >= right->size() || (i < left->size() && l[i] >= 0 && r[j] >= 0 && l[i] < r[j]);
        all.push_back(std::move(takeLeft ? (*left)[i++] : (*right)[j++]));
    }
    return all;
}

struct Partition
{
    Items inPatch;
    Items serverOnly;
};

Partition partitionPrimitives(Items merged, const Items &partitionBy)
{
    Partition parts;
    for (json &item : merged) {
        const bool present = std::ranges::any_of(
            partitionBy, [&](const json &other) { return goEqual(item, other); });
        (present ? parts.inPatch : parts.serverOnly).push_back(std::move(item));
    }
    return parts;
}

ApiResult<Partition> partitionMaps(Items merged, const Items &partitionBy, const std::string &key)
{
    Partition parts;
    for (json &item : merged) {
        if (!item.is_object())
            return badArgType(kGoMapType, item);
        const auto value = item.find(key);
        if (value == item.end())
            return noMergeKey(item, key);
        const auto found = findByKey(partitionBy, key, *value);
        if (!found)
            return found.error();
        (*found >= 0 ? parts.inPatch : parts.serverOnly).push_back(std::move(item));
    }
    return parts;
}

ApiResult<Partition> partition(Items merged, const Items &partitionBy, const std::string &key)
{
    if (key.empty())
        return partitionPrimitives(std::move(merged), partitionBy);
    return partitionMaps(std::move(merged), partitionBy, key);
}

ApiResult<json> mergeMap(json original, json patch, const StrategicSchema *schema);

// The items of `patch` with a "$patch" directive applied to `original` (deletions by merge key;
// "replace": the plain items become the list); `patch` keeps the plain items. `backing`, when
// given, is what the original Go slice shows of its array (see mergeList): a deletion shifts the
// items after it left in place and leaves the last slot as it was.
Outcome
applyListDirectives(Items &original, Items &patch, const std::string &mergeKey, Items *backing)
{
    Items plain;
    bool replace = false;
    for (json &item : patch) {
        const auto directive = item.find(kDirective);
        if (directive == item.end()) {
            plain.push_back(std::move(item));
        } else if (*directive == "delete") {
            const auto value = item.find(mergeKey);
            if (value == item.end())
                return noMergeKey(item, mergeKey);
            for (;;) {
                const auto found = findByKey(original, mergeKey, *value);
                if (!found)
                    return found.error();
                if (*found < 0)
                    break;
                if (backing)
                    std::copy(backing->begin() + *found + 1,
                              backing->begin() + qsizetype(original.size()),
                              backing->begin() + *found);
                original.erase(original.begin() + *found);
            }
        } else if (*directive == "replace") {
            replace = true;
        } else if (*directive == "merge") {
            return goError("merging lists cannot yet be specified in the patch");
        } else {
            return badPatchType(*directive, item);
        }
    }
    if (replace) {
        original = std::move(plain);
        patch.clear();
    } else {
        patch = std::move(plain);
    }
    return {};
}

// The plain patch items merged into the original's by merge key, the others appended. Leaves
// `patch` with each item reduced to its merge key, which is all ordering reads afterwards. An
// append that still fits the original Go slice's capacity lands in its array, which `backing`
// (when given) shows.
ApiResult<Items> mergeItems(Items original,
                            Items &patch,
                            const std::string &mergeKey,
                            const StrategicSchema *schema,
                            Items *backing)
{
    const std::size_t capacity = backing ? goDecodedSliceCap(backing->size()) : 0;
    for (json &item : patch) {
        const auto value = item.find(mergeKey);
        if (value == item.end())
            return noMergeKey(item, mergeKey);
        json key = { { mergeKey, *value } };
        const auto found = findByKey(original, mergeKey, *value);
        if (!found)
            return found.error();
        if (*found >= 0) {
            json &into = original[std::size_t(*found)];
            auto merged = mergeMap(std::move(into), std::move(item), schema);
            if (!merged)
                return merged.error();
            into = std::move(*merged);
        } else {
            if (original.size() < std::min(capacity, backing ? backing->size() : 0))
                (*backing)[original.size()] = key;
            original.push_back(std::move(item));
        }
        item = std::move(key);
    }
    return original;
}

// Two lists of a field with the merge strategy (or a "$deleteFromPrimitiveList").
//
// Upstream merges in place: deletions shift the original slice's items, appends that fit its
// capacity and the deduplication of scalars write into its array, so the original slice a caller
// reads afterwards (mergePatchIntoOriginal orders a "$setElementOrder" list by it) shows them.
// `backing`, when given, holds the original's order keys (orderKeys) and is left showing what
// that slice shows then.
ApiResult<json> mergeList(Items original,
                          Items patch,
                          const StrategicField *field,
                          bool isDeleteList,
                          Items *backing = nullptr)
{
    if (original.empty() && patch.empty())
        return json(std::move(original));
    const auto kind = itemKind(original, patch);
    if (!kind)
        return kind.error();
    const std::string mergeKey = field ? std::string(field->mergeKey) : std::string();
    Items merged;
    Items serverOrder;
    if (*kind != GoKind::Map) {
        if (isDeleteList) {
            std::erase_if(original, [&](const json &item) {
                return std::ranges::any_of(patch, [&](const json &d) { return goEqual(item, d); });
            });
            return json(std::move(original));
        }
        const std::size_t length = original.size();
        // Whether upstream's append(original, patch...) still fits the original's array.
        const bool inPlace = length + patch.size() <= goDecodedSliceCap(length);
        if (!inPlace)
            serverOrder = original;
        merged = std::move(original);
        merged.insert(merged.end(), patch.begin(), patch.end());
        // Upstream's in-place deduplication: a duplicate is overwritten by the last item, and
        // the slots past the new end keep what they held.
        std::ptrdiff_t last = std::ptrdiff_t(merged.size()) - 1;
        for (std::ptrdiff_t i = 0; i < last; ++i) {
            for (std::ptrdiff_t j = i + 1; j <= last; ++j) {
                if (goEqual(merged[std::size_t(i)], merged[std::size_t(j)])) {
                    merged[std::size_t(j)] = merged[std::size_t(last)];
                    --last;
                    --j;
                }
            }
        }
        if (inPlace) {
            serverOrder.assign(merged.begin(), merged.begin() + qsizetype(length));
            if (backing)
                *backing = serverOrder;
        }
        merged.resize(std::size_t(last + 1));
    } else {
        if (mergeKey.empty())
            return goError("cannot merge lists without merge key for "
                           + std::string(field ? field->itemKind : "struct"));
        if (auto applied = applyListDirectives(original, patch, mergeKey, backing); !applied)
            return applied.error();
        serverOrder = orderKeys(original, mergeKey, *kind);
        auto items = mergeItems(std::move(original), patch, mergeKey, field->schema, backing);
        if (!items)
            return items.error();
        merged = std::move(*items);
    }
    auto parts = partition(std::move(merged), patch, mergeKey);
    if (!parts)
        return parts.error();
    auto ordered = normalizeElementOrder(std::move(parts->inPatch),
                                         std::move(parts->serverOnly),
                                         patch,
                                         serverOrder,
                                         mergeKey,
                                         *kind);
    if (!ordered)
        return ordered.error();
    return json(std::move(*ordered));
}

// A list in both: merged when the field has the merge strategy, else the patch's as it is.
ApiResult<json> mergeListField(json original,
                               json patch,
                               const StrategicField *field,
                               bool isDeleteList,
                               Items *backing = nullptr)
{
    if ((field && field->merge) || isDeleteList)
        return mergeList(std::move(original.get_ref<Items &>()),
                         std::move(patch.get_ref<Items &>()),
                         field,
                         isDeleteList,
                         backing);
    return patch;
}

// A "$retainKeys" directive: the original keeps only the keys it lists, and the patch may set
// no other.
Outcome applyRetainKeys(json &original, json &patch)
{
    const auto it = patch.find(kRetainKeys);
    if (it == patch.end())
        return {};
    const json retain = std::move(*it);
    patch.erase(it);
    const ApiError malformed = ApiError::badRequest(u"invalid patch format of retainKeys"_s);
    if (!retain.is_array())
        return malformed;
    const auto retained = [&](const std::string &key) {
        return std::ranges::any_of(retain, [&](const json &k) { return k == key; });
    };
    for (auto member = patch.begin(); member != patch.end(); ++member) {
        if (member->is_null() || member.key().starts_with(kDeleteFromPrimitiveList)
            || member.key().starts_with(kSetElementOrder))
            continue;
        if (!retained(member.key()))
            return malformed;
    }
    for (auto member = original.begin(); member != original.end();) {
        if (retained(member.key()))
            ++member;
        else
            member = original.erase(member);
    }
    return {};
}

Outcome validateSetOrder(const Items &patchList, const Items &setOrder, const std::string &mergeKey)
{
    if (setOrder.empty() || patchList.empty())
        return {};
    std::vector<const json *> plain;
    if (!mergeKey.empty()) {
        const auto marks = deleteMarks(patchList);
        if (!marks)
            return marks.error();
        for (std::size_t i = 0; i < patchList.size(); ++i) {
            if (!(*marks)[i])
                plain.push_back(&patchList[i]);
        }
    } else {
        for (const json &item : patchList)
            plain.push_back(&item);
    }
    std::size_t p = 0;
    std::size_t s = 0;
    while (p < plain.size() && s < setOrder.size()) {
        const json &item = *plain[p];
        if (item.is_object() && item.contains(kDirective)) {
            ++p;
            continue;
        }
        bool equal = false;
        if (mergeKey.empty()) {
            equal = goEqual(item, setOrder[s]);
        } else {
            for (const json *side : { &item, &setOrder[s] }) {
                if (!side->is_object())
                    return badArgType(kGoMapType, *side);
                if (!side->contains(mergeKey))
                    return noMergeKey(*side, mergeKey);
            }
            equal = goEqual(item[mergeKey], setOrder[s][mergeKey]);
        }
        if (equal)
            ++p;
        ++s;
    }
    if (p < plain.size() && s >= setOrder.size())
        return goError("The order in patch list:\n" + formatV(json(patchList))
                       + "\n doesn't match $setElementOrder list:\n" + formatV(json(setOrder))
                       + "\n");
    return {};
}

// One "$setElementOrder/<list>": the list merged (when the patch has it too) and put in that
// order, the original's other items after or between them as mergeList orders them.
Outcome applySetElementOrder(json &original,
                             json &patch,
                             const std::string &directive,
                             json setOrderValue,
                             const StrategicSchema *schema)
{
    if (!setOrderValue.is_array())
        return badArgType(kGoSliceType, setOrderValue);
    const Items &setOrder = setOrderValue.get_ref<const Items &>();
    const auto listKey = extractKey(directive, kSetElementOrder);
    if (!listKey)
        return listKey.error();
    const auto originalIt = original.find(*listKey);
    const auto patchIt = patch.find(*listKey);
    const bool inOriginal = originalIt != original.end();
    const bool inPatch = patchIt != patch.end();
    if (inOriginal && !originalIt->is_array())
        return badArgType(kGoSliceType, *originalIt);
    if (inPatch && !patchIt->is_array())
        return badArgType(kGoSliceType, *patchIt);
    static const Items none;
    const Items &originalList = inOriginal ? originalIt->get_ref<const Items &>() : none;
    const Items &patchList = inPatch ? patchIt->get_ref<const Items &>() : none;
    const StrategicField *field = strategicFieldOf(schema, *listKey);
    const std::string mergeKey = field ? std::string(field->mergeKey) : std::string();
    if (auto valid = validateSetOrder(patchList, setOrder, mergeKey); !valid)
        return valid.error();
    if (!inOriginal && !inPatch)
        return {};
    // Upstream reads the items' type after merging, which does not change it.
    const auto kind = itemKind(originalList, patchList);
    // Upstream orders by the original slice after merging into it in place (mergeList).
    Items serverOrder = orderKeys(originalList, mergeKey, kind ? *kind : GoKind::Nil);
    json merged;
    if (!inPatch) {
        merged = std::move(*originalIt);
    } else if (!inOriginal) {
        merged = *patchIt;
        removeDirectives(merged);
    } else {
        auto list = mergeListField(std::move(*originalIt), *patchIt, field, false, &serverOrder);
        if (!list)
            return list.error();
        merged = std::move(*list);
    }
    auto parts = partition(std::move(merged.get_ref<Items &>()), setOrder, mergeKey);
    if (!parts)
        return parts.error();
    if (!kind)
        return kind.error();
    auto ordered = normalizeElementOrder(std::move(parts->inPatch),
                                         std::move(parts->serverOnly),
                                         setOrder,
                                         serverOrder,
                                         mergeKey,
                                         *kind);
    if (!ordered)
        return ordered.error();
    original[*listKey] = std::move(*ordered);
    patch.erase(*listKey);
    return {};
}

// The patch's value where the original has none or one of another type: as it is, nulls and
// maps with directives left out.
void takePatchValue(json &original, const std::string &key, json value)
{
    discardNullValues(value);
    if (removeDirectives(value))
        original[key] = std::move(value);
    else
        original.erase(key);
}

// One member of the patch merged into the original.
Outcome
mergeMember(json &original, std::string key, json &patchValue, const StrategicSchema *schema)
{
    bool isDeleteList = false;
    if (key.starts_with(kDeleteFromPrimitiveList)) {
        auto listKey = extractKey(key, kDeleteFromPrimitiveList);
        if (!listKey)
            return listKey.error();
        isDeleteList = true;
        if (!listKey->empty())
            key = std::move(*listKey);
    }
    if (patchValue.is_null()) {
        original.erase(key);
        return {};
    }
    const auto found = original.find(key);
    if (found == original.end() || goKind(*found) != goKind(patchValue)) {
        if (!isDeleteList)
            takePatchValue(original, key, std::move(patchValue));
        return {};
    }
    const StrategicField *field = strategicFieldOf(schema, key);
    ApiResult<json> merged = json();
    if (patchValue.is_object())
        merged
            = mergeMap(std::move(*found), std::move(patchValue), field ? field->schema : nullptr);
    else if (patchValue.is_array() && !isDeleteList && field && !field->merge && field->schema)
        // Lists where the Go type has a struct (every untagged field with a schema is one):
        // LookupPatchMetadataForSlice's refusal, which names the kind of the enclosing struct.
        merged = goError("expected slice or array type, but got: struct");
    else if (patchValue.is_array())
        merged = mergeListField(std::move(*found), std::move(patchValue), field, isDeleteList);
    else
        merged = std::move(patchValue);
    if (!merged)
        return merged.error();
    *found = std::move(*merged);
    return {};
}

ApiResult<json> mergeMap(json original, json patch, const StrategicSchema *schema)
{
    if (const auto directive = patch.find(kDirective); directive != patch.end()) {
        if (*directive == "replace") {
            patch.erase(directive);
            return patch;
        }
        if (*directive == "delete")
            return json::object();
        return badPatchType(*directive, patch);
    }
    if (original.is_null())
        original = json::object();
    if (auto retained = applyRetainKeys(original, patch); !retained)
        return retained.error();
    std::vector<std::string> orders;
    for (auto member = patch.begin(); member != patch.end(); ++member) {
        if (member.key().starts_with(kSetElementOrder))
            orders.push_back(member.key());
    }
    for (const std::string &directive : orders) {
        json setOrder = std::move(patch[directive]);
        patch.erase(directive);
        if (auto applied
            = applySetElementOrder(original, patch, directive, std::move(setOrder), schema);
            !applied)
            return applied.error();
    }
    for (auto member = patch.begin(); member != patch.end(); ++member) {
        if (auto merged = mergeMember(original, member.key(), member.value(), schema); !merged)
            return merged.error();
    }
    return original;
}

} // namespace

ApiResult<json> strategicPatchDocument(json decoded)
{
    if (decoded.is_null())
        return json::object();
    if (decoded.is_object())
        return decoded;
    const QString type = decoded.is_array() ? u"array"_s
        : decoded.is_string()               ? u"string"_s
        : decoded.is_boolean()              ? u"bool"_s
                                            : u"number"_s;
    return ApiError::badRequest(u"json: cannot unmarshal %1 into Go value of type "
                                "map[string]interface {}"_s.arg(type));
}

ApiResult<json> strategicMergePatch(json original, json patch, const StrategicSchema &schema)
{
    return mergeMap(std::move(original), std::move(patch), &schema);
}

} // namespace reconscope::controller::cluster
