#include "clusterhandler.h"

#include "controller/cluster/apiserver.h"
#include "controller/cluster/cluster.h"

#include <QMetaObject>
#include <QPointer>

#include <limits>

namespace reconscope::controller::cluster {

ApiHandlerFactory clusterHandlerFactory(std::function<void(Cluster &cluster)> setup)
{
    return [setup = std::move(setup)](EmbeddedServer &server) -> ApiHandler {
        auto *cluster = new Cluster(&server);
        if (setup)
            setup(*cluster);
        // The hook may be called from any thread (the GUI's fault panel): post to the cluster.
        QPointer<Cluster> guarded(cluster);
        server.faultInjector()->setHistoryWindowHook([guarded](std::int64_t events) {
            const int window = static_cast<int>(
                std::clamp<std::int64_t>(events, 1, std::numeric_limits<int>::max()));
            if (guarded) {
                QMetaObject::invokeMethod(guarded.data(), [guarded, window] {
                    if (guarded)
                        guarded->setHistoryWindow(window);
                });
            }
        });
        auto api = std::make_shared<ApiServer>(cluster);
        api->setStreamLists(true); // the HTTPS transport writes a list as the socket drains
        return [api](const ApiRequest &request) {
            return api->handle(request);
        };
    };
}

} // namespace reconscope::controller::cluster
