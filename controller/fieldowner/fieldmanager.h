#pragma once

#include "controller/fieldowner/fieldpath.h"
#include "controller/fieldowner/managedfields.h"
#include "controller/fieldowner/typeschema.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QDateTime>

#include <functional>
#include <string>
#include <vector>

// Server-side apply and managedFields for one resource and subresource, as kube-apiserver's
// field manager keeps them (apimachinery's util/managedfields with structured-merge-diff v6).
namespace reconscope::controller::fieldowner {

// A refused apply, as the Status kube-apiserver answers: 409 Conflict with one cause of type
// FieldManagerConflict per field ("Apply failed with 1 conflict: conflict with \"gitops\":
// .spec.replicas"), 400 BadRequest (wrong apiVersion/kind, managedFields in the body), or 500
// (a configuration that does not fit the schema, managedFields that cannot be read).
struct ApplyError
{
    struct Cause
    {
        std::string type; // FieldManagerConflict
        std::string message; // conflict with "gitops"
        std::string field; // .spec.replicas
    };

    int code = 500;
    std::string reason; // Conflict, BadRequest; empty for an internal error
    std::string message;
    std::vector<Cause> causes;

    // The metav1.Status object.
    nlohmann::json toStatus() const;
};

// What one apply conflicts with: the other manager and the field.
struct Conflict
{
    ManagerId manager;
    Path path;
};

// The 409 for `conflicts`, in upstream's words: the single-conflict sentence, or "Apply failed
// with N conflicts: conflicts with \"a\":\n- .spec.x\n..." grouped by manager (sorted).
ApplyError conflictError(const std::vector<Conflict> &conflicts);

// Fields reset by a custom resource's strategy, which no manager of the request may own: with a
// status subresource, `status` on the main resource and `metadata` and `spec` on /status.
FieldSet customResourceResetFields(bool statusSubresource, const std::string &subresource);

// The field manager of one resource version, seen through one subresource ("" or "status").
// Objects are JSON with their metadata; managedFields are read from and written to
// metadata.managedFields. Not done here (the cluster's write path does it): defaulting,
// pruning, validation and the strategy's resets of the merged object, then
// ignoreTimeOnlyChanges() against the stored object, as kube-apiserver's store does.
class FieldManager
{
public:
    using Clock = std::function<QDateTime()>;

    // `apiVersion` ("group/version") and `kind` of the requests; `type` the resource's type
    // (types::fromCrdSchema); `clock` gives the time entries record (now in UTC by default).
    FieldManager(TypeRef type,
                 std::string apiVersion,
                 std::string kind,
                 std::string subresource = {},
                 FieldSet resetFields = {},
                 Clock clock = {});

    // A write other than apply (create: `live` null; update; merge, JSON or strategic patch):
    // `updated` is the object about to be stored; returns it with managedFields kept as upstream
    // keeps them: the fields it changed given to `manager` (an Update entry) and taken from the
    // others, entries left empty removed, at most 10 Update entries ("ancient-changes" takes the
    // oldest). managedFields in `updated` are taken as given unless absent, empty or broken (the
    // stored ones are used then); [] or [{}] clear them, but decoding a custom resource's
    // metadata drops [] first (omitempty), so for those only [{}] does. An object stored without
    // managedFields stays without them. Never fails: upstream stores the object without
    // managedFields when they cannot be computed, and so does this. The store then keeps `live`
    // when nothing but entry times changed: ignoreTimeOnlyChanges(), after the strategy's resets.
    nlohmann::json
    update(const nlohmann::json &live, nlohmann::json updated, const std::string &manager) const;

    // update()'s managedFields, found cheaply, for a write that changes values alone under the
    // top-level field `member` (no field added or removed there, nothing changed elsewhere), every
    // changed field owned by `manager`'s Update entry for this apiVersion and subresource and by
    // no other entry: update() then keeps every entry as it is but gives that one the time now
    // (and sorts them again). `managedFields` are the stored ones (upstream's encoding, at most
    // 10 Update entries), replaced by update()'s when this returns true; `before` and `after` are
    // the member's values. False, `managedFields` untouched, when any of this does not hold:
    // update() must answer. fuzz_statuspatch keeps the two equal.
    bool retimeSoleOwner(nlohmann::json &managedFields,
                         const std::string &member,
                         const nlohmann::json &before,
                         const nlohmann::json &after,
                         const std::string &manager) const;

    // Server-side apply of `config` by `manager` over `live` (null: the object does not exist
    // yet): the merged object with its managedFields, fields the manager applied before and
    // no longer applies removed unless someone else owns them. Conflicts with other managers
    // (a field they own that this apply would change) fail the apply unless `force`, which takes
    // the fields from them; an equal value is shared ownership, no conflict. The applier's entry
    // gets the time only when the object changes. The first apply to an object without
    // managedFields gives its existing fields to a "before-first-apply" Update entry. The applier
    // "kubectl" may take, unforced, the fields its client-side last-applied annotation still
    // describes, and the annotation then follows what it applies.
    models::Result<nlohmann::json, ApplyError> apply(const nlohmann::json &live,
                                                     const nlohmann::json &config,
                                                     const std::string &manager,
                                                     bool force) const;

private:
    QDateTime now() const;
    nlohmann::json emptyObject() const;
    models::Result<Managed> updateManaged(const nlohmann::json &live,
                                          const nlohmann::json &updated,
                                          Managed managed,
                                          const ManagerId &id) const;
    models::Result<nlohmann::json, ApplyError> applyOnce(const nlohmann::json &live,
                                                         const nlohmann::json &config,
                                                         Managed managed,
                                                         const std::string &manager,
                                                         bool force,
                                                         std::vector<Conflict> *conflicts) const;
    models::Result<nlohmann::json, ApplyError> applyManaged(const nlohmann::json &live,
                                                            const nlohmann::json &config,
                                                            Managed &managed,
                                                            const ManagerId &id,
                                                            bool force,
                                                            std::vector<Conflict> *conflicts) const;
    models::Result<nlohmann::json>
    prune(const nlohmann::json &merged, const Managed &managed, const FieldSet &lastApplied) const;
    void capUpdateManagers(Managed &managed) const;

    TypeRef m_type;
    std::string m_apiVersion;
    std::string m_kind;
    std::string m_subresource;
    FieldSet m_resetFields;
    Clock m_clock;
};

} // namespace reconscope::controller::fieldowner
