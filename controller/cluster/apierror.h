#pragma once

#include "controller/cluster/resourcetype.h"
#include "controller/cluster/schema/fielderror.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

namespace reconscope::controller::cluster {

// A failed API call as a Kubernetes Status (apimachinery pkg/api/errors): what the handler
// answers over HTTP and what the in-process API returns.
struct ApiError
{
    int code = 500;
    QString reason; // "NotFound", "Conflict", ... empty for StatusReasonUnknown
    QString message;
    // StatusDetails in upstream field order (name, group, kind, uid, causes, retryAfterSeconds);
    // null when the Status carries none.
    nlohmann::ordered_json details;
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object(); // e.g. {"continue":"..."}

    // {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...} in upstream order.
    nlohmann::ordered_json toStatus() const;

    // The constructors of apimachinery's errors package. `resource` is the plural as in the
    // request path, `group` its API group.
    static ApiError notFound(const QString &group, const QString &resource, const QString &name);
    static ApiError
    alreadyExists(const QString &group, const QString &resource, const QString &name);
    static ApiError conflict(const QString &group,
                             const QString &resource,
                             const QString &name,
                             const QString &cause);
    // Optimistic-lock conflict: "the object has been modified; please apply your changes ..."
    static ApiError modified(const QString &group, const QString &resource, const QString &name);
    // 422 "<Kind>.<group> "name" is invalid: <errors>" with causes.
    static ApiError invalid(const QString &group,
                            const QString &kind,
                            const QString &name,
                            const QList<FieldError> &errors);
    static ApiError badRequest(const QString &message);
    static ApiError
    methodNotSupported(const QString &group, const QString &resource, const QString &action);
    static ApiError expired(const QString &message);
    static ApiError forbidden(const QString &group,
                              const QString &resource,
                              const QString &name,
                              const QString &cause);
    static ApiError unsupportedMediaType(const QString &message);
    static ApiError requestEntityTooLarge(const QString &message);
    static ApiError internal(const QString &message); // 500, reason omitted (StatusReasonUnknown)
    static ApiError timeout(const QString &message, int retryAfterSeconds);
    // 422 with the generic message "the server rejected our request due to an error in our
    // request".
    static ApiError unprocessableGeneric();
};

template<typename T>
using ApiResult = models::Result<T, ApiError>;

} // namespace reconscope::controller::cluster
