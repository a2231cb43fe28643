#pragma once

// Helpers shared by the cluster API tests: requests as the transport would build them, a
// collecting WatchSink, and JSON access.

#include "controller/cluster/apiserver.h"
#include "controller/cluster/cluster.h"

#include <nlohmann/json.hpp>

#include <QTest>
#include <QUrlQuery>

#include <memory>

// QCOMPARE for json values (QTest has no printer for them); `json` must name nlohmann::json
// where it is used.
#define JSON_COMPARE(actual, expected) \
    QVERIFY2(json(actual) == json(expected), \
             (json(actual).dump() + " != " + json(expected).dump()).c_str())

namespace reconscope::controller::cluster::testsupport {

// The 415 a PATCH of a custom resource gets for a patch type kube-apiserver does not take for it
// (strategic merge, or a type that is no patch type).
inline const QByteArray customResourcePatch415 = QByteArrayLiteral(
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415})"
    "\n");

using json = nlohmann::json;

inline UserInfo admin()
{
    return UserInfo{ QStringLiteral("kubernetes-admin"),
                     { QStringLiteral("system:masters") },
                     true };
}

inline UserInfo viewer()
{
    return UserInfo{ QStringLiteral("viewer"), { QStringLiteral("reconscope:viewers") }, true };
}

// "/path?query" with an optional body; content type for PATCH.
inline ApiRequest request(const QByteArray &method,
                          const QString &pathAndQuery,
                          const QByteArray &body = {},
                          const QByteArray &contentType = "application/json",
                          const UserInfo &user = admin())
{
    ApiRequest r;
    r.method = method;
    const qsizetype q = pathAndQuery.indexOf(u'?');
    r.path = q < 0 ? pathAndQuery : pathAndQuery.left(q);
    if (q >= 0)
        r.query = QUrlQuery(pathAndQuery.mid(q + 1));
    r.body = body;
    if (!body.isEmpty())
        r.headers.append({ "content-type", contentType });
    r.user = user;
    return r;
}

inline json parse(const QByteArray &body)
{
    return json::parse(body.constBegin(), body.constEnd(), nullptr, false);
}

inline QByteArray dump(const json &value)
{
    return QByteArray::fromStdString(value.dump());
}

inline QString str(const json &value)
{
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
}

inline const QString customApps
    = QStringLiteral("/apis/infrastructure.internal.net/v1/namespaces/default/customapps");

inline json customApp(const std::string &name, const std::string &image = "nginx:1.27")
{
    return json{ { "apiVersion", "infrastructure.internal.net/v1" },
                 { "kind", "CustomApp" },
                 { "metadata", { { "name", name } } },
                 { "spec", { { "image", image }, { "replicas", 2 } } } };
}

// A WatchSink that keeps every line.
class CollectingSink final : public WatchSink
{
public:
    void send(const QByteArray &line) override
    {
        lines.append(line);
        events.push_back(parse(line));
    }
    void finish() override { finished = true; }

    QStringList types() const
    {
        QStringList list;
        for (const json &event : events)
            list << str(event["type"]);
        return list;
    }

    QList<QByteArray> lines;
    std::vector<json> events;
    bool finished = false;
    std::shared_ptr<WatchStream> stream; // kept alive as the transport would
};

// Starts the watch of `response` into a new sink.
inline std::shared_ptr<CollectingSink> startWatch(const ApiResponse &response)
{
    auto sink = std::make_shared<CollectingSink>();
    sink->stream = response.watch;
    if (response.watch)
        response.watch->start(sink);
    return sink;
}

// The per-test-function cluster and API handler of the handler-level tests: setUp() in init(),
// tearDown() in cleanup(); call() sends a request as the admin, createApp() stores a CustomApp in
// "default" (extraMetadata merged into its metadata) and answers the stored object.
class ApiTestCase : public QObject
{
protected:
    void setUp()
    {
        m_cluster = std::make_unique<Cluster>();
        m_server = std::make_unique<ApiServer>(m_cluster.get());
    }
    void tearDown()
    {
        m_server.reset();
        m_cluster.reset();
    }
    ApiResponse call(const QByteArray &method,
                     const QString &path,
                     const QByteArray &body = {},
                     const QByteArray &contentType = "application/json")
    {
        return m_server->handle(request(method, path, body, contentType));
    }
    json createApp(const std::string &name, const json &extraMetadata = json::object())
    {
        json app = customApp(name);
        app["metadata"].update(extraMetadata);
        const ApiResponse response = call("POST", customApps, dump(app));
        if (response.status != 201)
            qWarning("create failed: %s", response.body.constData());
        return parse(response.body);
    }

    std::unique_ptr<Cluster> m_cluster;
    std::unique_ptr<ApiServer> m_server;
};

} // namespace reconscope::controller::cluster::testsupport
