#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

ApiResponse serveCreate(const ResourceRequest &r)
{
    WriteOptions options;
    auto body = parseWriteRequest(r.request, u"CreateOptions"_s, r.type->type, options);
    if (!body)
        return errorResponse(r.request, body.error());
    return writeAnswer(r.request, createObject(r.verbs, r.type, r.ns, std::move(*body), options));
}

} // namespace reconscope::controller::cluster
