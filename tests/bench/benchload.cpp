#include "benchload.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <cstdio>

using nlohmann::json;

json makeObject(int index)
{
    const auto name = "app-" + std::to_string(index);
    json spec{
        { "image",
          "registry.example.com/team/service-" + std::to_string(index % 97) + ":1.4."
              + std::to_string(index % 13) },
        { "replicas", 1 + index % 5 },
        { "port", 8080 },
        { "configJSON",
          R"({"logLevel":"info","features":{"cache":true,"tracing":false},"upstreams":["a.internal:443","b.internal:443"]})" },
        { "secretRef", { { "name", "service-credentials" } } }
    };
    json lastApplied{ { "apiVersion", "infrastructure.internal.net/v1" },
                      { "kind", "CustomApp" },
                      { "metadata", { { "name", name }, { "namespace", "bench" } } },
                      { "spec", spec } };
    json annotations{
        { "kubectl.kubernetes.io/last-applied-configuration", lastApplied.dump() + "\n" },
        { "deploy.example.com/owner", "team-payments@example.com" },
        { "deploy.example.com/runbook",
          "https://runbooks.example.com/services/payments/service-" + std::to_string(index % 97) },
        { "deploy.example.com/change-ticket", "CHG-" + std::to_string(100000 + index) },
        { "deploy.example.com/description", std::string(2100, 'x') }
    };
    return { { "apiVersion", "infrastructure.internal.net/v1" },
             { "kind", "CustomApp" },
             { "metadata",
               { { "name", name },
                 { "namespace", "bench" },
                 { "labels",
                   { { "app.kubernetes.io/name", name },
                     { "app.kubernetes.io/part-of", "payments" },
                     { "app.kubernetes.io/managed-by", "gitops" },
                     { "team", "team-" + std::to_string(index % 20) },
                     { "tier", index % 3 == 0 ? "frontend" : "backend" } } },
                 { "annotations", annotations } } },
             { "spec", spec } };
}

json makeStatus(int generation, int counter)
{
    json conditions = json::array();
    for (const char *type : { "Ready", "Degraded", "Available" }) {
        conditions.push_back(
            { { "type", type },
              { "status", std::string(type) == "Degraded" ? "False" : "True" },
              { "reason", "Synchronized" },
              { "message", "all replicas ready, observed at pass " + std::to_string(counter) },
              { "lastTransitionTime", "2026-11-29T10:00:00Z" },
              { "observedGeneration", generation } });
    }
    return { { "status",
               { { "observedGeneration", generation },
                 { "replicas", 1 },
                 { "readyReplicas", 1 },
                 { "conditions", conditions } } } };
}

double runConcurrent(QNetworkAccessManager &nam,
                     int count,
                     int inFlight,
                     const std::function<QNetworkReply *(QNetworkAccessManager &, int)> &issue,
                     int *failures)
{
    QElapsedTimer timer;
    timer.start();
    int next = 0;
    int done = 0;
    QEventLoop loop;
    std::function<void()> launch = [&] {
        if (next >= count)
            return;
        QNetworkReply *reply = issue(nam, next++);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (status < 200 || status >= 300) {
                if (failures && ++*failures <= 3)
                    std::fprintf(stderr,
                                 "request failed: %d %s\n",
                                 status,
                                 reply->readAll().left(300).constData());
            }
            reply->deleteLater();
            if (++done == count)
                loop.quit();
            else
                launch();
        });
    };
    for (int i = 0; i < inFlight && i < count; ++i)
        launch();
    if (count > 0)
        loop.exec();
    return double(timer.nsecsElapsed()) / 1e9;
}
