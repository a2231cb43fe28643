#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

ApiResponse servePatch(const ResourceRequest &r)
{
    const auto patchType = patchTypeOf(r.request, r.type->type.builtin);
    if (!patchType)
        return errorResponse(r.request, patchType.error());
    WriteOptions options;
    if (auto error = parseWriteOptions(r.request, u"PatchOptions"_s, options, *patchType))
        return errorResponse(r.request, *error);
    options.returnObject = false;
    return writeAnswer(
        r.request,
        patchObject(r.verbs, r.type, r.ns, r.name, *patchType, r.request.body, r.status, options));
}

} // namespace reconscope::controller::cluster
