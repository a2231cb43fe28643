#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "controller/fieldowner/typeschema.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

// Walks of a JSON value against its type, as structured-merge-diff's typed package does them:
// the fields a value sets, what changed between two values, the merge of an applied
// configuration into a live object, and the removal of fields.
namespace reconscope::controller::fieldowner {

struct Comparison
{
    FieldSet removed;
    FieldSet modified;
    FieldSet added;

    bool same() const { return removed.empty() && modified.empty() && added.empty(); }
};

// The fields `value` sets (TypedValue.ToFieldSet): every scalar, atomic list and atomic map,
// each item of a set or list-map (and the fields below it), map keys a struct does not declare,
// and null or empty maps. `strict` refuses what an applied configuration may not hold
// (duplicate set members or list-map keys, items without keys, values of the wrong shape);
// otherwise such items are skipped or kept whole as upstream does for live objects.
models::Result<FieldSet>
fieldSetOf(const nlohmann::json &value, const TypeRef &type, bool strict = false);

// What changed from `before` to `after` (TypedValue.Compare); non-leaf paths that appear or
// disappear are listed too.
models::Result<Comparison>
compareTyped(const nlohmann::json &before, const nlohmann::json &after, const TypeRef &type);

// `config` merged into `live` (TypedValue.Merge): maps by key, associative lists by item key
// (live order kept, new items placed as upstream places them), everything else replaced.
models::Result<nlohmann::json>
mergeTyped(const nlohmann::json &live, const nlohmann::json &config, const TypeRef &type);

// `value` without the paths of `remove` (TypedValue.RemoveItems); a map or list left empty
// becomes null, as upstream leaves it.
nlohmann::json
removeItems(const nlohmann::json &value, const FieldSet &remove, const TypeRef &type);

// `set` plus every struct field on the way to its paths (Set.EnsureNamedFieldsAreMembers).
FieldSet ensureNamedFieldsAreMembers(const FieldSet &set, const TypeRef &type);

// `set` fitted to the schema as it is now (ReconcileFieldSetWithSchema): paths below a map or
// list that has become atomic since they were recorded are replaced by the atomic node itself.
FieldSet reconcileWithSchema(const FieldSet &set, const TypeRef &type);

} // namespace reconscope::controller::fieldowner
