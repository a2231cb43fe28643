#pragma once

#include "embeddedserver.h"

#include <functional>

namespace reconscope::controller::cluster {

class Cluster;

// The usual ApiHandlerFactory: a Cluster (a child of the EmbeddedServer, so it lives on the
// server's thread and outlives the transport) behind an ApiServer, with the FaultInjector's
// history-window hook wired to Cluster::setHistoryWindow. `setup` runs once on the new cluster,
// e.g. to seed the demo scenario (skipped for `reconscope serve --no-demo`).
ApiHandlerFactory clusterHandlerFactory(std::function<void(Cluster &cluster)> setup = {});

} // namespace reconscope::controller::cluster
