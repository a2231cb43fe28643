#include "controller/kube/redaction.h"

#include <QFile>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube::redaction {

namespace {

constexpr auto Redacted = "<redacted>";

bool nameMentionsSecret(QByteArrayView name)
{
    const QByteArray lower = name.toByteArray().toLower();
    for (const char *word : { "token",
                              "secret",
                              "password",
                              "passwd",
                              "apikey",
                              "api-key",
                              "credential",
                              "session" }) {
        if (lower.contains(word))
            return true;
    }
    return false;
}

} // namespace

bool isSensitiveHeader(QByteArrayView name)
{
    const QByteArray lower = name.toByteArray().toLower();
    return lower == "authorization" || lower == "proxy-authorization" || lower == "cookie"
        || lower == "set-cookie" || lower.endsWith("-key") || nameMentionsSecret(name);
}

QByteArray loggableHeaderValue(QByteArrayView name, QByteArrayView value)
{
    if (!isSensitiveHeader(name))
        return value.toByteArray();
    const QByteArray lower = name.toByteArray().toLower();
    if (lower == "authorization" || lower == "proxy-authorization") {
        // Keep the scheme: "Bearer", "Basic" tell what kind of credential was sent.
        const QByteArray v = value.toByteArray().trimmed();
        const auto space = v.indexOf(' ');
        if (space > 0 && space < 16)
            return v.left(space) + ' ' + Redacted;
    }
    return Redacted;
}

QString loggableHeaders(const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QStringList parts;
    for (const auto &[name, value] : headers)
        parts << QString::fromLatin1(name) + u": "_s
                + QString::fromLatin1(loggableHeaderValue(name, value));
    return parts.join(u", "_s);
}

QString loggableUrl(const QUrl &url)
{
    QUrl copy = url.adjusted(QUrl::RemoveUserInfo);
    if (copy.hasQuery()) {
        QUrlQuery query(copy);
        auto items = query.queryItems(QUrl::FullyDecoded);
        bool changed = false;
        for (auto &[key, value] : items) {
            const QByteArray name = key.toUtf8();
            if (nameMentionsSecret(name) || name.toLower() == "access_token") {
                value = QString::fromLatin1(Redacted);
                changed = true;
            }
        }
        if (changed) {
            query.setQueryItems(items);
            copy.setQuery(query);
        }
    }
    return copy.toString();
}

QString describeConfig(const ClientConfig &config)
{
    QStringList credentials;
    if (!config.clientCertificate.isNull()) {
        const QStringList cn = config.clientCertificate.subjectInfo(QSslCertificate::CommonName);
        credentials << u"client certificate CN=%1"_s.arg(cn.join(u","_s));
    }
    if (!config.token.isEmpty())
        credentials << u"bearer token (%1 bytes)"_s.arg(config.token.toUtf8().size());
    if (!config.tokenFile.isEmpty())
        credentials << u"token file %1"_s.arg(config.tokenFile);
    if (!config.username.isEmpty())
        credentials << u"basic auth as %1"_s.arg(config.username);
    if (config.exec)
        credentials << u"exec plugin %1"_s.arg(config.exec->command);
    if (credentials.isEmpty())
        credentials << u"no credentials"_s;
    return u"server %1, context \"%2\", user \"%3\": %4%5"_s.arg(
        loggableUrl(config.server),
        config.contextName,
        config.userName,
        credentials.join(u", "_s),
        config.insecureSkipTlsVerify ? u" (TLS verification disabled)"_s : QString());
}

QString redactValues(QString text, const QList<QByteArray> &secrets)
{
    for (const QByteArray &secret : secrets) {
        const QByteArray trimmed = secret.trimmed();
        if (trimmed.size() < 4)
            continue;
        text.replace(QString::fromUtf8(trimmed), QString::fromLatin1(Redacted));
    }
    return text;
}

QList<QByteArray> secretsOf(const ClientConfig &config)
{
    QList<QByteArray> secrets;
    if (!config.token.isEmpty())
        secrets << config.token.toUtf8();
    if (!config.password.isEmpty())
        secrets << config.password.toUtf8();
    if (!config.clientKey.isNull())
        secrets << config.clientKey.toPem();
    if (!config.tokenFile.isEmpty()) {
        QFile file(config.tokenFile);
        if (file.open(QIODevice::ReadOnly))
            secrets << file.read(64 * 1024).trimmed();
    }
    return secrets;
}

} // namespace reconscope::controller::kube::redaction
