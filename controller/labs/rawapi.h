#pragma once

#include "controller/kube/restclient.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrlQuery>

#include <optional>

namespace reconscope::controller::labs {

// The raw API console's controller side: `kubectl get --raw PATH` for any path
// and, for collection paths, a watch that streams events - both through the console's RestClient.

// "PATH?query" split; the path always starts with "/".
struct RawPath
{
    QString path;
    QUrlQuery query;
    static RawPath parse(const QString &text);
};

// What a watch on a raw path means: the collection, its namespace, and the options from the
// query. A path naming one object (".../customapps/web") watches its collection with
// fieldSelector=metadata.name=web, as `kubectl get customapp web -w` does.
struct RawWatchTarget
{
    apimachinery::ResourceRef resource;
    QString namespace_;
    apimachinery::WatchOptions options;
};
// nullopt with `problem` set when the path is not a watchable resource path
// (/api/v1/..., /apis/G/V/... with an optional namespaces/NS/, a plural, an optional name).
std::optional<RawWatchTarget> watchTargetOf(const QString &text, QString *problem = nullptr);

// The body as indented JSON when it is JSON, else as text.
QString prettyJson(const QByteArray &body);

// One answered GET.
struct RawResult
{
    QString path;
    int status = 0; // HTTP code (0: no answer)
    QByteArray contentType;
    QByteArray body;
    std::optional<apimachinery::ApiError> error;
    qint64 elapsedMs = 0;
    // "200 application/json, 1234 bytes in 12 ms" or "404 NotFound: ... in 3 ms".
    QString summary() const;
};

class RawApi final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RawApi)

public:
    explicit RawApi(kube::RestClient *client, QObject *parent = nullptr);
    ~RawApi() override;

    void setClient(kube::RestClient *client);
    kube::RestClient *client() const { return m_client; }

    // GET PATH (with its query), Accept "application/json, */*" as kubectl get --raw.
    void get(const QString &path);
    // Starts a watch (stops the one running); false with `problem` when the path cannot be
    // watched.
    bool watch(const QString &path, QString *problem = nullptr);
    void stopWatch();
    bool isWatching() const { return m_watch && m_watch->isRunning(); }
    qint64 eventCount() const { return m_events; }

signals:
    void answered(const reconscope::controller::labs::RawResult &result);
    void watchEvent(const QString &type, const QByteArray &object);
    // The stream ended: empty message when stopped by the user or closed by the server normally.
    void watchEnded(const QString &message);

private:
    QPointer<kube::RestClient> m_client;
    QPointer<kube::WatchConnection> m_watch;
    qint64 m_events = 0;
};

} // namespace reconscope::controller::labs
