#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/clusterwatch.h"
#include "controller/cluster/handlers/handlersupport.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::WatchOptions;

ApiResponse serveWatch(const ResourceRequest &r)
{
    const ApiRequest &request = r.request;
    if (auto error = validateListOptions(request, true))
        return errorResponse(request, *error);
    WatchOptions options;
    options.labelSelector = queryValue(request, u"labelSelector"_s);
    options.fieldSelector = queryValue(request, u"fieldSelector"_s);
    if (!r.name.isEmpty()) { // legacy /watch/.../{name}
        const QString byName = u"metadata.name="_s + r.name;
        options.fieldSelector
            = options.fieldSelector.isEmpty() ? byName : options.fieldSelector + u',' + byName;
    }
    options.resourceVersion = queryValue(request, u"resourceVersion"_s);
    options.allowWatchBookmarks = queryFlag(request, u"allowWatchBookmarks"_s);
    if (request.query.hasQueryItem(u"sendInitialEvents"_s))
        options.sendInitialEvents = queryFlag(request, u"sendInitialEvents"_s);
    std::optional<QString> tableIncludeObject;
    if (wantsTable(request))
        tableIncludeObject = queryValue(request, u"includeObject"_s);
    if (request.query.hasQueryItem(u"timeoutSeconds"_s)) {
        const auto timeout = parseQueryInteger(queryValue(request, u"timeoutSeconds"_s));
        if (!timeout)
            return errorResponse(request, timeout.error());
        options.timeoutSeconds = int(std::clamp<qint64>(*timeout, 0, 24 * 3600));
    }
    auto stream
        = ClusterWatch::open(r.cluster, r.type, r.ns, options, std::move(tableIncludeObject));
    if (!stream)
        return errorResponse(request, stream.error());
    ApiResponse response;
    response.watch = *stream;
    return response;
}

} // namespace reconscope::controller::cluster
