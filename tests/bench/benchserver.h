#pragma once

#include "controller/kube/clientconfig.h"

#include <QList>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

#include <nlohmann/json.hpp>

// The server a benchmark runs against, as separate processes, and a minimal synchronous HTTPS
// client for the benchmark's own requests (a benchmark may wait; the product's code never does):
//
//   Embedded  `reconscope serve --no-demo` (RECONSCOPE_BENCH_SERVER: another `reconscope` to
//             serve, e.g. an older build, to compare the two back to back under the same load);
//   Real      etcd + kube-apiserver alone, as envtest runs them (tools/kubefixture/cluster.py
//             `up --control-plane-only`), from the control plane ./dev builds
//             (RECONSCOPE_KUBE_BIN); the CustomApp CRD is installed by start().
//
// Memory and CPU figures cover every process of the server (for Real: kube-apiserver and etcd).
class BenchServer
{
public:
    enum class Kind { Embedded, Real };

    explicit BenchServer(Kind kind = Kind::Embedded);
    ~BenchServer();
    bool start();
    void stop();

    Kind kind() const { return m_kind; }
    QString name() const
    {
        return m_kind == Kind::Real ? QStringLiteral("real") : QStringLiteral("embedded");
    }
    QUrl url() const { return m_config.server; }
    QString kubeconfigPath() const { return m_kubeconfig; }
    qint64 pid() const { return m_pids.value(0); } // reconscope serve, or kube-apiserver
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

    // Peak and current resident memory of the server's processes, bytes (summed).
    qint64 peakRss() const;
    qint64 currentRss() const;
    // CPU time (user + system) the server's processes have used so far, seconds (summed).
    double cpuSeconds() const;

private:
    bool startEmbedded();
    bool startReal();
    bool readKubeconfig();
    bool installCustomAppCrd();

    Kind m_kind;
    QTemporaryDir m_dir;
    QProcess m_process; // Embedded
    QString m_clusterState; // Real: cluster.py's state directory
    QString m_kubeconfig;
    QList<qint64> m_pids;
    reconscope::controller::kube::ClientConfig m_config;
};

// Statistics helpers.
double percentile(std::vector<double> values, double p);
qint64 procStatusKb(qint64 pid, const char *field);
// CPU time (utime + stime) process `pid` has used so far, seconds; 0 when it is gone.
double procCpuSeconds(qint64 pid);
