#pragma once

#include <QFile>
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

} // namespace reconscope::tests
