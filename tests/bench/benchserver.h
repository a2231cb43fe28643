#pragma once

#include "controller/kube/clientconfig.h"

#include <QNetworkAccessManager>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

#include <nlohmann/json.hpp>

// `reconscope serve` as a separate process, and a minimal synchronous HTTPS client for the
// benchmark's own requests (a benchmark may wait; the product's code never does).
class BenchServer
{
public:
    ~BenchServer();
    bool start();
    void stop();

    QUrl url() const { return m_config.server; }
    QString kubeconfigPath() const { return m_dir.filePath(QStringLiteral("kubeconfig.yaml")); }
    qint64 pid() const { return m_process.processId(); }
    const reconscope::controller::kube::ClientConfig &config() const { return m_config; }

    struct Reply
    {
        int status = 0;
        QByteArray body;
    };
    QNetworkRequest request(const QString &path, const QByteArray &contentType = {}) const;
    Reply send(QNetworkAccessManager &nam,
               const QByteArray &verb,
               const QString &path,
               const QByteArray &body = {},
               const QByteArray &contentType = {}) const;

    // Peak and current resident memory of the server process, bytes.
    qint64 peakRss() const;
    qint64 currentRss() const;

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    reconscope::controller::kube::ClientConfig m_config;
};

// Statistics helpers.
double percentile(std::vector<double> values, double p);
qint64 procStatusKb(qint64 pid, const char *field);
