#include "controller/cluster/sim/embeddedcluster.h"

#include "controller/cluster/apiserver.h"
#include "controller/cluster/sim/demoseed.h"

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

ApiHandlerFactory embeddedClusterFactory(EmbeddedClusterOptions options)
{
    return [options](EmbeddedServer &server) -> ApiHandler {
        auto *cluster = new Cluster(&server);
        cluster->setObjectName(u"reconscope-cluster"_s);
        server.faultInjector()->setHistoryWindowHook(
            [cluster](std::int64_t events) { cluster->setHistoryWindow(int(events)); });
        if (options.simulateWorkloads)
            new WorkloadSimulator(cluster, options.simulator, cluster);
        if (options.demo) {
            const int seeded = seedDemoObjects(*cluster);
            spdlog::info("embedded cluster: seeded {} demo objects", seeded);
        }
        auto api = std::make_shared<ApiServer>(cluster);
        return [api](const ApiRequest &request) {
            return api->handle(request);
        };
    };
}

Cluster *clusterOf(const EmbeddedServer &server)
{
    return server.findChild<Cluster *>(u"reconscope-cluster"_s, Qt::FindDirectChildrenOnly);
}

} // namespace reconscope::controller::cluster
