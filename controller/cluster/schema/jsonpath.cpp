#include "controller/cluster/schema/jsonpath.h"

namespace reconscope::controller::cluster {

QList<nlohmann::json> evaluateJsonPath(QStringView, const nlohmann::json &)
{
    return {};
}

} // namespace reconscope::controller::cluster
