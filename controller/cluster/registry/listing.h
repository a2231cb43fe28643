#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"
#include "controller/cluster/selectors.h"

#include <optional>

namespace reconscope::controller::cluster {

// What a list, watch or deletecollection selects: namespace, labels, fields.
struct Selection
{
    QString ns;
    LabelSelector labels;
    FieldSelector fields;
    bool matches(const ObjectRecord &record) const;
};

// The selectors of a request, refused (400) when they do not parse or name a field the type
// cannot select on.
apimachinery::ApiResult<Selection> parseSelection(const Store &store,
                                                  const TypeEntry &type,
                                                  const QString &ns,
                                                  const QString &labelText,
                                                  const QString &fieldText);

// A resourceVersion as the API accepts it (an unsigned decimal), nullopt otherwise.
std::optional<qint64> parseResourceVersion(const QString &text);

// One page of a list as kube-apiserver serves it: at the latest revision, or the exact one asked
// for, or the one of a continue token (410 once compacted), with remainingItemCount.
apimachinery::ApiResult<ListPage> listRecords(const Store &store,
                                              const TypeEntry &type,
                                              const QString &ns,
                                              const apimachinery::ListOptions &options);

} // namespace reconscope::controller::cluster
