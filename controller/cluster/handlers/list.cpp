#include "controller/cluster/handlers/handlers.h"

#include "controller/cluster/handlers/handlersupport.h"
#include "controller/cluster/registry/listing.h"
#include "controller/cluster/schema/table.h"

#include <QDateTime>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ListOptions;

std::optional<ApiError> validateListOptions(const ApiRequest &request, bool watch)
{
    const QString rv = queryValue(request, u"resourceVersion"_s);
    const QString match = queryValue(request, u"resourceVersionMatch"_s);
    const QString continueToken = queryValue(request, u"continue"_s);
    const bool hasSendInitial = request.query.hasQueryItem(u"sendInitialEvents"_s);
    QList<FieldError> errors;
    auto forbidden = [&](const QString &field, const QString &message) {
        errors.append({ u"FieldValueForbidden"_s, field, u"Forbidden: "_s + message });
    };
    if (!watch) {
        if (!match.isEmpty()) {
            if (rv.isEmpty())
                forbidden(
                    u"resourceVersionMatch"_s,
                    u"resourceVersionMatch is forbidden unless resourceVersion is provided"_s);
            if (!continueToken.isEmpty())
                forbidden(u"resourceVersionMatch"_s,
                          u"resourceVersionMatch is forbidden when continue is provided"_s);
            if (match != u"Exact" && match != u"NotOlderThan")
                errors.append(
                    { u"FieldValueNotSupported"_s,
                      u"resourceVersionMatch"_s,
                      u"Unsupported value: \"%1\": supported values: \"Exact\", \"NotOlderThan\", \"\""_s
                          .arg(match) });
            if (match == u"Exact" && rv == u"0")
                forbidden(
                    u"resourceVersionMatch"_s,
                    u"resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""_s);
        }
        if (hasSendInitial)
            forbidden(u"sendInitialEvents"_s, u"sendInitialEvents is forbidden for list"_s);
    } else {
        if (hasSendInitial && match != u"NotOlderThan")
            forbidden(u"resourceVersionMatch"_s,
                      u"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"_s);
        if (!match.isEmpty()) {
            if (!hasSendInitial)
                forbidden(
                    u"resourceVersionMatch"_s,
                    u"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"_s);
            if (match != u"NotOlderThan")
                errors.append(
                    { u"FieldValueNotSupported"_s,
                      u"resourceVersionMatch"_s,
                      u"Unsupported value: \"%1\": supported values: \"NotOlderThan\""_s.arg(
                          match) });
            if (!continueToken.isEmpty())
                forbidden(u"resourceVersionMatch"_s,
                          u"resourceVersionMatch is forbidden when continue is provided"_s);
        }
    }
    if (!errors.isEmpty())
        return optionsInvalid(u"ListOptions"_s, errors);
    return std::nullopt;
}

namespace {

ApiResponse tableResponse(const ResourceRequest &r, const ListPage &page)
{
    std::vector<json> objects;
    objects.reserve(page.items.size());
    for (const RecordPtr &record : page.items)
        objects.push_back(r.store.parseRecord(*r.type, record));
    std::vector<const json *> pointers;
    for (const json &object : objects)
        pointers.push_back(&object);
    json metadata = { { "resourceVersion", std::to_string(page.resourceVersion) } };
    if (!page.continueToken.isEmpty())
        metadata["continue"] = page.continueToken.toStdString();
    if (page.remainingItemCount)
        metadata["remainingItemCount"] = *page.remainingItemCount;
    ApiResponse response = jsonResponse(r.request,
                                        200,
                                        renderTable(r.type->type,
                                                    pointers,
                                                    metadata,
                                                    queryValue(r.request, u"includeObject"_s),
                                                    QDateTime::currentDateTimeUtc()));
    response.contentType = kTableContentType;
    return response;
}

// The list body around the items, as upstream's unstructured encoder writes it (keys sorted).
QByteArray listHead(const ResourceType &rt)
{
    QByteArray head;
    head.append("{\"apiVersion\":\"").append(rt.groupVersion().toUtf8()).append("\",\"items\":[");
    return head;
}

QByteArray listTail(const ResourceType &rt, const ListPage &page)
{
    QByteArray tail;
    tail.append("],\"kind\":\"").append(rt.listKind.toUtf8()).append("\",\"metadata\":{");
    if (!rt.builtin || !page.continueToken.isEmpty())
        tail.append("\"continue\":\"").append(page.continueToken.toLatin1()).append("\",");
    if (page.remainingItemCount)
        tail.append("\"remainingItemCount\":")
            .append(QByteArray::number(*page.remainingItemCount))
            .append(',');
    tail.append("\"resourceVersion\":\"")
        .append(QByteArray::number(page.resourceVersion))
        .append("\"}}");
    return tail;
}

// Streamed as the socket drains (as kube-apiserver 1.33 streams a JSON list item by item): the
// pieces share the records' bytes, so the snapshot stays consistent and nothing is concatenated
// before the first byte.
ApiResponse streamedResponse(const ResourceRequest &r, const ListPage &page)
{
    const ResourceType &rt = r.type->type;
    ApiResponse response;
    response.status = 200;
    response.body = listHead(rt);
    response.bodyPieces.reserve(qsizetype(page.items.size()) * 2 + 1);
    static const QByteArray comma = QByteArrayLiteral(",");
    // What renderRecord() checks, built once: a record stored at the served version is sent as
    // it is stored (its bytes shared, not copied).
    const QByteArray served = "{\"apiVersion\":\"" + rt.groupVersion().toUtf8() + '"';
    bool first = true;
    for (const RecordPtr &record : page.items) {
        if (!first)
            response.bodyPieces.append(comma);
        first = false;
        if (!rt.builtin && record->json.startsWith(served))
            response.bodyPieces.append(record->json);
        else
            response.bodyPieces.append(r.store.renderListItem(*r.type, record));
    }
    QByteArray tail = listTail(rt, page);
    tail.append('\n');
    response.bodyPieces.append(std::move(tail));
    return response;
}

ApiResponse joinedResponse(const ResourceRequest &r, const ListPage &page)
{
    const QByteArray head = listHead(r.type->type);
    const QByteArray tail = listTail(r.type->type, page);
    qsizetype size = head.size() + tail.size();
    for (const RecordPtr &record : page.items)
        size += record->json.size() + 1;
    QByteArray body;
    body.reserve(size);
    body.append(head);
    bool first = true;
    for (const RecordPtr &record : page.items) {
        if (!first)
            body.append(',');
        first = false;
        body.append(r.store.renderListItem(*r.type, record));
    }
    body.append(tail);
    return rawResponse(r.request, 200, std::move(body));
}

} // namespace

ApiResponse serveList(const ResourceRequest &r, bool stream)
{
    const ApiRequest &request = r.request;
    if (auto error = validateListOptions(request, false))
        return errorResponse(request, *error);
    ListOptions options;
    options.labelSelector = queryValue(request, u"labelSelector"_s);
    options.fieldSelector = queryValue(request, u"fieldSelector"_s);
    options.resourceVersion = queryValue(request, u"resourceVersion"_s);
    options.resourceVersionMatch = queryValue(request, u"resourceVersionMatch"_s);
    options.continueToken = queryValue(request, u"continue"_s);
    if (request.query.hasQueryItem(u"limit"_s)) {
        const auto limit = parseQueryInteger(queryValue(request, u"limit"_s));
        if (!limit)
            return errorResponse(request, limit.error());
        options.limit = *limit;
    }
    auto page = listRecords(r.store, *r.type, r.ns, options);
    if (!page)
        return errorResponse(request, page.error());
    if (wantsTable(request))
        return tableResponse(r, *page);
    if (stream && !wantsPretty(request))
        return streamedResponse(r, *page);
    return joinedResponse(r, *page);
}

} // namespace reconscope::controller::cluster
