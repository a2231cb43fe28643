#include "controller/cluster/schema/schemanode.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster::structural {

namespace {

bool isNonNullableNull(const json &x, const SchemaNode *s)
{
    return x.is_null() && s && !s->nullable;
}

const SchemaNode *schemaForField(const std::string &key, const SchemaNode *s)
{
    if (!s)
        return nullptr;
    if (auto p = s->properties.find(key); p != s->properties.end())
        return p->second.get();
    return s->hasAdditionalProperties ? s->additionalProperties.get() : nullptr;
}

void pruneNonNullableNullsWithoutDefaults(json &x, const SchemaNode *s)
{
    if (x.is_object()) {
        for (auto it = x.begin(); it != x.end();) {
            const SchemaNode *child = schemaForField(it.key(), s);
            if (isNonNullableNull(it.value(), child) && !child->hasDefault) {
                it = x.erase(it);
            } else {
                pruneNonNullableNullsWithoutDefaults(it.value(), child);
                ++it;
            }
        }
    } else if (x.is_array()) {
        for (json &item : x)
            pruneNonNullableNullsWithoutDefaults(item, s ? s->items.get() : nullptr);
    }
}

void defaultValue(json &x, const SchemaNode *s)
{
    if (!s)
        return;
    if (x.is_object()) {
        for (const auto &[key, prop] : s->properties) {
            if (!prop->hasDefault)
                continue;
            auto it = x.find(key);
            if (it == x.end() || isNonNullableNull(*it, prop.get()))
                x[key] = prop->defaultValue;
        }
        for (auto it = x.begin(); it != x.end(); ++it) {
            if (auto p = s->properties.find(it.key()); p != s->properties.end()) {
                defaultValue(it.value(), p->second.get());
            } else if (s->hasAdditionalProperties && s->additionalProperties) {
                const SchemaNode *additional = s->additionalProperties.get();
                if (isNonNullableNull(it.value(), additional) && additional->hasDefault)
                    it.value() = additional->defaultValue;
                defaultValue(it.value(), additional);
            }
        }
    } else if (x.is_array()) {
        for (json &item : x) {
            if (s->items && isNonNullableNull(item, s->items.get()) && s->items->hasDefault)
                item = s->items->defaultValue;
            defaultValue(item, s->items.get());
        }
    }
}

bool holdsNull(const json &value)
{
    if (value.is_null())
        return true;
    if (value.is_structured()) {
        for (const json &item : value) {
            if (holdsNull(item))
                return true;
        }
    }
    return false;
}

} // namespace

void pruneNonNullableNulls(json &x, const SchemaNode &root)
{
    pruneNonNullableNullsWithoutDefaults(x, &root);
}

void applyDefaults(json &x, const SchemaNode &root, bool pruneNulls)
{
    if (pruneNulls)
        pruneNonNullableNullsWithoutDefaults(x, &root);
    defaultValue(x, &root);
}

// Whether every default under `s` is free of nulls and left alone by pruning.
bool canonicalDefaults(const SchemaNode &s)
{
    if (s.hasDefault) {
        if (holdsNull(s.defaultValue))
            return false;
        json pruned = s.defaultValue;
        std::vector<std::string> paths;
        prune(pruned, &s, false, std::string(), paths);
        if (!paths.empty()
            || pruned.dump(-1, ' ', false, json::error_handler_t::replace)
                != s.defaultValue.dump(-1, ' ', false, json::error_handler_t::replace))
            return false;
    }
    const auto all = [](const auto &nodes) {
        return std::all_of(nodes.begin(), nodes.end(), [](const NodePtr &node) {
            return !node || canonicalDefaults(*node);
        });
    };
    for (const auto &[key, node] : s.properties) {
        if (!canonicalDefaults(*node))
            return false;
    }
    return (!s.additionalProperties || canonicalDefaults(*s.additionalProperties))
        && (!s.items || canonicalDefaults(*s.items)) && all(s.allOf) && all(s.anyOf) && all(s.oneOf)
        && (!s.notSchema || canonicalDefaults(*s.notSchema));
}

} // namespace reconscope::controller::cluster::structural
