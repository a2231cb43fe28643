#include "controller/cluster/schema/table.h"

namespace reconscope::controller::cluster {

nlohmann::json renderTable(const ResourceType &,
                           const std::vector<const nlohmann::json *> &,
                           const nlohmann::json &listMetadata,
                           QStringView,
                           const QDateTime &)
{
    return { { "kind", "Table" },
             { "apiVersion", "meta.k8s.io/v1" },
             { "metadata", listMetadata },
             { "columnDefinitions", nlohmann::json::array() },
             { "rows", nlohmann::json::array() } };
}

} // namespace reconscope::controller::cluster
