#include "controller/cluster/sim/demoseed.h"

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ResourceRef;

namespace {

json customApp(
    const char *name, const char *ns, const char *image, int replicas, const char *config)
{
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata",
               { { "name", name },
                 { "namespace", ns },
                 { "labels", { { "app", name }, { "demo", "true" } } } } },
             { "spec",
               { { "image", image },
                 { "replicas", replicas },
                 { "port", 8080 },
                 { "configJSON", config } } } };
}

} // namespace

int seedDemoObjects(Cluster &cluster)
{
    const ResourceRef namespaces{ QString(), u"v1"_s, u"namespaces"_s };
    const ResourceRef secrets{ QString(), u"v1"_s, u"secrets"_s };
    const ResourceRef quotas{ QString(), u"v1"_s, u"resourcequotas"_s };
    const ResourceRef apps{ u"infrastructure.internal.net"_s, u"v1"_s, u"customapps"_s };

    int created = 0;
    auto create = [&](const ResourceRef &ref, const QString &ns, const json &object) {
        WriteOptions options;
        options.fieldManager = u"reconscope-demo"_s; // as managedFields name the seeder
        const auto result = cluster.create(ref, ns, object, options);
        if (result.ok())
            ++created;
        else
            spdlog::log(result.error().code == 409 ? spdlog::level::debug : spdlog::level::warn,
                        "demo seed: {}",
                        result.error().message.toStdString());
    };

    for (const char *ns : { "demo", "demo-quota" })
        create(namespaces,
               QString(),
               { { "apiVersion", "v1" },
                 { "kind", "Namespace" },
                 { "metadata", { { "name", ns } } } });

    create(secrets,
           u"demo"_s,
           { { "apiVersion", "v1" },
             { "kind", "Secret" },
             { "metadata", { { "name", "web-credentials" }, { "namespace", "demo" } } },
             { "type", "Opaque" },
             { "stringData", { { "token", "demo-only" } } } });
    create(quotas,
           u"demo-quota"_s,
           { { "apiVersion", "v1" },
             { "kind", "ResourceQuota" },
             { "metadata", { { "name", "pod-quota" }, { "namespace", "demo-quota" } } },
             { "spec", { { "hard", { { "pods", "2" } } } } } });

    auto web = customApp("web", "demo", "nginx:1.27", 3, R"({"logLevel":"info"})");
    web["spec"]["secretRef"] = { { "name", "web-credentials" } };
    create(apps, u"demo"_s, web);
    create(apps,
           u"demo"_s,
           customApp("api", "demo", "ghcr.io/example/api:2.4.1", 2, R"({"workers":4})"));
    create(apps, u"demo"_s, customApp("worker", "demo", "ghcr.io/example/worker:missing", 1, "{}"));
    create(apps,
           u"demo"_s,
           customApp("billing", "demo", "ghcr.io/example/billing:1.0", 1, "{not json"));
    auto reports = customApp("reports", "demo", "ghcr.io/example/reports:3.1", 1, "{}");
    reports["spec"]["secretRef"] = { { "name", "reports-credentials" } };
    create(apps, u"demo"_s, reports);
    create(apps,
           u"demo-quota"_s,
           customApp("batch", "demo-quota", "ghcr.io/example/batch:5", 4, "{}"));
    return created;
}

} // namespace reconscope::controller::cluster
