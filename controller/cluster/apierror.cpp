#include "controller/cluster/apierror.h"

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

std::string utf8(const QString &s)
{
    return s.toStdString();
}

QString qualified(const QString &group, const QString &name)
{
    return group.isEmpty() ? name : name + u'.' + group;
}

nlohmann::ordered_json detailsFor(const QString &group, const QString &kind, const QString &name)
{
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
    if (!name.isEmpty())
        details["name"] = utf8(name);
    if (!group.isEmpty())
        details["group"] = utf8(group);
    if (!kind.isEmpty())
        details["kind"] = utf8(kind);
    return details;
}

ApiError
make(int code, const QString &reason, const QString &message, nlohmann::ordered_json details = {})
{
    ApiError error;
    error.code = code;
    error.reason = reason;
    error.message = message;
    error.details = std::move(details);
    return error;
}

} // namespace

nlohmann::ordered_json ApiError::toStatus() const
{
    nlohmann::ordered_json status = nlohmann::ordered_json::object();
    status["kind"] = "Status";
    status["apiVersion"] = "v1";
    status["metadata"] = metadata;
    status["status"] = "Failure";
    if (!message.isEmpty())
        status["message"] = utf8(message);
    if (!reason.isEmpty())
        status["reason"] = utf8(reason);
    if (!details.is_null())
        status["details"] = details;
    status["code"] = code;
    return status;
}

ApiError ApiError::notFound(const QString &group, const QString &resource, const QString &name)
{
    return make(404,
                u"NotFound"_s,
                u"%1 \"%2\" not found"_s.arg(qualified(group, resource), name),
                detailsFor(group, resource, name));
}

ApiError ApiError::alreadyExists(const QString &group, const QString &resource, const QString &name)
{
    return make(409,
                u"AlreadyExists"_s,
                u"%1 \"%2\" already exists"_s.arg(qualified(group, resource), name),
                detailsFor(group, resource, name));
}

ApiError ApiError::conflict(const QString &group,
                            const QString &resource,
                            const QString &name,
                            const QString &cause)
{
    return make(409,
                u"Conflict"_s,
                u"Operation cannot be fulfilled on %1 \"%2\": %3"_s.arg(
                    qualified(group, resource), name, cause),
                detailsFor(group, resource, name));
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

ApiError ApiError::invalid(const QString &group,
                           const QString &kind,
                           const QString &name,
                           const QList<FieldError> &errors)
{
    nlohmann::ordered_json details = detailsFor(group, kind, name);
    nlohmann::ordered_json causes = nlohmann::ordered_json::array();
    for (const FieldError &error : errors) {
        nlohmann::ordered_json cause = nlohmann::ordered_json::object();
        cause["reason"] = utf8(error.reason);
        cause["message"] = utf8(error.message);
        cause["field"] = utf8(error.field);
        causes.push_back(std::move(cause));
    }
    details["causes"] = std::move(causes);
    const QString aggregate = formatFieldErrors(errors);
    QString message = u"%1 \"%2\" is invalid"_s.arg(qualified(group, kind), name);
    if (!aggregate.isEmpty())
        message += u": "_s + aggregate;
    return make(422, u"Invalid"_s, message, std::move(details));
}

ApiError ApiError::badRequest(const QString &message)
{
    return make(400, u"BadRequest"_s, message);
}

ApiError
ApiError::methodNotSupported(const QString &group, const QString &resource, const QString &action)
{
    return make(405,
                u"MethodNotAllowed"_s,
                u"%1 is not supported on resources of kind \"%2\""_s.arg(
                    action, qualified(group, resource)),
                detailsFor(group, resource, {}));
}

ApiError ApiError::expired(const QString &message)
{
    return make(410, u"Expired"_s, message);
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
    return make(403, u"Forbidden"_s, message, detailsFor(group, resource, name));
}

ApiError ApiError::unsupportedMediaType(const QString &message)
{
    return make(415, u"UnsupportedMediaType"_s, message);
}

ApiError ApiError::requestEntityTooLarge(const QString &message)
{
    return make(413, u"RequestEntityTooLarge"_s, u"Request entity too large: "_s + message);
}

ApiError ApiError::internal(const QString &message)
{
    return make(500, {}, message);
}

ApiError ApiError::timeout(const QString &message, int retryAfterSeconds)
{
    nlohmann::ordered_json details = nlohmann::ordered_json::object();
    details["causes"]
        = nlohmann::ordered_json::array({ { { "reason", "ResourceVersionTooLarge" },
                                            { "message", "Too large resource version" } } });
    details["retryAfterSeconds"] = retryAfterSeconds;
    return make(504, u"Timeout"_s, u"Timeout: "_s + message, std::move(details));
}

ApiError ApiError::unprocessableGeneric()
{
    return make(422,
                u"Invalid"_s,
                u"the server rejected our request due to an error in our request"_s,
                nlohmann::ordered_json::object());
}

} // namespace reconscope::controller::cluster
