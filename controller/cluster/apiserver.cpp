#include "controller/cluster/apiserver.h"

#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/discovery.h"
#include "controller/cluster/schema/openapi.h"
#include "controller/cluster/schema/table.h"
#include "controller/cluster/yamldocuments.h"

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

struct ApiServer::RequestInfo
{
    QString verb; // get list watch create update patch delete deletecollection
    QString group;
    QString version;
    QString resource;
    QString subresource;
    QString ns;
    QString name;
    bool namespacedUrl = false; // the path carried /namespaces/{ns}/
    bool collection = false;
};

namespace {

const QByteArray kAggregatedDiscovery
    = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const QByteArray kTableContentType = "application/json;as=Table;v=v1;g=meta.k8s.io";

QString queryValue(const ApiRequest &request, const QString &key)
{
    return request.query.queryItemValue(key, QUrl::FullyDecoded);
}

// apimachinery's Convert_Slice_string_To_bool: present with any value but "0"/"false" is true.
bool queryFlag(const ApiRequest &request, const QString &key)
{
    if (!request.query.hasQueryItem(key))
        return false;
    const QString value = queryValue(request, key);
    return value != u"0" && value.compare(u"false", Qt::CaseInsensitive) != 0;
}

bool wantsPretty(const ApiRequest &request)
{
    if (request.query.hasQueryItem(u"pretty"_s))
        return queryFlag(request, u"pretty"_s);
    return request.header("user-agent").startsWith("curl");
}

ApiResponse plainNotFound()
{
    ApiResponse response;
    response.status = 404;
    response.contentType = "text/plain; charset=utf-8";
    response.body = "404 page not found\n";
    return response;
}

ApiResponse textResponse(int status, const QByteArray &text)
{
    ApiResponse response;
    response.status = status;
    response.contentType = "text/plain; charset=utf-8";
    response.body = text;
    return response;
}

ApiResponse jsonResponse(const ApiRequest &request, int status, const json &body)
{
    ApiResponse response;
    response.status = status;
    response.body = wantsPretty(request) ? objectjson::dumpPretty(body) : objectjson::dump(body);
    response.body.append('\n');
    return response;
}

ApiResponse
orderedResponse(const ApiRequest &request, int status, const nlohmann::ordered_json &body)
{
    ApiResponse response;
    response.status = status;
    response.body = QByteArray::fromStdString(
        body.dump(wantsPretty(request) ? 2 : -1, ' ', false, json::error_handler_t::replace));
    response.body.append('\n');
    return response;
}

ApiResponse errorResponse(const ApiRequest &request, const ApiError &error)
{
    return orderedResponse(request, error.code, error.toStatus());
}

ApiResponse rawResponse(const ApiRequest &request, int status, QByteArray body)
{
    ApiResponse response;
    response.status = status;
    if (wantsPretty(request)) {
        const json parsed = json::parse(body.constBegin(), body.constEnd(), nullptr, false);
        if (!parsed.is_discarded())
            body = objectjson::dumpPretty(parsed);
    }
    response.body = std::move(body);
    response.body.append('\n');
    return response;
}

// A write's object: the committed bytes as they are, else `object` serialized.
ApiResponse writeResponse(const ApiRequest &request, int status, const WriteResult &result)
{
    if (result.objectJson.isEmpty())
        return jsonResponse(request, status, result.object);
    return rawResponse(request, status, result.objectJson);
}

void addWarnings(ApiResponse &response, const QStringList &warnings)
{
    for (const QString &warning : warnings) {
        QString escaped = warning;
        escaped.replace(u'\\', u"\\\\"_s).replace(u'"', u"\\\""_s);
        response.headers.append({ "Warning", (u"299 - \""_s + escaped + u'"').toUtf8() });
    }
}

bool wantsTable(const ApiRequest &request)
{
    const QByteArray accept = request.header("accept");
    const QList<QByteArray> ranges = accept.split(',');
    for (const QByteArray &range : ranges) {
        const QList<QByteArray> params = range.split(';');
        bool table = false, v1 = false, meta = false;
        for (QByteArray param : params) {
            param = param.trimmed();
            table = table || param == "as=Table";
            v1 = v1 || param == "v=v1";
            meta = meta || param == "g=meta.k8s.io";
        }
        if (table && v1 && meta)
            return true;
    }
    return false;
}

bool wantsAggregatedDiscovery(const ApiRequest &request)
{
    const QList<QByteArray> ranges = request.header("accept").split(',');
    for (const QByteArray &range : ranges) {
        const QList<QByteArray> params = range.split(';');
        bool list = false, v2 = false, group = false;
        for (QByteArray param : params) {
            param = param.trimmed();
            list = list || param == "as=APIGroupDiscoveryList";
            v2 = v2 || param == "v=v2";
            group = group || param == "g=apidiscovery.k8s.io";
        }
        if (list && v2 && group)
            return true;
    }
    return false;
}

// Options kinds name the 422s of option validation: "CreateOptions.meta.k8s.io "" is invalid".
ApiError optionsInvalid(const QString &kind, const QList<FieldError> &errors)
{
    return ApiError::invalid(u"meta.k8s.io"_s, kind, {}, errors);
}

QList<FieldError> validateDryRun(const QStringList &values)
{
    for (const QString &value : values) {
        if (value != u"All") {
            QStringList quoted;
            for (const QString &v : values)
                quoted << u'"' + v + u'"';
            return { { u"FieldValueNotSupported"_s,
                       u"dryRun"_s,
                       u"Unsupported value: []string{%1}: supported values: \"All\""_s.arg(
                           quoted.join(u", "_s)) } };
        }
    }
    return {};
}

std::optional<ApiError>
parseWriteOptions(const ApiRequest &request, const QString &optionsKind, WriteOptions &options)
{
    QList<FieldError> errors;
    const QStringList dryRun = request.query.allQueryItemValues(u"dryRun"_s, QUrl::FullyDecoded);
    errors.append(validateDryRun(dryRun));
    options.dryRun = !dryRun.isEmpty();
    options.fieldManager = queryValue(request, u"fieldManager"_s);
    if (options.fieldManager.toUtf8().size() > 128)
        errors.append({ u"FieldValueTooLong"_s,
                        u"fieldManager"_s,
                        u"Too long: may not be more than 128 bytes"_s });
    for (qsizetype i = 0; i < options.fieldManager.size(); ++i) {
        const QChar c = options.fieldManager[i];
        if (!c.isPrint()) {
            errors.append({ u"FieldValueInvalid"_s,
                            u"fieldManager"_s,
                            u"Invalid value: \"%1\": invalid character U+%2 (at position %3)"_s
                                .arg(options.fieldManager)
                                .arg(c.unicode(), 4, 16, QChar(u'0'))
                                .arg(i) });
            break;
        }
    }
    const QString validation = queryValue(request, u"fieldValidation"_s);
    if (validation.isEmpty() || validation == u"Warn")
        options.fieldValidation = FieldValidation::Warn;
    else if (validation == u"Ignore")
        options.fieldValidation = FieldValidation::Ignore;
    else if (validation == u"Strict")
        options.fieldValidation = FieldValidation::Strict;
    else
        errors.append(
            { u"FieldValueNotSupported"_s,
              u"fieldValidation"_s,
              u"Unsupported value: \"%1\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""_s
                  .arg(validation) });
    if (!errors.isEmpty())
        return optionsInvalid(optionsKind, errors);
    return std::nullopt;
}

// Go's encoding/json wording for a syntax error: where nlohmann's parser stopped.
QString jsonSyntaxError(const QByteArray &body)
{
    struct Locator : nlohmann::json_sax<json>
    {
        std::size_t position = 0;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t &) override { return true; }
        bool string(string_t &) override { return true; }
        bool binary(binary_t &) override { return true; }
        bool start_object(std::size_t) override { return true; }
        bool key(string_t &) override { return true; }
        bool end_object() override { return true; }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t at,
                         const std::string &,
                         const nlohmann::detail::exception &) override
        {
            position = at;
            return false;
        }
    } locator;
    json::sax_parse(
        body.constBegin(), body.constEnd(), &locator, nlohmann::detail::input_format_t::json, true);
    qsizetype index = qsizetype(locator.position) - 1;
    while (index >= 0 && index < body.size() && QChar::fromLatin1(body[index]).isSpace())
        ++index;
    if (index < 0 || index >= body.size() || body.trimmed().isEmpty())
        return u"unexpected end of JSON input"_s;
    return u"invalid character '%1' looking for beginning of value"_s.arg(
        QChar::fromLatin1(body[index]));
}

// Go's decoder does not reject invalid UTF-8 in strings: each invalid byte becomes U+FFFD.
QByteArray replaceInvalidUtf8(const QByteArray &body)
{
    return QString::fromUtf8(body).toUtf8();
}

// The media type of a request body, without parameters, lower-case; JSON when absent (upstream's
// NegotiateInputSerializer takes the first supported type).
QByteArray bodyMediaType(const ApiRequest &request)
{
    QByteArray type = request.header("content-type");
    if (const qsizetype semicolon = type.indexOf(';'); semicolon >= 0)
        type.truncate(semicolon);
    type = type.trimmed().toLower();
    return type.isEmpty() ? QByteArray("application/json") : type;
}

// `protobuf`: the type is a built-in one, whose codecs also read protobuf (custom resources
// read JSON and YAML only); the 415 lists what the endpoint accepts, as upstream does.
models::Result<json, ApiError> parseBody(const ApiRequest &request, bool protobuf)
{
    const QByteArray mediaType = bodyMediaType(request);
    if (mediaType != "application/json" && mediaType != "application/yaml") {
        return ApiError::unsupportedMediaType(
            u"the body of the request was in an unknown format - accepted media types include: "
            u"application/json, application/yaml"_s
            + (protobuf ? u", application/vnd.kubernetes.protobuf"_s : QString()));
    }
    if (mediaType == "application/json") {
        if (const QString error = objectjson::nestingError(request.body); !error.isEmpty())
            return ApiError::badRequest(u"couldn't get version/kind; json parse error: "_s + error);
    }
    if (mediaType == "application/yaml") {
        auto documents = yamlDocumentsToJson(request.body);
        if (!documents || documents->size() != 1)
            return ApiError::badRequest(
                u"couldn't get version/kind; json parse error: invalid YAML in the request body"_s);
        return documents->first();
    }
    json body = json::parse(request.body.constBegin(), request.body.constEnd(), nullptr, false);
    if (body.is_discarded() && !QUtf8StringView(request.body).isValidUtf8()) {
        const QByteArray replaced = replaceInvalidUtf8(request.body);
        body = json::parse(replaced.constBegin(), replaced.constEnd(), nullptr, false);
    }
    if (body.is_discarded())
        return ApiError::badRequest(u"couldn't get version/kind; json parse error: "_s
                                    + jsonSyntaxError(request.body));
    if (!body.is_object()) {
        const char *type = body.is_array() ? "array"
            : body.is_string()             ? "string"
            : body.is_number()             ? "number"
            : body.is_boolean()            ? "bool"
                                           : nullptr;
        if (type)
            return ApiError::badRequest(
                u"couldn't get version/kind; json parse error: json: cannot unmarshal %1 into Go "
                "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                "Kind string \"json:\\\"kind,omitempty\\\"\" }"_s.arg(QLatin1String(type)));
    }
    return body;
}

std::optional<qint64> parseInteger(const QString &text)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    return ok ? std::optional<qint64>(value) : std::nullopt;
}

json versionInfo()
{
    return json{ { "major", "1" },
                 { "minor", "32" },
                 { "gitVersion", "v1.32.0" },
                 { "gitCommit", "70d3cc986aa8221cd1dfb1121852688902d3bf53" },
                 { "gitTreeState", "clean" },
                 { "buildDate", "2024-12-11T17:59:15Z" },
                 { "goVersion", "go1.23.3" },
                 { "compiler", "gc" },
                 { "platform", "linux/amd64" } };
}

// The `{.a.b}` path of a scale subresource as JSON keys.
QStringList pathKeys(const QString &path)
{
    return path.split(u'.', Qt::SkipEmptyParts);
}

const json *valueAt(const json &object, const QString &path)
{
    const json *current = &object;
    for (const QString &key : pathKeys(path)) {
        if (!current->is_object())
            return nullptr;
        auto it = current->find(key.toStdString());
        if (it == current->end())
            return nullptr;
        current = &*it;
    }
    return current;
}

} // namespace

ApiServer::ApiServer(Cluster *cluster)
    : m_cluster(cluster)
{ }

ApiHandler ApiServer::handler()
{
    return [this](const ApiRequest &request) {
        return handle(request);
    };
}

ApiResponse ApiServer::handle(const ApiRequest &request)
{
    // Nothing may throw across the transport's event loop: a bug answers 500, not a crash.
    try {
        return handleRequest(request);
    } catch (const std::exception &error) {
        // apimachinery's NewInternalError.
        ApiError internal
            = ApiError::internal(u"Internal error occurred: "_s + QString::fromUtf8(error.what()));
        internal.reason = u"InternalError"_s;
        internal.details
            = nlohmann::ordered_json{ { "causes", { { { "message", error.what() } } } } };
        return errorResponse(request, internal);
    }
}

ApiResponse ApiServer::handleRequest(const ApiRequest &request)
{
    if (!m_cluster)
        return errorResponse(request, ApiError::internal(u"the cluster is gone"_s));
    if (request.body.size() > maxBodyBytes)
        return errorResponse(request,
                             ApiError::requestEntityTooLarge(u"limit is %1"_s.arg(maxBodyBytes)));

    QString path = request.path;
    if (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    if (!path.startsWith(u'/'))
        return plainNotFound();
    const QStringList parts = path.mid(1).split(u'/');
    if (parts.contains(QString()) && path != u"/")
        return plainNotFound();

    const bool isApi = !parts.isEmpty() && parts[0] == u"api" && parts.size() >= 3;
    const bool isApis = !parts.isEmpty() && parts[0] == u"apis" && parts.size() >= 4;
    if (!isApi && !isApis) {
        // Non-resource URLs: everyone may GET what system:discovery and system:public-info-viewer
        // grant; anything else needs an admin.
        if (!request.user.groups.contains(u"system:masters"_s)) {
            const QString first = parts.value(0);
            const bool discoveryPath = first == u"api" || first == u"apis" || first == u"openapi"
                || (parts.size() == 1
                    && (first == u"version" || first == u"healthz" || first == u"livez"
                        || first == u"readyz"));
            if (request.method != "GET" || !discoveryPath)
                return errorResponse(
                    request,
                    ApiError::forbidden({},
                                        {},
                                        {},
                                        u"User \"%1\" cannot %2 path \"%3\""_s.arg(
                                            request.user.name,
                                            QString::fromLatin1(request.method).toLower(),
                                            request.path)));
        }
        return handleNonResource(request, parts);
    }

    RequestInfo info;
    QStringList rest;
    if (isApi) {
        info.version = parts[1];
        rest = parts.mid(2);
    } else {
        info.group = parts[1];
        info.version = parts[2];
        rest = parts.mid(3);
    }
    bool legacyWatch = false;
    if (!rest.isEmpty() && rest[0] == u"watch") {
        legacyWatch = true;
        rest.removeFirst();
        if (rest.isEmpty())
            return plainNotFound();
    }
    if (rest[0] == u"namespaces" && rest.size() > 1) {
        info.ns = rest[1];
        if (rest.size() > 2 && rest[2] != u"status" && rest[2] != u"finalize") {
            info.namespacedUrl = true;
            rest = rest.mid(2);
        }
    }
    if (rest.size() > 3)
        return plainNotFound();
    info.resource = rest[0];
    if (rest.size() > 1)
        info.name = rest[1];
    if (rest.size() > 2)
        info.subresource = rest[2];
    info.collection = info.name.isEmpty();

    const QByteArray &method = request.method;
    if (method == "GET") {
        if (!info.collection)
            info.verb = legacyWatch ? u"watch"_s : u"get"_s;
        else
            info.verb = (legacyWatch || queryFlag(request, u"watch"_s)) ? u"watch"_s : u"list"_s;
    } else if (method == "POST") {
        info.verb = u"create"_s;
    } else if (method == "PUT") {
        info.verb = u"update"_s;
    } else if (method == "PATCH") {
        info.verb = u"patch"_s;
    } else if (method == "DELETE") {
        info.verb = info.collection ? u"deletecollection"_s : u"delete"_s;
    } else {
        return plainNotFound();
    }

    // Authorization (RBAC as configured for the embedded cluster).
    const QStringList &groups = request.user.groups;
    const bool admin = groups.contains(u"system:masters"_s);
    const bool viewer = groups.contains(u"reconscope:viewers"_s);
    const bool readVerb = info.verb == u"get" || info.verb == u"list" || info.verb == u"watch";
    if (!admin && !(viewer && readVerb)) {
        const QString resource
            = info.subresource.isEmpty() ? info.resource : info.resource + u'/' + info.subresource;
        const QString scope = info.ns.isEmpty() ? u"at the cluster scope"_s
                                                : u"in the namespace \"%1\""_s.arg(info.ns);
        const QString cause = u"User \"%1\" cannot %2 resource \"%3\" in API group \"%4\" %5"_s.arg(
            request.user.name, info.verb, resource, info.group, scope);
        return errorResponse(request,
                             ApiError::forbidden(info.group, info.resource, info.name, cause));
    }
    return handleResource(request, info);
}

ApiResponse ApiServer::handleNonResource(const ApiRequest &request, const QStringList &parts)
{
    if (request.method != "GET")
        return plainNotFound();
    Cluster &cluster = *m_cluster;
    const QString first = parts.value(0);
    if (parts.size() == 1 && (first == u"healthz" || first == u"livez" || first == u"readyz"))
        return textResponse(200, "ok");
    if (parts.size() == 1 && first == u"version")
        return jsonResponse(request, 200, versionInfo());
    const QList<ResourceType> types = cluster.servedTypes();
    if (first == u"api" && parts.size() == 1) {
        if (wantsAggregatedDiscovery(request)) {
            ApiResponse response = jsonResponse(request, 200, aggregatedDiscovery(types, true));
            response.contentType = kAggregatedDiscovery;
            return response;
        }
        return jsonResponse(request, 200, apiVersions());
    }
    if (first == u"api" && parts.size() == 2) {
        if (parts[1] != u"v1")
            return plainNotFound();
        return jsonResponse(request, 200, apiResourceList(u"v1"_s, types));
    }
    if (first == u"apis" && parts.size() == 1) {
        if (wantsAggregatedDiscovery(request)) {
            ApiResponse response = jsonResponse(request, 200, aggregatedDiscovery(types, false));
            response.contentType = kAggregatedDiscovery;
            return response;
        }
        return jsonResponse(request, 200, apiGroupList(types));
    }
    auto served = [&](const QString &group, const QString &version) {
        return std::any_of(types.begin(), types.end(), [&](const ResourceType &type) {
            return !group.isEmpty() && type.group == group
                && (version.isEmpty() || type.version == version);
        });
    };
    if (first == u"apis" && parts.size() == 2) {
        if (!served(parts[1], {}))
            return plainNotFound();
        return jsonResponse(request, 200, apiGroup(parts[1], types));
    }
    if (first == u"apis" && parts.size() == 3) {
        if (!served(parts[1], parts[2]))
            return plainNotFound();
        return jsonResponse(request, 200, apiResourceList(parts[1] + u'/' + parts[2], types));
    }
    if (first == u"openapi") {
        if (parts.size() == 2 && parts[1] == u"v2")
            return jsonResponse(request, 200, openApiV2(types));
        if (parts.size() == 2 && parts[1] == u"v3")
            return jsonResponse(request, 200, openApiV3Index(types));
        if (parts.size() == 4 && parts[1] == u"v3" && parts[2] == u"api" && parts[3] == u"v1")
            return jsonResponse(request, 200, openApiV3Document(u"v1"_s, types));
        if (parts.size() == 5 && parts[1] == u"v3" && parts[2] == u"apis"
            && served(parts[3], parts[4]))
            return jsonResponse(request, 200, openApiV3Document(parts[3] + u'/' + parts[4], types));
    }
    return plainNotFound();
}

ApiResponse ApiServer::handleResource(const ApiRequest &request, const RequestInfo &info)
{
    Cluster &cluster = *m_cluster;
    Cluster::TypePtr type = cluster.lookup(info.group, info.version, info.resource);
    if (!type)
        return plainNotFound();
    const ResourceType &rt = type->type;
    const bool namespaceObject = rt.builtin && rt.group.isEmpty() && rt.plural == u"namespaces";
    // Scope: namespaced kinds need /namespaces/{ns}/ except for list/watch across namespaces;
    // cluster-scoped kinds never take one.
    QString ns = info.ns;
    if (namespaceObject) {
        if (info.namespacedUrl)
            return plainNotFound();
        ns.clear();
    } else if (rt.namespaced) {
        if (!info.namespacedUrl) {
            if (!info.collection || (info.verb != u"list" && info.verb != u"watch"))
                return plainNotFound();
        }
    } else if (info.namespacedUrl) {
        return plainNotFound();
    }

    if (!info.subresource.isEmpty()) {
        const bool known = (info.subresource == u"status" && rt.statusSubresource)
            || (info.subresource == u"scale" && rt.scaleSubresource);
        if (!known) {
            if (rt.builtin)
                return plainNotFound();
            return errorResponse(request, ApiError::notFound(rt.group, rt.plural, info.name));
        }
        if (info.verb != u"get" && info.verb != u"update" && info.verb != u"patch")
            return errorResponse(request,
                                 ApiError::methodNotSupported(rt.group, rt.plural, info.verb));
        if (info.subresource == u"scale")
            return handleScale(request, info, type);
    }
    if (info.collection && (info.verb == u"update" || info.verb == u"patch"))
        return errorResponse(request, ApiError::methodNotSupported(rt.group, rt.plural, info.verb));
    if (!info.collection && info.verb == u"create")
        return errorResponse(request, ApiError::methodNotSupported(rt.group, rt.plural, info.verb));

    const bool status = info.subresource == u"status";
    const QDateTime now = QDateTime::currentDateTimeUtc();

    // --- reads ---
    if (info.verb == u"get") {
        auto record = cluster.getRecord(*type, ns, info.name);
        if (!record)
            return errorResponse(request, record.error());
        if (wantsTable(request)) {
            const json object = cluster.parseRecord(*type, *record);
            ApiResponse response
                = jsonResponse(request,
                               200,
                               renderTable(rt,
                                           { &object },
                                           json{ { "resourceVersion",
                                                   std::to_string((*record)->resourceVersion) } },
                                           queryValue(request, u"includeObject"_s),
                                           now));
            response.contentType = kTableContentType;
            return response;
        }
        return rawResponse(request, 200, cluster.renderRecord(*type, *record));
    }
    if (info.verb == u"list" || info.verb == u"watch") {
        const bool watch = info.verb == u"watch";
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
                forbidden(
                    u"resourceVersionMatch"_s,
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
            return errorResponse(request, optionsInvalid(u"ListOptions"_s, errors));

        if (watch) {
            WatchOptions options;
            options.labelSelector = queryValue(request, u"labelSelector"_s);
            options.fieldSelector = queryValue(request, u"fieldSelector"_s);
            if (!info.name.isEmpty()) { // legacy /watch/.../{name}
                const QString byName = u"metadata.name="_s + info.name;
                options.fieldSelector = options.fieldSelector.isEmpty()
                    ? byName
                    : options.fieldSelector + u',' + byName;
            }
            options.resourceVersion = rv;
            options.allowBookmarks = queryFlag(request, u"allowWatchBookmarks"_s);
            if (hasSendInitial)
                options.sendInitialEvents = queryFlag(request, u"sendInitialEvents"_s);
            if (wantsTable(request))
                options.tableIncludeObject = queryValue(request, u"includeObject"_s);
            if (request.query.hasQueryItem(u"timeoutSeconds"_s)) {
                const auto timeout = parseInteger(queryValue(request, u"timeoutSeconds"_s));
                if (!timeout)
                    return errorResponse(request,
                                         ApiError::badRequest(u"invalid timeoutSeconds"_s));
                options.timeoutSeconds = int(std::clamp<qint64>(*timeout, 0, 24 * 3600));
            }
            auto stream = cluster.doWatch(type, ns, options);
            if (!stream)
                return errorResponse(request, stream.error());
            ApiResponse response;
            response.watch = *stream;
            return response;
        }

        ListOptions options;
        options.labelSelector = queryValue(request, u"labelSelector"_s);
        options.fieldSelector = queryValue(request, u"fieldSelector"_s);
        options.resourceVersion = rv;
        options.resourceVersionMatch = match;
        options.continueToken = continueToken;
        if (request.query.hasQueryItem(u"limit"_s)) {
            const auto limit = parseInteger(queryValue(request, u"limit"_s));
            if (!limit)
                return errorResponse(request, ApiError::badRequest(u"invalid limit"_s));
            options.limit = *limit;
        }
        auto page = cluster.listRecords(*type, ns, options);
        if (!page)
            return errorResponse(request, page.error());
        if (wantsTable(request)) {
            std::vector<json> objects;
            objects.reserve(page->items.size());
            for (const RecordPtr &record : page->items)
                objects.push_back(cluster.parseRecord(*type, record));
            std::vector<const json *> pointers;
            for (const json &object : objects)
                pointers.push_back(&object);
            json metadata = { { "resourceVersion", std::to_string(page->resourceVersion) } };
            if (!page->continueToken.isEmpty())
                metadata["continue"] = page->continueToken.toStdString();
            if (page->remainingItemCount)
                metadata["remainingItemCount"] = *page->remainingItemCount;
            ApiResponse response = jsonResponse(
                request,
                200,
                renderTable(rt, pointers, metadata, queryValue(request, u"includeObject"_s), now));
            response.contentType = kTableContentType;
            return response;
        }
        // The list body, assembled from the stored bytes (keys in sorted order as upstream's
        // unstructured encoder writes them).
        QByteArray head;
        head.append("{\"apiVersion\":\"")
            .append(rt.groupVersion().toUtf8())
            .append("\",\"items\":[");
        QByteArray tail;
        tail.append("],\"kind\":\"").append(rt.listKind.toUtf8()).append("\",\"metadata\":{");
        if (!rt.builtin || !page->continueToken.isEmpty())
            tail.append("\"continue\":\"").append(page->continueToken.toLatin1()).append("\",");
        if (page->remainingItemCount)
            tail.append("\"remainingItemCount\":")
                .append(QByteArray::number(*page->remainingItemCount))
                .append(',');
        tail.append("\"resourceVersion\":\"")
            .append(QByteArray::number(page->resourceVersion))
            .append("\"}}");
        if (m_streamLists && !wantsPretty(request)) {
            // Streamed as the socket drains (as kube-apiserver 1.33 streams a JSON list item by
            // item): the pieces share the records' bytes, so the snapshot stays consistent and
            // nothing is concatenated before the first byte.
            ApiResponse response;
            response.status = 200;
            response.body = std::move(head);
            response.bodyPieces.reserve(qsizetype(page->items.size()) * 2 + 1);
            static const QByteArray comma = QByteArrayLiteral(",");
            // What renderRecord() checks, built once: a record stored at the served version is
            // sent as it is stored (its bytes shared, not copied).
            const QByteArray served = "{\"apiVersion\":\"" + rt.groupVersion().toUtf8() + '"';
            bool first = true;
            for (const RecordPtr &record : page->items) {
                if (!first)
                    response.bodyPieces.append(comma);
                first = false;
                if (record->json.startsWith(served))
                    response.bodyPieces.append(record->json);
                else
                    response.bodyPieces.append(cluster.renderRecord(*type, record));
            }
            tail.append('\n');
            response.bodyPieces.append(std::move(tail));
            return response;
        }
        qsizetype size = head.size() + tail.size();
        for (const RecordPtr &record : page->items)
            size += record->json.size() + 1;
        QByteArray body;
        body.reserve(size);
        body.append(head);
        bool first = true;
        for (const RecordPtr &record : page->items) {
            if (!first)
                body.append(',');
            first = false;
            body.append(cluster.renderRecord(*type, record));
        }
        body.append(tail);
        return rawResponse(request, 200, std::move(body));
    }

    // --- writes ---
    if (info.verb == u"delete" || info.verb == u"deletecollection") {
        DeleteOptions options;
        QStringList dryRun = request.query.allQueryItemValues(u"dryRun"_s, QUrl::FullyDecoded);
        QList<FieldError> errors;
        bool propagationSet = request.query.hasQueryItem(u"propagationPolicy"_s);
        options.propagationPolicy = queryValue(request, u"propagationPolicy"_s);
        if (request.query.hasQueryItem(u"orphanDependents"_s))
            options.orphanDependents = queryFlag(request, u"orphanDependents"_s);
        if (!request.body.trimmed().isEmpty()) {
            auto body = parseBody(request, true);
            if (!body)
                return errorResponse(request, body.error());
            if (!body->is_object())
                return errorResponse(
                    request,
                    ApiError::badRequest(u"the body of the request must be DeleteOptions"_s));
            const json &policy = objectjson::member(*body, "propagationPolicy");
            if (policy.is_string()) {
                propagationSet = true;
                options.propagationPolicy = QString::fromStdString(policy.get<std::string>());
            }
            const json &orphan = objectjson::member(*body, "orphanDependents");
            if (orphan.is_boolean())
                options.orphanDependents = orphan.get<bool>();
            const json &preconditions = objectjson::member(*body, "preconditions");
            options.preconditionUid = objectjson::string(preconditions, "uid");
            options.preconditionResourceVersion
                = objectjson::string(preconditions, "resourceVersion");
            const QStringList bodyDryRun = objectjson::strings(objectjson::member(*body, "dryRun"));
            if (!bodyDryRun.isEmpty())
                dryRun = bodyDryRun;
        }
        if (propagationSet && options.orphanDependents)
            errors.append(
                { u"FieldValueInvalid"_s,
                  u"propagationPolicy"_s,
                  u"Invalid value: \"%1\": orphanDependents and deletionPropagation cannot be both set"_s
                      .arg(options.propagationPolicy) });
        if (propagationSet && options.propagationPolicy != u"Foreground"
            && options.propagationPolicy != u"Background" && options.propagationPolicy != u"Orphan")
            errors.append(
                { u"FieldValueNotSupported"_s,
                  u"propagationPolicy"_s,
                  u"Unsupported value: \"%1\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""_s
                      .arg(options.propagationPolicy) });
        errors.append(validateDryRun(dryRun));
        if (!errors.isEmpty())
            return errorResponse(request, optionsInvalid(u"DeleteOptions"_s, errors));
        options.dryRun = !dryRun.isEmpty();
        if (info.verb == u"deletecollection") {
            ListOptions listOptions;
            listOptions.labelSelector = queryValue(request, u"labelSelector"_s);
            listOptions.fieldSelector = queryValue(request, u"fieldSelector"_s);
            auto result = cluster.doDeleteCollection(type, ns, listOptions, options);
            if (!result)
                return errorResponse(request, result.error());
            return jsonResponse(request, 200, *result);
        }
        auto result = cluster.doDelete(type, ns, info.name, options);
        if (!result)
            return errorResponse(request, result.error());
        int code = 200;
        if (result->object.value("kind", "") != "Status" && options.orphanDependents
            && !*options.orphanDependents)
            code = 202;
        if (result->object.value("kind", "") == "Status") {
            // Keep upstream's Status field order.
            nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
            for (const char *key : { "kind", "apiVersion", "metadata", "status" })
                ordered[key] = result->object[key];
            nlohmann::ordered_json details = nlohmann::ordered_json::object();
            for (const char *key : { "name", "group", "kind", "uid" }) {
                if (result->object["details"].contains(key))
                    details[key] = result->object["details"][key];
            }
            ordered["details"] = details;
            return orderedResponse(request, code, ordered);
        }
        return jsonResponse(request, code, result->object);
    }

    const QString optionsKind = info.verb == u"create" ? u"CreateOptions"_s
        : info.verb == u"update"                       ? u"UpdateOptions"_s
                                                       : u"PatchOptions"_s;
    if (info.verb == u"patch") {
        QByteArray contentType = request.header("content-type");
        contentType = contentType
                          .left(contentType.indexOf(';') < 0 ? contentType.size()
                                                             : contentType.indexOf(';'))
                          .trimmed();
        PatchType patchType;
        if (contentType == "application/json-patch+json") {
            patchType = PatchType::Json;
        } else if (contentType == "application/merge-patch+json") {
            patchType = PatchType::Merge;
        } else {
            // Strategic merge patch is for built-in Go types only; server-side apply is not
            // implemented (documented divergence): both are answered like an unknown format.
            return errorResponse(
                request,
                ApiError::unsupportedMediaType(
                    u"the body of the request was in an unknown format - accepted media types "
                    u"include: "
                    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"_s));
        }
        WriteOptions options;
        if (auto error = parseWriteOptions(request, optionsKind, options))
            return errorResponse(request, *error);
        options.returnObject = false;
        auto result
            = cluster.doPatch(type, ns, info.name, patchType, request.body, status, options);
        if (!result)
            return errorResponse(request, result.error());
        ApiResponse response = writeResponse(request, 200, *result);
        addWarnings(response, result->warnings);
        return response;
    }

    WriteOptions options;
    if (auto error = parseWriteOptions(request, optionsKind, options))
        return errorResponse(request, *error);
    options.returnObject = false;
    auto body = parseBody(request, rt.builtin);
    if (!body)
        return errorResponse(request, body.error());
    auto result = info.verb == u"create"
        ? cluster.doCreate(type, ns, std::move(*body), options)
        : cluster.doUpdate(type, ns, info.name, std::move(*body), status, options);
    if (!result)
        return errorResponse(request, result.error());
    ApiResponse response = writeResponse(request, result->httpStatus, *result);
    addWarnings(response, result->warnings);
    return response;
}

ApiResponse ApiServer::handleScale(const ApiRequest &request,
                                   const RequestInfo &info,
                                   const std::shared_ptr<const Cluster::TypeEntry> &type)
{
    Cluster &cluster = *m_cluster;
    const ResourceType &rt = type->type;
    const QString ns = rt.namespaced ? info.ns : QString();
    auto record = cluster.getRecord(*type, ns, info.name);
    if (!record)
        return errorResponse(request, record.error());
    auto toScale = [&](const json &object) {
        const json &metadata = object["metadata"];
        json scaleMetadata = json::object();
        for (const char *key :
             { "name", "namespace", "uid", "resourceVersion", "creationTimestamp" }) {
            if (metadata.contains(key))
                scaleMetadata[key] = metadata[key];
        }
        json scale = { { "kind", "Scale" },
                       { "apiVersion", "autoscaling/v1" },
                       { "metadata", scaleMetadata } };
        const json *specReplicas = valueAt(object, rt.specReplicasPath);
        scale["spec"]
            = { { "replicas",
                  specReplicas && specReplicas->is_number_integer() ? *specReplicas : json(0) } };
        const json *statusReplicas = valueAt(object, rt.statusReplicasPath);
        scale["status"] = {
            { "replicas",
              statusReplicas && statusReplicas->is_number_integer() ? *statusReplicas : json(0) }
        };
        if (!rt.labelSelectorPath.isEmpty()) {
            const json *selector = valueAt(object, rt.labelSelectorPath);
            if (selector && selector->is_string())
                scale["status"]["selector"] = *selector;
        }
        return scale;
    };
    json object = cluster.parseRecord(*type, *record);
    if (info.verb == u"get")
        return jsonResponse(request, 200, toScale(object));

    WriteOptions options;
    if (auto error = parseWriteOptions(
            request, info.verb == u"update" ? u"UpdateOptions"_s : u"PatchOptions"_s, options))
        return errorResponse(request, *error);
    json scale;
    if (info.verb == u"update") {
        auto body = parseBody(request, true);
        if (!body)
            return errorResponse(request, body.error());
        scale = std::move(*body);
    } else {
        QByteArray contentType = request.header("content-type");
        contentType = contentType
                          .left(contentType.indexOf(';') < 0 ? contentType.size()
                                                             : contentType.indexOf(';'))
                          .trimmed();
        const json patch
            = json::parse(request.body.constBegin(), request.body.constEnd(), nullptr, false);
        if (patch.is_discarded())
            return errorResponse(request,
                                 ApiError::badRequest(u"error decoding patch: invalid JSON"_s));
        scale = toScale(object);
        if (contentType == "application/merge-patch+json") {
            scale.merge_patch(patch);
        } else if (contentType == "application/json-patch+json") {
            auto applied = objectjson::applyJsonPatch(scale, patch);
            if (!applied)
                return errorResponse(request, ApiError::unprocessableGeneric());
            scale = std::move(*applied);
        } else {
            return errorResponse(
                request,
                ApiError::unsupportedMediaType(
                    u"the body of the request was in an unknown format - accepted media types "
                    u"include: "
                    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"_s));
        }
    }
    const json &replicas = objectjson::member(objectjson::member(scale, "spec"), "replicas");
    if (!replicas.is_number_integer() || replicas.get<qint64>() < 0)
        return errorResponse(
            request,
            ApiError::invalid(u"autoscaling"_s,
                              u"Scale"_s,
                              info.name,
                              { { u"FieldValueInvalid"_s,
                                  u"spec.replicas"_s,
                                  u"Invalid value: %1: must be greater than or equal to 0"_s.arg(
                                      QString::fromStdString(replicas.dump())) } }));
    const QString scaleRv
        = objectjson::string(objectjson::member(scale, "metadata"), "resourceVersion");
    if (!scaleRv.isEmpty() && scaleRv != QString::number((*record)->resourceVersion))
        return errorResponse(request, ApiError::modified(rt.group, rt.plural, info.name));
    json *target = &object;
    const QStringList keys = pathKeys(rt.specReplicasPath);
    for (const QString &key : keys)
        target = &(*target)[key.toStdString()];
    *target = replicas;
    auto result = cluster.doUpdate(type, ns, info.name, std::move(object), false, options);
    if (!result)
        return errorResponse(request, result.error());
    return jsonResponse(request, 200, toScale(result->object));
}

} // namespace reconscope::controller::cluster
