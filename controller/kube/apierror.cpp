#include "controller/kube/apierror.h"

#include <algorithm>

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

namespace {

QString stringField(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return {};
    return QString::fromStdString(it->get<std::string>());
}

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

bool ApiError::fromStatusJson(const nlohmann::json &status, ApiError *out)
{
    if (!status.is_object() || stringField(status, "kind") != u"Status")
        return false;
    ApiError error;
    error.category = Category::Status;
    if (const auto it = status.find("code"); it != status.end() && it->is_number_integer())
        error.code = it->get<int>();
    error.reason = stringField(status, "reason");
    error.message = stringField(status, "message");
    if (const auto it = status.find("details"); it != status.end() && it->is_object()) {
        error.name = stringField(*it, "name");
        error.group = stringField(*it, "group");
        error.kind = stringField(*it, "kind");
        if (const auto retry = it->find("retryAfterSeconds");
            retry != it->end() && retry->is_number_integer())
            error.retryAfterSeconds = std::max(0, retry->get<int>());
        if (const auto causes = it->find("causes"); causes != it->end() && causes->is_array()) {
            for (const auto &cause : *causes) {
                error.causes.append(StatusCause{ stringField(cause, "reason"),
                                                 stringField(cause, "message"),
                                                 stringField(cause, "field") });
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

} // namespace reconscope::controller::kube
