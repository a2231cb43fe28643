#include "controller/cluster/schema/schemanode.h"

#include <algorithm>
#include <set>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::structural {

bool isMetaField(const std::string &key)
{
    return key == "apiVersion" || key == "kind" || key == "metadata";
}

std::string childPath(const std::string &parent, const std::string &key)
{
    return parent.empty() ? key : parent + '.' + key;
}

std::string indexPath(const std::string &parent, std::size_t index)
{
    return parent + '[' + std::to_string(index) + ']';
}

namespace {

// objectmeta.Coerce for x-kubernetes-embedded-resource objects below the root: apiVersion and
// kind that are not strings are dropped, metadata keeps ObjectMeta's fields only (unknown ones
// are reported like pruned fields, malformed ones dropped silently).
void coerceEmbeddedMeta(json &x, const std::string &path, std::vector<std::string> &pruned)
{
    for (const char *key : { "apiVersion", "kind" }) {
        auto it = x.find(key);
        if (it != x.end() && !it->is_string())
            x.erase(it);
    }
    auto metadata = x.find("metadata");
    if (metadata == x.end())
        return;
    if (!metadata->is_object()) {
        x.erase(metadata);
        return;
    }
    const auto isStringMap = [](const json &v) {
        return v.is_object()
            && std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_string(); });
    };
    const auto isArrayOf = [](const json &v, bool strings) {
        return v.is_array() && std::all_of(v.begin(), v.end(), [strings](const json &e) {
                   return strings ? e.is_string() : e.is_object();
               });
    };
    static const std::set<std::string> strings
        = { "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion" };
    static const std::set<std::string> integers = { "generation", "deletionGracePeriodSeconds" };
    static const std::set<std::string> times = { "creationTimestamp", "deletionTimestamp" };
    for (auto it = metadata->begin(); it != metadata->end();) {
        const std::string &key = it.key();
        const json &v = it.value();
        bool known = true, wellFormed = true;
        if (strings.contains(key))
            wellFormed = v.is_string() || v.is_null();
        else if (integers.contains(key))
            wellFormed = v.is_number_integer() || v.is_null();
        else if (times.contains(key))
            wellFormed = v.is_string() || v.is_null();
        else if (key == "labels" || key == "annotations")
            wellFormed = isStringMap(v) || v.is_null();
        else if (key == "finalizers")
            wellFormed = isArrayOf(v, true) || v.is_null();
        else if (key == "ownerReferences" || key == "managedFields")
            wellFormed = isArrayOf(v, false) || v.is_null();
        else
            known = false;
        if (!known)
            pruned.push_back(childPath(childPath(path, "metadata"), key));
        if (!known || !wellFormed)
            it = metadata->erase(it);
        else
            ++it;
    }
}

void skipPrune(json &x,
               const SchemaNode *s,
               const std::string &path,
               std::vector<std::string> &pruned)
{
    if (!s)
        return;
    if (x.is_object()) {
        if (s->embeddedResource && !path.empty())
            coerceEmbeddedMeta(x, path, pruned);
        for (auto it = x.begin(); it != x.end(); ++it) {
            if (s->embeddedResource && isMetaField(it.key()))
                continue;
            const std::string child = childPath(path, it.key());
            if (auto p = s->properties.find(it.key()); p != s->properties.end())
                prune(it.value(), p->second.get(), false, child, pruned);
            else if (s->hasAdditionalProperties)
                prune(it.value(), s->additionalProperties.get(), false, child, pruned);
        }
    } else if (x.is_array()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            skipPrune(x[i], s->items.get(), indexPath(path, i), pruned);
    }
}

} // namespace

void prune(json &x,
           const SchemaNode *s,
           bool embedded,
           const std::string &path,
           std::vector<std::string> &pruned)
{
    if (s && s->preserveUnknownFields) {
        if (embedded && !s->embeddedResource) {
            SchemaNode clone = *s;
            clone.embeddedResource = true;
            skipPrune(x, &clone, path, pruned);
        } else {
            skipPrune(x, s, path, pruned);
        }
        return;
    }
    if (x.is_object()) {
        if (!s) {
            for (auto it = x.begin(); it != x.end(); ++it)
                pruned.push_back(childPath(path, it.key()));
            x = json::object();
            return;
        }
        const bool keepMeta = embedded || s->embeddedResource;
        if (s->embeddedResource && !path.empty())
            coerceEmbeddedMeta(x, path, pruned);
        for (auto it = x.begin(); it != x.end();) {
            const std::string child = childPath(path, it.key());
            if (keepMeta && isMetaField(it.key())) {
                ++it;
            } else if (auto p = s->properties.find(it.key()); p != s->properties.end()) {
                prune(it.value(), p->second.get(), false, child, pruned);
                ++it;
            } else if (s->hasAdditionalProperties) {
                prune(it.value(), s->additionalProperties.get(), false, child, pruned);
                ++it;
            } else {
                pruned.push_back(child);
                it = x.erase(it);
            }
        }
    } else if (x.is_array()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            prune(x[i], s ? s->items.get() : nullptr, false, indexPath(path, i), pruned);
    }
}

} // namespace reconscope::controller::cluster::structural
