#include "app/clusterconfig.h"

#include "controller/kube/kubeconfig.h"

#include <cstdio>

namespace reconscope::app {

models::Result<controller::kube::ClientConfig>
loadClientConfig(const char *command, const QString &path, const QString &context)
{
    const auto kubeconfig = controller::kube::Kubeconfig::load(path);
    if (!kubeconfig)
        return kubeconfig.error();
    auto config = kubeconfig->resolve(context);
    if (config) {
        for (const auto &warning : config->warnings)
            std::fprintf(stderr, "reconscope %s: warning: %s\n", command, qPrintable(warning));
    }
    return config;
}

} // namespace reconscope::app
