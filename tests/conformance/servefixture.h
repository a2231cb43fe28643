#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

// Starts `reconscope serve` as a separate process on a free port, waits for its kubeconfig, and
// runs kubectl against it.
class ServeFixture
{
public:
    ~ServeFixture();

    bool start(const QStringList &extraArgs = {});
    void stop();

    struct Output
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    // kubectl with KUBECONFIG pointing at the written kubeconfig; stdin optional.
    Output
    kubectl(const QStringList &args, const QByteArray &stdinData = {}, int timeoutMs = 30000) const;
    QProcess *startKubectl(const QStringList &args) const;

    QString kubeconfigPath() const { return m_dir.filePath(QStringLiteral("kubeconfig.yaml")); }
    QString url() const { return m_url; }
    QString path(const QString &name) const { return m_dir.filePath(name); }
    static QString kubectlPath();

private:
    QProcessEnvironment environment() const;

    QTemporaryDir m_dir;
    QProcess m_server;
    QString m_url;
};
