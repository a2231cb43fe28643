#include "controller/cluster/sim/embeddedcluster.h"

#include "controller/cluster/server/clusterhandler.h"
#include "controller/cluster/sim/demoseed.h"

#include <spdlog/spdlog.h>

namespace reconscope::controller::cluster {

ApiHandlerFactory embeddedClusterFactory(EmbeddedClusterOptions options)
{
    return clusterHandlerFactory([options](Cluster &cluster) {
        if (options.simulateWorkloads)
            new WorkloadSimulator(&cluster, options.simulator, &cluster);
        if (options.demo)
            spdlog::info("embedded cluster: seeded {} demo objects", seedDemoObjects(cluster));
    });
}

Cluster *clusterOf(const EmbeddedServer &server)
{
    return server.findChild<Cluster *>(QString(), Qt::FindDirectChildrenOnly);
}

} // namespace reconscope::controller::cluster
