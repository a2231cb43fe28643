#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"
#include "controller/cluster/schema/table.h"

#include <QDateTime>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

ApiResponse serveGet(const ResourceRequest &r)
{
    const ApiRequest &request = r.request;
    auto record = getRecord(r.store, *r.type, r.ns, r.name);
    if (!record)
        return errorResponse(request, record.error());
    if (wantsTable(request)) {
        const json object = r.store.parseRecord(*r.type, *record);
        ApiResponse response = jsonResponse(
            request,
            200,
            renderTable(r.type->type,
                        { &object },
                        json{ { "resourceVersion", std::to_string((*record)->resourceVersion) } },
                        queryValue(request, u"includeObject"_s),
                        QDateTime::currentDateTimeUtc()));
        response.contentType = kTableContentType;
        return response;
    }
    return rawResponse(request, 200, r.store.renderRecord(*r.type, *record));
}

} // namespace reconscope::controller::cluster
