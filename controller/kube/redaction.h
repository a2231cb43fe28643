#pragma once

// What may be written to logs about requests, answers and credentials. Every log line of the
// client that mentions a request, a header or a ClientConfig goes through here, so that tokens,
// passwords, client keys, exec credentials and Authorization headers never reach a log, even at
// trace level.
#include "controller/kube/clientconfig.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

namespace reconscope::controller::kube::redaction {

// Headers whose values are credentials: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// and any header whose name mentions a token, a key, a secret or a password.
bool isSensitiveHeader(QByteArrayView name);

// A header's value as it may be logged: the scheme of an Authorization header is kept
// ("Bearer <redacted>"), any other sensitive value is "<redacted>".
QByteArray loggableHeaderValue(QByteArrayView name, QByteArrayView value);

// "Name: value, Name: value" with the sensitive values redacted.
QString loggableHeaders(const QList<QPair<QByteArray, QByteArray>> &headers);

// The URL without user info (user:password@) and with sensitive query values redacted
// (access_token, token, password).
QString loggableUrl(const QUrl &url);

// One line about a ClientConfig: server, context, user and the kind of credentials, never their
// values ("client certificate CN=kube-admin", "bearer token (32 bytes)", "exec plugin aws").
QString describeConfig(const ClientConfig &config);

// Text with every occurrence of the given secret values replaced by "<redacted>" (empty values
// and values shorter than 4 bytes are ignored: they would redact ordinary words).
QString redactValues(QString text, const QList<QByteArray> &secrets);

// The secret values a ClientConfig holds: token, password, the client key's PEM (and, if the
// token file can be read, its content). For redactValues() over text that may quote them.
QList<QByteArray> secretsOf(const ClientConfig &config);

} // namespace reconscope::controller::kube::redaction
