// RestClient's lists (restclient.h): pages followed through `continue`, held whole or streamed
// item by item, a streamed page through the caller's transport (ListStream::transport) when no
// proxy is in the way.
#include "controller/kube/restclient.h"

#include "controller/kube/credentialprovider.h"
#include "controller/kube/fastlist/liststreamdecoder.h"
#include "controller/kube/redaction.h"

#include <spdlog/spdlog.h>

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace reconscope::controller::kube {

using apimachinery::ApiError;
using apimachinery::ListOptions;
using apimachinery::ResourceRef;

void RestClient::list(const ResourceRef &resource,
                      const QString &namespace_,
                      const ListOptions &options,
                      ListCallback callback,
                      ListStream stream)
{
    listPage(resource,
             namespace_,
             options,
             stream,
             options.continueToken,
             std::make_shared<ListPage>(),
             std::move(callback));
}

void RestClient::listPage(const ResourceRef &resource,
                          const QString &namespace_,
                          const ListOptions &options,
                          const ListStream &stream,
                          const QString &continueToken,
                          std::shared_ptr<ListPage> accumulated,
                          ListCallback callback)
{
    QUrlQuery query;
    if (!options.labelSelector.isEmpty())
        query.addQueryItem(u"labelSelector"_s, options.labelSelector);
    if (!options.fieldSelector.isEmpty())
        query.addQueryItem(u"fieldSelector"_s, options.fieldSelector);
    if (options.limit > 0)
        query.addQueryItem(u"limit"_s, QString::number(options.limit));
    if (!continueToken.isEmpty()) {
        query.addQueryItem(u"continue"_s, continueToken);
    } else {
        if (!options.resourceVersion.isEmpty())
            query.addQueryItem(u"resourceVersion"_s, options.resourceVersion);
        if (!options.resourceVersionMatch.isEmpty())
            query.addQueryItem(u"resourceVersionMatch"_s, options.resourceVersionMatch);
    }
    const QString path = resource.collectionPath(namespace_);
    if (stream.onItem) {
        listPageStreaming(
            resource, namespace_, options, stream, continueToken, query, accumulated, callback);
        return;
    }
    request("GET",
            path,
            query,
            {},
            {},
            "application/json",
            [this, resource, namespace_, options, stream, continueToken, accumulated, callback](
                models::Result<RawResponse, ApiError> response) {
                if (!response) {
                    if (!continueToken.isEmpty() && response.error().isExpired()) {
                        // The continue token's snapshot was compacted: list again in one go.
                        ListOptions full = options;
                        full.limit = 0;
                        *accumulated = {};
                        listPage(resource, namespace_, full, stream, {}, accumulated, callback);
                        return;
                    }
                    callback(response.error());
                    return;
                }
                ListPage page;
                QString error;
                if (!decodeListPageShared(response->body, &page, &error)) {
                    callback(ApiError::make(ApiError::Category::Decode, error));
                    return;
                }
                if (continueToken.isEmpty()) {
                    accumulated->resourceVersion = page.resourceVersion;
                    accumulated->kind = page.kind;
                }
                accumulated->items += std::move(page.items);
                if (!page.continueToken.isEmpty()) {
                    listPage(resource,
                             namespace_,
                             options,
                             stream,
                             page.continueToken,
                             accumulated,
                             callback);
                    return;
                }
                accumulated->continueToken.clear();
                callback(std::move(*accumulated));
            });
}

void RestClient::listPageStreaming(const ResourceRef &resource,
                                   const QString &namespace_,
                                   const ListOptions &options,
                                   const ListStream &stream,
                                   const QString &continueToken,
                                   const QUrlQuery &query,
                                   std::shared_ptr<ListPage> accumulated,
                                   ListCallback callback)
{
    Call call{ "GET", resource.collectionPath(namespace_), query, {}, {}, "application/json" };
    call.listDecoder = std::make_shared<ListStreamDecoder>(stream.onItem);
    const auto finishPage = [this,
                             resource,
                             namespace_,
                             options,
                             stream,
                             continueToken,
                             accumulated,
                             callback,
                             decoder = call.listDecoder](std::optional<ApiError> error) {
        if (error) {
            if (!continueToken.isEmpty() && error->isExpired()) {
                // The continue token's snapshot was compacted: list again in one go.
                ListOptions full = options;
                full.limit = 0;
                *accumulated = {};
                if (stream.onRestart)
                    stream.onRestart();
                listPage(resource, namespace_, full, stream, {}, accumulated, callback);
                return;
            }
            callback(std::move(*error));
            return;
        }
        if (!decoder->finish()) {
            callback(ApiError::make(ApiError::Category::Decode, decoder->errorString()));
            return;
        }
        if (continueToken.isEmpty()) {
            accumulated->resourceVersion = decoder->resourceVersion();
            accumulated->kind = decoder->kind();
        }
        if (!decoder->continueToken().isEmpty()) {
            listPage(resource,
                     namespace_,
                     options,
                     stream,
                     decoder->continueToken(),
                     accumulated,
                     callback);
            return;
        }
        accumulated->continueToken.clear();
        callback(std::move(*accumulated));
    };
    const QString scheme = m_config.server.scheme();
    if (stream.transport && !m_onlyQtNetwork && m_network->proxy().type() == QNetworkProxy::NoProxy
        && (scheme == u"https"_s || scheme == u"http"_s)) {
        sendStreamed(std::move(call), stream.transport, finishPage);
        return;
    }
    send(
        call,
        [this, finishPage, decoder = call.listDecoder](QNetworkReply *reply) {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (reply->error() != QNetworkReply::NoError || status >= 300 || status == 0) {
                finishPage(errorOf(reply));
                return;
            }
            decoder->feed(reply);
            finishPage(std::nullopt);
        },
        [finishPage](ApiError error) { finishPage(std::move(error)); });
}

void RestClient::sendStreamed(Call call,
                              std::shared_ptr<const PageTransport> transport,
                              std::function<void(std::optional<ApiError>)> done)
{
    m_credentials->acquire(
        this,
        [this, call, transport, done](models::Result<Credentials, ApiError> credentials) mutable {
            if (!credentials) {
                done(credentials.error());
                return;
            }
            PageTransport::Request request;
            request.url = urlOf(call);
            request.ssl = m_ssl;
            if (!credentials->clientCertificate.isNull()) {
                request.ssl.setLocalCertificate(credentials->clientCertificate);
                request.ssl.setPrivateKey(credentials->clientKey);
            }
            request.peerVerifyName = m_config.tlsServerName;
            request.idleTimeoutMs = RequestTimeoutMs;
            request.headers
                = { { "User-Agent", requestUserAgent() },
                    { "Accept", call.accept.isEmpty() ? "application/json" : call.accept } };
            if (!credentials->authorization.isEmpty())
                request.headers.append({ "Authorization", credentials->authorization });
            if (spdlog::should_log(spdlog::level::trace)) {
                spdlog::trace(
                    "request {} {} [{}]{} through the list's own transport",
                    call.method.toStdString(),
                    redaction::loggableUrl(request.url).toStdString(),
                    redaction::loggableHeaders(request.headers).toStdString(),
                    !credentials->clientCertificate.isNull() ? " with a client certificate" : "");
            }
            transport->get(
                request,
                [decoder = call.listDecoder](QByteArrayView piece) { decoder->feed(piece); },
                [this, call, transport, done](const PageTransport::Answer &answer) mutable {
                    finishStreamed(call, transport, answer, done);
                },
                this);
        });
}

void RestClient::finishStreamed(Call &call,
                                const std::shared_ptr<const PageTransport> &transport,
                                const PageTransport::Answer &answer,
                                const std::function<void(std::optional<ApiError>)> &done)
{
    const int status = answer.status;
    if (spdlog::should_log(spdlog::level::trace) && status != 0) {
        spdlog::trace("response {} {}: {} [{}], {} body bytes",
                      call.method.toStdString(),
                      redaction::loggableUrl(urlOf(call)).toStdString(),
                      status,
                      redaction::loggableHeaders(answer.headers).toStdString(),
                      answer.bodyBytes);
    }
    if (answer.failure != PageTransport::Failure::None) {
        done(errorOf(answer));
        return;
    }
    if (resendIfAsked(
            call, status, answer.header("Retry-After"), [this, transport, done](const Call &again) {
                sendStreamed(again, transport, done);
            }))
        return;
    if (status >= 300 || status < 200) {
        ApiError error
            = ApiError::fromHttp(status, answer.header("Content-Type"), answer.errorBody);
        if (const auto seconds = retryAfterOf(status, answer.header("Retry-After")))
            error.retryAfterSeconds = *seconds;
        done(std::move(error));
        return;
    }
    done(std::nullopt);
}

} // namespace reconscope::controller::kube
