#pragma once

#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QString>

// A failed API call as a Kubernetes Status (metav1.Status, apimachinery's pkg/api/errors): what
// the embedded cluster answers over HTTP and returns in process, and what the client received.
namespace reconscope::controller::apimachinery {

// One entry of a Status' details.causes (metav1.StatusCause).
struct StatusCause
{
    QString reason; // FieldValueInvalid, FieldValueRequired, ...
    QString message;
    QString field; // "spec.replicas"

    bool operator==(const StatusCause &) const = default;
};

// A Kubernetes Status (typed), a plain HTTP error (the text 404 of an unresolved path), or, on
// the client, something below HTTP (network, TLS, decoding, auth).
struct ApiError
{
    enum class Category {
        Status, // the server answered with a Status object
        Http, // an HTTP error without a Status body ("404 page not found")
        Network, // connection refused, reset, timeout, proxy
        Tls, // handshake failed: unknown CA, expired certificate, host name mismatch
        Decode, // a 2xx answer that is not the JSON we expected
        Auth, // credentials could not be obtained (exec plugin failed, token file unreadable)
        Cancelled,
    };

    Category category = Category::Status;
    int code = 0; // HTTP status code, 0 when none was received
    QString reason; // NotFound, Conflict, Forbidden, Expired, ...; empty for StatusReasonUnknown
    QString message;
    // StatusDetails.
    QString name;
    QString group;
    QString kind; // the plural for NotFound/Conflict/AlreadyExists, the Kind for Invalid
    QString uid;
    QList<StatusCause> causes;
    // The server asked to wait this long before retrying (on the client: the Retry-After header,
    // else details.retryAfterSeconds); 0 when it did not.
    int retryAfterSeconds = 0;
    // The Status has details even when all of them are empty ("details":{}), as upstream's
    // errors built with a StatusDetails do. Details with a member set are rendered regardless.
    bool hasDetails = false;
    // ListMeta.continue of the Status: an expired continue token's 410 carries a fresh one.
    QString continueToken;

    bool isNotFound() const { return code == 404; }
    bool isConflict() const { return code == 409 && reason != u"AlreadyExists"; }
    bool isAlreadyExists() const { return reason == u"AlreadyExists"; }
    bool isForbidden() const { return code == 403; }
    bool isUnauthorized() const { return code == 401; }
    bool isExpired() const { return code == 410 || reason == u"Expired" || reason == u"Gone"; }
    bool isInvalid() const { return code == 422; }
    // Worth retrying as is: throttling, server-side timeouts, network trouble.
    bool isTransient() const;

    // A line a user can act on: "Conflict (409): Operation cannot be fulfilled on ...".
    QString toString() const;

    // {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...} in upstream's
    // field order, members that are empty omitted as upstream's omitempty does.
    nlohmann::ordered_json toStatus() const;

    // A Status object (kind "Status"); false (and `out` untouched) when it is not one.
    static bool fromStatusJson(const nlohmann::json &status, ApiError *out);
    // An HTTP answer with a non-2xx code: a Status body when there is one, otherwise the text.
    static ApiError fromHttp(int code, const QByteArray &contentType, const QByteArray &body);
    static ApiError make(Category category, QString message, int code = 0);

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
    // 422 "<Kind>.<group> "name" is invalid: <causes>" (NewInvalid; the cluster's field errors
    // become causes through cluster::invalidError).
    static ApiError invalid(const QString &group,
                            const QString &kind,
                            const QString &name,
                            const QList<StatusCause> &causes);
    static ApiError badRequest(const QString &message);
    static ApiError
    methodNotSupported(const QString &group, const QString &resource, const QString &action);
    // NewGenericServerResponse without a resource, as kube-apiserver's serviceErrorHandler
    // passes on go-restful's refusals: 404 and 405 with their fixed messages unless one is given,
    // 406 and 415 with go-restful's own ("415: Unsupported Media Type"); empty details.
    static ApiError genericServerResponse(int code, const QString &serverMessage);
    // go-restful's 405 for a method a built-in path does not route.
    static ApiError methodNotAllowed() { return genericServerResponse(405, {}); }
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

// Upstream's aggregate of field errors: "<field>: <message>" for one ("<message>" without a
// field), "[<f1>: <m1>, <f2>: <m2>]" for several, "" for none; a repeated one listed once.
QString aggregateMessage(const QList<StatusCause> &causes);

template<typename T>
using ApiResult = models::Result<T, ApiError>;

} // namespace reconscope::controller::apimachinery
