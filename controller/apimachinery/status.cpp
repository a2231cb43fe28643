#include "controller/apimachinery/status.h"
#include "models/jsonfields.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include <QStringList>

using namespace Qt::StringLiterals;

namespace reconscope::controller::apimachinery {

namespace {

QString defaultReason(int code)
{
    switch (code) {
    case 400:
        return u"BadRequest"_s;
    case 401:
        return u"Unauthorized"_s;
    case 403:
        return u"Forbidden"_s;
    case 404:
        return u"NotFound"_s;
    case 405:
        return u"MethodNotAllowed"_s;
    case 406:
        return u"NotAcceptable"_s;
    case 409:
        return u"Conflict"_s;
    case 410:
        return u"Expired"_s;
    case 413:
        return u"RequestEntityTooLarge"_s;
    case 415:
        return u"UnsupportedMediaType"_s;
    case 422:
        return u"Invalid"_s;
    case 429:
        return u"TooManyRequests"_s;
    case 500:
        return u"InternalError"_s;
    case 503:
        return u"ServiceUnavailable"_s;
    case 504:
        return u"Timeout"_s;
    default:
        return {};
    }
}

QString qualified(const QString &group, const QString &name)
{
    return group.isEmpty() ? name : name + u'.' + group;
}

// A Status error with the details upstream's constructors give (group, kind, name).
ApiError statusError(int code, const QString &reason, const QString &message)
{
    ApiError error;
    error.code = code;
    error.reason = reason;
    error.message = message;
    return error;
}

ApiError statusError(int code,
                     const QString &reason,
                     const QString &message,
                     const QString &group,
                     const QString &kind,
                     const QString &name)
{
    ApiError error = statusError(code, reason, message);
    error.group = group;
    error.kind = kind;
    error.name = name;
    error.hasDetails = true;
    return error;
}

void setIfNotEmpty(nlohmann::ordered_json &object, const char *key, const QString &value)
{
    if (!value.isEmpty())
        object[key] = value.toStdString();
}

} // namespace

bool ApiError::isTransient() const
{
    switch (category) {
    case Category::Network:
        return true;
    case Category::Status:
    case Category::Http:
        return code == 429 || code == 500 || code == 502 || code == 503 || code == 504;
    default:
        return false;
    }
}

QString ApiError::toString() const
{
    QString head;
    switch (category) {
    case Category::Status:
    case Category::Http:
        head = reason.isEmpty() ? u"HTTP %1"_s.arg(code) : u"%1 (%2)"_s.arg(reason).arg(code);
        break;
    case Category::Network:
        head = u"network error"_s;
        break;
    case Category::Tls:
        head = u"TLS error"_s;
        break;
    case Category::Decode:
        head = u"unexpected response"_s;
        break;
    case Category::Auth:
        head = u"authentication failed"_s;
        break;
    case Category::Cancelled:
        head = u"cancelled"_s;
        break;
    }
    return message.isEmpty() ? head : head + u": "_s + message;
}

nlohmann::ordered_json ApiError::toStatus() const
{
    nlohmann::ordered_json status = nlohmann::ordered_json::object();
    status["kind"] = "Status";
    status["apiVersion"] = "v1";
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    setIfNotEmpty(metadata, "continue", continueToken);
    status["metadata"] = std::move(metadata);
    status["status"] = "Failure";
    setIfNotEmpty(status, "message", message);
    setIfNotEmpty(status, "reason", reason);
    if (hasDetails || !name.isEmpty() || !group.isEmpty() || !kind.isEmpty() || !uid.isEmpty()
        || !causes.isEmpty() || retryAfterSeconds != 0) {
        nlohmann::ordered_json details = nlohmann::ordered_json::object();
        setIfNotEmpty(details, "name", name);
        setIfNotEmpty(details, "group", group);
        setIfNotEmpty(details, "kind", kind);
        setIfNotEmpty(details, "uid", uid);
        if (!causes.isEmpty()) {
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            for (const StatusCause &cause : causes) {
                nlohmann::ordered_json entry = nlohmann::ordered_json::object();
                setIfNotEmpty(entry, "reason", cause.reason);
                setIfNotEmpty(entry, "message", cause.message);
                setIfNotEmpty(entry, "field", cause.field);
                list.push_back(std::move(entry));
            }
            details["causes"] = std::move(list);
        }
        if (retryAfterSeconds != 0)
            details["retryAfterSeconds"] = retryAfterSeconds;
        status["details"] = std::move(details);
    }
    status["code"] = code;
    return status;
}

bool ApiError::fromStatusJson(const nlohmann::json &status, ApiError *out)
{
    if (!status.is_object() || models::jsonString(status, "kind") != u"Status")
        return false;
    ApiError error;
    error.category = Category::Status;
    if (const auto it = status.find("code"); it != status.end() && it->is_number_integer())
        error.code = it->get<int>();
    error.reason = models::jsonString(status, "reason");
    error.message = models::jsonString(status, "message");
    if (const auto it = status.find("metadata"); it != status.end())
        error.continueToken = models::jsonString(*it, "continue");
    if (const auto it = status.find("details"); it != status.end() && it->is_object()) {
        error.hasDetails = true;
        error.name = models::jsonString(*it, "name");
        error.group = models::jsonString(*it, "group");
        error.kind = models::jsonString(*it, "kind");
        error.uid = models::jsonString(*it, "uid");
        if (const auto retry = it->find("retryAfterSeconds");
            retry != it->end() && retry->is_number_integer())
            error.retryAfterSeconds = std::max(0, retry->get<int>());
        if (const auto causes = it->find("causes"); causes != it->end() && causes->is_array()) {
            for (const auto &cause : *causes) {
                error.causes.append(StatusCause{ models::jsonString(cause, "reason"),
                                                 models::jsonString(cause, "message"),
                                                 models::jsonString(cause, "field") });
            }
        }
    }
    if (error.reason.isEmpty())
        error.reason = defaultReason(error.code);
    *out = std::move(error);
    return true;
}

ApiError ApiError::fromHttp(int code, const QByteArray &contentType, const QByteArray &body)
{
    if (contentType.startsWith("application/json") || body.startsWith('{')) {
        const auto json = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
        ApiError error;
        if (!json.is_discarded() && fromStatusJson(json, &error)) {
            if (error.code == 0)
                error.code = code;
            return error;
        }
    }
    ApiError error;
    error.category = Category::Http;
    error.code = code;
    error.reason = defaultReason(code);
    error.message = QString::fromUtf8(body.left(512)).trimmed();
    return error;
}

ApiError ApiError::make(Category category, QString message, int code)
{
    ApiError error;
    error.category = category;
    error.code = code;
    error.message = std::move(message);
    return error;
}

ApiError ApiError::notFound(const QString &group, const QString &resource, const QString &name)
{
    return statusError(404,
                       u"NotFound"_s,
                       u"%1 \"%2\" not found"_s.arg(qualified(group, resource), name),
                       group,
                       resource,
                       name);
}

ApiError ApiError::alreadyExists(const QString &group, const QString &resource, const QString &name)
{
    return statusError(409,
                       u"AlreadyExists"_s,
                       u"%1 \"%2\" already exists"_s.arg(qualified(group, resource), name),
                       group,
                       resource,
                       name);
}

ApiError ApiError::conflict(const QString &group,
                            const QString &resource,
                            const QString &name,
                            const QString &cause)
{
    return statusError(409,
                       u"Conflict"_s,
                       u"Operation cannot be fulfilled on %1 \"%2\": %3"_s.arg(
                           qualified(group, resource), name, cause),
                       group,
                       resource,
                       name);
}

ApiError ApiError::modified(const QString &group, const QString &resource, const QString &name)
{
    return conflict(
        group,
        resource,
        name,
        u"the object has been modified; please apply your changes to the latest version "
        "and try again"_s);
}

QString aggregateMessage(const QList<StatusCause> &causes)
{
    QStringList parts;
    for (const StatusCause &cause : causes) {
        QString part
            = cause.field.isEmpty() ? cause.message : cause.field + u": "_s + cause.message;
        if (!parts.contains(part)) // field.ErrorList.ToAggregate lists each message once
            parts.append(std::move(part));
    }
    if (parts.size() == 1)
        return parts.first();
    if (parts.isEmpty())
        return {};
    return u'[' + parts.join(u", "_s) + u']';
}

ApiError ApiError::invalid(const QString &group,
                           const QString &kind,
                           const QString &name,
                           const QList<StatusCause> &causes)
{
    const QString aggregate = aggregateMessage(causes);
    QString message = u"%1 \"%2\" is invalid"_s.arg(qualified(group, kind), name);
    if (!aggregate.isEmpty())
        message += u": "_s + aggregate;
    ApiError error = statusError(422, u"Invalid"_s, message, group, kind, name);
    error.causes = causes;
    return error;
}

ApiError ApiError::badRequest(const QString &message)
{
    return statusError(400, u"BadRequest"_s, message);
}

ApiError
ApiError::methodNotSupported(const QString &group, const QString &resource, const QString &action)
{
    return statusError(405,
                       u"MethodNotAllowed"_s,
                       u"%1 is not supported on resources of kind \"%2\""_s.arg(
                           action, qualified(group, resource)),
                       group,
                       resource,
                       {});
}

ApiError ApiError::genericServerResponse(int code, const QString &serverMessage)
{
    QString message = serverMessage;
    if (code == 405)
        message = u"the server does not allow this method on the requested resource"_s;
    else if (code == 404 && message.isEmpty())
        message = u"the server could not find the requested resource"_s;
    ApiError error = statusError(code, defaultReason(code), message);
    error.hasDetails = true;
    return error;
}

ApiError ApiError::expired(const QString &message)
{
    return statusError(410, u"Expired"_s, message);
}

ApiError ApiError::forbidden(const QString &group,
                             const QString &resource,
                             const QString &name,
                             const QString &cause)
{
    QString message;
    if (resource.isEmpty())
        message = u"forbidden: "_s + cause;
    else if (name.isEmpty())
        message = u"%1 is forbidden: %2"_s.arg(qualified(group, resource), cause);
    else
        message = u"%1 \"%2\" is forbidden: %3"_s.arg(qualified(group, resource), name, cause);
    return statusError(403, u"Forbidden"_s, message, group, resource, name);
}

ApiError ApiError::unsupportedMediaType(const QString &message)
{
    return statusError(415, u"UnsupportedMediaType"_s, message);
}

ApiError ApiError::requestEntityTooLarge(const QString &message)
{
    return statusError(413, u"RequestEntityTooLarge"_s, u"Request entity too large: "_s + message);
}

ApiError ApiError::internal(const QString &message)
{
    return statusError(500, {}, message);
}

ApiError ApiError::timeout(const QString &message, int retryAfterSeconds)
{
    ApiError error = statusError(504, u"Timeout"_s, u"Timeout: "_s + message);
    error.causes
        = { StatusCause{ u"ResourceVersionTooLarge"_s, u"Too large resource version"_s, {} } };
    error.retryAfterSeconds = retryAfterSeconds;
    error.hasDetails = true;
    return error;
}

ApiError ApiError::unprocessableGeneric()
{
    ApiError error = statusError(
        422, u"Invalid"_s, u"the server rejected our request due to an error in our request"_s);
    error.hasDetails = true;
    return error;
}

} // namespace reconscope::controller::apimachinery
