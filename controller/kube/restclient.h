#pragma once

#include "controller/apimachinery/options.h"
#include "controller/apimachinery/resourceref.h"
#include "controller/apimachinery/status.h"
#include "controller/kube/clientconfig.h"
#include "controller/kube/pagetransport.h"
#include "controller/kube/watchdecoder.h"
#include "models/result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <QUrl>
#include <QUrlQuery>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;
class QTimer;
class QNetworkReply;
class QNetworkRequest;

namespace reconscope::controller::kube {

class CredentialProvider;
class ListStreamDecoder;

// The page size the client's lists ask for unless a caller says otherwise (client-go's pager).
inline constexpr qint64 DefaultListPageSize = 500;

// A list read as it streams in: each item's bytes are handed to onItem (on the client's thread)
// as the body arrives, instead of being collected in ListPage::items, so the body is never held
// whole. onRestart is called when the list starts over from its first page (the continue token
// expired): the items handed out so far no longer count. `transport`, when set, carries the pages
// instead of QNetworkAccessManager while no proxy is in the way (the informer's fast path sets it).
struct ListStream
{
    std::function<void(QByteArrayView item)> onItem;
    std::function<void()> onRestart;
    std::shared_ptr<const PageTransport> transport;
};

// An HTTP answer as received (any status).
struct RawResponse
{
    int status = 0;
    QByteArray contentType;
    QByteArray body;
};

// One watch request. Events arrive in batches as the body streams in; finished() is emitted once,
// with no error when the server ended the stream normally (timeoutSeconds elapsed).
class WatchConnection final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WatchConnection)

public:
    explicit WatchConnection(QObject *parent = nullptr);
    ~WatchConnection() override;

    // Closes the stream; finished() is not emitted afterwards.
    void stop();
    bool isRunning() const { return m_running; }

signals:
    void eventsReceived(const QList<reconscope::controller::kube::WatchEvent> &events);
    // error is empty (category Cancelled / code 0 with no message) when the stream ended normally.
    void finished(const std::optional<reconscope::controller::apimachinery::ApiError> &error);

private:
    friend class RestClient;
    void attach(QNetworkReply *reply,
                std::function<apimachinery::ApiError(QNetworkReply *)> errorOf,
                int idleTimeoutMs);
    void handleReadyRead();
    void handleFinished();
    void finish(std::optional<apimachinery::ApiError> error);

    QPointer<QNetworkReply> m_reply;
    std::function<apimachinery::ApiError(QNetworkReply *)> m_errorOf;
    QTimer *m_idleTimer = nullptr;
    WatchDecoder m_decoder;
    QByteArray m_errorBody;
    bool m_running = true;
    bool m_ok = false;
};

// Asynchronous REST client for one cluster (QNetworkAccessManager; never blocks). Callbacks run on
// the client's thread and are dropped if the client is destroyed first. Authentication comes from
// the ClientConfig (client certificate, token, token file, basic, exec plugin); a 401 invalidates
// cached credentials and the request is retried once.
class RestClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RestClient)

public:
    using JsonResult = models::Result<nlohmann::json, apimachinery::ApiError>;
    using JsonCallback = std::function<void(JsonResult)>;
    using ListCallback = std::function<void(models::Result<ListPage, apimachinery::ApiError>)>;
    using RawCallback = std::function<void(models::Result<RawResponse, apimachinery::ApiError>)>;

    // What client-go's rest.Request does with a 429 or 5xx answer that carries a Retry-After
    // header (checkWait): wait that many seconds and send the request again, up to maxRetries
    // times; the last answer is returned as is. Answers without the header are returned at once.
    // Watches are not retried here (the Reflector backs off, at least as long as the server
    // asked).
    struct RetryPolicy
    {
        int maxRetries = 10; // client-go's default
        // Runs `action` after `delay`; by default a timer on the client's thread. Tests swap it to
        // record the delays without waiting.
        std::function<void(std::chrono::milliseconds delay, std::function<void()> action)>
            scheduler;
    };

    explicit RestClient(ClientConfig config, QObject *parent = nullptr);
    ~RestClient() override;

    void setRetryPolicy(RetryPolicy policy);

    // Requests sent again after a Retry-After answer, since construction.
    qint64 retriesAfterRetryAfter() const { return m_retryAfterRetries; }

    const ClientConfig &config() const { return m_config; }
    CredentialProvider *credentials() const { return m_credentials; }
    static QByteArray userAgent();
    // This client's User-Agent instead of userAgent(): kube-apiserver names the Update manager of
    // a write without a fieldManager after it (up to its first "/"), so two writers of one
    // process can be told apart in managedFields.
    void setUserAgent(QByteArray userAgent) { m_userAgent = std::move(userAgent); }
    QByteArray requestUserAgent() const
    {
        return m_userAgent.isEmpty() ? userAgent() : m_userAgent;
    }

    void get(const apimachinery::ResourceRef &resource,
             const QString &namespace_,
             const QString &name,
             JsonCallback callback,
             const QString &subresource = {});
    // Follows `continue` (from options.continueToken on) until the list is complete; items stay
    // raw JSON bytes, or go to `stream` when it has an onItem. The result's resourceVersion is the
    // first page's (all pages are served at it).
    void list(const apimachinery::ResourceRef &resource,
              const QString &namespace_,
              const apimachinery::ListOptions &options,
              ListCallback callback,
              ListStream stream = {});
    void create(const apimachinery::ResourceRef &resource,
                const QString &namespace_,
                const nlohmann::json &object,
                JsonCallback callback);
    void update(const apimachinery::ResourceRef &resource,
                const QString &namespace_,
                const QString &name,
                const nlohmann::json &object,
                JsonCallback callback,
                const QString &subresource = {});
    void patch(const apimachinery::ResourceRef &resource,
               const QString &namespace_,
               const QString &name,
               apimachinery::PatchType type,
               const QByteArray &patch,
               JsonCallback callback,
               const QString &subresource = {});
    // Server-side apply of `configuration` (PATCH application/apply-patch+yaml, JSON being YAML)
    // by `fieldManager`, taking other managers' fields when `force`; 409 on a conflict otherwise.
    void apply(const apimachinery::ResourceRef &resource,
               const QString &namespace_,
               const QString &name,
               const nlohmann::json &configuration,
               const QString &fieldManager,
               bool force,
               JsonCallback callback,
               const QString &subresource = {});
    // DELETE with a DeleteOptions body; the answer is the Status or the object (finalizers).
    void remove(const apimachinery::ResourceRef &resource,
                const QString &namespace_,
                const QString &name,
                const apimachinery::DeleteOptions &options,
                JsonCallback callback);

    // Any request; non-2xx answers are errors (typed from the Status body when there is one).
    void request(const QByteArray &method,
                 const QString &path,
                 const QUrlQuery &query,
                 const QByteArray &body,
                 const QByteArray &contentType,
                 const QByteArray &accept,
                 RawCallback callback);

    // Starts a watch (watch=1) on the collection; the connection is owned by `parent`. A stream
    // that brings no byte for idleTimeoutMs is considered dead (a half-open connection) and ends
    // with a Network error; -1: options.timeoutSeconds + 30 s when that is set, else never.
    WatchConnection *watch(const apimachinery::ResourceRef &resource,
                           const QString &namespace_,
                           const apimachinery::WatchOptions &options,
                           QObject *parent,
                           int idleTimeoutMs = -1);

private:
    // No byte for this long ends a request (watches excepted).
    static constexpr int RequestTimeoutMs = 60'000;

    struct Call
    {
        QByteArray method;
        QString path;
        QUrlQuery query;
        QByteArray body;
        QByteArray contentType;
        QByteArray accept;
        bool streaming = false;
        bool retried = false; // after a 401, with fresh credentials
        int retryAfterAttempts = 0; // after 429/5xx with Retry-After
        // A 200 answer's body goes here as it arrives instead of being collected.
        std::shared_ptr<ListStreamDecoder> listDecoder;
    };
    using ReplyHandler = std::function<void(QNetworkReply *)>;

    void send(Call call, ReplyHandler onReply, std::function<void(apimachinery::ApiError)> onError);
    // A streamed list page through `transport`; done() without an error once the decoder has the
    // whole body.
    void sendStreamed(Call call,
                      std::shared_ptr<const PageTransport> transport,
                      std::function<void(std::optional<apimachinery::ApiError>)> done);
    void finishStreamed(Call &call,
                        const std::shared_ptr<const PageTransport> &transport,
                        const PageTransport::Answer &answer,
                        const std::function<void(std::optional<apimachinery::ApiError>)> &done);
    // What client-go does before handing an answer on: a 429/5xx with Retry-After is sent again
    // after that delay, a 401 once more with fresh credentials (exec plugin, token file). True
    // when `again` was (or will be) called with the updated call.
    bool resendIfAsked(Call &call,
                       int status,
                       const QByteArray &retryAfterHeader,
                       std::function<void(const Call &)> again);
    QUrl urlOf(const Call &call) const;
    QNetworkRequest buildRequest(const Call &call) const;
    apimachinery::ApiError errorOf(QNetworkReply *reply) const;
    apimachinery::ApiError errorOf(const PageTransport::Answer &answer) const;
    apimachinery::ApiError transportError(PageTransport::Failure failure,
                                          const QString &errorString,
                                          const QList<QSslError> &sslErrors) const;
    void jsonRequest(Call call, JsonCallback callback);
    void listPage(const apimachinery::ResourceRef &resource,
                  const QString &namespace_,
                  const apimachinery::ListOptions &options,
                  const ListStream &stream,
                  const QString &continueToken,
                  std::shared_ptr<ListPage> accumulated,
                  ListCallback callback);
    void listPageStreaming(const apimachinery::ResourceRef &resource,
                           const QString &namespace_,
                           const apimachinery::ListOptions &options,
                           const ListStream &stream,
                           const QString &continueToken,
                           const QUrlQuery &query,
                           std::shared_ptr<ListPage> accumulated,
                           ListCallback callback);

    ClientConfig m_config;
    QByteArray m_userAgent;
    QSslConfiguration m_ssl;
    QNetworkAccessManager *m_network;
    CredentialProvider *m_credentials;
    RetryPolicy m_retryPolicy;
    qint64 m_retryAfterRetries = 0;
    // RECONSCOPE_LIST_TRANSPORT=qtnetwork: ListStream::transport ignored, should a network setup
    // need QNetworkAccessManager for every request.
    bool m_onlyQtNetwork = false;
};

// The Retry-After header of an answer when client-go would honour it: a 429 or a 5xx status with
// a non-negative integer number of seconds.
std::optional<int> retryAfterOf(int status, const QByteArray &retryAfterHeader);

// Whether a certificate's subjectAltNames cover `name` (DNS with one-label wildcards, or IP).
bool certificateMatchesName(const QSslCertificate &certificate, const QString &name);

} // namespace reconscope::controller::kube
