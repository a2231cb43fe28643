#include "controller/kube/restclient.h"

#include "controller/kube/credentialprovider.h"
#include "controller/kube/fastlist/liststreamdecoder.h"
#include "controller/kube/redaction.h"

#include <spdlog/spdlog.h>

#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslError>
#include <QTimer>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;
using apimachinery::DeleteOptions;
using apimachinery::PatchType;
using apimachinery::ResourceRef;

namespace {

const char *const SslErrorsProperty = "reconscopeSslErrors";
// The body of a (non-streaming) reply read so far: drained at each readyRead into one buffer
// sized from Content-Length, so that QNetworkReply's chunk buffer never holds a whole list (which
// cost about twice the body, plus a third copy when readAll() joined the chunks at the end).
const char *const BodyProperty = "reconscopeBody";

void drainBody(QNetworkReply *reply)
{
    QByteArray body = reply->property(BodyProperty).toByteArray();
    reply->setProperty(BodyProperty, QVariant()); // the local copy is now the only one
    if (body.isEmpty()) {
        const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong();
        if (length > 0 && length < (qint64(1) << 31))
            body.reserve(length);
    }
    body += reply->readAll();
    reply->setProperty(BodyProperty, QVariant(std::move(body)));
}

// The whole body of a reply, whether drained or not.
QByteArray takeBody(QNetworkReply *reply)
{
    QByteArray body = reply->property(BodyProperty).toByteArray();
    reply->setProperty(BodyProperty, QVariant());
    body += reply->readAll();
    return body;
}

QString describeSslErrors(const QList<QSslError> &errors, const QString &host)
{
    QStringList messages;
    auto add = [&messages](const QString &message) {
        if (!messages.contains(message))
            messages << message;
    };
    for (const QSslError &error : errors) {
        const QSslCertificate certificate = error.certificate();
        switch (error.error()) {
        case QSslError::UnableToGetLocalIssuerCertificate:
        case QSslError::UnableToGetIssuerCertificate:
        case QSslError::UnableToVerifyFirstCertificate:
        case QSslError::SelfSignedCertificate:
        case QSslError::SelfSignedCertificateInChain:
        case QSslError::CertificateUntrusted:
        case QSslError::CertificateSignatureFailed:
            add(u"the server's certificate (issuer \"%1\") is not signed by the cluster's "
                u"certificate "
                u"authority; check certificate-authority(-data) in the kubeconfig"_s.arg(
                    certificate.isNull()
                        ? u"unknown"_s
                        : certificate.issuerInfo(QSslCertificate::CommonName).join(u", "_s)));
            break;
        case QSslError::CertificateExpired:
            add(u"the server's certificate expired on %1"_s.arg(
                certificate.expiryDate().toUTC().toString(Qt::ISODate)));
            break;
        case QSslError::CertificateNotYetValid:
            add(u"the server's certificate is not valid before %1"_s.arg(
                certificate.effectiveDate().toUTC().toString(Qt::ISODate)));
            break;
        case QSslError::HostNameMismatch: {
            QStringList names;
            const auto alternates = certificate.subjectAlternativeNames();
            for (auto it = alternates.cbegin(); it != alternates.cend(); ++it)
                names << it.value();
            add(u"the server's certificate is not valid for %1 (it names %2); set tls-server-name "
                u"if the server is reached through another name"_s.arg(
                    host, names.isEmpty() ? u"nothing"_s : names.join(u", "_s)));
            break;
        }
        default:
            add(error.errorString());
            break;
        }
    }
    return messages.join(u"; "_s);
}

} // namespace

bool certificateMatchesName(const QSslCertificate &certificate, const QString &name)
{
    const auto alternates = certificate.subjectAlternativeNames();
    const QHostAddress address(name);
    for (auto it = alternates.cbegin(); it != alternates.cend(); ++it) {
        if (it.key() == QSsl::IpAddressEntry) {
            if (!address.isNull() && QHostAddress(it.value()) == address)
                return true;
            continue;
        }
        if (it.key() != QSsl::DnsEntry || !address.isNull())
            continue;
        const QString pattern = it.value().toLower();
        const QString host = name.toLower();
        if (pattern == host)
            return true;
        if (pattern.startsWith(u"*."_s)) {
            const auto dot = host.indexOf(u'.');
            if (dot > 0 && host.mid(dot) == pattern.mid(1))
                return true;
        }
    }
    return false;
}

std::optional<int> retryAfterOf(int status, const QByteArray &retryAfterHeader)
{
    if (status != 429 && status < 500)
        return std::nullopt;
    bool ok = false;
    const int seconds = retryAfterHeader.trimmed().toInt(&ok);
    if (!ok || seconds < 0)
        return std::nullopt;
    return seconds;
}

// --- RestClient ----------------------------------------------------------------------------

RestClient::RestClient(ClientConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_ssl(m_config.sslConfiguration())
    , m_network(new QNetworkAccessManager(this))
    , m_credentials(new CredentialProvider(m_config, this))
{
    // proxy-url, else the environment as kubectl reads it; never Qt's application-wide proxy.
    const auto proxy = m_config.proxy ? m_config.proxy : proxyFromEnvironment(m_config.server);
    m_network->setProxy(proxy ? *proxy : QNetworkProxy(QNetworkProxy::NoProxy));
    m_network->setAutoDeleteReplies(false);
    m_onlyQtNetwork = qEnvironmentVariable("RECONSCOPE_LIST_TRANSPORT") == u"qtnetwork"_s;
    spdlog::debug("kube client: {}", redaction::describeConfig(m_config).toStdString());
}

RestClient::~RestClient() = default;

void RestClient::setRetryPolicy(RetryPolicy policy)
{
    m_retryPolicy = std::move(policy);
}

QByteArray RestClient::userAgent()
{
    return QByteArrayLiteral("reconscope/" RECONSCOPE_VERSION);
}

QUrl RestClient::urlOf(const Call &call) const
{
    QUrl url = m_config.server;
    const QString basePath = url.path().endsWith(u'/') ? url.path().chopped(1) : url.path();
    url.setPath(basePath + call.path, QUrl::TolerantMode);
    if (!call.query.isEmpty()) {
        // Encode every reserved character: Go servers read a literal '+' in a query as a space,
        // and QUrlQuery would leave it (and '/', '=' in values) as is.
        QByteArray query;
        for (const auto &[key, value] : call.query.queryItems(QUrl::FullyDecoded)) {
            if (!query.isEmpty())
                query += '&';
            query += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
        }
        url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    }
    return url;
}

QNetworkRequest RestClient::buildRequest(const Call &call) const
{
    QNetworkRequest request(urlOf(call));
    request.setHeader(QNetworkRequest::UserAgentHeader, requestUserAgent());
    request.setRawHeader("Accept", call.accept.isEmpty() ? "application/json" : call.accept);
    if (!call.contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, call.contentType);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    if (!call.streaming)
        request.setTransferTimeout(RequestTimeoutMs);
    return request;
}

ApiError RestClient::errorOf(QNetworkReply *reply) const
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 300) {
        ApiError error = ApiError::fromHttp(
            status,
            reply->header(QNetworkRequest::ContentTypeHeader).toString().toLatin1(),
            takeBody(reply));
        if (const auto seconds = retryAfterOf(status, reply->rawHeader("Retry-After")))
            error.retryAfterSeconds = *seconds;
        return error;
    }
    PageTransport::Failure failure = PageTransport::Failure::Connection;
    switch (reply->error()) {
    case QNetworkReply::SslHandshakeFailedError:
        failure = PageTransport::Failure::Tls;
        break;
    case QNetworkReply::OperationCanceledError:
        failure = PageTransport::Failure::Cancelled;
        break;
    case QNetworkReply::TimeoutError:
        failure = PageTransport::Failure::Timeout;
        break;
    default:
        break;
    }
    return transportError(failure,
                          reply->errorString(),
                          reply->property(SslErrorsProperty).value<QList<QSslError>>());
}

ApiError RestClient::errorOf(const PageTransport::Answer &answer) const
{
    return transportError(answer.failure, answer.errorString, answer.sslErrors);
}

ApiError RestClient::transportError(PageTransport::Failure failure,
                                    const QString &errorString,
                                    const QList<QSslError> &sslErrors) const
{
    const QString target = m_config.server.toString();
    if (!sslErrors.isEmpty()) {
        return ApiError::make(ApiError::Category::Tls,
                              u"TLS handshake with %1 failed: %2"_s.arg(
                                  target, describeSslErrors(sslErrors, m_config.peerVerifyName())));
    }
    switch (failure) {
    case PageTransport::Failure::Tls:
        return ApiError::make(ApiError::Category::Tls,
                              u"TLS handshake with %1 failed: %2 (a server that rejects the "
                              u"client certificate fails this way too)"_s.arg(target, errorString));
    case PageTransport::Failure::Cancelled:
        return ApiError::make(ApiError::Category::Cancelled, u"request cancelled"_s);
    case PageTransport::Failure::Timeout:
        return ApiError::make(ApiError::Category::Network,
                              u"%1 did not answer in time"_s.arg(target));
    default:
        return ApiError::make(ApiError::Category::Network, u"%1: %2"_s.arg(target, errorString));
    }
}

void RestClient::send(Call call, ReplyHandler onReply, std::function<void(ApiError)> onError)
{
    m_credentials->acquire(
        this,
        [this, call, onReply, onError](models::Result<Credentials, ApiError> credentials) mutable {
            if (!credentials) {
                onError(credentials.error());
                return;
            }
            QNetworkRequest request = buildRequest(call);
            QSslConfiguration ssl = m_ssl;
            if (!credentials->clientCertificate.isNull()) {
                ssl.setLocalCertificate(credentials->clientCertificate);
                ssl.setPrivateKey(credentials->clientKey);
            }
            request.setSslConfiguration(ssl);
            if (!credentials->authorization.isEmpty())
                request.setRawHeader("Authorization", credentials->authorization);
            if (spdlog::should_log(spdlog::level::trace)) {
                QList<QPair<QByteArray, QByteArray>> headers;
                for (const QByteArray &name : request.rawHeaderList())
                    headers.append({ name, request.rawHeader(name) });
                spdlog::trace(
                    "request {} {} [{}]{}",
                    call.method.toStdString(),
                    redaction::loggableUrl(request.url()).toStdString(),
                    redaction::loggableHeaders(headers).toStdString(),
                    !credentials->clientCertificate.isNull() ? " with a client certificate" : "");
            }

            QNetworkReply *reply = call.body.isEmpty() && call.method == "GET"
                ? m_network->get(request)
                : m_network->sendCustomRequest(request, call.method, call.body);
            connect(
                reply,
                &QNetworkReply::sslErrors,
                this,
                [this, reply](const QList<QSslError> &errors) {
                    // tls-server-name: the chain must verify; only the name is checked against it
                    // instead of the URL's host.
                    if (!m_config.tlsServerName.isEmpty()) {
                        bool onlyName = true;
                        for (const auto &error : errors)
                            onlyName = onlyName && error.error() == QSslError::HostNameMismatch;
                        if (onlyName
                            && certificateMatchesName(reply->sslConfiguration().peerCertificate(),
                                                      m_config.tlsServerName)) {
                            reply->ignoreSslErrors(errors);
                            return;
                        }
                    }
                    reply->setProperty(SslErrorsProperty, QVariant::fromValue(errors));
                });
            if (call.streaming) {
                onReply(reply);
                return;
            }
            if (call.listDecoder) {
                // Decoded as it arrives: QNetworkAccessManager need not buffer more than this
                // while the decoder is busy (TCP holds the rest back).
                reply->setReadBufferSize(qint64(4) << 20);
                connect(
                    reply, &QNetworkReply::readyRead, this, [reply, decoder = call.listDecoder] {
                        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt()
                            == 200) {
                            decoder->feed(reply);
                        } else {
                            drainBody(reply);
                        }
                    });
            } else {
                connect(reply, &QNetworkReply::readyRead, this, [reply] { drainBody(reply); });
            }
            connect(reply,
                    &QNetworkReply::finished,
                    this,
                    [this, reply, call, onReply, onError]() mutable {
                        reply->deleteLater();
                        const int status
                            = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                        if (spdlog::should_log(spdlog::level::trace)) {
                            QList<QPair<QByteArray, QByteArray>> headers;
                            for (const auto &pair : reply->rawHeaderPairs())
                                headers.append(pair);
                            spdlog::trace("response {} {}: {} [{}]",
                                          call.method.toStdString(),
                                          redaction::loggableUrl(reply->url()).toStdString(),
                                          status,
                                          redaction::loggableHeaders(headers).toStdString());
                        }
                        if (resendIfAsked(call,
                                          status,
                                          reply->rawHeader("Retry-After"),
                                          [this, onReply, onError](const Call &again) {
                                              send(again, onReply, onError);
                                          }))
                            return;
                        onReply(reply);
                    });
        });
}

bool RestClient::resendIfAsked(Call &call,
                               int status,
                               const QByteArray &retryAfterHeader,
                               std::function<void(const Call &)> again)
{
    if (const auto seconds = retryAfterOf(status, retryAfterHeader);
        seconds && call.retryAfterAttempts < m_retryPolicy.maxRetries) {
        ++call.retryAfterAttempts;
        ++m_retryAfterRetries;
        spdlog::debug("{} {}: {} with Retry-After {} s, attempt {} of {}",
                      call.method.toStdString(),
                      call.path.toStdString(),
                      status,
                      *seconds,
                      call.retryAfterAttempts,
                      m_retryPolicy.maxRetries);
        const auto delay = std::chrono::milliseconds(*seconds * 1000LL);
        auto resend = [call, again = std::move(again)] {
            again(call);
        };
        if (m_retryPolicy.scheduler) {
            QPointer<RestClient> self(this);
            m_retryPolicy.scheduler(delay, [self, resend] {
                if (self)
                    resend();
            });
        } else {
            QTimer::singleShot(delay, this, resend);
        }
        return true;
    }
    if (status == 401 && !call.retried && (m_config.exec || !m_config.tokenFile.isEmpty())) {
        m_credentials->invalidate();
        call.retried = true;
        again(call);
        return true;
    }
    return false;
}

void RestClient::request(const QByteArray &method,
                         const QString &path,
                         const QUrlQuery &query,
                         const QByteArray &body,
                         const QByteArray &contentType,
                         const QByteArray &accept,
                         RawCallback callback)
{
    Call call{ method, path, query, body, contentType, accept };
    send(
        call,
        [this, callback](QNetworkReply *reply) {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (reply->error() != QNetworkReply::NoError || status >= 300 || status == 0) {
                callback(errorOf(reply));
                return;
            }
            RawResponse response;
            response.status = status;
            response.contentType = reply->rawHeader("Content-Type");
            response.body = takeBody(reply);
            callback(std::move(response));
        },
        [callback](ApiError error) { callback(std::move(error)); });
}

void RestClient::jsonRequest(Call call, JsonCallback callback)
{
    request(call.method,
            call.path,
            call.query,
            call.body,
            call.contentType,
            call.accept,
            [callback](models::Result<RawResponse, ApiError> response) {
                if (!response) {
                    callback(response.error());
                    return;
                }
                const QByteArray &body = response->body;
                auto json = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
                if (json.is_discarded()) {
                    callback(ApiError::make(ApiError::Category::Decode,
                                            u"the server's answer is not JSON: "_s
                                                + QString::fromUtf8(body.left(200))));
                    return;
                }
                callback(std::move(json));
            });
}

void RestClient::get(const ResourceRef &resource,
                     const QString &namespace_,
                     const QString &name,
                     JsonCallback callback,
                     const QString &subresource)
{
    jsonRequest({ "GET", resource.objectPath(namespace_, name, subresource) }, std::move(callback));
}

void RestClient::create(const ResourceRef &resource,
                        const QString &namespace_,
                        const nlohmann::json &object,
                        JsonCallback callback)
{
    jsonRequest({ "POST",
                  resource.collectionPath(namespace_),
                  {},
                  QByteArray::fromStdString(object.dump()),
                  "application/json" },
                std::move(callback));
}

void RestClient::update(const ResourceRef &resource,
                        const QString &namespace_,
                        const QString &name,
                        const nlohmann::json &object,
                        JsonCallback callback,
                        const QString &subresource)
{
    jsonRequest({ "PUT",
                  resource.objectPath(namespace_, name, subresource),
                  {},
                  QByteArray::fromStdString(object.dump()),
                  "application/json" },
                std::move(callback));
}

void RestClient::patch(const ResourceRef &resource,
                       const QString &namespace_,
                       const QString &name,
                       PatchType type,
                       const QByteArray &patch,
                       JsonCallback callback,
                       const QString &subresource)
{
    jsonRequest({ "PATCH",
                  resource.objectPath(namespace_, name, subresource),
                  {},
                  patch,
                  apimachinery::patchMediaType(type) },
                std::move(callback));
}

void RestClient::apply(const ResourceRef &resource,
                       const QString &namespace_,
                       const QString &name,
                       const nlohmann::json &configuration,
                       const QString &fieldManager,
                       bool force,
                       JsonCallback callback,
                       const QString &subresource)
{
    QUrlQuery query;
    query.addQueryItem(u"fieldManager"_s, fieldManager);
    if (force)
        query.addQueryItem(u"force"_s, u"true"_s);
    jsonRequest({ "PATCH",
                  resource.objectPath(namespace_, name, subresource),
                  query,
                  QByteArray::fromStdString(configuration.dump()),
                  apimachinery::patchMediaType(apimachinery::PatchType::Apply) },
                std::move(callback));
}

void RestClient::remove(const ResourceRef &resource,
                        const QString &namespace_,
                        const QString &name,
                        const DeleteOptions &options,
                        JsonCallback callback)
{
    jsonRequest({ "DELETE",
                  resource.objectPath(namespace_, name),
                  {},
                  options.toJson(),
                  "application/json" },
                std::move(callback));
}

} // namespace reconscope::controller::kube
