#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

ApiResponse serveUpdate(const ResourceRequest &r)
{
    WriteOptions options;
    auto body = parseWriteRequest(r.request, u"UpdateOptions"_s, r.type->type, options);
    if (!body)
        return errorResponse(r.request, body.error());
    return writeAnswer(
        r.request,
        updateObject(r.verbs, r.type, r.ns, r.name, std::move(*body), r.status, options));
}

} // namespace reconscope::controller::cluster
