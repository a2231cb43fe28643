#pragma once

#include "controller/cluster/clustertypes.h"
#include "controller/cluster/resourcetype.h"
#include "controller/fieldowner/fieldmanager.h"

#include <QDateTime>

#include <functional>
#include <memory>
#include <optional>

// managedFields and server-side apply on the embedded cluster's write path
// (docs/fieldownership.md): the field managers of one served version, kept with its type entry.
namespace reconscope::controller::cluster {

// The field managers of one served group/version/resource: the main resource's and, with a
// status subresource, the status subresource's (upstream builds one per request scope). A custom
// resource's types come from its version's openAPIV3Schema (list and map types honoured); a
// built-in kind's from the patch strategies of its Go types (list-map keys where upstream's
// OpenAPI has them for the fields the embedded cluster knows), everything else deduced (maps
// granular, lists atomic).
struct TypeFieldManagers
{
    fieldowner::FieldManager main;
    std::optional<fieldowner::FieldManager> status;
    // Writes through /scale, over the whole object: their entries name the subresource.
    std::optional<fieldowner::FieldManager> scale;

    const fieldowner::FieldManager &of(bool statusSubresource) const
    {
        return statusSubresource && status ? *status : main;
    }
};

// Built once per registered schema. `clock` gives the time managedFields entries record.
std::shared_ptr<const TypeFieldManagers> makeFieldManagers(const ResourceType &type,
                                                           std::function<QDateTime()> clock);

// The type a built-in kind's managedFields are computed with.
fieldowner::TypeRef builtinFieldTypes(const ResourceType &type);

// What a create's field manager compares the new object with: null for a custom resource (no
// object), a built-in kind's Go zero value as encoding/json writes it (the members without
// omitempty: a Pod's spec.containers null, an Event's eventTime null...), which upstream's
// typed objects carry on both sides, so that they are nobody's.
nlohmann::json createdFrom(const ResourceType &type);

// The Update manager of a write other than apply: the fieldManager option, else the User-Agent.
std::string updateManagerOf(const WriteOptions &options);

// `object` (a create's when `live` is null, else an update's or a patch's result) with the
// managedFields of an Update by the write's manager. A custom resource's decoding drops an empty
// managedFields list first (omitempty), so that only [{}] resets them there.
nlohmann::json recordUpdate(const ResourceType &type,
                            const fieldowner::FieldManager &manager,
                            const nlohmann::json &live,
                            nlohmann::json object,
                            const WriteOptions &options);

// Whether `updated` differs from `stored` in the times of managedFields entries alone (then the
// store keeps `stored`, as kube-apiserver's IgnoreManagedFieldsTimestampsTransformer does).
bool differsInManagedFieldsTimesAlone(const nlohmann::json &stored, const nlohmann::json &updated);

} // namespace reconscope::controller::cluster
