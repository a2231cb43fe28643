#include "controller/cluster/handlers/handlersupport.h"

#include "controller/cluster/handlers/protobufbody.h"
#include "controller/cluster/objectjson.h"
#include "controller/cluster/schema/gofmt.h"
#include "controller/cluster/yamldocuments.h"
#include "models/gojson.h"
#include "models/objectyaml.h"

#include <algorithm>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace reconscope::controller::cluster {

using apimachinery::ApiError;
using apimachinery::ApiResult;
using apimachinery::PatchType;

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

ApiResponse writeAnswer(const ApiRequest &request, const ApiResult<WriteResult> &result)
{
    if (!result)
        return errorResponse(request, result.error());
    ApiResponse response = writeResponse(request, result->httpStatus, *result);
    addWarnings(response, result->warnings);
    return response;
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

bool wantsYaml(const ApiRequest &request)
{
    struct Range
    {
        QByteArray type;
        double q = 1;
    };
    QList<Range> ranges;
    for (const QByteArray &clause : request.header("accept").split(',')) {
        const QList<QByteArray> params = clause.split(';');
        Range range{ params.first().trimmed().toLower(), 1 };
        for (qsizetype i = 1; i < params.size(); ++i) {
            const QByteArray param = params[i].trimmed();
            if (param.startsWith("q="))
                range.q = param.mid(2).toDouble();
        }
        if (!range.type.isEmpty() && range.q > 0)
            ranges.append(range);
    }
    std::stable_sort(
        ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.q > b.q; });
    for (const Range &range : std::as_const(ranges)) {
        if (range.type == "application/yaml")
            return true;
        if (range.type == "application/json" || range.type == "application/vnd.kubernetes.protobuf"
            || range.type == "*/*" || range.type == "application/*")
            return false;
    }
    return false;
}

ApiResponse yamlResponse(ApiResponse response)
{
    if (response.watch || response.contentType != "application/json")
        return response;
    const QByteArray body = response.flatBody();
    const json parsed = json::parse(body.constBegin(), body.constEnd(), nullptr, false);
    if (parsed.is_discarded())
        return response;
    response.body = models::jsonToYaml(parsed);
    response.bodyPieces.clear();
    response.contentType = "application/yaml";
    return response;
}

// Options kinds name the 422s of option validation: "CreateOptions.meta.k8s.io "" is invalid".
ApiError optionsInvalid(const QString &kind, const QList<FieldError> &errors)
{
    return invalidError(u"meta.k8s.io"_s, kind, {}, errors);
}

QList<FieldError> validateDryRun(const QStringList &values)
{
    for (const QString &value : values) {
        if (value != u"All") {
            // field.Error prints a []string as json.Marshal writes it.
            json list = json::array();
            for (const QString &v : values)
                list.push_back(v.toStdString());
            return { { u"FieldValueNotSupported"_s,
                       u"dryRun"_s,
                       u"Unsupported value: %1: supported values: \"All\""_s.arg(
                           gofmt::marshal(list)) } };
        }
    }
    return {};
}

std::optional<ApiError> parseWriteOptions(const ApiRequest &request,
                                          const QString &optionsKind,
                                          WriteOptions &options,
                                          std::optional<PatchType> patchType)
{
    QList<FieldError> errors;
    options.userAgent = QString::fromUtf8(request.header("user-agent"));
    if (patchType) {
        // ValidatePatchOptions: force only with apply, which needs a fieldManager.
        const bool forceGiven = request.query.hasQueryItem(u"force"_s);
        options.force = forceGiven && queryFlag(request, u"force"_s);
        if (*patchType != PatchType::Apply && forceGiven)
            errors.append({ u"FieldValueForbidden"_s,
                            u"force"_s,
                            u"Forbidden: may not be specified for non-apply patch"_s });
        if (*patchType == PatchType::Apply && queryValue(request, u"fieldManager"_s).isEmpty())
            errors.append({ u"FieldValueRequired"_s,
                            u"fieldManager"_s,
                            u"Required value: is required for apply patch"_s });
    }
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

namespace {

// handlers/rest.go's summarizeData: what a decode error quotes of the body, at most `maxLength`
// bytes, as text when it looks like JSON, else in hex.
QString summarizeBody(const QByteArray &body, qsizetype maxLength = 30)
{
    if (body.isEmpty())
        return u"<empty>"_s;
    const QByteArray excerpt = body.left(maxLength);
    const QString more = body.size() > maxLength ? u" ..."_s : QString();
    if (body.front() == '{')
        return QString::fromUtf8(excerpt) + more;
    return QString::fromLatin1(excerpt.toHex()) + more;
}

// handlers/rest.go's transformDecodeError for a body whose kind could not be read.
ApiError unrecognizedBody(const ApiRequest &request, const QString &kind, const QString &error)
{
    if (kind.isEmpty())
        return ApiError::badRequest(error);
    return ApiError::badRequest(
        u"the object provided is unrecognized (must be of type %1): %2 (%3)"_s.arg(
            kind, error, summarizeBody(request.body)));
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

} // namespace

models::Result<json, ApiError>
parseBody(const ApiRequest &request, bool protobuf, const QString &decodeKind)
{
    const QByteArray mediaType = bodyMediaType(request);
    const auto unrecognized = [&](const QString &error) {
        return unrecognizedBody(request, decodeKind, error);
    };
    if (protobuf && mediaType == "application/vnd.kubernetes.protobuf") {
        if (const auto error = protobufPrefixError(request.body))
            return unrecognized(*error);
        return protobufBodyToJson(request.body, decodeKind);
    }
    if (mediaType != "application/json" && mediaType != "application/yaml") {
        return ApiError::unsupportedMediaType(
            u"the body of the request was in an unknown format - accepted media types include: "
            u"application/json, application/yaml"_s
            + (protobuf ? u", application/vnd.kubernetes.protobuf"_s : QString()));
    }
    const auto decodeError = [&](const QString &error) {
        return unrecognized(u"couldn't get version/kind; json parse error: "_s + error);
    };
    if (mediaType == "application/yaml") {
        auto documents = yamlDocumentsToJson(request.body);
        if (!documents || documents->size() != 1)
            return ApiError::badRequest(
                u"couldn't get version/kind; json parse error: invalid YAML in the request body"_s);
        return documents->first();
    }
    // meta.go's findKind: json.Unmarshal into the struct of apiVersion and kind.
    if (const auto error
        = models::goUnmarshalError(request.body,
                                   "object",
                                   R"(struct { APIVersion string "json:\"apiVersion,omitempty\""; )"
                                   R"(Kind string "json:\"kind,omitempty\"" })"))
        return decodeError(QString::fromStdString(*error));
    json body = json::parse(request.body.constBegin(), request.body.constEnd(), nullptr, false);
    if (body.is_discarded() && !QUtf8StringView(request.body).isValidUtf8()) {
        const QByteArray replaced = replaceInvalidUtf8(request.body);
        body = json::parse(replaced.constBegin(), replaced.constEnd(), nullptr, false);
    }
    if (body.is_discarded()) // valid to Go, refused by nlohmann's reader
        return decodeError(u"the body is JSON this server cannot read"_s);
    return body;
}

models::Result<qint64, ApiError> parseQueryInteger(const QString &text)
{
    // strconv.Quote of the text, for the printable ASCII that query values mostly are.
    QString quoted = text;
    quoted.replace(u'\\', u"\\\\"_s).replace(u'"', u"\\\""_s);
    const auto refused = [&](const char *why) {
        return ApiError::badRequest(
            u"strconv.ParseInt: parsing \"%1\": %2"_s.arg(quoted, QLatin1String(why)));
    };
    qsizetype digits = text.startsWith(u'+') || text.startsWith(u'-') ? 1 : 0;
    if (digits == text.size())
        return refused("invalid syntax");
    for (qsizetype i = digits; i < text.size(); ++i) {
        if (text[i] < u'0' || text[i] > u'9')
            return refused("invalid syntax");
    }
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok)
        return refused("value out of range");
    return value;
}

models::Result<json, ApiError> parseWriteRequest(const ApiRequest &request,
                                                 const QString &optionsKind,
                                                 const ResourceType &type,
                                                 WriteOptions &options)
{
    if (auto error = parseWriteOptions(request, optionsKind, options))
        return *error;
    options.returnObject = false;
    auto body = parseBody(request, type.builtin, type.kind);
    // The unstructured decoder of custom resources requires a kind (built-in kinds default it),
    // and quotes the JSON it decoded: the request's bytes, or what a YAML body became.
    if (body && !type.builtin && body->is_object() && objectjson::string(*body, "kind").isEmpty()) {
        const QString decoded = bodyMediaType(request) == "application/json"
            ? QString::fromUtf8(request.body)
            : QString::fromUtf8(objectjson::dump(*body));
        return unrecognizedBody(
            request, type.kind, u"Object 'Kind' is missing in '%1'"_s.arg(decoded));
    }
    return body;
}

models::Result<PatchType, ApiError> patchTypeOf(const ApiRequest &request, bool builtin, bool apply)
{
    QByteArray contentType = request.header("content-type");
    contentType
        = contentType
              .left(contentType.indexOf(';') < 0 ? contentType.size() : contentType.indexOf(';'))
              .trimmed();
    for (const PatchType type :
         { PatchType::Json, PatchType::Merge, PatchType::Strategic, PatchType::Apply }) {
        if (contentType == apimachinery::patchMediaType(type)
            && (builtin || type != PatchType::Strategic) && (apply || type != PatchType::Apply))
            return type;
    }
    // The lists of kube-apiserver's installer and of apiextensions-apiserver's CR handler.
    return ApiError::unsupportedMediaType(
        u"the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "_s
        + (builtin ? u"application/strategic-merge-patch+json, "_s : QString())
        + u"application/apply-patch+yaml"_s);
}

} // namespace reconscope::controller::cluster
