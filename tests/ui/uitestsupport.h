#pragma once

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QTemporaryDir>

namespace reconscope::tests {

// A kubeconfig with two contexts on clusters that refuse connections (port 1), token auth: the
// console treats them as real clusters (read-only until enabled) and keeps reconnecting.
inline QString writeTwoContextKubeconfig(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("kubeconfig"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(R"(apiVersion: v1
kind: Config
current-context: staging
clusters:
- name: staging
  cluster:
    server: http://127.0.0.1:1
- name: prod
  cluster:
    server: http://127.0.0.1:1
users:
- name: sre
  user:
    token: not-a-real-token
contexts:
- name: staging
  context:
    cluster: staging
    user: sre
    namespace: team-a
- name: prod
  context:
    cluster: prod
    user: sre
)");
    return path;
}

// A kubeconfig with one context on a plain-HTTP test server on `port` (tests/kube/testserver.h),
// token auth.
inline QString writeTestServerKubeconfig(const QTemporaryDir &dir, quint16 port)
{
    const QString path = dir.filePath(QStringLiteral("kubeconfig"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(R"(apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: http://127.0.0.1:)"
               + QByteArray::number(port) + R"(
users:
- name: tester
  user:
    token: not-a-real-token
contexts:
- name: test
  context:
    cluster: test
    user: tester
)");
    return path;
}

// A CustomAppList body holding `items` (objects' JSON) at resourceVersion `rv`.
inline QByteArray customAppListBody(const QList<QByteArray> &items, int rv)
{
    QByteArray body
        = R"({"kind":"CustomAppList","apiVersion":"infrastructure.internal.net/v1","metadata":{"resourceVersion":")"
        + QByteArray::number(rv) + R"("},"items":[)";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

} // namespace reconscope::tests
