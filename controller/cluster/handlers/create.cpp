#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

ApiResponse serveCreate(const ResourceRequest &r)
{
    WriteOptions options;
    if (auto error = parseWriteOptions(r.request, u"CreateOptions"_s, options))
        return errorResponse(r.request, *error);
    options.returnObject = false;
    auto body = parseBody(r.request, r.type->type.builtin);
    if (!body)
        return errorResponse(r.request, body.error());
    return writeAnswer(r.request, createObject(r.verbs, r.type, r.ns, std::move(*body), options));
}

} // namespace reconscope::controller::cluster
