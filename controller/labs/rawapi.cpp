#include "controller/labs/rawapi.h"

#include <nlohmann/json.hpp>

#include <memory>

using namespace Qt::StringLiterals;

namespace reconscope::controller::labs {

using apimachinery::ApiError;

using kube::WatchEvent;

RawPath RawPath::parse(const QString &text)
{
    RawPath p;
    QString t = text.trimmed();
    const qsizetype q = t.indexOf(u'?');
    if (q >= 0) {
        p.query = QUrlQuery(t.mid(q + 1));
        t = t.left(q);
    }
    if (!t.startsWith(u'/'))
        t.prepend(u'/');
    p.path = t;
    return p;
}

std::optional<RawWatchTarget> watchTargetOf(const QString &text, QString *problem)
{
    const auto fail = [problem](const QString &why) -> std::optional<RawWatchTarget> {
        if (problem)
            *problem = why;
        return std::nullopt;
    };
    const RawPath raw = RawPath::parse(text);
    QStringList parts = raw.path.split(u'/', Qt::SkipEmptyParts);
    RawWatchTarget target;
    if (parts.size() >= 2 && parts[0] == u"api") {
        target.resource.version = parts[1];
        parts = parts.mid(2);
    } else if (parts.size() >= 3 && parts[0] == u"apis") {
        target.resource.group = parts[1];
        target.resource.version = parts[2];
        parts = parts.mid(3);
    } else {
        return fail(u"not a resource path: want /api/v1/... or /apis/GROUP/VERSION/..."_s);
    }
    QString name;
    if (parts.size() >= 3 && parts[0] == u"namespaces") {
        target.namespace_ = parts[1];
        target.resource.namespaced = true;
        target.resource.plural = parts[2];
        if (parts.size() == 4)
            name = parts[3];
        else if (parts.size() > 4)
            return fail(u"a subresource cannot be watched"_s);
    } else if (parts.size() == 1 || parts.size() == 2) {
        // A cluster-scoped collection, or every namespace of a namespaced one.
        target.resource.plural = parts[0];
        target.resource.namespaced = false;
        if (parts.size() == 2)
            name = parts[1];
    } else {
        return fail(u"no resource in the path"_s);
    }
    const QUrlQuery &q = raw.query;
    target.options.labelSelector = q.queryItemValue(u"labelSelector"_s, QUrl::FullyDecoded);
    target.options.fieldSelector = q.queryItemValue(u"fieldSelector"_s, QUrl::FullyDecoded);
    target.options.resourceVersion = q.queryItemValue(u"resourceVersion"_s, QUrl::FullyDecoded);
    target.options.allowWatchBookmarks = q.queryItemValue(u"allowWatchBookmarks"_s) == u"true";
    target.options.timeoutSeconds = q.queryItemValue(u"timeoutSeconds"_s).toInt();
    if (!name.isEmpty()) {
        const QString byName = u"metadata.name="_s + name;
        target.options.fieldSelector = target.options.fieldSelector.isEmpty()
            ? byName
            : target.options.fieldSelector + u',' + byName;
    }
    return target;
}

QString prettyJson(const QByteArray &body)
{
    const auto parsed
        = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
    if (parsed.is_discarded())
        return QString::fromUtf8(body);
    return QString::fromStdString(parsed.dump(2));
}

QString RawResult::summary() const
{
    if (error) {
        return u"%1 in %2 ms"_s.arg(error->toString()).arg(elapsedMs);
    }
    return u"%1 %2, %3 bytes in %4 ms"_s.arg(status)
        .arg(QString::fromLatin1(contentType))
        .arg(body.size())
        .arg(elapsedMs);
}

RawApi::RawApi(kube::RestClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{ }

RawApi::~RawApi()
{
    if (m_watch)
        m_watch->stop();
}

void RawApi::setClient(kube::RestClient *client)
{
    stopWatch();
    m_client = client;
}

void RawApi::get(const QString &path)
{
    const RawPath raw = RawPath::parse(path);
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    if (!m_client) {
        RawResult result;
        result.path = raw.path;
        result.error = ApiError::make(ApiError::Category::Network, u"not connected"_s);
        emit answered(result);
        return;
    }
    const QString shown = path.trimmed();
    m_client->request("GET",
                      raw.path,
                      raw.query,
                      {},
                      {},
                      "application/json, */*",
                      [this, shown, timer](models::Result<kube::RawResponse, ApiError> answer) {
                          RawResult result;
                          result.path = shown;
                          result.elapsedMs = timer->elapsed();
                          if (answer.ok()) {
                              result.status = answer->status;
                              result.contentType = answer->contentType;
                              result.body = answer->body;
                          } else {
                              result.error = answer.error();
                              result.status = answer.error().code;
                          }
                          emit answered(result);
                      });
}

bool RawApi::watch(const QString &path, QString *problem)
{
    stopWatch();
    if (!m_client) {
        if (problem)
            *problem = u"not connected"_s;
        return false;
    }
    const auto target = watchTargetOf(path, problem);
    if (!target)
        return false;
    m_events = 0;
    auto *watch = m_client->watch(target->resource, target->namespace_, target->options, this);
    m_watch = watch;
    connect(watch,
            &kube::WatchConnection::eventsReceived,
            this,
            [this](const QList<WatchEvent> &events) {
                for (const auto &event : events) {
                    ++m_events;
                    QByteArray object = event.object;
                    if (event.type == WatchEvent::Type::Error)
                        object = event.status.toString().toUtf8();
                    emit watchEvent(WatchEvent::typeName(event.type), object);
                }
            });
    connect(watch,
            &kube::WatchConnection::finished,
            this,
            [this, watch](const std::optional<ApiError> &error) {
                if (m_watch == watch)
                    m_watch = nullptr;
                watch->deleteLater();
                const bool normal = !error || error->category == ApiError::Category::Cancelled;
                emit watchEnded(normal ? QString() : error->toString());
            });
    return true;
}

void RawApi::stopWatch()
{
    if (!m_watch)
        return;
    // stop() does not emit finished(): say it here.
    auto *watch = m_watch.data();
    m_watch = nullptr;
    watch->stop();
    watch->deleteLater();
    emit watchEnded(QString());
}

} // namespace reconscope::controller::labs
