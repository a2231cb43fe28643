#pragma once

#include "controller/cluster/schema/fielderror.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QStringList>

#include <memory>
#include <string>
#include <vector>

namespace reconscope::controller::cluster {

struct SchemaNode;

// A CRD version's structural schema (apiextensions-apiserver pkg/apiserver/schema): what pruning,
// defaulting and validation of custom resources work on. Cheap to copy (the tree is shared and
// immutable). Upstream's order on a write: applyDefaults, prune, validate (or validateUpdate).
// Messages are upstream's (kube-openapi's "<path> in body ..." details, apimachinery's field.Error
// bodies). Not evaluated: x-kubernetes-validations (CEL); embedded objects' metadata is coerced
// to ObjectMeta's fields by prune() but its values (name format...) are not validated.
class StructuralSchema
{
public:
    StructuralSchema(); // accepts anything (x-kubernetes-preserve-unknown-fields everywhere)
    static models::Result<StructuralSchema> fromJson(const nlohmann::json &openAPIV3Schema);

    // Removes undeclared fields (never root apiVersion/kind/metadata); keeps everything under
    // x-kubernetes-preserve-unknown-fields. x-kubernetes-embedded-resource objects keep
    // apiVersion/kind (if strings) and the ObjectMeta fields of their metadata. Returns the
    // pruned paths sorted, e.g. "spec.foo", "spec.items[0].bar", "spec.template.metadata.x"
    // (for fieldValidation Warn/Strict).
    QStringList prune(nlohmann::json &object) const;
    // What the storage codec's conversion into this schema's version does to an object: prune()
    // and the removal of nulls in fields that are neither nullable nor defaulted; no defaults.
    void coerce(nlohmann::json &object) const;
    // Applies the schema's `default`s as upstream does: defaults inside absent parents are not
    // created; a null in a non-nullable field is replaced by its default, or removed when it has
    // none (PruneNonNullableNullsWithoutDefaults). `pruneNulls` false: nulls without a default
    // stay (defaulting.Default alone, as server-side apply's field manager defaults its result,
    // for validation to refuse them).
    void applyDefaults(nlohmann::json &object, bool pruneNulls = true) const;
    // type (nullable, int-or-string), required, enum, minimum/maximum (exclusive), multipleOf,
    // minLength/maxLength (characters), pattern, format, minItems/maxItems, min/maxProperties,
    // list-type set/map uniqueness, allOf/anyOf/oneOf/not, embedded apiVersion/kind.
    QList<FieldError> validate(const nlohmann::json &object) const;
    // validate() for an update, with CRD validation ratcheting (beta, on by default since 1.30):
    // values equal to their counterpart in `old` (same keys; list-type=map items by their keys,
    // plain lists by index; sets and atomic lists do not correlate) are not validated again, so
    // unchanged invalid data does not block an update.
    QList<FieldError> validateUpdate(const nlohmann::json &object, const nlohmann::json &old) const;
    bool declaresStatus() const;

    // For writes that change one top-level member only (a status write), whether that member can
    // be pruned, defaulted and validated on its own: prune() and applyDefaults() of a stand-in
    // object holding nothing but the member give what the whole object's prune() and
    // applyDefaults() would for it (validateMemberUpdate() is a status write's check), provided the
    // other members are unchanged and already what prune() and applyDefaults() leave (applying
    // them again then changes and reports nothing) and the requiredMembers() are present. True
    // when the root only dispatches to its properties (no combinators, enum or property counts)
    // and no default holds a null or a field prune() would remove, so that applyDefaults() is
    // idempotent.
    bool checksMembersAlone() const;
    // The root's `required` members.
    const std::vector<std::string> &requiredMembers() const;
    // The errors of the top-level member `key` validated alone (`old`: the stored value, null
    // when it had none), with validateUpdate()'s ratcheting: what apiextensions' status validator
    // reports for a status write, whose schema is the status property's own. Field paths start
    // at the member ("status.conditions[0].reason"), kube-openapi's names in the messages below
    // it ("conditions[0].reason in body should match ...").
    QList<FieldError> validateMemberUpdate(const std::string &key,
                                           const nlohmann::json &value,
                                           const nlohmann::json *old) const;

private:
    explicit StructuralSchema(std::shared_ptr<const SchemaNode> root);

    std::shared_ptr<const SchemaNode> m_root; // null: accepts anything
    bool m_checksMembersAlone = false;
};

} // namespace reconscope::controller::cluster
