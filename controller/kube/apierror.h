#pragma once

#include <nlohmann/json_fwd.hpp>

#include <QByteArray>
#include <QList>
#include <QString>

namespace reconscope::controller::kube {

// One entry of a Status' details.causes.
struct StatusCause
{
    QString reason; // FieldValueInvalid, FieldValueRequired, ...
    QString message;
    QString field;
};

// What a request to the API server failed with: a Kubernetes Status (typed), a plain HTTP error
// (the text 404 of an unresolved path), or something below HTTP (network, TLS, decoding, auth).
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
    QString reason; // Status reason: NotFound, Conflict, Forbidden, Expired, ...
    QString message;
    // Status details.
    QString name;
    QString group;
    QString kind; // the plural for NotFound/Conflict/AlreadyExists, the Kind for Invalid
    QList<StatusCause> causes;
    // The server asked to wait this long before retrying (Retry-After header, else
    // details.retryAfterSeconds); 0 when it did not.
    int retryAfterSeconds = 0;

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

    // A Status object (kind "Status"); nullopt-like result (category Decode) when it is not one.
    static bool fromStatusJson(const nlohmann::json &status, ApiError *out);
    // An HTTP answer with a non-2xx code: a Status body when there is one, otherwise the text.
    static ApiError fromHttp(int code, const QByteArray &contentType, const QByteArray &body);
    static ApiError make(Category category, QString message, int code = 0);
};

} // namespace reconscope::controller::kube
