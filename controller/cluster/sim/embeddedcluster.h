#pragma once

#include "controller/cluster/server/embeddedserver.h"
#include "controller/cluster/sim/workloadsimulator.h"

namespace reconscope::controller::cluster {

struct EmbeddedClusterOptions
{
    bool demo = true; // seed the demo objects
    bool simulateWorkloads = true;
    WorkloadSimulator::Options simulator;
};

// The whole embedded cluster behind an EmbeddedServer: the API semantics (Cluster + ApiServer),
// the workload simulator and, for demos, the seeded objects. Used by `reconscope serve` and by
// the console's demo mode. The objects are created on the server's thread and parented to it.
ApiHandlerFactory embeddedClusterFactory(EmbeddedClusterOptions options = {});

// The Cluster behind a server built by embeddedClusterFactory (null for other servers).
Cluster *clusterOf(const EmbeddedServer &server);

} // namespace reconscope::controller::cluster
