#pragma once

#include "controller/apimachinery/status.h"
#include "controller/cluster/registry/store.h"
#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"

namespace reconscope::controller::cluster {

// The finalizers the cluster's own controllers act on.
inline const QString kOrphanFinalizer = QStringLiteral("orphan");
inline const QString kForegroundFinalizer = QStringLiteral("foregroundDeletion");
inline const QString kCrdCleanupFinalizer
    = QStringLiteral("customresourcecleanup.apiextensions.k8s.io");

// Marks the object deleted (deletionTimestamp) or removes it; adds the garbage collector's
// finalizers by `policy` ("Orphan", "Foreground", "Background" or "" for the object's own).
// Used by the delete verbs and by the controllers; runs no controller itself.
apimachinery::ApiResult<WriteResult> deleteRecord(Store &store,
                                                  const ClusterClock &clock,
                                                  const TypePtr &type,
                                                  const RecordPtr &existing,
                                                  const QString &policy,
                                                  bool dryRun);

// Removes `finalizer` from the object; the last one gone, the object is removed (a CRD with its
// group/resource).
void removeFinalizer(Store &store,
                     const TypeEntry &type,
                     const RecordPtr &record,
                     const QString &finalizer);

} // namespace reconscope::controller::cluster
