#pragma once

#include "controller/cluster/sim/embeddedcluster.h"
#include "models/result.h"

#include <QObject>
#include <QString>
#include <QTemporaryDir>

#include <memory>

class QThread;

namespace reconscope::controller::cluster {

// An embedded cluster on a thread of its own, reached like a real one through the kubeconfig its
// server writes into a temporary directory (mTLS, context reconscope-admin). The console's demo
// and the conflict lab's own cluster both run on one. Destroying it stops the server on its own
// thread first, then ends the thread.
class BackgroundCluster final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BackgroundCluster)

public:
    BackgroundCluster(EmbeddedClusterOptions options,
                      const QString &threadName,
                      QObject *parent = nullptr);
    ~BackgroundCluster() override;

    // Starts the server; started() or failed() follows, queued to this object's thread.
    models::Status<> start();
    // The server, living on the cluster's thread (null before start()).
    EmbeddedServer *server() const { return m_server; }
    QString kubeconfigPath() const;

signals:
    void started(const QString &kubeconfigPath);
    void failed(const QString &message);

private:
    void stop();

    EmbeddedClusterOptions m_options;
    QString m_threadName;
    std::unique_ptr<QTemporaryDir> m_dir;
    QThread *m_thread = nullptr;
    EmbeddedServer *m_server = nullptr;
};

} // namespace reconscope::controller::cluster
