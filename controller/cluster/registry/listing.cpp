#include "controller/cluster/registry/listing.h"

#include "controller/cluster/objectjson.h"
#include "models/gojson.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::ListOptions;

ApiResult<Selection> parseSelection(const Store &store,
                                    const TypeEntry &type,
                                    const QString &ns,
                                    const QString &labelText,
                                    const QString &fieldText)
{
    Selection selection;
    selection.ns = type.type.namespaced ? ns : QString();
    auto labels = LabelSelector::parse(labelText);
    if (!labels)
        return ApiError::badRequest(labels.error().message);
    selection.labels = *labels;
    auto fields = FieldSelector::parse(fieldText);
    if (!fields)
        return ApiError::badRequest(fields.error().message);
    const Bucket *b = store.findBucket(type.storageKey);
    for (const FieldSelector::Term &term : fields->terms()) {
        const bool known = term.field == u"metadata.name"
            || (term.field == u"metadata.namespace" && type.type.namespaced)
            || (b && b->selectableFields.contains(u'.' + term.field));
        if (!known)
            return ApiError::badRequest(u"field label not supported: "_s + term.field);
    }
    selection.fields = *fields;
    return selection;
}

bool Selection::matches(const ObjectRecord &record) const
{
    if (!ns.isEmpty() && record.ns != ns)
        return false;
    if (!labels.isEmpty() && !labels.matches(record.labels))
        return false;
    if (!fields.isEmpty()) {
        return fields.matches([&](const QString &field) -> QString {
            if (field == u"metadata.name")
                return record.name;
            if (field == u"metadata.namespace")
                return record.ns;
            for (const auto &[path, value] : record.fields) {
                if (path == field)
                    return value;
            }
            return {};
        });
    }
    return true;
}

namespace {

struct ContinueToken
{
    qint64 rv = 0;
    std::string start;
    qint64 served = 0; // items returned by the earlier pages (for remainingItemCount)
};

QString encodeContinue(qint64 rv, const std::string &start, qint64 served = 0)
{
    json token = { { "v", "meta.k8s.io/v1" }, { "rv", rv }, { "start", start } };
    if (served > 0)
        token["n"] = served;
    return QString::fromLatin1(
        QByteArray::fromStdString(token.dump())
            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

models::Result<ContinueToken> decodeContinue(const QString &text)
{
    using R = models::Result<ContinueToken>;
    auto decoded = QByteArray::fromBase64Encoding(
        text.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return R::failure(u"continue key is not valid: illegal base64 data"_s);
    // storage.DecodeContinue: json.Unmarshal into its continueToken struct.
    if (const auto error
        = models::goUnmarshalError(decoded.decoded, "object", "storage.continueToken"))
        return R::failure(u"continue key is not valid: "_s + QString::fromStdString(*error));
    json token
        = json::parse(decoded.decoded.constBegin(), decoded.decoded.constEnd(), nullptr, false);
    if (token.is_discarded() || !token.is_object()) // null, or valid to Go only
        token = json::object();
    if (objectjson::string(token, "v") != u"meta.k8s.io/v1")
        return R::failure(
            u"continue key is not valid: server does not recognize this encoded version"_s);
    const json &rv = objectjson::member(token, "rv");
    if (!rv.is_number_integer() || rv.get<qint64>() == 0)
        return R::failure(
            u"continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"_s);
    const json &start = objectjson::member(token, "start");
    if (!start.is_string() || start.get<std::string>().empty())
        return R::failure(u"continue key is not valid: encoded start key empty"_s);
    const json &served = objectjson::member(token, "n");
    return ContinueToken{ rv.get<qint64>(),
                          start.get<std::string>(),
                          served.is_number_integer() ? served.get<qint64>() : 0 };
}

QString invalidRvMessage(const QString &text)
{
    return u"resourceVersion: Invalid value: \"%1\": strconv.ParseUint: parsing \"%1\": invalid syntax"_s
        .arg(text);
}

} // namespace

std::optional<qint64> parseResourceVersion(const QString &text)
{
    bool ok = false;
    const qulonglong value = text.toULongLong(&ok);
    if (!ok || text.startsWith(u'+') || text.startsWith(u' '))
        return std::nullopt;
    return qint64(value);
}

namespace {

// Where a list reads: the revision, the key to start at, the page size, and how many items the
// earlier pages of a continued list returned.
struct ReadPoint
{
    qint64 rv = 0;
    std::string startKey;
    qint64 limit = 0;
    qint64 servedBefore = 0;
};

ApiResult<ReadPoint> readPoint(const Store &store, const ListOptions &options)
{
    ReadPoint point{ store.revision(), {}, options.limit > 0 ? options.limit : 0, 0 };
    const QString &rvText = options.resourceVersion;
    std::optional<qint64> requestedRv;
    if (!rvText.isEmpty()) {
        requestedRv = parseResourceVersion(rvText);
        if (!requestedRv)
            return ApiError::badRequest(u"invalid resource version: "_s + invalidRvMessage(rvText));
    }
    if (!options.continueToken.isEmpty()) {
        if (!rvText.isEmpty() && rvText != u"0")
            return ApiError::badRequest(
                u"specifying resource version is not allowed when using continue"_s);
        auto token = decodeContinue(options.continueToken);
        if (!token)
            return ApiError::badRequest(u"invalid continue token: "_s + token.error().message);
        point.startKey = token->start;
        point.servedBefore = token->served;
        if (token->rv > 0) {
            if (token->rv < store.compactedRevision()) {
                ApiError error = ApiError::expired(
                    u"The provided continue parameter is too old to display a consistent list "
                    u"result. "
                    "You can start a new list without the continue parameter, or use the continue "
                    "token in this response to retrieve the remainder of the results. Continuing "
                    "with the provided token results in an inconsistent list - objects that were "
                    "created, modified, or deleted between the time the first chunk was returned "
                    "and now may show up in the list."_s);
                error.continueToken = encodeContinue(-1, token->start);
                return error;
            }
            point.rv = std::min(token->rv, store.revision());
        }
        // The watch cache serves a continued list from its snapshot, and with resourceVersion
        // "0" it ignores the limit (cacher's computeListLimit): the rest in one page.
        if (rvText == u"0")
            point.limit = 0;
    } else if (requestedRv && *requestedRv == 0) {
        point.limit = 0; // "any": served whole from the cache
    } else if (requestedRv) {
        const bool exact = options.resourceVersionMatch == u"Exact"
            || (options.resourceVersionMatch.isEmpty() && point.limit > 0);
        if (*requestedRv > store.revision())
            return ApiError::timeout(
                u"Too large resource version: %1, current: %2"_s.arg(*requestedRv)
                    .arg(store.revision()),
                1);
        if (exact) {
            if (*requestedRv < store.compactedRevision())
                return ApiError::expired(
                    u"The resourceVersion for the provided list is too old."_s);
            point.rv = *requestedRv;
        }
    }
    return point;
}

} // namespace

ApiResult<ListPage> listRecords(const Store &store,
                                const TypeEntry &type,
                                const QString &ns,
                                const ListOptions &options)
{
    auto selection = parseSelection(store, type, ns, options.labelSelector, options.fieldSelector);
    if (!selection)
        return selection.error();
    const bool hasSelector = !selection->labels.isEmpty() || !selection->fields.isEmpty();

    const auto point = readPoint(store, options);
    if (!point)
        return point.error();
    const qint64 readRv = point->rv;
    std::string startKey = point->startKey;
    const qint64 limit = point->limit;
    const qint64 servedBefore = point->servedBefore;

    ListPage page;
    page.resourceVersion = readRv;
    const Bucket *b = store.findBucket(type.storageKey);
    if (!b)
        return page;
    std::string prefix;
    if (!selection->ns.isEmpty() && type.type.namespaced) {
        prefix = selection->ns.toStdString() + '/';
        if (startKey < prefix)
            startKey = prefix;
    }
    qint64 remaining = 0;
    bool more = false;
    if (limit == 0 && !hasSelector && prefix.empty())
        page.items.reserve(b->objects.size());
    store.forEachAt(*b, readRv, startKey, [&](const RecordPtr &record) {
        if (!prefix.empty() && record->key.compare(0, prefix.size(), prefix) != 0)
            return false;
        if (!selection->matches(*record))
            return true;
        if (limit > 0 && qint64(page.items.size()) >= limit) {
            more = true;
            // Without selectors every later object counts; at the latest revision they are
            // counted below straight from the map.
            if (hasSelector || readRv >= store.revision())
                return false;
            ++remaining;
            return true;
        }
        page.items.push_back(record);
        return true;
    });
    const qint64 served = servedBefore + qint64(page.items.size());
    if (more && !hasSelector && readRv >= store.revision()) {
        // Nothing changed since the first page: the rest is what the scope holds minus what the
        // pages have returned so far.
        const qint64 total
            = prefix.empty() ? qint64(b->objects.size()) : b->namespaceCounts.value(selection->ns);
        remaining = std::max<qint64>(0, total - served);
    }
    if (more) {
        // `more` is only set once an item was taken (limit > 0): the last one is where to go on.
        page.continueToken = encodeContinue(readRv, page.items.back()->key + '\0', served);
        if (!hasSelector)
            page.remainingItemCount = remaining;
    }
    return page;
}

} // namespace reconscope::controller::cluster
