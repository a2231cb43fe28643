#pragma once

#include "controller/cluster/cluster.h"

namespace reconscope::controller::cluster {

// The objects `reconscope serve` (without --no-demo) and the console's demo mode start with: a
// "demo" namespace with CustomApps that, once a reconciler runs, walk through every lifecycle state
// (healthy apps, an unpullable image, an invalid configJSON, a missing Secret, a namespace whose
// ResourceQuota is too small). Returns the number of objects created.
int seedDemoObjects(Cluster &cluster);

} // namespace reconscope::controller::cluster
